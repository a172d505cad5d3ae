/*
 * search_de_state.c - owns the de searcher's saved state (search_de.c):
 *
 *   {"levels":L,"population_size":P,"best":null|{"job","loss":[l],"x"},
 *    "level":[{"turns","ptr","rng","x","fit","job"[,"config_id"]}],
 *    "inflight":[[job,level,slot] | [job,level,slot,config,promotion]]
 *    [,"next_config_id":C]}
 *
 * The bracketed members are a searcher's that fills its scheduler's
 * rungs (search_de_fill.c), whose levels hold DEHB's sizes.  A state of
 * 0.4's DEHB engine (its `de` and `dehb`) loads through search_de_v04.h.
 * Every member is checked (type, size, range); nothing is trusted.
 */
#include "search_de_impl.h"

#include "search_de_v04.h"

#include "err.h"
#include "jsonbuf.h"
#include "ostate.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

int des_save(const void *st, struct jsonbuf *b)
{
	const struct des *d = st;
	size_t i;
	int k;

	jsonbuf_printf(b,
		       "{\"levels\":%d,\"population_size\":%d,\"best\":", d->L,
		       d->pop);
	if (d->inc_valid) {
		jsonbuf_printf(
			b, "{\"job\":%lld,\"loss\":", (long long)d->inc_job);
		ostate_put_dbls(b, &d->inc_fit, 1);
		jsonbuf_puts(b, ",\"x\":");
		ostate_put_dbls(b, d->inc_x, (size_t)d->dim);
		jsonbuf_put(b, "}", 1);
	} else
		jsonbuf_puts(b, "null");
	jsonbuf_puts(b, ",\"level\":[");
	for (k = 0; k < d->L; k++) {
		const struct des_level *P = &d->lv[k];

		jsonbuf_printf(b, "%s{\"turns\":%lld,\"ptr\":%d,\"rng\":",
			       k ? "," : "", (long long)P->turns, P->ptr);
		ostate_put_rng(b, &P->rng);
		jsonbuf_puts(b, ",\"x\":");
		ostate_put_dbls(b, P->x, (size_t)P->n * (size_t)d->dim);
		jsonbuf_puts(b, ",\"fit\":");
		ostate_put_dbls(b, P->fit, (size_t)P->n);
		jsonbuf_puts(b, ",\"job\":");
		ostate_put_i64s(b, P->job, (size_t)P->n);
		if (d->fills) {
			jsonbuf_puts(b, ",\"config_id\":");
			ostate_put_i64s(b, P->cid, (size_t)P->n);
		}
		jsonbuf_put(b, "}", 1);
	}
	jsonbuf_puts(b, "],\"inflight\":[");
	for (i = 0; i < d->nfl; i++) {
		jsonbuf_printf(b, "%s[%lld,%d,%d", i ? "," : "",
			       (long long)d->fl[i].job, d->fl[i].level,
			       d->fl[i].slot);
		if (d->fills)
			jsonbuf_printf(b, ",%lld,%d", (long long)d->fl[i].cid,
				       d->fl[i].promo);
		jsonbuf_put(b, "]", 1);
	}
	jsonbuf_put(b, "]", 1);
	if (d->fills)
		jsonbuf_printf(b, ",\"next_config_id\":%lld",
			       (long long)d->next_cid);
	jsonbuf_put(b, "}", 1);
	return jsonbuf_failed(b);
}

static int load_best(const cJSON *state, struct des *d, char *err)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(state, "best");
	int rc;

	if (cJSON_IsNull(o))
		return DEHBQ_OK;
	if ((rc = ostate_get_obj(state, "best", &o, err)) ||
	    (rc = ostate_get_i64(o, "job", 0, SEARCH_MAX_JOB, &d->inc_job,
				 err)) ||
	    (rc = ostate_get_dbls(o, "loss", 1, &d->inc_fit, 0, 0, err)) ||
	    (rc = ostate_get_dbls(o, "x", (size_t)d->dim, d->inc_x, 0, 1, err)))
		return rc;
	d->inc_valid = 1;
	return DEHBQ_OK;
}

static int load_level(const cJSON *o, struct des *d, struct des_level *P,
		      char *err)
{
	size_t n = (size_t)P->n;
	int rc;

	if ((rc = ostate_get_i64(o, "turns", 0, SEARCH_MAX_JOB, &P->turns,
				 err)) ||
	    (rc = ostate_get_int(o, "ptr", 0, P->n - 1, &P->ptr, err)) ||
	    (rc = ostate_get_rng(o, "rng", &P->rng, err)) ||
	    (rc = ostate_get_dbls(o, "x", n * (size_t)d->dim, P->x, 0, 1,
				  err)) ||
	    (rc = ostate_get_dbls(o, "fit", n, P->fit, 1, 0, err)) ||
	    (rc = ostate_get_i64s(o, "job", n, P->job, -1, SEARCH_MAX_JOB,
				  err)) ||
	    (d->fills && (rc = ostate_get_i64s(o, "config_id", n, P->cid, 0,
					       d->next_cid - 1, err))))
		return rc;
	P->full = des_level_full(d, P);
	return DEHBQ_OK;
}

/* The jobs in flight: [job, level, slot] each (fills: and configuration,
 * promotion), no job twice. */
static int load_inflight(const cJSON *state, struct des *d, char *err)
{
	const cJSON *a, *e;
	int64_t v[5] = {0, 0, 0, 0, 0};
	int w = d->fills ? 5 : 3;

	if (ostate_get_arr(state, "inflight", -1, &a, err))
		return DEHBQ_EINVAL;
	cJSON_ArrayForEach(e, a)
	{
		struct des_fl *f;

		if (cJSON_GetArraySize(e) != w ||
		    !ostate_int(cJSON_GetArrayItem(e, 0), 0, SEARCH_MAX_JOB,
				&v[0]) ||
		    !ostate_int(cJSON_GetArrayItem(e, 1), 0, d->L - 1, &v[1]) ||
		    !ostate_int(cJSON_GetArrayItem(e, 2), 0, d->lv[v[1]].n - 1,
				&v[2]) ||
		    (w == 5 &&
		     (!ostate_int(cJSON_GetArrayItem(e, 3), 0, d->next_cid - 1,
				  &v[3]) ||
		      !ostate_int(cJSON_GetArrayItem(e, 4), 0, 1, &v[4]))) ||
		    des_fl_find(d, v[0]))
			return dehbq_errf(
				err, DEHBQ_EINVAL,
				"snapshot: 'inflight' must hold distinct "
				"[job, level, slot%s] entries",
				w == 5 ? ", config, promotion" : "");
		if (des_fl_reserve(d))
			return DEHBQ_ENOMEM;
		f = &d->fl[d->nfl++];
		f->job = v[0];
		f->level = (int)v[1];
		f->slot = (int)v[2];
		f->cid = v[3];
		f->promo = (int)v[4];
	}
	return DEHBQ_OK;
}

static int load_levels(const cJSON *state, struct des *d, char *err)
{
	const cJSON *a, *o;
	int rc, k = 0;

	if (d->fills &&
	    (rc = ostate_get_i64(state, "next_config_id", d->totpop,
				 SEARCH_MAX_JOB, &d->next_cid, err)))
		return rc;
	if ((rc = ostate_get_arr(state, "level", d->L, &a, err)))
		return rc;
	cJSON_ArrayForEach(o, a)
	{
		if ((rc = load_level(o, d, &d->lv[k++], err)))
			return rc;
	}
	return DEHBQ_OK;
}

int des_load(const struct search_setup *s, const cJSON *state, void **st,
	     char *err)
{
	struct des_set t;
	struct des *d;
	cJSON *v04;
	int rc, L;

	if (de_v04_is_engine(state)) {
		if ((rc = de_v04_convert(state, s, &v04, err)))
			return rc;
		rc = des_load(s, v04, st, err);
		cJSON_Delete(v04);
		return rc;
	}
	if ((rc = des_read(s->settings, &t, err)) ||
	    (rc = ostate_get_int(state, "levels", 1, 1 << 16, &L, err)) ||
	    (rc = ostate_get_int(state, "population_size", 4, DES_MAX_POP,
				 &t.pop, err)))
		return rc;
	if (L != s->levels)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: 'levels' is %d, the scheduler "
				  "runs %d",
				  L, s->levels);
	if ((rc = des_new(s, &t, &d, err)))
		return rc;
	if ((rc = load_levels(state, d, err)) ||
	    (rc = load_best(state, d, err)) ||
	    (rc = load_inflight(state, d, err)) ||
	    (rc = des_guide_open(d, s, &t, 0, err))) {
		des_free(d);
		return rc;
	}
	*st = d;
	return DEHBQ_OK;
}
