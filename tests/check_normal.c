/*
 * check_normal.c - the standard normal: AS 241's inverse against known
 * quantiles, round trips through the distribution function, symmetry and
 * monotonicity, and refused arguments
 */
#include "err.h"
#include "normal.h"

#include <check.h>
#include <math.h>

static const struct {
	double p, z; /* z = Phi^-1(p), to double precision */
} known[] = {
	{0.5, 0.0},
	{0.975, 1.959963984540054},
	{0.025, -1.959963984540054},
	{0.9, 1.2815515655446004},
	{0.999, 3.090232306167813},
	{0.8413447460685429, 1.0},
	{1e-10, -6.361340902404056},
	{1e-100, -21.27345356096532},
};

START_TEST(test_normal_quantile_known_values)
{
	double z = 99;

	ck_assert_int_eq(normal_quantile(known[_i].p, &z), DEHBQ_OK);
	ck_assert_msg(fabs(z - known[_i].z) <= 1e-14 * fmax(1, fabs(z)),
		      "p %g: %.17g, want %.17g", known[_i].p, z, known[_i].z);
}
END_TEST

START_TEST(test_normal_round_trip_symmetric_monotone)
{
	double prev = -INFINITY, p, z, w;
	int i;

	for (i = 1; i < 2000; i++) {
		p = i / 2000.0;
		ck_assert_int_eq(normal_quantile(p, &z), DEHBQ_OK);
		ck_assert_msg(fabs(normal_cdf(z) - p) <=
				      4e-16 * fmax(p, 1 - p) + 1e-17,
			      "p %.17g: cdf(%.17g) = %.17g", p, z,
			      normal_cdf(z));
		ck_assert(z > prev);
		prev = z;
		ck_assert_int_eq(normal_quantile(1 - p, &w), DEHBQ_OK);
		ck_assert_msg(fabs(z + w) <= 1e-14 * fmax(1, fabs(z)),
			      "asymmetric at %g", p);
	}
	/* deep tails, relative accuracy through erfc */
	for (p = 1e-20; p > 1e-300; p *= 1e-20) {
		ck_assert_int_eq(normal_quantile(p, &z), DEHBQ_OK);
		ck_assert_msg(fabs(normal_cdf(z) / p - 1) < 1e-12, "p %g", p);
	}
	ck_assert(fabs(normal_pdf(0) - 0.3989422804014327) < 1e-16);
}
END_TEST

START_TEST(test_normal_quantile_refuses)
{
	double z = 7;

	ck_assert_int_eq(normal_quantile(0, &z), DEHBQ_EINVAL);
	ck_assert_int_eq(normal_quantile(1, &z), DEHBQ_EINVAL);
	ck_assert_int_eq(normal_quantile(-0.5, &z), DEHBQ_EINVAL);
	ck_assert_int_eq(normal_quantile(NAN, &z), DEHBQ_EINVAL);
	ck_assert(z == 7);
}
END_TEST

Suite *normal_suite(void)
{
	Suite *s = suite_create("normal");
	TCase *c = tcase_create("core");

	tcase_add_loop_test(c, test_normal_quantile_known_values, 0,
			    (int)(sizeof(known) / sizeof(known[0])));
	tcase_add_test(c, test_normal_round_trip_symmetric_monotone);
	tcase_add_test(c, test_normal_quantile_refuses);
	suite_add_tcase(s, c);
	return s;
}
