/*
 * testutil.h - helpers shared by the Check suites
 *
 * A checked fixture gives every test a fresh mkdtemp() directory and
 * removes it in teardown:  tcase_add_checked_fixture(tc, tu_setup,
 * tu_teardown); then use tu_dir / tu_path().
 *
 * Ownership: tu_path() returns a pointer into a static ring of buffers
 * (valid for the next 7 calls); tu_read() returns malloc'ed text the caller
 * frees.  Test code only: these helpers abort on unexpected failures.
 */
#ifndef DEHBQ_TESTUTIL_H
#define DEHBQ_TESTUTIL_H

#include <stddef.h>

extern char tu_dir[4096]; /* this test's scratch directory */

void tu_setup(void);
void tu_teardown(void);
const char *tu_path(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tu_write(const char *path, const char *text);
char *tu_read(const char *path, size_t *len);
/* Directory holding tests/data (DEHBQ_TESTDATA, default "tests/data"). */
const char *tu_datadir(void);
/* Number of entries (dotfiles included) in a directory, -1 if missing. */
int tu_count(const char *dir);
/* The first byte at which a and b differ, -1 when they are equal. */
long tu_diff_at(const char *a, const char *b);

/*
 * Two texts (NULL: "") are equal, or the test fails naming what and the
 * first difference with 60 bytes of context: Check's own string
 * assertion cannot carry long texts (its message is cut off and the test
 * ends as an error without it).
 */
#define tu_assert_same(what, a, b)                                             \
	do {                                                                   \
		const char *tu_a_ = (a) ? (a) : "", *tu_b_ = (b) ? (b) : "";   \
		long tu_o_ = tu_diff_at(tu_a_, tu_b_),                         \
		     tu_c_ = tu_o_ > 30 ? tu_o_ - 30 : 0;                      \
		ck_assert_msg(                                                 \
			tu_o_ < 0,                                             \
			"%s: differ at byte %ld: \"%.60s\" vs \"%.60s\"",      \
			(what), tu_o_, tu_a_ + tu_c_, tu_b_ + tu_c_);          \
	} while (0)

#endif
