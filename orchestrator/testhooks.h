/*
 * testhooks.h - the orchestrator's fault and crash injection, for tests
 *
 * Every file-system change of the orchestrator goes through the
 * atomicfile_ops seam (common/atomicfile.h); these hooks swap that table.
 * They are set from the environment by dehbq-orchestrator (never in
 * production) or called by the unit tests:
 *
 *   DEHBQ_TEST_RENAME_DELAY_MS=N   sleep N ms before every rename, so a
 *                                  random kill -9 lands between a temporary
 *                                  file and its rename often (chaos soaks)
 *   DEHBQ_TEST_FAULTS="write=ENOSPC:0.3,fsync=EIO:0.1,short=0.5,
 *       rename=EIO:0.05,open=EMFILE:0.1"
 *                                  fail each listed call with that errno
 *                                  with that probability ("short" truncates
 *                                  a write): the storage-fault tests
 *   DEHBQ_TEST_CRASH_AFTER=N       SIGKILL ourselves right after the N-th
 *                                  change: an open that creates, a write, a
 *                                  rename or an unlink, counted from the
 *                                  start of the process (the crash sweep)
 *
 * testhooks_crash_after() is the last one for a test in-process, with
 * testhooks_counting() to leave out changes made by someone else (a worker
 * the test plays).  Process-wide state, as the atomicfile table is.
 */
#ifndef DEHBQ_TESTHOOKS_H
#define DEHBQ_TESTHOOKS_H

/* Read the DEHBQ_TEST_* variables and install what they ask for. */
void testhooks_install(void);

/* SIGKILL this process right after its n-th counted change (n <= 0: never,
 * but count); the count starts again at 0. */
void testhooks_crash_after(long n);
/* Count changes (on, the default) or not (0). */
void testhooks_counting(int on);
/* Changes counted since the last testhooks_crash_after(). */
long testhooks_changes(void);

#endif
