/*
 * search_dngo_impl.h - what search_dngo.c (the searcher's settings, state
 * and acquisition) and search_dngo_model.c (its network, kept blocks and
 * regression for one ask) share; nothing outside them includes it.
 *
 * Ownership: struct dngo owns every pointer in it (dngo_free in
 * search_dngo.c); struct fit owns all but net, the searcher's
 * (search_dngo_fit_free).
 */
#ifndef DEHBQ_SEARCH_DNGO_IMPL_H
#define DEHBQ_SEARCH_DNGO_IMPL_H

#include "blr.h"
#include "mlp.h"
#include "rng.h"

#include <stddef.h>
#include <stdint.h>

#define DNGO_MAX_CAND	 100000
#define DNGO_MAX_START	 100000
#define DNGO_MAX_PENDING 32 /* believers at most */
#define DNGO_CENTRES	 5
#define DNGO_BLOCK	 MLP_PASS_ROWS /* see features() */

struct dngo {
	int dim, nstart, ncand, hidden, steps, nlocal;
	double growth; /* retrain_growth */
	uint64_t seed;
	struct rng rng;
	int *cont, ncont; /* the continuous dimensions */
	size_t n, cap;	  /* observations, in tell order */
	double *x, *loss, *fid;
	int64_t *job;
	size_t np, capp; /* jobs in flight, by job id */
	int64_t *pjob;
	double *px, *pfid;
	/* the network of the last training, kept while the first ts results
	 * it was trained on (tx, tz: their vectors and losses) stay */
	struct mlp *net;
	double *tx, *tz, tlevel;
	size_t ts;
	uint64_t fits; /* trainings in this process, for describe */
	double la, lb; /* the last regression's log alpha and log beta */
	/* full blocks of DNGO_BLOCK results the kept network has seen: their
	 * vectors, basis rows and Phi'Phi (features()) */
	double *bx, *bphi, *bg;
	size_t nblk, capblk;
};

/* One ask's model: the network (the searcher's), the regression, their
 * data. */
struct fit {
	const struct mlp *net;
	struct blr *reg;
	int k;	       /* basis functions: the network's width and 1 */
	double *X, *z; /* the results' vectors and outputs, then believers */
	double *raw;   /* the results' losses */
	double *phi;   /* their basis rows */
	double *G, *c; /* the results' Phi'Phi (lower) and Phi'z */
	double zz;     /* z'z */
	size_t m;      /* results */
	double zmin;   /* the best output */
	size_t best[DNGO_CENTRES], nbest;
};

void search_dngo_fit_free(struct fit *f);
/* The basis at n rows of x into phi (n * k): the last layer and 1. */
int search_dngo_basis(const struct fit *f, const double *x, size_t n,
		      double *phi);
/* The finite results at level into f (standardised), best few noted. */
int search_dngo_gather(const struct dngo *d, double level, struct fit *f);
/* The network (trained or kept) and the regression on f's results. */
int search_dngo_train(struct dngo *d, double level, struct fit *f);
/* The jobs in flight at level as kriging believers. */
int search_dngo_believe(const struct dngo *d, double level, struct fit *f);

#endif
