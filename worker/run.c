/*
 * run.c - run one attempt of a trial: fork + exec the operator's command
 *
 * Invariants and protocol (docs/protocol.md, section 5):
 *   - Only the operator's argv runs, through execvpe(): no shell unless the
 *     operator wrote one.  Values from the trial reach the trainer as data
 *     only: whole placeholder substitutions inside argv elements,
 *     environment variables, and work/SSSS/ID/config.json.
 *   - The trainer runs in its own process group with cwd = its workdir
 *     work/SSSS/ID-TOKEN/ (workdir.h; created; a later attempt reuses it,
 *     so a trainer may resume from its own checkpoints) and
 *     stdin = /dev/null.  Timeout and
 *     stop send SIGTERM to the group, then SIGKILL after the grace period.
 *     When the trainer exits, whatever is left in its group is SIGKILLed
 *     (while the trainer is still a zombie, so the group id cannot be
 *     reused).
 *   - stdout and stderr come through pipes and are copied into
 *     logs/SSSS/ID.aN.out and .err up to log_cap bytes each; the rest is
 *     dropped.  The last RUN_OUT_TAIL bytes of stdout and RESULT_TAIL_CAP
 *     bytes of stderr are also kept in memory: the report line is taken
 *     from there, so it is found even past the log cap.
 *   - The report is work/SSSS/ID/result.json (removed before the start so
 *     a previous attempt's report never counts) or the last non-blank
 *     stdout line.
 *   - The wait is poll(2) on the pipes, a pidfd (pidfd_open) and the
 *     worker's signal self-pipe (SIGCHLD wakes it too when pidfd_open is
 *     missing): no sleeping, so a no-op trainer costs a fork and an exec.
 *   - Status: killed at the timeout -> timeout; killed by a signal ->
 *     crashed; non-zero exit, no report, invalid report -> failed; else ok.
 */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "atomicfile.h"
#include "err.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "objectives.h"
#include "result.h"
#include "space.h"
#include "study.h"
#include "timeutil.h"
#include "trial.h"
#include "workdir.h"

extern char **environ;

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

static const char *const placeholders[] = {
	"config",  "budget", "id",   "attempt",
	"workdir", "result", "seed", "parent_workdir",
};

static const char *var_value(const struct run_vars *v, size_t i)
{
	const char *const vals[] = {v->config,	v->budget,	  v->id,
				    v->attempt, v->workdir,	  v->result,
				    v->seed,	v->parent_workdir};

	return vals[i];
}

int run_subst(const char *in, const struct run_vars *v, char **out)
{
	size_t n = 0, cap = strlen(in) + 1, i, k;
	const char *p = in;
	char *s = malloc(cap), *t;

	*out = NULL;
	if (!s)
		return DEHBQ_ENOMEM;
	while (*p) {
		const char *add = p;
		size_t addlen = 1, skip = 1;

		if (*p == '{') {
			for (i = 0;
			     i < sizeof(placeholders) / sizeof(placeholders[0]);
			     i++) {
				k = strlen(placeholders[i]);
				if (!strncmp(p + 1, placeholders[i], k) &&
				    p[1 + k] == '}') {
					add = var_value(v, i);
					addlen = strlen(add);
					skip = k + 2;
					break;
				}
			}
		}
		if (n + addlen + 1 > cap) {
			cap = 2 * (n + addlen + 1);
			if (!(t = realloc(s, cap))) {
				free(s);
				return DEHBQ_ENOMEM;
			}
			s = t;
		}
		memcpy(s + n, add, addlen);
		n += addlen;
		p += skip;
	}
	s[n] = 0;
	*out = s;
	return DEHBQ_OK;
}

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

/*
 * A report that did not parse: say what people actually get wrong, in
 * place of the parser's message where that would mislead.  A Python dict
 * printed with str() has single quotes; a trainer that prints a summary
 * after its report leaves plain text on the last line.
 */
static int report_hint(const char *name, const char *t, size_t n, char *err)
{
	size_t i = 0;
	int k;

	while (i < n && (t[i] == ' ' || t[i] == '\t'))
		i++;
	k = n - i > 60 ? 60 : (int)(n - i);
	if (i < n && t[i] == '{' && memchr(t + i, '\'', n - i))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "%s: %.*s: single quotes are not JSON (a "
				  "Python dict printed as it is): print "
				  "json.dumps({\"loss\": ...}) instead",
				  name, k, t + i);
	if (i < n && t[i] != '{' && t[i] != '[')
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "%s is plain text (%.*s): the report must be "
				  "the last line of stdout, a JSON object like "
				  "{\"loss\": 0.1}, or be written to "
				  "$DEHBQ_RESULT",
				  name, k, t + i);
	return DEHBQ_EINVAL;
}

int run_report(const char *report_path, const char *out, size_t len,
	       double *loss, double *cost, char **info, char **objectives,
	       char *err)
{
	struct stat st;
	char *text = NULL;
	size_t tl, end, start;
	int rc;

	*info = NULL;
	*objectives = NULL;
	*cost = -1;
	if (report_path && lstat(report_path, &st) == 0) {
		rc = fsutil_read_file(report_path, RESULT_CAP, &text, &tl);
		if (rc == DEHBQ_ETOOBIG)
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "report file is larger than %u bytes",
					  RESULT_CAP);
		if (rc)
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "cannot read report file: %s",
					  strerror(errno));
		rc = result_parse_report("$DEHBQ_RESULT", text, tl, loss, cost,
					 info, objectives, err);
		if (rc == DEHBQ_EINVAL)
			report_hint("$DEHBQ_RESULT", text, tl, err);
		free(text);
		return rc == DEHBQ_ENOMEM ? rc : rc ? DEHBQ_EINVAL : DEHBQ_OK;
	}
	/* The last non-blank line of stdout. */
	end = len;
	for (;;) {
		while (end > 0 &&
		       (out[end - 1] == '\n' || out[end - 1] == '\r' ||
			out[end - 1] == ' ' || out[end - 1] == '\t'))
			end--;
		if (end == 0)
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "no report: nothing in $DEHBQ_RESULT "
					  "and no output on stdout");
		start = end;
		while (start > 0 && out[start - 1] != '\n')
			start--;
		break;
	}
	rc = result_parse_report("last stdout line", out + start, end - start,
				 loss, cost, info, objectives, err);
	if (rc == DEHBQ_EINVAL)
		report_hint("the last stdout line", out + start, end - start,
			    err);
	return rc == DEHBQ_ENOMEM ? rc : rc ? DEHBQ_EINVAL : DEHBQ_OK;
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

/* Read what is there; EOF or error closes the stream. */
static void stream_read(struct stream *s)
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

/* The last RUN_TAIL_LINES lines of the stderr tail, controls replaced. */
static char *stderr_lines(const struct tail *t)
{
	size_t end = t->len, start;
	int lines = 0;
	char *s;

	while (end > 0 && t->buf[end - 1] == '\n')
		end--;
	start = end;
	while (start > 0) {
		if (t->buf[start - 1] == '\n' && ++lines == RUN_TAIL_LINES)
			break;
		start--;
	}
	if (!(s = malloc(end - start + 1)))
		return NULL;
	for (size_t i = start; i < end; i++) {
		unsigned char c = (unsigned char)t->buf[i];

		s[i - start] = (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f
				       ? '?'
				       : (char)c;
	}
	s[end - start] = 0;
	return s;
}

static int set_str(char **dst, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int set_str(char **dst, const char *fmt, ...)
{
	va_list ap;
	char buf[DEHBQ_ERRLEN + 128];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	free(*dst);
	*dst = strdup(buf);
	return *dst ? DEHBQ_OK : DEHBQ_ENOMEM;
}

/* NULL-terminated environment: ours plus environ minus stale DEHBQ_ ones. */
struct envb {
	char **v;   /* entries; ours are malloc'ed */
	size_t n;   /* entries used */
	size_t cap; /* entries allocated */
	size_t own; /* entries [own, n) are malloc'ed */
};

static int env_add(struct envb *e, const char *name, const char *val)
{
	size_t len = strlen(name) + strlen(val) + 2;
	char *s;

	if (e->n + 2 > e->cap) {
		size_t cap = e->cap * 2 + 32;
		char **v = realloc(e->v, cap * sizeof(*v));

		if (!v)
			return DEHBQ_ENOMEM;
		e->v = v;
		e->cap = cap;
	}
	if (!(s = malloc(len)))
		return DEHBQ_ENOMEM;
	snprintf(s, len, "%s=%s", name, val);
	e->v[e->n++] = s;
	e->v[e->n] = NULL;
	return DEHBQ_OK;
}

static int ours(const char *entry)
{
	static const char *const names[] = {
		"DEHBQ_TRIAL_ID=", "DEHBQ_BUDGET=",	"DEHBQ_CONFIG=",
		"DEHBQ_RESULT=",   "DEHBQ_WORKDIR=",	"DEHBQ_STUDY=",
		"DEHBQ_ATTEMPT=",  "DEHBQ_SEED=",	"DEHBQ_PARENT_WORKDIR=",
		"DEHBQ_P_",	   "DEHBQ_OBJECTIVES=",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strncmp(entry, names[i], strlen(names[i])))
			return 1;
	return 0;
}

static int env_build(struct envb *e, const struct run_job *j,
		     const struct run_vars *v)
{
	const struct trial *t = j->trial;
	char name[STUDY_NAME_MAX + 16], val[4096];
	size_t n = 0, i;
	int rc = DEHBQ_OK, k;

	memset(e, 0, sizeof(*e));
	while (environ[n])
		n++;
	e->cap = n + 32 + (size_t)t->dim;
	if (!(e->v = malloc(e->cap * sizeof(*e->v))))
		return DEHBQ_ENOMEM;
	for (i = 0; i < n; i++)
		if (!ours(environ[i]))
			e->v[e->n++] = environ[i];
	e->v[e->n] = NULL;
	e->own = e->n;
	if ((rc = env_add(e, "DEHBQ_TRIAL_ID", v->id)) ||
	    (rc = env_add(e, "DEHBQ_BUDGET", v->budget)) ||
	    (rc = env_add(e, "DEHBQ_CONFIG", v->config)) ||
	    (rc = env_add(e, "DEHBQ_RESULT", v->result)) ||
	    (rc = env_add(e, "DEHBQ_WORKDIR", v->workdir)) ||
	    (rc = env_add(e, "DEHBQ_STUDY", j->root)) ||
	    (rc = env_add(e, "DEHBQ_ATTEMPT", v->attempt)) ||
	    (rc = env_add(e, "DEHBQ_SEED", v->seed)) ||
	    (rc = env_add(e, "DEHBQ_PARENT_WORKDIR", v->parent_workdir)))
		return rc;
	if (j->obj && j->obj->n) {
		objectives_env(j->obj, val, sizeof(val));
		if ((rc = env_add(e, "DEHBQ_OBJECTIVES", val)))
			return rc;
	}
	for (k = 0; k < t->dim; k++) {
		if (space_env_name(space_param_name(j->space, k), name,
				   sizeof(name)) ||
		    space_value_format(&t->config[k], val, sizeof(val)))
			continue; /* cannot happen for a validated trial */
		if ((rc = env_add(e, name, val)))
			return rc;
	}
	return rc;
}

static void env_free(struct envb *e)
{
	size_t i;

	for (i = e->own; i < e->n; i++)
		free(e->v[i]);
	free(e->v);
}

/* In the child: never returns. */
static void child(char *const *argv, char *const *envp, const char *cwd,
		  int out, int errfd, int report)
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

/* Prepared paths and texts of one attempt. */
struct prep {
	char id[ID_TRIAL_LEN];	      /* 8 digits */
	char attempt[16];	      /* decimal */
	char budget[40];	      /* shortest exact */
	char seed[32];		      /* decimal */
	char workdir[STUDY_PATH_MAX]; /* work/SSSS/ID-TOKEN, workdir.h */
	char parent[STUDY_PATH_MAX];  /* parent's workdir or "" */
	char config[STUDY_PATH_MAX];  /* workdir/config.json */
	char report[STUDY_PATH_MAX];  /* workdir/result.json */
	char logdir[STUDY_PATH_MAX];  /* logs/SSSS */
	char out[STUDY_PATH_MAX];     /* logs/SSSS/ID.aN.out */
	char err[STUDY_PATH_MAX];     /* logs/SSSS/ID.aN.err */
};

static int prepare(const struct run_job *j, struct prep *p, char *err)
{
	const struct trial *t = j->trial;
	unsigned sh = study_shard(t->id);
	cJSON *cfg = NULL;
	char *txt = NULL;
	int rc;

	memset(p, 0, sizeof(*p));
	id_trial_format(t->id, p->id);
	snprintf(p->attempt, sizeof(p->attempt), "%d", t->attempt);
	jsonfile_fmt_double(p->budget, sizeof(p->budget), t->fidelity);
	snprintf(p->seed, sizeof(p->seed), "%llu", (unsigned long long)t->seed);
	if (workdir_of(j->root, t->id, t->token, p->workdir,
		       sizeof(p->workdir)) ||
	    fsutil_pathf(p->config, sizeof(p->config), "%s/config.json",
			 p->workdir) ||
	    fsutil_pathf(p->report, sizeof(p->report), "%s/result.json",
			 p->workdir) ||
	    study_path(p->logdir, sizeof(p->logdir), j->root, "logs/%04u",
		       sh) ||
	    study_log_path(p->out, sizeof(p->out), j->root, t->id, t->attempt,
			   "out") ||
	    study_log_path(p->err, sizeof(p->err), j->root, t->id, t->attempt,
			   "err"))
		return dehbq_errf(err, DEHBQ_ETOOBIG, "study path too long");
	if (t->parent >= 0 &&
	    workdir_find(j->root, j->space, (uint64_t)t->parent, p->parent,
			 sizeof(p->parent)))
		return dehbq_errf(err, DEHBQ_ETOOBIG, "study path too long");
	if (fsutil_mkdir_p(p->workdir, 0777))
		return dehbq_errf(err, DEHBQ_ESYS, "mkdir(%s): %s", p->workdir,
				  strerror(errno));
	if (fsutil_mkdir_p(p->logdir, 0777))
		return dehbq_errf(err, DEHBQ_ESYS, "mkdir(%s): %s", p->logdir,
				  strerror(errno));
	if (unlink(p->report) < 0 && errno != ENOENT)
		return dehbq_errf(err, DEHBQ_ESYS, "unlink(%s): %s", p->report,
				  strerror(errno));
	if (!(cfg = space_config_to_json(j->space, t->config)) ||
	    !(txt = cJSON_Print(cfg))) {
		rc = dehbq_errf(err, DEHBQ_ENOMEM, "out of memory");
		goto out;
	}
	/* No fsync: a crash re-runs the attempt, which rewrites it. */
	rc = atomicfile_write(p->config, txt, strlen(txt), 0666,
			      ATOMICFILE_NOSYNC);
	if (rc)
		dehbq_errf(err, rc, "write(%s): %s", p->config,
			   strerror(errno));
out:
	cJSON_free(txt);
	cJSON_Delete(cfg);
	return rc;
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

/*
 * A report that parsed, against the study's objectives: the loss of a
 * multi-objective result is its first objective, as reported.  0, or 1
 * with why when the report does not fit the study.
 */
static int report_fits(const struct objectives *ob, const char *objectives,
		       double *loss, char *why, size_t len)
{
	double y[OBJECTIVES_MAX], raw[OBJECTIVES_MAX];

	if (!ob || !ob->n) {
		if (isnan(*loss))
			snprintf(why, len,
				 "no 'loss' (the study has one objective; "
				 "declare \"objectives\" in its spec to "
				 "report several)");
		return isnan(*loss);
	}
	if (objectives_read(ob, objectives, y, raw, why, len))
		return 1;
	*loss = raw[0];
	return 0;
}

/* Fill r's outcome from the wait status and the report. */
static int classify(struct result *r, const struct prep *p,
		    const struct run_job *j, int status, int timed_out,
		    int exec_errno, double timeout, struct stream *so,
		    struct stream *se, char *const *argv)
{
	char why[DEHBQ_ERRLEN];
	double loss, cost;
	char *info = NULL, *objs = NULL;
	int rc = DEHBQ_OK;

	if (WIFSIGNALED(status)) {
		r->exit_code = -1;
		r->signal = WTERMSIG(status);
	} else {
		r->exit_code = WEXITSTATUS(status);
		r->signal = 0;
	}
	r->cost = r->wall_time;
	if (timed_out) {
		r->status = RESULT_TIMEOUT;
		rc = set_str(&r->error,
			     "timeout: killed after %g s "
			     "(--trial-timeout)",
			     timeout);
	} else if (exec_errno) {
		r->status = RESULT_FAILED;
		rc = set_str(&r->error, "cannot execute '%s': %s", argv[0],
			     strerror(exec_errno));
	} else if (WIFSIGNALED(status)) {
		r->status = RESULT_CRASHED;
		rc = set_str(&r->error, "killed by signal %d (%s)", r->signal,
			     strsignal(r->signal));
	} else if (r->exit_code != 0) {
		r->status = RESULT_FAILED;
		rc = set_str(&r->error, "exit code %d", r->exit_code);
	} else {
		rc = run_report(p->report, so->tail.buf, so->tail.len, &loss,
				&cost, &info, &objs, why);
		if (rc == DEHBQ_ENOMEM)
			return rc;
		if (!rc && report_fits(j->obj, objs, &loss, why, sizeof(why))) {
			free(info);
			free(objs);
			r->status = RESULT_FAILED;
			rc = set_str(&r->error, "report (exit code 0): %s",
				     why);
		} else if (rc) {
			r->status = RESULT_FAILED;
			rc = set_str(&r->error,
				     "invalid report (exit code 0): %s", why);
		} else {
			r->status = RESULT_OK;
			r->loss = loss;
			if (cost >= 0)
				r->cost = cost;
			free(r->info);
			r->info = info;
			free(r->objectives);
			r->objectives = objs;
		}
	}
	if (!rc && r->status != RESULT_OK) {
		char *tl = stderr_lines(&se->tail);

		if (!tl)
			return DEHBQ_ENOMEM;
		free(r->stderr_tail);
		r->stderr_tail = tl;
	}
	return rc;
}

int run_trial(const struct run_opts *o, const struct run_job *j,
	      struct result *r, int *stopped, char *err)
{
	struct prep p;
	struct stream so, se;
	struct envb env;
	struct rusage ru;
	char **argv = NULL;
	int outp[2] = {-1, -1}, errp[2] = {-1, -1}, exp_[2] = {-1, -1};
	int pidfd = -1, status = 0, exec_errno = 0, timed_out = 0, killed = 0;
	int rc = DEHBQ_ENOMEM, done = 0, e;
	size_t argc = 0, i;
	double start, now, next_tick, kill_at = 0, deadline = 0;
	ssize_t nr;
	pid_t pid = -1;
	struct run_vars v;

	*stopped = 0;
	err[0] = 0;
	memset(&env, 0, sizeof(env));
	memset(&so, 0, sizeof(so));
	memset(&se, 0, sizeof(se));
	so.fd = so.log = se.fd = se.log = -1;
	if ((rc = prepare(j, &p, err)))
		return rc;
	v.config = p.config;
	v.budget = p.budget;
	v.id = p.id;
	v.attempt = p.attempt;
	v.workdir = p.workdir;
	v.result = p.report;
	v.seed = p.seed;
	v.parent_workdir = p.parent;
	rc = DEHBQ_ENOMEM;
	while (o->argv[argc])
		argc++;
	if (!(argv = calloc(argc + 1, sizeof(*argv))))
		goto fail;
	for (i = 0; i < argc; i++)
		if (run_subst(o->argv[i], &v, &argv[i]))
			goto fail;
	if (env_build(&env, j, &v))
		goto fail;
	so.cap = se.cap = o->log_cap;
	so.tail.cap = RUN_OUT_TAIL;
	se.tail.cap = RESULT_TAIL_CAP;
	if (!(so.tail.buf = malloc(so.tail.cap)) ||
	    !(se.tail.buf = malloc(se.tail.cap)))
		goto fail;
	rc = DEHBQ_ESYS;
	if ((so.log = open_log(p.out)) < 0) {
		dehbq_errf(err, rc, "open(%s): %s", p.out, strerror(errno));
		goto fail;
	}
	if ((se.log = open_log(p.err)) < 0) {
		dehbq_errf(err, rc, "open(%s): %s", p.err, strerror(errno));
		goto fail;
	}
	if (pipe2(outp, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0 ||
	    pipe2(exp_, O_CLOEXEC) < 0) {
		dehbq_errf(err, rc, "pipe: %s", strerror(errno));
		goto fail;
	}
	r->started = timeutil_now();
	start = timeutil_mono();
	if ((pid = fork()) < 0) {
		dehbq_errf(err, rc, "fork: %s", strerror(errno));
		goto fail;
	}
	if (pid == 0)
		child(argv, env.v, p.workdir, outp[1], errp[1], exp_[1]);
	setpgid(pid, pid); /* also in the child: whichever runs first */
	xclose(&outp[1]);
	xclose(&errp[1]);
	xclose(&exp_[1]);
	do
		nr = read(exp_[0], &e, sizeof(e));
	while (nr < 0 && errno == EINTR);
	if (nr == (ssize_t)sizeof(e))
		exec_errno = e;
	xclose(&exp_[0]);
	so.fd = outp[0];
	se.fd = errp[0];
	outp[0] = errp[0] = -1;
	fcntl(so.fd, F_SETFL, O_NONBLOCK);
	fcntl(se.fd, F_SETFL, O_NONBLOCK);
	pidfd = pidfd_open_(pid);
	if (o->timeout > 0)
		deadline = start + o->timeout;
	next_tick = start + o->heartbeat;

	while (!done) {
		struct pollfd fds[4];
		int nfds = 0, tmo;
		double wake;

		now = timeutil_mono();
		if (*o->stop && !*stopped && !timed_out) {
			*stopped = 1;
			killgrp(pid, SIGTERM);
			kill_at = now + o->grace;
		}
		if (deadline && now >= deadline && !timed_out && !*stopped) {
			timed_out = 1;
			killgrp(pid, SIGTERM);
			kill_at = now + o->grace;
		}
		if (kill_at && now >= kill_at && !killed) {
			killed = 1;
			killgrp(pid, SIGKILL);
		}
		if (now >= next_tick) {
			if (o->tick)
				o->tick(o->tick_arg);
			while (next_tick <= now)
				next_tick += o->heartbeat;
		}
		if (exited(pid))
			break;
		wake = next_tick;
		if (deadline && !timed_out && !*stopped && deadline < wake)
			wake = deadline;
		if (kill_at && !killed && kill_at < wake)
			wake = kill_at;
		tmo = ms_until(wake, now);
		if (pidfd < 0 && o->wake_fd < 0 && tmo > 100)
			tmo = 100; /* no way to be woken: poll the child */
		if (so.fd >= 0)
			fds[nfds++] = (struct pollfd){so.fd, POLLIN, 0};
		if (se.fd >= 0)
			fds[nfds++] = (struct pollfd){se.fd, POLLIN, 0};
		if (pidfd >= 0)
			fds[nfds++] = (struct pollfd){pidfd, POLLIN, 0};
		if (o->wake_fd >= 0)
			fds[nfds++] = (struct pollfd){o->wake_fd, POLLIN, 0};
		if (poll(fds, (nfds_t)nfds, tmo) < 0) {
			if (errno == EINTR)
				continue;
			dehbq_errf(err, DEHBQ_ESYS, "poll: %s",
				   strerror(errno));
			killgrp(pid, SIGKILL);
			goto reap;
		}
		for (int k = 0; k < nfds; k++) {
			if (!fds[k].revents)
				continue;
			if (fds[k].fd == so.fd)
				stream_read(&so);
			else if (fds[k].fd == se.fd)
				stream_read(&se);
			else if (fds[k].fd == o->wake_fd)
				drain(o->wake_fd);
		}
	}
reap:
	/* Still a zombie: its group id cannot be reused yet. */
	killgrp(pid, SIGKILL);
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			memset(&ru, 0, sizeof(ru));
			ru.ru_maxrss = -1;
			break;
		}
	}
	now = timeutil_mono();
	r->finished = timeutil_now();
	r->wall_time = now - start;
	r->max_rss_kb = ru.ru_maxrss;
	/* The group is dead, so the pipes reach EOF; cap the wait anyway. */
	{
		double until = now + 2;
		int pr;

		while ((so.fd >= 0 || se.fd >= 0) && timeutil_mono() < until) {
			struct pollfd fds[2];
			int nfds = 0;

			if (so.fd >= 0)
				fds[nfds++] = (struct pollfd){so.fd, POLLIN, 0};
			if (se.fd >= 0)
				fds[nfds++] = (struct pollfd){se.fd, POLLIN, 0};
			pr = poll(fds, (nfds_t)nfds, 200);
			if (pr == 0 || (pr < 0 && errno != EINTR))
				break;
			stream_read(&so);
			stream_read(&se);
		}
	}
	if (err[0]) {
		rc = DEHBQ_ESYS;
		goto fail;
	}
	rc = *stopped ? DEHBQ_OK
		      : classify(r, &p, j, status, timed_out, exec_errno,
				 o->timeout, &so, &se, argv);
	if (rc == DEHBQ_ENOMEM)
		dehbq_errf(err, rc, "out of memory");
fail:
	e = errno;
	xclose(&pidfd);
	xclose(&outp[0]);
	xclose(&outp[1]);
	xclose(&errp[0]);
	xclose(&errp[1]);
	xclose(&exp_[0]);
	xclose(&exp_[1]);
	xclose(&so.fd);
	xclose(&se.fd);
	xclose(&so.log);
	xclose(&se.log);
	free(so.tail.buf);
	free(se.tail.buf);
	if (argv)
		for (i = 0; i < argc; i++)
			free(argv[i]);
	free(argv);
	if (env.v)
		env_free(&env);
	errno = e;
	if (rc == DEHBQ_ENOMEM && !err[0])
		dehbq_errf(err, rc, "out of memory");
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
