/*
 * copula.h - the copula transform psi of Salinas, Shen and Perrone (ICML
 * 2020, section 3; ../shared/TRANSFER_SPEC.md): each value is mapped
 * through the winsorised empirical CDF of its own sample, then Phi^-1
 *
 *   F~(t)  = #{i : y_i <= t} / N            (ties share one value)
 *   delta  = 1 / (4 N^(1/4) sqrt(pi log N)),  0.25 for N = 1
 *   psi(y) = Phi^-1(clip(F~(y), delta, 1 - delta))
 *
 * A value of +inf (a failure) takes F = 1 - delta.  Used by the GP's copula
 * output now, and by transfer learning and multi-objective scalarisation.
 *
 * Ownership: the caller's buffers; copula_psi allocates scratch and frees
 * it.  Errors: DEHBQ_OK, DEHBQ_ENOMEM, DEHBQ_EINVAL (n = 0, or a NaN).
 */
#ifndef DEHBQ_COPULA_H
#define DEHBQ_COPULA_H

#include <stddef.h>

/* The winsorising cut-off for a sample of n >= 1. */
double copula_delta(size_t n);

/* z[i] = psi(y[i]) over the sample y[0..n-1]; z may not alias y. */
int copula_psi(const double *y, size_t n, double *z);

#endif
