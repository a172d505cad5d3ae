/*
 * optim.h - the optimiser interface: one ops table per optimiser, and the
 * books every optimiser shares
 *
 * optim/ is a pure library: no I/O, no clock, no globals.  An optimiser is
 * a struct optim_ops (optim_table[] lists them); adding one is one file,
 * one line in the table and its tests.  The scheduler only ever calls the
 * optim_* functions below, which wrap the table and keep, once for every
 * optimiser:
 *   - the in-flight table: each asked job, its vector and its opaque state,
 *     until it is told (a second tell is refused here, not in a backend);
 *   - the budget: fevals, cost and wall time, each counting work in flight
 *     (a job is charged its fidelity when asked, and the charge is replaced
 *     by its real cost when told); brackets through the bracket backends;
 *   - the incumbents (best at any fidelity, best at the maximum);
 *   - the snapshot envelope: optimiser name, format version, the books and
 *     the backend's own state.
 *
 * Calling sequence:
 *   optim_open(&setup, &o, err);          or optim_load(json, &setup, ...)
 *   loop:
 *     optim_set_elapsed(o, seconds);
 *     rc = optim_ask(o, &job, vec);      DEHBQ_OK: run job at job.fidelity;
 *                                        DEHBQ_EAGAIN: wait for results;
 *                                        DEHBQ_EDONE: ask no more
 *     optim_tell(o, id, OPTIM_OK, loss, cost);        in any order
 *   until optim_finished(o)
 *
 * Determinism: the same setup (seed included) and the same sequence of
 * calls give the same jobs, bit for bit; save -> load -> continue is
 * identical to continuing.  tests/check_optim.c checks this for every
 * optimiser in optim_table[].
 *
 * Per-trial state: job.state is the text of a compact JSON object (or "")
 * that the backend needs to take a job back (optim_reopen).  The scheduler
 * stores it in the trial file and hands it back unread.
 *
 * Errors: DEHBQ_OK or an enum dehbq_err code; on failure nothing changed.
 *
 * Ownership: optim_open()/optim_load() return an optimiser freed with
 * optim_free().  Vectors are copied into caller buffers of setup.dim
 * doubles.  optim_save()/optim_describe() append to the caller's jsonbuf.
 * setup.settings and setup.choices are borrowed for the call only.
 */
#ifndef DEHBQ_OPTIM_H
#define DEHBQ_OPTIM_H

#include <stddef.h>
#include <stdint.h>

#include "prior.h"    /* struct prior_tasks: earlier tasks' results */
#include "searcher.h" /* the searchers a scheduler can take */

struct cJSON;
struct jsonbuf;
struct mobj;
struct optim;
struct space;

#define OPTIM_FORMAT	  "dehbq-optim/1"
#define OPTIM_STATE_MAX	  256 /* bytes of a job's opaque state, NUL in */
#define OPTIM_MAX_DIM	  4096
#define OPTIM_MAX_ID	  ((int64_t)1 << 53) /* ids stay exact in JSON */
#define OPTIM_MAX_REPORTS 1000 /* intermediate results of one job */

enum optim_kind {
	OPTIM_KIND_TRIAL = 0, /* a configuration the optimiser proposed */
	OPTIM_KIND_PROMOTION, /* a configuration re-run at a higher fidelity */
	OPTIM_KIND_RANDOM,    /* a uniform random sample */
	OPTIM_KIND_PRIOR,     /* drawn from the prior of earlier studies */
};

enum optim_status {
	OPTIM_OK = 0,  /* the loss is valid */
	OPTIM_FAILED,  /* the evaluation failed: counts as loss +inf */
	OPTIM_STOPPED, /* stopped early at the optimiser's word
			  (optim_report): the loss is its last reported
			  value, at a lower fidelity than asked */
};

enum optim_best_which {
	OPTIM_BEST_ANY = 0, /* best at any fidelity */
	OPTIM_BEST_MAX,	    /* best at the maximum fidelity */
};

/*
 * Budget limits; 0 = no limit.  Every one counts work in flight.  A bracket
 * backend enforces `brackets` itself (it opens no bracket beyond it and
 * finishes the open ones); for the others optim.c caps the jobs asked.
 */
struct optim_limits {
	int64_t fevals;	  /* jobs asked */
	int64_t brackets; /* brackets opened (bracket backends), else jobs */
	double cost;	  /* told costs + fidelities of jobs in flight */
	double walltime;  /* seconds given to optim_set_elapsed() */
};

/* What the study fixes for every optimiser. */
struct optim_setup {
	int dim;		      /* 1..OPTIM_MAX_DIM */
	double min_fidelity;	      /* > 0 */
	double max_fidelity;	      /* > min_fidelity */
	double eta;		      /* > 1: the ladder max * eta^-k */
	uint64_t seed;		      /* everything random derives from it */
	struct optim_limits lim;      /* budget */
	const int *choices;	      /* per dimension: K for a parameter of
					 K choices, 0 continuous; NULL: all
					 continuous.  Borrowed. */
	const struct cJSON *settings; /* the optimiser's own settings (an
					 object; NULL: defaults).  Borrowed. */
	/* NULL, or 0 for a vector that must never be evaluated (a forbidden
	 * configuration): optim_ask tells the backend such a proposal
	 * failed, without running it, and asks again.  Borrowed for the
	 * optimiser's lifetime; it must be a function of vec alone. */
	int (*feasible)(void *arg, const double *vec);
	void *feasible_arg;
	/* A study of nobj >= 2 objectives (0: one loss; see mobj.h):
	 * results are told with optim_tell_obj, and the backend minimises
	 * their current scores (optim_ops.rescore). */
	int nobj;		   /* 0, or 2..MOBJ_MAX */
	const double *obj_weights; /* nobj weights > 0; NULL: equal.
				      Borrowed for the call. */
	int scalarise;		   /* enum mobj_mode */
	/* Earlier tasks (NULL: none); borrowed for open and load, which
	 * fit what they need from it. */
	const struct prior_tasks *transfer;
	/* The study's space (NULL: none; each dimension then a float on
	 * [0, 1] or a categorical of its choices): for a scheduler that moves
	 * a configuration in the parameters' own units (pbt's explore).
	 * Borrowed for the optimiser's lifetime. */
	const struct space *space;
	int64_t asked; /* set by optim_load for ops.load: the
			  jobs asked so far (a bound for the
			  backend's counts); 0 otherwise */
};

struct optim_job {
	uint64_t id;	      /* 0, 1, 2, ... in ask order */
	double fidelity;      /* exact fidelity to evaluate at */
	int64_t bracket;      /* group for display: bracket, or lineage */
	int rung;	      /* 0 = lowest fidelity; higher runs first */
	enum optim_kind kind; /* how the configuration was produced */
	int64_t parent;	      /* job whose work this continues, or -1 */
	char state[OPTIM_STATE_MAX]; /* opaque per-trial state ("" none) */
	int reopened; /* the books': a failed job run again (optim_reopen),
			 whose tell is a re-tell; 0 at ask */
};

struct optim_best {
	int valid;	 /* 0 until a finite loss was told */
	double loss;	 /* best loss */
	double fidelity; /* fidelity it was measured at */
	uint64_t job_id; /* job that produced it */
};

struct optim_counts {
	int64_t asked;	   /* jobs issued */
	int64_t told;	   /* results told (ok + failed) */
	int64_t failed;	   /* told as failed */
	int64_t inflight;  /* asked - told */
	int64_t forbidden; /* proposals refused by feasible(), never run, and
			      not in the counts above */
	int64_t brackets;  /* brackets opened (bracket backends), else 0 */
	double total_cost; /* sum of told costs */
};

/*
 * What an optimiser can do: optim_ops.caps.  Everything a user sees about
 * it (init's usage text, checks and messages) is computed from these and
 * the table, never from a list of names.
 */
enum optim_cap {
	OPTIM_CAP_TRANSFER = 1 << 0,	   /* uses earlier tasks' results */
	OPTIM_CAP_NEEDS_TRANSFER = 1 << 1, /* ... and runs only with them */
	OPTIM_CAP_ASHA = 1 << 2,	   /* ASHA can schedule its proposals
					      (its setting multi_fidelity) */
	OPTIM_CAP_BRACKETS = 1 << 3,	/* runs successive-halving brackets */
	OPTIM_CAP_ONE_BRACKET = 1 << 4, /* ... of the widest kind only */
	OPTIM_CAP_MULTIOBJECTIVE = 1 << 5, /* not a member: ops.rescore set */
	OPTIM_CAP_SEARCHER = 1 << 6,   /* a scheduler that takes any searcher
					  of search_table (searcher.h): its
					  setting "searcher" */
	OPTIM_CAP_RUNGS = 1 << 7,      /* asynchronous rungs: new configurations
					  start at the lowest fidelity, the
					  best 1/eta of a rung go up */
	OPTIM_CAP_SEQUENTIAL = 1 << 8, /* proposes from a model of every
					  result: a proposal made before the
					  last result is in is worse (dehbq
					  init: prefetch 0) */
	OPTIM_CAP_ONE_FIDELITY = 1 << 9, /* runs a study of one fidelity
					    (min = max): what it proposes
					    runs at the maximum */
	OPTIM_CAP_STOPS = 1 << 10,	 /* not a member: ops.report set; learns
					    from intermediate results and stops
					    trials early */
	OPTIM_CAP_SEGMENTS = 1 << 11,	 /* trains a population in segments,
					    each a trial that continues from a
					    checkpoint, and ends on its own
					    (pbt: population_size,
					    perturbation_interval) */
};

/*
 * One optimiser.  `void *st` is the backend's state.  The books above are
 * kept by optim.c, so a backend only proposes and learns:
 *   settings: validate a settings object (NULL: none given) and append its
 *     members with every default filled in (`"k":v,...`, no braces) to out.
 *   open: a new state for a validated setup.
 *   ask: fill job (kind, fidelity, bracket, rung, parent, state; id is
 *     given) and vec; DEHBQ_EAGAIN / DEHBQ_EDONE as optim_ask.
 *   tell: the job as asked, its vector, and the result (loss +inf when
 *     failed).  Never called twice for one job.
 *   reopen: a failed job comes back in flight (dehbq requeue); its next
 *     tell follows.  DEHBQ_EINVAL when the job's state does not fit.
 *   brackets: brackets opened so far; NULL for optimisers without any.
 *   done: 1 when the backend's own structure issues nothing more (the
 *     bracket limit reached and no bracket pending); NULL: never.
 *   limits: the study's limits grew (optim_extend, already checked); a
 *     backend that enforces one itself (brackets) takes the new value.
 *     NULL: optim.c enforces them all.
 *   save/load: the backend's state as one JSON value, and back.
 *   describe: members for status.json (`"k":v,...`, at least one).
 *   replay: set by an optimiser that keeps its history (every result)
 *     rather than rewrite it in each save (but see history).  optim.c then
 * keeps a history record of every tell (optim_history_pending), and at load,
 * after the backend's own (bounded) state, replays every record in tell order
 *     (told 1; told 2 for the re-tell of a requeued job, which replaces
 *     its failed result), then every job still in flight (told 0;
 *     reopened: it was put back by a requeue), then once with job NULL:
 *     the history is all in.  An intermediate result (report) comes back
 *     in its place with told 3.
 *   rescore: a multi-objective study's scores moved (mobj.h): replace
 *     every stored result's loss by mobj_score(mo, its job id); a NaN score
 *     (not told) leaves a value alone.  Called before every tell and ask
 *     whose scores changed, so a stored loss is never stale when used.
 *     NULL: the optimiser refuses multi-objective studies.
 *   report: an intermediate result of a job in flight (fidelity above
 *     the job's last report, at most the job's; loss finite); *stop set
 *     to 1 when the job should stop now.  Each report is a history
 *     record: replay gets it back in its place with told 3, the job's
 *     fidelity replaced by the reported one.  A stopped job is then told
 *     with OPTIM_STOPPED (its last reported loss).  NULL: the optimiser
 *     observes final results only (it lacks OPTIM_CAP_STOPS).
 *   Only `brackets`, `done`, `limits`, `describe`, `replay`, `rescore`
 *   and `report` may be NULL.
 *   preset: set on a preset, an entry with no functions but name,
 *     summary and caps: it names a searcher of search_table, which runs
 *     under the scheduler `under`; its settings are the searcher's, but
 *     those named in under_keys, which are the scheduler's.  With under
 *     NULL the scheduler is the default one (fifo: every proposal at the
 *     maximum fidelity), or asha when its setting multi_fidelity is
 *     "asha" (preset.c).  optim_name() and snapshots keep the preset's
 *     name.  renames maps a setting's older name to the searcher's;
 *     under_set fixes settings of under that the user does not give;
 *     hides names searcher settings the preset refuses and does not show.
 */
struct optim_ops {
	const char *name;    /* --optimizer NAME */
	const char *summary; /* one line for --help and docs */
	unsigned caps;	     /* enum optim_cap, but MULTIOBJECTIVE */
	int (*settings)(const struct cJSON *in, struct jsonbuf *out, char *err);
	int (*open)(const struct optim_setup *s, void **st, char *err);
	int (*ask)(void *st, struct optim_job *job, double *vec);
	int (*tell)(void *st, const struct optim_job *job, const double *vec,
		    enum optim_status status, double loss, double cost);
	int (*reopen)(void *st, const struct optim_job *job, const double *vec);
	int64_t (*brackets)(const void *st);
	int (*done)(const void *st);
	int (*limits)(void *st, const struct optim_limits *lim);
	int (*save)(const void *st, struct jsonbuf *b);
	int (*load)(const struct optim_setup *s, const struct cJSON *state,
		    void **st, char *err);
	int (*describe)(const void *st, struct jsonbuf *b);
	int (*replay)(void *st, const struct optim_job *job, const double *vec,
		      int told, int reopened, enum optim_status status,
		      double loss);
	int (*rescore)(void *st, const struct mobj *mo);
	int (*report)(void *st, const struct optim_job *job, const double *vec,
		      double fidelity, double loss, int *stop);
	void (*free)(void *st);
	/* with replay: whether a study with these settings needs its
	 * history (a scheduler whose searcher learns nothing needs none);
	 * NULL: always */
	int (*history)(const struct cJSON *settings);
	const char *preset; /* a preset: its searcher's name; else NULL */
	const char *under;  /* a preset's scheduler, or NULL (above) */
	const char *const *under_keys; /* the settings that are under's */
	/* a preset's settings that its searcher names otherwise, as pairs
	 * {old, new, ..., NULL}: a study.json of 0.4 still opens */
	const char *const *renames;
	/* the settings a preset fixes for under, as string pairs {key,
	 * value, ..., NULL} (dehb: hyperband's promotion "searcher") */
	const char *const *under_set;
	/* its searcher's settings that a preset neither takes nor shows,
	 * NULL-terminated (dehb: de's population_size) */
	const char *const *hides;
};

/* Every optimiser, NULL-terminated; the first is the default. */
extern const struct optim_ops *const optim_table[];

/* The optimiser called name, or NULL. */
const struct optim_ops *optim_find(const char *name);

/* name's capabilities (enum optim_cap); 0 for an unknown name. */
unsigned optim_caps(const char *name);
/*
 * The same for a study of name with these settings (NULL: defaults): a
 * scheduler's searcher adds SEQUENTIAL when it learns and TRANSFER when it
 * uses earlier tasks, and takes away MULTIOBJECTIVE when it cannot
 * rescore.
 */
unsigned optim_study_caps(const char *name, const struct cJSON *settings);
/*
 * The names of optim_table's optimisers that have every capability in
 * caps (0: all), in table order, joined by sep, into buf.  DEHBQ_ETOOBIG
 * (buf truncated) when it does not fit.
 */
int optim_list(unsigned caps, const char *sep, char *buf, size_t size);

/* The scheduler a searcher runs under when none is named (fifo). */
const char *optim_default_scheduler(void);
/* The optimiser of a study of one fidelity when none is named (gp). */
const char *optim_default_one_fidelity(void);
/*
 * A study of one fidelity (min_f = max_f) runs only under an optimiser
 * that can (OPTIM_CAP_ONE_FIDELITY, of the scheduler a preset's settings
 * resolve to): DEHBQ_EINVAL naming name and those that can.
 */
int optim_check_fidelity(const char *name, const struct cJSON *settings,
			 double min_f, double max_f, char *err);
/*
 * Validate name's settings (NULL: none given) and return them complete, as
 * a new cJSON object the caller deletes.  err names the field.
 */
int optim_settings(const char *name, const struct cJSON *in, struct cJSON **out,
		   char *err);

/* Fidelity ladder of (min, max, eta): up to cap values, ascending. */
int optim_fidelities(double min_f, double max_f, double eta, double *fid,
		     int cap, int *n);

int optim_open(const char *name, const struct optim_setup *s,
	       struct optim **out, char *err);
void optim_free(struct optim *o); /* NULL is fine */

const char *optim_name(const struct optim *o);
int optim_dim(const struct optim *o);

int optim_ask(struct optim *o, struct optim_job *job, double *vec);

/*
 * Tell a result.  DEHBQ_ENOENT: never asked; DEHBQ_ESTATE: already told.
 * A NaN loss or OPTIM_FAILED counts as +inf.  cost: finite, >= 0.
 * OPTIM_STOPPED only for a job the optimiser stopped (optim_report); a
 * loss that is not finite is then its last reported one.  A stopped job
 * counts as told, not failed, and is no incumbent (its loss is not at
 * the job's fidelity).
 * DEHBQ_EINVAL: bad cost or status, or a loss of -inf with OPTIM_OK.
 */
int optim_tell(struct optim *o, uint64_t id, enum optim_status status,
	       double loss, double cost);
/*
 * The same for a multi-objective study (optim_tell refuses one with
 * DEHBQ_EINVAL): y holds setup.nobj finite values, all minimised, or is
 * NULL for a failure (so is a NaN in y).
 */
int optim_tell_obj(struct optim *o, uint64_t id, enum optim_status status,
		   const double *y, double cost);
/*
 * An intermediate result of job id, in flight: loss (finite) at fidelity,
 * which must be above the job's last report and at most its fidelity.
 * *stop is 1 when the optimiser decides that the job stops now (its
 * decision is kept: optim_stopping), and the job is then told with
 * OPTIM_STOPPED and its last reported loss.  DEHBQ_ENOENT: not in
 * flight; DEHBQ_EINVAL: a fidelity or loss that does not fit, or an
 * optimiser that does not stop trials (optim_caps: OPTIM_CAP_STOPS).
 * Reports after a stop are refused with DEHBQ_ESTATE; more than
 * OPTIM_MAX_REPORTS for one job (in flight) with DEHBQ_ETOOBIG, so that a
 * trainer that reports a million times costs a bounded history.
 */
int optim_report(struct optim *o, uint64_t id, double fidelity, double loss,
		 int *stop);
/*
 * What is known of job id's intermediate results: its last reported
 * fidelity (0 before any), loss (NaN before any) and whether the
 * optimiser decided to stop it.  DEHBQ_ENOENT: not in flight.
 */
int optim_reported(const struct optim *o, uint64_t id, double *fidelity,
		   double *loss, int *stop);
/* 1 when the optimiser takes intermediate results (ops.report). */
int optim_stops(const struct optim *o);

/* setup.nobj: 0 for a single-objective optimiser. */
int optim_objectives(const struct optim *o);
/* Job id's current score in a multi-objective study; NaN otherwise. */
double optim_score(const struct optim *o, int64_t id);

/*
 * Put a job that was told as failed back in flight (`dehbq requeue`).  job
 * and vec are as optim_ask() returned them (state included); the caller,
 * who keeps the history, vouches that it failed.  told and failed go down
 * by one.  DEHBQ_ESTATE: in flight, or nothing failed; DEHBQ_ENOENT: never
 * asked; DEHBQ_EINVAL: the job does not fit this optimiser.
 */
int optim_reopen(struct optim *o, const struct optim_job *job,
		 const double *vec);

/* The in-flight job with this id (vec may be NULL), or DEHBQ_ENOENT. */
int optim_job(const struct optim *o, uint64_t id, struct optim_job *job,
	      double *vec);

/* The caller's clock, seconds since the study started; ignored if < 0. */
void optim_set_elapsed(struct optim *o, double seconds);

/*
 * Grow the budget (dehbq extend): lim replaces the current limits.  Each
 * limit must stay 0 (none) or, when set, not shrink: a limit is neither
 * added nor removed.  An exhausted optimiser asks again once a limit is
 * raised past what it has spent; it continues exactly as if it had been
 * opened with lim (the contract test checks it).  The new limits are
 * saved with the state.  DEHBQ_EINVAL (err says which limit) otherwise,
 * nothing changed.
 */
int optim_extend(struct optim *o, const struct optim_limits *lim, char *err);
void optim_limits(const struct optim *o, struct optim_limits *lim);

int optim_exhausted(const struct optim *o); /* 1: asks no more */
int optim_finished(const struct optim *o);  /* and nothing in flight */

void optim_counts(const struct optim *o, struct optim_counts *c);
/* DEHBQ_ENOENT (b->valid 0) while there is none; vec may be NULL. */
int optim_best(const struct optim *o, enum optim_best_which which,
	       struct optim_best *b, double *vec);

/*
 * Whole state as one JSON object {"format","name","books","state"}, and
 * back.  optim_load checks name and format: a snapshot of another format
 * is refused (DEHBQ_EUNSUP) with a message saying so, never misread.
 * setup gives the study's fixed values; they must match the saved ones.
 *
 * History: an optimiser that keeps its history (optim_keeps_history)
 * saves only a bounded state; every tell also makes a history record, a
 * line of compact JSON.  The caller appends the pending records
 * (optim_history_pending, then optim_history_written once they are
 * stored) to an append-only file before it saves; optim_load gets that
 * file's text
 * back (exactly the records made before the save; history NULL and hlen 0
 * for an optimiser without one).  A save rewrites O(1) bytes, not O(n).
 */
int optim_save(const struct optim *o, struct jsonbuf *b);
int optim_load(const struct cJSON *json, const struct optim_setup *s,
	       const char *history, size_t hlen, struct optim **out, char *err);
int optim_keeps_history(const struct optim *o);
/* The records made since the last optim_history_written(): borrowed text
 * (NULL, 0 when none), valid until the next tell. */
void optim_history_pending(const struct optim *o, const char **text,
			   size_t *len);
/* The caller has stored the pending records durably: forget them. */
void optim_history_written(struct optim *o);

/* Members for status.json's "optimizer" object ("k":v,...). */
int optim_describe(const struct optim *o, struct jsonbuf *b);

const char *optim_kind_name(enum optim_kind k);

#endif
