/*
 * check_forest.c - the regression forest's fANOVA (optim/models/forest.h)
 * on functions whose decomposition is known: one dimension alone, an
 * additive function (the main effects sum to the whole variance), a pure
 * interaction (no main effect), a constant; determinism; refused input
 */
#include "err.h"
#include "forest.h"
#include "rng.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>

#define N 400

static double x[N * 3], y[N];

/* N points uniform in the unit cube of dim dimensions, seeded. */
static void points(int dim, uint64_t seed)
{
	struct rng r;
	int i;

	rng_seed(&r, seed);
	for (i = 0; i < N * dim; i++)
		x[i] = rng_uniform(&r);
}

static void importance(int dim, double *mean, double *sd, int *used)
{
	struct forest_opts o = {64, 64, 7};

	ck_assert_int_eq(forest_importance(x, y, N, dim, &o, mean, sd, used),
			 DEHBQ_OK);
}

START_TEST(test_forest_one_dimension_explains_all)
{
	double mean[3], sd[3];
	int i, used;

	points(3, 1);
	for (i = 0; i < N; i++)
		y[i] = sin(6 * x[i * 3 + 1]);
	importance(3, mean, sd, &used);
	ck_assert_int_eq(used, 64);
	ck_assert_msg(mean[1] > 0.95, "x1: %g", mean[1]);
	ck_assert_msg(mean[0] < 0.02 && mean[2] < 0.02, "x0 %g x2 %g", mean[0],
		      mean[2]);
	ck_assert(sd[1] >= 0 && sd[1] < 0.05);
}
END_TEST

/* y = 3 x0 + x1^2: Var(3 x0) = 0.75, Var(x1^2) = 4/45; no interaction. */
START_TEST(test_forest_additive_main_effects_sum_to_one)
{
	double mean[2], sd[2], want0 = 0.75 / (0.75 + 4.0 / 45);
	int i, used;

	points(2, 2);
	for (i = 0; i < N; i++)
		y[i] = 3 * x[i * 2] + x[i * 2 + 1] * x[i * 2 + 1];
	importance(2, mean, sd, &used);
	ck_assert_msg(mean[0] + mean[1] > 0.9, "sum %g", mean[0] + mean[1]);
	ck_assert_msg(mean[0] + mean[1] <= 1 + 1e-12, "sum %g",
		      mean[0] + mean[1]);
	ck_assert_msg(fabs(mean[0] - want0) < 0.06, "x0 %g, want %g", mean[0],
		      want0);
}
END_TEST

/* XOR of the two halves: all variance is interaction. */
START_TEST(test_forest_pure_interaction_has_no_main_effect)
{
	double mean[2], sd[2];
	int i, used;

	points(2, 3);
	for (i = 0; i < N; i++)
		y[i] = (x[i * 2] > 0.5) != (x[i * 2 + 1] > 0.5);
	importance(2, mean, sd, &used);
	ck_assert_msg(mean[0] < 0.1 && mean[1] < 0.1, "x0 %g x1 %g", mean[0],
		      mean[1]);
}
END_TEST

START_TEST(test_forest_constant_and_determinism)
{
	double m1[3], s1[3], m2[3], s2[3];
	struct forest_opts o = {16, 64, 5};
	int i, used;

	points(3, 4);
	for (i = 0; i < N; i++)
		y[i] = 2.5;
	importance(3, m1, s1, &used);
	ck_assert_int_eq(used, 0);
	ck_assert(m1[0] == 0 && m1[1] == 0 && m1[2] == 0);
	for (i = 0; i < N; i++)
		y[i] = x[i * 3] * x[i * 3 + 2] + x[i * 3 + 1];
	ck_assert_int_eq(forest_importance(x, y, N, 3, &o, m1, s1, &used),
			 DEHBQ_OK);
	ck_assert_int_eq(forest_importance(x, y, N, 3, &o, m2, s2, &used),
			 DEHBQ_OK);
	for (i = 0; i < 3; i++)
		ck_assert(m1[i] == m2[i] && s1[i] == s2[i]);
}
END_TEST

/* A large offset in the loss changes nothing (the scores keep their
 * precision); two neighbouring doubles still split (the midpoint would
 * round up to the larger and leave one side empty). */
START_TEST(test_forest_offset_and_neighbours)
{
	struct forest_opts o = {16, 64, 3};
	double mean[3], sd[3], px[4], py[2];
	int i, used;

	points(3, 1);
	for (i = 0; i < N; i++)
		y[i] = 1e9 + sin(6 * x[i * 3 + 1]);
	importance(3, mean, sd, &used);
	ck_assert_msg(mean[1] > 0.95 && mean[0] < 0.02, "x0 %g x1 %g", mean[0],
		      mean[1]);
	px[0] = nextafter(0.5, 1); /* an odd mantissa: the midpoint rounds
				      to the even neighbour above */
	px[1] = 0.25;
	px[2] = nextafter(px[0], 1);
	px[3] = 0.25;
	py[0] = 0;
	py[1] = 1;
	ck_assert_int_eq(forest_importance(px, py, 2, 2, &o, mean, sd, &used),
			 DEHBQ_OK);
	ck_assert_msg(used > 0 && mean[0] > 0.99 && mean[1] == 0,
		      "used %d x0 %g x1 %g", used, mean[0], mean[1]);
}
END_TEST

START_TEST(test_forest_refuses_bad_input)
{
	struct forest_opts o = {4, 8, 1}, bad = {0, 8, 1};
	double m[3], s[3];
	int used;

	points(3, 5);
	y[0] = y[1] = 1;
	ck_assert_int_eq(forest_importance(x, y, 1, 3, &o, m, s, &used),
			 DEHBQ_EINVAL);
	ck_assert_int_eq(forest_importance(x, y, 2, 3, &bad, m, s, &used),
			 DEHBQ_EINVAL);
	y[1] = NAN;
	ck_assert_int_eq(forest_importance(x, y, 2, 3, &o, m, s, &used),
			 DEHBQ_EINVAL);
	y[1] = 1;
	x[4] = 1.5;
	ck_assert_int_eq(forest_importance(x, y, 2, 3, &o, m, s, &used),
			 DEHBQ_EINVAL);
}
END_TEST

Suite *forest_suite(void)
{
	Suite *s = suite_create("forest");
	TCase *tc = tcase_create("fanova");

	tcase_add_test(tc, test_forest_one_dimension_explains_all);
	tcase_add_test(tc, test_forest_additive_main_effects_sum_to_one);
	tcase_add_test(tc, test_forest_pure_interaction_has_no_main_effect);
	tcase_add_test(tc, test_forest_constant_and_determinism);
	tcase_add_test(tc, test_forest_offset_and_neighbours);
	tcase_add_test(tc, test_forest_refuses_bad_input);
	suite_add_tcase(s, tc);
	return s;
}
