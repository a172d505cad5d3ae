/*
 * main.c - dehbq-orchestrator: run a study, resume it after any crash
 *
 * Parses arguments, takes the study lease, opens the scheduler and runs
 * batches, woken by inotify for local writes and by the poll timer for
 * remote ones (inotify sees nothing written by other NFS clients), with
 * group commit between them (wait_batch).  The only global is the signal
 * flag (the test hooks are testhooks.c's).
 *
 * Exit codes: 0 study finished or stopped by a signal (resumable); 100 bad
 * arguments or study; 111 temporary failure (lease held elsewhere, fenced,
 * storage).
 */
#include "atomicfile.h"
#include "err.h"
#include "fsutil.h"
#include "gp.h"
#include "lease.h"
#include "logmsg.h"
#include "optim.h"
#include "sched.h"
#include "snapshot.h"
#include "spec.h"
#include "study.h"
#include "testhooks.h"
#include "timeutil.h"
#include "version.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

static volatile sig_atomic_t got_stop; /* SIGTERM/SIGINT seen */

static void on_stop(int sig)
{
	(void)sig;
	got_stop = 1;
}

static const char usage[] =
	"usage: dehbq-orchestrator [-v] [-q] [--once] [--no-fsync] STUDY\n"
	"\n"
	"Run the study in STUDY (created by `dehbq init`), or resume it.\n"
	"Stop with SIGTERM or SIGINT: the current batch is finished and\n"
	"snapshotted, and the study can be resumed by starting again.\n"
	"\n"
	"  -v, --verbose   log every trial issued (level D)\n"
	"  -q, --quiet     log warnings and errors only\n"
	"      --once      run one batch and exit (for scripts and tests)\n"
	"      --no-fsync  skip fsync (benchmarks on tmpfs only: unsafe)\n"
	"  -h, --help      this text\n"
	"      --version   print the release and exit\n"
	"\n"
	"Exit codes: 0 finished or stopped; 100 bad arguments or study;\n"
	"111 temporary failure (lease held, fenced, storage).\n";

/*
 * inotify: fd watches results/ and state/requests/ (wake-ups);
 * pfd watches pending/ alone, so the group-commit hold can count claims
 * without waking for every result.  rwd is results/'s watch: a wake-up by
 * results alone needs only a light batch (sched.h); pwd is pending/'s.
 */
struct watch {
	int fd;
	int pfd;
	int rwd;
	int pwd;
};

static void watch_close(struct watch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	if (w->pfd >= 0)
		close(w->pfd);
	w->fd = w->pfd = -1;
}

/* Watch the study's directories; on failure w->fd is -1 (poll only). */
static void watch_open(struct watch *w, const char *root)
{
	static const struct {
		const char *dir; /* relative directory */
		uint32_t mask;	 /* events that should wake us */
	} dirs[] = {
		{"pending", IN_MOVED_FROM | IN_DELETE}, /* claimed or removed */
		{"results", IN_MOVED_TO},
		{"state/requests", IN_MOVED_TO | IN_CLOSE_WRITE},
	};
	char p[STUDY_PATH_MAX];
	size_t i;
	int wd;

	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	w->pfd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (w->fd < 0 || w->pfd < 0 ||
		    study_path(p, sizeof(p), root, "%s", dirs[i].dir) ||
		    (wd = inotify_add_watch(i ? w->fd : w->pfd, p,
					    dirs[i].mask)) < 0) {
			watch_close(w);
			return;
		}
		if (i == 1)
			w->rwd = wd;
		else if (i == 0)
			w->pwd = wd;
	}
}

/*
 * Drain an inotify queue; returns the number of events read.  Sets *other
 * (if not NULL) when an event's watch is not `light`.  A read that left
 * room for the longest event got all there was: no read for EAGAIN.
 */
static long drain_events(int fd, int light, int *other)
{
	_Alignas(struct inotify_event) char buf[8192];
	const struct inotify_event *ev;
	ssize_t n;
	char *q;
	long count = 0;

	do {
		if ((n = read(fd, buf, sizeof(buf))) <= 0)
			break;
		for (q = buf; q < buf + n; q += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)q;
			if (other && ev->wd != light)
				*other = 1;
			count++;
		}
	} while (sizeof(buf) - (size_t)n < sizeof(*ev) + NAME_MAX + 1);
	return count;
}

/*
 * Wait for the next batch: up to timeout for an event in any watched
 * directory.  Then, group commit: while the files in pending/ after the
 * last batch (queued; that batch started at t0) are not all gone, let
 * more results arrive until t0 + interval.  Claims are counted on
 * pending/'s own inotify queue (results do not wake the hold).  Once the
 * pace of claims is known (two wake-ups), the hold naps while half of
 * what is left should go at that pace and counts the claims in one read:
 * a few wake-ups per batch, not one per claim.  The last two are waited
 * for one by one, so the batch runs as soon as pending/ may be empty; a
 * worker finds pending/ empty during a nap only if claims came more than
 * twice as fast as before.
 * Without inotify, sleep.  Returns 1 when the next batch must be a full
 * one: the timeout passed (the rescan NFS needs) or something other than
 * results/ and pending/ changed.
 */
static int wait_batch(struct watch *w, struct sched *s, double timeout,
		      double t0, double interval)
{
	long queued = sched_pending(s);
	struct pollfd p[2] = {{w->fd, POLLIN, 0}, {w->pfd, POLLIN, 0}};
	double hold, now, nap, t1;
	long taken, left, n1;
	int other = 0;

	if (w->fd < 0) {
		timeutil_sleep(timeout, &got_stop);
		return 1;
	}
	if (poll(p, 2, (int)(timeout * 1000)) <= 0)
		return 1;
	taken = p[1].revents ? drain_events(w->pfd, w->pwd, NULL) : 0;
	t1 = timeutil_mono();
	n1 = taken;
	while (taken < queued && !got_stop &&
	       (hold = t0 + interval - (now = timeutil_mono())) > 0.001) {
		left = queued - taken;
		if (left > 2 && taken > n1) {
			nap = (now - t1) / (double)(taken - n1) *
			      (double)(left / 2);
			timeutil_sleep(nap < hold ? nap : hold, &got_stop);
		} else if (poll(&p[1], 1, (int)(hold * 1000) + 1) <= 0) {
			continue;
		}
		taken += drain_events(w->pfd, w->pwd, NULL);
	}
	if (taken < queued) /* claims since the last read */
		taken += drain_events(w->pfd, w->pwd, NULL);
	drain_events(w->fd, w->rwd, &other);
	return other;
}

/* What one orchestrator run holds. */
struct orch {
	const char *root; /* the study, absolute once opened */
	char absroot[PATH_MAX];
	struct spec spec;
	struct logmsg lg;
	struct lease lease;
	struct sched_opts so;
	struct sched *s;
	int once;	    /* --once: one batch, then exit */
	double max_backoff; /* storage errors: retry at most this often */
	double interval;    /* group commit: batch_interval, capped */
};

/* Options and STUDY into o; -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, struct orch *o)
{
	static const struct option opts[] = {
		{"verbose", no_argument, NULL, 'v'},
		{"quiet", no_argument, NULL, 'q'},
		{"once", no_argument, NULL, 'o'},
		{"no-fsync", no_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "vqh", opts, NULL)) != -1) {
		switch (c) {
		case 'v':
			o->lg.min = LOGMSG_DEBUG;
			break;
		case 'q':
			o->lg.min = LOGMSG_WARN;
			break;
		case 'o':
			o->once = 1;
			break;
		case 'n':
			o->so.nosync = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		case 'V':
			printf("dehbq-orchestrator %s\n", dehbq_version);
			return 0;
		default:
			fprintf(stderr,
				"dehbq-orchestrator: unknown or incomplete "
				"option '%s'; %.*s\n",
				argv[optind - 1], (int)strcspn(usage, "\n"),
				usage);
			return 100;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "dehbq-orchestrator: %s; %.*s\n",
			optind < argc ? "one STUDY only" : "need STUDY",
			(int)strcspn(usage, "\n"), usage);
		return 100;
	}
	o->root = argv[optind];
	return -1;
}

/* study.json, the study as working directory, the pacing; -1 or a code. */
static int load_study(struct orch *o)
{
	char err[DEHBQ_ERRLEN];
	int rc;

	if ((rc = spec_load_study(o->root, &o->spec, err))) {
		fprintf(stderr, "dehbq-orchestrator: %s\n", err);
		return rc == DEHBQ_ESYS && !fsutil_path_errno(errno) ? 111
								     : 100;
	}
	if (spec_check_limits(
		    &o->spec,
		    (optim_caps(o->spec.optimizer) & OPTIM_CAP_SEGMENTS) != 0,
		    "study.json", err)) {
		fprintf(stderr, "dehbq-orchestrator: %s/%s\n", o->root, err);
		spec_release(&o->spec);
		return 100;
	}
	/* work in the study (a trainer-free process holds no other
	 * directory); messages name files by the absolute root */
	if (!realpath(o->root, o->absroot) || chdir(o->absroot) < 0) {
		fprintf(stderr, "dehbq-orchestrator: %s: %s\n", o->root,
			strerror(errno));
		spec_release(&o->spec);
		return 111;
	}
	o->root = o->absroot;
	o->interval = o->spec.batch_interval < o->spec.poll
			      ? o->spec.batch_interval
			      : o->spec.poll;
	/* retry storage errors at most every min(10 s, lease / 2) */
	o->max_backoff = 10;
	if (o->max_backoff > o->spec.lease / 2)
		o->max_backoff = o->spec.lease / 2;
	if (o->max_backoff < o->spec.poll)
		o->max_backoff = o->spec.poll;
	return -1;
}

/* The next wait after a storage error, and its log line. */
static double retry_after(struct orch *o, double backoff, const char *err)
{
	backoff = backoff ? backoff * 2 : o->spec.poll;
	if (backoff > o->max_backoff)
		backoff = o->max_backoff;
	logmsg_e(&o->lg, "%s (retry in %.1f s)", err, backoff);
	return backoff;
}

/*
 * Take the lease and open the scheduler.  Storage errors at start are
 * retried with backoff, like those of a running study; a lease held by a
 * live orchestrator is not.
 */
static int open_sched(struct orch *o, char *err)
{
	double backoff = 0;
	int rc;

	char mine[sizeof(o->lease.nonce)] = ""; /* the nonce of a failed try */

	for (;;) {
		/* the previous holder's epoch + 1; sched_open() raises it past
		 * the epoch of the snapshot it loads, if that is higher */
		rc = lease_acquire(&o->lease, o->root, o->spec.lease, 0,
				   o->spec.poll < 0.2 ? o->spec.poll : 0.2,
				   mine[0] ? mine : NULL, err);
		snprintf(mine, sizeof(mine), "%s", o->lease.nonce);
		if (!rc)
			rc = sched_open(&o->s, o->root, &o->spec, &o->lease,
					&o->lg, &o->so, err);
		if (rc != DEHBQ_ESYS || got_stop)
			return rc;
		backoff = retry_after(o, backoff, err);
		timeutil_sleep(backoff, &got_stop);
	}
}

/* Batches until the study finishes, a signal, --once or fencing. */
static int run_batches(struct orch *o)
{
	struct watch w = {-1, -1, -1, -1};
	char err[DEHBQ_ERRLEN];
	double backoff = 0, t0, last_full = 0;
	int full = 1, rc, code = 111;

	watch_open(&w, o->root);
	for (;;) {
		/* a full batch at least every poll seconds: heartbeat, lease
		 * expiry, registry, requests, NFS writes inotify misses */
		t0 = timeutil_mono();
		if (full || backoff || t0 - last_full >= o->spec.poll) {
			full = 1;
			last_full = t0;
		}
		rc = sched_batch(o->s, full, err);
		if (rc == DEHBQ_EFENCED) {
			logmsg_e(&o->lg, "fenced: %s; stopping without writing",
				 err);
			break;
		}
		backoff = rc ? retry_after(o, backoff, err) : 0;
		if (!rc && sched_finished(o->s)) {
			rc = sched_finish(o->s, sched_stopping(o->s)
							? "stopped by request"
							: "budget exhausted");
			if (!rc) {
				code = 0;
				break;
			}
			/* FINISHED could not be written: retry like any
			 * other storage error */
			snprintf(err, sizeof(err),
				 "unable to write '%.*s/FINISHED': %s",
				 (int)sizeof(err) - 96, o->root,
				 strerror(errno));
			backoff = retry_after(o, backoff, err);
		}
		if (got_stop || o->once) {
			const char *why = got_stop ? "stopped by signal"
						   : "one batch done";

			sched_stopped(o->s, why);
			logmsg_i(&o->lg, "%s; study can be resumed", why);
			code = 0;
			break;
		}
		full = wait_batch(&w, o->s, backoff ? backoff : o->spec.poll,
				  t0, backoff ? 0 : o->interval);
	}
	watch_close(&w);
	return code;
}

int main(int argc, char **argv)
{
	static struct orch o; /* PATH_MAX and more: not on the stack */
	char err[DEHBQ_ERRLEN];
	struct sigaction sa;
	int rc, code;

	o.so.progress_secs = 5.0;
	gp_blas_single_thread();
	logmsg_init(&o.lg, "dehbq-orchestrator");
	if ((code = parse_args(argc, argv, &o)) >= 0 ||
	    (code = load_study(&o)) >= 0)
		return code;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	testhooks_install();
	if ((rc = open_sched(&o, err))) {
		logmsg_e(&o.lg, "%s", err);
		code = rc == DEHBQ_EINVAL || rc == DEHBQ_EUNSUP ? 100 : 111;
	} else {
		logmsg_i(&o.lg, "lease taken: epoch %lld on %s",
			 (long long)o.lease.epoch, o.lease.host);
		code = run_batches(&o);
	}
	sched_close(o.s);
	spec_release(&o.spec);
	return code;
}
