/*
 * asha.h - ASHA as the scheduler of another optimiser's proposals: "the
 * optimiser proposes, ASHA schedules" (gcp with multi_fidelity "asha";
 * OPTIMIZERS.md, TPE section).  A searcher (searcher.h) needs none of
 * this: asha takes it as its setting "searcher", as it takes tpe and gp.
 *
 * optim_asha_ops draws each new rung-0 configuration uniformly.  Given a
 * sampler, it asks the sampler instead; promotions are ASHA's own.  The
 * owner keeps an ASHA state (void *, from asha_open or asha_load) beside
 * its model, forwards every ask, tell, reopen, save, replay, describe and
 * free to optim_asha_ops, and learns from the results itself.
 *
 * Ownership: the sampler's ctx is borrowed and must outlive the ASHA
 * state; the state is freed with optim_asha_ops.free.
 */
#ifndef DEHBQ_ASHA_H
#define DEHBQ_ASHA_H

#include "optim.h"

struct asha_sampler {
	void *ctx;
	/* a new configuration into vec, and how it was made */
	int (*draw)(void *ctx, double *vec, enum optim_kind *kind);
};

extern const struct optim_ops optim_asha_ops;

/* An ASHA for setup s (its settings are not ASHA's: they are ignored). */
int asha_open(const struct optim_setup *s, const struct asha_sampler *smp,
	      void **st);
/* The same from the member "asha" of an owner's saved state. */
int asha_load(const struct optim_setup *s, const struct cJSON *owner,
	      const struct asha_sampler *smp, void **st, char *err);

/* optim_ops.rescore for an ASHA state (the rungs' stored results). */
int asha_rescore(void *st, double (*score)(void *arg, int64_t job), void *arg);

#endif
