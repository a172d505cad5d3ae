/*
 * wopts.h - dehbq-worker's command line
 *
 * Error handling: wopts_parse() prints one line naming the option and
 * what it needs to stderr and returns -1; --help and --version print to
 * stdout and return 1 (the caller exits 0); 0 when the worker should run.
 *
 * Ownership: o->study and o->cmd point into argv.
 */
#ifndef DEHBQ_WOPTS_H
#define DEHBQ_WOPTS_H

#include <stddef.h>

/* What the operator asked for. */
struct wopts {
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
	int slots;	      /* --slots N, 0: not given */
	const char *gpus;     /* --gpus LIST|auto, or NULL */
	int gpus_per;	      /* --gpus-per-trial K, 0: not given (1) */
	int cpus_per;	      /* --cpus-per-trial C, 0: no pinning */
	unsigned long long mem_per; /* --mem-per-trial bytes, 0: none */
	char **cmd;		    /* argv after "--"; relative file names are
				       replaced by resolve_relative_args() */
};

/* Parse argv into o, defaults first. */
int wopts_parse(int argc, char **argv, struct wopts *o);

#endif
