/*
 * dehb.h - the bracket engine: successive halving and Hyperband brackets
 * (their rungs, promotions, jobs in flight), ask/tell, deterministic,
 * resumable
 *
 * A pure library: no I/O, no clock, no globals.  Its brackets are DEHB's
 * (../shared/DEHB_SPEC.md, automl/DEHB v0.1.2, with the bugs of its
 * section 9 fixed; docs/algorithm.md lists every deviation), and the
 * schedulers sh and hyperband run on it (optim_brackets.c).  What runs
 * in a rung is a searcher's (searcher.h, dehb_set_searcher): under SH and
 * Hyperband it proposes each bracket's new configurations and the engine
 * promotes the best 1/eta of a rung; under DEHB (hyperband's "promotion":
 * "searcher") the searcher fills every rung, DE over a subpopulation per
 * level (optim/search/search_de_fill.c).
 *
 * Calling sequence:
 *   struct dehb_params p;  dehb_params_init(&p);  p.dim = 4; ...
 *   dehb_new(&p, &d, err);
 *   loop:
 *     rc = dehb_ask(d, &job, vec);    DEHBQ_OK: evaluate job at
 *                                     job.fidelity; DEHBQ_EAGAIN: wait for
 *                                     results; DEHBQ_EDONE: issue no more
 *     dehb_tell(d, &job, vec, DEHB_OK, loss, cost);   in any order
 *   until dehb_exhausted(d) and every job was told
 *   dehb_save(d) / dehb_load(json) at any point between calls; after a
 *   load, dehb_replayed() for every job in flight, then with NULL.
 *
 * The jobs in flight are the caller's (optim.c's books): the engine keeps
 * its brackets' counts of them, and a tell or a requeue hands it the job
 * as asked and its vector.  The caller tells each job once (a job told
 * twice, or one never asked, is a caller's bug the engine refuses when a
 * rung's count shows it, DEHBQ_ESTATE, and cannot always see).
 *
 * Determinism: the same params (seed included) and the same sequence of
 * ask/tell calls give the same jobs and the same state, bit for bit.
 * save -> load -> continue is identical to continuing.
 *
 * Termination: max_brackets stops opening brackets.  Every other budget
 * (fevals, cost, wall time) is the optimiser interface's (optim/optim.c).
 *
 * Error handling: functions return DEHBQ_OK or an enum dehbq_err code; on
 * failure nothing in the engine has changed.
 *
 * Ownership: dehb_new()/dehb_load() return an engine the caller frees with
 * dehb_free().  Vectors are the caller's buffers of p.dim doubles; the
 * engine copies what it keeps (sh's and hyperband's rung results).
 * dehb_save() appends to the caller's jsonbuf; dehb_load() borrows json.
 */
#ifndef DEHBQ_DEHB_H
#define DEHBQ_DEHB_H

#include <stdint.h>

struct rng;

struct cJSON;
struct dehb;
struct jsonbuf;
struct mobj;

enum dehb_optimizer {
	DEHB_OPT_DEHB = 0,  /* Hyperband's brackets, the searcher fills every
			       rung (searcher.h's propose_at) */
	DEHB_OPT_SH,	    /* successive halving: the best 1/eta go up */
	DEHB_OPT_HYPERBAND, /* Hyperband: SH brackets of every size */
};

/* The trial files' kinds (common/trial.h), value for value. */
enum dehb_kind {
	DEHB_KIND_TRIAL = 0, /* new DE trial vector, or a searcher's proposal */
	DEHB_KIND_PROMOTION, /* a lower-fidelity survivor re-run higher */
	DEHB_KIND_RANDOM,    /* a fresh random sample (baselines) */
	DEHB_KIND_PRIOR,     /* a searcher's proposal from earlier tasks */
};

enum dehb_status {
	DEHB_OK = 0, /* the loss is valid */
	DEHB_FAILED, /* the evaluation failed: counts as loss +inf */
};

struct dehb_params {
	enum dehb_optimizer optimizer; /* algorithm */
	int dim;		       /* dimensions, 1..DEHB_MAX_DIM */
	double min_fidelity;	       /* > 0 */
	double max_fidelity;	       /* > min_fidelity */
	double eta;		       /* > 1 */
	uint64_t seed;		       /* everything random derives from it */
	int64_t max_brackets;	       /* 0 = no limit */
	int max_active_brackets;       /* 0 = unlimited (the reference) */
};

#define DEHB_MAX_DIM 4096

struct dehb_job {
	uint64_t id;	     /* job id: 0, 1, 2, ... in ask order */
	int level;	     /* fidelity level index, 0 = lowest */
	double fidelity;     /* exact fidelity double to pass on */
	int64_t bracket;     /* bracket id (de: the job id) */
	int rung;	     /* rung within the bracket, 0 = base */
	enum dehb_kind kind; /* trial, promotion or random */
	int slot;	     /* sh/hyperband: rank in the rung; dehb: -1
				(the searcher's) */
	int64_t config_id;   /* sh/hyperband: config id, promotions re-use
				the lower one; dehb: -1 */
	int64_t parent_job;  /* promotion: job that evaluated the config at
				the lower level; else -1 */
	int reopened;	     /* the caller's: a requeued job's re-run (its
				bracket counted it already) */
};

struct dehb_counts {
	int64_t asked;	  /* jobs issued */
	int64_t brackets; /* brackets opened */
};

struct dehb_rung_info {
	double fidelity; /* rung fidelity */
	int n;		 /* jobs this rung issues */
	int pending;	 /* not yet handed out */
	int done;	 /* results received */
};

/* Fill p with the defaults (DEHB, eta 3, 1 to 27, ...). */
void dehb_params_init(struct dehb_params *p);

/* Validate params; DEHBQ_EINVAL with a message naming the field. */
int dehb_params_check(const struct dehb_params *p, char *err);

/*
 * Fidelity ladder for (min, max, eta) without building an engine.
 * Writes up to cap levels into fid (ascending) and their count into *n.
 */
int dehb_fidelities(double min_f, double max_f, double eta, double *fid,
		    int cap, int *n);

int dehb_new(const struct dehb_params *p, struct dehb **out, char *err);
void dehb_free(struct dehb *d);

/* See the calling sequence above.  vec receives p.dim doubles in [0,1]
 * (it is written even when the ask fails). */
int dehb_ask(struct dehb *d, struct dehb_job *job, double *vec);

/*
 * Tell the result of job (as dehb_ask returned it, reopened set by the
 * caller for a requeued job's re-run) with its vector.  A NaN loss or
 * status DEHB_FAILED counts as +inf.  cost must be finite and >= 0.
 * DEHBQ_EINVAL: bad cost, unknown status, a loss of -inf with DEHB_OK,
 * or a job that does not fit the engine; DEHBQ_ESTATE: its rung has no
 * job in flight (it was told already, or its bracket is gone).
 */
int dehb_tell(struct dehb *d, const struct dehb_job *job, const double *vec,
	      enum dehb_status status, double loss, double cost);

/*
 * A job that was told as DEHB_FAILED is evaluated again (`dehbq
 * requeue`): job and vec are what dehb_ask() returned for it; the caller
 * (who keeps the books) vouches that it failed and is not in flight.  Its
 * next tell, with reopened set, leaves its bracket alone: the bracket
 * counted the failure.  The searcher is told it is in flight (issued).
 * DEHBQ_ENOENT: never asked; DEHBQ_EINVAL: the job does not fit.
 */
int dehb_reopen(struct dehb *d, const struct dehb_job *job, const double *vec);

/*
 * After dehb_load: job (reopened set as the caller's books say) is one of
 * the jobs in flight; NULL once all were given.  DEHBQ_EINVAL when a job
 * fits no rung in flight, or (at NULL) when a rung's jobs in flight are
 * not all there: the snapshot's brackets and the books disagree.
 */
int dehb_replayed(struct dehb *d, const struct dehb_job *job,
		  const double *vec);

/*
 * Multi-objective studies: replace every stored result's fitness (the
 * SH/Hyperband rung results) by mobj_score(mo, its job id); a NaN leaves
 * a value alone.  Order that was decided stays.
 */
int dehb_rescore(struct dehb *d, const struct mobj *mo);

/* 1 when no more jobs will be issued (termination reached). */
int dehb_exhausted(const struct dehb *d);
/*
 * Raise max_brackets (dehbq extend): n >= the current limit, which is not
 * 0.  The engine then opens brackets up to n; DEHBQ_EINVAL otherwise.
 */
int dehb_extend(struct dehb *d, int64_t max_brackets);

const struct dehb_params *dehb_get_params(const struct dehb *d);
void dehb_get_counts(const struct dehb *d, struct dehb_counts *c);
/*
 * The searcher (searcher.h): under SH and Hyperband the new
 * configurations of a bracket's base rung come from so->propose instead
 * of uniform draws; under DEHB every job comes from so->propose_at (a
 * DEHB engine without one asks nothing: DEHBQ_EINVAL).  Every job the
 * engine asks or takes back (dehb_reopen) is reported to so->issued
 * before it commits; a call the searcher fails changes nothing.  The
 * results are the caller's to observe.  Not saved: set it again after
 * dehb_load().  so and ss are borrowed.
 */
struct search_ops;
void dehb_set_searcher(struct dehb *d, const struct search_ops *so, void *ss);
/* The engine's own stream (SH/HB's uniform draws come from it). */
struct rng;
const struct rng *dehb_stream(const struct dehb *d);

/* Number of fidelity levels and their values. */
int dehb_levels(const struct dehb *d);
double dehb_level_fidelity(const struct dehb *d, int level);

/*
 * Active brackets, oldest first.  dehb_bracket_info() copies up to cap
 * rungs of bracket i (0 <= i < dehb_active_brackets()).
 */
int dehb_active_brackets(const struct dehb *d);
int dehb_bracket_info(const struct dehb *d, int i, int64_t *bracket_id,
		      struct dehb_rung_info *rungs, int cap, int *nrungs);

/*
 * Whole state to JSON, and back.  dehb_save appends one object's compact
 * text to b (DEHBQ_ENOMEM leaves b failed).
 */
int dehb_save(const struct dehb *d, struct jsonbuf *b);
int dehb_load(const struct cJSON *json, struct dehb **out, char *err);

/* Names for enums, and parsing them (DEHBQ_EINVAL when unknown). */
const char *dehb_optimizer_name(enum dehb_optimizer o);
int dehb_optimizer_parse(const char *s, enum dehb_optimizer *o);
const char *dehb_kind_name(enum dehb_kind k);
int dehb_kind_parse(const char *s, enum dehb_kind *k);

#endif
