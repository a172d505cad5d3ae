/*
 * held.h - a scheduler's searcher: what every scheduler that takes one
 * (OPTIM_CAP_SEARCHER: fifo, asha, sh, hyperband) shares, so that none of them
 * knows a searcher's name or settings
 *
 * A scheduler's settings name its searcher ("searcher", search_table's
 * first when absent) and give the searcher's own settings ("search", an
 * object).  Its saved state holds {"searcher":NAME,"search":STATE}, and
 * the results come back to the searcher at load through observe.
 *
 * Errors: DEHBQ_OK or an enum dehbq_err code, err naming the field.
 * Ownership: a struct held owns its searcher state; held_free frees it.
 * setup and JSON arguments are borrowed for the call.
 */
#ifndef DEHBQ_HELD_H
#define DEHBQ_HELD_H

#include "optim.h"

struct held {
	const struct search_ops *so; /* NULL until opened */
	void *ss;
	int replaying; /* a load's replay is under way (held_replay) */
};

/*
 * Validate the members "searcher" and "search" of a scheduler's settings
 * `in` (NULL: none) and append them, defaults filled in, as
 * "searcher":"S"[,"search":{...}] to out (NULL: validate only).  The
 * scheduler checks its other members itself.
 */
int held_settings(const struct cJSON *in, struct jsonbuf *out, char *err);

/*
 * Open the searcher of setup s (state NULL), or load it from a scheduler's
 * saved state: its "search" member, which "searcher" must say belongs to
 * the study's searcher; a state of 0.3, before the searcher interface,
 * has no "search" and is itself the searcher's (its "rng").  A
 * multi-objective setup needs a searcher that can rescore.  ladder: the
 * levels fidelities the scheduler runs; rungs 0 when each configuration
 * runs once at the top, 1 when configurations go up the ladder, 2 when
 * the searcher fills every rung (search_setup.fills: one that cannot is
 * refused, naming those that can); stream the scheduler's own random
 * stream or NULL (searcher.h); borrowed for the call.
 */
struct rng;
int held_open(const struct optim_setup *s, const double *ladder, int levels,
	      int rungs, const struct rng *stream, const struct cJSON *state,
	      struct held *h, char *err);

/* The searcher's part of a saved state: "searcher":"S","search":{...} */
int held_save(const struct held *h, struct jsonbuf *b);
/* The same for status.json: "searcher":"S","search":{...} */
int held_describe(const struct held *h, struct jsonbuf *b);
/* The job is in flight (searcher.h's issued; DEHBQ_ENOMEM only, and
 * then nothing changed).  A no-op while no searcher is held, and during
 * a load's replay for a searcher that keeps its own state (it saved its
 * jobs in flight too). */
int held_issued(struct held *h, const struct optim_job *job, const double *vec);
/*
 * A result for the searcher (loss +inf: failed).  While a load replays
 * the history (held_replay), a searcher that keeps its own state
 * (SEARCH_CAP_KEEPS) has it already and is not told again.
 */
int held_observe(struct held *h, const struct optim_job *job, const double *vec,
		 double loss);
/*
 * optim_ops.history for a scheduler whose own books are saved whole: 1
 * when the searcher the settings name needs the results replayed at load:
 * it checks its state at load, or it does not keep its own state
 * (SEARCH_CAP_KEEPS, which saves its jobs in flight too) and observes the
 * results or keeps jobs in flight (GP's believers).
 */
int held_history(const struct cJSON *settings);
/* A scheduler's replay step: job NULL ends the replay (searcher.h's
 * loaded); any other marks it under way. */
int held_replay(struct held *h, const struct optim_job *job);
/* optim_ops.rescore, forwarded to a searcher that learns. */
int held_rescore(struct held *h, const struct mobj *mo);
void held_free(struct held *h);

#endif
