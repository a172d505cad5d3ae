/*
 * progress.h - intermediate results (docs/protocol.md 4.6): a trainer's
 * progress lines, the progress file "dehbq-progress/1" a worker keeps of
 * them, and the stop file "dehbq-stop/1" the orchestrator writes when the
 * optimiser stops a trial
 *
 * A progress line is one JSON object per stdout line with a "fidelity":
 *   {"fidelity": 3, "loss": 0.41, "cost": 12.5, "info": {...}}
 * fidelity is the training done so far, in the study's fidelity units
 * (finite, > 0); loss finite; cost optional (finite, >= 0); info ignored.
 * The fidelities of one attempt must go up: a line whose fidelity is not
 * above the last kept one is refused.
 *
 * The progress file progress/IIIIIIII.aN.WID.json (one writer: the worker
 * running attempt N) holds the attempt's points, rewritten atomically:
 *   {"format":"dehbq-progress/1","id":"00000012","attempt":1,
 *    "worker":"0123456789ab","thinned":0,
 *    "points":[{"fidelity":1,"loss":0.5,"cost":2.1}, ...]}
 * It keeps at most PROGRESS_MAX_POINTS: when full, every second point but
 * the last is dropped ("thinned" counts them), so a trainer that prints a
 * million lines costs a bounded file, and the latest point is always in.
 *
 * The stop file stop/IIIIIIII.json (one writer: the orchestrator):
 *   {"format":"dehbq-stop/1","id":"00000012","fidelity":9,"loss":0.8}
 * the report at which the optimiser stopped the trial.
 *
 * Errors: DEHBQ_EINVAL with err naming the file or line and the field.
 * Ownership: a struct progress owns its points (progress_release);
 * renders return malloc'ed text.
 */
#ifndef DEHBQ_PROGRESS_H
#define DEHBQ_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#include "id.h"

#define PROGRESS_FORMAT	     "dehbq-progress/1"
#define PROGRESS_STOP_FORMAT "dehbq-stop/1"
#define PROGRESS_MAX_POINTS  1000	 /* points a progress file keeps */
#define PROGRESS_LINE_MAX    (64u << 10) /* longest progress line */
#define PROGRESS_CAP	     (1u << 20)	 /* file size cap */

struct progress_point {
	double fidelity; /* > 0 */
	double loss;	 /* finite */
	double cost;	 /* >= 0, or -1: not reported */
};

struct progress {
	char id[ID_TRIAL_LEN];
	int attempt;
	char worker[ID_WORKER_LEN];
	int64_t thinned; /* points dropped to keep the bound */
	struct progress_point *pt;
	size_t n, cap;
};

/*
 * One stdout line of a trainer (len bytes, no newline): DEHBQ_OK and *p
 * when it is a progress line; DEHBQ_ENOENT when it is not one (not a JSON
 * object, or one without "fidelity": a final report or other output);
 * DEHBQ_EINVAL with the reason when it is a bad one.
 */
int progress_line(const char *line, size_t len, struct progress_point *p,
		  char *err);

/* An empty progress of attempt attempt of trial id, by worker. */
void progress_init(struct progress *pr, const char *id, int attempt,
		   const char *worker);
/* Keep p (its fidelity above the last, else DEHBQ_EINVAL), thinning when
 * full; DEHBQ_ENOMEM. */
int progress_add(struct progress *pr, const struct progress_point *p);
/* The last point, or NULL. */
const struct progress_point *progress_last(const struct progress *pr);
void progress_release(struct progress *pr);

/* The progress file's text (pretty JSON, newline-terminated). */
int progress_render(const struct progress *pr, char **out);
/* Parse and validate a progress file; name for messages. */
int progress_parse(const char *name, const char *text, size_t len,
		   struct progress *pr, char *err);
int progress_load(const char *path, struct progress *pr, char *err);

/* The stop file's text for trial id (8 digits) stopped at fidelity. */
int progress_stop_render(const char *id, double fidelity, double loss,
			 char **out);

#endif
