/*
 * pb2.h - PB2's explore step (Parker-Holder et al. 2020, "Provably
 * efficient online hyperparameter optimization with population-based
 * bandits"): the configuration a member that exploits a donor trains its
 * next segment with, chosen by a time-varying GP bandit instead of a
 * random perturbation
 *
 * Every segment that continued from a checkpoint and ended ok is a row:
 * its end fidelity t, the checkpoint's loss l0 (the context), its
 * configuration x (the unit cube, as the optimiser's vectors), and the
 * target y = (l1 - l0) / (t - t0), the change of the loss per fidelity
 * unit (negative: it improved).  The newest PB2_WINDOW rows are the data
 * of a Gaussian process (gp.h) over (t / max, l0 scaled to [0, 1] over the
 * window, x); y standardised and clipped to [-2, 2].  Time is an input
 * with its own learned lengthscale, so the model forgets old segments as
 * they grow distant.  The chosen x minimises the lower confidence bound
 * mu - kappa sigma of y at the context (the new segment's end, the donor's
 * loss), kappa = sqrt(0.2 + max(0, ln(0.4 n))) as in Ray Tune's PB2, over
 * uniform candidates and candidates around the donor's configuration,
 * refined by L-BFGS (acq.h).  Segments in flight shrink the variance at
 * their configurations (GP-BUCB's hallucination, Desautels et al. 2014):
 * the model is conditioned on them at its own mean, which leaves the mean
 * unchanged.
 *
 * Deterministic: a function of the rows, the arguments and the stream
 * passed in; the model is fitted afresh at every choice, so a load that
 * replays the results gets the same choices.
 *
 * Ownership: pb2_new() returns a struct freed with pb2_free(); it copies
 * choices.  Arguments are borrowed for the call.  Errors: DEHBQ_OK,
 * DEHBQ_ENOMEM, DEHBQ_EINVAL (bad arguments), DEHBQ_EAGAIN (too few rows
 * yet, a model that cannot be fitted, or no feasible choice: the caller
 * explores as PBT does).
 */
#ifndef DEHBQ_PB2_H
#define DEHBQ_PB2_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"

#define PB2_WINDOW   200 /* rows the model is fitted on, the newest */
#define PB2_MIN_ROWS 4	 /* fewer: DEHBQ_EAGAIN */
#define PB2_CAND     512 /* candidates, half of them local */

struct pb2;

/* dim parameters (choices: K > 1 a categorical, 0 continuous; NULL all
 * continuous), fidelities up to max_fidelity. */
int pb2_new(int dim, const int *choices, double max_fidelity, struct pb2 **out);
void pb2_free(struct pb2 *p); /* NULL is fine */

/*
 * Segment job ended ok at fidelity t1 with loss l1.  It continued from
 * the checkpoint of job parent (-1: from scratch) at fidelity t0.  A
 * segment from scratch, or from a checkpoint not seen here, is no row but
 * its loss is kept, for the segments that continue from it.
 */
int pb2_observe(struct pb2 *p, int64_t job, int64_t parent, const double *x,
		double t0, double t1, double l1);

/*
 * The configuration for a segment ending at fidelity t that continues
 * from a checkpoint of loss l0 whose configuration was dx (the donor's),
 * while npend segments with configurations pend (npend x dim) are in
 * flight; feasible (NULL: all are) as optim_setup's.  Draws from r.
 */
int pb2_choose(struct pb2 *p, double t, double l0, const double *dx,
	       const double *pend, size_t npend,
	       int (*feasible)(void *arg, const double *vec), void *farg,
	       struct rng *r, double *vec);

/* Rows so far (all, not only the window). */
size_t pb2_rows(const struct pb2 *p);

#endif
