/*
 * main.c - dehbq-worker: claim pending trials of a study and run them
 *
 * Parses arguments (wopts.c), installs the signal handlers (wake.c), and
 * runs the loop:
 *   - exit 0 when STUDY/FINISHED exists (unless an extend or requeue
 *     request is queued: the study is about to run again), after
 *     --max-trials attempts,
 *     after --idle-exit seconds with nothing to claim, when --time-limit
 *     (or SLURM_JOB_END_TIME) leaves too little time, or on SIGTERM/SIGINT
 *     (a running trial is stopped and its claim renamed back to pending/);
 *   - scan pending/, claim one trial (claim.c), run it (run.c), write its
 *     result, repeat at once;
 *   - with nothing to claim, wait for inotify (pending/ and the study
 *     root, local writes only) or a jittered, doubling timeout from 0.2 s
 *     up to --max-poll, so idle workers do not hammer NFS.  pending/ is
 *     watched only while looking for work (wake.c);
 *   - heartbeat: utime() of the claim and of workers/HOST.PID.WID.json
 *     every lease / 4 (--heartbeat), busy or idle;
 *   - exit 100 after --max-failures-in-a-row failed trials in a row
 *     (default: the study's runtime.max_failures_in_a_row): a command that
 *     cannot run on this host must not eat the queue.
 * Exit codes: 0 done, 100 bad usage or study, or the command fails every
 * trial here; 111 system failure.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "claim.h"
#include "err.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "id.h"
#include "logmsg.h"
#include "registry.h"
#include "result.h"
#include "rng.h"
#include "run.h"
#include "slots.h"
#include "space.h"
#include "spec.h"
#include "study.h"
#include "timeutil.h"
#include "trial.h"
#include "wake.h"
#include "wopts.h"

#define EXIT_USAGE  100
#define EXIT_SYSTEM 111

/* The worker's state, owned by main(). */
#define RESOLVED_MAX 64 /* command arguments resolve_relative_args() sees */

struct worker {
	struct wopts o;		      /* options */
	char *resolved[RESOLVED_MAX]; /* owned copies in o.cmd, or NULL */
	char root[PATH_MAX];	      /* absolute study directory */
	struct spec spec;	      /* study.json */
	struct logmsg lg;	      /* logger */
	struct claim_ctx cx;	      /* claim context */
	struct registry rg;	      /* workers/ entry */
	struct rng rng;		      /* random choices and jitter */
	struct run_est est;	      /* durations for --time-limit */
	double end_time;	      /* unix time to stop by; 0 = none */
	struct wake wk;		      /* signals, inotify, hints */
	const char *claim_path;	      /* claim being heartbeaten, or NULL */
	dev_t claim_dev;	      /* ... the file it names when claimed */
	ino_t claim_ino;
	char trial_id[ID_TRIAL_LEN]; /* its id, for messages */
	int claim_lost;		     /* warned about the lost claim */
	int resume_said;	     /* said why FINISHED does not stop it */
	double next_beat;	     /* monotonic time of next idle beat */
	double heartbeat;	     /* seconds between beats */
	int slot;		     /* this slot (slots.h), -1: none */
	char gpus[4096];	     /* its devices, "" when none */
	long fail_run;		     /* trials that failed in a row */
	char fail_last[256];	     /* the last one, for the exit message */
};

/*
 * The claim's heartbeat: its mtime, set through a descriptor, and only
 * while its name still holds the file this worker claimed (the inode it
 * checked then), so a file put in its place (a hard link to a file outside
 * the study) is never touched.  A claim that is gone or replaced was taken
 * back (requeued): the trial is finished anyway.
 */
static void touch_claim(struct worker *w)
{
	int fd = open(w->claim_path,
		      O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	int e;

	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == w->claim_dev &&
	    st.st_ino == w->claim_ino) {
		if (futimens(fd, NULL) < 0)
			logmsg_w(&w->lg, "touch %s: %s", w->claim_path,
				 strerror(errno));
		close(fd);
		return;
	}
	e = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	if (e && e != ENOENT && e != ELOOP)
		logmsg_w(&w->lg, "open(%s): %s", w->claim_path, strerror(e));
	else if (!w->claim_lost) {
		w->claim_lost = 1;
		logmsg_w(&w->lg,
			 "trial=%s claim lost (requeued?)%s; finishing it "
			 "anyway",
			 w->trial_id, e ? "" : " or replaced, not touched");
	}
}

/* A note of run_trial() about the trainer's progress lines. */
static void note(void *arg, const char *msg)
{
	struct worker *w = arg;

	logmsg_w(&w->lg, "trial=%s: %s", w->trial_id, msg);
}

/* Heartbeat: claim and registry.  Also called by run_trial(). */
static void beat(void *arg)
{
	struct worker *w = arg;

	if (w->claim_path)
		touch_claim(w);
	if (registry_touch(&w->rg))
		logmsg_w(&w->lg, "cannot refresh '%s': %s", w->rg.path,
			 strerror(errno));
	w->next_beat = timeutil_mono() + w->heartbeat;
}

static int finished_exists(const struct worker *w)
{
	char p[STUDY_PATH_MAX];
	struct stat st;

	return !study_path(p, sizeof(p), w->root, "FINISHED") &&
	       lstat(p, &st) == 0;
}

/*
 * FINISHED exists, and no request that runs the study again is queued: a
 * worker started right after `dehbq extend` or `dehbq requeue` (a SLURM
 * array, before the orchestrator took the request) waits for the trials
 * to come instead of exiting.  The orchestrator removes FINISHED before
 * the request file, so FINISHED seen again after no request was listed
 * means the study is finished (one taken meanwhile removed it first).
 */
static int finished(struct worker *w)
{
	char p[STUDY_PATH_MAX], shown[STUDY_NAME_MAX];
	struct dirent *e;
	DIR *d;

	if (!finished_exists(w))
		return 0;
	if (study_path(p, sizeof(p), w->root, "state/requests") ||
	    !(d = opendir(p)))
		return finished_exists(w);
	while ((e = readdir(d)) && !study_request_resumes(e->d_name))
		;
	if (e && !w->resume_said++) {
		fsutil_printable(e->d_name, shown, sizeof(shown));
		logmsg_i(&w->lg,
			 "FINISHED exists, but state/requests/%s is queued: "
			 "waiting for its orchestrator to run the study again",
			 shown);
	}
	closedir(d);
	return !e && finished_exists(w);
}

static void fill_identity(const struct worker *w, const struct trial *t,
			  struct result *r)
{
	const char *s;

	id_trial_format(t->id, r->id);
	memcpy(r->study, w->spec.study, sizeof(r->study));
	r->attempt = t->attempt;
	r->token = t->token;
	memcpy(r->worker, w->cx.worker, sizeof(r->worker));
	memcpy(r->host, w->cx.host, sizeof(r->host));
	r->pid = w->cx.pid;
	if ((s = getenv("SLURM_JOB_ID")))
		snprintf(r->slurm_job, sizeof(r->slurm_job), "%s", s);
	if ((s = getenv("SLURM_ARRAY_JOB_ID")))
		snprintf(r->slurm_array_job, sizeof(r->slurm_array_job), "%s",
			 s);
	if ((s = getenv("SLURM_ARRAY_TASK_ID")))
		snprintf(r->slurm_array_task, sizeof(r->slurm_array_task), "%s",
			 s);
}

enum step {
	STEP_RAN = 0, /* ran a trial: loop at once */
	STEP_LOST,    /* lost every race: rescan at once */
	STEP_IDLE,    /* nothing to claim */
	STEP_EXIT,    /* stop: clean exit 0 */
	STEP_FAIL,    /* system failure: exit 111 */
};

/* Wait up to secs for new trials or a signal; 1 if inotify woke it. */
static int idle_wait(struct worker *w, double secs)
{
	return wake_wait(&w->wk, secs, beat, w, &w->next_beat);
}

/* Give c back when it cannot end before --time-limit: 1 when given back. */
static int out_of_time(struct worker *w, struct claim *c)
{
	double left, need;
	int rc;

	if (w->end_time <= 0)
		return 0;
	left = w->end_time - timeutil_now();
	need = run_est_get(&w->est, c->trial.fidelity);
	if (!(need > 0 && need + w->o.grace > left))
		return 0;
	rc = claim_giveback(&w->cx, c);
	logmsg_i(&w->lg,
		 "trial=%s released: needs ~%.1fs, %.1fs left before the "
		 "time limit%s",
		 w->trial_id, need, left, rc ? " (release failed)" : "");
	return 1;
}

/* Stopped by a signal: rename the claim back to pending/. */
static void give_back(struct worker *w, struct claim *c)
{
	int rc = claim_giveback(&w->cx, c);

	if (rc == DEHBQ_OK)
		logmsg_i(&w->lg,
			 "trial=%s attempt=%d released to pending (signal %d)",
			 w->trial_id, c->trial.attempt, (int)wake_stop);
	else
		logmsg_w(&w->lg,
			 "trial=%s cannot release claim '%s': %s; the lease "
			 "will expire",
			 w->trial_id, c->path,
			 rc == DEHBQ_ENOENT ? "it is gone" : strerror(errno));
}

/*
 * Write r into results/.  A full or failing disk must not throw away a
 * finished evaluation: keep the claim alive (heartbeats continue) and
 * retry, doubling the wait up to 30 s, until it works or the worker is
 * told to stop.
 */
static int write_result(struct worker *w, const struct result *r)
{
	char name[STUDY_NAME_MAX];
	double retry;
	int rc;

	for (retry = 1;; retry = retry < 15 ? retry * 2 : 30) {
		rc = run_write_result(w->root, r, name, sizeof(name));
		if (!rc || rc != DEHBQ_ESYS || !fsutil_storage_errno(errno) ||
		    wake_stop)
			break;
		logmsg_w(&w->lg,
			 "trial=%s cannot write results/%s: %s; retrying in "
			 "%.0f s",
			 w->trial_id, name, strerror(errno), retry);
		idle_wait(w, retry);
	}
	if (rc)
		logmsg_e(&w->lg, "trial=%s cannot write results/%s: %s",
			 w->trial_id, name, strerror(errno));
	return rc;
}

/* Count a written result in the estimates and the failure run; log it. */
static void record(struct worker *w, const struct claim *c,
		   const struct result *r, const char *fid)
{
	char why[120], log[40];

	run_est_add(&w->est, c->trial.fidelity, r->wall_time);
	if (result_has_loss(r)) { /* ok, or stopped: not a failure */
		w->fail_run = 0;
		logmsg_i(&w->lg,
			 "trial=%s attempt=%d fidelity=%s done status=%s "
			 "loss=%.17g wall=%.3fs",
			 w->trial_id, c->trial.attempt, fid,
			 result_status_name(r->status), r->loss, r->wall_time);
		return;
	}
	w->fail_run++;
	fsutil_printable(r->error, why, sizeof(why));
	study_log_path(log, sizeof(log), "", c->trial.id, c->trial.attempt,
		       "err");
	snprintf(w->fail_last, sizeof(w->fail_last),
		 "trial %s attempt %d: %s; its log: %s", w->trial_id,
		 c->trial.attempt, why, log);
	logmsg_i(&w->lg,
		 "trial=%s attempt=%d fidelity=%s done status=%s wall=%.3fs "
		 "error=%s",
		 w->trial_id, c->trial.attempt, fid,
		 result_status_name(r->status), r->wall_time, r->error);
}

/* Run one claimed trial to its result (or release it on a signal). */
static enum step run_claimed(struct worker *w, struct claim *c)
{
	struct run_opts ro = {
		.argv = w->o.cmd,
		.timeout = w->o.trial_timeout,
		.grace = w->o.grace,
		.log_cap = w->o.log_cap,
		.heartbeat = w->heartbeat,
		.tick = beat,
		.tick_arg = w,
		.note = note,
		.stop_grace = w->spec.stop_grace,
		.wake_fd = w->wk.pipe_r,
		.stop = &wake_stop,
		.mem_limit = w->o.mem_per,
	};
	struct run_job job = {
		.trial = &c->trial,
		.space = w->spec.space,
		.root = w->root,
		.study = w->spec.study,
		.obj = &w->spec.obj,
		.gpus = w->gpus,
	};
	struct result r;
	char err[DEHBQ_ERRLEN], fid[40];
	int stopped = 0;
	enum step st = STEP_RAN;

	jsonfile_fmt_double(fid, sizeof(fid), c->trial.fidelity);
	id_trial_format(c->trial.id, w->trial_id);
	logmsg_i(&w->lg, "trial=%s attempt=%d fidelity=%s claimed", w->trial_id,
		 c->trial.attempt, fid);
	if (out_of_time(w, c))
		return STEP_EXIT;
	w->claim_path = c->path;
	w->claim_dev = c->dev;
	w->claim_ino = c->ino;
	w->claim_lost = 0;
	if (registry_write(&w->rg, w->trial_id))
		logmsg_w(&w->lg, "cannot write '%s': %s", w->rg.path,
			 strerror(errno));
	if (result_init(&r)) {
		logmsg_e(&w->lg, "out of memory");
		w->claim_path = NULL;
		return STEP_FAIL;
	}
	fill_identity(w, &c->trial, &r);
	if (run_trial(&ro, &job, &r, &stopped, err)) {
		logmsg_e(&w->lg, "trial=%s cannot run: %s", w->trial_id, err);
		st = STEP_FAIL;
	} else if (stopped) {
		give_back(w, c);
		st = STEP_EXIT;
	} else if (write_result(w, &r)) {
		st = STEP_FAIL;
	} else {
		record(w, c, &r, fid);
	}
	w->claim_path = NULL;
	result_release(&r);
	if (st == STEP_RAN && registry_write(&w->rg, NULL))
		logmsg_w(&w->lg, "cannot write '%s': %s", w->rg.path,
			 strerror(errno));
	return st;
}

/* Scan pending/ and run at most one trial. */
static enum step step(struct worker *w, struct claim_list *l)
{
	struct claim c;
	char err[DEHBQ_ERRLEN];
	size_t i;
	int rc, hinted = w->wk.hints.n > 0;

	if (hinted) {
		/* woken by inotify: try the announced names, no listing */
		struct claim_list t = *l;

		*l = w->wk.hints;
		w->wk.hints = t;
		w->wk.hints.n = 0;
	} else {
		wake_watch(&w->wk, 1);
		if ((rc = claim_scan(&w->cx, l))) {
			logmsg_e(&w->lg, "cannot list '%s/pending': %s",
				 w->root,
				 rc == DEHBQ_ESYS ? strerror(errno)
						  : dehbq_strerror(rc));
			return STEP_FAIL;
		}
	}
	if (!l->n)
		return STEP_IDLE;
	while (l->n) {
		i = claim_choose(l->ents, l->n, w->o.pick, rng_u64(&w->rng));
		rc = claim_try(&w->cx, &l->ents[i], &c, err);
		claim_list_remove(l, i);
		if (rc == DEHBQ_ELOST)
			continue;
		if (rc) {
			logmsg_e(&w->lg, "cannot claim '%s/pending/%s': %s",
				 w->root, c.pending_name,
				 rc == DEHBQ_ESYS ? strerror(errno)
						  : dehbq_strerror(rc));
			return STEP_FAIL;
		}
		{
			enum step st;

			wake_watch(&w->wk, 0);
			st = run_claimed(w, &c);

			claim_release(&c);
			return st;
		}
	}
	/* Every announced trial went to another worker: wait for the next
	 * event rather than listing pending/ (timeouts still list it). */
	return hinted ? STEP_IDLE : STEP_LOST;
}

/*
 * The trainer runs in the trial's work directory, so a command or argument
 * that names a file relative to the worker's own directory ("./train.sh",
 * "train.py") would not be found there and every trial would fail.  Such
 * names are resolved to absolute paths at start, and the worker says so.
 * A command given with a '/' that names no file here is refused.  Other
 * arguments are left alone: they may be meant for the work directory.
 * Returns 0, or -1 after its one-line message.
 */
static int resolve_relative_args(struct worker *w)
{
	char abs[PATH_MAX];
	struct stat st;
	size_t i;

	for (i = 0; w->o.cmd[i] && i < RESOLVED_MAX; i++) {
		const char *a = w->o.cmd[i];

		if (a[0] == '/' || a[0] == '-' || strchr(a, '{') ||
		    (i == 0 && !strchr(a, '/'))) /* found on PATH */
			continue;
		if (stat(a, &st) < 0 || !S_ISREG(st.st_mode)) {
			if (i > 0)
				continue;
			fprintf(stderr,
				"dehbq-worker: command '%s' is not a file "
				"relative to this directory; the trainer runs "
				"in each trial's work directory: give it as an "
				"absolute path\n",
				a);
			return -1;
		}
		if (!realpath(a, abs) || !(w->resolved[i] = strdup(abs))) {
			fprintf(stderr, "dehbq-worker: fatal: '%s': %s\n", a,
				strerror(errno));
			return -1;
		}
		logmsg_i(&w->lg,
			 "'%s' resolved to '%s': the trainer runs in each "
			 "trial's work directory",
			 a, abs);
		w->o.cmd[i] = w->resolved[i];
	}
	return 0;
}

static int loop(struct worker *w)
{
	struct claim_list l;
	double backoff = 0.2, idle_since = timeutil_mono();
	long done = 0;
	const char *why = NULL;
	int code = 0;

	claim_list_init(&l);
	for (;;) {
		enum step st;

		if (wake_stop) {
			why = wake_stop == SIGINT ? "SIGINT" : "SIGTERM";
			break;
		}
		if (finished(w)) {
			why = "study finished (FINISHED exists)";
			break;
		}
		if (w->o.max_trials && done >= w->o.max_trials) {
			why = "--max-trials reached";
			break;
		}
		if (w->end_time > 0 && timeutil_now() >= w->end_time) {
			why = "time limit reached";
			break;
		}
		st = step(w, &l);
		if (st == STEP_FAIL) {
			code = EXIT_SYSTEM;
			why = "system failure";
			break;
		}
		if (st == STEP_EXIT) {
			why = wake_stop ? (wake_stop == SIGINT ? "SIGINT"
							       : "SIGTERM")
					: "time limit: no time for the next "
					  "trial";
			break;
		}
		if (st == STEP_RAN || st == STEP_LOST) {
			done += st == STEP_RAN;
			if (w->o.max_fail > 0 && w->fail_run >= w->o.max_fail) {
				logmsg_e(&w->lg,
					 "%ld trials in a row failed on this "
					 "host, the last %s. Is the command "
					 "runnable here? "
					 "(--max-failures-in-a-row %ld)",
					 w->fail_run, w->fail_last,
					 w->o.max_fail);
				code = EXIT_USAGE;
				why = "--max-failures-in-a-row reached";
				break;
			}
			backoff = 0.2;
			idle_since = timeutil_mono();
			continue;
		}
		/* Idle. */
		if (w->o.idle_exit > 0 &&
		    timeutil_mono() - idle_since >= w->o.idle_exit) {
			why = "--idle-exit: nothing to claim";
			break;
		}
		{
			double wait = backoff * (0.5 + rng_uniform(&w->rng));

			if (w->o.idle_exit > 0) {
				double left = idle_since + w->o.idle_exit -
					      timeutil_mono();

				if (left < wait)
					wait = left > 0 ? left : 0;
			}
			if (idle_wait(w, wait))
				backoff = 0.2;
			else if ((backoff *= 2) > w->o.max_poll)
				backoff = w->o.max_poll;
		}
	}
	claim_list_release(&l);
	logmsg_i(&w->lg, "exiting: %s (%ld trials run)", why, done);
	return code;
}

int main(int argc, char **argv)
{
	struct worker w;
	char err[DEHBQ_ERRLEN];
	const char *s;
	int rc, code = EXIT_USAGE;
	uint64_t seed;
	size_t i;

	memset(&w, 0, sizeof(w));
	wake_init(&w.wk);
	logmsg_init(&w.lg, "dehbq-worker");
	if ((rc = wopts_parse(argc, argv, &w.o)))
		return rc > 0 ? 0
			      : EXIT_USAGE; /* help, or its message said why */
	if (w.o.verbose)
		w.lg.min = LOGMSG_DEBUG;
	if (!realpath(w.o.study, w.root)) {
		fprintf(stderr,
			"dehbq-worker: fatal: unable to open '%s': %s\n",
			w.o.study, strerror(errno));
		return EXIT_USAGE;
	}
	if ((rc = spec_load_study(w.root, &w.spec, err))) {
		fprintf(stderr, "dehbq-worker: fatal: %s\n", err);
		return rc == DEHBQ_ESYS && !fsutil_path_errno(errno)
			       ? EXIT_SYSTEM
			       : EXIT_USAGE;
	}
	code = EXIT_SYSTEM;
	if (w.o.heartbeat > w.spec.lease / 2) {
		fprintf(stderr,
			"dehbq-worker: --heartbeat %g is longer than half the "
			"study's lease (%g s): claims would expire while "
			"trials run; use at most %g\n",
			w.o.heartbeat, w.spec.lease, w.spec.lease / 2);
		spec_release(&w.spec);
		return EXIT_USAGE;
	}
	w.heartbeat = w.o.heartbeat > 0 ? w.o.heartbeat : w.spec.lease / 4;
	if (w.o.max_fail < 0)
		w.o.max_fail = w.spec.max_failures_in_a_row;
	if (!(w.heartbeat > 0.01))
		w.heartbeat = 0.01;
	w.slot = -1;
	if (slots_wanted(&w.o) && slots_start(&w.o, &w.wk, &w.lg, &w.slot,
					      w.gpus, sizeof(w.gpus), &code))
		goto out;
	id_host(w.cx.host);
	id_worker_new(w.cx.worker);
	w.cx.pid = (long)getpid();
	w.cx.root = w.root;
	w.cx.spec = &w.spec;
	w.cx.lg = &w.lg;
	seed = (uint64_t)strtoull(w.cx.worker, NULL, 16) ^
	       ((uint64_t)w.cx.pid << 48) ^ (uint64_t)(timeutil_now() * 1e6);
	rng_seed(&w.rng, seed);
	if (w.o.time_limit > 0)
		w.end_time = timeutil_now() + w.o.time_limit;
	else if ((s = getenv("SLURM_JOB_END_TIME")) && *s) {
		char *end;
		double v = strtod(s, &end);

		if (!*end && v > 0 && v < 1e11)
			w.end_time = v;
		else
			logmsg_w(&w.lg,
				 "SLURM_JOB_END_TIME is not a Unix time; "
				 "ignored (give --time-limit SECS instead)");
	}
	if (resolve_relative_args(&w)) {
		code = EXIT_USAGE;
		goto out;
	}
	if (w.wk.pipe_r < 0 && wake_signals(&w.wk) < 0) { /* a slot's are set */
		fprintf(stderr, "dehbq-worker: fatal: signals: %s\n",
			strerror(errno));
		goto out;
	}
	rc = registry_init(&w.rg, w.root, w.cx.host, w.cx.pid, w.cx.worker,
			   w.o.cmd[0]);
	w.rg.slot = w.slot; /* a slot's entry says so (slots.h) */
	w.rg.parent = (long)getppid();
	w.rg.gpus = w.gpus;
	if (rc || registry_write(&w.rg, NULL)) {
		fprintf(stderr,
			"dehbq-worker: fatal: unable to write '%s/workers': "
			"%s\n",
			w.root, strerror(errno));
		goto out;
	}
	if (wake_inotify(&w.wk, w.root) < 0)
		logmsg_d(&w.lg, "inotify unavailable (%s): polling only",
			 strerror(errno));
	w.next_beat = timeutil_mono() + w.heartbeat;
	logmsg_i(&w.lg, "worker=%s host=%s study=%s started, command '%s'",
		 w.cx.worker, w.cx.host, w.root, w.o.cmd[0]);
	if (w.slot >= 0)
		logmsg_i(&w.lg, "slot %d of worker pid %ld, GPUs '%s'", w.slot,
			 w.rg.parent, w.gpus);
	else if (w.gpus[0])
		logmsg_i(&w.lg, "GPUs '%s'", w.gpus);
	code = loop(&w);
	if (registry_remove(&w.rg))
		logmsg_w(&w.lg, "cannot remove '%s': %s", w.rg.path,
			 strerror(errno));
out:
	wake_close(&w.wk);
	for (i = 0; i < RESOLVED_MAX; i++)
		free(w.resolved[i]);
	spec_release(&w.spec);
	return code;
}
