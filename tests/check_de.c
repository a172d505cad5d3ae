/*
 * check_de.c - DE operators: donor sampling, mutation formulas,
 * crossover semantics, boundary repair; and the de searcher's levels
 * (its equality with the engine's DE is check_preset's)
 */
#include "de.h"
#include "err.h"
#include "jsonbuf.h"
#include "rng.h"
#include "searcher.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
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
	suite_add_tcase(s, core);
	suite_add_tcase(s, errors);
	suite_add_tcase(s, limits);
	return s;
}
