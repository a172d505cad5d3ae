/*
 * search_de_v04.c - owns reading the state of 0.4's `de` preset (the
 * DEHB engine's) as the de searcher's: search_de_v04.h
 */
#include "search_de_v04.h"

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

/* The top population as the searcher's one level. */
static int put_level(const cJSON *in, const cJSON *top, cJSON *out, char *err)
{
	const cJSON *counts;
	cJSON *lv = cJSON_CreateObject(), *arr = cJSON_CreateArray();
	int64_t asked;
	int rc;

	if (!lv || !arr || !cJSON_AddItemToArray(arr, lv)) {
		cJSON_Delete(lv);
		cJSON_Delete(arr);
		return DEHBQ_ENOMEM;
	}
	if (!cJSON_AddItemToObject(out, "level", arr)) {
		cJSON_Delete(arr);
		return DEHBQ_ENOMEM;
	}
	if ((rc = ostate_get_obj(in, "counts", &counts, err)) ||
	    (rc = ostate_get_i64(counts, "asked", 0, (int64_t)1 << 53, &asked,
				 err)))
		return rc;
	if (!cJSON_AddNumberToObject(lv, "turns", (double)asked))
		return DEHBQ_ENOMEM;
	if ((rc = copy(top, "ptr", lv, err)) ||
	    (rc = copy(top, "rng", lv, err)) ||
	    (rc = copy(top, "x", lv, err)) || (rc = copy(top, "fit", lv, err)))
		return rc;
	return copy(top, "job", lv, err);
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

/* The jobs in flight, all at the top level, as [job, 0, slot]. */
static int put_inflight(const cJSON *in, int top, cJSON *out, char *err)
{
	const cJSON *fl, *e;
	cJSON *arr;
	int64_t id, level, slot;
	int rc;

	if ((rc = ostate_get_arr(in, "inflight", -1, &fl, err)))
		return rc;
	if (!(arr = cJSON_AddArrayToObject(out, "inflight")))
		return DEHBQ_ENOMEM;
	cJSON_ArrayForEach(e, fl)
	{
		const double v[3] = {0, 0, 0};
		cJSON *t;

		if ((rc = ostate_get_i64(e, "id", 0, (int64_t)1 << 53, &id,
					 err)) ||
		    (rc = ostate_get_i64(e, "level", top, top, &level, err)) ||
		    (rc = ostate_get_i64(e, "slot", 0, 1 << 30, &slot, err)))
			return rc;
		if (!(t = cJSON_CreateDoubleArray(v, 3)) ||
		    !cJSON_AddItemToArray(arr, t))
			return DEHBQ_ENOMEM;
		cJSON_SetNumberValue(cJSON_GetArrayItem(t, 0), (double)id);
		cJSON_SetNumberValue(cJSON_GetArrayItem(t, 2), (double)slot);
	}
	return DEHBQ_OK;
}

static int convert(const cJSON *in, cJSON *out, char *err)
{
	const cJSON *params, *pops, *top;
	const char *opt;
	int64_t pop;
	int rc, n;

	if ((rc = ostate_get_obj(in, "params", &params, err)) ||
	    (rc = ostate_get_str(params, "optimizer", &opt, err)))
		return rc;
	if (strcmp(opt, "de"))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: the engine's state of '%.20s' is "
				  "not the de searcher's",
				  opt);
	if ((rc = ostate_get_i64(params, "de_pop_size", 0, 100000, &pop,
				 err)) ||
	    (rc = ostate_get_arr(in, "pops", -1, &pops, err)))
		return rc;
	if ((n = cJSON_GetArraySize(pops)) < 1)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: 'pops' is empty");
	top = cJSON_GetArrayItem(pops, n - 1);
	if (!cJSON_AddNumberToObject(out, "levels", 1) ||
	    !cJSON_AddNumberToObject(out, "population_size",
				     pop ? (double)pop : 20))
		return DEHBQ_ENOMEM;
	if ((rc = put_best(in, out, err)) ||
	    (rc = put_level(in, top, out, err)))
		return rc;
	return put_inflight(in, n - 1, out, err);
}

int de_v04_convert(const cJSON *in, int levels, cJSON **out, char *err)
{
	int rc;

	*out = NULL;
	if (levels != 1)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: the de engine's state is "
				  "fifo's; this scheduler runs %d levels",
				  levels);
	if (!(*out = cJSON_CreateObject()))
		return DEHBQ_ENOMEM;
	if ((rc = convert(in, *out, err))) {
		cJSON_Delete(*out);
		*out = NULL;
		if (rc == DEHBQ_ENOMEM)
			dehbq_errf(err, rc, "out of memory");
	}
	return rc;
}
