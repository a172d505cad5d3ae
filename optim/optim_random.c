/*
 * optim_random.c - owns random search: uniform samples of the unit cube,
 * each at the maximum fidelity.  No settings; per-trial state "".
 */
#include "optim.h"

#include "err.h"
#include "jsonbuf.h"
#include "ostate.h"
#include "rng.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

struct rs {
	int dim;
	double max_f;
	struct rng rng;
};

static const char *const no_keys[] = {NULL};

static int rs_settings(const cJSON *in, struct jsonbuf *b, char *err)
{
	(void)b;
	return ostate_set_keys(in, no_keys, "random", err);
}

static int rs_open(const struct optim_setup *s, void **st, char *err)
{
	struct rs *r;
	int rc;

	if ((rc = rs_settings(s->settings, NULL, err)))
		return rc;
	if (!(r = calloc(1, sizeof(*r))))
		return DEHBQ_ENOMEM;
	r->dim = s->dim;
	r->max_f = s->max_fidelity;
	rng_seed(&r->rng, s->seed);
	*st = r;
	return DEHBQ_OK;
}

static int rs_ask(void *st, struct optim_job *job, double *vec)
{
	struct rs *r = st;
	int i;

	for (i = 0; i < r->dim; i++)
		vec[i] = rng_uniform(&r->rng);
	job->fidelity = r->max_f;
	job->bracket = (int64_t)job->id;
	job->kind = OPTIM_KIND_RANDOM;
	return DEHBQ_OK;
}

static int rs_tell(void *st, const struct optim_job *job, const double *vec,
		   enum optim_status status, double loss, double cost)
{
	(void)st, (void)job, (void)vec, (void)status, (void)loss, (void)cost;
	return DEHBQ_OK;
}

static int rs_reopen(void *st, const struct optim_job *job, const double *vec)
{
	const struct rs *r = st;

	(void)vec;
	return job->fidelity == r->max_f && !job->state[0] ? DEHBQ_OK
							   : DEHBQ_EINVAL;
}

static int rs_save(const void *st, struct jsonbuf *b)
{
	jsonbuf_puts(b, "{\"rng\":");
	ostate_put_rng(b, &((const struct rs *)st)->rng);
	jsonbuf_put(b, "}", 1);
	return jsonbuf_failed(b);
}

static int rs_load(const struct optim_setup *s, const cJSON *state, void **st,
		   char *err)
{
	struct rs *r;
	int rc;

	if ((rc = rs_open(s, st, err)))
		return rc;
	r = *st;
	if ((rc = ostate_get_rng(state, "rng", &r->rng, err))) {
		free(r);
		*st = NULL;
	}
	return rc;
}

static void rs_free(void *st)
{
	free(st);
}

/* Random search stores no result: nothing to rescore. */
static int rs_rescore(void *st, double (*score)(void *arg, int64_t job),
		      void *arg)
{
	(void)st, (void)score, (void)arg;
	return DEHBQ_OK;
}

const struct optim_ops optim_random_ops = {
	.name = "random",
	.summary = "random search at the maximum fidelity",
	.settings = rs_settings,
	.open = rs_open,
	.ask = rs_ask,
	.tell = rs_tell,
	.reopen = rs_reopen,
	.save = rs_save,
	.load = rs_load,
	.rescore = rs_rescore,
	.free = rs_free,
};
