/*
 * dehb_state.c - the engine's whole state to JSON and back (dehb_save,
 * dehb_load)
 *
 * Layout (docs/algorithm.md has the field list):
 *   {"format": 1, "params": {...}, "rng": "x256:...",
 *    "counts": {"asked", "next_config_id", "next_bracket"},
 *    "brackets": [{"id", "pending", "done", "results"}]}
 *
 * The jobs in flight are the books' (optim.c): dehb_replayed checks them
 * against the brackets after a load.  0.4 saved them here too
 * ("inflight", and "told" and "failed" in counts), and dehb's "pops"
 * (its subpopulations) and "incumbents": dehb_load skips them all (the
 * de searcher reads the populations, optim/search/search_de_v04.h), and
 * params held DE's settings, skipped too.
 *
 * Invariants:
 * - dehb_save appends compact text (jsonbuf.h); dehb_load reads the
 *   parsed tree.  Numbers are written in a form that strtod() maps back
 *   to the identical double (cJSON's printer is only 1-ulp exact), so
 *   they round-trip bit for bit.  JSON has no infinity: a fitness or loss
 *   of +inf is written as null; NaN is never stored.
 * - The seed is a 16-digit hex string (JSON numbers lose bits above 2^53);
 *   all other integers are below 2^53.
 * - dehb_load checks every type, size, range and cross-count (rung
 *   counters, bracket ids) and refuses with DEHBQ_EINVAL and a message;
 *   it never trusts the snapshot.
 */
#include "dehb.h"

#include "dehb_impl.h"
#include "err.h"
#include "jsonbuf.h"
#include "jsonfile.h"
#include "ostate.h"
#include "hb.h"
#include "rng.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- save ---- */

/*
 * The state is appended as compact JSON text (jsonbuf.h), in the layout
 * cJSON_PrintUnformatted() gives.  Numbers are exact: %.17g or the plain
 * integer, which strtod() maps back to the identical double (cJSON's own
 * printer is only 1-ulp exact); +inf is null.  Not the shortest form, but
 * the snapshot is machine state written every batch, and one snprintf per
 * number is a third of the cost of the shortest search.
 */

/* A bracket's per-rung counters (n <= HB_MAX_LEVELS). */
static void put_rungs(struct jsonbuf *b, const int *v, int n)
{
	int64_t w[HB_MAX_LEVELS];
	int i;

	for (i = 0; i < n && i < HB_MAX_LEVELS; i++)
		w[i] = v[i];
	ostate_put_i64s(b, w, (size_t)i);
}

static void put_params(struct jsonbuf *b, const struct dehb_params *p)
{
	jsonbuf_puts(b, "{\"optimizer\":");
	jsonbuf_str(b, dehb_optimizer_name(p->optimizer));
	jsonbuf_printf(b, ",\"dim\":%d,\"min_fidelity\":", p->dim);
	jsonbuf_num(b, p->min_fidelity);
	jsonbuf_puts(b, ",\"max_fidelity\":");
	jsonbuf_num(b, p->max_fidelity);
	jsonbuf_puts(b, ",\"eta\":");
	jsonbuf_num(b, p->eta);
	jsonbuf_printf(
		b, ",\"seed\":\"%016" PRIx64 "\",\"max_brackets\":", p->seed);
	jsonbuf_num(b, (double)p->max_brackets);
	jsonbuf_printf(b, ",\"max_active_brackets\":%d}",
		       p->max_active_brackets);
}

static void save_bracket(struct jsonbuf *b, const struct dehb *d,
			 const struct dehb_bracket *br)
{
	int r;

	jsonbuf_printf(b, "{\"id\":%" PRId64 ",\"pending\":", br->hb.id);
	put_rungs(b, br->hb.pending, br->hb.nrungs);
	jsonbuf_puts(b, ",\"done\":");
	put_rungs(b, br->hb.done, br->hb.nrungs);
	if (dehb_uses_brackets(d) == 2) {
		jsonbuf_puts(b, ",\"results\":[");
		for (r = 0; r + 1 < br->hb.nrungs; r++) {
			size_t n = (size_t)br->hb.done[r];

			jsonbuf_puts(b, r ? ",{\"loss\":" : "{\"loss\":");
			ostate_put_dbls(b, br->rloss[r], n);
			jsonbuf_puts(b, ",\"config_id\":");
			ostate_put_i64s(b, br->rcid[r], n);
			jsonbuf_puts(b, ",\"job\":");
			ostate_put_i64s(b, br->rjob[r], n);
			jsonbuf_puts(b, ",\"x\":");
			ostate_put_dbls(b, br->rx[r], n * (size_t)d->p.dim);
			jsonbuf_put(b, "}", 1);
		}
		jsonbuf_put(b, "]", 1);
	}
	jsonbuf_put(b, "}", 1);
}

int dehb_save(const struct dehb *d, struct jsonbuf *b)
{
	int k;

	jsonbuf_puts(b, "{\"format\":1,\"params\":");
	put_params(b, &d->p);
	jsonbuf_puts(b, ",\"rng\":");
	ostate_put_rng(b, &d->rng);
	jsonbuf_printf(b,
		       ",\"counts\":{\"asked\":%" PRId64
		       ",\"next_config_id\":%" PRId64
		       ",\"next_bracket\":%" PRId64 "},\"brackets\":[",
		       d->asked, d->next_cid, d->next_bracket);
	for (k = 0; k < d->nbr; k++) {
		if (k)
			jsonbuf_put(b, ",", 1);
		save_bracket(b, d, &d->br[k]);
	}
	jsonbuf_puts(b, "]}");
	return jsonbuf_failed(b);
}

/* ---- load: every accessor checks type and range (ostate.h) ---- */

static int get_ints(const cJSON *o, const char *k, int n, int *v, int lo,
		    const int *hi, char *err)
{
	int64_t t[HB_MAX_LEVELS];
	int i, rc;

	rc = ostate_get_i64s(o, k, (size_t)n, t, lo, INT32_MAX, err);
	if (rc != DEHBQ_OK)
		return rc;
	for (i = 0; i < n; i++) {
		if (t[i] > hi[i])
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "snapshot: '%s'[%d] out of range", k,
					  i);
		v[i] = (int)t[i];
	}
	return DEHBQ_OK;
}

#define TRY(x)                                                                 \
	do {                                                                   \
		rc = (x);                                                      \
		if (rc != DEHBQ_OK)                                            \
			goto fail;                                             \
	} while (0)

static int load_params(const cJSON *o, struct dehb_params *p, char *err)
{
	const char *s;
	char *end;
	int rc;

	dehb_params_init(p);
	TRY(ostate_get_str(o, "optimizer", &s, err));
	if (dehb_optimizer_parse(s, &p->optimizer) != DEHBQ_OK)
		return dehbq_errf(err, DEHBQ_EINVAL, "snapshot: bad optimizer");
	TRY(ostate_get_int(o, "dim", 1, DEHB_MAX_DIM, &p->dim, err));
	TRY(ostate_get_dbl(o, "min_fidelity", &p->min_fidelity, err));
	TRY(ostate_get_dbl(o, "max_fidelity", &p->max_fidelity, err));
	TRY(ostate_get_dbl(o, "eta", &p->eta, err));
	TRY(ostate_get_str(o, "seed", &s, err));
	if (strlen(s) != 16 || strspn(s, "0123456789abcdef") != 16)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: 'seed' must be 16 hex digits");
	p->seed = strtoull(s, &end, 16);
	TRY(ostate_get_i64(o, "max_brackets", 0, DEHB_MAX_ID, &p->max_brackets,
			   err));
	TRY(ostate_get_int(o, "max_active_brackets", 0, INT32_MAX,
			   &p->max_active_brackets, err));
	return dehb_params_check(p, err);
fail:
	return rc;
}

static int load_bracket(struct dehb *d, const cJSON *o, int i, char *err)
{
	struct dehb_bracket *b = &d->br[i];
	const cJSON *res, *e;
	int64_t id;
	int rc, r, s, lim[HB_MAX_LEVELS];

	if (!cJSON_IsObject(o))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: brackets[%d] must be an object",
				  i);
	TRY(ostate_get_i64(o, "id", 0, d->next_bracket - 1, &id, err));
	if (i > 0 && id <= d->br[i - 1].hb.id)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: bracket ids must ascend");
	s = d->p.optimizer == DEHB_OPT_SH ? d->nlevels - 1
					  : hb_bracket_s(d->nlevels, id);
	TRY(hb_bracket_init(&b->hb, id, s, d->nlevels, d->p.eta));
	TRY(get_ints(o, "pending", b->hb.nrungs, b->hb.pending, 0, b->hb.n,
		     err));
	for (r = 0; r < b->hb.nrungs; r++)
		lim[r] = b->hb.n[r] - b->hb.pending[r];
	TRY(get_ints(o, "done", b->hb.nrungs, b->hb.done, 0, lim, err));
	if (hb_bracket_done(&b->hb))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: brackets[%d] is finished", i);
	for (r = 1; r < b->hb.nrungs; r++)
		if (b->hb.pending[r] < b->hb.n[r] &&
		    (b->hb.pending[r - 1] ||
		     b->hb.done[r - 1] < b->hb.n[r - 1]))
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "snapshot: brackets[%d] rung %d "
					  "started early",
					  i, r);
	TRY(dehb_bracket_alloc(d, b));
	d->nbr++; /* owned from here on, freed by dehb_free */
	if (dehb_uses_brackets(d) != 2)
		return DEHBQ_OK;
	TRY(ostate_get_arr(o, "results", b->hb.nrungs - 1, &res, err));
	r = 0;
	cJSON_ArrayForEach(e, res)
	{
		size_t n = (size_t)b->hb.done[r];

		if (!cJSON_IsObject(e))
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "snapshot: bad bracket results");
		TRY(ostate_get_dbls(e, "loss", n, b->rloss[r], 1, 0, err));
		TRY(ostate_get_i64s(e, "config_id", n, b->rcid[r], 0,
				    d->next_cid - 1, err));
		TRY(ostate_get_i64s(e, "job", n, b->rjob[r], 0, d->asked - 1,
				    err));
		TRY(ostate_get_dbls(e, "x", n * (size_t)d->p.dim, b->rx[r], 0,
				    1, err));
		r++;
	}
	return DEHBQ_OK;
fail:
	return rc;
}

int dehb_load(const struct cJSON *json, struct dehb **out, char *err)
{
	struct dehb_params p;
	struct dehb *d = NULL;
	const cJSON *o, *a, *e;
	int rc, k;
	int64_t fmt, bound;

	*out = NULL;
	if (!cJSON_IsObject(json))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: not a JSON object");
	TRY(ostate_get_i64(json, "format", 1, 1, &fmt, err));
	TRY(ostate_get_obj(json, "params", &o, err));
	TRY(load_params(o, &p, err));
	TRY(dehb_alloc(&p, &d, err));
	TRY(ostate_get_rng(json, "rng", &d->rng, err));
	TRY(ostate_get_obj(json, "counts", &o, err));
	TRY(ostate_get_i64(o, "asked", 0, DEHB_MAX_ID, &d->asked, err));
	TRY(ostate_get_i64(o, "next_config_id", 0, DEHB_MAX_ID, &d->next_cid,
			   err));
	TRY(ostate_get_i64(o, "next_bracket", 0, DEHB_MAX_ID, &d->next_bracket,
			   err));
	TRY(ostate_get_arr(json, "brackets", -1, &a, err));
	bound = d->next_bracket;
	if (cJSON_GetArraySize(a) > bound ||
	    (p.max_active_brackets > 0 &&
	     cJSON_GetArraySize(a) > p.max_active_brackets)) {
		rc = dehbq_errf(err, DEHBQ_EINVAL,
				"snapshot: too many brackets");
		goto fail;
	}
	rc = DEHBQ_ENOMEM;
	d->capbr = cJSON_GetArraySize(a) + 1;
	d->br = calloc((size_t)d->capbr, sizeof(*d->br));
	if (!d->br)
		goto fail;
	k = 0;
	cJSON_ArrayForEach(e, a)
	{
		TRY(load_bracket(d, e, k, err));
		k++;
	}
	*out = d;
	return DEHBQ_OK;
fail:
	dehb_free(d);
	return rc;
}
