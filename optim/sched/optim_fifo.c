/*
 * optim_fifo.c - owns the fifo scheduler: every proposal of its searcher
 * (setting "searcher", searcher.h) runs once, at the maximum fidelity, in
 * the order asked.  No promotion, no stopping: the scheduler of
 * single-fidelity search (fifo + random is random search; fifo + halton a
 * space-filling design).
 *
 * Per-trial state "" (a job in flight of 0.4's de preset, which fifo runs
 * now, keeps the engine's).  The searcher observes every result; fifo keeps no
 * result itself, so its save is the searcher's (held.h), and at load the
 * history records (optim_ops.replay) are observed again in tell order.
 */
#include "held.h"
#include "optim.h"

#include "err.h"
#include "jsonbuf.h"
#include "ostate.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

struct fifo {
	double max_f;
	struct held h;
};

static const char *const fifo_keys[] = {"searcher", "search", NULL};

static int fifo_settings(const cJSON *in, struct jsonbuf *b, char *err)
{
	int rc;

	if ((rc = ostate_set_keys(in, fifo_keys, "fifo", err)))
		return rc;
	return held_settings(in, b, err);
}

static void fifo_free(void *st)
{
	struct fifo *f = st;

	if (!f)
		return;
	held_free(&f->h);
	free(f);
}

/* A fifo for setup s; state NULL: a new searcher, else its saved one. */
static int fifo_new(const struct optim_setup *s, const cJSON *state, void **st,
		    char *err)
{
	struct fifo *f;
	int rc;

	if ((rc = fifo_settings(s->settings, NULL, err)))
		return rc;
	if (!(f = calloc(1, sizeof(*f))))
		return DEHBQ_ENOMEM;
	f->max_f = s->max_fidelity;
	if ((rc = held_open(s, &f->max_f, 1, 0, NULL, state, &f->h, err))) {
		free(f);
		return rc;
	}
	*st = f;
	return DEHBQ_OK;
}

static int fifo_open(const struct optim_setup *s, void **st, char *err)
{
	return fifo_new(s, NULL, st, err);
}

static int fifo_load(const struct optim_setup *s, const cJSON *state, void **st,
		     char *err)
{
	return fifo_new(s, state, st, err);
}

static int fifo_ask(void *st, struct optim_job *job, double *vec)
{
	struct fifo *f = st;
	enum trial_kind tk;
	int rc;

	job->fidelity = f->max_f;
	if ((rc = f->h.so->propose(f->h.ss, f->max_f, vec, &tk)) ||
	    (rc = held_issued(&f->h, job, vec)))
		return rc;
	job->bracket = (int64_t)job->id;
	job->kind = (enum optim_kind)tk;
	return DEHBQ_OK;
}

static int fifo_tell(void *st, const struct optim_job *job, const double *vec,
		     enum optim_status status, double loss, double cost)
{
	struct fifo *f = st;

	(void)cost;
	return held_observe(&f->h, job, vec,
			    status == OPTIM_OK ? loss : INFINITY);
}

/* A job of 0.4's de preset, which ran on the DEHB engine (the de searcher
 * under fifo since): its state {"level":L,"slot":S,"config_id":C}. */
static int engine_de_state(const char *state)
{
	cJSON *s = cJSON_Parse(state);
	int64_t v;
	int ok = cJSON_GetArraySize(s) == 3 &&
		 !ostate_get_i64(s, "level", 0, 63, &v, NULL) &&
		 !ostate_get_i64(s, "slot", 0, INT32_MAX, &v, NULL) &&
		 !ostate_get_i64(s, "config_id", 0, OPTIM_MAX_ID, &v, NULL);

	cJSON_Delete(s);
	return ok;
}

/* A job of this fifo: at the maximum fidelity, with no state (or one of
 * the de preset's jobs of 0.4). */
static int fifo_fits(const struct fifo *f, const struct optim_job *job)
{
	return job->fidelity == f->max_f &&
	       (!job->state[0] || engine_de_state(job->state));
}

static int fifo_reopen(void *st, const struct optim_job *job, const double *vec)
{
	struct fifo *f = st;

	if (!fifo_fits(f, job))
		return DEHBQ_EINVAL;
	return held_issued(&f->h, job, vec);
}

static int fifo_save(const void *st, struct jsonbuf *b)
{
	const struct fifo *f = st;
	int rc;

	jsonbuf_put(b, "{", 1);
	rc = held_save(&f->h, b);
	jsonbuf_put(b, "}", 1);
	return rc ? rc : jsonbuf_failed(b);
}

/* The history back into the searcher: every told result, in tell order,
 * then every job in flight. */
static int fifo_replay(void *st, const struct optim_job *job, const double *vec,
		       int told, int reopened, enum optim_status status,
		       double loss)
{
	struct fifo *f = st;

	(void)reopened;
	if (!job)
		return held_replay(&f->h, NULL);
	held_replay(&f->h, job);
	if (!fifo_fits(f, job))
		return DEHBQ_EINVAL;
	if (!told)
		return held_issued(&f->h, job, vec);
	return fifo_tell(st, job, vec, status, loss, 0);
}

static int fifo_describe(const void *st, struct jsonbuf *b)
{
	return held_describe(&((const struct fifo *)st)->h, b);
}

static int fifo_rescore(void *st, const struct mobj *mo)
{
	return held_rescore(&((struct fifo *)st)->h, mo);
}

const struct optim_ops optim_fifo_ops = {
	.name = "fifo",
	.summary = "each of a searcher's proposals once, at the maximum "
		   "fidelity",
	.caps = OPTIM_CAP_SEARCHER | OPTIM_CAP_ONE_FIDELITY,
	.settings = fifo_settings,
	.open = fifo_open,
	.ask = fifo_ask,
	.tell = fifo_tell,
	.reopen = fifo_reopen,
	.save = fifo_save,
	.load = fifo_load,
	.describe = fifo_describe,
	.replay = fifo_replay,
	.rescore = fifo_rescore,
	.free = fifo_free,
	.history = held_history,
};
