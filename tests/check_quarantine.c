/*
 * check_quarantine.c - refused files move into quarantine/ under a name
 * nothing there has: a second file of the same name, a name whose reason
 * file is taken and a name too long to extend all keep every byte
 */
#include "err.h"
#include "quarantine.h"
#include "testutil.h"

#include <check.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void mkdirs(void)
{
	ck_assert_int_eq(mkdir(tu_path("results"), 0700), 0);
	ck_assert_int_eq(mkdir(tu_path("claimed"), 0700), 0);
	ck_assert_int_eq(mkdir(tu_path("quarantine"), 0700), 0);
}

static void expect_text(const char *path, const char *text)
{
	char *got = tu_read(path, NULL);

	ck_assert_str_eq(got, text);
	free(got);
}

static int move(const char *from, const char *dir, const char *name, char *qn)
{
	int re, rc;

	rc = quarantine_move(tu_dir, from, dir, name, "bad", 0, qn, NAME_MAX,
			     &re);
	ck_assert_int_eq(re, 0);
	return rc;
}

START_TEST(test_quarantine_never_replaces)
{
	char qn[NAME_MAX + 1];

	mkdirs();
	tu_write(tu_path("results/x.json"), "first");
	ck_assert_int_eq(move(NULL, "results", "x.json", qn), DEHBQ_OK);
	ck_assert_str_eq(qn, "results.x.json");
	tu_write(tu_path("results/x.json"), "second");
	ck_assert_int_eq(move(NULL, "results", "x.json", qn), DEHBQ_OK);
	ck_assert_str_eq(qn, "results.x.json.2");
	expect_text(tu_path("quarantine/results.x.json"), "first");
	expect_text(tu_path("quarantine/results.x.json.2"), "second");
	expect_text(tu_path("quarantine/results.x.json.reason"),
		    "results/x.json: bad\n");
	expect_text(tu_path("quarantine/results.x.json.2.reason"),
		    "results/x.json: bad\n");
	/* a quarantined file that holds a reason file's name stays */
	tu_write(tu_path("quarantine/results.y.json.reason"), "not a reason");
	tu_write(tu_path("results/y.json"), "y");
	ck_assert_int_eq(move(NULL, "results", "y.json", qn), DEHBQ_OK);
	ck_assert_str_eq(qn, "results.y.json.2");
	expect_text(tu_path("quarantine/results.y.json.reason"),
		    "not a reason");
	ck_assert_int_eq(move(NULL, "results", "y.json", qn), DEHBQ_ENOENT);
	/* a quarantined file whose reason was never written stays too */
	tu_write(tu_path("quarantine/results.z.json"), "old z");
	tu_write(tu_path("results/z.json"), "z");
	ck_assert_int_eq(move(NULL, "results", "z.json", qn), DEHBQ_OK);
	ck_assert_str_eq(qn, "results.z.json.2");
	expect_text(tu_path("quarantine/results.z.json"), "old z");
}
END_TEST

START_TEST(test_quarantine_long_names_and_claimed_copies)
{
	char name[NAME_MAX + 1], qn[NAME_MAX + 1];

	mkdirs();
	memset(name, 'x', 250);
	strcpy(name + 250, ".json");
	tu_write(tu_path("results/%s", name), "long");
	ck_assert_int_eq(move(NULL, "results", name, qn), DEHBQ_OK);
	ck_assert_uint_le(strlen(qn) + strlen(".reason"), NAME_MAX);
	ck_assert_str_eq(qn + strlen(qn) - 2, ".1");
	expect_text(tu_path("quarantine/%s", qn), "long");
	tu_write(tu_path("results/%s", name), "long again");
	ck_assert_int_eq(move(NULL, "results", name, qn), DEHBQ_OK);
	ck_assert_str_eq(qn + strlen(qn) - 2, ".2");
	expect_text(tu_path("quarantine/%s", qn), "long again");
	/* the worker quarantines its claimed copy under the pending name */
	tu_write(tu_path("claimed/00000001@h.1.0123456789ab.json"), "c");
	ck_assert_int_eq(move(tu_path("claimed/00000001@h.1.0123456789ab.json"),
			      "pending", "99-00000001.json", qn),
			 DEHBQ_OK);
	ck_assert_str_eq(qn, "pending.99-00000001.json");
	expect_text(tu_path("quarantine/pending.99-00000001.json"), "c");
	ck_assert_int_eq(tu_count(tu_path("results")), 0);
}
END_TEST

Suite *quarantine_suite(void)
{
	Suite *s = suite_create("quarantine");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, tu_setup, tu_teardown);
	tcase_add_test(tc, test_quarantine_never_replaces);
	tcase_add_test(tc, test_quarantine_long_names_and_claimed_copies);
	suite_add_tcase(s, tc);
	return s;
}
