/*
 * benchfn.h - multi-fidelity benchmark problems (shared/BENCHMARKS.md)
 *
 * Stochastic counting ones (countingonesN), multi-fidelity Branin and
 * multi-fidelity Hartmann-6 (mfh6: bias 0.5, noise 0.1), and two problems
 * no optimiser here was tuned to (#38): Levy-N (x in [-10, 10]^N) and
 * Rosenbrock-N (x in [-5, 10]^N), both with optimum 0 at x = 1 and, below
 * the maximum budget, relative noise 0.2 (1 - s) N(0, 1); and mixed4, a
 * space of the four kinds a tuner meets: a log-scaled rate (1e-5 .. 1),
 * an integer (1 .. 8), a categorical of 3 choices and a float (0 .. 0.8),
 * a positive definite quadratic with a rate x integer interaction and a
 * penalty per choice, optimum 0 (same noise).  Inputs are
 * unit vectors u in [0,1]^dim; each problem scales them to its native
 * domain itself (Branin: x1 = -5 + 15 u0, x2 = 15 u1; counting ones:
 * categorical i is 1 when u_i >= 0.5, floats are u itself).
 *
 * Calling sequence:
 *   struct benchfn f;  benchfn_init(&f, "branin", err);
 *   loss = benchfn_loss(&f, u, budget, &rng);   noisy, at a fidelity
 *   regret = benchfn_true_loss(&f, u) - benchfn_optimum(&f);
 *
 * Error handling: benchfn_init returns DEHBQ_EINVAL with a message for an
 * unknown name.  Budgets outside [min_budget, max_budget] are clipped.
 *
 * Ownership: struct benchfn is a plain value; nothing allocates.  Noise is
 * drawn from the caller's rng, so runs are reproducible.
 */
#ifndef DEHBQ_BENCHFN_H
#define DEHBQ_BENCHFN_H

#include "rng.h"

enum benchfn_kind {
	BENCHFN_COUNTINGONES = 0, /* N categorical + N float dimensions */
	BENCHFN_BRANIN,		  /* 2 dimensions */
	BENCHFN_HARTMANN6,	  /* 6 dimensions */
	BENCHFN_LEVY,		  /* N dimensions */
	BENCHFN_ROSENBROCK,	  /* N dimensions */
	BENCHFN_MIXED,		  /* 4 dimensions, one of 3 choices */
};

struct benchfn {
	enum benchfn_kind kind; /* which problem */
	int n;			/* counting ones, levy, rosenbrock: N */
	int dim;		/* unit-vector dimensions */
	double min_budget;	/* lowest budget */
	double max_budget;	/* highest budget */
};

/* name: "branin", "hartmann6", "mixed4", "countingones" followed by N
 * (1..256), or "levy" or "rosenbrock" followed by N (2..64). */
int benchfn_init(struct benchfn *f, const char *name, char *err);
/* Noisy loss at budget b. */
double benchfn_loss(const struct benchfn *f, const double *u, double b,
		    struct rng *r);
/* Noise-free loss at the maximum budget. */
double benchfn_true_loss(const struct benchfn *f, const double *u);
/* Global optimum of benchfn_true_loss (counting ones: -dim). */
double benchfn_optimum(const struct benchfn *f);
/* Dimension d's choices for an optimiser: K > 1 categorical, 0
 * continuous (an integer is continuous, as dehbq's codec gives it). */
int benchfn_choices(const struct benchfn *f, int d);
/* Regret, normalised by dim for counting ones. */
double benchfn_regret(const struct benchfn *f, const double *u);

#endif
