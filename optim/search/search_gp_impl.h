/*
 * search_gp_impl.h - the GP searcher's state, shared by its two files:
 * search_gp.c (settings, observations, jobs in flight, save and load) and
 * search_gp_model.c (the window, the fit, the believers, the candidates
 * and the acquisition).  Nothing outside the GP searcher includes it.
 *
 * Ownership: a struct gpo owns every array it points to (search_gp.c
 * frees them).
 */
#ifndef DEHBQ_SEARCH_GP_IMPL_H
#define DEHBQ_SEARCH_GP_IMPL_H

#include "gp.h"
#include "rng.h"
#include "searcher.h"

#include <stddef.h>
#include <stdint.h>

#define GPO_MAX_CAND	  100000
#define GPO_MAX_START	  100000
#define GPO_MAX_POINTS	  4000
#define GPO_RESTARTS	  5   /* L-BFGS runs of a full fit */
#define GPO_FULL_EVERY	  10  /* every 10th fit is full; the others warm */
#define GPO_LOCAL_CENTRES 5   /* local candidates perturb the best 5 */
#define GPO_LOCAL_DEFAULT 0.5 /* a new study's local_fraction */
#define GPO_PRIOR_DEFAULT 1   /* a new study's hyperprior: "gamma" */
#define GPO_MCMC_MAX	  100 /* mcmc_samples at most */
#define GPO_MCMC_BURN	  2   /* slice sweeps from the fit before a sample */

enum { ACQ_EI, ACQ_TS, ACQ_UCB };
enum { BATCH_BELIEVER, BATCH_PENALISE };
enum { HYP_ML, HYP_MCMC };
enum { OUT_STANDARD, OUT_COPULA };

struct pend {
	int64_t id;
	double *x;
};

struct gpo {
	int dim, acq, out, nstart, ncand, maxp;
	int batch;	/* how jobs in flight are kept apart: BATCH_* */
	int hyp, nmc;	/* HYP_*, and EI-MCMC's samples */
	int prior;	/* fits (and EI-MCMC) under gp_prior_nll's hyperprior */
	struct gp **mc; /* HYP_MCMC: nmc sampled models and a scratch one,
			   made at the first ask that needs them */
	int mcok;	/* the last ask's samples hold (acquire() uses them) */
	int nlocal;	/* candidates around the best results */
	double fit_level; /* the fidelity of the last fit's results */
	int *choices;
	struct rng rng;
	struct gp *gp;
	int64_t nfits;	   /* hyperparameter fits so far */
	size_t next_fit;   /* refit when this many finite results */
	size_t n, cap;	   /* observations, in tell order */
	double *x, *loss;  /* n * dim, n (+inf failures) */
	int64_t *job;	   /* n: the job of each (-1: a re-run's first) */
	double *fid;	   /* n, the fidelity of each */
	struct pend *pend; /* in flight, by id */
	size_t npend, cappend;
	/* scratch for one ask */
	size_t *win;	     /* window: observation indices */
	double *fx, *fy, *z; /* the model's data, n + believers */
	double *cand;	     /* ncand * dim */
	double *var;	     /* the believers' variances */
	size_t npen;	     /* penalise: the jobs in flight penalised ... */
	double lip;	     /* ... and the mean's Lipschitz estimate */
	int *cont, ncont;    /* the continuous dimensions */
	double *spare;	     /* dim: the next pending vector */
};

/*
 * A proposal from the results at fidelity level into vec: the model's
 * choice, or a uniform sample (kind random) during start-up or when the
 * model cannot be factored.  DEHBQ_OK or DEHBQ_ENOMEM.
 */
int search_gp_propose_at(struct gpo *g, double level, double *vec,
			 enum trial_kind *kind);

#endif
