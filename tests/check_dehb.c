/*
 * check_dehb.c - the bracket engine (dehb.h), under DEHB with the de
 * searcher filling its rungs: spec 5.7 trace, ask/tell contract,
 * termination, save/load equivalence under random interleavings and the
 * SH and Hyperband baselines
 */
#include "de.h"
#include "dehb.h"
#include "enginebook.h"
#include "err.h"
#include "jsonbuf.h"
#include "optim.h"
#include "rng.h"
#include "searcher.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXD EB_MAXD

/* ---- spec 5.7 trace ---- */

struct trace_row {
	int bracket, level, count;
	enum dehb_kind kind;
};

static const struct trace_row trace57[] = {
	{0, 0, 27, DEHB_KIND_TRIAL},	{0, 1, 9, DEHB_KIND_PROMOTION},
	{0, 2, 3, DEHB_KIND_PROMOTION}, {0, 3, 1, DEHB_KIND_PROMOTION},
	{1, 1, 9, DEHB_KIND_TRIAL},	{1, 2, 3, DEHB_KIND_PROMOTION},
	{1, 3, 1, DEHB_KIND_PROMOTION}, {2, 2, 6, DEHB_KIND_TRIAL},
	{2, 3, 2, DEHB_KIND_PROMOTION}, {3, 3, 4, DEHB_KIND_TRIAL},
	{4, 0, 27, DEHB_KIND_TRIAL},	{4, 1, 9, DEHB_KIND_TRIAL},
	{4, 2, 3, DEHB_KIND_TRIAL},	{4, 3, 1, DEHB_KIND_TRIAL},
	{5, 1, 9, DEHB_KIND_TRIAL},	{5, 2, 3, DEHB_KIND_TRIAL},
	{5, 3, 1, DEHB_KIND_TRIAL},
};

START_TEST(test_dehb_sequential_trace_matches_spec_5_7)
{
	struct dehb *d = eb_mk(DEHB_OPT_DEHB, 1, 27, 2, 11);
	static const double fids[] = {1, 3, 9, 27};
	int64_t lvl_of[200];
	size_t r;
	int k;
	double x[MAXD];
	struct dehb_job j;

	for (r = 0; r < sizeof(trace57) / sizeof(trace57[0]); r++) {
		const struct trace_row *t = &trace57[r];

		for (k = 0; k < t->count; k++) {
			ck_assert_int_eq(eb_step(d, &j, x), DEHBQ_OK);
			ck_assert_int_eq(j.bracket, t->bracket);
			ck_assert_int_eq(j.level, t->level);
			ck_assert(j.fidelity == fids[t->level]);
			ck_assert_msg(j.kind == t->kind, "row %zu job %d", r,
				      k);
			/* the slot and the configuration are the searcher's */
			ck_assert_int_eq(j.slot, -1);
			ck_assert_int_eq(j.config_id, -1);
			ck_assert(j.id < 200);
			lvl_of[j.id] = j.level;
			if (j.kind == DEHB_KIND_PROMOTION) {
				/* parent_job evaluated this config lower */
				ck_assert(j.parent_job >= 0 &&
					  (uint64_t)j.parent_job < j.id);
				ck_assert_int_eq(lvl_of[j.parent_job],
						 j.level - 1);
			} else {
				ck_assert_int_eq(j.parent_job, -1);
			}
		}
	}
	eb_free(d);
}
END_TEST

START_TEST(test_dehb_job_ids_sequential_and_vectors_in_unit_cube)
{
	struct dehb *d = eb_mk(DEHB_OPT_DEHB, 1, 27, 5, 3);
	struct dehb_job j;
	double x[MAXD];
	uint64_t i;
	int k;

	for (i = 0; i < 500; i++) {
		ck_assert_int_eq(eb_step(d, &j, x), DEHBQ_OK);
		ck_assert_uint_eq(j.id, i);
		for (k = 0; k < 5; k++)
			ck_assert(x[k] >= 0 && x[k] <= 1);
	}
	eb_free(d);
}
END_TEST

START_TEST(test_dehb_same_seed_same_state_different_seed_differs)
{
	struct dehb *a = eb_mk(DEHB_OPT_DEHB, 1, 9, 3, 5);
	struct dehb *b = eb_mk(DEHB_OPT_DEHB, 1, 9, 3, 5);
	struct dehb *c = eb_mk(DEHB_OPT_DEHB, 1, 9, 3, 6);
	struct dehb_job j;
	double x[MAXD];
	char *sa, *sb, *sc;
	int i;

	for (i = 0; i < 300; i++) {
		eb_step(a, &j, x);
		eb_step(b, &j, x);
		eb_step(c, &j, x);
	}
	sa = eb_save_text(a);
	sb = eb_save_text(b);
	sc = eb_save_text(c);
	ck_assert_str_eq(sa, sb);
	ck_assert_str_ne(sa, sc);
	free(sa);
	free(sb);
	free(sc);
	eb_free(a);
	eb_free(b);
	eb_free(c);
}
END_TEST

START_TEST(test_dehb_out_of_order_tells_and_selection)
{
	struct dehb *d = eb_mk(DEHB_OPT_DEHB, 1, 9, 2, 8);
	struct dehb_job j[9];
	double x[9][MAXD];
	int i;

	for (i = 0; i < 9; i++)
		ck_assert_int_eq(eb_ask(d, &j[i], x[i]), DEHBQ_OK);
	for (i = 8; i >= 0; i--)
		ck_assert_int_eq(eb_tell(d, j[i].id, DEHB_OK, 10 + i, 1),
				 DEHBQ_OK);
	ck_assert_int_eq(eb_told(d), 9);
	ck_assert_int_eq(eb_inflight(d), 0);
	ck_assert_int_eq(dehb_active_brackets(d), 1); /* rung 0 done */
	/* the rung-1 promotion is the best (lowest loss) base config */
	ck_assert_int_eq(eb_ask(d, &j[0], x[0]), DEHBQ_OK);
	ck_assert_int_eq(j[0].kind, DEHB_KIND_PROMOTION);
	ck_assert_int_eq(j[0].parent_job, 0);
	eb_free(d);
}
END_TEST

START_TEST(test_dehb_no_double_promotion_with_jobs_in_flight)
{
	struct dehb *d = eb_mk(DEHB_OPT_DEHB, 1, 27, 2, 17);
	struct dehb_job j, fl[512];
	struct rng ops;
	double x[MAXD];
	int nfl = 0, i, k, promos = 0;

	rng_seed(&ops, 5);
	for (i = 0; i < 5000; i++) {
		if (nfl < 512 && (nfl == 0 || rng_uniform(&ops) < 0.5)) {
			if (eb_ask(d, &j, x) != DEHBQ_OK)
				continue;
			if (j.kind == DEHB_KIND_PROMOTION) {
				promos++;
				/* one member (its parent's) goes up once */
				for (k = 0; k < nfl; k++)
					ck_assert(fl[k].kind !=
							  DEHB_KIND_PROMOTION ||
						  fl[k].level != j.level ||
						  fl[k].parent_job !=
							  j.parent_job);
			}
			fl[nfl++] = j;
			continue;
		}
		k = (int)rng_below(&ops, (uint64_t)nfl);
		ck_assert_int_eq(eb_get(d, fl[k].id, &j, x), DEHBQ_OK);
		ck_assert_int_eq(eb_tell(d, j.id, DEHB_OK,
					 eb_toy_loss(x, 2, j.fidelity), 0),
				 DEHBQ_OK);
		fl[k] = fl[--nfl];
	}
	ck_assert_int_gt(promos, 10);
	eb_free(d);
}
END_TEST

START_TEST(test_dehb_promotion_falls_back_to_trial_when_nothing_evaluated)
{
	struct dehb *d = eb_mk(DEHB_OPT_DEHB, 1, 9, 2, 2);
	struct dehb_job j;
	double x[MAXD];
	int i;

	for (i = 0; i < 9; i++) {
		ck_assert_int_eq(eb_ask(d, &j, x), DEHBQ_OK);
		ck_assert_int_eq(eb_tell(d, j.id, DEHB_FAILED, 0, 0), DEHBQ_OK);
	}
	ck_assert_int_eq(eb_ask(d, &j, x), DEHBQ_OK);
	ck_assert_int_eq(j.bracket, 0);
	ck_assert_int_eq(j.rung, 1);
	ck_assert_int_eq(j.kind, DEHB_KIND_TRIAL);
	ck_assert_int_eq(j.parent_job, -1);
	eb_free(d);
}
END_TEST

/* ---- termination ---- */

START_TEST(test_dehb_max_brackets_blocks_then_done)
{
	struct dehb_params p;
	struct dehb *d;
	struct dehb_job j[9];
	double x[MAXD];
	int i, n = 0;

	dehb_params_init(&p);
	p.min_fidelity = 1;
	p.max_fidelity = 9;
	p.max_brackets = 1;
	d = eb_mkp(&p);
	for (i = 0; i < 9; i++)
		ck_assert_int_eq(eb_ask(d, &j[i], x), DEHBQ_OK);
	/* bracket 0 waits for results; bracket 1 may not open */
	ck_assert_int_eq(eb_ask(d, &j[0], x), DEHBQ_EAGAIN);
	ck_assert(!dehb_exhausted(d));
	for (i = 0; i < 9; i++)
		ck_assert_int_eq(eb_tell(d, (uint64_t)i, DEHB_OK, i, 0),
				 DEHBQ_OK);
	while (eb_step(d, &j[0], x) == DEHBQ_OK) {
		ck_assert_int_eq(j[0].bracket, 0);
		n++;
	}
	ck_assert_int_eq(n, 4);
	ck_assert_int_eq(eb_ask(d, &j[0], x), DEHBQ_EDONE);
	ck_assert(dehb_exhausted(d));
	ck_assert_int_eq(dehb_active_brackets(d), 0);
	eb_free(d);
}
END_TEST

START_TEST(test_dehb_max_active_brackets_returns_eagain)
{
	struct dehb_params p;
	struct dehb *d;
	struct dehb_job j;
	double x[MAXD];
	int i;

	dehb_params_init(&p);
	p.min_fidelity = 1;
	p.max_fidelity = 9;
	p.max_active_brackets = 2;
	d = eb_mkp(&p);
	for (i = 0; i < 9 + 3; i++)
		ck_assert_int_eq(eb_ask(d, &j, x), DEHBQ_OK);
	ck_assert_int_eq(dehb_active_brackets(d), 2);
	ck_assert_int_eq(eb_ask(d, &j, x), DEHBQ_EAGAIN);
	ck_assert(!dehb_exhausted(d));
	ck_assert_int_eq(eb_tell(d, 9, DEHB_OK, 1, 0), DEHBQ_OK);
	ck_assert_int_eq(eb_ask(d, &j, x), DEHBQ_EAGAIN);
	eb_free(d);
}
END_TEST

/* ---- errors ---- */

/*
 * A tell the engine refuses changes nothing: a bad cost or loss, a job
 * that does not fit it, a job whose rung has nothing in flight (told
 * already: the books refuse a second tell before the engine sees it, as
 * optim.c's do, and an unknown id).
 */
START_TEST(test_dehb_tell_twice_or_unknown_refused_unchanged)
{
	struct dehb *d = eb_mk(DEHB_OPT_SH, 1, 9, 2, 1);
	struct dehb_job j, k;
	double x[MAXD], y[MAXD];
	char *before, *after;
	int i;

	for (i = 0; i < 9; i++)
		ck_assert_int_eq(eb_ask(d, &j, x), DEHBQ_OK);
	ck_assert_int_eq(eb_get(d, 0, &k, y), DEHBQ_OK);
	for (i = 0; i < 9; i++)
		ck_assert_int_eq(eb_tell(d, (uint64_t)i, DEHB_OK, 1, 1),
				 DEHBQ_OK);
	ck_assert_int_eq(eb_ask(d, &j, x), DEHBQ_OK); /* rung 1 */
	before = eb_save_text(d);
	/* rung 0 is complete: job 0 again is refused by the engine */
	ck_assert_int_eq(dehb_tell(d, &k, y, DEHB_OK, 0, 1), DEHBQ_ESTATE);
	ck_assert_int_eq(eb_tell(d, 0, DEHB_OK, 0, 1), DEHBQ_ESTATE);
	ck_assert_int_eq(eb_tell(d, 10, DEHB_OK, 0, 1), DEHBQ_ENOENT);
	ck_assert_int_eq(eb_tell(d, j.id, DEHB_OK, 0, -1), DEHBQ_EINVAL);
	ck_assert_int_eq(eb_tell(d, j.id, DEHB_OK, 0, NAN), DEHBQ_EINVAL);
	ck_assert_int_eq(eb_tell(d, j.id, DEHB_OK, -INFINITY, 0), DEHBQ_EINVAL);
	k = j;
	k.level = 0; /* not its rung's */
	ck_assert_int_eq(dehb_tell(d, &k, x, DEHB_OK, 0, 1), DEHBQ_EINVAL);
	k = j;
	k.id = 99; /* never asked */
	ck_assert_int_eq(dehb_tell(d, &k, x, DEHB_OK, 0, 1), DEHBQ_EINVAL);
	y[0] = 2; /* out of the cube */
	ck_assert_int_eq(dehb_tell(d, &j, y, DEHB_OK, 0, 1), DEHBQ_EINVAL);
	after = eb_save_text(d);
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
	eb_free(d);
}
END_TEST

/*
 * After a load the books' jobs in flight must be the brackets': one
 * missing, one too many, or one at a rung that has none is refused.
 */
START_TEST(test_dehb_replayed_jobs_must_be_the_brackets)
{
	struct dehb *d = eb_mk(DEHB_OPT_HYPERBAND, 1, 9, 2, 3);
	struct dehb_job j[4], k;
	double x[4][MAXD];
	char *s, err[DEHBQ_ERRLEN];
	struct dehb *e;
	cJSON *js;
	int i, n;

	for (i = 0; i < 4; i++)
		ck_assert_int_eq(eb_ask(d, &j[i], x[i]), DEHBQ_OK);
	ck_assert_int_eq(eb_tell(d, 1, DEHB_OK, 1, 1), DEHBQ_OK);
	s = eb_save_text(d);
	js = cJSON_Parse(s);
	for (n = 0; n < 4; n++) {
		ck_assert_int_eq(dehb_load(js, &e, err), DEHBQ_OK);
		for (i = 0; i < 4; i++) {
			int rc;

			if (i == 1 || (n == 0 && i == 2))
				continue; /* told; n 0: 2 is missing */
			k = j[i];
			if (n == 2 && i == 3)
				k.rung = 1, k.level = 1; /* a rung not run */
			rc = dehb_replayed(e, &k, x[i]);
			ck_assert_int_eq(rc, n == 2 && i == 3 ? DEHBQ_EINVAL
							      : DEHBQ_OK);
		}
		if (n == 1) /* job 1 again, though told: one too many */
			ck_assert_int_eq(dehb_replayed(e, &j[1], x[1]),
					 DEHBQ_EINVAL);
		ck_assert_int_eq(dehb_replayed(e, NULL, NULL),
				 n == 0 || n == 2 ? DEHBQ_EINVAL : DEHBQ_OK);
		dehb_free(e);
	}
	cJSON_Delete(js);
	free(s);
	eb_free(d);
}
END_TEST

START_TEST(test_dehb_params_check_names_the_field)
{
	struct dehb_params p;
	char err[DEHBQ_ERRLEN];
	struct dehb *d = (struct dehb *)1;

	dehb_params_init(&p);
	ck_assert_int_eq(dehb_params_check(&p, err), DEHBQ_OK);
	p.eta = 1;
	ck_assert_int_eq(dehb_params_check(&p, err), DEHBQ_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "eta"));
	dehb_params_init(&p);
	p.dim = 0;
	ck_assert_int_eq(dehb_params_check(&p, err), DEHBQ_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "dim"));
	dehb_params_init(&p);
	p.max_fidelity = p.min_fidelity;
	ck_assert_int_eq(dehb_params_check(&p, err), DEHBQ_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "max_fidelity"));
	dehb_params_init(&p);
	p.min_fidelity = -1;
	ck_assert_int_eq(dehb_params_check(&p, err), DEHBQ_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "min_fidelity"));
	dehb_params_init(&p);
	p.max_brackets = -1;
	ck_assert_int_eq(dehb_params_check(&p, err), DEHBQ_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "max_brackets"));
	p.max_brackets = 0;
	p.optimizer = (enum dehb_optimizer)9;
	ck_assert_int_eq(dehb_params_check(&p, err), DEHBQ_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "optimizer"));
	ck_assert_int_eq(dehb_new(&p, &d, err), DEHBQ_EINVAL);
	ck_assert_ptr_null(d);
}
END_TEST

START_TEST(test_dehb_enum_names_round_trip)
{
	enum dehb_optimizer o;
	enum de_mutation m;
	enum de_crossover c;
	enum de_boundary b;
	enum dehb_kind k;

	ck_assert_int_eq(dehb_optimizer_parse("hyperband", &o), DEHBQ_OK);
	ck_assert_str_eq(dehb_optimizer_name(o), "hyperband");
	ck_assert_int_eq(de_mutation_parse("currenttobest1", &m), DEHBQ_OK);
	ck_assert_str_eq(de_mutation_name(m), "currenttobest1");
	ck_assert_int_eq(de_crossover_parse("exp", &c), DEHBQ_OK);
	ck_assert_str_eq(de_crossover_name(c), "exp");
	ck_assert_int_eq(de_boundary_parse("clip", &b), DEHBQ_OK);
	ck_assert_str_eq(de_boundary_name(b), "clip");
	ck_assert_int_eq(dehb_kind_parse("promotion", &k), DEHBQ_OK);
	ck_assert_str_eq(dehb_kind_name(k), "promotion");
	ck_assert_int_eq(dehb_optimizer_parse("best", &o), DEHBQ_EINVAL);
	ck_assert_int_eq(de_mutation_parse("best", &m), DEHBQ_EINVAL);
	ck_assert_int_eq(dehb_kind_parse(NULL, &k), DEHBQ_EINVAL);
}
END_TEST

/* Mutations of a valid snapshot that dehb_load must refuse. */
static const char *const bad_edits[] = {
	"format=2",
	"params.eta=1",
	"params.dim=0",
	"params.seed=\"xyz\"",
	"rng=\"bogus\"",
	"counts.asked=-1",
	"brackets.0.pending=[-1,0,0]",
	"brackets.0.done=[9,9,9]",
	"counts.next_config_id=-1",
	"params=null",
	"brackets.0.id=5",
	"counts.next_bracket=0",
};

static cJSON *walk(cJSON *o, char *path)
{
	char *dot;

	while ((dot = strchr(path, '.'))) {
		*dot = 0;
		if (cJSON_IsArray(o))
			o = cJSON_GetArrayItem(o, atoi(path));
		else
			o = cJSON_GetObjectItem(o, path);
		if (!o)
			return NULL;
		path = dot + 1;
	}
	return o;
}

START_TEST(test_dehb_load_refuses_bad_snapshots)
{
	struct dehb *d = eb_mk(DEHB_OPT_DEHB, 1, 9, 2, 1), *e = NULL;
	struct dehb_job j;
	double x[MAXD];
	char buf[256], err[DEHBQ_ERRLEN], *eq, *s;
	cJSON *json, *parent, *val;
	int i;

	for (i = 0; i < 5; i++)
		ck_assert_int_eq(eb_ask(d, &j, x), DEHBQ_OK);
	ck_assert_int_eq(eb_tell(d, 0, DEHB_OK, 1, 1), DEHBQ_OK);
	s = eb_save_text(d);
	strncpy(buf, bad_edits[_i], sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = 0;
	eq = strchr(buf, '=');
	*eq = 0;
	json = cJSON_Parse(s);
	val = cJSON_Parse(eq + 1);
	ck_assert_ptr_nonnull(val);
	{
		char *last = strrchr(buf, '.');
		const char *key = last ? last + 1 : buf;

		parent = last ? walk(json, buf) : json;
		if (last)
			*last = 0;
		ck_assert_ptr_nonnull(parent);
		if (cJSON_IsArray(parent))
			cJSON_ReplaceItemInArray(parent, atoi(key), val);
		else
			cJSON_ReplaceItemInObject(parent, key, val);
	}
	err[0] = 0;
	ck_assert_int_eq(dehb_load(json, &e, err), DEHBQ_EINVAL);
	ck_assert_ptr_null(e);
	ck_assert_msg(err[0] != 0, "no message for %s", bad_edits[_i]);
	cJSON_Delete(json);
	free(s);
	eb_free(d);
}
END_TEST

/* ---- save/load property ---- */

struct world {
	uint64_t fl[4096]; /* in-flight job ids */
	int nfl;	   /* count */
	struct rng ops;	   /* drives the interleaving */
};

/* One random operation; returns a digest of what happened. */
static uint64_t op(struct dehb *d, struct world *w)
{
	struct dehb_job j;
	double x[MAXD];
	uint64_t h = 0;
	int dim = dehb_get_params(d)->dim, i, rc;

	if (w->nfl == 0 || (w->nfl < 4000 && rng_uniform(&w->ops) < 0.55)) {
		rc = eb_ask(d, &j, x);
		h = (uint64_t)rc * 1000003u;
		if (rc != DEHBQ_OK)
			return h;
		w->fl[w->nfl++] = j.id;
		h ^= j.id * 31 + (uint64_t)j.slot * 7 + (uint64_t)j.kind +
		     (uint64_t)j.bracket * 131 + (uint64_t)j.level * 17 +
		     (uint64_t)j.config_id * 1009;
		for (i = 0; i < dim; i++) {
			uint64_t b;

			memcpy(&b, &x[i], sizeof(b));
			h = h * 1099511628211u ^ b;
		}
		return h;
	}
	i = (int)rng_below(&w->ops, (uint64_t)w->nfl);
	{
		uint64_t id = w->fl[i];
		double u = rng_uniform(&w->ops);

		ck_assert_int_eq(eb_get(d, id, &j, x), DEHBQ_OK);
		w->fl[i] = w->fl[--w->nfl];
		rc = eb_tell(d, id, u < 0.05 ? DEHB_FAILED : DEHB_OK,
			     u < 0.08 ? NAN : eb_toy_loss(x, dim, j.fidelity),
			     u);
		ck_assert_int_eq(rc, DEHBQ_OK);
		return id * 7 + 1;
	}
}

START_TEST(test_dehb_save_load_continue_equals_continue)
{
	static const enum dehb_optimizer opts[] = {
		DEHB_OPT_DEHB,	   DEHB_OPT_DEHB, DEHB_OPT_DEHB,
		DEHB_OPT_SH,	   DEHB_OPT_SH,	  DEHB_OPT_HYPERBAND,
		DEHB_OPT_HYPERBAND};
	struct world *w = malloc(sizeof(*w)), *w2 = malloc(sizeof(*w2));
	int run, runs = 0;

	ck_assert_ptr_nonnull(w);
	ck_assert_ptr_nonnull(w2);
	for (run = 0; run < 280; run++) {
		struct dehb_params p;
		struct dehb *a, *b;
		int n1, n2, i;
		char *sa, *sb, set[160];

		dehb_params_init(&p);
		p.optimizer = opts[run % 7];
		p.min_fidelity = 1;
		p.max_fidelity = 9;
		p.dim = 3;
		p.seed = (uint64_t)run;
		snprintf(set, sizeof(set),
			 "{\"mutation\":\"%s\",\"crossover\":\"%s\","
			 "\"boundary\":\"%s\"}",
			 de_mutation_name((enum de_mutation)(run % 5)),
			 de_crossover_name((enum de_crossover)(run / 5 % 2)),
			 de_boundary_name((enum de_boundary)(run / 10 % 2)));
		if (run % 4 == 1)
			p.max_active_brackets = 2;
		if (run % 9 == 4)
			p.max_brackets = 5;
		a = eb_mkp_with(&p, set);
		w->nfl = 0;
		rng_seed(&w->ops, (uint64_t)run * 977);
		n1 = (int)rng_below(&w->ops, 400);
		n2 = 50 + (int)rng_below(&w->ops, 250);
		for (i = 0; i < n1; i++)
			op(a, w);
		b = eb_reload(a);
		*w2 = *w;
		for (i = 0; i < n2; i++) {
			ck_assert_msg(op(a, w) == op(b, w2),
				      "run %d diverged at step %d", run, i);
		}
		sa = eb_save_text(a);
		sb = eb_save_text(b);
		ck_assert_str_eq(sa, sb);
		free(sa);
		free(sb);
		eb_free(a);
		eb_free(b);
		runs++;
	}
	ck_assert_int_eq(runs, 280);
	free(w);
	free(w2);
}
END_TEST

/* ---- baselines ---- */

/* SH/HB: every promotion is the next best of its own bracket's rung. */
static void check_sh(enum dehb_optimizer o)
{
	struct dehb *d = eb_mk(o, 1, 9, 2, 21);
	struct dehb_job j;
	double x[MAXD], loss[400];
	int64_t br[400], rung[400];
	int i, n = 0;
	static const int lv_hb[3][3] = {{0, 1, 2}, {1, 2, -1}, {2, -1, -1}};

	for (i = 0; i < 300; i++) {
		int k, better = 0, slot;

		ck_assert_int_eq(eb_ask(d, &j, x), DEHBQ_OK);
		loss[j.id] = eb_toy_loss(x, 2, 9);
		br[j.id] = j.bracket;
		rung[j.id] = j.rung;
		if (o == DEHB_OPT_SH)
			ck_assert_int_eq(j.level, j.rung);
		else
			ck_assert_int_eq(j.level, lv_hb[j.bracket % 3][j.rung]);
		if (j.rung == 0) {
			ck_assert_int_eq(j.kind, DEHB_KIND_RANDOM);
		} else {
			ck_assert_int_eq(j.kind, DEHB_KIND_PROMOTION);
			ck_assert_int_eq(br[j.parent_job], j.bracket);
			ck_assert_int_eq(rung[j.parent_job], j.rung - 1);
			/* exactly `slot` configs of that rung were better */
			slot = j.slot;
			for (k = 0; k < (int)j.id; k++)
				if (br[k] == j.bracket &&
				    rung[k] == j.rung - 1 &&
				    loss[k] < loss[j.parent_job])
					better++;
			ck_assert_int_eq(better, slot);
			ck_assert(loss[j.id] == loss[j.parent_job]);
		}
		ck_assert_int_eq(eb_tell(d, j.id, DEHB_OK, loss[j.id], 1),
				 DEHBQ_OK);
		n++;
	}
	ck_assert_int_eq(n, 300);
	eb_free(d);
}

START_TEST(test_dehb_sh_baseline_promotes_top_of_own_bracket)
{
	check_sh(DEHB_OPT_SH);
}
END_TEST

START_TEST(test_dehb_hyperband_baseline_cycles_brackets)
{
	check_sh(DEHB_OPT_HYPERBAND);
}
END_TEST

/* ---- quality ---- */

/*
 * Through optim.h: a snapshot whose books hold a job in flight that its
 * brackets do not (a rung moved) is refused at load, though hyperband
 * with the random searcher keeps no history; the snapshot as saved loads.
 */
START_TEST(test_dehb_books_and_brackets_agree_at_load)
{
	struct optim_setup u;
	struct optim *o, *back = NULL;
	struct optim_job j;
	struct jsonbuf b;
	char err[DEHBQ_ERRLEN];
	double x[2];
	cJSON *js, *fl;
	int i;

	memset(&u, 0, sizeof(u));
	u.dim = 2;
	u.min_fidelity = 1;
	u.max_fidelity = 9;
	u.eta = 3;
	u.seed = 4;
	ck_assert_int_eq(optim_open("hyperband", &u, &o, err), DEHBQ_OK);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(optim_ask(o, &j, x), DEHBQ_OK);
	jsonbuf_init(&b);
	ck_assert_int_eq(optim_save(o, &b), DEHBQ_OK);
	ck_assert_ptr_nonnull(js = cJSON_ParseWithLength(b.p, b.len));
	ck_assert_msg(optim_load(js, &u, "", 0, &back, err) == DEHBQ_OK, "%s",
		      err);
	optim_free(back);
	fl = cJSON_GetArrayItem(
		cJSON_GetObjectItem(cJSON_GetObjectItem(js, "books"),
				    "inflight"),
		2);
	cJSON_SetNumberValue(cJSON_GetObjectItem(fl, "rung"), 1);
	back = NULL;
	ck_assert_int_eq(optim_load(js, &u, "", 0, &back, err), DEHBQ_EINVAL);
	ck_assert_ptr_null(back);
	ck_assert_msg(strstr(err, "in flight"), "%s", err);
	cJSON_Delete(js);
	jsonbuf_free(&b);
	optim_free(o);
}
END_TEST

/* ---- limits ---- */

START_TEST(test_dehb_single_level_and_tiny_populations_work)
{
	struct dehb_params p;
	struct dehb *d;
	struct dehb_job j;
	double x[MAXD];
	int i;

	dehb_params_init(&p);
	p.min_fidelity = 2;
	p.max_fidelity = 3; /* one level, population of 1 */
	p.dim = 1;
	d = eb_mkp_with(&p, "{\"mutation\":\"rand2\"}");
	ck_assert_int_eq(dehb_levels(d), 1);
	for (i = 0; i < 50; i++) {
		ck_assert_int_eq(eb_step(d, &j, x), DEHBQ_OK);
		ck_assert(x[0] >= 0 && x[0] <= 1);
		ck_assert(j.fidelity == 3);
	}
	eb_free(d);
}
END_TEST

START_TEST(test_dehb_many_in_flight_then_all_told)
{
	struct dehb *d = eb_mk(DEHB_OPT_DEHB, 1, 27, 2, 9);
	struct dehb_job j;
	double x[MAXD];
	int i;

	for (i = 0; i < 3000; i++)
		ck_assert_int_eq(eb_ask(d, &j, x), DEHBQ_OK);
	ck_assert_int_eq(eb_inflight(d), 3000);
	ck_assert_int_gt(dehb_active_brackets(d), 10);
	for (i = 2999; i >= 0; i -= 2)
		ck_assert_int_eq(eb_tell(d, (uint64_t)i, DEHB_OK, i, 0),
				 DEHBQ_OK);
	for (i = 0; i < 3000; i += 2)
		ck_assert_int_eq(eb_tell(d, (uint64_t)i, DEHB_OK, i, 0),
				 DEHBQ_OK);
	ck_assert_int_eq(eb_inflight(d), 0);
	eb_free(d);
}
END_TEST

START_TEST(test_dehb_huge_populations_refused)
{
	struct dehb_params p;
	char err[DEHBQ_ERRLEN];
	double fid[8];
	int n;

	dehb_params_init(&p);
	p.min_fidelity = 1;
	p.max_fidelity = 1e12;
	p.eta = 10;
	ck_assert_int_eq(dehb_params_check(&p, err), DEHBQ_ETOOBIG);
	ck_assert_int_eq(dehb_fidelities(1, 27, 3, fid, 8, &n), DEHBQ_OK);
	ck_assert_int_eq(n, 4);
	ck_assert(fid[3] == 27);
	ck_assert_int_eq(dehb_fidelities(1, 27, 3, fid, 2, &n), DEHBQ_ETOOBIG);
}
END_TEST

/* ---- reopening failed jobs (dehbq requeue) ---- */

START_TEST(test_dehb_reopen_failed_job_then_tell_applies_selection)
{
	static const enum dehb_optimizer opts[] = {DEHB_OPT_DEHB, DEHB_OPT_SH,
						   DEHB_OPT_HYPERBAND};
	size_t k;

	for (k = 0; k < sizeof(opts) / sizeof(opts[0]); k++) {
		struct dehb *d = eb_mk(opts[k], 1, 9, 3, 11), *e;
		struct dehb_job j, first, back;
		int64_t told, failed, fl;
		double x[3], fx[3];
		char *st;
		int i;

		/* the first job fails; the rest succeed */
		ck_assert_int_eq(eb_ask(d, &first, fx), DEHBQ_OK);
		ck_assert_int_eq(eb_tell(d, first.id, DEHB_FAILED, NAN, 1),
				 DEHBQ_OK);
		for (i = 0; i < 30 && eb_step(d, &j, x) == DEHBQ_OK; i++)
			;
		/* refused: a job in flight, a job never asked */
		ck_assert_int_eq(eb_ask(d, &j, x), DEHBQ_OK);
		ck_assert_int_eq(eb_reopen(d, &j, x), DEHBQ_ESTATE);
		ck_assert_int_eq(eb_tell(d, j.id, DEHB_OK, 5, 1), DEHBQ_OK);
		j.id = 1000000;
		ck_assert_int_eq(eb_reopen(d, &j, x), DEHBQ_ENOENT);
		told = eb_told(d);
		failed = eb_failed(d);
		fl = eb_inflight(d);
		j = first;
		j.level = 2; /* not the job asked */
		ck_assert_int_eq(eb_reopen(d, &j, fx), DEHBQ_EINVAL);

		ck_assert_int_eq(eb_reopen(d, &first, fx), DEHBQ_OK);
		ck_assert_int_eq(eb_told(d), told - 1);
		ck_assert_int_eq(eb_failed(d), failed - 1);
		ck_assert_int_eq(eb_inflight(d), fl + 1);
		ck_assert_int_eq(eb_reopen(d, &first, fx), DEHBQ_ESTATE);
		ck_assert_int_eq(eb_get(d, first.id, &back, NULL), 0);
		ck_assert(back.fidelity == first.fidelity);

		/* survives save/load, then the new result is the best */
		e = eb_reload(d);
		eb_free(d);
		ck_assert_int_eq(eb_tell(e, first.id, DEHB_OK, -100, 1),
				 DEHBQ_OK);
		ck_assert_int_eq(eb_tell(e, first.id, DEHB_OK, -100, 1),
				 DEHBQ_ESTATE);
		ck_assert_int_eq(eb_told(e), told);
		ck_assert_int_eq(eb_failed(e), failed - 1);
		/* DEHB: the searcher's best is the new result */
		st = eb_save_text(e);
		ck_assert_msg(opts[k] != DEHB_OPT_DEHB ||
				      strstr(st, "\"best\":{\"job\":0,"
						 "\"loss\":[-100]"),
			      "%s", st);
		free(st);
		eb_free(e);
	}
}
END_TEST

Suite *dehb_suite(void)
{
	Suite *s = suite_create("dehb");
	TCase *core = tcase_create("core");
	TCase *errors = tcase_create("errors");
	TCase *limits = tcase_create("limits");

	tcase_set_timeout(core, 60);
	tcase_add_test(core, test_dehb_sequential_trace_matches_spec_5_7);
	tcase_add_test(core,
		       test_dehb_job_ids_sequential_and_vectors_in_unit_cube);
	tcase_add_test(core,
		       test_dehb_same_seed_same_state_different_seed_differs);
	tcase_add_test(core, test_dehb_out_of_order_tells_and_selection);
	tcase_add_test(core,
		       test_dehb_reopen_failed_job_then_tell_applies_selection);
	tcase_add_test(core, test_dehb_no_double_promotion_with_jobs_in_flight);
	tcase_add_test(
		core,
		test_dehb_promotion_falls_back_to_trial_when_nothing_evaluated);
	tcase_add_test(core, test_dehb_max_brackets_blocks_then_done);
	tcase_add_test(core, test_dehb_max_active_brackets_returns_eagain);
	tcase_add_test(core, test_dehb_save_load_continue_equals_continue);
	tcase_add_test(core, test_dehb_sh_baseline_promotes_top_of_own_bracket);
	tcase_add_test(core, test_dehb_hyperband_baseline_cycles_brackets);
	tcase_add_test(errors,
		       test_dehb_tell_twice_or_unknown_refused_unchanged);
	tcase_add_test(errors, test_dehb_replayed_jobs_must_be_the_brackets);
	tcase_add_test(errors, test_dehb_books_and_brackets_agree_at_load);
	tcase_add_test(errors, test_dehb_params_check_names_the_field);
	tcase_add_test(errors, test_dehb_enum_names_round_trip);
	tcase_add_loop_test(errors, test_dehb_load_refuses_bad_snapshots, 0,
			    (int)(sizeof(bad_edits) / sizeof(bad_edits[0])));
	tcase_add_test(limits,
		       test_dehb_single_level_and_tiny_populations_work);
	tcase_add_test(limits, test_dehb_many_in_flight_then_all_told);
	tcase_add_test(limits, test_dehb_huge_populations_refused);
	suite_add_tcase(s, core);
	suite_add_tcase(s, errors);
	suite_add_tcase(s, limits);
	return s;
}
