/*
 * normal.h - the standard normal distribution: density, distribution
 * function and its inverse
 *
 * The inverse (normal_quantile) is Wichura's algorithm AS 241 (PPND16,
 * Applied Statistics 37(3), 1988), accurate to about 1 part in 1e16: no
 * permissive Debian library provides it (GSL's is GPL).  The distribution
 * function is libm's erfc.  Used by the model-based optimisers (TPE now;
 * GP acquisition and the copula transform of issues 21 and 22 next).
 *
 * Ownership: pure functions, nothing allocated.
 */
#ifndef DEHBQ_NORMAL_H
#define DEHBQ_NORMAL_H

double normal_pdf(double z);
/* P(Z <= z), accurate in both tails (erfc, not 1 - erf). */
double normal_cdf(double z);
/* z with P(Z <= z) = p, for 0 < p < 1; DEHBQ_EINVAL (z untouched) else. */
int normal_quantile(double p, double *z);

#endif
