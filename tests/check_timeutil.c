/*
 * check_timeutil.c - ISO 8601 timestamps: the exact form, millisecond
 * rounding across a second, the cached second, and the strict parser
 */
#include "err.h"
#include "testutil.h"
#include "timeutil.h"

#include <check.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

START_TEST(test_timeutil_iso_form_and_round_trip)
{
	char buf[TIMEUTIL_ISO_LEN];
	double t;

	timeutil_iso(0, buf);
	ck_assert_str_eq(buf, "1970-01-01T00:00:00.000Z");
	timeutil_iso(1795392000.25, buf); /* 2026-11-23 */
	ck_assert_str_eq(buf, "2026-11-23T00:00:00.250Z");
	ck_assert_int_eq(timeutil_parse_iso(buf, &t), DEHBQ_OK);
	ck_assert_double_eq(t, 1795392000.25);
}
END_TEST

/* Same second twice (the cached text), then the next one by rounding. */
START_TEST(test_timeutil_iso_cached_second_and_carry)
{
	char buf[TIMEUTIL_ISO_LEN];

	timeutil_iso(1795392059.001, buf);
	ck_assert_str_eq(buf, "2026-11-23T00:00:59.001Z");
	timeutil_iso(1795392059.9871, buf);
	ck_assert_str_eq(buf, "2026-11-23T00:00:59.987Z");
	timeutil_iso(1795392059.9996, buf); /* rounds to the next minute */
	ck_assert_str_eq(buf, "2026-11-23T00:01:00.000Z");
	timeutil_iso(1795392059.5, buf); /* back: the cache is by second */
	ck_assert_str_eq(buf, "2026-11-23T00:00:59.500Z");
	timeutil_iso(1795478400.042, buf); /* next day */
	ck_assert_str_eq(buf, "2026-11-24T00:00:00.042Z");
}
END_TEST

START_TEST(test_timeutil_parse_iso_is_strict)
{
	static const char *const bad[] = {
		"",
		"2026-11-23T00:00:00Z",
		"2026-11-23T00:00:00.000",
		"2026-11-22 00:00:00.000Z",
		"2026-13-22T00:00:00.000Z",
		"2026-02-30T00:00:00.000Z",
		"2026-11-23T24:00:00.000Z",
		"2026-11-23T00:00:00.0a0Z",
		"1969-12-31T23:59:59.999Z",
	};
	double t;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(timeutil_parse_iso(bad[i], &t) == DEHBQ_EINVAL,
			      "accepted '%s'", bad[i]);
}
END_TEST

START_TEST(test_timeutil_fs_now_creates_touches_never_follows)
{
	const char *probe = tu_path("clock"), *t = tu_path("target");
	double now, before = timeutil_now(), mt;

	ck_assert_int_eq(timeutil_fs_now(probe, &now), DEHBQ_OK);
	ck_assert_int_eq(access(probe, F_OK), 0); /* created */
	ck_assert(now > before - 5 && now < timeutil_now() + 5);
	ck_assert_int_eq(timeutil_fs_now(probe, &now), DEHBQ_OK);
	/* a symlink in its place: the target's mtime stays */
	tu_write(t, "x");
	ck_assert_int_eq(utimes(t, (const struct timeval[2]){{1, 0}, {1, 0}}),
			 0);
	ck_assert_int_eq(unlink(probe), 0);
	ck_assert_int_eq(symlink(t, probe), 0);
	ck_assert_int_eq(timeutil_fs_now(probe, &now), DEHBQ_OK);
	ck_assert_int_eq(timeutil_mtime(t, &mt), DEHBQ_OK);
	ck_assert_double_eq(mt, 1);
	ck_assert(now > before - 5);
}
END_TEST

Suite *timeutil_suite(void)
{
	Suite *s = suite_create("timeutil");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_timeutil_iso_form_and_round_trip);
	tcase_add_test(tc, test_timeutil_iso_cached_second_and_carry);
	tcase_add_test(tc, test_timeutil_parse_iso_is_strict);
	suite_add_tcase(s, tc);
	tc = tcase_create("fs");
	tcase_add_checked_fixture(tc, tu_setup, tu_teardown);
	tcase_add_test(tc, test_timeutil_fs_now_creates_touches_never_follows);
	suite_add_tcase(s, tc);
	return s;
}
