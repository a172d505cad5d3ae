/*
 * searcher.h - the searcher interface: what configuration to try next
 *
 * A searcher proposes configurations (vectors in the unit cube) and
 * observes results at any fidelity; a scheduler (an optimiser of
 * optim_table that has OPTIM_CAP_SEARCHER) decides when each proposal runs,
 * at which fidelity, and what is promoted or stopped.  Every scheduler that
 * takes a searcher composes with every searcher of search_table[]: a study
 * names them as optimizer {"name": SCHEDULER, "searcher": SEARCHER}.
 * Adding a searcher is one file, one line in searcher.c and its tests.
 *
 * search/ is below the optimisers: it sees common/ and optim/models/ only.
 *
 * The calling sequence, kept by the scheduler:
 *   open (or load) -> { propose | issued | observe }* -> save -> free
 * propose and observe interleave freely: a result may come back for any
 * proposal, at any fidelity, in any order.  issued tells which jobs are in
 * flight (every job the scheduler runs, promotions and requeued jobs
 * included); a job's observe ends it.
 *
 * Observations are not the searcher's to save.  The scheduler keeps the
 * history (optim_ops.replay) and, at load, observes every result again in
 * the order the live run told them, issues every job still in flight,
 * and then calls loaded; save holds only what proposals consumed (an
 * rng, a sequence index) and what no result gives back (a model's
 * hyperparameters).  A searcher whose memory is bounded by design (re's
 * population, de's subpopulations) may save it instead, with its jobs in
 * flight, with SEARCH_CAP_KEEPS: it is then told neither the results nor
 * the jobs in flight again at load.  A result observed twice for one
 * job (a requeued job's re-run) is the searcher's to weigh: tpe replaces
 * the first, gp and gcp keep both (each as the optimiser of 0.3 did).
 *
 * Determinism: the same setup and the same calls give the same vectors,
 * bit for bit, and save -> load -> continue is identical to continuing.
 * The contract suites run every scheduler with every searcher.
 *
 * A searcher's own settings are the study's optimizer.search object
 * (search_ops.settings validates it and fills in the defaults); a preset
 * such as tpe takes them beside its own (optim.h).
 *
 * Errors: DEHBQ_OK or an enum dehbq_err code; on failure nothing changed.
 * Ownership: open/load return a state freed with free; the setup's
 * pointers are borrowed for the call.
 */
#ifndef DEHBQ_SEARCHER_H
#define DEHBQ_SEARCHER_H

#include <stddef.h>
#include <stdint.h>

#include "prior.h" /* struct prior_tasks: earlier tasks' results */
#include "trial.h" /* enum trial_kind: how a proposal was made */

struct cJSON;
struct jsonbuf;
struct mobj;
struct rng;

#define SEARCH_MAX_DIM 4096 /* OPTIM_MAX_DIM (optim_table.c checks) */
#define SEARCH_MAX_JOB ((int64_t)1 << 53) /* OPTIM_MAX_ID, likewise */

/* What the study fixes for a searcher. */
struct search_setup {
	int dim;	     /* 1..SEARCH_MAX_DIM */
	const int *choices;  /* per dimension: K choices, 0
				continuous; NULL: all continuous */
	uint64_t seed;	     /* the study's seed */
	double min_fidelity; /* the ladder's ends */
	double max_fidelity;
	double eta; /* the study's: its ladder is max_fidelity eta^-k down
		       to min_fidelity (common/hb.h); 0: one level */
	const struct cJSON *settings; /* optimizer.search, validated by
					 settings (NULL: defaults) */
	const double *ladder; /* the fidelities the scheduler runs, ascending,
				 the last the maximum: fifo's is that one */
	int levels;	      /* 1..HB_MAX_LEVELS entries of ladder */
	int rungs;	      /* 1: configurations start low and go up the
				 ladder (asha); 0: each runs once, at the
				 maximum (fifo) */
	int fills; /* 1: the scheduler runs brackets whose every rung the
		      searcher fills, calling propose_at for each job
		      (hyperband's "promotion": "searcher", DEHB) */
	const struct prior_tasks *transfer; /* earlier tasks, or NULL */
	const struct rng *stream; /* the scheduler's own random stream, for a
				     searcher that draws uniformly (random):
				     its draws go on from there, as the
				     scheduler's own would; NULL: seed from
				     seed */
};

/* What a searcher can do: search_ops.caps. */
enum search_cap {
	SEARCH_CAP_LEARNS = 1 << 0,   /* its proposals depend on results */
	SEARCH_CAP_TRANSFER = 1 << 1, /* uses earlier tasks' results */
	SEARCH_CAP_NEEDS_TRANSFER = 1 << 2, /* ... and runs only with them */
	SEARCH_CAP_KEEPS = 1 << 3,	    /* saves what it learnt (a bounded
					       population) and its jobs in
					       flight, and is told neither
					       again at load */
	SEARCH_CAP_FILLS = 1 << 4, /* fills brackets' rungs: propose_at */
};

/* Where a job of a scheduler that the searcher fills (setup.fills) runs. */
struct search_at {
	double fidelity; /* the job's fidelity, a level of setup.ladder */
	int64_t bracket; /* its bracket: 0, 1, ... in the order opened */
	int rung;	 /* its rung in the bracket, 0 the base */
	int n;		 /* the jobs that rung runs */
};

struct search_ops {
	const char *name;    /* optimizer.searcher, --searcher NAME */
	const char *summary; /* one line for --help and docs */
	unsigned caps;	     /* enum search_cap */
	int (*open)(const struct search_setup *s, void **st, char *err);
	/* a new configuration into vec (dim values in [0, 1]) for a job at
	 * fidelity, and how it was made; a searcher that implements issued
	 * makes room here for the issued that follows, so that it cannot
	 * fail */
	int (*propose)(void *st, double fidelity, double *vec,
		       enum trial_kind *kind);
	/* job's result at fidelity (loss +inf: failed).  NULL: a searcher
	 * that learns nothing from results (a scheduler then keeps no
	 * history for it) */
	int (*observe)(void *st, int64_t job, const double *vec,
		       double fidelity, double loss);
	int (*save)(const void *st, struct jsonbuf *b); /* one JSON value */
	int (*load)(const struct search_setup *s, const struct cJSON *state,
		    void **st, char *err);
	int (*describe)(const void *st, struct jsonbuf *b); /* "k":v,... */
	void (*free)(void *st);
	/* validate a settings object (NULL: none given) and append its
	 * members with every default filled in ("k":v,...) to out (NULL:
	 * validate only).  NULL: the searcher takes no settings. */
	int (*settings)(const struct cJSON *in, struct jsonbuf *out, char *err);
	/* a multi-objective study's scores moved: every observation's loss
	 * is now mobj_score(mo, its job) (NaN: leave it).  mo lives as long
	 * as the searcher's state, so a searcher may keep it until the next
	 * rescore (tpe reads its objectives for MOTPE's weights).  NULL: a
	 * searcher that learns cannot run a multi-objective study. */
	int (*rescore)(void *st, const struct mobj *mo);
	/* job is in flight with vector vec, at fidelity; its observe ends
	 * it.  Fails only with DEHBQ_ENOMEM, and then changed nothing: a
	 * scheduler calls it before it commits the job (after a propose, it
	 * cannot fail).  NULL: ignored. */
	int (*issued)(void *st, int64_t job, const double *vec,
		      double fidelity);
	/* at load, every result and job in flight is back: DEHBQ_EINVAL when
	 * the saved state does not fit them.  NULL: nothing to check. */
	int (*loaded)(void *st);
	/* under a scheduler it fills (setup.fills), a configuration for the
	 * job `at` describes, as propose; a configuration measured before,
	 * run again higher (kind TRIAL_KIND_PROMOTION), names in *parent the
	 * job that measured it, else *parent is -1.  NULL: the searcher
	 * cannot fill brackets (SEARCH_CAP_FILLS says it can). */
	int (*propose_at)(void *st, const struct search_at *at, double *vec,
			  enum trial_kind *kind, int64_t *parent);
};

/* Every searcher, NULL-terminated; the first is the default. */
extern const struct search_ops *const search_table[];

/* The searcher called name, or NULL. */
const struct search_ops *search_find(const char *name);
/* The searcher a scheduler's settings name (their member "searcher"), or
 * the default, search_table[0]. */
const struct search_ops *search_named(const struct cJSON *settings);
/*
 * The names of search_table's searchers that have every capability in
 * caps (0: all), in table order, joined by sep, into buf.  DEHBQ_ETOOBIG
 * (buf truncated) when it does not fit.
 */
int search_list(unsigned caps, const char *sep, char *buf, size_t size);

/*
 * Validate so's settings `in` (NULL: none) into out as "k":v,... members
 * (out NULL: validate only); err names optimizer.search's field.
 */
int search_settings(const struct search_ops *so, const struct cJSON *in,
		    struct jsonbuf *out, char *err);
/* 1 when so can run a multi-objective study (learns nothing, or rescores). */
int search_multiobjective(const struct search_ops *so);

/*
 * The fidelity a model should be fitted at, for a proposal at `at`: the
 * highest fidelity above `at` with at least `need` of the n results
 * (fid, loss; failures +inf and counted) of which at least 2 are finite,
 * else `at` itself.  Under ASHA that is the highest rung with a model's
 * worth of results; under fifo, always the maximum fidelity.
 */
double search_model_level(const double *fid, const double *loss, size_t n,
			  double at, size_t need);

#endif
