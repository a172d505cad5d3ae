/*
 * search_de_v04.h - owns reading the states of 0.4's `de` and `dehb`,
 * which ran on the DEHB engine, as the de searcher's (search_de*.c)
 *
 * 0.4 saved the engine's whole state (optim/sched/dehb_state.c's layout,
 * params.optimizer "de"): one population, at the ladder's top level, its
 * rolling target, its stream, the incumbents and the jobs in flight.  The
 * de searcher under fifo (one level) is that DE proposal for proposal, so
 * the conversion is exact: level 0 takes the top population, its turns
 * the jobs asked, its best the engine's incumbent at any fidelity, and its
 * jobs in flight [job, 0, slot].
 *
 * 0.4's dehb (params.optimizer "dehb") is the de searcher filling
 * hyperband's rungs (search_de_fill.c): every level takes the engine's
 * population with its configuration ids, the searcher's next
 * configuration id the engine's, and each job in flight [job, level,
 * slot, config, promotion].  The engine's brackets and jobs stay the
 * engine's (optim/sched/dehb_state.c reads them and skips the rest).
 *
 * Errors: DEHBQ_EINVAL with err naming the field, DEHBQ_ENOMEM.
 * Ownership: *out is a new object the caller deletes; in is borrowed.
 */
#ifndef DEHBQ_SEARCH_DE_V04_H
#define DEHBQ_SEARCH_DE_V04_H

struct cJSON;

/* 1 when state is the engine's (it has "params"). */
int de_v04_is_engine(const struct cJSON *state);
/* The de searcher's state for setup s from the engine's state in: de's
 * under fifo (one level), dehb's under a scheduler the searcher fills of
 * as many levels; any other pairing is refused. */
struct search_setup;
int de_v04_convert(const struct cJSON *in, const struct search_setup *s,
		   struct cJSON **out, char *err);

#endif
