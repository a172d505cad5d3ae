/*
 * main.c - dehbq-worker: claim pending trials of a study and run them
 *
 * Parses arguments, installs the signal handlers (the only globals: a
 * flag and a self-pipe), and runs the loop:
 *   - exit 0 when STUDY/FINISHED exists, after --max-trials attempts,
 *     after --idle-exit seconds with nothing to claim, when --time-limit
 *     (or SLURM_JOB_END_TIME) leaves too little time, or on SIGTERM/SIGINT
 *     (a running trial is stopped and its claim renamed back to pending/);
 *   - scan pending/, claim one trial (claim.c), run it (run.c), write its
 *     result, repeat at once;
 *   - with nothing to claim, wait for inotify (pending/ and the study
 *     root, local writes only) or a jittered, doubling timeout from 0.2 s
 *     up to --max-poll, so idle workers do not hammer NFS.  pending/ is
 *     watched only while looking for work (ino_watch);
 *   - heartbeat: utime() of the claim and of workers/HOST.PID.WID.json
 *     every lease / 4 (--heartbeat), busy or idle;
 *   - exit 100 after --max-failures-in-a-row failed trials in a row
 *     (default: the study's runtime.max_failures_in_a_row): a command that
 *     cannot run on this host must not eat the queue.
 * Exit codes: 0 done, 100 bad usage or study, or the command fails every
 * trial here; 111 system failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

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
#include "space.h"
#include "spec.h"
#include "study.h"
#include "timeutil.h"
#include "version.h"
#include "trial.h"

#define EXIT_USAGE  100
#define EXIT_SYSTEM 111

static const char usage[] =
	"usage: dehbq-worker --study DIR [options] -- CMD [ARGS...]\n"
	"\n"
	"Claim pending trials of the study DIR one at a time and run CMD for\n"
	"each.  Placeholders in ARGS: {config} {budget} {id} {attempt}\n"
	"{workdir} {result} {seed} {parent_workdir}.  CMD runs in the\n"
	"trial's work directory: give scripts by absolute path.\n"
	"\n"
	"options:\n"
	"  --study DIR          the study directory (required)\n"
	"  --trial-timeout S    kill a trial after S seconds (default: none)\n"
	"  --grace S            seconds between SIGTERM and SIGKILL "
	"(default 10)\n"
	"  --log-cap BYTES      cap of each trial log, suffix K/M/G allowed\n"
	"                       (default 10M)\n"
	"  --max-poll S         longest idle rescan period (default 5)\n"
	"  --max-trials N       exit after N trials (default: no limit)\n"
	"  --idle-exit S        exit after S seconds with nothing to claim\n"
	"  --time-limit S       claim no trial that would end after S seconds\n"
	"                       (default: SLURM_JOB_END_TIME if set)\n"
	"  --heartbeat S        heartbeat period, at most lease / 2\n"
	"                       (default: lease / 4)\n"
	"  --pick K             choose among the first K best trials "
	"(default 8)\n"
	"  --max-failures-in-a-row N\n"
	"                       exit (100) after N failed trials in a row; "
	"0 never\n"
	"                       (default: the study's "
	"runtime.max_failures_in_a_row)\n"
	"  -v, --verbose        log debug records too\n"
	"  -h, --help           show this help\n"
	"      --version        print the release and exit\n"
	"\n"
	"Exit codes: 0 done (FINISHED, --max-trials, --idle-exit,\n"
	"--time-limit, SIGTERM), 100 bad usage or study or\n"
	"--max-failures-in-a-row reached, 111 system failure.\n";

static volatile sig_atomic_t stop_flag; /* SIGTERM/SIGINT seen */
static int wake_w = -1;			/* self-pipe write end */

static void on_signal(int sig)
{
	int e = errno;
	char c = (char)sig;

	if (sig == SIGTERM || sig == SIGINT)
		stop_flag = sig;
	if (wake_w >= 0 && write(wake_w, &c, 1) < 0) {
		/* pipe full: a wake-up is already pending */
	}
	errno = e;
}

struct opts {
	const char *study;    /* --study */
	double trial_timeout; /* 0 = none */
	double grace;	      /* SIGTERM -> SIGKILL */
	size_t log_cap;	      /* bytes per log */
	double max_poll;      /* longest idle wait */
	long max_trials;      /* 0 = no limit */
	double idle_exit;     /* 0 = never */
	double time_limit;    /* 0 = none (SLURM_JOB_END_TIME applies) */
	double heartbeat;     /* 0 = lease / 4 */
	int pick;	      /* k of the random choice */
	long max_fail;	      /* failures in a row before exit; -1 = spec's */
	int verbose;	      /* -v */
	char **cmd;	      /* argv after "--"; relative file names are
				 replaced by resolve_relative_args() */
};

/* The worker's state, owned by main(). */
#define RESOLVED_MAX 64 /* command arguments resolve_relative_args() sees */

struct worker {
	struct opts o;		      /* options */
	char *resolved[RESOLVED_MAX]; /* owned copies in o.cmd, or NULL */
	char root[PATH_MAX];	      /* absolute study directory */
	struct spec spec;	      /* study.json */
	struct logmsg lg;	      /* logger */
	struct claim_ctx cx;	      /* claim context */
	struct registry rg;	      /* workers/ entry */
	struct rng rng;		      /* random choices and jitter */
	struct run_est est;	      /* durations for --time-limit */
	double end_time;	      /* unix time to stop by; 0 = none */
	int wake_r;		      /* self-pipe read end */
	int ino;		      /* inotify fd or -1 */
	int ino_pending;	      /* its watch on pending/, or -1 */
	struct claim_list hints;      /* names announced by inotify */
	const char *claim_path;	      /* claim being heartbeaten, or NULL */
	dev_t claim_dev;	      /* ... the file it names when claimed */
	ino_t claim_ino;
	char trial_id[ID_TRIAL_LEN]; /* its id, for messages */
	int claim_lost;		     /* warned about the lost claim */
	double next_beat;	     /* monotonic time of next idle beat */
	double heartbeat;	     /* seconds between beats */
	long fail_run;		     /* trials that failed in a row */
	char fail_last[256];	     /* the last one, for the exit message */
};

static int num(const char *opt, const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0) {
		fprintf(stderr,
			"dehbq-worker: option '--%s': '%s' is not a number "
			">= 0\n",
			opt, s);
		return -1;
	}
	*out = v;
	return 0;
}

static int bytes(const char *s, size_t *out)
{
	char *end;
	double v, m = 1;

	errno = 0;
	v = strtod(s, &end);
	if (*end == 'K' || *end == 'k')
		m = 1024, end++;
	else if (*end == 'M' || *end == 'm')
		m = 1024.0 * 1024, end++;
	else if (*end == 'G' || *end == 'g')
		m = 1024.0 * 1024 * 1024, end++;
	if (errno || end == s || *end || !(v >= 0) || v * m > 1e15) {
		fprintf(stderr,
			"dehbq-worker: option '--log-cap': '%s' is not a "
			"size\n",
			s);
		return -1;
	}
	*out = (size_t)(v * m);
	return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longs[] = {
		{"study", required_argument, NULL, 's'},
		{"trial-timeout", required_argument, NULL, 't'},
		{"grace", required_argument, NULL, 'g'},
		{"log-cap", required_argument, NULL, 'l'},
		{"max-poll", required_argument, NULL, 'p'},
		{"max-trials", required_argument, NULL, 'n'},
		{"idle-exit", required_argument, NULL, 'i'},
		{"time-limit", required_argument, NULL, 'T'},
		{"heartbeat", required_argument, NULL, 'b'},
		{"pick", required_argument, NULL, 'k'},
		{"max-failures-in-a-row", required_argument, NULL, 'F'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	double d;
	int c, idx;

	memset(o, 0, sizeof(*o));
	o->grace = 10;
	o->log_cap = RUN_LOG_CAP;
	o->max_poll = 5;
	o->pick = CLAIM_PICK_K;
	o->max_fail = -1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+vh", longs, &idx)) != -1) {
		switch (c) {
		case 's':
			o->study = optarg;
			break;
		case 't':
			if (num("trial-timeout", optarg, &o->trial_timeout))
				return -1;
			break;
		case 'g':
			if (num("grace", optarg, &o->grace))
				return -1;
			break;
		case 'l':
			if (bytes(optarg, &o->log_cap))
				return -1;
			break;
		case 'p':
			if (num("max-poll", optarg, &o->max_poll))
				return -1;
			break;
		case 'n':
			if (num("max-trials", optarg, &d))
				return -1;
			o->max_trials =
				d > LONG_MAX / 2 ? LONG_MAX / 2 : (long)d;
			break;
		case 'i':
			if (num("idle-exit", optarg, &o->idle_exit))
				return -1;
			break;
		case 'T':
			if (num("time-limit", optarg, &o->time_limit))
				return -1;
			break;
		case 'b':
			if (num("heartbeat", optarg, &o->heartbeat))
				return -1;
			break;
		case 'k':
			if (num("pick", optarg, &d))
				return -1;
			o->pick = d < 1 ? 1 : d > 1000 ? 1000 : (int)d;
			break;
		case 'F':
			if (num("max-failures-in-a-row", optarg, &d))
				return -1;
			if (d != floor(d) || d > SPEC_FAILURES_MAX) {
				fprintf(stderr,
					"dehbq-worker: option "
					"'--max-failures-in-a-row': '%s' is "
					"not an integer in 0 ... %d\n",
					optarg, SPEC_FAILURES_MAX);
				return -1;
			}
			o->max_fail = (long)d;
			break;
		case 'v':
			o->verbose = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		case 'V':
			printf("dehbq-worker %s\n", dehbq_version);
			exit(0);
		default:
			fprintf(stderr,
				"dehbq-worker: unknown or incomplete "
				"option '%s'\n",
				argv[optind - 1]);
			return -1;
		}
	}
	if (!o->study) {
		fputs("dehbq-worker: need --study DIR\n", stderr);
		return -1;
	}
	if (optind < argc && !strcmp(argv[optind - 1], "--"))
		o->cmd = argv + optind;
	else if (optind < argc) {
		fprintf(stderr,
			"dehbq-worker: put '--' before the command "
			"('%s')\n",
			argv[optind]);
		return -1;
	}
	if (!o->cmd || !o->cmd[0] || !o->cmd[0][0]) {
		fputs("dehbq-worker: need a command after '--'\n", stderr);
		return -1;
	}
	if (o->max_poll < 0.2)
		o->max_poll = 0.2;
	return 0;
}

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

static int finished(const struct worker *w)
{
	char p[STUDY_PATH_MAX];
	struct stat st;

	if (study_path(p, sizeof(p), w->root, "FINISHED"))
		return 0;
	return lstat(p, &st) == 0;
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

/* Run one claimed trial to its result (or release it on a signal). */
static int idle_wait(struct worker *w, double secs);

static enum step run_claimed(struct worker *w, struct claim *c)
{
	struct run_opts ro;
	struct run_job job;
	struct result r;
	char err[DEHBQ_ERRLEN], fid[40], name[STUDY_NAME_MAX];
	int rc, stopped = 0;
	double retry;
	enum step st = STEP_RAN;

	jsonfile_fmt_double(fid, sizeof(fid), c->trial.fidelity);
	id_trial_format(c->trial.id, w->trial_id);
	logmsg_i(&w->lg, "trial=%s attempt=%d fidelity=%s claimed", w->trial_id,
		 c->trial.attempt, fid);
	if (w->end_time > 0) {
		double left = w->end_time - timeutil_now();
		double need = run_est_get(&w->est, c->trial.fidelity);

		if (need > 0 && need + w->o.grace > left) {
			rc = claim_giveback(&w->cx, c);
			logmsg_i(&w->lg,
				 "trial=%s released: needs ~%.1fs, "
				 "%.1fs left before the time limit%s",
				 w->trial_id, need, left,
				 rc ? " (release failed)" : "");
			return STEP_EXIT;
		}
	}
	w->claim_path = c->path;
	w->claim_dev = c->dev;
	w->claim_ino = c->ino;
	w->claim_lost = 0;
	if (registry_write(&w->rg, w->trial_id))
		logmsg_w(&w->lg, "cannot write '%s': %s", w->rg.path,
			 strerror(errno));
	memset(&ro, 0, sizeof(ro));
	ro.argv = w->o.cmd;
	ro.timeout = w->o.trial_timeout;
	ro.grace = w->o.grace;
	ro.log_cap = w->o.log_cap;
	ro.heartbeat = w->heartbeat;
	ro.tick = beat;
	ro.tick_arg = w;
	ro.wake_fd = w->wake_r;
	ro.stop = &stop_flag;
	job.trial = &c->trial;
	job.space = w->spec.space;
	job.root = w->root;
	job.study = w->spec.study;
	job.obj = &w->spec.obj;
	if (result_init(&r)) {
		logmsg_e(&w->lg, "out of memory");
		st = STEP_FAIL;
		goto out;
	}
	fill_identity(w, &c->trial, &r);
	rc = run_trial(&ro, &job, &r, &stopped, err);
	if (rc) {
		logmsg_e(&w->lg, "trial=%s cannot run: %s", w->trial_id, err);
		st = STEP_FAIL;
		goto out;
	}
	if (stopped) {
		rc = claim_giveback(&w->cx, c);
		if (rc == DEHBQ_OK)
			logmsg_i(&w->lg,
				 "trial=%s attempt=%d released to "
				 "pending (signal %d)",
				 w->trial_id, c->trial.attempt, (int)stop_flag);
		else
			logmsg_w(&w->lg,
				 "trial=%s cannot release claim '%s': "
				 "%s; the lease will expire",
				 w->trial_id, c->path,
				 rc == DEHBQ_ENOENT ? "it is gone"
						    : strerror(errno));
		st = STEP_EXIT;
		goto out;
	}
	/* A full or failing disk must not throw away a finished evaluation:
	 * keep the claim alive (heartbeats continue) and retry, doubling the
	 * wait up to 30 s, until it works or the worker is told to stop. */
	for (retry = 1;; retry = retry < 15 ? retry * 2 : 30) {
		rc = run_write_result(w->root, &r, name, sizeof(name));
		if (!rc || rc != DEHBQ_ESYS || !fsutil_storage_errno(errno) ||
		    stop_flag)
			break;
		logmsg_w(&w->lg,
			 "trial=%s cannot write results/%s: %s; retrying in "
			 "%.0f s",
			 w->trial_id, name, strerror(errno), retry);
		idle_wait(w, retry);
	}
	if (rc) {
		logmsg_e(&w->lg, "trial=%s cannot write results/%s: %s",
			 w->trial_id, name, strerror(errno));
		st = STEP_FAIL;
		goto out;
	}
	run_est_add(&w->est, c->trial.fidelity, r.wall_time);
	if (r.status == RESULT_OK) {
		w->fail_run = 0;
	} else {
		char why[120], log[40];

		w->fail_run++;
		fsutil_printable(r.error, why, sizeof(why));
		study_log_path(log, sizeof(log), "", c->trial.id,
			       c->trial.attempt, "err");
		snprintf(w->fail_last, sizeof(w->fail_last),
			 "trial %s attempt %d: %s; its log: %s", w->trial_id,
			 c->trial.attempt, why, log);
	}
	if (r.status == RESULT_OK)
		logmsg_i(&w->lg,
			 "trial=%s attempt=%d fidelity=%s done "
			 "status=ok loss=%.17g wall=%.3fs",
			 w->trial_id, c->trial.attempt, fid, r.loss,
			 r.wall_time);
	else
		logmsg_i(&w->lg,
			 "trial=%s attempt=%d fidelity=%s done "
			 "status=%s wall=%.3fs error=%s",
			 w->trial_id, c->trial.attempt, fid,
			 result_status_name(r.status), r.wall_time, r.error);
out:
	w->claim_path = NULL;
	result_release(&r);
	if (st == STEP_RAN && registry_write(&w->rg, NULL))
		logmsg_w(&w->lg, "cannot write '%s': %s", w->rg.path,
			 strerror(errno));
	return st;
}

static void drain_fd(int fd)
{
	char buf[4096];

	if (fd < 0)
		return;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

/*
 * Watch pending/ (on) or stop (off).  Every rename into pending/ queues an
 * event for each watch on it, and the renamer pays for that: a busy
 * worker's watch would cost the orchestrator a few microseconds per
 * trial it publishes, for events nobody reads.  So the watch is added
 * before each listing of pending/ (a trial published after the listing
 * still wakes the worker) and removed when a trial is claimed, with the
 * events queued so far.  Without the watch (inotify_add_watch failed),
 * the worker polls.
 */
static void ino_watch(struct worker *w, int on)
{
	char p[STUDY_PATH_MAX];

	if (w->ino < 0 || on == (w->ino_pending >= 0))
		return;
	if (!on) {
		inotify_rm_watch(w->ino, w->ino_pending);
		w->ino_pending = -1;
		w->hints.n = 0;
		drain_fd(w->ino);
	} else if (study_path(p, sizeof(p), w->root, "pending") ||
		   (w->ino_pending = inotify_add_watch(
			    w->ino, p, IN_MOVED_TO | IN_CREATE)) < 0) {
		w->ino_pending = -1;
	}
}

/* Scan pending/ and run at most one trial. */
static enum step step(struct worker *w, struct claim_list *l)
{
	struct claim c;
	char err[DEHBQ_ERRLEN];
	size_t i;
	int rc, hinted = w->hints.n > 0;

	if (hinted) {
		/* woken by inotify: try the announced names, no listing */
		struct claim_list t = *l;

		*l = w->hints;
		w->hints = t;
		w->hints.n = 0;
	} else {
		ino_watch(w, 1);
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

			ino_watch(w, 0);
			st = run_claimed(w, &c);

			claim_release(&c);
			return st;
		}
	}
	/* Every announced trial went to another worker: wait for the next
	 * event rather than listing pending/ (timeouts still list it). */
	return hinted ? STEP_IDLE : STEP_LOST;
}

/* The inotify fd with the study root watched (FINISHED); -1 if none. */
static int ino_setup(struct worker *w)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	w->ino_pending = -1;
	if (fd < 0)
		return -1;
	if (inotify_add_watch(fd, w->root, IN_MOVED_TO | IN_CREATE) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Read the inotify events: names moved into pending/ become hints, so a
 * woken worker tries exactly the announced trials instead of every idle
 * worker listing the directory at once (the thundering herd).  On a queue
 * overflow the hints are dropped and the next step lists pending/.
 */
static void read_hints(struct worker *w)
{
	char buf[8192] __attribute__((aligned(8)));
	ssize_t n;

	while ((n = read(w->ino, buf, sizeof(buf))) > 0) {
		ssize_t off = 0;

		while (off + (ssize_t)sizeof(struct inotify_event) <= n) {
			const struct inotify_event *ev =
				(const struct inotify_event *)(buf + off);

			if (ev->mask & IN_Q_OVERFLOW)
				w->hints.n = 0;
			else if (ev->wd == w->ino_pending && ev->len &&
				 claim_list_add_hint(&w->hints, ev->name))
				w->hints.n =
					0; /* out of memory: list instead */
			off += (ssize_t)sizeof(*ev) + ev->len;
		}
	}
}

/* Wait up to secs for an inotify event or a signal; 1 if woken early. */
static int idle_wait(struct worker *w, double secs)
{
	struct pollfd fds[2];
	int n = 0, woke = 0;
	double until = timeutil_mono() + secs, now;

	while (!stop_flag && (now = timeutil_mono()) < until) {
		double t = until < w->next_beat ? until : w->next_beat;
		int ms = (int)((t - now) * 1000) + 1;

		n = 0;
		fds[n++] = (struct pollfd){w->wake_r, POLLIN, 0};
		if (w->ino >= 0)
			fds[n++] = (struct pollfd){w->ino, POLLIN, 0};
		if (ms < 0)
			ms = 0;
		if (poll(fds, (nfds_t)n, ms) > 0) {
			drain_fd(w->wake_r);
			if (n > 1 && fds[1].revents) {
				read_hints(w);
				woke = 1;
				break;
			}
		}
		if (timeutil_mono() >= w->next_beat)
			beat(w);
	}
	return woke;
}

static int setup_signals(struct worker *w)
{
	struct sigaction sa;
	int p[2];

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	w->wake_r = p[0];
	wake_w = p[1];
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGTERM, &sa, NULL) < 0 ||
	    sigaction(SIGINT, &sa, NULL) < 0 ||
	    sigaction(SIGCHLD, &sa, NULL) < 0)
		return -1;
	signal(SIGPIPE, SIG_IGN);
	return 0;
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
	claim_list_init(&w->hints);
	for (;;) {
		enum step st;

		if (stop_flag) {
			why = stop_flag == SIGINT ? "SIGINT" : "SIGTERM";
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
			why = stop_flag ? (stop_flag == SIGINT ? "SIGINT"
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
	claim_list_release(&w->hints);
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
	w.wake_r = w.ino = -1;
	logmsg_init(&w.lg, "dehbq-worker");
	if (parse_args(argc, argv, &w.o)) /* its one-line message said why */
		return EXIT_USAGE;
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
	if (setup_signals(&w) < 0) {
		fprintf(stderr, "dehbq-worker: fatal: signals: %s\n",
			strerror(errno));
		goto out;
	}
	if (registry_init(&w.rg, w.root, w.cx.host, w.cx.pid, w.cx.worker,
			  w.o.cmd[0]) ||
	    registry_write(&w.rg, NULL)) {
		fprintf(stderr,
			"dehbq-worker: fatal: unable to write '%s/workers': "
			"%s\n",
			w.root, strerror(errno));
		goto out;
	}
	w.ino = ino_setup(&w);
	if (w.ino < 0)
		logmsg_d(&w.lg, "inotify unavailable (%s): polling only",
			 strerror(errno));
	w.next_beat = timeutil_mono() + w.heartbeat;
	logmsg_i(&w.lg, "worker=%s host=%s study=%s started, command '%s'",
		 w.cx.worker, w.cx.host, w.root, w.o.cmd[0]);
	code = loop(&w);
	if (registry_remove(&w.rg))
		logmsg_w(&w.lg, "cannot remove '%s': %s", w.rg.path,
			 strerror(errno));
out:
	if (w.ino >= 0)
		close(w.ino);
	for (i = 0; i < RESOLVED_MAX; i++)
		free(w.resolved[i]);
	spec_release(&w.spec);
	return code;
}
