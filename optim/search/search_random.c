/*
 * search_random.c - owns the random searcher: uniform samples of the unit
 * cube, one rng seeded from the study's seed (ASHA's draws before the
 * searcher interface, bit for bit), or going on from the scheduler's
 * stream when it gives one (sh's and hyperband's, search_setup.stream).
 * Learns nothing.
 */
#include "searcher.h"

#include "err.h"
#include "jsonbuf.h"
#include "ostate.h"
#include "rng.h"

#include <stdlib.h>

struct rnd {
	int dim;
	struct rng rng;
};

static int rnd_open(const struct search_setup *s, void **st, char *err)
{
	struct rnd *r = calloc(1, sizeof(*r));

	(void)err;
	if (!r)
		return DEHBQ_ENOMEM;
	r->dim = s->dim;
	if (s->stream)
		r->rng = *s->stream;
	else
		rng_seed(&r->rng, s->seed);
	*st = r;
	return DEHBQ_OK;
}

static int rnd_propose(void *st, double fidelity, double *vec,
		       enum trial_kind *kind)
{
	struct rnd *r = st;
	int i;

	(void)fidelity;
	for (i = 0; i < r->dim; i++)
		vec[i] = rng_uniform(&r->rng);
	*kind = TRIAL_KIND_RANDOM;
	return DEHBQ_OK;
}

static int rnd_save(const void *st, struct jsonbuf *b)
{
	jsonbuf_puts(b, "{\"rng\":");
	ostate_put_rng(b, &((const struct rnd *)st)->rng);
	jsonbuf_put(b, "}", 1);
	return jsonbuf_failed(b);
}

/* state: an object with member "rng" (other members are not read: ASHA's
 * own state before 0.5 loads this way) */
static int rnd_load(const struct search_setup *s, const struct cJSON *state,
		    void **st, char *err)
{
	struct rnd *r;
	int rc;

	if ((rc = rnd_open(s, (void **)&r, err)))
		return rc;
	if ((rc = ostate_get_rng(state, "rng", &r->rng, err))) {
		free(r);
		return rc;
	}
	*st = r;
	return DEHBQ_OK;
}

static int rnd_describe(const void *st, struct jsonbuf *b)
{
	(void)st;
	jsonbuf_puts(b, "\"learns\":false");
	return jsonbuf_failed(b);
}

const struct search_ops search_random_ops = {
	.name = "random",
	.summary = "uniform random samples",
	.open = rnd_open,
	.propose = rnd_propose,
	.save = rnd_save,
	.load = rnd_load,
	.describe = rnd_describe,
	.free = free,
};
