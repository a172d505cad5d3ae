/*
 * runenv.h - what a trainer is given for one attempt: its paths (work
 * directory, config.json, report path, logs), the operator's argv with the
 * placeholders substituted, and its environment
 *
 * Values from the trial reach the trainer as data only: whole
 * substitutions inside the operator's argv elements, environment
 * variables (DEHBQ_*, DEHBQ_P_<NAME>) and config.json.  Nothing here runs
 * anything, and no value ever passes through a shell.
 *
 * Calling sequence:
 *   struct runenv e;
 *   rc = runenv_prepare(&e, argv_template, &job, err);
 *   ... execvpe(e.argv[0], e.argv, e.envp) in the child, chdir(e.workdir)
 *   runenv_release(&e);
 *
 * Error handling: runenv_prepare() returns DEHBQ_ETOOBIG (a path too
 * long), DEHBQ_ESYS (mkdir, unlink or write failed; errno set, err names
 * the call and path) or DEHBQ_ENOMEM; on failure the struct needs
 * runenv_release() all the same (it is safe on a zeroed or half-built
 * one).
 *
 * Ownership: struct runenv owns argv, its strings, and the environment
 * entries it added (the others are borrowed from environ); vars points
 * into the struct itself, so a prepared struct must not be copied.  The
 * job is borrowed.  runenv_subst() returns malloc'ed text the caller
 * frees.
 */
#ifndef DEHBQ_RUNENV_H
#define DEHBQ_RUNENV_H

#include <stddef.h>

#include "id.h"
#include "study.h"

struct run_job;

/* Values of the placeholders; every member a NUL-terminated string. */
struct runenv_vars {
	const char *config;	    /* {config}: path of config.json */
	const char *budget;	    /* {budget}: fidelity, shortest exact */
	const char *id;		    /* {id}: 8-digit trial id */
	const char *attempt;	    /* {attempt} */
	const char *workdir;	    /* {workdir} */
	const char *result;	    /* {result}: report path */
	const char *seed;	    /* {seed} */
	const char *parent_workdir; /* {parent_workdir}, "" if none */
};

/*
 * Replace every known {name} in `in`; unknown ones stay as they are.
 * *out is malloc'ed; DEHBQ_OK or DEHBQ_ENOMEM.
 */
int runenv_subst(const char *in, const struct runenv_vars *v, char **out);

/* One attempt's paths, argv and environment. */
struct runenv {
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
	struct runenv_vars vars;      /* the placeholders, into the above */
	char **argv;		      /* substituted, NULL-terminated */
	size_t argc;		      /* entries of argv */
	char **envp;		      /* NULL-terminated environment */
	size_t envn;		      /* entries used */
	size_t envcap;		      /* entries allocated */
	size_t envown;		      /* entries [envown, envn) are ours */
};

/*
 * Fill e for job j: create the work and log directories, write
 * config.json, remove a previous attempt's report, substitute the
 * placeholders of argv_template (NULL-terminated), and build the
 * environment: the worker's own minus stale DEHBQ_ entries, plus the
 * attempt's.
 */
int runenv_prepare(struct runenv *e, char *const *argv_template,
		   const struct run_job *j, char *err);
/* Free what e owns; e is zeroed. */
void runenv_release(struct runenv *e);

#endif
