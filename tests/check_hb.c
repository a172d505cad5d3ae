/*
 * check_hb.c - Hyperband arithmetic (spec tables 2.4-2.6) and the SH
 * bracket manager
 */
#include "err.h"
#include "hb.h"

#include <check.h>
#include <math.h>

/* |a - b| <= 1 ulp of b */
static int ulp_eq(double a, double b)
{
	return fabs(a - b) <= fabs(nextafter(b, INFINITY) - b);
}

struct table_row {
	double min, max, eta; /* inputs */
	int L;		      /* levels */
	double fid[6];	      /* fidelities */
	int n[6][6];	      /* rung sizes per bracket i = 0..L-1 */
	int pop[6];	      /* population sizes */
};

static const struct table_row rows[] = {
	{1,
	 27,
	 3,
	 4,
	 {1, 3, 9, 27},
	 {{27, 9, 3, 1}, {9, 3, 1}, {6, 2}, {4}},
	 {27, 9, 6, 4}},
	{0.1,
	 3,
	 3,
	 4,
	 {0.1111111111111111, 0.3333333333333333, 1.0, 3.0},
	 {{27, 9, 3, 1}, {9, 3, 1}, {6, 2}, {4}},
	 {27, 9, 6, 4}},
	{2,
	 20,
	 3,
	 3,
	 {2.2222222222222223, 6.666666666666666, 20.0},
	 {{9, 3, 1}, {3, 1}, {3}},
	 {9, 3, 3}},
	{1, 9, 3, 3, {1, 3, 9}, {{9, 3, 1}, {3, 1}, {3}}, {9, 3, 3}},
	{1,
	 16,
	 2,
	 5,
	 {1, 2, 4, 8, 16},
	 {{16, 8, 4, 2, 1}, {8, 4, 2, 1}, {4, 2, 1}, {4, 2}, {5}},
	 {16, 8, 4, 4, 5}},
	{1,
	 100,
	 3,
	 5,
	 {1.2345679012345678, 3.7037037037037033, 11.11111111111111,
	  33.33333333333333, 100},
	 {{81, 27, 9, 3, 1}, {27, 9, 3, 1}, {9, 3, 1}, {6, 2}, {5}},
	 {81, 27, 9, 6, 5}},
	{1,
	 1000,
	 10,
	 4,
	 {1, 10, 99.99999999999999, 1000},
	 {{1000, 100, 10, 1}, {100, 10, 1}, {20, 2}, {4}},
	 {1000, 100, 20, 4}},
	{1,
	 243,
	 3,
	 6,
	 {0.9999999999999999, 3, 9, 27, 81, 243},
	 {{243, 81, 27, 9, 3, 1},
	  {81, 27, 9, 3, 1},
	  {27, 9, 3, 1},
	  {18, 6, 2},
	  {9, 3},
	  {6}},
	 {243, 81, 27, 18, 9, 6}},
	{1,
	 343,
	 7,
	 4,
	 {1, 6.999999999999999, 49, 343},
	 {{343, 49, 6, 1}, {49, 7, 1}, {14, 2}, {4}},
	 {343, 49, 14, 4}},
};

START_TEST(test_hb_tables_match_reference)
{
	const struct table_row *t = &rows[_i];
	double fid[HB_MAX_LEVELS];
	int L, i, j, n[HB_MAX_LEVELS], pop[HB_MAX_LEVELS];

	ck_assert_int_eq(hb_levels(t->min, t->max, t->eta, &L), DEHBQ_OK);
	ck_assert_int_eq(L, t->L);
	hb_fidelities(t->max, t->eta, L, fid);
	for (i = 0; i < L; i++)
		ck_assert_msg(ulp_eq(fid[i], t->fid[i]), "row %d fid %d: %.17g",
			      _i, i, fid[i]);
	ck_assert(fid[L - 1] == t->max);
	for (i = 0; i < L; i++) {
		int s = hb_bracket_s(L, i);

		ck_assert_int_eq(s, L - 1 - i);
		ck_assert_int_eq(hb_rung_sizes(L, t->eta, s, n), DEHBQ_OK);
		for (j = 0; j <= s; j++)
			ck_assert_int_eq(n[j], t->n[i][j]);
	}
	ck_assert_int_eq(hb_pop_sizes(L, t->eta, pop), DEHBQ_OK);
	for (i = 0; i < L; i++)
		ck_assert_int_eq(pop[i], t->pop[i]);
}
END_TEST

START_TEST(test_hb_bracket_id_cycles_most_aggressive_first)
{
	ck_assert_int_eq(hb_bracket_s(4, 0), 3);
	ck_assert_int_eq(hb_bracket_s(4, 3), 0);
	ck_assert_int_eq(hb_bracket_s(4, 4), 3);
	ck_assert_int_eq(hb_bracket_s(4, 9), 2);
}
END_TEST

START_TEST(test_hb_bracket_releases_rung_only_after_lower_results)
{
	struct hb_bracket b;
	int i;

	ck_assert_int_eq(hb_bracket_init(&b, 0, 2, 3, 3), DEHBQ_OK);
	ck_assert_int_eq(b.base, 0);
	ck_assert_int_eq(hb_bracket_jobs(&b), 13);
	for (i = 0; i < 9; i++) {
		ck_assert_int_eq(hb_bracket_next_rung(&b), 0);
		ck_assert_int_eq(hb_bracket_register(&b, 0), DEHBQ_OK);
	}
	ck_assert_int_eq(hb_bracket_next_rung(&b), -1);
	ck_assert(hb_bracket_is_pending(&b));
	for (i = 0; i < 8; i++)
		ck_assert_int_eq(hb_bracket_complete(&b, 0), DEHBQ_OK);
	ck_assert_int_eq(hb_bracket_next_rung(&b), -1);
	ck_assert_int_eq(hb_bracket_complete(&b, 0), DEHBQ_OK);
	ck_assert_int_eq(hb_bracket_next_rung(&b), 1);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(hb_bracket_register(&b, 1), DEHBQ_OK);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(hb_bracket_complete(&b, 1), DEHBQ_OK);
	ck_assert_int_eq(hb_bracket_next_rung(&b), 2);
	ck_assert_int_eq(hb_bracket_register(&b, 2), DEHBQ_OK);
	ck_assert(!hb_bracket_is_pending(&b));
	ck_assert(!hb_bracket_done(&b));
	ck_assert_int_eq(hb_bracket_complete(&b, 2), DEHBQ_OK);
	ck_assert(hb_bracket_done(&b));
}
END_TEST

START_TEST(test_hb_levels_robust_to_log_rounding)
{
	int L;

	/* glibc log() alone would lose a level on these (spec 2.1) */
	ck_assert_int_eq(hb_levels(1, 10, 10, &L), DEHBQ_OK);
	ck_assert_int_eq(L, 2);
	ck_assert_int_eq(hb_levels(1, 100, 10, &L), DEHBQ_OK);
	ck_assert_int_eq(L, 3);
	ck_assert_int_eq(hb_levels(0.1, 0.9, 3, &L), DEHBQ_OK);
	ck_assert_int_eq(L, 3);
	ck_assert_int_eq(hb_levels(1, 2.9, 3, &L), DEHBQ_OK);
	ck_assert_int_eq(L, 1);
}
END_TEST

START_TEST(test_hb_bad_arguments_return_einval)
{
	int L, n[HB_MAX_LEVELS];
	struct hb_bracket b;

	ck_assert_int_eq(hb_levels(1, 1, 3, &L), DEHBQ_OK); /* one fidelity */
	ck_assert_int_eq(L, 1);
	ck_assert_int_eq(hb_levels(2, 1, 3, &L), DEHBQ_EINVAL);
	ck_assert_int_eq(hb_levels(0, 1, 3, &L), DEHBQ_EINVAL);
	ck_assert_int_eq(hb_levels(1, 27, 1, &L), DEHBQ_EINVAL);
	ck_assert_int_eq(hb_levels(1, 27, 0.5, &L), DEHBQ_EINVAL);
	ck_assert_int_eq(hb_levels(1, NAN, 3, &L), DEHBQ_EINVAL);
	ck_assert_int_eq(hb_rung_sizes(4, 3, 4, n), DEHBQ_EINVAL);
	ck_assert_int_eq(hb_rung_sizes(4, 3, -1, n), DEHBQ_EINVAL);
	ck_assert_int_eq(hb_bracket_init(&b, -1, 0, 4, 3), DEHBQ_EINVAL);
}
END_TEST

START_TEST(test_hb_bracket_refuses_overcount)
{
	struct hb_bracket b;

	ck_assert_int_eq(hb_bracket_init(&b, 3, 0, 4, 3), DEHBQ_OK);
	ck_assert_int_eq(hb_bracket_complete(&b, 0), DEHBQ_ESTATE);
	ck_assert_int_eq(hb_bracket_register(&b, 1), DEHBQ_ESTATE);
	ck_assert_int_eq(b.n[0], 4);
}
END_TEST

START_TEST(test_hb_too_many_levels_or_huge_rungs_etoobig)
{
	int L, n[HB_MAX_LEVELS];

	ck_assert_int_eq(hb_levels(1, 1e30, 1.01, &L), DEHBQ_ETOOBIG);
	ck_assert_int_eq(hb_levels(1, 1e20, 10, &L), DEHBQ_OK);
	ck_assert_int_eq(L, 21);
	ck_assert_int_eq(hb_rung_sizes(L, 10, L - 1, n), DEHBQ_ETOOBIG);
	ck_assert_int_eq(hb_rung_sizes(6, 10, 5, n), DEHBQ_OK);
	ck_assert_int_eq(n[0], 100000);
}
END_TEST

Suite *hb_suite(void)
{
	Suite *s = suite_create("hb");
	TCase *core = tcase_create("core");
	TCase *errors = tcase_create("errors");
	TCase *limits = tcase_create("limits");

	tcase_add_loop_test(core, test_hb_tables_match_reference, 0,
			    (int)(sizeof(rows) / sizeof(rows[0])));
	tcase_add_test(core, test_hb_bracket_id_cycles_most_aggressive_first);
	tcase_add_test(core,
		       test_hb_bracket_releases_rung_only_after_lower_results);
	tcase_add_test(core, test_hb_levels_robust_to_log_rounding);
	tcase_add_test(errors, test_hb_bad_arguments_return_einval);
	tcase_add_test(errors, test_hb_bracket_refuses_overcount);
	tcase_add_test(limits, test_hb_too_many_levels_or_huge_rungs_etoobig);
	suite_add_tcase(s, core);
	suite_add_tcase(s, errors);
	suite_add_tcase(s, limits);
	return s;
}
