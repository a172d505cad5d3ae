/*
 * optim_state.c - owns the snapshot envelope of an optimiser (optim.h),
 * and its history records (made here, replayed at load, handed to the
 * caller by optim_history_pending):
 *
 *   {"format":"dehbq-optim/1","name":N,
 *    "setup":{"dim","min_fidelity","max_fidelity","eta","seed",
 *             multi-objective: "objectives","scalarise","weights"},
 *    "limits":{"fevals","brackets","cost","walltime"},
 *    "books":{"asked","told","failed","forbidden" (optional,
 * 0),"cost","elapsed", "inflight":[{"id","fidelity","bracket","rung","kind",
 *                          "parent","state","x"}],
 *             "best":{"any":null|{"loss","fidelity","job","x"},"max":...}},
 *    "state":<the backend's own>}
 *
 * The format and name are checked before anything else is read: a state
 * of another format or optimiser is refused (DEHBQ_EUNSUP), never misread.
 */
#include "optim.h"
#include "optim_impl.h"

#include "err.h"
#include "jsonbuf.h"
#include "mobj.h"
#include "ostate.h"
#include "trial.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void optim_put_job(struct jsonbuf *b, const struct optim_fl *e, int dim)
{
	const struct optim_job *j = &e->job;

	jsonbuf_puts(b, "{\"id\":");
	jsonbuf_int(b, (int64_t)j->id);
	jsonbuf_puts(b, ",\"fidelity\":");
	jsonbuf_num(b, j->fidelity);
	jsonbuf_puts(b, ",\"bracket\":");
	jsonbuf_int(b, j->bracket);
	jsonbuf_puts(b, ",\"rung\":");
	jsonbuf_int(b, j->rung);
	jsonbuf_puts(b, ",\"kind\":");
	jsonbuf_str(b, optim_kind_name(j->kind));
	jsonbuf_puts(b, ",\"parent\":");
	jsonbuf_int(b, j->parent);
	jsonbuf_puts(b, ",\"state\":");
	jsonbuf_str(b, j->state);
	jsonbuf_puts(b, ",\"x\":");
	ostate_put_dbls(b, e->x, (size_t)dim);
	optim_fl_put_extra(b, e);
	jsonbuf_put(b, "}", 1);
}

void optim_history_record(struct jsonbuf *b, const struct optim_job *j,
			  const double *x, int dim, int flags, double loss,
			  const double *y, int nobj, double cost)
{
	struct optim_fl e;

	memset(&e, 0, sizeof(e));
	e.job = *j;
	e.x = (double *)x;
	optim_put_job(b, &e, dim);
	b->len--; /* reopen the object: the result follows */
	jsonbuf_puts(b, ",\"loss\":");
	jsonbuf_num(b, loss); /* +inf (failed) is null */
	if (nobj) {
		jsonbuf_puts(b, ",\"obj\":");
		if (y)
			ostate_put_dbls(b, y, (size_t)nobj);
		else
			jsonbuf_puts(b, "null");
	}
	jsonbuf_puts(b, ",\"cost\":");
	jsonbuf_num(b, cost);
	if (flags & 2)
		jsonbuf_puts(b, ",\"stopped\":true");
	jsonbuf_puts(b, flags & 1 ? ",\"retold\":true}\n" : "}\n");
}

static void put_best(struct jsonbuf *b, const struct optim_inc *in, int dim)
{
	if (!in->b.valid) {
		jsonbuf_puts(b, "null");
		return;
	}
	jsonbuf_puts(b, "{\"loss\":");
	jsonbuf_num(b, in->b.loss);
	jsonbuf_puts(b, ",\"fidelity\":");
	jsonbuf_num(b, in->b.fidelity);
	jsonbuf_puts(b, ",\"job\":");
	jsonbuf_int(b, (int64_t)in->b.job_id);
	jsonbuf_puts(b, ",\"x\":");
	ostate_put_dbls(b, in->x, (size_t)dim);
	jsonbuf_put(b, "}", 1);
}

int optim_save(const struct optim *o, struct jsonbuf *b)
{
	const struct optim_limits *l = &o->lim;
	size_t i;
	int rc;

	jsonbuf_puts(b, "{\"format\":\"" OPTIM_FORMAT "\",\"name\":");
	jsonbuf_str(b, o->name);
	jsonbuf_printf(b, ",\"setup\":{\"dim\":%d,\"min_fidelity\":", o->dim);
	jsonbuf_num(b, o->min_f);
	jsonbuf_puts(b, ",\"max_fidelity\":");
	jsonbuf_num(b, o->max_f);
	jsonbuf_puts(b, ",\"eta\":");
	jsonbuf_num(b, o->eta);
	jsonbuf_puts(b, ",\"seed\":");
	jsonbuf_int(b, (int64_t)o->seed);
	if (o->mo) {
		jsonbuf_printf(b, ",\"objectives\":%d,\"scalarise\":",
			       mobj_count(o->mo));
		jsonbuf_str(b, mobj_mode_name(mobj_mode(o->mo)));
		jsonbuf_puts(b, ",\"weights\":");
		ostate_put_dbls(b, mobj_weights(o->mo),
				(size_t)mobj_count(o->mo));
	}
	jsonbuf_puts(b, "},\"limits\":{\"fevals\":");
	jsonbuf_int(b, l->fevals);
	jsonbuf_puts(b, ",\"brackets\":");
	jsonbuf_int(b, l->brackets);
	jsonbuf_puts(b, ",\"cost\":");
	jsonbuf_num(b, l->cost);
	jsonbuf_puts(b, ",\"walltime\":");
	jsonbuf_num(b, l->walltime);
	jsonbuf_printf(b,
		       "},\"books\":{\"asked\":%" PRId64 ",\"told\":%" PRId64
		       ",\"failed\":%" PRId64 ",\"forbidden\":%" PRId64
		       ",\"history\":%" PRId64 ",\"cost\":",
		       o->asked, o->told, o->failed, o->forbidden, o->nhist);
	jsonbuf_num(b, o->cost);
	jsonbuf_puts(b, ",\"elapsed\":");
	jsonbuf_num(b, o->elapsed);
	jsonbuf_puts(b, ",\"inflight\":[");
	for (i = 0; i < o->nfl; i++) {
		if (i)
			jsonbuf_put(b, ",", 1);
		optim_put_job(b, &o->fl[i], o->dim);
	}
	jsonbuf_puts(b, "],\"best\":{\"any\":");
	put_best(b, &o->inc[OPTIM_BEST_ANY], o->dim);
	jsonbuf_puts(b, ",\"max\":");
	put_best(b, &o->inc[OPTIM_BEST_MAX], o->dim);
	jsonbuf_puts(b, "}},\"state\":");
	if ((rc = o->ops->save(o->st, b)))
		return rc;
	jsonbuf_put(b, "}", 1);
	return jsonbuf_failed(b);
}

#define TRY(x)                                                                 \
	do {                                                                   \
		if ((rc = (x)) != DEHBQ_OK)                                    \
			return rc;                                             \
	} while (0)

/* The envelope's format and name: anything else is refused, not read. */
static int check_kind(const cJSON *json, const struct optim_ops **ops,
		      char *err)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(json, "format");
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(json, "name");
	char names[512];

	if (!cJSON_IsObject(json) || !cJSON_IsString(f))
		return dehbq_errf(err, DEHBQ_EUNSUP,
				  "snapshot: the optimizer state has no "
				  "format: it was written by an older dehbq "
				  "(before 0.4); finish the study with that "
				  "version, or start a new one");
	if (strcmp(f->valuestring, OPTIM_FORMAT))
		return dehbq_errf(err, DEHBQ_EUNSUP,
				  "snapshot: optimizer state format '%.40s' is "
				  "not " OPTIM_FORMAT
				  "; resume it with the dehbq that wrote it",
				  f->valuestring);
	if (!cJSON_IsString(n) || !(*ops = optim_find(n->valuestring))) {
		optim_list(0, ", ", names, sizeof(names));
		return dehbq_errf(err, DEHBQ_EUNSUP,
				  "snapshot: optimizer '%.40s' is unknown to "
				  "this dehbq (it has: %s)",
				  cJSON_IsString(n) ? n->valuestring : "",
				  names);
	}
	return DEHBQ_OK;
}

/* A multi-objective setup: the objectives, scalarisation and weights. */
static int check_objectives(const cJSON *o, const struct optim_setup *s,
			    char *err)
{
	double w[MOBJ_MAX], sum = 0;
	int64_t n = 0;
	int rc, i, same;

	if (cJSON_GetObjectItemCaseSensitive(o, "objectives"))
		TRY(ostate_get_i64(o, "objectives", 2, MOBJ_MAX, &n, err));
	same = n == s->nobj;
	if (same && n) {
		const char *mode = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(o, "scalarise"));

		TRY(ostate_get_dbls(o, "weights", (size_t)n, w, 0, 0, err));
		same = mode && mobj_mode_name(s->scalarise) &&
		       !strcmp(mode, mobj_mode_name(s->scalarise));
		for (i = 0; i < n; i++)
			sum += s->obj_weights ? s->obj_weights[i] : 1;
		for (i = 0; same && i < n; i++)
			same = fabs(w[i] -
				    (s->obj_weights ? s->obj_weights[i] : 1) /
					    sum) <= 1e-12;
	}
	if (!same)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: the optimizer's objectives "
				  "(count, scalarisation, weights) are not "
				  "the study's");
	return DEHBQ_OK;
}

/* The saved setup must be the study's: anything else is another study. */
static int check_setup(const cJSON *json, const struct optim_setup *s,
		       char *err)
{
	const cJSON *o;
	double mn, mx, eta;
	int64_t dim, seed;
	int rc;

	TRY(ostate_get_obj(json, "setup", &o, err));
	TRY(ostate_get_i64(o, "dim", 1, OPTIM_MAX_DIM, &dim, err));
	TRY(ostate_get_dbl(o, "min_fidelity", &mn, err));
	TRY(ostate_get_dbl(o, "max_fidelity", &mx, err));
	TRY(ostate_get_dbl(o, "eta", &eta, err));
	TRY(ostate_get_i64(o, "seed", 0, OPTIM_MAX_ID, &seed, err));
	if (dim != s->dim || mn != s->min_fidelity || mx != s->max_fidelity ||
	    eta != s->eta || (uint64_t)seed != s->seed)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: the optimizer's setup (dimension, "
				  "fidelities, eta, seed) is not the study's");
	return check_objectives(o, s, err);
}

static int load_limits(const cJSON *json, struct optim_limits *l, char *err)
{
	const cJSON *o;
	int rc;

	TRY(ostate_get_obj(json, "limits", &o, err));
	TRY(ostate_get_i64(o, "fevals", 0, OPTIM_MAX_ID, &l->fevals, err));
	TRY(ostate_get_i64(o, "brackets", 0, OPTIM_MAX_ID, &l->brackets, err));
	TRY(ostate_get_dbl(o, "cost", &l->cost, err));
	TRY(ostate_get_dbl(o, "walltime", &l->walltime, err));
	if (l->cost < 0 || l->walltime < 0)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: negative limit");
	return DEHBQ_OK;
}

int optim_job_parse(const cJSON *e, int64_t max_id, int dim,
		    struct optim_job *j, double *x, char *err)
{
	const char *kind, *state;
	int64_t id, br, rung, parent;
	enum trial_kind tk;
	int rc;

	memset(j, 0, sizeof(*j));
	if (!cJSON_IsObject(e))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: a job must be an object");
	TRY(ostate_get_i64(e, "id", 0, max_id, &id, err));
	TRY(ostate_get_dbl(e, "fidelity", &j->fidelity, err));
	TRY(ostate_get_i64(e, "bracket", 0, OPTIM_MAX_ID, &br, err));
	TRY(ostate_get_i64(e, "rung", 0, 1000, &rung, err));
	TRY(ostate_get_i64(e, "parent", -1, id - 1, &parent, err));
	TRY(ostate_get_str(e, "kind", &kind, err));
	TRY(ostate_get_str(e, "state", &state, err));
	TRY(ostate_get_dbls(e, "x", (size_t)dim, x, 0, 1, err));
	if (trial_kind_parse(kind, &tk) || !(j->fidelity > 0) ||
	    strlen(state) >= sizeof(j->state))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: job %" PRId64
				  " has a bad kind, fidelity or state",
				  id);
	j->id = (uint64_t)id;
	j->bracket = br;
	j->rung = (int)rung;
	j->parent = parent;
	j->kind = (enum optim_kind)tk;
	strcpy(j->state, state);
	return DEHBQ_OK;
}

static int load_job(struct optim *o, const cJSON *e, double *x, char *err)
{
	struct optim_job j;
	int rc;

	TRY(optim_job_parse(e, o->asked - 1, o->dim, &j, x, err));
	if ((rc = optim_fl_insert(o, &j, x)))
		return rc == DEHBQ_ESTATE ? dehbq_errf(err, DEHBQ_EINVAL,
						       "snapshot: job %" PRIu64
						       " is in flight twice",
						       j.id)
					  : rc;
	return optim_fl_get_extra(e, optim_fl_find(o, j.id), err);
}

static int load_best(struct optim *o, const cJSON *best, const char *k,
		     struct optim_inc *in, char *err)
{
	const cJSON *v;
	int64_t job;
	int rc;

	if (!(v = ostate_get(best, k, err)))
		return DEHBQ_EINVAL;
	if (cJSON_IsNull(v))
		return DEHBQ_OK;
	TRY(ostate_get_dbl(v, "loss", &in->b.loss, err));
	TRY(ostate_get_dbl(v, "fidelity", &in->b.fidelity, err));
	TRY(ostate_get_i64(v, "job", 0, o->asked - 1, &job, err));
	TRY(ostate_get_dbls(v, "x", (size_t)o->dim, in->x, 0, 1, err));
	in->b.job_id = (uint64_t)job;
	in->b.valid = 1;
	return DEHBQ_OK;
}

static int load_books(struct optim *o, const cJSON *json, char *err)
{
	const cJSON *bk, *a, *e, *best;
	double *x;
	int rc = DEHBQ_OK;

	TRY(ostate_get_obj(json, "books", &bk, err));
	TRY(ostate_get_i64(bk, "asked", 0, OPTIM_MAX_ID, &o->asked, err));
	TRY(ostate_get_i64(bk, "told", 0, o->asked, &o->told, err));
	TRY(ostate_get_i64(bk, "failed", 0, o->told, &o->failed, err));
	o->forbidden = 0; /* a snapshot from before forbidden clauses */
	if (cJSON_GetObjectItemCaseSensitive(bk, "forbidden"))
		TRY(ostate_get_i64(bk, "forbidden", 0, o->failed, &o->forbidden,
				   err));
	/* a backend that replays may have kept records that these settings
	 * no longer need (fifo with random, before optim_ops.history) */
	TRY(ostate_get_i64(
		bk, "history", 0,
		optim_keeps_history(o) || o->ops->replay ? OPTIM_MAX_ID : 0,
		&o->nhist, err));
	TRY(ostate_get_dbl(bk, "cost", &o->cost, err));
	TRY(ostate_get_dbl(bk, "elapsed", &o->elapsed, err));
	TRY(ostate_get_arr(bk, "inflight", -1, &a, err));
	if (o->cost < 0 || o->elapsed < 0)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: negative cost or elapsed");
	if (!(x = malloc((size_t)o->dim * sizeof(double))))
		return DEHBQ_ENOMEM;
	cJSON_ArrayForEach(e, a)
	{
		if ((rc = load_job(o, e, x, err)))
			break;
	}
	free(x);
	if (rc)
		return rc;
	if ((int64_t)o->nfl != o->asked - o->told)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: %zu jobs in flight, but asked - "
				  "told is %" PRId64,
				  o->nfl, o->asked - o->told);
	TRY(ostate_get_obj(bk, "best", &best, err));
	TRY(load_best(o, best, "any", &o->inc[OPTIM_BEST_ANY], err));
	return load_best(o, best, "max", &o->inc[OPTIM_BEST_MAX], err);
}

/* A multi-objective record's objectives, back into o->mo. */
static int replay_objectives(struct optim *o, const cJSON *e,
			     const struct optim_job *j, int64_t n, char *err)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(e, "obj");
	double y[MOBJ_MAX];
	int m = mobj_count(o->mo), rc;

	if (cJSON_IsNull(a))
		return mobj_put(o->mo, (int64_t)j->id, j->fidelity, NULL);
	if ((rc = ostate_get_dbls(e, "obj", (size_t)m, y, 0, 0, err)))
		return dehbq_errf(err, rc,
				  "history: record %" PRId64 ": obj: need %d "
				  "numbers or null",
				  n + 1, m);
	return mobj_put(o->mo, (int64_t)j->id, j->fidelity, y);
}

/* One history line: the job, its vector and its result, replayed. */
static int replay_record(struct optim *o, const char *line, size_t len,
			 double *x, int64_t n, char *err)
{
	struct optim_job j;
	const cJSON *lv;
	double loss, cost;
	cJSON *e = cJSON_ParseWithLength(line, len);
	int rc, retold, stopped;

	if (!e)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "history: record %" PRId64 " is not JSON",
				  n + 1);
	if (cJSON_GetObjectItemCaseSensitive(e, "report")) {
		rc = optim_report_replay(o, e, x, n, err);
		cJSON_Delete(e);
		return rc;
	}
	rc = optim_job_parse(e, o->asked - 1, o->dim, &j, x, err);
	lv = cJSON_GetObjectItemCaseSensitive(e, "loss");
	loss = INFINITY; /* null: a failure */
	if (!rc && !cJSON_IsNull(lv))
		rc = ostate_get_dbl(e, "loss", &loss, err);
	if (!rc && !(rc = ostate_get_dbl(e, "cost", &cost, err)) && cost < 0)
		rc = dehbq_errf(err, DEHBQ_EINVAL,
				"history: record %" PRId64 " has a negative "
				"cost",
				n + 1);
	retold = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "retold"));
	stopped = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "stopped"));
	if (!rc && stopped && !(o->ops->report && isfinite(loss)))
		rc = dehbq_errf(err, DEHBQ_EINVAL,
				"history: record %" PRId64 " is a stopped "
				"job without a loss, or of an optimizer that "
				"stops none",
				n + 1);
	if (!rc && o->mo)
		rc = replay_objectives(o, e, &j, n, err);
	cJSON_Delete(e);
	if (rc || !o->ops->replay)
		return rc;
	rc = o->ops->replay(o->st, &j, x, retold ? 2 : 1, 0,
			    stopped	     ? OPTIM_STOPPED
			    : isfinite(loss) ? OPTIM_OK
					     : OPTIM_FAILED,
			    loss);
	return rc ? dehbq_errf(err, rc == DEHBQ_ENOMEM ? rc : DEHBQ_EINVAL,
			       "history: record %" PRId64
			       " does not fit the optimizer's state",
			       n + 1)
		  : DEHBQ_OK;
}

/*
 * The backend's history replayed on its bounded state (optim_ops.replay).
 * The text must hold exactly the records the books count.
 */
static int replay_history(struct optim *o, const char *h, size_t len, char *err)
{
	const char *p = h, *end = h + len;
	double *x = malloc((size_t)o->dim * sizeof(double));
	int64_t n = 0;
	int rc = DEHBQ_OK;

	if (!x)
		return DEHBQ_ENOMEM;
	while (!rc && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl) {
			rc = dehbq_errf(err, DEHBQ_EINVAL,
					"history: record %" PRId64
					" has no end of line",
					n + 1);
			break;
		}
		rc = replay_record(o, p, (size_t)(nl - p), x, n, err);
		n++;
		p = nl + 1;
	}
	if (!rc && n != o->nhist)
		rc = dehbq_errf(err, DEHBQ_EINVAL,
				"history: %" PRId64 " records, the snapshot "
				"counts %" PRId64,
				n, o->nhist);
	free(x);
	return rc;
}

/*
 * Then its jobs in flight, and the end of the replay, whether or not it
 * keeps a history: a scheduler checks its saved state against the books'
 * jobs in flight (the bracket engine's rung counts).
 */
static int replay_inflight(struct optim *o, char *err)
{
	size_t i;
	int rc = DEHBQ_OK;

	for (i = 0; !rc && i < o->nfl; i++)
		if ((rc = o->ops->replay(o->st, &o->fl[i].job, o->fl[i].x, 0,
					 o->fl[i].job.reopened, OPTIM_OK, 0)))
			rc = dehbq_errf(err,
					rc == DEHBQ_ENOMEM ? rc : DEHBQ_EINVAL,
					"snapshot: job %" PRIu64
					" in flight does not fit the "
					"optimizer's state",
					o->fl[i].job.id);
	if (!rc &&
	    (rc = o->ops->replay(o->st, NULL, NULL, 0, 0, OPTIM_OK, 0))) {
		if (rc == DEHBQ_EINVAL)
			dehbq_errf(err, rc,
				   "snapshot: %s's saved state does not fit "
				   "its %" PRId64 " history records and %zu "
				   "jobs in flight",
				   o->name, o->nhist, o->nfl);
		else
			dehbq_errf(err, rc, "history: %s", dehbq_strerror(rc));
	}
	return rc;
}

int optim_load(const cJSON *json, const struct optim_setup *s,
	       const char *history, size_t hlen, struct optim **out, char *err)
{
	const struct optim_ops *entry, *ops;
	struct optim_setup su = *s;
	cJSON *composed = NULL;
	struct optim *o = NULL;
	const cJSON *st;
	int rc;

	*out = NULL;
	if ((rc = check_kind(json, &entry, err)) ||
	    (rc = check_setup(json, s, err)) ||
	    (rc = load_limits(json, &su.lim, err)) ||
	    (rc = optim_setup_check(&su, err)))
		return rc;
	if (!(st = ostate_get(json, "state", err)))
		return DEHBQ_EINVAL;
	if ((rc = optim_preset_resolve(entry, s->settings, &ops, &composed,
				       err)))
		return rc;
	if (composed)
		su.settings = composed;
	if ((rc = optim_fidelity_check(entry, ops, s, err))) {
		cJSON_Delete(composed);
		return rc;
	}
	if (!(o = optim_alloc(entry, ops, &su))) {
		cJSON_Delete(composed);
		return dehbq_errf(err, DEHBQ_ENOMEM, "out of memory");
	}
	if ((rc = load_books(o, json, err)))
		goto fail;
	su.asked = o->asked; /* a bound for the backend's own counts */
	if ((rc = ops->load(&su, st, &o->st, err)) ||
	    (optim_keeps_history(o) &&
	     (rc = replay_history(o, history ? history : "", history ? hlen : 0,
				  err))) ||
	    (ops->replay && (rc = replay_inflight(o, err))))
		goto fail;
	cJSON_Delete(composed);
	*out = o;
	return DEHBQ_OK;
fail:
	if (rc == DEHBQ_ENOMEM)
		dehbq_errf(err, rc, "out of memory");
	cJSON_Delete(composed);
	optim_free(o);
	return rc;
}

int optim_keeps_history(const struct optim *o)
{
	return o->keeps_history;
}

void optim_history_pending(const struct optim *o, const char **text,
			   size_t *len)
{
	*text = o->hist.len ? o->hist.p : NULL;
	*len = o->hist.len;
}

void optim_history_written(struct optim *o)
{
	o->hist.len = 0;
}
