/*
 * pareto.h - Pareto dominance among points of m minimised objectives:
 * non-dominated sorting, crowding distance, hypervolume, greedy
 * hypervolume subset selection and the default reference point (the
 * multi-objective issue; TRANSFER_SPEC.md, "Multi- objective")
 *
 * Points are rows of a row-major n x m array.  +inf (a failed trial, or a
 * missing objective) is allowed: such a point is dominated by any finite
 * one and adds no hypervolume.  NaN is refused.
 *
 * Ownership: results go to caller arrays; scratch memory is freed before
 * return.  Errors: DEHBQ_OK, DEHBQ_ENOMEM, DEHBQ_EINVAL (bad sizes, NaN),
 * DEHBQ_EUNSUP (hypervolume for m > 3).
 */
#ifndef DEHBQ_PARETO_H
#define DEHBQ_PARETO_H

#include <stddef.h>

#define PARETO_MAX_OBJ 16

/* 1 when a is no worse than b in every objective and better in one. */
int pareto_dominates(const double *a, const double *b, int m);

/*
 * rank[i] = 0 for the non-dominated points, 1 for those dominated only by
 * rank-0 points, and so on: for two objectives a sweep in O(n log n),
 * otherwise NSGA-II's fast non-dominated sort, O(m n^2).
 */
int pareto_rank(const double *y, size_t n, int m, int *rank);

/*
 * NSGA-II's crowding distance of the k points idx[0..k-1] of one front:
 * per objective, sorted, the gap between a point's neighbours over the
 * front's range; the two ends get +inf.  dist[j] is idx[j]'s.
 */
int pareto_crowding(const double *y, const size_t *idx, size_t k, int m,
		    double *dist);

/*
 * The hypervolume dominated by the points and bounded by ref (every
 * coordinate of a counted point < ref's): exact, m = 1, 2 (a sweep) or 3
 * (2-D slices along the third objective, O(n^2 log n)).
 */
int pareto_hypervolume(const double *y, size_t n, int m, const double *ref,
		       double *hv);

/*
 * Greedy hypervolume subset selection (Guerreiro, Fonseca and Paquete
 * 2016; Optuna's MOTPE splits a front so) of the k points idx[0..k-1]
 * of y, m <= 3: order[0] is the point that dominates the most
 * hypervolume below ref, each next one adds the most to what the points
 * before it dominate, for the first `greedy` picks; the rest follow by
 * what each would add to those, largest first.  Ties go to the earlier
 * position in idx.  order gets positions into idx (k entries).
 */
int pareto_hssp(const double *y, const size_t *idx, size_t k, int m,
		const double *ref, size_t greedy, size_t *order);

/*
 * MOTPE's reference for the k points idx[0..k-1] of y (Optuna 3.1): per
 * objective their worst value w moved out to max(1.1 w, 0.9 w), 1e-12
 * where that is 0.
 */
void pareto_worst_reference(const double *y, const size_t *idx, size_t k, int m,
			    double *ref);

/*
 * What each of the k points idx[0..k-1] of y alone adds to their
 * hypervolume below ref (the hypervolume of all less that of all but it):
 * c[j] for idx[j].  m <= 3.
 */
int pareto_contributions(const double *y, const size_t *idx, size_t k, int m,
			 const double *ref, double *c);

/*
 * The default reference point: over the non-dominated finite points, the
 * worst value of each objective plus 10 % of its range (plus 1 when the
 * range is 0).  DEHBQ_EINVAL when no point is finite.
 */
int pareto_reference(const double *y, size_t n, int m, double *ref);

#endif
