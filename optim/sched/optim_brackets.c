/*
 * optim_brackets.c - owns successive halving and Hyperband as schedulers
 * over a searcher (held.h): the DEHB engine's brackets (dehb.h) decide
 * what runs, at which fidelity, and what is promoted (the best 1/eta of a
 * rung, once it is complete); the searcher proposes each bracket's new
 * configurations and observes every result.  BOHB is hyperband with the
 * kde searcher (a preset of optim_table.c).
 *
 * Settings: max_active_brackets (0: no limit), searcher (random) and
 * search.  The random searcher goes on from the engine's stream, so sh
 * and hyperband draw what they drew before the searcher interface.
 * Per-trial state: the engine's (optim_dehb.c).  Saved state:
 * {"engine":E,"searcher":S,"search":T}; results come back to the searcher
 * through replay.  Two layouts of 0.3 load: sh's and hyperband's, the
 * engine alone (whose stream the random searcher takes up), and bohb's,
 * {"engine":E,"model_rng":R} (R is kde's stream).
 */
#include "held.h"
#include "optim.h"
#include "optim_dehb.h"

#include "dehb.h"
#include "err.h"
#include "hb.h"
#include "jsonbuf.h"
#include "ostate.h"
#include "rng.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>

struct brk {
	struct dehb *d; /* the brackets, owned */
	struct held h;	/* the searcher */
	double ladder[HB_MAX_LEVELS];
	int levels;
};

static const char *const sh_keys[] = {"max_active_brackets", "searcher",
				      "search", NULL};
static const char *const hb_keys[] = {"max_active_brackets", "promotion",
				      "searcher", "search", NULL};
/* hyperband's promotion: who fills the rungs above a bracket's base */
static const char *const promotion_names[] = {"rank", "searcher", NULL};

/* The settings in, for `which`: its engine's mode, and its searcher's
 * (held.h's rungs: 2 when the searcher fills every rung). */
static int br_read(enum dehb_optimizer which, const cJSON *in, int *maxact,
		   enum dehb_optimizer *mode, int *rungs, char *err)
{
	const char *name = dehb_optimizer_name(which);
	int rc, promo = 0;

	*maxact = 0;
	if ((rc = ostate_set_keys(in, which == DEHB_OPT_SH ? sh_keys : hb_keys,
				  name, err)) ||
	    (rc = ostate_set_int(in, "max_active_brackets", 0, 1000000, maxact,
				 err)) ||
	    (rc = ostate_set_choice(in, "promotion", promotion_names, &promo,
				    err)))
		return rc;
	*mode = promo ? DEHB_OPT_DEHB : which;
	*rungs = promo ? 2 : 1;
	return held_settings(in, NULL, err);
}

static int br_settings(enum dehb_optimizer which, const cJSON *in,
		       struct jsonbuf *b, char *err)
{
	enum dehb_optimizer mode;
	int maxact, rungs, rc = br_read(which, in, &maxact, &mode, &rungs, err);

	if (rc)
		return rc;
	jsonbuf_printf(b, "\"max_active_brackets\":%d,", maxact);
	if (which == DEHB_OPT_HYPERBAND)
		jsonbuf_printf(b, "\"promotion\":\"%s\",",
			       promotion_names[rungs == 2]);
	return held_settings(in, b, err);
}

static void br_free(void *st)
{
	struct brk *o = st;

	if (!o)
		return;
	held_free(&o->h);
	dehb_free(o->d);
	free(o);
}

/*
 * The engine (opened, or loaded from `engine`) and the searcher (opened,
 * or loaded from `search`, a layout held_open reads).
 */
static int br_make(enum dehb_optimizer which, const struct optim_setup *s,
		   const cJSON *engine, const cJSON *search, void **st,
		   char *err)
{
	enum dehb_optimizer mode;
	const struct dehb_params *p;
	struct brk *o;
	int maxact, rungs, rc, l;

	if ((rc = br_read(which, s->settings, &maxact, &mode, &rungs, err)))
		return rc;
	if (!(o = calloc(1, sizeof(*o))))
		return DEHBQ_ENOMEM;
	rc = engine ? dehb_load(engine, &o->d, err)
		    : optim_dehb_open_as(mode, s, maxact, (void **)&o->d, err);
	if (!rc) {
		p = dehb_get_params(o->d);
		if (p->optimizer != mode || p->dim != s->dim ||
		    p->seed != s->seed || p->max_brackets != s->lim.brackets)
			rc = dehbq_errf(err, DEHBQ_EINVAL,
					"snapshot: the engine must run %s "
					"with the optimizer's setup",
					dehb_optimizer_name(mode));
	}
	if (!rc) {
		o->levels = dehb_levels(o->d);
		for (l = 0; l < o->levels; l++)
			o->ladder[l] = dehb_level_fidelity(o->d, l);
		rc = held_open(s, o->ladder, o->levels, rungs,
			       dehb_stream(o->d), search, &o->h, err);
	}
	if (rc) {
		br_free(o);
		return rc;
	}
	dehb_set_searcher(o->d, o->h.so, o->h.ss);
	*st = o;
	return DEHBQ_OK;
}

static int br_load(enum dehb_optimizer which, const struct optim_setup *s,
		   const cJSON *state, void **st, char *err)
{
	const cJSON *eng = state;
	cJSON *old = NULL, *mr;
	int rc;

	if (cJSON_GetObjectItemCaseSensitive(state, "engine") &&
	    !cJSON_GetObjectItemCaseSensitive(state, "search")) {
		/* 0.3's bohb: {"engine","model_rng"}, kde's stream */
		struct rng r;

		if ((rc = ostate_get_obj(state, "engine", &eng, err)) ||
		    (rc = ostate_get_rng(state, "model_rng", &r, err)))
			return rc;
		mr = cJSON_GetObjectItemCaseSensitive(state, "model_rng");
		if (!(old = cJSON_CreateObject()) ||
		    !cJSON_AddItemReferenceToObject(old, "rng", mr)) {
			cJSON_Delete(old);
			return dehbq_errf(err, DEHBQ_ENOMEM, "out of memory");
		}
	} else if (cJSON_GetObjectItemCaseSensitive(state, "engine") &&
		   (rc = ostate_get_obj(state, "engine", &eng, err))) {
		return rc;
	}
	rc = br_make(which, s, eng, old ? old : state, st, err);
	cJSON_Delete(old);
	return rc;
}

static int br_ask(void *st, struct optim_job *job, double *vec)
{
	return optim_dehb_ask(((struct brk *)st)->d, job, vec);
}

/* The searcher first: it can fail, the engine's tell cannot here. */
static int br_tell(void *st, const struct optim_job *job, const double *vec,
		   enum optim_status status, double loss, double cost)
{
	struct brk *o = st;
	int rc;

	if ((rc = held_observe(&o->h, job, vec,
			       status == OPTIM_OK ? loss : INFINITY)))
		return rc;
	return optim_dehb_tell(o->d, job, vec, status, loss, cost);
}

/* The engine tells the searcher, once the job fits (dehb_reopen). */
static int br_reopen(void *st, const struct optim_job *job, const double *vec)
{
	return optim_dehb_reopen(((struct brk *)st)->d, job, vec);
}

static int64_t br_brackets(const void *st)
{
	return optim_dehb_brackets(((const struct brk *)st)->d);
}

static int br_done(const void *st)
{
	return optim_dehb_done(((const struct brk *)st)->d);
}

static int br_limits(void *st, const struct optim_limits *lim)
{
	return optim_dehb_limits(((struct brk *)st)->d, lim);
}

static int br_save(const void *st, struct jsonbuf *b)
{
	const struct brk *o = st;
	int rc;

	jsonbuf_puts(b, "{\"engine\":");
	if ((rc = dehb_save(o->d, b)))
		return rc;
	jsonbuf_put(b, ",", 1);
	if ((rc = held_save(&o->h, b)))
		return rc;
	jsonbuf_put(b, "}", 1);
	return jsonbuf_failed(b);
}

/* The searcher's results back, in tell order (when it needs them), then
 * the jobs in flight, which the engine checks against its brackets. */
static int br_replay(void *st, const struct optim_job *job, const double *vec,
		     int told, int reopened, enum optim_status status,
		     double loss)
{
	struct brk *o = st;
	int rc;

	(void)reopened; /* job->reopened */
	if (!job)
		return (rc = optim_dehb_replayed(o->d, NULL, NULL))
			       ? rc
			       : held_replay(&o->h, NULL);
	held_replay(&o->h, job);
	if (!told)
		return (rc = optim_dehb_replayed(o->d, job, vec))
			       ? rc
			       : held_issued(&o->h, job, vec);
	return held_observe(&o->h, job, vec,
			    status == OPTIM_OK ? loss : INFINITY);
}

static int br_describe(const void *st, struct jsonbuf *b)
{
	const struct brk *o = st;
	int rc;

	if ((rc = optim_dehb_describe(o->d, b)))
		return rc;
	jsonbuf_put(b, ",", 1);
	return held_describe(&o->h, b);
}

static int br_rescore(void *st, const struct mobj *mo)
{
	struct brk *o = st;
	int rc;

	if ((rc = dehb_rescore(o->d, mo)))
		return rc;
	return held_rescore(&o->h, mo);
}

#define BRACKETS(NAME, WHICH, CAPS, SUMMARY)                                   \
	static int NAME##_settings(const cJSON *in, struct jsonbuf *b,         \
				   char *err)                                  \
	{                                                                      \
		return br_settings(WHICH, in, b, err);                         \
	}                                                                      \
	static int NAME##_open(const struct optim_setup *s, void **st,         \
			       char *err)                                      \
	{                                                                      \
		return br_make(WHICH, s, NULL, NULL, st, err);                 \
	}                                                                      \
	static int NAME##_load(const struct optim_setup *s,                    \
			       const cJSON *state, void **st, char *err)       \
	{                                                                      \
		return br_load(WHICH, s, state, st, err);                      \
	}                                                                      \
	const struct optim_ops optim_##NAME##_ops = {                          \
		.name = #NAME,                                                 \
		.summary = SUMMARY,                                            \
		.caps = CAPS | OPTIM_CAP_BRACKETS | OPTIM_CAP_SEARCHER,        \
		.settings = NAME##_settings,                                   \
		.open = NAME##_open,                                           \
		.ask = br_ask,                                                 \
		.tell = br_tell,                                               \
		.reopen = br_reopen,                                           \
		.brackets = br_brackets,                                       \
		.done = br_done,                                               \
		.limits = br_limits,                                           \
		.save = br_save,                                               \
		.load = NAME##_load,                                           \
		.describe = br_describe,                                       \
		.replay = br_replay,                                           \
		.rescore = br_rescore,                                         \
		.free = br_free,                                               \
		.history = held_history,                                       \
	}

BRACKETS(sh, DEHB_OPT_SH, OPTIM_CAP_ONE_BRACKET,
	 "successive halving: one bracket at a time, a searcher's "
	 "proposals (random) at its base");
BRACKETS(hyperband, DEHB_OPT_HYPERBAND, 0,
	 "Hyperband: successive halving brackets, a searcher's proposals "
	 "(random) at each base");
