/*
 * optim_bohb.c - owns BOHB (Falkner et al., ICML 2018; HpBandSter's bohb):
 * Hyperband brackets from the DEHB engine, whose new configurations come
 * from BOHB's model (kde.h) instead of uniform draws; promotions follow
 * successive halving, as in Hyperband.
 *
 * Settings: top_n_percent (15), num_samples (64), random_fraction (1/3),
 * bandwidth_factor (3), min_bandwidth (1e-3), max_active_brackets (0).
 * Per-trial state: the engine's.  The model keeps every result (its
 * history); the snapshot holds the engine's state and the model's random
 * stream, and the results come back through optim_ops.replay.
 */
#include "optim.h"

#include "dehb.h"
#include "err.h"
#include "jsonbuf.h"
#include "kde.h"
#include "optim_dehb.h"
#include "ostate.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>

struct bohb {
	struct dehb *d; /* Hyperband, owned */
	struct kde *k;	/* the model, owned */
	int nlevels;
};

static const char *const bohb_keys[] = {
	"top_n_percent",
	"num_samples",
	"random_fraction",
	"bandwidth_factor",
	"min_bandwidth",
	"max_active_brackets",
	NULL,
};

static int read_settings(const cJSON *in, struct kde_params *p, int *maxact,
			 char *err)
{
	int rc;

	kde_params_init(p);
	*maxact = 0;
	if ((rc = ostate_set_keys(in, bohb_keys, "bohb", err)) ||
	    (rc = ostate_set_num(in, "top_n_percent", 1, 99, &p->top_n_percent,
				 err)) ||
	    (rc = ostate_set_int(in, "num_samples", 1, 100000, &p->num_samples,
				 err)) ||
	    (rc = ostate_set_num(in, "random_fraction", 0, 1,
				 &p->random_fraction, err)) ||
	    (rc = ostate_set_num(in, "bandwidth_factor", 1e-3, 1e3,
				 &p->bandwidth_factor, err)) ||
	    (rc = ostate_set_num(in, "min_bandwidth", 1e-9, 1,
				 &p->min_bandwidth, err)) ||
	    (rc = ostate_set_int(in, "max_active_brackets", 0, 1000000, maxact,
				 err)))
		return rc;
	return DEHBQ_OK;
}

static int bohb_settings(const cJSON *in, struct jsonbuf *b, char *err)
{
	struct kde_params p;
	int maxact, rc = read_settings(in, &p, &maxact, err);

	if (rc)
		return rc;
	jsonbuf_puts(b, "\"top_n_percent\":");
	jsonbuf_num(b, p.top_n_percent);
	jsonbuf_printf(
		b, ",\"num_samples\":%d,\"random_fraction\":", p.num_samples);
	jsonbuf_num(b, p.random_fraction);
	jsonbuf_puts(b, ",\"bandwidth_factor\":");
	jsonbuf_num(b, p.bandwidth_factor);
	jsonbuf_puts(b, ",\"min_bandwidth\":");
	jsonbuf_num(b, p.min_bandwidth);
	jsonbuf_printf(b, ",\"max_active_brackets\":%d", maxact);
	return jsonbuf_failed(b);
}

static void bohb_free(void *st)
{
	struct bohb *o = st;

	if (!o)
		return;
	dehb_free(o->d);
	kde_free(o->k);
	free(o);
}

/* The engine's sampler: BOHB's proposal (kde_propose cannot fail). */
static void sample(void *ctx, double *x)
{
	kde_propose(ctx, x);
}

/* The model, and the engine's open or load: `load` NULL opens. */
static int bohb_make(const struct optim_setup *s, const cJSON *engine,
		     void **st, char *err)
{
	struct kde_params p;
	struct optim_setup hs = *s;
	struct bohb *o;
	cJSON *hset;
	int maxact, rc;

	if ((rc = read_settings(s->settings, &p, &maxact, err)))
		return rc;
	if (!(o = calloc(1, sizeof(*o))))
		return DEHBQ_ENOMEM;
	/* the engine runs Hyperband with the bracket settings only */
	if (!(hset = cJSON_CreateObject()) ||
	    !cJSON_AddNumberToObject(hset, "max_active_brackets", maxact)) {
		cJSON_Delete(hset);
		free(o);
		return DEHBQ_ENOMEM;
	}
	hs.settings = hset;
	rc = engine ? dehb_load(engine, &o->d, err)
		    : optim_dehb_open_as(DEHB_OPT_HYPERBAND, &hs,
					 (void **)&o->d, err);
	cJSON_Delete(hset);
	if (!rc && (dehb_get_params(o->d)->optimizer != DEHB_OPT_HYPERBAND ||
		    dehb_get_params(o->d)->dim != s->dim ||
		    dehb_get_params(o->d)->seed != s->seed ||
		    dehb_get_params(o->d)->max_brackets != s->lim.brackets))
		rc = dehbq_errf(err, DEHBQ_EINVAL,
				"snapshot: BOHB's engine must run Hyperband "
				"with the optimizer's setup");
	if (!rc) {
		o->nlevels = dehb_levels(o->d);
		rc = kde_new(s->dim, s->choices, o->nlevels, &p,
			     s->seed ^ UINT64_C(0x9e3779b97f4a7c15), &o->k);
	}
	if (rc) {
		bohb_free(o);
		return rc;
	}
	dehb_set_sampler(o->d, sample, o->k);
	*st = o;
	return DEHBQ_OK;
}

static int bohb_open(const struct optim_setup *s, void **st, char *err)
{
	return bohb_make(s, NULL, st, err);
}

/* The fidelity level of a job, by its exact fidelity. */
static int level_of(const struct bohb *o, double fid)
{
	int l;

	for (l = 0; l < o->nlevels; l++)
		if (dehb_level_fidelity(o->d, l) == fid)
			return l;
	return -1;
}

static int bohb_ask(void *st, struct optim_job *job, double *vec)
{
	return optim_dehb_ask(((struct bohb *)st)->d, job, vec);
}

static int bohb_tell(void *st, const struct optim_job *job, const double *vec,
		     enum optim_status status, double loss, double cost)
{
	struct bohb *o = st;
	int rc;

	/* the model first: it can fail, the engine's tell cannot here */
	if ((rc = kde_observe(o->k, level_of(o, job->fidelity), vec,
			      status == OPTIM_OK ? loss : INFINITY)))
		return rc;
	return optim_dehb_tell(o->d, job, vec, status, loss, cost);
}

static int bohb_reopen(void *st, const struct optim_job *job, const double *vec)
{
	return optim_dehb_reopen(((struct bohb *)st)->d, job, vec);
}

static int64_t bohb_brackets(const void *st)
{
	return optim_dehb_brackets(((const struct bohb *)st)->d);
}

static int bohb_done(const void *st)
{
	return optim_dehb_done(((const struct bohb *)st)->d);
}

static int bohb_limits(void *st, const struct optim_limits *lim)
{
	return optim_dehb_limits(((struct bohb *)st)->d, lim);
}

static int bohb_save(const void *st, struct jsonbuf *b)
{
	const struct bohb *o = st;
	int rc;

	jsonbuf_puts(b, "{\"engine\":");
	if ((rc = dehb_save(o->d, b)))
		return rc;
	jsonbuf_puts(b, ",\"model_rng\":");
	ostate_put_rng(b, kde_rng(o->k));
	jsonbuf_put(b, "}", 1);
	return jsonbuf_failed(b);
}

static int bohb_load(const struct optim_setup *s, const cJSON *state, void **st,
		     char *err)
{
	const cJSON *eng;
	int rc;

	if ((rc = ostate_get_obj(state, "engine", &eng, err)) ||
	    (rc = bohb_make(s, eng, st, err)))
		return rc;
	if ((rc = ostate_get_rng(state, "model_rng",
				 kde_rng(((struct bohb *)*st)->k), err))) {
		bohb_free(*st);
		*st = NULL;
	}
	return rc;
}

/* The model's results back, in tell order (the engine loads whole). */
static int bohb_replay(void *st, const struct optim_job *job, const double *vec,
		       int told, int reopened, enum optim_status status,
		       double loss)
{
	struct bohb *o = st;

	(void)reopened;
	if (!job || !told)
		return DEHBQ_OK;
	return kde_observe(o->k, level_of(o, job->fidelity), vec,
			   status == OPTIM_OK ? loss : INFINITY);
}

static int bohb_describe(const void *st, struct jsonbuf *b)
{
	return optim_dehb_describe(((const struct bohb *)st)->d, b);
}

const struct optim_ops optim_bohb_ops = {
	.name = "bohb",
	.summary = "BOHB: Hyperband with a KDE model per fidelity",
	.caps = OPTIM_CAP_BRACKETS,
	.settings = bohb_settings,
	.open = bohb_open,
	.ask = bohb_ask,
	.tell = bohb_tell,
	.reopen = bohb_reopen,
	.brackets = bohb_brackets,
	.done = bohb_done,
	.limits = bohb_limits,
	.save = bohb_save,
	.load = bohb_load,
	.describe = bohb_describe,
	.replay = bohb_replay,
	.free = bohb_free,
};
