/*
 * slots.c - owns a worker's slots: the plan of each slot's devices,
 * cores and memory, the slot processes and their supervision (slots.h)
 */
#include "slots.h"

#include "err.h"
#include "logmsg.h"
#include "wake.h"
#include "wopts.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int slots_wanted(const struct wopts *o)
{
	return o->slots > 0 || o->gpus || o->gpus_per > 0 || o->cpus_per > 0 ||
	       o->mem_per > 0;
}

/* A device id: a number, or a GPU- or MIG- UUID (hex digits and '-',
 * and '/' in the old MIG-GPU-UUID/GI/CI form). */
static int dev_ok(const char *s, size_t n)
{
	size_t i = 0;

	if (n == 0 || n >= SLOTS_DEV_LEN)
		return 0;
	if (n > 4 && (!strncmp(s, "GPU-", 4) || !strncmp(s, "MIG-", 4))) {
		for (i = 4; i < n; i++)
			if (!((s[i] >= '0' && s[i] <= '9') ||
			      (s[i] >= 'a' && s[i] <= 'z') ||
			      (s[i] >= 'A' && s[i] <= 'Z') || s[i] == '-' ||
			      s[i] == '/'))
				return 0;
		return 1;
	}
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/* Split a comma-separated device list into p->dev; what names the source
 * in the error. */
static int dev_list(struct slot_plan *p, const char *list, const char *what,
		    char *err)
{
	const char *s = list;
	int i;

	p->ndev = 0;
	while (*s) {
		size_t n = strcspn(s, ",");

		if (!dev_ok(s, n))
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "%s: '%.*s' is not a device id (a "
					  "number, or a GPU- or MIG- UUID); "
					  "give a comma-separated list such "
					  "as 0,1",
					  what, (int)(n > 80 ? 80 : n), s);
		if (p->ndev == SLOTS_DEV_MAX)
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "%s: more than %d devices", what,
					  SLOTS_DEV_MAX);
		memcpy(p->dev[p->ndev], s, n);
		p->dev[p->ndev][n] = 0;
		for (i = 0; i < p->ndev; i++)
			if (!strcmp(p->dev[i], p->dev[p->ndev]))
				return dehbq_errf(err, DEHBQ_EINVAL,
						  "%s: device %s is listed "
						  "twice",
						  what, p->dev[i]);
		p->ndev++;
		s += n;
		if (*s == ',' && !*++s)
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "%s: the list ends with ','", what);
	}
	return DEHBQ_OK;
}

/* The GPUs `nvidia-smi -L` lists ("GPU N: ..."), run without a shell;
 * none when it cannot run. */
static void dev_nvidia_smi(struct slot_plan *p)
{
	char buf[65536], *line, *save = NULL;
	size_t len = 0;
	ssize_t r;
	int fd[2], st;
	pid_t pid;

	p->ndev = 0;
	if (pipe(fd) < 0)
		return;
	if ((pid = fork()) == 0) {
		static char prog[] = "nvidia-smi", opt[] = "-L";
		char *const argv[] = {prog, opt, NULL};

		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	while (pid > 0 && len < sizeof(buf) - 1 &&
	       ((r = read(fd[0], buf + len, sizeof(buf) - 1 - len)) > 0 ||
		(r < 0 && errno == EINTR)))
		len += r > 0 ? (size_t)r : 0;
	close(fd[0]);
	buf[len] = 0;
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	for (line = strtok_r(buf, "\n", &save); line && p->ndev < SLOTS_DEV_MAX;
	     line = strtok_r(NULL, "\n", &save)) {
		size_t n = strncmp(line, "GPU ", 4)
				   ? 0
				   : strspn(line + 4, "0123456789");

		if (n > 0 && n < 8 && line[4 + n] == ':') {
			memcpy(p->dev[p->ndev], line + 4, n);
			p->dev[p->ndev++][n] = 0;
		}
	}
}

/* --gpus: the list, or auto. */
static int plan_devices(const struct wopts *o, struct slot_plan *p,
			struct logmsg *lg, char *err)
{
	const char *cvd = getenv("CUDA_VISIBLE_DEVICES");

	p->ndev = 0;
	p->gpus_per = o->gpus_per > 0 ? o->gpus_per : 1;
	if (!o->gpus) {
		if (o->gpus_per > 0)
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "option '--gpus-per-trial' needs "
					  "--gpus LIST or --gpus auto");
		return DEHBQ_OK;
	}
	if (strcmp(o->gpus, "auto")) {
		int rc = dev_list(p, o->gpus, "option '--gpus'", err);

		if (!rc && p->ndev == 0)
			rc = dehbq_errf(err, DEHBQ_EINVAL,
					"option '--gpus': give a list such as "
					"0,1, or auto");
		return rc;
	}
	if (cvd && strcmp(cvd, "NoDevFiles")) {
		int rc = dev_list(p, cvd, "CUDA_VISIBLE_DEVICES (--gpus auto)",
				  err);

		if (rc)
			return rc;
	} else if (!cvd) {
		dev_nvidia_smi(p);
	}
	if (p->ndev == 0)
		logmsg_w(lg,
			 "--gpus auto: no GPU found (%s); trials run without "
			 "one",
			 cvd ? "CUDA_VISIBLE_DEVICES lists none"
			     : "nvidia-smi -L lists none or cannot run");
	return DEHBQ_OK;
}

/* --cpus-per-trial: the worker's own cores. */
static int plan_cpus(const struct wopts *o, struct slot_plan *p, char *err)
{
	cpu_set_t set;
	int c;

	p->ncpu = 0;
	p->cpus_per = o->cpus_per;
	if (!p->cpus_per)
		return DEHBQ_OK;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return dehbq_errf(err, DEHBQ_ESYS, "sched_getaffinity: %s",
				  strerror(errno));
	for (c = 0; c < CPU_SETSIZE && p->ncpu < SLOTS_CPU_MAX; c++)
		if (CPU_ISSET(c, &set))
			p->cpu[p->ncpu++] = c;
	return DEHBQ_OK;
}

int slots_plan(const struct wopts *o, struct slot_plan *p, struct logmsg *lg,
	       char *err)
{
	struct rlimit rl;
	int rc;

	memset(p, 0, sizeof(*p));
	if ((rc = plan_devices(o, p, lg, err)) || (rc = plan_cpus(o, p, err)))
		return rc;
	p->n = o->slots > 0	 ? o->slots
	       : p->ndev > 0	 ? p->ndev / p->gpus_per
	       : p->cpus_per > 0 ? p->ncpu / p->cpus_per
				 : 1;
	if (p->n < 1)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "one slot of %d %s needs more than the %d "
				  "this worker has: give a smaller %s",
				  p->ndev > 0 ? p->gpus_per : p->cpus_per,
				  p->ndev > 0 ? "GPUs" : "cores",
				  p->ndev > 0 ? p->ndev : p->ncpu,
				  p->ndev > 0 ? "--gpus-per-trial"
					      : "--cpus-per-trial");
	if (p->ndev > 0 && (long)p->n * p->gpus_per > p->ndev)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "%d slot(s) of %d GPU(s) each need %ld "
				  "devices, and --gpus gives %d: give fewer "
				  "--slots or a smaller --gpus-per-trial",
				  p->n, p->gpus_per, (long)p->n * p->gpus_per,
				  p->ndev);
	if (p->cpus_per > 0 && (long)p->n * p->cpus_per > p->ncpu)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "%d slot(s) of %d core(s) each need %ld "
				  "cores, and this worker may use %d: give "
				  "fewer --slots or a smaller --cpus-per-trial",
				  p->n, p->cpus_per, (long)p->n * p->cpus_per,
				  p->ncpu);
	p->mem = o->mem_per;
	if (p->mem && getrlimit(RLIMIT_AS, &rl) == 0 &&
	    rl.rlim_max != RLIM_INFINITY && p->mem > rl.rlim_max)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "option '--mem-per-trial': %llu bytes is "
				  "above this process's hard RLIMIT_AS (%llu); "
				  "give at most that",
				  p->mem, (unsigned long long)rl.rlim_max);
	return DEHBQ_OK;
}

int slots_apply(const struct slot_plan *p, int i, char *gpus, size_t size,
		char *err)
{
	static const char *const threads[] = {
		"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"};
	char num[16];
	size_t len = 0;
	int k;

	gpus[0] = 0;
	for (k = 0; p->ndev > 0 && k < p->gpus_per; k++)
		len += (size_t)snprintf(gpus + len, len < size ? size - len : 0,
					"%s%s", k ? "," : "",
					p->dev[i * p->gpus_per + k]);
	if (len >= size)
		return dehbq_errf(err, DEHBQ_ETOOBIG, "device list too long");
	if (p->ndev > 0 && setenv("CUDA_VISIBLE_DEVICES", gpus, 1) < 0)
		return dehbq_errf(err, DEHBQ_ESYS, "setenv: %s",
				  strerror(errno));
	if (p->cpus_per > 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		for (k = 0; k < p->cpus_per; k++)
			CPU_SET(p->cpu[i * p->cpus_per + k], &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0)
			return dehbq_errf(err, DEHBQ_ESYS,
					  "sched_setaffinity: %s",
					  strerror(errno));
		snprintf(num, sizeof(num), "%d", p->cpus_per);
		for (k = 0; k < 3; k++)
			if (setenv(threads[k], num, 0) < 0)
				return dehbq_errf(err, DEHBQ_ESYS, "setenv: %s",
						  strerror(errno));
	}
	return DEHBQ_OK;
}

/* Signal every slot still running. */
static void forward(const pid_t *pid, int n, int sig)
{
	int i;

	for (i = 0; i < n; i++)
		if (pid[i] > 0)
			kill(pid[i], sig);
}

/* The parent: wait for every slot, forwarding SIGTERM and SIGINT. */
static int supervise(pid_t *pid, int n, struct wake *wk, struct logmsg *lg)
{
	int alive = 0, code = 0, sent = 0, st, i;
	struct pollfd pf;
	pid_t w;

	for (i = 0; i < n; i++)
		alive += pid[i] > 0;
	pf.fd = wk->pipe_r;
	pf.events = POLLIN;
	while (alive > 0) {
		while ((w = waitpid(-1, &st, WNOHANG)) > 0)
			for (i = 0; i < n; i++) {
				int c = WIFEXITED(st) ? WEXITSTATUS(st) : 111;

				if (pid[i] != w)
					continue;
				pid[i] = 0;
				alive--;
				if (c && !code)
					code = c;
				logmsg_i(lg, "slot %d exited (%s %d)", i,
					 WIFEXITED(st) ? "code" : "signal",
					 WIFEXITED(st) ? c : WTERMSIG(st));
			}
		if (wake_stop && !sent) {
			sent = wake_stop;
			forward(pid, n, sent);
		}
		if (alive > 0 && poll(&pf, 1, pf.fd < 0 ? 200 : -1) > 0) {
			char buf[256];

			while (read(pf.fd, buf, sizeof(buf)) > 0)
				;
		}
	}
	return code;
}

int slots_run(const struct slot_plan *p, struct wake *wk, struct logmsg *lg,
	      int *slot, int *code)
{
	pid_t parent = getpid(), *pid = calloc((size_t)p->n, sizeof(*pid));
	sigset_t block, old;
	int i, e;

	*slot = -1;
	*code = 111;
	if (!pid)
		return DEHBQ_ENOMEM;
	/* signals wait until the parent's handlers are in place; a slot
	 * starts with the mask the worker had */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &old);
	signal(SIGCHLD, SIG_DFL); /* an inherited SIG_IGN would reap them */
	for (i = 0; i < p->n; i++) {
		if ((pid[i] = fork()) == 0) {
			free(pid);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(111); /* the parent died already */
			/* a forwarded SIGTERM waits for the slot's own
			 * handlers: it stops the slot, never kills it */
			if (wake_signals(wk) < 0)
				_exit(111);
			sigprocmask(SIG_SETMASK, &old, NULL);
			*slot = i;
			return DEHBQ_OK;
		}
		if (pid[i] < 0) {
			e = errno;
			pid[i] = 0;
			if (i == 0) {
				sigprocmask(SIG_SETMASK, &old, NULL);
				free(pid);
				errno = e;
				return DEHBQ_ESYS;
			}
			logmsg_e(lg, "fork of slot %d: %s; running %d slot(s)",
				 i, strerror(e), i);
			break; /* run the slots that started */
		}
	}
	logmsg_i(lg, "%d slot(s) started", i);
	if (wake_signals(wk) < 0) {
		e = errno;
		forward(pid, p->n, SIGTERM);
		logmsg_e(lg, "signals: %s", strerror(e));
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	*code = supervise(pid, p->n, wk, lg);
	free(pid);
	return DEHBQ_EDONE;
}

int slots_start(const struct wopts *o, struct wake *wk, struct logmsg *lg,
		int *slot, char *gpus, size_t size, int *code)
{
	static struct slot_plan plan;
	char err[DEHBQ_ERRLEN];
	int rc, i = 0;

	*slot = -1;
	if ((rc = slots_plan(o, &plan, lg, err))) {
		fprintf(stderr, "dehbq-worker: %s\n", err);
		*code = rc == DEHBQ_EINVAL ? 100 : 111;
		return rc;
	}
	if (plan.n > 1 && (rc = slots_run(&plan, wk, lg, &i, code))) {
		if (rc != DEHBQ_EDONE)
			fprintf(stderr, "dehbq-worker: fatal: fork: %s\n",
				strerror(errno));
		return rc;
	}
	if ((rc = slots_apply(&plan, i, gpus, size, err))) {
		fprintf(stderr, "dehbq-worker: slot %d: %s\n", i, err);
		*code = 111;
		return rc;
	}
	*slot = plan.n > 1 ? i : -1;
	return DEHBQ_OK;
}
