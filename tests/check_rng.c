/*
 * check_rng.c - the PRNG: determinism, ranges, exact state round trip
 */
#include "err.h"
#include "rng.h"

#include <check.h>
#include <math.h>
#include <string.h>

START_TEST(test_rng_same_seed_same_stream)
{
	struct rng a, b;
	int i;

	rng_seed(&a, 42);
	rng_seed(&b, 42);
	for (i = 0; i < 1000; i++)
		ck_assert_uint_eq(rng_u64(&a), rng_u64(&b));
	rng_seed(&b, 43);
	ck_assert_uint_ne(rng_u64(&a), rng_u64(&b));
}
END_TEST

START_TEST(test_rng_known_first_output)
{
	/* Pins the algorithm: changing it would silently change studies. */
	struct rng r;
	char buf[RNG_STRLEN];

	rng_seed(&r, 0);
	rng_format(&r, buf);
	ck_assert_str_eq(buf, "x256:e220a8397b1dcdaf:6e789e6aa1b965f4:"
			      "06c45d188009454f:f88bb8a8724c81ec");
}
END_TEST

START_TEST(test_rng_uniform_and_below_in_range)
{
	struct rng r;
	int i, hist[7] = {0};

	rng_seed(&r, 7);
	for (i = 0; i < 70000; i++) {
		double u = rng_uniform(&r);
		uint64_t k = rng_below(&r, 7);

		ck_assert(u >= 0.0 && u < 1.0);
		ck_assert_uint_lt(k, 7);
		hist[k]++;
	}
	for (i = 0; i < 7; i++)
		ck_assert_int_gt(hist[i], 9000); /* ~10000 each */
}
END_TEST

START_TEST(test_rng_format_parse_round_trip_exact)
{
	struct rng a, b;
	char buf[RNG_STRLEN], buf2[RNG_STRLEN];
	int i;

	rng_seed(&a, 123456789);
	for (i = 0; i < 17; i++)
		rng_u64(&a);
	rng_format(&a, buf);
	ck_assert_int_eq(rng_parse(&b, buf), DEHBQ_OK);
	rng_format(&b, buf2);
	ck_assert_str_eq(buf, buf2);
	for (i = 0; i < 100; i++)
		ck_assert_uint_eq(rng_u64(&a), rng_u64(&b));
}
END_TEST

START_TEST(test_rng_parse_rejects_malformed)
{
	static const char *bad[] = {
		"",
		"x256:",
		"x256:0000000000000000:0000000000000000:0000000000000000:"
		"0000000000000000",
		"x256:E220a8397b1dcdaf:6e789e6aa1b965f4:06c45d188009454f:"
		"f88bb8a8724c81ec",
		"x256:e220a8397b1dcdaf:6e789e6aa1b965f4:06c45d188009454f:"
		"f88bb8a8724c81e",
		"x255:e220a8397b1dcdaf:6e789e6aa1b965f4:06c45d188009454f:"
		"f88bb8a8724c81ec",
		"x256:e220a8397b1dcdaf;6e789e6aa1b965f4:06c45d188009454f:"
		"f88bb8a8724c81ec",
	};
	struct rng r;
	size_t i;

	rng_seed(&r, 1);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_int_eq(rng_parse(&r, bad[i]), DEHBQ_EINVAL);
	ck_assert_int_eq(rng_parse(&r, NULL), DEHBQ_EINVAL);
}
END_TEST

START_TEST(test_rng_normal_moments)
{
	struct rng r;
	double s = 0, s2 = 0;
	int i, n = 20000;

	rng_seed(&r, 99);
	for (i = 0; i < n; i++) {
		double x = rng_normal(&r);

		ck_assert(isfinite(x));
		s += x;
		s2 += x * x;
	}
	ck_assert(fabs(s / n) < 0.05);
	ck_assert(fabs(s2 / n - 1.0) < 0.05);
}
END_TEST

Suite *rng_suite(void)
{
	Suite *s = suite_create("rng");
	TCase *core = tcase_create("core");
	TCase *errors = tcase_create("errors");

	tcase_add_test(core, test_rng_same_seed_same_stream);
	tcase_add_test(core, test_rng_known_first_output);
	tcase_add_test(core, test_rng_uniform_and_below_in_range);
	tcase_add_test(core, test_rng_format_parse_round_trip_exact);
	tcase_add_test(core, test_rng_normal_moments);
	tcase_add_test(errors, test_rng_parse_rejects_malformed);
	suite_add_tcase(s, core);
	suite_add_tcase(s, errors);
	return s;
}
