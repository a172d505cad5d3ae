/*
 * check_sched.c - the scheduler without processes: a study in a scratch
 * directory, a batch, then reconciliation at the next open (protocol.md
 * section 8): what matches the snapshot is kept, a stale staged file is
 * dropped, and foreign files (another token, an id never issued) go to
 * quarantine with a reason instead of into the archive; a snapshot that
 * cannot be read now stops the start instead of an older one loading
 */
#include "atomicfile.h"
#include "err.h"
#include "lease.h"
#include "logmsg.h"
#include "sched.h"
#include "space.h"
#include "spec.h"
#include "study.h"
#include "testutil.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct spec spec;
static struct lease lease;
static struct logmsg lg;

static void setup(void)
{
	char err[DEHBQ_ERRLEN], path[4096];

	tu_setup();
	spec_defaults(&spec);
	spec.min_fidelity = 1;
	spec.max_fidelity = 9;
	spec.fevals = 20;
	spec.prefetch = 3;
	snprintf(path, sizeof(path), "%s/space_native.json", tu_datadir());
	ck_assert_int_eq(space_load(path, &spec.space, err), DEHBQ_OK);
	snprintf(spec.study, sizeof(spec.study), "%s",
		 "1ab6bee3-f5bb-4934-997e-54ea6e1390e1");
	ck_assert_int_eq(study_create_dirs(tu_dir), DEHBQ_OK);
	logmsg_init(&lg, "check_sched");
	lg.fd = -1;
	ck_assert_int_eq(
		lease_acquire(&lease, tu_dir, spec.lease, 0, 0.01, NULL, err),
		DEHBQ_OK);
}

/*
 * A start retried after a failure (the lease in place, then a failed
 * write) takes its own lease over with the next epoch: its nonce says it
 * is its own.  Host and pid alone do not (another PID namespace may have
 * the same): without the nonce, and for another live process's lease
 * (the parent's pid, on this host), the start is refused.
 */
START_TEST(test_lease_retry_takes_its_own_lease)
{
	char err[DEHBQ_ERRLEN], path[4200], mine[sizeof(lease.nonce)];
	struct lease again;
	FILE *f;

	ck_assert_int_eq(lease_acquire(&again, tu_dir, 60, 0, 0, NULL, err),
			 DEHBQ_EAGAIN);
	ck_assert_int_eq(
		lease_acquire(&again, tu_dir, 60, 0, 0, lease.nonce, err),
		DEHBQ_OK);
	ck_assert_int_eq(again.epoch, lease.epoch + 1);
	snprintf(mine, sizeof(mine), "%s", again.nonce);
	snprintf(path, sizeof(path), "%s/state/lease.json", tu_dir);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fprintf(f,
		"{\"format\": \"dehbq-lease/1\", \"epoch\": 9, \"host\": "
		"\"%s\", \"pid\": %ld, \"started\": "
		"\"2026-11-27T00:00:00.000Z\", \"nonce\": "
		"\"0123456789abcdef\"}\n",
		again.host, (long)getppid());
	fclose(f);
	ck_assert_int_eq(lease_acquire(&again, tu_dir, 60, 0, 0, mine, err),
			 DEHBQ_EAGAIN);
	ck_assert_msg(strstr(err, "run by another orchestrator"), "%s", err);
}
END_TEST

static void teardown(void)
{
	spec_release(&spec);
	tu_teardown();
}

static struct sched *open_sched(void)
{
	struct sched_opts o = {1, 1e9};
	struct sched *s;
	char err[DEHBQ_ERRLEN];

	ck_assert_msg(sched_open(&s, tu_dir, &spec, &lease, &lg, &o, err) ==
			      DEHBQ_OK,
		      "%s", err);
	return s;
}

static int exists(const char *p)
{
	struct stat st;

	return lstat(p, &st) == 0;
}

/* The file at p with its "token" value replaced. */
static void copy_with_token(const char *from, const char *to, const char *token)
{
	char *t = tu_read(from, NULL), *k, out[65536];

	ck_assert_ptr_nonnull(t);
	k = strstr(t, "\"token\":\t\"");
	ck_assert_ptr_nonnull(k);
	k += strlen("\"token\":\t\"");
	snprintf(out, sizeof(out), "%.*s%s%s", (int)(k - t), t, token, k + 16);
	tu_write(to, out);
	free(t);
}

START_TEST(test_sched_reconcile_matches_the_snapshot)
{
	char err[DEHBQ_ERRLEN], *reason;
	struct sched *s = open_sched();

	ck_assert_int_eq(sched_batch(s, 1, err), DEHBQ_OK);
	ck_assert_int_eq(sched_pending(s), 3);
	sched_close(s);
	ck_assert(exists(tu_path("pending/99-00000000.json")));
	/* trial 0 again, with another token, as a claim */
	copy_with_token(tu_path("pending/99-00000000.json"),
			tu_path("claimed/00000000@evil.1.abcdefabcdef.json"),
			"0123456789abcdef");
	/* and as a staged file: never published, dropped */
	copy_with_token(tu_path("pending/99-00000001.json"),
			tu_path("staging/00000001.json"), "0123456789abcdef");
	/* an id never issued */
	copy_with_token(tu_path("pending/99-00000002.json"),
			tu_path("pending/99-00000077.json"),
			"0123456789abcdef");
	s = open_sched();
	sched_close(s);
	ck_assert(exists(tu_path("pending/99-00000000.json")));
	ck_assert(exists(tu_path("pending/99-00000001.json")));
	ck_assert(!exists(tu_path("staging/00000001.json")));
	ck_assert(
		!exists(tu_path("claimed/00000000@evil.1.abcdefabcdef.json")));
	reason = tu_read(tu_path("quarantine/"
				 "claimed.00000000@evil.1.abcdefabcdef.json."
				 "reason"),
			 NULL);
	ck_assert_ptr_nonnull(reason);
	ck_assert_msg(strstr(reason, "token"), "%s", reason);
	free(reason);
	reason = tu_read(tu_path("quarantine/pending.99-00000077.json.reason"),
			 NULL);
	ck_assert_ptr_nonnull(reason);
	ck_assert_msg(strstr(reason, "never issued"), "%s", reason);
	free(reason);
	ck_assert_int_eq(tu_count(tu_path("archive/0000")), 0);
}
END_TEST

static char fail_name[256]; /* opens of a path ending in "/NAME" fail */

static int failing_open(const char *p, int flags, mode_t mode)
{
	size_t n = strlen(p), k = strlen(fail_name);

	if (n > k && p[n - k - 1] == '/' && !strcmp(p + n - k, fail_name)) {
		errno = EMFILE;
		return -1;
	}
	return open(p, flags, mode);
}

/* The newest file of state/ whose name starts with prefix, into name. */
static void newest_in_state(const char *prefix, char *name, size_t size)
{
	DIR *d = opendir(tu_path("state"));
	struct dirent *e;

	ck_assert_ptr_nonnull(d);
	name[0] = 0;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix)) &&
		    strcmp(e->d_name, name) > 0)
			snprintf(name, size, "%s", e->d_name);
	closedir(d);
	ck_assert_msg(name[0], "no state/%s*", prefix);
}

/*
 * A transient error reading the newest snapshot, or the history it names
 * (EMFILE here; EIO or ESTALE on NFS), stops the start with a storage
 * error that main.c retries.  Falling back to an older snapshot would
 * rewind the study: the trials issued since would go to quarantine as
 * never issued.  Once the read works, the start resumes from it.
 */
static void check_unreadable_newest(const char *optimizer, const char *prefix)
{
	struct atomicfile_ops ops = *atomicfile_get_ops();
	struct sched_opts o = {1, 1e9};
	char err[DEHBQ_ERRLEN];
	struct sched *s;
	int rc;

	snprintf(spec.optimizer, sizeof(spec.optimizer), "%s", optimizer);
	s = open_sched();
	ck_assert_int_eq(sched_batch(s, 1, err), DEHBQ_OK);
	sched_close(s);
	ck_assert_int_eq(tu_count(tu_path("pending")), 3);
	newest_in_state(prefix, fail_name, sizeof(fail_name));
	ops.open = failing_open;
	atomicfile_set_ops(&ops);
	rc = sched_open(&s, tu_dir, &spec, &lease, &lg, &o, err);
	atomicfile_set_ops(NULL);
	ck_assert_int_eq(rc, DEHBQ_ESYS);
	ck_assert_msg(strstr(err, fail_name) && strstr(err, "will retry"), "%s",
		      err);
	ck_assert_int_eq(tu_count(tu_path("quarantine")), 0);
	ck_assert_int_eq(tu_count(tu_path("pending")), 3);
	s = open_sched();
	sched_close(s);
	ck_assert_int_eq(tu_count(tu_path("quarantine")), 0);
	ck_assert_int_eq(tu_count(tu_path("pending")), 3);
}

START_TEST(test_sched_unreadable_snapshot_is_retried)
{
	check_unreadable_newest("dehb", "snapshot-");
}
END_TEST

START_TEST(test_sched_unreadable_history_is_retried)
{
	check_unreadable_newest("tpe", "history-");
}
END_TEST

Suite *sched_suite(void)
{
	Suite *s = suite_create("sched");
	TCase *tc = tcase_create("reconcile");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_sched_reconcile_matches_the_snapshot);
	tcase_add_test(tc, test_lease_retry_takes_its_own_lease);
	tcase_add_test(tc, test_sched_unreadable_snapshot_is_retried);
	tcase_add_test(tc, test_sched_unreadable_history_is_retried);
	suite_add_tcase(s, tc);
	return s;
}
