/*
 * enginebook.h - the bracket engine (dehb.h) as check_dehb.c drives it:
 * each engine with the books optim.c would keep for it (its jobs in
 * flight, told and failed counts) and, under DEHB, the de searcher that
 * fills its rungs, set up as the hyperband scheduler sets it up
 * (optim_brackets.c)
 *
 * eb_ask, eb_tell and eb_reopen are dehb_ask, dehb_tell and dehb_reopen
 * with the books: a job is told by id, as optim_tell tells it (an id
 * never asked: DEHBQ_ENOENT; one not in flight: DEHBQ_ESTATE), and its
 * result reaches the searcher.  eb_reload saves and loads the engine and
 * its searcher, keeps the books and replays the jobs in flight
 * (dehb_replayed), as optim_load does.
 *
 * Ownership: an engine from eb_mk* is freed with eb_free.  At most 8 at
 * once.  Test code only: these helpers abort on unexpected failures.
 */
#ifndef DEHBQ_ENGINEBOOK_H
#define DEHBQ_ENGINEBOOK_H

#include "dehb.h"

#include <stdint.h>

#define EB_MAXD 8 /* dimensions */

/* An engine for p (set: the de searcher's settings, NULL: defaults). */
struct dehb *eb_mkp_with(const struct dehb_params *p, const char *set);
struct dehb *eb_mkp(const struct dehb_params *p);
struct dehb *eb_mk(enum dehb_optimizer o, double min, double max, int dim,
		   uint64_t seed);
void eb_free(struct dehb *d);

int eb_ask(struct dehb *d, struct dehb_job *j, double *x);
int eb_tell(struct dehb *d, uint64_t id, enum dehb_status st, double loss,
	    double cost);
int eb_reopen(struct dehb *d, const struct dehb_job *j, const double *x);
/* The job in flight with this id (x NULL: not wanted), or DEHBQ_ENOENT. */
int eb_get(struct dehb *d, uint64_t id, struct dehb_job *j, double *x);
/* The books' counts. */
int64_t eb_inflight(struct dehb *d);
int64_t eb_told(struct dehb *d);
int64_t eb_failed(struct dehb *d);
/* Ask and tell one job, its loss a toy function of x and its fidelity. */
int eb_step(struct dehb *d, struct dehb_job *j, double *x);
/* The engine's state and its searcher's, one line each (free it). */
char *eb_save_text(struct dehb *d);
/* A new engine from d's saved state, with d's books, jobs replayed. */
struct dehb *eb_reload(struct dehb *d);
double eb_toy_loss(const double *x, int dim, double fid);

#endif
