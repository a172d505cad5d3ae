/*
 * kde.h - BOHB's model: per-fidelity kernel density estimators of good and
 * bad configurations, and proposals that maximise l(x) / g(x)
 * (Falkner et al., ICML 2018; HpBandSter's bohb config generator)
 *
 * Results are kept per fidelity level.  A proposal uses the model of the
 * largest level with more than min_points (D + 1) results: the finite
 * results sorted by loss, good = the best max(D + 1, 15 %), bad = the next
 * max(D + 1, 85 %) (fewer when they would overlap).  Densities are product
 * kernels: a Gaussian with the normal-reference bandwidth
 * 1.06 sd n^(-1/(4 + D)) (statsmodels), at least min_bandwidth, for a
 * continuous dimension; Aitchison-Aitken for a parameter of K choices.
 * With probability random_fraction, or without a model, a proposal is
 * uniform.  Otherwise num_samples candidates perturb random good points
 * (a truncated normal of sd bandwidth_factor x bw; a categorical keeps its
 * value with probability 1 - bw, else a uniform draw) and the one with the
 * largest l / g (both floored at 1e-32) is proposed.
 *
 * Deterministic: every draw comes from the model's own xoshiro stream.
 *
 * Ownership: kde_new() returns a model freed with kde_free(); it copies
 * choices.  Proposals are written into caller buffers of dim doubles.
 */
#ifndef DEHBQ_KDE_H
#define DEHBQ_KDE_H

#include <stdint.h>

#include "rng.h"

struct kde;

struct kde_params {
	double top_n_percent;	 /* 15 */
	int num_samples;	 /* 64 */
	double random_fraction;	 /* 1/3 */
	double bandwidth_factor; /* 3 */
	double min_bandwidth;	 /* 1e-3 */
};

void kde_params_init(struct kde_params *p);

int kde_new(int dim, const int *choices, int nlevels,
	    const struct kde_params *p, uint64_t seed, struct kde **out);
void kde_free(struct kde *k);

/* A result at fidelity level `level` (loss +inf: failed). */
int kde_observe(struct kde *k, int level, const double *x, double loss);

/*
 * Result i of level (in observe order) now has loss (a multi-objective
 * study's scores moved).  DEHBQ_EINVAL: no such result.
 */
int kde_set_loss(struct kde *k, int level, int64_t i, double loss);

/* A new configuration into x. */
int kde_propose(struct kde *k, double *x);

/* The model's random stream, for save and load. */
struct rng *kde_rng(struct kde *k);

/* Results at level (0 when out of range). */
int64_t kde_count(const struct kde *k, int level);

#endif
