/*
 * check_atomicfile.c - atomic replacement, with faults injected through
 * the syscall table: no partial or empty file is ever published
 */
#include "atomicfile.h"
#include "err.h"
#include "testutil.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Fault plan for the fake syscalls; reset in setup. */
static struct {
	int write_errno;  /* fail write with this errno */
	size_t write_max; /* >0: accept at most this many bytes per write */
	int fsync_errno;  /* fail fsync of the temp file */
	int close_errno;  /* fail close (NFS reports errors here) */
	int rename_errno; /* fail rename */
	int writes;	  /* write calls seen */
} fault;

static ssize_t f_write(int fd, const void *buf, size_t n)
{
	fault.writes++;
	if (fault.write_errno) {
		errno = fault.write_errno;
		return -1;
	}
	if (fault.write_max && n > fault.write_max)
		n = fault.write_max;
	return write(fd, buf, n);
}

static int f_fsync(int fd)
{
	struct stat st;

	if (fault.fsync_errno && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		errno = fault.fsync_errno;
		return -1;
	}
	return fsync(fd);
}

static int f_close(int fd)
{
	close(fd);
	if (fault.close_errno) {
		errno = fault.close_errno;
		return -1;
	}
	return 0;
}

static int f_rename(const char *a, const char *b)
{
	if (fault.rename_errno) {
		errno = fault.rename_errno;
		return -1;
	}
	return rename(a, b);
}

static int f_open(const char *p, int flags, mode_t mode)
{
	return open(p, flags, mode);
}

static int f_rename_noreplace(const char *a, const char *b)
{
	return renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_NOREPLACE);
}

static const struct atomicfile_ops faulty = {
	f_open, f_write, f_fsync, f_close, f_rename, unlink, f_rename_noreplace,
};

static void setup(void)
{
	tu_setup();
	memset(&fault, 0, sizeof(fault));
}

static void teardown(void)
{
	atomicfile_set_ops(NULL);
	tu_teardown();
}

START_TEST(test_atomicfile_write_creates_and_replaces)
{
	const char *p = tu_path("state.json");
	char *got;

	ck_assert_int_eq(atomicfile_write(p, "one", 3, 0644, 0), DEHBQ_OK);
	ck_assert_str_eq(got = tu_read(p, NULL), "one");
	free(got);
	ck_assert_int_eq(atomicfile_write(p, "second", 6, 0644, 0), DEHBQ_OK);
	ck_assert_str_eq(got = tu_read(p, NULL), "second");
	free(got);
	ck_assert_int_eq(tu_count(tu_dir), 1); /* no temp file left */
}
END_TEST

START_TEST(test_atomicfile_short_writes_still_complete)
{
	const char *p = tu_path("f");
	char big[10000], *got;
	size_t len;

	memset(big, 'x', sizeof(big));
	big[sizeof(big) - 1] = 0;
	fault.write_max = 7;
	atomicfile_set_ops(&faulty);
	ck_assert_int_eq(atomicfile_write(p, big, strlen(big), 0644, 0),
			 DEHBQ_OK);
	got = tu_read(p, &len);
	ck_assert_uint_eq(len, strlen(big));
	ck_assert_int_gt(fault.writes, 1000);
	free(got);
}
END_TEST

/* Each fault must leave the old content and no temp file. */
static void expect_untouched(int expected_errno)
{
	const char *p = tu_path("state.json");
	char *got;

	atomicfile_set_ops(NULL);
	ck_assert_int_eq(atomicfile_write(p, "good", 4, 0644, 0), DEHBQ_OK);
	atomicfile_set_ops(&faulty);
	errno = 0;
	ck_assert_int_eq(atomicfile_write(p, "bad-new-content", 15, 0644, 0),
			 DEHBQ_ESYS);
	ck_assert_int_eq(errno, expected_errno);
	ck_assert_str_eq(got = tu_read(p, NULL), "good");
	free(got);
	ck_assert_int_eq(tu_count(tu_dir), 1);
}

START_TEST(test_atomicfile_enospc_on_write_keeps_old)
{
	fault.write_errno = ENOSPC;
	expect_untouched(ENOSPC);
}
END_TEST

START_TEST(test_atomicfile_eio_on_fsync_keeps_old)
{
	fault.fsync_errno = EIO;
	expect_untouched(EIO);
}
END_TEST

START_TEST(test_atomicfile_error_at_close_keeps_old)
{
	fault.close_errno = EDQUOT;
	expect_untouched(EDQUOT);
}
END_TEST

START_TEST(test_atomicfile_rename_failure_keeps_old)
{
	fault.rename_errno = EXDEV;
	expect_untouched(EXDEV);
}
END_TEST

START_TEST(test_atomicfile_fault_never_publishes_new_file)
{
	const char *p = tu_path("new.json");

	fault.write_errno = ENOSPC;
	atomicfile_set_ops(&faulty);
	ck_assert_int_eq(atomicfile_write(p, "x", 1, 0644, 0), DEHBQ_ESYS);
	ck_assert_int_eq(access(p, F_OK), -1);
	ck_assert_int_eq(tu_count(tu_dir), 0);
}
END_TEST

START_TEST(test_atomicfile_move_and_lost_source)
{
	const char *a = tu_path("a"), *b = tu_path("b");
	char *got;

	tu_write(a, "payload");
	ck_assert_int_eq(atomicfile_move(a, b, 0), DEHBQ_OK);
	ck_assert_str_eq(got = tu_read(b, NULL), "payload");
	free(got);
	ck_assert_int_eq(atomicfile_move(a, b, 0), DEHBQ_ENOENT);
}
END_TEST

/* NFS: the rename happened, but the reply said ENOENT. */
static int rename_then_enoent(const char *a, const char *b)
{
	if (rename(a, b) < 0)
		return -1;
	errno = ENOENT;
	return -1;
}

START_TEST(test_atomicfile_move_checks_own_target_after_enoent)
{
	const char *a = tu_path("a"), *b = tu_path("b");
	struct atomicfile_ops o = *atomicfile_get_ops();

	o.rename = rename_then_enoent;
	atomicfile_set_ops(&o);
	tu_write(a, "x");
	ck_assert_int_eq(atomicfile_move(a, b, 0), DEHBQ_OK);
	ck_assert_int_eq(access(b, F_OK), 0);
}
END_TEST

START_TEST(test_atomicfile_move_enoent_ok_skips_the_check)
{
	const char *a = tu_path("a"), *b = tu_path("b");
	struct atomicfile_ops o = *atomicfile_get_ops();

	o.rename = rename_then_enoent;
	atomicfile_set_ops(&o);
	tu_write(a, "x");
	/* the caller takes ENOENT as done: it is reported as such */
	ck_assert_int_eq(atomicfile_move(a, b, ATOMICFILE_ENOENT_OK),
			 DEHBQ_ENOENT);
	ck_assert_int_eq(access(b, F_OK), 0);
}
END_TEST

static void noreplace_case(void)
{
	const char *a = tu_path("a"), *b = tu_path("b"), *c = tu_path("c");
	char *got;

	tu_write(a, "new");
	tu_write(b, "old");
	/* an existing target is never replaced; the source stays */
	ck_assert_int_eq(atomicfile_move(a, b, ATOMICFILE_NOREPLACE),
			 DEHBQ_EEXIST);
	ck_assert_str_eq(got = tu_read(b, NULL), "old");
	free(got);
	ck_assert_str_eq(got = tu_read(a, NULL), "new");
	free(got);
	/* a free name is taken */
	ck_assert_int_eq(atomicfile_move(a, c, ATOMICFILE_NOREPLACE), DEHBQ_OK);
	ck_assert_str_eq(got = tu_read(c, NULL), "new");
	free(got);
	ck_assert_int_eq(access(a, F_OK), -1);
	ck_assert_int_eq(
		atomicfile_move(a, b,
				ATOMICFILE_NOREPLACE | ATOMICFILE_ENOENT_OK),
		DEHBQ_ENOENT);
}

START_TEST(test_atomicfile_move_noreplace)
{
	noreplace_case();
}
END_TEST

/* NFS and some FUSE servers: renameat2 flags are EINVAL. */
static int nr_calls;

static int noreplace_unsupported(const char *a, const char *b)
{
	(void)a;
	(void)b;
	nr_calls++;
	errno = EINVAL;
	return -1;
}

START_TEST(test_atomicfile_move_noreplace_fallback)
{
	struct atomicfile_ops o = *atomicfile_get_ops();

	o.rename_noreplace = noreplace_unsupported;
	atomicfile_set_ops(&o);
	noreplace_case();
	ck_assert_int_ge(nr_calls, 2);
}
END_TEST

/* Temporary names differ call by call and carry the pid. */
static char seen_tmp[2][4096];
static int nseen_tmp;

static int rename_recording(const char *a, const char *b)
{
	snprintf(seen_tmp[nseen_tmp++ % 2], sizeof(seen_tmp[0]), "%s", a);
	return rename(a, b);
}

START_TEST(test_atomicfile_temp_names_are_unique)
{
	const char *p = tu_path("f");
	struct atomicfile_ops o = *atomicfile_get_ops();
	char want[64];

	o.rename = rename_recording;
	atomicfile_set_ops(&o);
	ck_assert_int_eq(atomicfile_write(p, "x", 1, 0644, 0), DEHBQ_OK);
	ck_assert_int_eq(atomicfile_write(p, "y", 1, 0644, 0), DEHBQ_OK);
	ck_assert_int_eq(nseen_tmp, 2);
	ck_assert_str_ne(seen_tmp[0], seen_tmp[1]);
	snprintf(want, sizeof(want), "/.f.%ld.", (long)getpid());
	ck_assert_ptr_nonnull(strstr(seen_tmp[0], want));
	ck_assert_uint_eq(strlen(strstr(seen_tmp[0], want)),
			  strlen(want) + 16 + 4); /* 16 hex digits, ".tmp" */
	ck_assert_int_eq(tu_count(tu_dir), 1);
}
END_TEST

START_TEST(test_atomicfile_write_ahead_creates_and_replaces_leftover)
{
	const char *p = tu_path("staged.json"), *t = tu_path("target");
	char *got;

	ck_assert_int_eq(atomicfile_write_ahead(p, "one", 3, 0644, 0),
			 DEHBQ_OK);
	ck_assert_str_eq(got = tu_read(p, NULL), "one");
	free(got);
	ck_assert_int_eq(atomicfile_write_ahead(p, "2", 1, 0644, 0), DEHBQ_OK);
	ck_assert_str_eq(got = tu_read(p, NULL), "2");
	free(got);
	/* a symlink or a hard link in its place is replaced, never written
	 * through */
	tu_write(t, "keep");
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(symlink(t, p), 0);
	ck_assert_int_eq(atomicfile_write_ahead(p, "3", 1, 0644, 0), DEHBQ_OK);
	ck_assert_str_eq(got = tu_read(t, NULL), "keep");
	free(got);
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(link(t, p), 0);
	ck_assert_int_eq(atomicfile_write_ahead(p, "4", 1, 0644, 0), DEHBQ_OK);
	ck_assert_str_eq(got = tu_read(t, NULL), "keep");
	free(got);
	ck_assert_str_eq(got = tu_read(p, NULL), "4");
	free(got);
}
END_TEST

/* An error removes the partial file. */
START_TEST(test_atomicfile_write_ahead_error_leaves_nothing)
{
	const char *p = tu_path("staged.json");

	atomicfile_set_ops(&faulty);
	fault.write_max = 2;
	fault.fsync_errno = EIO;
	ck_assert_int_eq(atomicfile_write_ahead(p, "abcdef", 6, 0644, 0),
			 DEHBQ_ESYS);
	ck_assert_int_eq(errno, EIO);
	ck_assert_int_eq(access(p, F_OK), -1);
	fault.fsync_errno = 0;
	fault.write_errno = ENOSPC;
	ck_assert_int_eq(atomicfile_write_ahead(p, "abcdef", 6, 0644, 0),
			 DEHBQ_ESYS);
	ck_assert_int_eq(errno, ENOSPC);
	ck_assert_int_eq(tu_count(tu_dir), 0);
}
END_TEST

START_TEST(test_atomicfile_path_too_long)
{
	char p[5000];

	memset(p, 'a', sizeof(p) - 1);
	p[sizeof(p) - 1] = 0;
	p[sizeof(p) - 3] = '/';
	ck_assert_int_eq(atomicfile_write(p, "x", 1, 0644, 0), DEHBQ_ETOOBIG);
}
END_TEST

Suite *atomicfile_suite(void)
{
	Suite *s = suite_create("atomicfile");
	TCase *core = tcase_create("core");
	TCase *errors = tcase_create("errors");
	TCase *limits = tcase_create("limits");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_checked_fixture(errors, setup, teardown);
	tcase_add_checked_fixture(limits, setup, teardown);
	tcase_add_test(core, test_atomicfile_write_creates_and_replaces);
	tcase_add_test(core, test_atomicfile_short_writes_still_complete);
	tcase_add_test(core, test_atomicfile_move_and_lost_source);
	tcase_add_test(core,
		       test_atomicfile_move_checks_own_target_after_enoent);
	tcase_add_test(errors, test_atomicfile_enospc_on_write_keeps_old);
	tcase_add_test(errors, test_atomicfile_eio_on_fsync_keeps_old);
	tcase_add_test(errors, test_atomicfile_error_at_close_keeps_old);
	tcase_add_test(errors, test_atomicfile_rename_failure_keeps_old);
	tcase_add_test(errors, test_atomicfile_fault_never_publishes_new_file);
	tcase_add_test(core, test_atomicfile_move_enoent_ok_skips_the_check);
	tcase_add_test(core, test_atomicfile_move_noreplace);
	tcase_add_test(core, test_atomicfile_move_noreplace_fallback);
	tcase_add_test(core, test_atomicfile_temp_names_are_unique);
	tcase_add_test(
		core,
		test_atomicfile_write_ahead_creates_and_replaces_leftover);
	tcase_add_test(errors,
		       test_atomicfile_write_ahead_error_leaves_nothing);
	tcase_add_test(limits, test_atomicfile_path_too_long);
	suite_add_tcase(s, core);
	suite_add_tcase(s, errors);
	suite_add_tcase(s, limits);
	return s;
}
