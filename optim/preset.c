/*
 * preset.c - owns the presets: an entry of optim_table that names a
 * searcher (optim_ops.preset) and runs it under a scheduler.
 *
 * A preset with a scheduler of its own (optim_ops.under: bohb is kde
 * under hyperband) takes the settings under_keys names for that
 * scheduler, and the others for its searcher; under_set fixes some of
 * the scheduler's (dehb is de under hyperband, promotion "searcher"), and
 * hides names searcher settings it neither takes nor shows (dehb sizes
 * its levels itself: de's population_size).  One
 * without takes its searcher's settings, plus "multi_fidelity": "none" runs the
 * searcher under the default scheduler (fifo: every proposal at the maximum
 * fidelity), "asha" under asha.  So {"name":"tpe",
 * "multi_fidelity":"asha","n_startup_trials":5} runs as {"name":"asha",
 * "searcher":"tpe","search":{"n_startup_trials":5}}, and the study.json
 * and snapshots of 0.3, which named tpe or gp, open unchanged.
 */
#include "optim.h"
#include "optim_impl.h"

#include "err.h"
#include "jsonbuf.h"
#include "ostate.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/* multi_fidelity's choices, and the scheduler each runs under */
static const char *const mf_names[] = {"none", "asha", NULL};

/* A preset, resolved: its searcher, what runs, and that one's settings. */
struct parts {
	const struct search_ops *so;
	const struct optim_ops *run;
	cJSON *ss;    /* the searcher's settings, owned (until composed) */
	cJSON *sched; /* the scheduler's settings, owned */
	int mf;	      /* multi_fidelity's index; -1 under a fixed one */
};

/* 1 when k is one of the NULL-terminated list (NULL: empty). */
static int listed(const char *const *list, const char *k)
{
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(list[i], k))
			return 1;
	return 0;
}

/* The index in ops->renames of the pair that names setting k, or -1. */
static int rename_of(const struct optim_ops *ops, const char *k)
{
	int i;

	for (i = 0; ops->renames && ops->renames[i]; i += 2)
		if (!strcmp(ops->renames[i], k) ||
		    !strcmp(ops->renames[i + 1], k))
			return i;
	return -1;
}

/* in split into the searcher's settings and the scheduler's. */
static int split(const struct optim_ops *ops, const cJSON *in, struct parts *p,
		 char *err)
{
	const cJSON *v;
	cJSON *dup, *to;
	const char *k;
	int r;

	if (!(p->ss = cJSON_CreateObject()) ||
	    !(p->sched = cJSON_CreateObject()))
		return dehbq_errf(err, DEHBQ_ENOMEM, "out of memory");
	cJSON_ArrayForEach(v, in)
	{
		if (!ops->under && !strcmp(v->string, "multi_fidelity"))
			continue;
		if (listed(ops->hides, v->string))
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "optimizer.%.60s: not a setting of "
					  "%s; remove it",
					  v->string, ops->name);
		to = listed(ops->under_keys, v->string) ? p->sched : p->ss;
		k = (r = rename_of(ops, v->string)) < 0 ? v->string
							: ops->renames[r + 1];
		if (r >= 0 && cJSON_GetObjectItemCaseSensitive(to, k))
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "optimizer.%s: given twice (%s is "
					  "its old name); remove one",
					  k, ops->renames[r]);
		dup = cJSON_Duplicate(v, 1);
		if (!dup || !cJSON_AddItemToObject(to, k, dup)) {
			cJSON_Delete(dup);
			return dehbq_errf(err, DEHBQ_ENOMEM, "out of memory");
		}
	}
	for (r = 0; ops->under_set && ops->under_set[r]; r += 2)
		if (!cJSON_AddStringToObject(p->sched, ops->under_set[r],
					     ops->under_set[r + 1]))
			return dehbq_errf(err, DEHBQ_ENOMEM, "out of memory");
	return DEHBQ_OK;
}

static void parts_free(struct parts *p)
{
	cJSON_Delete(p->ss);
	cJSON_Delete(p->sched);
	p->ss = p->sched = NULL;
}

/* Everything about a preset's settings checked, and its parts made. */
static int preset_read(const struct optim_ops *ops, const cJSON *in,
		       struct parts *p, char *err)
{
	int rc;

	memset(p, 0, sizeof(*p));
	p->mf = -1;
	if (in && !cJSON_IsObject(in))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "optimizer: must be an object");
	if (!(p->so = search_find(ops->preset)) ||
	    (ops->under && !(p->run = optim_find(ops->under))))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "optimizer: the preset %s names no "
				  "searcher or scheduler",
				  ops->name);
	if (!ops->under) {
		p->mf = 0;
		if ((rc = ostate_set_choice(in, "multi_fidelity", mf_names,
					    &p->mf, err)))
			return rc;
		p->run = optim_find(p->mf ? mf_names[p->mf]
					  : optim_default_scheduler());
	}
	if ((rc = split(ops, in, p, err))) {
		parts_free(p);
		return rc;
	}
	if (!p->so->settings && p->ss->child) /* named as the preset's */
		rc = dehbq_errf(err, DEHBQ_EINVAL,
				"optimizer.%.60s: not a setting of %s; "
				"remove it",
				p->ss->child->string, ops->name);
	else
		rc = search_settings(p->so, p->ss, NULL, err);
	if (rc)
		parts_free(p);
	return rc;
}

/* The scheduler's settings with the searcher's: {...,"searcher","search"}
 * (p->ss moves into it). */
static int compose(struct parts *p, char *err)
{
	if (!cJSON_AddStringToObject(p->sched, "searcher", p->so->name) ||
	    !cJSON_AddItemToObject(p->sched, "search", p->ss))
		return dehbq_errf(err, DEHBQ_ENOMEM, "out of memory");
	p->ss = NULL;
	return DEHBQ_OK;
}

/*
 * The settings in full ("{...}", freed here) onto out, those listed in
 * list when keep, those not listed when !keep; *comma: something was
 * written before (in) and after (out).
 */
static int put_picked(struct jsonbuf *full, const char *const *list, int keep,
		      struct jsonbuf *out, int *comma, char *err)
{
	cJSON *all = NULL;
	const cJSON *v;
	char *text = NULL, *t;
	int rc = DEHBQ_ENOMEM;

	jsonbuf_put(full, "}", 1);
	if (jsonbuf_failed(full) || !(text = jsonbuf_take(full)) ||
	    !(all = cJSON_Parse(text)))
		goto out;
	cJSON_ArrayForEach(v, all)
	{
		if (listed(list, v->string) != keep)
			continue;
		if (!(t = cJSON_PrintUnformatted(v)))
			goto out;
		jsonbuf_printf(out, "%s\"%s\":%s", *comma ? "," : "", v->string,
			       t);
		cJSON_free(t);
		*comma = 1;
	}
	rc = jsonbuf_failed(out);
out:
	jsonbuf_free(full);
	free(text);
	cJSON_Delete(all);
	return rc == DEHBQ_ENOMEM ? dehbq_errf(err, rc, "out of memory") : rc;
}

/* under's keys, with the defaults its scheduler fills in, onto out. */
static int put_under_keys(const struct optim_ops *ops, struct parts *p,
			  struct jsonbuf *out, int *comma, char *err)
{
	struct jsonbuf full;
	int rc;

	jsonbuf_init(&full);
	jsonbuf_put(&full, "{", 1);
	if ((rc = p->run->settings(p->sched, &full, err))) {
		jsonbuf_free(&full);
		return rc;
	}
	return put_picked(&full, ops->under_keys, 1, out, comma, err);
}

/* The searcher's settings with their defaults onto out, less those the
 * preset hides; *comma: something was written. */
static int put_searcher_keys(const struct optim_ops *ops, struct parts *p,
			     struct jsonbuf *out, int *comma, char *err)
{
	struct jsonbuf full;
	int rc;

	*comma = 0;
	if (!ops->hides) {
		*comma = p->so->settings != NULL;
		return search_settings(p->so, p->ss, out, err);
	}
	jsonbuf_init(&full);
	jsonbuf_put(&full, "{", 1);
	if ((rc = search_settings(p->so, p->ss, &full, err))) {
		jsonbuf_free(&full);
		return rc;
	}
	return put_picked(&full, ops->hides, 0, out, comma, err);
}

int optim_preset_settings(const struct optim_ops *ops, const cJSON *in,
			  struct jsonbuf *out, char *err)
{
	struct parts p;
	int rc, comma;

	if ((rc = preset_read(ops, in, &p, err)))
		return rc;
	if (!(rc = put_searcher_keys(ops, &p, out, &comma, err)) &&
	    !(rc = compose(&p, err))) {
		if (p.mf >= 0)
			jsonbuf_printf(out, "%s\"multi_fidelity\":\"%s\"",
				       comma ? "," : "", mf_names[p.mf]);
		else
			rc = put_under_keys(ops, &p, out, &comma, err);
	}
	parts_free(&p);
	return rc ? rc : jsonbuf_failed(out);
}

int optim_preset_resolve(const struct optim_ops *ops, const cJSON *in,
			 const struct optim_ops **run, cJSON **composed,
			 char *err)
{
	struct parts p;
	int rc;

	*run = ops;
	*composed = NULL;
	if (!ops->preset)
		return DEHBQ_OK;
	if ((rc = preset_read(ops, in, &p, err)))
		return rc;
	if ((rc = compose(&p, err))) {
		parts_free(&p);
		return rc;
	}
	*run = p.run;
	*composed = p.sched;
	return DEHBQ_OK;
}
