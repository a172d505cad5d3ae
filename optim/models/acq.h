/*
 * acq.h - acquisition over a conditioned Gaussian process (gp.h): which of
 * a set of candidate points to evaluate next
 *
 *   acq_ei: expected improvement below ymin, EI = sigma (v Phi(v) + phi(v))
 *     with v = (ymin - mu) / sigma, at every candidate; then NLopt's L-BFGS
 *     on EI (its exact gradient through the posterior's) from the best
 *     ACQ_REFINE candidates, over the continuous dimensions, ACQ_REFINE_EV
 *     evaluations each.  The best point found.
 *   acq_lcb: the lower confidence bound mu - kappa sigma (GP-UCB of
 *     Srinivas et al. 2010, for minimisation), minimised over the
 *     candidates and refined as EI is; acq_ucb_kappa gives the paper's
 *     kappa = sqrt(beta_t) for a finite set of candidates.
 *   acq_ei_pen: EI times local penalisers of the jobs in flight.
 *   acq_ts: Thompson sampling, the argmin of one joint posterior draw
 *     over the candidates.
 *   acq_local: candidates around given points, for either (local search
 *     in one step, where uniform candidates thin out with the dimension).
 *
 * Deterministic: a function of the model, the candidates and (for acq_ts)
 * the caller's rng.  Ownership: scratch is allocated and freed per call;
 * the answer goes to vec (dim doubles).  Errors as gp.h's.
 */
#ifndef DEHBQ_ACQ_H
#define DEHBQ_ACQ_H

#include <stddef.h>

#include "rng.h"

struct gp;

#define ACQ_REFINE    5	 /* L-BFGS starts from the best candidates */
#define ACQ_REFINE_EV 50 /* EI evaluations per start */

/* The candidates' layout: dim coordinates, of which cont[0..ncont-1] are
 * continuous (refined); the others are categorical (kept). */
struct acq_space {
	int dim;
	const int *cont;
	int ncont;
};

/*
 * EI below ymin of a Gaussian of mean mu and variance var:
 * s (v Phi(v) + phi(v)), v = (ymin - mu) / s; a lower mean gives more.
 */
double acq_ei_value(double ymin, double mu, double var);

int acq_ei(struct gp *g, const double *cand, size_t nc,
	   const struct acq_space *sp, double ymin, double *vec);
/*
 * The same for the mean of EI over ng >= 1 models (the hyperparameter
 * samples of EI-MCMC, Snoek et al. 2012), its gradient the mean of theirs;
 * ng = 1 is acq_ei.
 */
int acq_ei_mean(struct gp *const *g, size_t ng, const double *cand, size_t nc,
		const struct acq_space *sp, double ymin, double *vec);
/*
 * Local penalisation of the jobs in flight (González et al. 2016): np
 * points x (np * dim), each of which probably excludes a ball of radius
 * r[j] / L around it (r[j] = its mean's distance above ymin, L a Lipschitz
 * constant of the mean), softly: phi_j(x) = Phi((L |x - x_j| - r[j]) /
 * s[j]), s[j] its posterior sd.  acq_ei_pen maximises EI times the
 * product of the phi_j, over the candidates and then by L-BFGS (its exact
 * gradient), on a model conditioned on the real results only.
 */
struct acq_pen {
	const double *x, *r, *s;
	size_t np;
	double L;
};
int acq_ei_pen(struct gp *g, const double *cand, size_t nc,
	       const struct acq_space *sp, double ymin,
	       const struct acq_pen *pen, double *vec);
/*
 * What acq_ei_pen's refinement climbs, at x (dim values): EI times the
 * penalisers, and (grad not NULL) its gradient over the continuous
 * coordinates sp->cont.  0 when the model cannot predict.
 */
double acq_ei_pen_at(struct gp *g, const struct acq_space *sp, double ymin,
		     const struct acq_pen *pen, const double *x, double *grad);
/*
 * González et al.'s L: the largest norm of the mean's gradient over the
 * candidates, or ACQ_PEN_LFLAT when that is below 1e-7 (a flat
 * model).
 */
#define ACQ_PEN_LFLAT 10.0
int acq_lipschitz(struct gp *g, const double *cand, size_t nc, int dim,
		  double *L);

int acq_ts(struct gp *g, const double *cand, size_t nc,
	   const struct acq_space *sp, struct rng *r, double *vec);
int acq_lcb(struct gp *g, const double *cand, size_t nc,
	    const struct acq_space *sp, double kappa, double *vec);

#define ACQ_UCB_DELTA 0.1 /* GP-UCB's confidence parameter delta */
#define ACQ_UCB_SCALE 5	  /* beta_t divided by it, as the paper's runs */
/*
 * sqrt(beta_t / ACQ_UCB_SCALE), beta_t of Srinivas et al.'s Theorem 1 (a
 * finite domain of nc points, the t-th proposal): 2 log(nc t^2 pi^2 /
 * (6 delta)); their experiments scaled it down by 5, since the bound is
 * conservative.
 */
double acq_ucb_kappa(size_t nc, size_t t);

#define ACQ_LOCAL_SMIN 0.005 /* a local step's sigma: log-uniform in */
#define ACQ_LOCAL_SMAX 0.2   /* [SMIN, SMAX] of the unit interval */
/*
 * n local candidates into cand (n * dim): each perturbs one of the k
 * centres (dim values each; k > 0, else nothing is written), drawn
 * uniformly: every continuous coordinate by a normal step of one sigma,
 * log-uniform in [ACQ_LOCAL_SMIN, ACQ_LOCAL_SMAX], clipped to [0, 1];
 * each categorical coordinate redrawn uniformly with probability 1 /
 * (the number of categorical coordinates).
 */
void acq_local(const double *const *centres, size_t k,
	       const struct acq_space *sp, struct rng *r, double *cand,
	       size_t n);

#endif
