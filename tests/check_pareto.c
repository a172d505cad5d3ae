/*
 * check_pareto.c - Pareto ranks, crowding distance and hypervolume
 * against fronts computed by hand in 2-D and 3-D, the two-objective sweep
 * against the general sort, the 3-D hypervolume
 * against a Monte Carlo estimate, and the default reference point
 */
#include "err.h"
#include "pareto.h"
#include "rng.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>

START_TEST(test_pareto_ranks_by_hand)
{
	/* front (1,3) (2,2) (3,1); (3,3) behind (2,2); (4,4) behind it;
	 * a failed trial (+inf, +inf) last */
	const double y[] = {1, 3, 2, 2, 3, 1, 3, 3, 4, 4, INFINITY, INFINITY};
	int r[6], want[6] = {0, 0, 0, 1, 2, 3}, i;

	ck_assert_int_eq(pareto_rank(y, 6, 2, r), DEHBQ_OK);
	for (i = 0; i < 6; i++)
		ck_assert_int_eq(r[i], want[i]);
	ck_assert(pareto_dominates(&y[2], &y[6], 2));
	ck_assert(!pareto_dominates(&y[0], &y[2], 2));
	ck_assert(!pareto_dominates(&y[0], &y[0], 2)); /* not strictly */
}
END_TEST

START_TEST(test_pareto_crowding_by_hand)
{
	/* (1,3) (2,2) (4,1): ends +inf; the middle: (4-1)/3 + (3-1)/2 */
	const double y[] = {1, 3, 2, 2, 4, 1};
	const size_t idx[] = {0, 1, 2};
	double d[3];

	ck_assert_int_eq(pareto_crowding(y, idx, 3, 2, d), DEHBQ_OK);
	ck_assert(isinf(d[0]) && isinf(d[2]));
	ck_assert_double_eq_tol(d[1], 1.0 + 1.0, 1e-12);
}
END_TEST

START_TEST(test_pareto_hypervolume_2d_by_hand)
{
	/* ref (4,4): boxes 3x1 + 2x1 + 1x1 = 6; a dominated point, a point
	 * outside ref and a failed one change nothing */
	const double y[] = {2, 2, 1, 3, 3, 1, 3, 3, 5, 0, INFINITY, 1};
	const double ref[] = {4, 4};
	double hv;

	ck_assert_int_eq(pareto_hypervolume(y, 3, 2, ref, &hv), DEHBQ_OK);
	ck_assert_double_eq_tol(hv, 6, 1e-12);
	ck_assert_int_eq(pareto_hypervolume(y, 6, 2, ref, &hv), DEHBQ_OK);
	ck_assert_double_eq_tol(hv, 6, 1e-12);
	ck_assert_int_eq(pareto_hypervolume(y, 0, 2, ref, &hv), DEHBQ_OK);
	ck_assert(hv == 0);
}
END_TEST

START_TEST(test_pareto_hypervolume_3d_by_hand)
{
	/* one point: a unit cube; three points at unit distance from the
	 * corner: 3 * 2 - 3 * 1 + 1 = 4 (inclusion-exclusion) */
	const double one[] = {1, 1, 1}, three[] = {0, 1, 1, 1, 0, 1, 1, 1, 0};
	const double ref[] = {2, 2, 2};
	double hv;

	ck_assert_int_eq(pareto_hypervolume(one, 1, 3, ref, &hv), DEHBQ_OK);
	ck_assert_double_eq_tol(hv, 1, 1e-12);
	ck_assert_int_eq(pareto_hypervolume(three, 3, 3, ref, &hv), DEHBQ_OK);
	ck_assert_double_eq_tol(hv, 4, 1e-12);
}
END_TEST

/* 40 random points in the unit cube: exact 3-D hypervolume against
 * 400,000 Monte Carlo samples (standard error about 0.0008). */
START_TEST(test_pareto_hypervolume_3d_monte_carlo)
{
	double y[40 * 3], ref[3] = {1, 1, 1}, hv, u[3];
	struct rng r;
	long in = 0, s, N = 400000;
	int i, k;

	rng_seed(&r, 5);
	for (i = 0; i < 40 * 3; i++)
		y[i] = 0.3 + 0.7 * rng_uniform(&r);
	ck_assert_int_eq(pareto_hypervolume(y, 40, 3, ref, &hv), DEHBQ_OK);
	for (s = 0; s < N; s++) {
		for (k = 0; k < 3; k++)
			u[k] = rng_uniform(&r);
		for (i = 0; i < 40; i++)
			if (y[3 * i] <= u[0] && y[3 * i + 1] <= u[1] &&
			    y[3 * i + 2] <= u[2])
				break;
		in += i < 40;
	}
	ck_assert_msg(fabs(hv - (double)in / N) < 0.004, "exact %g, MC %g", hv,
		      (double)in / N);
}
END_TEST

START_TEST(test_pareto_reference_and_refusals)
{
	const double y[] = {1, 3, 2, 2, 3, 1, 9, 9, INFINITY, INFINITY};
	double ref[2], bad[] = {1, NAN}, hv, y4[4] = {1, 2, 3, 4},
		       ref4[4] = {5, 5, 5, 5};
	int r[1];

	ck_assert_int_eq(pareto_reference(y, 5, 2, ref), DEHBQ_OK);
	ck_assert_double_eq_tol(ref[0], 3 + 0.2, 1e-12); /* front: 1..3 */
	ck_assert_double_eq_tol(ref[1], 3 + 0.2, 1e-12);
	ck_assert_int_eq(pareto_reference(&y[8], 1, 2, ref), DEHBQ_EINVAL);
	ck_assert_int_eq(pareto_rank(bad, 1, 2, r), DEHBQ_EINVAL);
	ck_assert_int_eq(pareto_hypervolume(y4, 1, 4, ref4, &hv), DEHBQ_EUNSUP);
}
END_TEST

/*
 * The two-objective sweep against the general sort on the same points
 * with a constant third objective (which changes no dominance): ties on
 * a small grid, duplicates and failed points (+inf) included.
 */
START_TEST(test_pareto_rank2_matches_general_sort)
{
	enum { N = 300 };
	static double y2[2 * N], y3[3 * N];
	int r2[N], r3[N], i, n, t, fronts;
	struct rng g;

	rng_seed(&g, 11);
	for (t = 0; t < 200; t++) {
		n = 1 + (int)(rng_u64(&g) % N);
		for (i = 0; i < n; i++) {
			int k, grid = t % 2 ? 6 : 1000;

			for (k = 0; k < 2; k++) {
				y2[2 * i + k] =
					rng_u64(&g) % 50 == 0
						? INFINITY
						: (double)(rng_u64(&g) % grid);
				y3[3 * i + k] = y2[2 * i + k];
			}
			y3[3 * i + 2] = 0;
		}
		ck_assert_int_eq(pareto_rank(y2, (size_t)n, 2, r2), DEHBQ_OK);
		ck_assert_int_eq(pareto_rank(y3, (size_t)n, 3, r3), DEHBQ_OK);
		for (i = 0, fronts = 0; i < n; i++) {
			ck_assert_int_eq(r2[i], r3[i]);
			fronts = r2[i] + 1 > fronts ? r2[i] + 1 : fronts;
		}
		if (t % 2 && n > 100)
			ck_assert_int_gt(fronts, 3); /* the grid makes fronts */
	}
}
END_TEST

Suite *pareto_suite(void)
{
	Suite *s = suite_create("pareto");
	TCase *c = tcase_create("pareto");

	tcase_set_timeout(c, 60);
	tcase_add_test(c, test_pareto_ranks_by_hand);
	tcase_add_test(c, test_pareto_rank2_matches_general_sort);
	tcase_add_test(c, test_pareto_crowding_by_hand);
	tcase_add_test(c, test_pareto_hypervolume_2d_by_hand);
	tcase_add_test(c, test_pareto_hypervolume_3d_by_hand);
	tcase_add_test(c, test_pareto_hypervolume_3d_monte_carlo);
	tcase_add_test(c, test_pareto_reference_and_refusals);
	suite_add_tcase(s, c);
	return s;
}
