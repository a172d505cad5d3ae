/*
 * search_de_v04.c - owns reading the states of 0.4's `de` and `dehb` (the
 * DEHB engine's) as the de searcher's: search_de_v04.h
 */
#include "search_de_v04.h"

#include "searcher.h"

#include "err.h"
#include "ostate.h"

#include <cjson/cJSON.h>
#include <string.h>

int de_v04_is_engine(const cJSON *state)
{
	return cJSON_GetObjectItemCaseSensitive(state, "params") != NULL;
}

/* A copy of member k of from into to. */
static int copy(const cJSON *from, const char *k, cJSON *to, char *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(from, k);
	cJSON *dup;

	if (!v)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: the de engine's state has no "
				  "'%s'",
				  k);
	if (!(dup = cJSON_Duplicate(v, 1)) ||
	    !cJSON_AddItemToObject(to, k, dup)) {
		cJSON_Delete(dup);
		return DEHBQ_ENOMEM;
	}
	return DEHBQ_OK;
}

/* A population of the engine as a level of the searcher's, onto arr;
 * turns: the slots it handed out (DEHB's: unused), cids: its
 * configurations' ids too. */
static int put_level(const cJSON *pop, int64_t turns, int cids, cJSON *arr,
		     char *err)
{
	cJSON *lv = cJSON_CreateObject();
	int rc;

	if (!lv || !cJSON_AddItemToArray(arr, lv)) {
		cJSON_Delete(lv);
		return DEHBQ_ENOMEM;
	}
	if (!cJSON_AddNumberToObject(lv, "turns", (double)turns))
		return DEHBQ_ENOMEM;
	if ((rc = copy(pop, "ptr", lv, err)) ||
	    (rc = copy(pop, "rng", lv, err)) ||
	    (rc = copy(pop, "x", lv, err)) ||
	    (rc = copy(pop, "fit", lv, err)) ||
	    (cids && (rc = copy(pop, "config_id", lv, err))))
		return rc;
	return copy(pop, "job", lv, err);
}

/* The incumbent at any fidelity as the searcher's best. */
static int put_best(const cJSON *in, cJSON *out, char *err)
{
	const cJSON *inc, *any, *loss, *job;
	cJSON *best, *l;
	int rc;

	if ((rc = ostate_get_obj(in, "incumbents", &inc, err)))
		return rc;
	any = cJSON_GetObjectItemCaseSensitive(inc, "any");
	if (!cJSON_IsObject(any))
		return cJSON_AddNullToObject(out, "best") ? DEHBQ_OK
							  : DEHBQ_ENOMEM;
	loss = cJSON_GetObjectItemCaseSensitive(any, "loss");
	job = cJSON_GetObjectItemCaseSensitive(any, "job_id");
	if (!cJSON_IsNumber(loss) || !cJSON_IsNumber(job))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: incumbents.any needs 'loss' and "
				  "'job_id'");
	if (!(best = cJSON_AddObjectToObject(out, "best")) ||
	    !cJSON_AddNumberToObject(best, "job", job->valuedouble) ||
	    !(l = cJSON_AddArrayToObject(best, "loss")) ||
	    !cJSON_AddItemToArray(l, cJSON_CreateNumber(loss->valuedouble)))
		return DEHBQ_ENOMEM;
	return copy(any, "x", best, err);
}

/* The jobs in flight as [job, level - low, slot] (de: all at the top
 * level, low = top), with [..., config, promotion] when dehb. */
static int put_inflight(const cJSON *in, int low, int high, int dehb,
			cJSON *out, char *err)
{
	const cJSON *fl, *e;
	const char *kind;
	cJSON *arr;
	int64_t v[5];
	int rc, i;

	if ((rc = ostate_get_arr(in, "inflight", -1, &fl, err)))
		return rc;
	if (!(arr = cJSON_AddArrayToObject(out, "inflight")))
		return DEHBQ_ENOMEM;
	cJSON_ArrayForEach(e, fl)
	{
		cJSON *t;

		if ((rc = ostate_get_i64(e, "id", 0, (int64_t)1 << 53, &v[0],
					 err)) ||
		    (rc = ostate_get_i64(e, "level", low, high, &v[1], err)) ||
		    (rc = ostate_get_i64(e, "slot", 0, 1 << 30, &v[2], err)) ||
		    (dehb &&
		     ((rc = ostate_get_i64(e, "config_id", 0, (int64_t)1 << 53,
					   &v[3], err)) ||
		      (rc = ostate_get_str(e, "kind", &kind, err)))))
			return rc;
		v[1] -= low;
		v[4] = dehb && !strcmp(kind, "promotion");
		if (!(t = cJSON_CreateArray()) || !cJSON_AddItemToArray(arr, t))
			return DEHBQ_ENOMEM;
		for (i = 0; i < (dehb ? 5 : 3); i++)
			if (!cJSON_AddItemToArray(
				    t, cJSON_CreateNumber((double)v[i])))
				return DEHBQ_ENOMEM;
	}
	return DEHBQ_OK;
}

/* dehb's populations, one a level, and its next configuration's id. */
static int put_dehb(const cJSON *in, const cJSON *pops, cJSON *out, char *err)
{
	const cJSON *counts, *p, *next;
	cJSON *arr;
	int rc;

	if ((rc = ostate_get_obj(in, "counts", &counts, err)))
		return rc;
	if (!(next = cJSON_GetObjectItemCaseSensitive(counts,
						      "next_config_id")) ||
	    !cJSON_IsNumber(next))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: counts.next_config_id must be a "
				  "number");
	if (!cJSON_AddNumberToObject(out, "next_config_id",
				     next->valuedouble) ||
	    !(arr = cJSON_AddArrayToObject(out, "level")))
		return DEHBQ_ENOMEM;
	cJSON_ArrayForEach(p, pops)
	{
		if ((rc = put_level(p, 0, 1, arr, err)))
			return rc;
	}
	return put_inflight(in, 0, cJSON_GetArraySize(pops) - 1, 1, out, err);
}

/* de's top population as the searcher's one level. */
static int put_de(const cJSON *in, const cJSON *top, int n, cJSON *out,
		  char *err)
{
	const cJSON *counts;
	cJSON *arr;
	int64_t asked;
	int rc;

	if ((rc = ostate_get_obj(in, "counts", &counts, err)) ||
	    (rc = ostate_get_i64(counts, "asked", 0, (int64_t)1 << 53, &asked,
				 err)))
		return rc;
	if (!(arr = cJSON_AddArrayToObject(out, "level")))
		return DEHBQ_ENOMEM;
	if ((rc = put_level(top, asked, 0, arr, err)))
		return rc;
	return put_inflight(in, n - 1, n - 1, 0, out, err);
}

static int convert(const cJSON *in, const struct search_setup *s, cJSON *out,
		   char *err)
{
	const cJSON *params, *pops;
	const char *opt;
	int64_t pop = 0;
	int rc, n, dehb;

	if ((rc = ostate_get_obj(in, "params", &params, err)) ||
	    (rc = ostate_get_str(params, "optimizer", &opt, err)))
		return rc;
	dehb = !strcmp(opt, "dehb");
	if (!dehb && strcmp(opt, "de"))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: the engine's state of '%.20s' is "
				  "not the de searcher's",
				  opt);
	if ((!dehb && (rc = ostate_get_i64(params, "de_pop_size", 0, 100000,
					   &pop, err))) ||
	    (rc = ostate_get_arr(in, "pops", -1, &pops, err)))
		return rc;
	if ((n = cJSON_GetArraySize(pops)) < 1)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: 'pops' is empty");
	if (dehb ? !s->fills || n != s->levels : s->levels != 1)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: the %s engine's state is %s's; "
				  "this scheduler runs otherwise",
				  opt, dehb ? "dehb" : "fifo");
	if (!cJSON_AddNumberToObject(out, "levels", dehb ? n : 1) ||
	    !cJSON_AddNumberToObject(out, "population_size",
				     pop ? (double)pop : 20))
		return DEHBQ_ENOMEM;
	if ((rc = put_best(in, out, err)))
		return rc;
	return dehb ? put_dehb(in, pops, out, err)
		    : put_de(in, cJSON_GetArrayItem(pops, n - 1), n, out, err);
}

int de_v04_convert(const cJSON *in, const struct search_setup *s, cJSON **out,
		   char *err)
{
	int rc;

	if (!(*out = cJSON_CreateObject()))
		return DEHBQ_ENOMEM;
	if ((rc = convert(in, s, *out, err))) {
		cJSON_Delete(*out);
		*out = NULL;
		if (rc == DEHBQ_ENOMEM)
			dehbq_errf(err, rc, "out of memory");
	}
	return rc;
}
