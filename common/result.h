/*
 * result.h - the result file, "dehbq-result/1" (docs/protocol.md)
 *
 * Written once by the worker that ran the attempt (tmp + rename into
 * results/), read by the orchestrator and the CLI.  Field rules:
 *   - status "ok" has a finite "loss"; "stopped" a finite "loss" and
 *     "fidelity" (the last intermediate result: docs/protocol.md 4.6);
 *     every other status has no loss (the engine counts it as +inf).
 *     "fidelity" (reached) is optional otherwise.  NaN/Infinity cannot appear:
 * they are not JSON, and 1e400 is refused by jsonfile.
 *   - cost is finite and >= 0 (the worker uses wall seconds when the
 *     trainer reports none).
 *   - info is any JSON object the trainer reported, at most 64 KiB printed.
 *
 * Ownership: result_parse() fills a struct result whose info and text
 * fields are malloc'ed; result_release() frees them.  result_render()
 * returns a malloc'ed string the caller frees.
 */
#ifndef DEHBQ_RESULT_H
#define DEHBQ_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "id.h"

#define RESULT_FORMAT	"dehbq-result/1"
#define RESULT_CAP	(1u << 20)  /* file size cap */
#define RESULT_INFO_CAP (64u << 10) /* printed info cap */
#define RESULT_TAIL_CAP 4096	    /* stderr tail kept */
#define RESULT_MAX_OBJ	64	    /* members of "objectives" */

struct cJSON;
struct jsonfile;

enum result_status {
	RESULT_OK = 0,	/* trainer reported a finite loss */
	RESULT_FAILED,	/* non-zero exit, missing/invalid report, NaN loss */
	RESULT_TIMEOUT, /* killed at --trial-timeout */
	RESULT_CRASHED, /* trainer killed by a signal */
	RESULT_STOPPED, /* stopped early at the optimiser's word: loss is its
			   last reported value, fidelity how far it got */
};

struct result {
	char id[ID_TRIAL_LEN];	    /* trial id */
	char study[ID_STUDY_LEN];   /* study uuid */
	int attempt;		    /* attempt that produced it, >= 1 */
	uint64_t token;		    /* its trial file's token; 0: none */
	enum result_status status;  /* outcome */
	double loss;		    /* valid when status is ok or stopped */
	double fidelity;	    /* the fidelity reached: > 0 when
				       stopped, 0 when not known */
	double cost;		    /* >= 0 */
	char *info;		    /* printed JSON object, never NULL */
	char *objectives;	    /* printed {"name": number, ...} a
				       multi-objective trainer reported,
				       or NULL */
	char worker[ID_WORKER_LEN]; /* worker id */
	char host[ID_HOST_LEN];	    /* worker host */
	long pid;		    /* worker pid */
	double started;		    /* unix time trainer started */
	double finished;	    /* unix time it ended */
	double wall_time;	    /* seconds */
	long max_rss_kb;	    /* trainer peak RSS, -1 unknown */
	int exit_code;		    /* -1 when killed by a signal */
	int signal;		    /* 0 when it exited */
	char slurm_job[32];	    /* SLURM_JOB_ID or "" */
	char slurm_array_job[32];   /* SLURM_ARRAY_JOB_ID or "" */
	char slurm_array_task[16];  /* SLURM_ARRAY_TASK_ID or "" */
	char *error;		    /* why it failed, "" when ok */
	char *stderr_tail;	    /* last stderr lines, "" if none */
};

const char *result_status_name(enum result_status s);
/* 1 when r has a loss (ok, or stopped: both count as done, not failed). */
int result_has_loss(const struct result *r);
int result_status_parse(const char *s, enum result_status *st);

/* Zero r and set empty strings; call before filling one by hand. */
int result_init(struct result *r);
void result_release(struct result *r);

/* Parse and validate; name is used in messages.  DEHBQ_EINVAL + err. */
int result_parse(const char *name, const char *text, size_t len,
		 struct result *r, char *err);
int result_load(const char *path, struct result *r, char *err);

/* Pretty-printed JSON with a trailing newline. */
int result_render(const struct result *r, char **out);

/*
 * Validate a trainer's report {"loss": ..., "cost": ..., "info": {...},
 * "objectives": {...}} (from $DEHBQ_RESULT or the last stdout line; a
 * "fidelity" member is allowed and ignored, so that an intermediate
 * result line can be the last).  On
 * success sets *loss (NaN when absent: allowed only with objectives),
 * *cost (negative when absent), *info (malloc'ed printed object, "{}"
 * when absent) and *objectives (malloc'ed printed object of finite
 * numbers, NULL when absent).  A NaN-like loss, or neither a loss nor
 * objectives, is DEHBQ_EINVAL with a reason.
 */
int result_parse_report(const char *name, const char *text, size_t len,
			double *loss, double *cost, char **info,
			char **objectives, char *err);

/* Check an "objectives" member (an object of at most RESULT_MAX_OBJ
 * finite numbers with valid names) and print it into *out (malloc'ed). */
int result_print_objectives(const struct jsonfile *jf, const struct cJSON *v,
			    char **out, char *err);

#endif
