/*
 * check_de.c - DE operators: donor sampling, mutation formulas,
 * crossover semantics, boundary repair; the de searcher's levels; and
 * the de preset (the searcher under fifo), which reads the snapshots of
 * 0.4's de (the DEHB engine's)
 */
#include "de.h"
#include "err.h"
#include "jsonbuf.h"
#include "optim.h"
#include "rng.h"
#include "searcher.h"
#include "testutil.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_de_sample_distinct_draws_unique_in_range)
{
	struct rng r;
	int out[5], i, j, t, hist[6] = {0};

	rng_seed(&r, 1);
	for (t = 0; t < 2000; t++) {
		ck_assert_int_eq(de_sample_distinct(&r, 6, 5, out), DEHBQ_OK);
		for (i = 0; i < 5; i++) {
			ck_assert(out[i] >= 0 && out[i] < 6);
			for (j = 0; j < i; j++)
				ck_assert_int_ne(out[i], out[j]);
			hist[out[i]]++;
		}
	}
	for (i = 0; i < 6; i++)
		ck_assert_int_gt(hist[i], 1500); /* ~1667 each */
	ck_assert_int_eq(de_sample_distinct(&r, 3, 3, out), DEHBQ_OK);
	ck_assert_int_eq(out[0] + out[1] + out[2], 3);
}
END_TEST

START_TEST(test_de_mutation_formulas)
{
	double a[2] = {0.1, 0.2}, b[2] = {0.5, 0.4}, c[2] = {0.3, 0.3};
	double e[2] = {0.9, 0.0}, f[2] = {0.2, 0.6};
	double best[2] = {1, 1}, cur[2] = {0, 0.5}, m[2];
	const double *don[5] = {a, b, c, e, f};

	de_mutate(DE_MUT_RAND1, 0.5, 2, don, best, cur, m);
	ck_assert_double_eq_tol(m[0], 0.1 + 0.5 * (0.5 - 0.3), 1e-15);
	ck_assert_double_eq_tol(m[1], 0.2 + 0.5 * (0.4 - 0.3), 1e-15);
	de_mutate(DE_MUT_RAND2, 0.5, 2, don, best, cur, m);
	ck_assert_double_eq_tol(m[0], 0.1 + 0.5 * 0.2 + 0.5 * 0.7, 1e-15);
	de_mutate(DE_MUT_BEST1, 0.5, 2, don, best, cur, m);
	ck_assert_double_eq_tol(m[0], 1 + 0.5 * (0.1 - 0.5), 1e-15);
	de_mutate(DE_MUT_CURRENTTOBEST1, 0.5, 2, don, best, cur, m);
	ck_assert_double_eq_tol(m[1], 0.5 + 0.5 * 0.5 + 0.5 * (0.2 - 0.4),
				1e-15);
	de_mutate(DE_MUT_RANDTOBEST1, 0.5, 2, don, best, cur, m);
	ck_assert_double_eq_tol(m[0], 0.1 + 0.5 * 0.9 + 0.5 * 0.2, 1e-15);
	ck_assert_int_eq(de_donors_needed(DE_MUT_RAND1), 3);
	ck_assert_int_eq(de_donors_needed(DE_MUT_RAND2), 5);
	ck_assert_int_eq(de_donors_needed(DE_MUT_BEST1), 2);
	ck_assert_int_eq(de_donors_needed(DE_MUT_CURRENTTOBEST1), 2);
	ck_assert_int_eq(de_donors_needed(DE_MUT_RANDTOBEST1), 3);
}
END_TEST

START_TEST(test_de_bin_crossover_forces_one_mutant_gene)
{
	double t[8] = {0}, m[8] = {1, 1, 1, 1, 1, 1, 1, 1}, out[8];
	struct rng r;
	int i, k, ones;

	rng_seed(&r, 3);
	for (k = 0; k < 100; k++) {
		de_crossover(DE_CX_BIN, &r, 8, 0.0, t, m, out);
		for (ones = 0, i = 0; i < 8; i++)
			ones += out[i] == 1;
		ck_assert_int_eq(ones, 1);
	}
	de_crossover(DE_CX_BIN, &r, 8, 1.0, t, m, out);
	for (i = 0; i < 8; i++)
		ck_assert(out[i] == 1);
}
END_TEST

START_TEST(test_de_exp_crossover_copies_contiguous_run_not_target)
{
	double t[8] = {0}, m[8] = {1, 1, 1, 1, 1, 1, 1, 1}, out[8];
	double keep[8];
	struct rng r;
	int i, k;

	memcpy(keep, t, sizeof(t));
	rng_seed(&r, 4);
	de_crossover(DE_CX_EXP, &r, 8, 0.0, t, m, out);
	for (i = 0; i < 8; i++)
		ck_assert(out[i] == 0); /* reference: no forced gene */
	de_crossover(DE_CX_EXP, &r, 8, 1.0, t, m, out);
	for (i = 0; i < 8; i++)
		ck_assert(out[i] == 1);
	for (k = 0; k < 200; k++) {
		int runs = 0;

		de_crossover(DE_CX_EXP, &r, 8, 0.5, t, m, out);
		for (i = 0; i < 8; i++)
			runs += out[i] == 1 && out[(i + 7) % 8] == 0;
		ck_assert_int_le(runs, 1); /* one cyclic run of mutant genes */
	}
	ck_assert_mem_eq(t, keep, sizeof(t)); /* target never written */
}
END_TEST

START_TEST(test_de_repair_random_and_clip)
{
	double x[4] = {-0.5, 0.0, 1.0, 1.5}, y[4];
	struct rng r;

	rng_seed(&r, 5);
	memcpy(y, x, sizeof(x));
	de_repair(DE_BOUND_CLIP, &r, 4, y);
	ck_assert(y[0] == 0 && y[1] == 0 && y[2] == 1 && y[3] == 1);
	memcpy(y, x, sizeof(x));
	de_repair(DE_BOUND_RANDOM, &r, 4, y);
	ck_assert(y[0] >= 0 && y[0] < 1 && y[3] >= 0 && y[3] < 1);
	ck_assert(y[1] == 0.0 && y[2] == 1.0); /* legal values untouched */
}
END_TEST

START_TEST(test_de_sample_distinct_refuses_too_few)
{
	struct rng r;
	int out[5];

	rng_seed(&r, 6);
	ck_assert_int_eq(de_sample_distinct(&r, 2, 3, out), DEHBQ_EINVAL);
	ck_assert_int_eq(de_sample_distinct(&r, 0, 1, out), DEHBQ_EINVAL);
	ck_assert_int_eq(de_sample_distinct(&r, 0, 0, out), DEHBQ_OK);
}
END_TEST

START_TEST(test_de_operators_handle_dim_one)
{
	double t[1] = {0.25}, m[1] = {3.0}, out[1];
	struct rng r;

	rng_seed(&r, 7);
	de_crossover(DE_CX_BIN, &r, 1, 0.0, t, m, out);
	ck_assert(out[0] == 3.0);
	de_repair(DE_BOUND_RANDOM, &r, 1, out);
	ck_assert(out[0] >= 0 && out[0] < 1);
}
END_TEST

/* A de searcher over the ladder 1, 3, 9 in 2 dimensions. */
static void *de_open(const char *settings)
{
	static const double ladder[3] = {1, 3, 9};
	const struct search_ops *so = search_find("de");
	struct search_setup u;
	char err[DEHBQ_ERRLEN];
	cJSON *j = cJSON_Parse(settings);
	void *st = NULL;

	memset(&u, 0, sizeof(u));
	u.dim = 2;
	u.seed = 17;
	u.min_fidelity = 1;
	u.max_fidelity = 9;
	u.settings = j;
	u.ladder = ladder;
	u.levels = 3;
	u.rungs = 1;
	ck_assert_ptr_nonnull(so);
	ck_assert_msg(so->open(&u, &st, err) == DEHBQ_OK, "%s", err);
	cJSON_Delete(j);
	return st;
}

/*
 * A proposal's donors come from the highest level whose members all hold
 * a result: jobs issued at level 9 that it did not propose (promotions)
 * fill that level's slots in turn, and once all four hold (0.05, 0.05),
 * a trial at level 1 with CR 1 is exactly that point; before, its donors
 * are level 1's own.  A later promotion competes for the next slot.
 */
START_TEST(test_de_searcher_learns_from_the_highest_full_level)
{
	const struct search_ops *so = search_find("de");
	void *st = de_open("{\"population_size\":4,\"crossover_prob\":1,"
			   "\"boundary\":\"clip\"}");
	static const double good[2] = {0.05, 0.05}, better[2] = {0.5, 0.5};
	double x[2];
	enum trial_kind kind;
	struct jsonbuf b;
	cJSON *saved, *lv;
	int i;

	for (i = 0; i < 4; i++) { /* level 1: its initial members */
		ck_assert_int_eq(so->propose(st, 1, x, &kind), DEHBQ_OK);
		ck_assert_int_eq(kind, TRIAL_KIND_RANDOM);
		ck_assert_int_eq(so->issued(st, i, x, 1), DEHBQ_OK);
		ck_assert_int_eq(so->observe(st, i, x, 1, 1.0 + i), DEHBQ_OK);
	}
	for (i = 0; i < 4; i++) { /* level 9: four promotions */
		ck_assert_int_eq(so->issued(st, 100 + i, good, 9), DEHBQ_OK);
		if (i < 3)
			ck_assert_int_eq(so->observe(st, 100 + i, good, 9, 0.1),
					 DEHBQ_OK);
	}
	ck_assert_int_eq(so->propose(st, 1, x, &kind), DEHBQ_OK);
	ck_assert_int_eq(kind, TRIAL_KIND_TRIAL);
	ck_assert(x[0] != 0.05 || x[1] != 0.05); /* level 1's donors */
	ck_assert_int_eq(so->issued(st, 4, x, 1), DEHBQ_OK);
	ck_assert_int_eq(so->observe(st, 103, good, 9, 0.1), DEHBQ_OK);
	ck_assert_int_eq(so->propose(st, 1, x, &kind), DEHBQ_OK);
	ck_assert_int_eq(kind, TRIAL_KIND_TRIAL);
	ck_assert(x[0] == 0.05 && x[1] == 0.05); /* level 9's */
	ck_assert_int_eq(so->issued(st, 5, x, 1), DEHBQ_OK);
	/* the fifth promotion takes slot 0 of level 9 and wins it */
	ck_assert_int_eq(so->issued(st, 104, better, 9), DEHBQ_OK);
	ck_assert_int_eq(so->observe(st, 104, better, 9, 0.01), DEHBQ_OK);
	jsonbuf_init(&b);
	ck_assert_int_eq(so->save(st, &b), DEHBQ_OK);
	ck_assert_ptr_nonnull(saved = cJSON_ParseWithLength(b.p, b.len));
	lv = cJSON_GetArrayItem(cJSON_GetObjectItem(saved, "level"), 2);
	ck_assert_int_eq(
		cJSON_GetArrayItem(cJSON_GetObjectItem(lv, "job"), 0)->valueint,
		104);
	ck_assert_int_eq(
		cJSON_GetArrayItem(cJSON_GetObjectItem(lv, "job"), 1)->valueint,
		101);
	/* jobs 4 and 5 are still in flight, and saved */
	ck_assert_int_eq(
		cJSON_GetArraySize(cJSON_GetObjectItem(saved, "inflight")), 2);
	cJSON_Delete(saved);
	jsonbuf_free(&b);
	so->free(st);
}
END_TEST

/* A de preset of population `pop` in 4 dimensions over 1..27 (eta 3). */
static struct optim *de_preset(const char *settings, struct optim_setup *u,
			       cJSON **keep)
{
	char err[DEHBQ_ERRLEN];
	struct optim *o;

	memset(u, 0, sizeof(*u));
	u->dim = 4;
	u->min_fidelity = 1;
	u->max_fidelity = 27;
	u->eta = 3;
	u->seed = 3;
	u->lim.fevals = 1000;
	u->settings = *keep = cJSON_Parse(settings);
	ck_assert_msg(optim_open("de", u, &o, err) == DEHBQ_OK, "%s", err);
	return o;
}

/* The initial population at the maximum fidelity, then DE trials; 0.4's
 * setting name de_pop_size is the searcher's population_size. */
START_TEST(test_de_preset_population_then_trials)
{
	struct optim_setup u;
	struct optim_job j;
	cJSON *in, *out = NULL, *twice;
	char err[DEHBQ_ERRLEN];
	double x[4];
	struct optim *o = de_preset("{\"de_pop_size\":6}", &u, &in);
	int i;

	for (i = 0; i < 40; i++) {
		ck_assert_int_eq(optim_ask(o, &j, x), DEHBQ_OK);
		ck_assert_int_eq(j.kind,
				 i < 6 ? OPTIM_KIND_RANDOM : OPTIM_KIND_TRIAL);
		ck_assert(j.fidelity == 27);
		ck_assert_int_eq(j.bracket, (int64_t)j.id);
		ck_assert_str_eq(j.state, "");
		ck_assert_int_eq(optim_tell(o, j.id, OPTIM_OK, x[0], 1),
				 DEHBQ_OK);
	}
	ck_assert_int_eq(optim_settings("de", in, &out, err), DEHBQ_OK);
	ck_assert_int_eq(cJSON_GetObjectItem(out, "population_size")->valueint,
			 6);
	ck_assert_ptr_null(cJSON_GetObjectItem(out, "de_pop_size"));
	cJSON_Delete(out);
	out = NULL;
	twice = cJSON_Parse("{\"de_pop_size\":6,\"population_size\":6}");
	ck_assert_int_eq(optim_settings("de", twice, &out, err), DEHBQ_EINVAL);
	ck_assert_msg(strstr(err, "population_size") &&
			      strstr(err, "de_pop_size"),
		      "%s", err);
	cJSON_Delete(twice);
	cJSON_Delete(out);
	cJSON_Delete(in);
	optim_free(o);
}
END_TEST

/* A failure never takes a member's place from a result: population 4
 * told 1, 2, 3, 4, then 30 failed trials; the best stays job 0's. */
START_TEST(test_de_preset_failures_never_enter_population)
{
	struct optim_setup u;
	struct optim_job j;
	struct optim_best best;
	struct jsonbuf b;
	cJSON *in;
	double x[4];
	struct optim *o = de_preset("{\"population_size\":4}", &u, &in);
	int i;

	for (i = 0; i < 34; i++) {
		ck_assert_int_eq(optim_ask(o, &j, x), DEHBQ_OK);
		ck_assert_int_eq(optim_tell(o, j.id,
					    i < 4 ? OPTIM_OK : OPTIM_FAILED,
					    1.0 + i, 1),
				 DEHBQ_OK);
	}
	jsonbuf_init(&b);
	ck_assert_int_eq(optim_save(o, &b), DEHBQ_OK);
	ck_assert_ptr_nonnull(strstr(b.p, "\"fit\":[1,2,3,4]"));
	ck_assert_int_eq(optim_best(o, OPTIM_BEST_ANY, &best, x), DEHBQ_OK);
	ck_assert(best.loss == 1.0);
	ck_assert_uint_eq(best.job_id, 0);
	jsonbuf_free(&b);
	cJSON_Delete(in);
	optim_free(o);
}
END_TEST

/*
 * A frozen 0.4 study (tests/data/frozen/NAME.json: dim 3, fidelities 1
 * to 27, eta 3, seed 31) loaded, its jobs in flight told, one job asked
 * into *j, and the next save parsed into *saved's "state" (returned).
 * The caller frees *saved, and *all and *text (the frozen file: its
 * snapshot is *snap).
 */
static cJSON *load_frozen_and_tell(const char *name, cJSON **all, cJSON **snap,
				   char **text, struct optim_setup *u,
				   struct optim_job *j, cJSON **saved)
{
	struct optim *o;
	struct jsonbuf b;
	char err[DEHBQ_ERRLEN], path[4096];
	double x[3];
	cJSON *fl;
	int i, n;

	snprintf(path, sizeof(path), "%s/frozen/%s.json", tu_datadir(), name);
	*all = cJSON_Parse(*text = tu_read(path, NULL));
	ck_assert_ptr_nonnull(*all);
	*snap = cJSON_GetObjectItem(*all, "snapshot");
	memset(u, 0, sizeof(*u));
	u->dim = 3;
	u->min_fidelity = 1;
	u->max_fidelity = 27;
	u->eta = 3;
	u->seed = 31;
	ck_assert_msg(optim_load(*snap, u, "", 0, &o, err) == DEHBQ_OK, "%s",
		      err);
	fl = cJSON_GetObjectItem(cJSON_GetObjectItem(*snap, "books"),
				 "inflight");
	n = cJSON_GetArraySize(fl);
	ck_assert_int_gt(n, 0);
	for (i = 0; i < n; i++) {
		uint64_t id = (uint64_t)cJSON_GetObjectItem(
				      cJSON_GetArrayItem(fl, i), "id")
				      ->valuedouble;

		ck_assert_int_eq(optim_tell(o, id, OPTIM_OK, 0.5, 27),
				 DEHBQ_OK);
	}
	ck_assert_int_eq(optim_ask(o, j, x), DEHBQ_OK);
	jsonbuf_init(&b);
	ck_assert_int_eq(optim_save(o, &b), DEHBQ_OK);
	ck_assert_ptr_nonnull(*saved = cJSON_ParseWithLength(b.p, b.len));
	jsonbuf_free(&b);
	optim_free(o);
	return cJSON_GetObjectItem(*saved, "state");
}

/*
 * 0.4's de ran on the DEHB engine, and its snapshot is the engine's
 * (tests/data/frozen/v004.json): the de preset reads it as the searcher's
 * (its population, rolling target, stream, best and jobs in flight), the
 * jobs in flight keep their engine state and are told, and the next save
 * is the searcher's.  Its jobs asked after the load are the old build's
 * (check_frozen); a state whose jobs in flight are not at the top level
 * is refused with the field named.
 */
START_TEST(test_de_preset_reads_the_engines_snapshot)
{
	struct optim_setup u;
	struct optim *o;
	struct optim_job j;
	char err[DEHBQ_ERRLEN];
	char *text;
	cJSON *all, *snap, *saved, *st;

	st = load_frozen_and_tell("v004", &all, &snap, &text, &u, &j, &saved);
	ck_assert_int_eq(j.kind, OPTIM_KIND_TRIAL);
	ck_assert_str_eq(cJSON_GetObjectItem(st, "searcher")->valuestring,
			 "de");
	ck_assert_int_eq(
		cJSON_GetArraySize(cJSON_GetObjectItem(
			cJSON_GetArrayItem(
				cJSON_GetObjectItem(
					cJSON_GetObjectItem(st, "search"),
					"level"),
				0),
			"fit")),
		20);
	cJSON_Delete(saved);
	/* a job in flight below the top level: not 0.4's de */
	cJSON_SetNumberValue(
		cJSON_GetObjectItem(
			cJSON_GetArrayItem(
				cJSON_GetObjectItem(
					cJSON_GetObjectItem(snap, "state"),
					"inflight"),
				0),
			"level"),
		2);
	ck_assert_int_eq(optim_load(snap, &u, "", 0, &o, err), DEHBQ_EINVAL);
	ck_assert_msg(strstr(err, "level"), "%s", err);
	cJSON_Delete(all);
	free(text);
}
END_TEST

/*
 * 0.4's dehb saved the engine's state alone, its subpopulations in it:
 * it loads as the engine's brackets and the de searcher's populations
 * (their configuration ids too), and the next save is the new layout.
 * The same state under fifo, which the searcher does not fill, is
 * refused with one line.
 */
START_TEST(test_dehb_preset_reads_the_engines_snapshot)
{
	struct optim_setup u;
	struct optim_job j;
	char err[DEHBQ_ERRLEN];
	char *text;
	cJSON *all, *snap, *saved, *st, *lv;
	static const int sizes[] = {27, 9, 6, 4}; /* DEHB's, eta 3 */
	void *ss = NULL;
	int i;

	st = load_frozen_and_tell("v029", &all, &snap, &text, &u, &j, &saved);
	/* the slot and configuration are the searcher's */
	ck_assert_msg(!strncmp(j.state, "{\"level\":", 9) &&
			      !strstr(j.state, "slot"),
		      "%s", j.state);
	ck_assert_ptr_null(
		cJSON_GetObjectItem(cJSON_GetObjectItem(st, "engine"), "pops"));
	ck_assert_str_eq(cJSON_GetObjectItem(st, "searcher")->valuestring,
			 "de");
	lv = cJSON_GetObjectItem(cJSON_GetObjectItem(st, "search"), "level");
	ck_assert_int_eq(cJSON_GetArraySize(lv), 4);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(
			cJSON_GetArraySize(cJSON_GetObjectItem(
				cJSON_GetArrayItem(lv, i), "config_id")),
			sizes[i]);
	cJSON_Delete(saved);
	/* the engine's dehb state for a searcher that fills nothing */
	{
		struct search_setup s;
		double lad[1] = {27};

		memset(&s, 0, sizeof(s));
		s.dim = 3;
		s.seed = 31;
		s.ladder = lad;
		s.levels = 1;
		ck_assert_int_eq(search_find("de")->load(
					 &s, cJSON_GetObjectItem(snap, "state"),
					 &ss, err),
				 DEHBQ_EINVAL);
		ck_assert_ptr_null(ss);
		ck_assert_msg(strstr(err, "dehb"), "%s", err);
	}
	cJSON_Delete(all);
	free(text);
}
END_TEST

/*
 * hyperband's promotion "searcher" takes a searcher that can fill every
 * rung (de), and refuses any other in one line naming the two; sh has no
 * such setting; de asked to fill what it was not opened for refuses.
 */
START_TEST(test_promotion_searcher_needs_a_searcher_that_fills)
{
	static const char *const bad[][2] = {
		{"hyperband", "{\"promotion\":\"searcher\",\"searcher\":"
			      "\"tpe\"}"},
		{"hyperband", "{\"promotion\":\"best\"}"},
		{"sh", "{\"promotion\":\"searcher\",\"searcher\":\"de\"}"},
	};
	static const char *const want[] = {"tpe", "promotion", "promotion"};
	struct optim_setup u;
	struct optim *o = NULL;
	struct search_at at = {27, 0, 1, 9};
	enum trial_kind kind;
	int64_t parent;
	char err[DEHBQ_ERRLEN];
	double x[3];
	void *ss;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&u, 0, sizeof(u));
		u.dim = 3;
		u.min_fidelity = 1;
		u.max_fidelity = 27;
		u.eta = 3;
		u.seed = 5;
		u.settings = cJSON_Parse(bad[i][1]);
		err[0] = 0;
		ck_assert_int_eq(optim_open(bad[i][0], &u, &o, err),
				 DEHBQ_EINVAL);
		ck_assert_msg(strstr(err, want[i]) && !strchr(err, '\n'), "%s",
			      err);
		if (i == 0)
			ck_assert_msg(strstr(err, "de"), "%s", err);
		cJSON_Delete((cJSON *)u.settings);
	}
	{
		struct search_setup s;
		double lad[1] = {27};

		memset(&s, 0, sizeof(s));
		s.dim = 3;
		s.seed = 5;
		s.ladder = lad;
		s.levels = 1;
		ck_assert_int_eq(search_find("de")->open(&s, &ss, err),
				 DEHBQ_OK);
		ck_assert_int_eq(search_find("de")->propose_at(ss, &at, x,
							       &kind, &parent),
				 DEHBQ_EINVAL);
		search_find("de")->free(ss);
	}
}
END_TEST

/* Populations beyond the limits are refused in one line naming the
 * field: DEHB's (dim, when filling) and population_size otherwise. */
START_TEST(test_de_huge_populations_refused_naming_the_field)
{
	const struct search_ops *so = search_find("de");
	struct search_setup s;
	double lad[17];
	char err[DEHBQ_ERRLEN];
	cJSON *set = cJSON_Parse("{\"population_size\":100000}");
	void *ss = NULL;
	int k;

	memset(&s, 0, sizeof(s));
	for (k = 0; k < 17; k++)
		lad[k] = ldexp(1, k);
	s.dim = 4096;
	s.seed = 1;
	s.min_fidelity = 1;
	s.max_fidelity = lad[16];
	s.eta = 2;
	s.ladder = lad;
	s.levels = 17;
	s.rungs = 1;
	s.fills = 1;
	ck_assert_int_eq(so->open(&s, &ss, err), DEHBQ_ETOOBIG);
	ck_assert_ptr_null(ss);
	ck_assert_msg(!strncmp(err, "dim:", 4) && !strchr(err, '\n'), "%s",
		      err);
	s.fills = 0;
	s.levels = 1;
	s.ladder = &lad[16];
	s.dim = 1000;
	s.settings = set;
	ck_assert_int_eq(so->open(&s, &ss, err), DEHBQ_ETOOBIG);
	ck_assert_msg(!strncmp(err, "population_size:", 16), "%s", err);
	s.dim = 10; /* 10^6 cells: fits */
	ck_assert_msg(so->open(&s, &ss, err) == DEHBQ_OK, "%s", err);
	so->free(ss);
	cJSON_Delete(set);
}
END_TEST

/* Its settings are refused with the field named. */
START_TEST(test_de_searcher_settings_name_the_field)
{
	const struct search_ops *so = search_find("de");
	char err[DEHBQ_ERRLEN];
	cJSON *j = cJSON_Parse("{\"population_size\":3}");

	ck_assert_int_eq(search_settings(so, j, NULL, err), DEHBQ_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "population_size"));
	cJSON_Delete(j);
	j = cJSON_Parse("{\"mutation\":\"rand9\"}");
	ck_assert_int_eq(search_settings(so, j, NULL, err), DEHBQ_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "mutation"));
	cJSON_Delete(j);
}
END_TEST

Suite *de_suite(void)
{
	Suite *s = suite_create("de");
	TCase *core = tcase_create("core");
	TCase *errors = tcase_create("errors");
	TCase *limits = tcase_create("limits");

	tcase_add_test(core, test_de_sample_distinct_draws_unique_in_range);
	tcase_add_test(core, test_de_mutation_formulas);
	tcase_add_test(core, test_de_bin_crossover_forces_one_mutant_gene);
	tcase_add_test(core,
		       test_de_exp_crossover_copies_contiguous_run_not_target);
	tcase_add_test(core, test_de_repair_random_and_clip);
	tcase_add_test(errors, test_de_sample_distinct_refuses_too_few);
	tcase_add_test(limits, test_de_operators_handle_dim_one);
	tcase_add_test(core,
		       test_de_searcher_learns_from_the_highest_full_level);
	tcase_add_test(errors, test_de_searcher_settings_name_the_field);
	tcase_add_test(limits,
		       test_de_huge_populations_refused_naming_the_field);
	tcase_add_test(core, test_de_preset_population_then_trials);
	tcase_add_test(core, test_de_preset_failures_never_enter_population);
	tcase_add_test(core, test_de_preset_reads_the_engines_snapshot);
	tcase_add_test(core, test_dehb_preset_reads_the_engines_snapshot);
	tcase_add_test(errors,
		       test_promotion_searcher_needs_a_searcher_that_fills);
	suite_add_tcase(s, core);
	suite_add_tcase(s, errors);
	suite_add_tcase(s, limits);
	return s;
}
