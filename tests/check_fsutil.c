/*
 * check_fsutil.c - whole-file reads: exact content in one pass, empty and
 * oversized files, and nothing but regular files (FIFOs never block)
 */
#include "err.h"
#include "fsutil.h"
#include "testutil.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

START_TEST(test_fsutil_read_file_exact)
{
	const char *p = tu_path("f.json");
	char *buf, big[5000];
	size_t len;

	tu_write(p, "{\"a\": 1}\n");
	ck_assert_int_eq(fsutil_read_file(p, 100, &buf, &len), DEHBQ_OK);
	ck_assert_uint_eq(len, 9);
	ck_assert_str_eq(buf, "{\"a\": 1}\n");
	free(buf);
	memset(big, 'x', sizeof(big) - 1); /* more than a page */
	big[sizeof(big) - 1] = 0;
	tu_write(p, big);
	ck_assert_int_eq(fsutil_read_file(p, sizeof(big), &buf, &len),
			 DEHBQ_OK);
	ck_assert_uint_eq(len, sizeof(big) - 1);
	ck_assert_str_eq(buf, big);
	free(buf);
	tu_write(p, "");
	ck_assert_int_eq(fsutil_read_file(p, 100, &buf, &len), DEHBQ_OK);
	ck_assert_uint_eq(len, 0);
	ck_assert_str_eq(buf, "");
	free(buf);
}
END_TEST

START_TEST(test_fsutil_read_file_refuses_big_and_odd_files)
{
	const char *p = tu_path("f"), *q = tu_path("fifo");
	const char *l = tu_path("link"), *d = tu_path("dir");
	char *buf = (char *)1;
	size_t len;

	tu_write(p, "0123456789");
	ck_assert_int_eq(fsutil_read_file(p, 9, &buf, &len), DEHBQ_ETOOBIG);
	ck_assert_ptr_null(buf);
	ck_assert_int_eq(fsutil_read_file(p, 10, &buf, &len), DEHBQ_OK);
	free(buf);
	ck_assert_int_eq(mkfifo(q, 0600), 0); /* no writer: must not block */
	ck_assert_int_eq(fsutil_read_file(q, 10, &buf, &len), DEHBQ_EINVAL);
	ck_assert_int_eq(symlink(p, l), 0);
	ck_assert_int_eq(fsutil_read_file(l, 10, &buf, &len), DEHBQ_ESYS);
	ck_assert_int_eq(errno, ELOOP);
	ck_assert_int_eq(mkdir(d, 0700), 0);
	ck_assert_int_eq(fsutil_read_file(d, 10, &buf, &len), DEHBQ_EINVAL);
	ck_assert_int_eq(fsutil_read_file(tu_path("none"), 10, &buf, &len),
			 DEHBQ_ESYS);
	ck_assert_int_eq(errno, ENOENT);
}
END_TEST

Suite *fsutil_suite(void)
{
	Suite *s = suite_create("fsutil");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, tu_setup, tu_teardown);
	tcase_add_test(tc, test_fsutil_read_file_exact);
	tcase_add_test(tc, test_fsutil_read_file_refuses_big_and_odd_files);
	suite_add_tcase(s, tc);
	return s;
}
