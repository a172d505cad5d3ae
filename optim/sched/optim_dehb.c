/*
 * optim_dehb.c - owns the bracket engine's (dehb.h) optim_ops functions,
 * which the schedulers built on it (optim_brackets.c: sh, hyperband, and
 * so dehb and bohb) share: jobs, requeues, limits and status.  (0.4 ran
 * dehb and de here; they are the de searcher under hyperband and under
 * fifo now.)
 *
 * The budget is optim.c's, except --brackets, which the engine's bracket
 * manager enforces (it opens no bracket beyond the limit and finishes the
 * open ones).
 *
 * Per-trial state: {"level":L,"slot":S,"config_id":C} under sh and
 * hyperband, {"level":L} when the searcher fills the rungs (dehb): the
 * engine's part of a job that the generic fields (fidelity, bracket,
 * rung, kind, parent) do not carry; a requeue hands it back to
 * dehb_reopen().
 */
#include "optim.h"
#include "optim_dehb.h"

#include "dehb.h"
#include "err.h"
#include "jsonbuf.h"
#include "ostate.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int optim_dehb_open_as(enum dehb_optimizer which, const struct optim_setup *su,
		       int max_active, void **st, char *err)
{
	struct dehb_params p;

	dehb_params_init(&p);
	p.optimizer = which;
	p.dim = su->dim;
	p.min_fidelity = su->min_fidelity;
	p.max_fidelity = su->max_fidelity;
	p.eta = su->eta;
	p.seed = su->seed;
	p.max_brackets = su->lim.brackets;
	p.max_active_brackets = max_active;
	return dehb_new(&p, (struct dehb **)st, err);
}

int optim_dehb_ask(void *st, struct optim_job *job, double *vec)
{
	struct dehb_job j;
	int rc = dehb_ask(st, &j, vec);

	if (rc)
		return rc;
	job->fidelity = j.fidelity;
	job->bracket = j.bracket;
	job->rung = j.rung;
	job->kind = (enum optim_kind)j.kind; /* both are trial_kind's */
	job->parent = j.parent_job;
	if (j.config_id < 0) /* the searcher's slots and configurations */
		snprintf(job->state, sizeof(job->state), "{\"level\":%d}",
			 j.level);
	else
		snprintf(job->state, sizeof(job->state),
			 "{\"level\":%d,\"slot\":%d,\"config_id\":%" PRId64 "}",
			 j.level, j.slot, j.config_id);
	return DEHBQ_OK;
}

/*
 * The engine's job from the books' (job): its level, slot and config id
 * are in its per-trial state (dehb's: the level alone; 0.4's: all three).
 */
static int job_of(const struct dehb *d, const struct optim_job *job,
		  struct dehb_job *j)
{
	cJSON *s = cJSON_Parse(job->state);
	int64_t level, slot = -1, cid = -1;
	int rc = DEHBQ_EINVAL;

	memset(j, 0, sizeof(*j));
	if (s && ostate_get_i64(s, "level", 0, 63, &level, NULL) == DEHBQ_OK &&
	    (!cJSON_GetObjectItemCaseSensitive(s, "slot") ||
	     ostate_get_i64(s, "slot", -1, INT32_MAX, &slot, NULL) ==
		     DEHBQ_OK) &&
	    (!cJSON_GetObjectItemCaseSensitive(s, "config_id") ||
	     ostate_get_i64(s, "config_id", 0, OPTIM_MAX_ID, &cid, NULL) ==
		     DEHBQ_OK) &&
	    dehb_level_fidelity(d, (int)level) == job->fidelity) {
		j->id = job->id;
		j->level = (int)level;
		j->fidelity = job->fidelity;
		j->bracket = job->bracket;
		j->rung = job->rung;
		j->kind = (enum dehb_kind)job->kind;
		j->slot = (int)slot;
		j->config_id = cid;
		j->parent_job = job->parent;
		j->reopened = job->reopened;
		rc = DEHBQ_OK;
	}
	cJSON_Delete(s);
	return rc;
}

int optim_dehb_tell(void *st, const struct optim_job *job, const double *vec,
		    enum optim_status status, double loss, double cost)
{
	struct dehb_job j;
	int rc = job_of(st, job, &j);

	return rc ? rc
		  : dehb_tell(st, &j, vec,
			      status == OPTIM_OK ? DEHB_OK : DEHB_FAILED, loss,
			      cost);
}

int optim_dehb_reopen(void *st, const struct optim_job *job, const double *vec)
{
	struct dehb_job j;
	int rc = job_of(st, job, &j);

	return rc ? rc : dehb_reopen(st, &j, vec);
}

int optim_dehb_replayed(void *st, const struct optim_job *job,
			const double *vec)
{
	struct dehb_job j;
	int rc;

	if (!job)
		return dehb_replayed(st, NULL, NULL);
	rc = job_of(st, job, &j);
	return rc ? rc : dehb_replayed(st, &j, vec);
}

int64_t optim_dehb_brackets(const void *st)
{
	struct dehb_counts c;

	dehb_get_counts(st, &c);
	return c.brackets;
}

int optim_dehb_done(const void *st)
{
	return dehb_exhausted(st);
}

/* The bracket limit grew (dehbq extend); the engine enforces it. */
int optim_dehb_limits(void *st, const struct optim_limits *lim)
{
	struct dehb *d = st;

	if (dehb_get_params(d)->max_brackets == lim->brackets)
		return DEHBQ_OK;
	return dehb_extend(d, lim->brackets);
}

/* Active brackets by rung, for status.json and `dehbq status`. */
int optim_dehb_describe(const void *st, struct jsonbuf *b)
{
	struct dehb_rung_info r[64];
	int64_t id;
	int i, k, nr, n = dehb_active_brackets(st);

	jsonbuf_puts(b, "\"brackets\":[");
	for (i = 0; i < n; i++) {
		if (dehb_bracket_info(st, i, &id, r, 64, &nr))
			continue;
		jsonbuf_printf(b, "%s{\"id\":%" PRId64 ",\"rungs\":[",
			       i ? "," : "", id);
		for (k = 0; k < nr; k++) {
			jsonbuf_printf(b, "%s{\"fidelity\":", k ? "," : "");
			jsonbuf_num(b, r[k].fidelity);
			jsonbuf_printf(b,
				       ",\"n\":%d,\"pending\":%d,\"done\":%d}",
				       r[k].n, r[k].pending, r[k].done);
		}
		jsonbuf_puts(b, "]}");
	}
	jsonbuf_put(b, "]", 1);
	return jsonbuf_failed(b);
}
