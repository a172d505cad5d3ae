/*
 * statusfile.c - owns state/status.json and FINISHED (statusfile.h): the
 * one writer and the one reader of the orchestrator's summary
 */
#include "statusfile.h"

#include "err.h"
#include "jsonfile.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void statusfile_init(struct statusfile *s)
{
	memset(s, 0, sizeof(*s));
}

void statusfile_release(struct statusfile *s)
{
	cJSON_Delete(s->best_max.config);
	cJSON_Delete(s->best_any.config);
	cJSON_Delete(s->optimizer);
	s->best_max.config = s->best_any.config = s->optimizer = NULL;
}

/* ---- render ---- */

static int add_num(cJSON *o, const char *k, double v)
{
	return jsonfile_add_number(o, k, v) ? 1 : 0;
}

static int add_best(cJSON *o, const char *k, const struct statusfile_best *b)
{
	cJSON *v, *c;
	int bad = 0;

	if (!b->valid)
		return !cJSON_AddNullToObject(o, k);
	if (!(v = cJSON_AddObjectToObject(o, k)))
		return 1;
	bad |= add_num(v, "loss", b->loss) |
	       add_num(v, "fidelity", b->fidelity);
	bad |= !cJSON_AddStringToObject(v, "trial", b->trial);
	if (b->config) {
		c = cJSON_Duplicate(b->config, 1);
		if (!c || !cJSON_AddItemToObject(v, "config", c)) {
			cJSON_Delete(c);
			bad = 1;
		}
	}
	return bad;
}

static int add_counts(cJSON *o, const struct statusfile_counts *c)
{
	cJSON *n = cJSON_AddObjectToObject(o, "counts");

	if (!n)
		return 1;
	return add_num(n, "issued", (double)c->issued) |
	       add_num(n, "done", (double)c->done) |
	       add_num(n, "failed", (double)c->failed) |
	       add_num(n, "inflight", (double)c->inflight) |
	       add_num(n, "pending", (double)c->pending) |
	       add_num(n, "claimed", (double)c->claimed) |
	       add_num(n, "quarantined", (double)c->quarantined) |
	       add_num(n, "duplicates", (double)c->duplicates) |
	       add_num(n, "requeues", (double)c->requeues) |
	       add_num(n, "expired", (double)c->expired) |
	       add_num(n, "brackets", (double)c->brackets) |
	       add_num(n, "forbidden", (double)c->forbidden) |
	       add_num(n, "total_cost", c->total_cost);
}

static int add_limits(cJSON *o, const struct statusfile_limits *l)
{
	cJSON *n;

	if (!l->valid)
		return 0;
	if (!(n = cJSON_AddObjectToObject(o, "limits")))
		return 1;
	return add_num(n, "fevals", (double)l->fevals) |
	       add_num(n, "brackets", (double)l->brackets) |
	       add_num(n, "walltime", l->walltime) |
	       add_num(n, "total_cost", l->total_cost);
}

int statusfile_render(const struct statusfile *s, char **out)
{
	cJSON *o = cJSON_CreateObject(), *opt;
	int bad = !o;

	*out = NULL;
	if (bad)
		return DEHBQ_ENOMEM;
	bad |= !cJSON_AddStringToObject(o, "format",
					s->finished ? STATUSFILE_FINISHED
						    : STATUSFILE_FORMAT);
	bad |= !cJSON_AddStringToObject(o, "study", s->study);
	if (s->reason[0])
		bad |= !cJSON_AddStringToObject(o, "reason", s->reason);
	if (s->held[0])
		bad |= !cJSON_AddStringToObject(o, "held", s->held);
	bad |= !cJSON_AddStringToObject(o, "updated", s->updated);
	bad |= add_num(o, "epoch", (double)s->epoch);
	bad |= !cJSON_AddStringToObject(o, "host", s->host);
	bad |= add_num(o, "pid", (double)s->pid);
	bad |= add_num(o, "elapsed", s->elapsed);
	bad |= !cJSON_AddBoolToObject(o, "stopping", s->stopping);
	bad |= !cJSON_AddBoolToObject(o, "exhausted", s->exhausted);
	bad |= add_counts(o, &s->counts);
	bad |= add_limits(o, &s->limits);
	bad |= add_num(o, "live_workers", (double)s->live_workers);
	bad |= add_best(o, "incumbent_max_fidelity", &s->best_max);
	bad |= add_best(o, "incumbent_any_fidelity", &s->best_any);
	opt = s->optimizer ? cJSON_Duplicate(s->optimizer, 1)
			   : cJSON_CreateNull();
	if (!opt || !cJSON_AddItemToObject(o, "optimizer", opt)) {
		cJSON_Delete(opt);
		bad = 1;
	}
	return jsonfile_render(o, !bad, out);
}

/* ---- parse: missing is zero, a wrong type is refused ---- */

static int get_text(const struct jsonfile *jf, const cJSON *o, const char *k,
		    char *buf, size_t size, char *err)
{
	const char *v = NULL;
	int rc = jsonfile_get_string(jf, o, k, JSONFILE_OPTIONAL, &v, err);

	if (!rc && v)
		snprintf(buf, size, "%s", v);
	return rc;
}

static int get_i64(const struct jsonfile *jf, const cJSON *o, const char *k,
		   int64_t *v, char *err)
{
	return jsonfile_get_int(jf, o, k, JSONFILE_OPTIONAL, 0,
				INT64_C(9007199254740992), v, err);
}

static int get_num(const struct jsonfile *jf, const cJSON *o, const char *k,
		   double *v, char *err)
{
	return jsonfile_get_number(jf, o, k, JSONFILE_OPTIONAL, -1e300, 1e300,
				   v, err);
}

static int get_counts(const struct jsonfile *jf, const cJSON *o,
		      struct statusfile_counts *c, char *err)
{
	const cJSON *n = NULL;
	int rc;

	if ((rc = jsonfile_get_object(jf, o, "counts", JSONFILE_OPTIONAL, &n,
				      err)) ||
	    !n)
		return rc;
	if ((rc = get_i64(jf, n, "issued", &c->issued, err)) ||
	    (rc = get_i64(jf, n, "done", &c->done, err)) ||
	    (rc = get_i64(jf, n, "failed", &c->failed, err)) ||
	    (rc = get_i64(jf, n, "inflight", &c->inflight, err)) ||
	    (rc = get_i64(jf, n, "pending", &c->pending, err)) ||
	    (rc = get_i64(jf, n, "claimed", &c->claimed, err)) ||
	    (rc = get_i64(jf, n, "quarantined", &c->quarantined, err)) ||
	    (rc = get_i64(jf, n, "duplicates", &c->duplicates, err)) ||
	    (rc = get_i64(jf, n, "requeues", &c->requeues, err)) ||
	    (rc = get_i64(jf, n, "expired", &c->expired, err)) ||
	    (rc = get_i64(jf, n, "brackets", &c->brackets, err)) ||
	    (rc = get_i64(jf, n, "forbidden", &c->forbidden, err)) ||
	    (rc = get_num(jf, n, "total_cost", &c->total_cost, err)))
		return rc;
	return DEHBQ_OK;
}

static int get_limits(const struct jsonfile *jf, const cJSON *o,
		      struct statusfile_limits *l, char *err)
{
	const cJSON *n = NULL;
	int rc;

	if ((rc = jsonfile_get_object(jf, o, "limits", JSONFILE_OPTIONAL, &n,
				      err)) ||
	    !n)
		return rc;
	if ((rc = get_i64(jf, n, "fevals", &l->fevals, err)) ||
	    (rc = get_i64(jf, n, "brackets", &l->brackets, err)) ||
	    (rc = jsonfile_get_number(jf, n, "walltime", JSONFILE_OPTIONAL, 0,
				      1e300, &l->walltime, err)) ||
	    (rc = jsonfile_get_number(jf, n, "total_cost", JSONFILE_OPTIONAL, 0,
				      1e300, &l->total_cost, err)))
		return rc;
	l->valid = 1;
	return DEHBQ_OK;
}

static int get_best(const struct jsonfile *jf, const cJSON *o, const char *k,
		    struct statusfile_best *b, char *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k), *c = NULL;
	int rc;

	if (!v || cJSON_IsNull(v))
		return DEHBQ_OK;
	if (!cJSON_IsObject(v))
		return jsonfile_errf(jf, v, err,
				     "field '%s': expected an object or null",
				     k);
	if ((rc = get_num(jf, v, "loss", &b->loss, err)) ||
	    (rc = get_num(jf, v, "fidelity", &b->fidelity, err)) ||
	    (rc = get_text(jf, v, "trial", b->trial, sizeof(b->trial), err)) ||
	    (rc = jsonfile_get_object(jf, v, "config", JSONFILE_OPTIONAL, &c,
				      err)))
		return rc;
	if (c && !(b->config = cJSON_Duplicate(c, 1)))
		return DEHBQ_ENOMEM;
	b->valid = 1;
	return DEHBQ_OK;
}

static int parse_doc(const struct jsonfile *jf, struct statusfile *s, char *err)
{
	const cJSON *o = jsonfile_root(jf), *f, *opt;
	int rc;

	f = cJSON_GetObjectItemCaseSensitive(o, "format");
	if (cJSON_IsString(f) && !strcmp(f->valuestring, STATUSFILE_FINISHED))
		s->finished = 1;
	else if ((rc = jsonfile_check_format(jf, STATUSFILE_FORMAT, err)))
		return rc;
	if ((rc = get_text(jf, o, "study", s->study, sizeof(s->study), err)) ||
	    (rc = get_text(jf, o, "reason", s->reason, sizeof(s->reason),
			   err)) ||
	    (rc = get_text(jf, o, "held", s->held, sizeof(s->held), err)) ||
	    (rc = get_text(jf, o, "updated", s->updated, sizeof(s->updated),
			   err)) ||
	    (rc = get_i64(jf, o, "epoch", &s->epoch, err)) ||
	    (rc = get_text(jf, o, "host", s->host, sizeof(s->host), err)) ||
	    (rc = get_i64(jf, o, "pid", &s->pid, err)) ||
	    (rc = get_num(jf, o, "elapsed", &s->elapsed, err)) ||
	    (rc = jsonfile_get_bool(jf, o, "stopping", JSONFILE_OPTIONAL,
				    &s->stopping, err)) ||
	    (rc = jsonfile_get_bool(jf, o, "exhausted", JSONFILE_OPTIONAL,
				    &s->exhausted, err)) ||
	    (rc = get_counts(jf, o, &s->counts, err)) ||
	    (rc = get_limits(jf, o, &s->limits, err)) ||
	    (rc = get_i64(jf, o, "live_workers", &s->live_workers, err)) ||
	    (rc = get_best(jf, o, "incumbent_max_fidelity", &s->best_max,
			   err)) ||
	    (rc = get_best(jf, o, "incumbent_any_fidelity", &s->best_any, err)))
		return rc;
	opt = cJSON_GetObjectItemCaseSensitive(o, "optimizer");
	if (cJSON_IsObject(opt) && !(s->optimizer = cJSON_Duplicate(opt, 1)))
		return DEHBQ_ENOMEM;
	return DEHBQ_OK;
}

static int parse_jf(struct jsonfile *jf, struct statusfile *s, char *err)
{
	int rc;

	statusfile_init(s);
	rc = parse_doc(jf, s, err);
	if (rc == DEHBQ_ENOMEM)
		dehbq_errf(err, rc, "%s: out of memory", jsonfile_name(jf));
	if (rc)
		statusfile_release(s);
	jsonfile_free(jf);
	return rc == DEHBQ_ENOENT ? DEHBQ_EINVAL : rc;
}

int statusfile_parse(const char *name, const char *text, size_t len,
		     struct statusfile *s, char *err)
{
	struct jsonfile *jf;
	int rc;

	statusfile_init(s);
	if ((rc = jsonfile_parse(name, text, len, &jf, err)))
		return rc;
	return parse_jf(jf, s, err);
}

int statusfile_load(const char *path, struct statusfile *s, char *err)
{
	struct jsonfile *jf;
	int rc;

	statusfile_init(s);
	if ((rc = jsonfile_load(path, STATUSFILE_CAP, &jf, err)))
		return rc;
	return parse_jf(jf, s, err);
}
