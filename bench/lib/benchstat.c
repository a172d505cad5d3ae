/*
 * benchstat.c - mean, standard deviation, quantiles and the Mann-Whitney
 * U test (benchstat.h)
 */
#include "benchstat.h"

#include <math.h>
#include <stdlib.h>

void benchstat_mean_sd(const double *x, int n, double *mean, double *sd)
{
	double s = 0, q = 0;
	int i, m = 0;

	for (i = 0; i < n; i++)
		if (!isnan(x[i])) {
			s += x[i];
			m++;
		}
	*mean = m ? s / m : NAN;
	for (i = 0; i < n; i++)
		if (!isnan(x[i]))
			q += (x[i] - *mean) * (x[i] - *mean);
	*sd = m > 1 ? sqrt(q / (m - 1)) : 0;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double benchstat_quantile(double *x, int n, double q)
{
	qsort(x, (size_t)n, sizeof(*x), cmp_dbl);
	return x[(size_t)(q * (n - 1))];
}

double benchstat_mann_whitney(const double *a, const double *b, int n,
			      double *u, double *effect)
{
	double U = 0, ties = 0, mu, sigma, z, N = 2.0 * n;
	int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			U += a[i] < b[j] ? 1 : a[i] == b[j] ? 0.5 : 0;
	/* tie correction: sum over groups of equal values of t^3 - t */
	for (i = 0; i < 2 * n; i++) {
		double x = i < n ? a[i] : b[i - n], t = 0;
		int first = 1;

		for (j = 0; j < 2 * n; j++) {
			double y = j < n ? a[j] : b[j - n];

			if (y == x) {
				t++;
				if (j < i)
					first = 0;
			}
		}
		if (first)
			ties += t * t * t - t;
	}
	*u = U;
	*effect = U / ((double)n * n);
	mu = (double)n * n / 2;
	sigma = sqrt((double)n * n / 12 * ((N + 1) - ties / (N * (N - 1))));
	if (sigma <= 0)
		return 1;
	z = (fabs(U - mu) - 0.5) / sigma;
	return z < 0 ? 1 : erfc(z / sqrt(2));
}
