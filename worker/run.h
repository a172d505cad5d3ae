/*
 * run.h - run one attempt of a trial: fork + exec the operator's command
 *
 * Calling sequence:
 *   struct result r;
 *   result_init(&r);  ... fill id, study, attempt, worker, host, pid ...
 *   rc = run_trial(&opts, &job, &r, &stopped, err);
 *   if (!rc && !stopped) run_write_result(root, &r, name);
 *   result_release(&r);
 * run_trial() prepares work/SSSS/ID/ (config.json, no stale result.json),
 * logs/SSSS/ID.aN.{out,err}, substitutes placeholders, builds the
 * environment, starts the trainer in its own process group, feeds its
 * output into the size-capped logs, calls opts.tick every opts.heartbeat
 * seconds, enforces opts.timeout, and fills the outcome fields of r
 * (status, loss, cost, info, times, max_rss_kb, exit_code, signal, error,
 * stderr_tail).  When *opts.stop becomes set the trainer is stopped
 * (SIGTERM, grace, SIGKILL) and *stopped is 1: there is no result, the
 * caller releases the claim.
 *
 * Intermediate results (live.h): the trainer's progress lines go to
 * progress/ID.aN.WID.json as it runs.  Once the optimiser stops the trial
 * (stop/ID.json, also $DEHBQ_STOP), the trainer has opts.stop_grace
 * seconds to end by itself, then SIGTERM, grace, SIGKILL; its result is
 * "stopped" with its last intermediate loss and fidelity.
 *
 * Error handling: a trainer that fails is not an error: it is a result
 * with a non-ok status.  run_trial() returns DEHBQ_ESYS (errno set, err
 * names the call and path) when the worker itself cannot work: workdir or
 * log not creatable, fork or pipe failed; DEHBQ_ENOMEM.
 *
 * Ownership: everything in opts and job is borrowed; r's strings are
 * owned by r.
 */
#ifndef DEHBQ_RUN_H
#define DEHBQ_RUN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

struct trial;
struct space;
struct result;

#define RUN_LOG_CAP    (10u << 20)  /* default cap of each log: 10 MiB */
#define RUN_OUT_TAIL   (256u << 10) /* stdout kept in memory for the report */
#define RUN_TAIL_LINES 20	    /* stderr lines kept in a result */

struct run_opts {
	char *const *argv;	 /* operator's command with placeholders */
	double timeout;		 /* --trial-timeout seconds, 0 = none */
	double grace;		 /* seconds between SIGTERM and SIGKILL */
	size_t log_cap;		 /* bytes kept of each of stdout and stderr */
	double heartbeat;	 /* seconds between tick() calls, > 0 */
	void (*tick)(void *arg); /* heartbeat callback, may be NULL */
	void *tick_arg;		 /* its argument, and note's */
	/* one line about the trainer's progress lines for the log (bad
	 * ones ignored, a progress file not written); may be NULL */
	void (*note)(void *arg, const char *msg);
	double stop_grace; /* seconds a stopped trial's trainer has to end
			      by itself before SIGTERM (runtime.stop_grace) */
	int wake_fd;	   /* self-pipe read end (signals), or -1 */
	const volatile sig_atomic_t *stop; /* set: stop and release */
	unsigned long long mem_limit;	   /* the trainer's RLIMIT_AS in
					      bytes (--mem-per-trial), 0:
					      none */
};

struct objectives;

struct run_job {
	const struct trial *trial;    /* validated trial */
	const struct space *space;    /* the study's space */
	const char *root;	      /* absolute study directory */
	const char *study;	      /* study id */
	const struct objectives *obj; /* the declared objectives (n 0: one
					 loss); NULL: none */
	const char *gpus;	      /* the slot's devices, DEHBQ_GPUS and the
					 result's info.gpus; NULL or "": none */
};

int run_trial(const struct run_opts *o, const struct run_job *j,
	      struct result *r, int *stopped, char *err);

/* Write results/ID.aN.WID.json atomically (mode 0666); name gets NAME. */
int run_write_result(const char *root, const struct result *r, char *name,
		     size_t size);

/*
 * Duration estimator for --time-limit, fed with this worker's own
 * completed attempts.  The estimate for fidelity f is the longest wall
 * time seen at exactly f; when f was never run, the largest of
 * wall(g) * f / g over the fidelities g that were (cost assumed linear in
 * the budget: conservative when scaling up, since fixed start-up costs get
 * scaled too); 0 (unknown) before any attempt completed.
 */
#define RUN_EST_LEVELS 64
struct run_est {
	double fid[RUN_EST_LEVELS];  /* fidelities seen */
	double wall[RUN_EST_LEVELS]; /* longest wall time at each */
	int n;			     /* levels used */
};

void run_est_add(struct run_est *e, double fidelity, double wall);
double run_est_get(const struct run_est *e, double fidelity);

#endif
