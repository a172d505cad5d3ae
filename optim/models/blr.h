/*
 * blr.h - Bayesian linear regression on a basis (DNGO's last layer, Snoek
 * et al. 2015): y = phi(x).w + noise, w ~ N(0, I / alpha), noise ~
 * N(0, 1 / beta), with alpha and beta maximising the evidence
 *
 *   log p(y) = k/2 log alpha + n/2 log beta - beta/2 |y - Phi m|^2
 *              - alpha/2 |m|^2 - 1/2 log |A| - n/2 log 2 pi,
 *   A = beta Phi'Phi + alpha I,  m = beta A^-1 Phi' y,
 *
 * over log alpha in [-10, 10] and log beta in [-5, 15] (NLopt's BOBYQA
 * from (0, 5)); the predictive mean at phi is phi.m, its variance
 * 1 / beta + phi' A^-1 phi.  Cholesky by LAPACKE's dpotrf over OpenBLAS.
 * The data enter through their statistics Phi'Phi, Phi'y and y'y, so each
 * evidence the search evaluates costs k^3, whatever n, and a caller that
 * keeps the statistics of rows it has seen (DNGO's) need not pass them
 * again.
 * A fit forms Phi'Phi and Phi'y once; each evidence the search evaluates
 * then costs k^3 + n k (not n k^2).
 *
 * Deterministic: a function of its inputs.  Ownership: blr_new returns a
 * model freed with blr_free; inputs are read during the call.  A model
 * keeps one scratch, so calls on one model must not run concurrently,
 * even blr_predict.  Errors:
 * DEHBQ_OK, DEHBQ_ENOMEM, DEHBQ_EINVAL (n < 1, k < 1, not positive
 * definite), DEHBQ_ESTATE (a prediction before a fit).
 */
#ifndef DEHBQ_BLR_H
#define DEHBQ_BLR_H

#include <stddef.h>

struct blr;

/* A model of k basis functions. */
int blr_new(int k, struct blr **out);
void blr_free(struct blr *b); /* NULL is fine */

/* Choose alpha and beta on (Phi, y) (n rows of k), then condition on them. */
int blr_fit(struct blr *b, const double *phi, const double *y, size_t n);
/* Condition on (Phi, y) with the alpha and beta of the last fit. */
int blr_condition(struct blr *b, const double *phi, const double *y, size_t n);

/* The statistics of n rows: G = Phi'Phi (k * k, its lower triangle
 * written; NULL: not), c = Phi'y (k) and *yy = y'y (y NULL: not). */
void blr_stats(int k, const double *phi, const double *y, size_t n, double *G,
	       double *c, double *yy);
/* blr_fit and blr_condition from the statistics of n rows (G: lower). */
int blr_fit_stats(struct blr *b, const double *G, const double *c, double yy,
		  size_t n);
int blr_condition_stats(struct blr *b, const double *G, const double *c,
			double yy, size_t n);
/* Mean and variance at n rows of phi. */
int blr_predict(const struct blr *b, const double *phi, size_t n, double *mu,
		double *var);
/* The last fit's log alpha and log beta. */
void blr_hyper(const struct blr *b, double *log_alpha, double *log_beta);

#endif
