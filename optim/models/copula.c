/*
 * copula.c - owns the copula transform psi of copula.h
 */
#include "copula.h"

#include "err.h"
#include "normal.h"

#include <math.h>
#include <stdlib.h>

double copula_delta(size_t n)
{
	double N = (double)n;

	if (n <= 1)
		return 0.25;
	return 1.0 / (4.0 * pow(N, 0.25) * sqrt(M_PI * log(N)));
}

static int by_value(const void *a, const void *b, void *ctx)
{
	const double *y = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (y[i] != y[j])
		return y[i] < y[j] ? -1 : 1;
	return i < j ? -1 : i > j;
}

int copula_psi(const double *y, size_t n, double *z)
{
	double delta = copula_delta(n), zlo, zhi;
	size_t *ord, i, j;

	if (!n)
		return DEHBQ_EINVAL;
	for (i = 0; i < n; i++)
		if (isnan(y[i]))
			return DEHBQ_EINVAL;
	if (!(ord = malloc(n * sizeof(size_t))))
		return DEHBQ_ENOMEM;
	for (i = 0; i < n; i++)
		ord[i] = i;
	qsort_r(ord, n, sizeof(size_t), by_value, (void *)y);
	normal_quantile(delta, &zlo);
	normal_quantile(1 - delta, &zhi);
	for (i = 0; i < n; i = j) {
		double F, v;

		for (j = i + 1; j < n && y[ord[j]] == y[ord[i]]; j++)
			; /* ties: all of them count */
		F = (double)j / (double)n;
		if (isinf(y[ord[i]]) && y[ord[i]] > 0)
			v = zhi;
		else if (F <= delta)
			v = zlo;
		else if (F >= 1 - delta)
			v = zhi;
		else
			normal_quantile(F, &v);
		for (; i < j; i++)
			z[ord[i]] = v;
	}
	free(ord);
	return DEHBQ_OK;
}
