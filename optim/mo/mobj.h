/*
 * mobj.h - a multi-objective study's results and their current scalar
 * scores (the multi-objective issue; TRANSFER_SPEC.md, "Multi-objective")
 *
 * Every optimiser minimises one number.  In a study of m >= 2 objectives
 * (all minimised: the caller negates a maximised one) that number is a
 * score that mobj computes from every result told so far:
 *   copula          sum_l w_l psi_l(y_l), psi_l over all results of
 *                   objective l (copula.h), all fidelities pooled
 *   linear          sum_l w_l y_l, the raw values
 *   random-weights  ParEGO's augmented Chebyshev on the clipped ECDFs F_l,
 *                   max_l v_l F_l + 0.05 sum_l v_l F_l, where v = w times a
 *                   Dirichlet(1) draw that depends on (seed, epoch) only
 *   pareto          among the results at the same fidelity: the NSGA-II
 *                   front (0 best) plus 0.5 / (1 + crowding distance)
 *   hypervolume     the same fronts, each in greedy hypervolume subset
 *                   selection order (pareto_hssp), front + position /
 *                   size: the lowest n scores are the n results MOTPE
 *                   (Ozaki et al. 2020, as Optuna's TPESampler) would
 *                   split off as good.  2 or 3 objectives.
 * A failed result scores +inf (and counts in the ECDFs as +inf).  The
 * scores change as results arrive, so mobj_score_all recomputes all of
 * them; the optimiser's stored values are then replaced (optim_ops.
 * rescore).  Weights are normalised to sum 1.
 *
 * Results are kept by job id (dense: 0, 1, 2, ...), so memory is m + 2
 * doubles per job asked.
 *
 * Ownership: mobj_new returns an object freed by mobj_free; w is copied.
 * Errors: DEHBQ_OK, DEHBQ_ENOMEM, DEHBQ_EINVAL.
 */
#ifndef DEHBQ_MOBJ_H
#define DEHBQ_MOBJ_H

#include <stddef.h>
#include <stdint.h>

#include "pareto.h"

#define MOBJ_MAX PARETO_MAX_OBJ

enum mobj_mode {
	MOBJ_COPULA = 0,
	MOBJ_LINEAR,
	MOBJ_RANDOM_WEIGHTS,
	MOBJ_PARETO,
	MOBJ_HYPERVOLUME,
};

#define MOBJ_HSSP_MAX_OBJ 3 /* hypervolume: pareto_hypervolume's limit */
/* Greedy picks per front; the rest by their gain after them.  Optuna's
 * TPE never splits off more than 25 (its gamma's cap). */
#define MOBJ_HSSP_GREEDY  32

struct mobj;

/* "copula", "linear", "random-weights", "pareto", "hypervolume"; NULL for
 * a bad mode. */
const char *mobj_mode_name(int mode);
/* DEHBQ_EINVAL for an unknown name. */
int mobj_mode_parse(const char *name, int *mode);

/* m in 2..MOBJ_MAX; w: m finite weights > 0, or NULL for equal ones. */
int mobj_new(int m, const double *w, int mode, uint64_t seed,
	     struct mobj **out);
void mobj_free(struct mobj *mo); /* NULL is fine */

int mobj_count(const struct mobj *mo); /* m */
int mobj_mode(const struct mobj *mo);  /* enum mobj_mode */
/* The normalised weights (m doubles, borrowed). */
const double *mobj_weights(const struct mobj *mo);

/* Room for job id (call before anything that cannot be undone). */
int mobj_reserve(struct mobj *mo, int64_t id);
/*
 * Record job id's result: y = m values (none NaN), or NULL for a failure.
 * A second call for one id replaces the first (a requeued job's re-tell).
 * After mobj_reserve(mo, id) it cannot fail.
 */
int mobj_put(struct mobj *mo, int64_t id, double fidelity, const double *y);
/* Forget job id's result (undo a put). */
void mobj_drop(struct mobj *mo, int64_t id);

/*
 * Recompute every score for this epoch (random-weights only: the draw of
 * the weights).  Does nothing, and sets *changed to 0, when neither the
 * results nor the epoch changed since the last call; else *changed is 1.
 */
int mobj_score_all(struct mobj *mo, uint64_t epoch, int *changed);
/* Job id's score from the last mobj_score_all: NaN when not told. */
double mobj_score(const struct mobj *mo, int64_t id);
/* Job id's objectives (NULL: not told or failed; borrowed). */
const double *mobj_values(const struct mobj *mo, int64_t id);

/*
 * MOTPE's kernel weights for a good set of k jobs (Optuna 3.1's
 * _calculate_weights_below_for_multi_objective): each job's hypervolume
 * contribution within the set (pareto_contributions, MOTPE's reference
 * from the set's worst values) plus 1e-12, over the largest; 1 for a set
 * of one; 1e-12 for a job without objectives (failed).  2 or 3
 * objectives (else DEHBQ_EINVAL).
 */
int mobj_motpe_weights(const struct mobj *mo, const int64_t *jobs, size_t k,
		       double *w);

/* The random-weights draw for an epoch: m weights summing to 1. */
void mobj_epoch_weights(const struct mobj *mo, uint64_t epoch, double *v);

#endif
