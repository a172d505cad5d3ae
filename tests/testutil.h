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

#endif
