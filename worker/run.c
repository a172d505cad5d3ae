/*
 * run.c - run one attempt of a trial: fork + exec the operator's command
 *
 * Invariants and protocol (docs/protocol.md, section 5):
 *   - Only the operator's argv runs, through execvpe(): no shell unless the
 *     operator wrote one.  What the trainer is given (argv, environment,
 *     config.json, its directories) is runenv.c's; how its report and its
 *     end become a result is outcome.c's.
 *   - The trainer runs in its own process group with cwd = its workdir
 *     work/SSSS/ID-TOKEN/ (workdir.h; a later attempt reuses it, so a
 *     trainer may resume from its own checkpoints) and stdin = /dev/null.
 *     Timeout and stop send SIGTERM to the group, then SIGKILL after the
 *     grace period.  When the trainer exits, whatever is left in its group
 *     is SIGKILLed (while the trainer is still a zombie, so the group id
 *     cannot be reused).
 *   - stdout and stderr come through pipes and are copied into
 *     logs/SSSS/ID.aN.out and .err up to log_cap bytes each; the rest is
 *     dropped.  The last RUN_OUT_TAIL bytes of stdout and RESULT_TAIL_CAP
 *     bytes of stderr are also kept in memory: the report line is taken
 *     from there, so it is found even past the log cap.
 *   - The wait is poll(2) on the pipes, a pidfd (pidfd_open) and the
 *     worker's signal self-pipe (SIGCHLD wakes it too when pidfd_open is
 *     missing): no sleeping, so a no-op trainer costs a fork and an exec.
 */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomicfile.h"
#include "err.h"
#include "fsutil.h"
#include "id.h"
#include "live.h"
#include "outcome.h"
#include "result.h"
#include "runenv.h"
#include "study.h"
#include "timeutil.h"

/* A bounded buffer keeping the last cap bytes appended. */
struct tail {
	char *buf;  /* cap bytes */
	size_t cap; /* capacity */
	size_t len; /* bytes held, <= cap */
};

/* One output stream of the trainer. */
struct stream {
	int fd;		  /* pipe read end, -1 at EOF */
	int log;	  /* log file, -1 if none */
	size_t written;	  /* bytes written to the log */
	size_t cap;	  /* log cap */
	struct tail tail; /* last bytes, in memory */
};

static void tail_add(struct tail *t, const char *p, size_t n)
{
	if (!t->buf)
		return;
	if (n >= t->cap) {
		memcpy(t->buf, p + n - t->cap, t->cap);
		t->len = t->cap;
		return;
	}
	if (t->len + n > t->cap) {
		size_t drop = t->len + n - t->cap;

		memmove(t->buf, t->buf + drop, t->len - drop);
		t->len -= drop;
	}
	memcpy(t->buf + t->len, p, n);
	t->len += n;
}

/* Close an fd we own, keeping errno. */
static void xclose(int *fd)
{
	int e = errno;

	if (*fd >= 0)
		close(*fd);
	*fd = -1;
	errno = e;
}

/* Read what is there, stdout into lv too; EOF or error closes the
 * stream. */
static void stream_read(struct stream *s, struct live *lv)
{
	char buf[65536];
	ssize_t n;

	if (s->fd < 0)
		return;
	n = read(s->fd, buf, sizeof(buf));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		xclose(&s->fd);
		return;
	}
	tail_add(&s->tail, buf, (size_t)n);
	if (lv)
		live_feed(lv, buf, (size_t)n);
	if (s->log >= 0 && s->written < s->cap) {
		size_t w = (size_t)n;

		if (w > s->cap - s->written)
			w = s->cap - s->written;
		if (fsutil_write_all(s->log, buf, w))
			xclose(&s->log); /* disk full: stop logging, keep going
					  */
		else
			s->written += w;
	}
}

/* In the child: never returns. */
static void child(char *const *argv, char *const *envp, const char *cwd,
		  int out, int errfd, int report, unsigned long long mem)
{
	sigset_t none;
	int fd, e;

	setpgid(0, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0 && fd != 0) {
		dup2(fd, 0);
		close(fd);
	}
	if (dup2(out, 1) < 0 || dup2(errfd, 2) < 0 || chdir(cwd) < 0)
		goto fail;
	if (mem) { /* --mem-per-trial: the trainer's, never the worker's */
		struct rlimit rl;

		if (getrlimit(RLIMIT_AS, &rl) < 0)
			goto fail;
		if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (rlim_t)mem)
			rl.rlim_cur = (rlim_t)mem;
		if (setrlimit(RLIMIT_AS, &rl) < 0)
			goto fail;
	}
	execvpe(argv[0], argv, envp);
fail:
	e = errno;
	while (write(report, &e, sizeof(e)) < 0 && errno == EINTR)
		;
	_exit(127);
}

static int pidfd_open_(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

static int open_log(const char *path)
{
	int fd;

	do
		fd = open(path,
			  O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
			  0666);
	while (fd < 0 && errno == EINTR);
	return fd;
}

/* Kill the trainer's group; ESRCH (already gone) is fine. */
static void killgrp(pid_t pid, int sig)
{
	if (kill(-pid, sig) < 0 && errno == ESRCH)
		kill(pid, sig);
}

/* 1 when pid has exited (still a zombie, not reaped). */
static int exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno == ECHILD;
	return si.si_pid == pid;
}

static void drain(int fd)
{
	char buf[256];

	if (fd < 0)
		return;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

static int ms_until(double when, double now)
{
	double d = (when - now) * 1000.0 + 1;

	if (d < 0)
		return 0;
	if (d > 3600e3)
		return 3600000;
	return (int)d;
}

/* One attempt in progress: what run_trial() owns until it returns. */
struct attempt {
	struct runenv env;	       /* paths, argv, environment */
	struct stream so, se;	       /* the trainer's stdout, stderr */
	int outp[2], errp[2], exp_[2]; /* pipes: stdout, stderr, exec errno */
	int pidfd;		       /* -1 when pidfd_open is missing */
	pid_t pid;		       /* the trainer, its group's leader */
	int status;		       /* its wait status */
	int exec_errno;		       /* execvpe's errno, 0 when it ran */
	int timed_out;		       /* SIGTERM sent at the timeout */
	int termed;		       /* SIGTERM sent after a stop */
	struct live lv;		       /* its intermediate results */
	double stop_term;	       /* SIGTERM due after a stop, 0 */
	int killed;		       /* SIGKILL sent after the grace */
	double start;		       /* monotonic seconds, as all below */
	double deadline;	       /* the timeout, 0 = none */
	double kill_at;		       /* SIGKILL due, 0 = not yet */
	double next_tick;	       /* next heartbeat */
};

/* Everything the trainer needs before it can start. */
static int attempt_open(struct attempt *a, const struct run_opts *o,
			const struct run_job *j, const struct result *r,
			char *err)
{
	int rc;

	memset(a, 0, sizeof(*a));
	a->outp[0] = a->outp[1] = a->errp[0] = a->errp[1] = -1;
	a->exp_[0] = a->exp_[1] = a->pidfd = a->pid = -1;
	a->so.fd = a->so.log = a->se.fd = a->se.log = -1;
	if ((rc = live_open(&a->lv, j->root, r->id, r->attempt, r->worker)))
		return dehbq_errf(err, rc, "cannot track progress: %s",
				  dehbq_strerror(rc));
	if ((rc = runenv_prepare(&a->env, o->argv, j, err)))
		return rc;
	a->so.cap = a->se.cap = o->log_cap;
	a->so.tail.cap = RUN_OUT_TAIL;
	a->se.tail.cap = RESULT_TAIL_CAP;
	if (!(a->so.tail.buf = malloc(a->so.tail.cap)) ||
	    !(a->se.tail.buf = malloc(a->se.tail.cap)))
		return dehbq_errf(err, DEHBQ_ENOMEM, "out of memory");
	if ((a->so.log = open_log(a->env.out)) < 0)
		return dehbq_errf(err, DEHBQ_ESYS, "open(%s): %s", a->env.out,
				  strerror(errno));
	if ((a->se.log = open_log(a->env.err)) < 0)
		return dehbq_errf(err, DEHBQ_ESYS, "open(%s): %s", a->env.err,
				  strerror(errno));
	if (pipe2(a->outp, O_CLOEXEC) < 0 || pipe2(a->errp, O_CLOEXEC) < 0 ||
	    pipe2(a->exp_, O_CLOEXEC) < 0)
		return dehbq_errf(err, DEHBQ_ESYS, "pipe: %s", strerror(errno));
	return DEHBQ_OK;
}

/* Start the trainer and learn whether execvpe failed. */
static int spawn(struct attempt *a, const struct run_opts *o, struct result *r,
		 char *err)
{
	ssize_t nr;
	int e;

	r->started = timeutil_now();
	a->start = timeutil_mono();
	if ((a->pid = fork()) < 0)
		return dehbq_errf(err, DEHBQ_ESYS, "fork: %s", strerror(errno));
	if (a->pid == 0)
		child(a->env.argv, a->env.envp, a->env.workdir, a->outp[1],
		      a->errp[1], a->exp_[1], o->mem_limit);
	setpgid(a->pid, a->pid); /* also in the child: whichever runs first */
	xclose(&a->outp[1]);
	xclose(&a->errp[1]);
	xclose(&a->exp_[1]);
	do
		nr = read(a->exp_[0], &e, sizeof(e));
	while (nr < 0 && errno == EINTR);
	if (nr == (ssize_t)sizeof(e))
		a->exec_errno = e;
	xclose(&a->exp_[0]);
	a->so.fd = a->outp[0];
	a->se.fd = a->errp[0];
	a->outp[0] = a->errp[0] = -1;
	fcntl(a->so.fd, F_SETFL, O_NONBLOCK);
	fcntl(a->se.fd, F_SETFL, O_NONBLOCK);
	a->pidfd = pidfd_open_(a->pid);
	return DEHBQ_OK;
}

/*
 * Act on a stop, the timeout, the end of the grace period and the
 * heartbeat due at now.  Returns when to wake next.
 */
static double timers(struct attempt *a, const struct run_opts *o, int *stopped,
		     double now)
{
	double wake, lw = live_tick(&a->lv, now);

	if (a->lv.stopped && !a->stop_term)
		a->stop_term = now + o->stop_grace; /* its own stop, first */
	if (a->stop_term && now >= a->stop_term && !a->termed &&
	    !a->timed_out && !*stopped) {
		a->termed = 1;
		killgrp(a->pid, SIGTERM);
		a->kill_at = now + o->grace;
	}

	if (*o->stop && !*stopped && !a->timed_out) {
		*stopped = 1;
		killgrp(a->pid, SIGTERM);
		a->kill_at = now + o->grace;
	}
	if (a->deadline && now >= a->deadline && !a->timed_out && !*stopped) {
		a->timed_out = 1;
		killgrp(a->pid, SIGTERM);
		a->kill_at = now + o->grace;
	}
	if (a->kill_at && now >= a->kill_at && !a->killed) {
		a->killed = 1;
		killgrp(a->pid, SIGKILL);
	}
	if (now >= a->next_tick) {
		if (o->tick)
			o->tick(o->tick_arg);
		while (a->next_tick <= now)
			a->next_tick += o->heartbeat;
	}
	wake = a->next_tick;
	if (a->deadline && !a->timed_out && !*stopped && a->deadline < wake)
		wake = a->deadline;
	if (a->kill_at && !a->killed && a->kill_at < wake)
		wake = a->kill_at;
	if (lw && lw < wake)
		wake = lw;
	if (a->stop_term && !a->termed && a->stop_term < wake)
		wake = a->stop_term;
	return wake;
}

/* Until the trainer exits: copy its output, tick, stop it when told. */
static int supervise(struct attempt *a, const struct run_opts *o, int *stopped,
		     char *err)
{
	if (o->timeout > 0)
		a->deadline = a->start + o->timeout;
	a->next_tick = a->start + o->heartbeat;
	for (;;) {
		struct pollfd fds[4];
		int nfds = 0, tmo, k;
		double now = timeutil_mono(), wake = timers(a, o, stopped, now);

		if (exited(a->pid))
			return DEHBQ_OK;
		tmo = ms_until(wake, now);
		if (a->pidfd < 0 && o->wake_fd < 0 && tmo > 100)
			tmo = 100; /* no way to be woken: poll the child */
		if (a->so.fd >= 0)
			fds[nfds++] = (struct pollfd){a->so.fd, POLLIN, 0};
		if (a->se.fd >= 0)
			fds[nfds++] = (struct pollfd){a->se.fd, POLLIN, 0};
		if (a->pidfd >= 0)
			fds[nfds++] = (struct pollfd){a->pidfd, POLLIN, 0};
		if (o->wake_fd >= 0)
			fds[nfds++] = (struct pollfd){o->wake_fd, POLLIN, 0};
		if (poll(fds, (nfds_t)nfds, tmo) < 0) {
			if (errno == EINTR)
				continue;
			dehbq_errf(err, DEHBQ_ESYS, "poll: %s",
				   strerror(errno));
			killgrp(a->pid, SIGKILL);
			return DEHBQ_ESYS;
		}
		for (k = 0; k < nfds; k++) {
			if (!fds[k].revents)
				continue;
			if (fds[k].fd == a->so.fd)
				stream_read(&a->so, &a->lv);
			else if (fds[k].fd == a->se.fd)
				stream_read(&a->se, NULL);
			else if (fds[k].fd == o->wake_fd)
				drain(o->wake_fd);
		}
	}
}

/* Kill what is left of the group, reap the trainer, read its pipes dry. */
static void reap(struct attempt *a, struct result *r)
{
	struct rusage ru;
	double now, until;
	int pr;

	/* Still a zombie: its group id cannot be reused yet. */
	killgrp(a->pid, SIGKILL);
	while (wait4(a->pid, &a->status, 0, &ru) < 0) {
		if (errno != EINTR) {
			memset(&ru, 0, sizeof(ru));
			ru.ru_maxrss = -1;
			break;
		}
	}
	now = timeutil_mono();
	r->finished = timeutil_now();
	r->wall_time = now - a->start;
	r->max_rss_kb = ru.ru_maxrss;
	/* The group is dead, so the pipes reach EOF; cap the wait anyway. */
	until = now + 2;
	while ((a->so.fd >= 0 || a->se.fd >= 0) && timeutil_mono() < until) {
		struct pollfd fds[2];
		int nfds = 0;

		if (a->so.fd >= 0)
			fds[nfds++] = (struct pollfd){a->so.fd, POLLIN, 0};
		if (a->se.fd >= 0)
			fds[nfds++] = (struct pollfd){a->se.fd, POLLIN, 0};
		pr = poll(fds, (nfds_t)nfds, 200);
		if (pr == 0 || (pr < 0 && errno != EINTR))
			break;
		stream_read(&a->so, &a->lv);
		stream_read(&a->se, NULL);
	}
	live_flush(&a->lv);
}

/* Release what a owns, keeping errno. */
static void attempt_close(struct attempt *a)
{
	int e = errno, k;

	xclose(&a->pidfd);
	for (k = 0; k < 2; k++) {
		xclose(&a->outp[k]);
		xclose(&a->errp[k]);
		xclose(&a->exp_[k]);
	}
	xclose(&a->so.fd);
	xclose(&a->se.fd);
	xclose(&a->so.log);
	xclose(&a->se.log);
	free(a->so.tail.buf);
	free(a->se.tail.buf);
	live_close(&a->lv);
	runenv_release(&a->env);
	errno = e;
}

/* One line for the log: the progress lines ignored, the writes failed. */
static void note_live(const struct run_opts *o, const struct live *lv)
{
	char msg[STUDY_PATH_MAX + DEHBQ_ERRLEN + 200];

	if (lv->bad)
		snprintf(msg, sizeof(msg),
			 "%lld progress lines ignored; the first: %s",
			 (long long)lv->bad, lv->why);
	else
		snprintf(msg, sizeof(msg), "cannot write '%s': %s", lv->path,
			 strerror(lv->write_errno));
	o->note(o->tick_arg, msg);
}

/*
 * The optimiser stopped the trial: its result is stopped, with the
 * trainer's final report when it ended well by itself, else its last
 * intermediate result (the cost: that point's, else the wall time).
 */
static int stopped_outcome(const struct attempt *a, struct result *r)
{
	const struct progress_point *p = progress_last(&a->lv.pr);
	char *e;

	if (!a->lv.stopped || !p)
		return DEHBQ_OK;
	if (r->status != RESULT_OK) {
		r->loss = p->loss;
		r->cost = p->cost >= 0 ? p->cost : r->wall_time;
	}
	r->status = RESULT_STOPPED;
	r->fidelity = p->fidelity;
	if (!(e = strdup("stopped by the optimizer")))
		return DEHBQ_ENOMEM;
	free(r->error);
	r->error = e;
	return DEHBQ_OK;
}

int run_trial(const struct run_opts *o, const struct run_job *j,
	      struct result *r, int *stopped, char *err)
{
	struct attempt a;
	int rc;

	*stopped = 0;
	err[0] = 0;
	if (!(rc = attempt_open(&a, o, j, r, err)) &&
	    !(rc = spawn(&a, o, r, err))) {
		rc = supervise(&a, o, stopped, err);
		reap(&a, r);
		if (!rc && !*stopped)
			rc = outcome_classify(
				r, &(struct outcome_in){
					   .status = a.status,
					   .timed_out = a.timed_out,
					   .exec_errno = a.exec_errno,
					   .timeout = o->timeout,
					   .argv0 = a.env.argv[0],
					   .report_path = a.env.report,
					   .obj = j->obj,
					   .out = a.so.tail.buf,
					   .outlen = a.so.tail.len,
					   .errt = a.se.tail.buf,
					   .errlen = a.se.tail.len,
					   .gpus = j->gpus,
				   });
		if (!rc && !*stopped)
			rc = stopped_outcome(&a, r);
		if ((a.lv.bad || a.lv.write_errno) && o->note)
			note_live(o, &a.lv);
		if (rc == DEHBQ_ENOMEM)
			dehbq_errf(err, rc, "out of memory");
	}
	attempt_close(&a);
	return rc;
}

int run_write_result(const char *root, const struct result *r, char *name,
		     size_t size)
{
	char path[STUDY_PATH_MAX];
	char *txt = NULL;
	uint64_t id;
	int rc;

	if ((rc = id_trial_parse(r->id, &id)) ||
	    (rc = study_result_name(name, size, id, r->attempt, r->worker)) ||
	    (rc = study_path(path, sizeof(path), root, "results/%s", name)) ||
	    (rc = result_render(r, &txt)))
		return rc;
	rc = atomicfile_write(path, txt, strlen(txt), 0666, 0);
	free(txt);
	return rc;
}

void run_est_add(struct run_est *e, double fidelity, double wall)
{
	int i;

	for (i = 0; i < e->n; i++)
		if (e->fid[i] == fidelity) {
			if (wall > e->wall[i])
				e->wall[i] = wall;
			return;
		}
	if (e->n == RUN_EST_LEVELS || !(fidelity > 0))
		return;
	e->fid[e->n] = fidelity;
	e->wall[e->n++] = wall;
}

double run_est_get(const struct run_est *e, double fidelity)
{
	double best = 0, x;
	int i;

	for (i = 0; i < e->n; i++)
		if (e->fid[i] == fidelity)
			return e->wall[i];
	for (i = 0; i < e->n; i++) {
		x = e->wall[i] * fidelity / e->fid[i];
		if (x > best)
			best = x;
	}
	return best;
}
