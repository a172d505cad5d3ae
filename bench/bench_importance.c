/*
 * bench_importance.c - what `dehbq importance` costs: the fANOVA forest
 * (optim/models/forest.h, 64 trees of depth 64, as the command fits it)
 * on n results of a 6-parameter function where two parameters matter
 *
 * Output: one row per n: the seconds one forest takes (median of 3), and
 * the two importances found for the parameters that matter (a sanity
 * check, not a quality measure).
 *
 * Usage: bench_importance [--sizes N,N,...]
 * Exit codes: 0 ok, 100 usage, 111 failure.
 */
#include "err.h"
#include "forest.h"
#include "rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BI_DIM 6

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
	double u = *(const double *)a, v = *(const double *)b;

	return u < v ? -1 : u > v;
}

static int one(int n)
{
	struct forest_opts o = {64, 64, 1};
	double *x = malloc((size_t)n * BI_DIM * sizeof(double));
	double *y = malloc((size_t)n * sizeof(double));
	double mean[BI_DIM], sd[BI_DIM], t[3];
	struct rng r;
	int i, k, used, rc = DEHBQ_ENOMEM;

	if (!x || !y)
		goto out;
	rng_seed(&r, 42);
	for (i = 0; i < n; i++) {
		double *p = x + (size_t)i * BI_DIM;

		for (k = 0; k < BI_DIM; k++)
			p[k] = rng_uniform(&r);
		y[i] = 4 * (p[0] - 0.3) * (p[0] - 0.3) +
		       2 * (p[1] - 0.7) * (p[1] - 0.7) + 0.1 * rng_normal(&r);
	}
	for (k = 0; k < 3; k++) {
		double t0 = now();

		if ((rc = forest_importance(x, y, n, BI_DIM, &o, mean, sd,
					    &used)))
			goto out;
		t[k] = now() - t0;
	}
	qsort(t, 3, sizeof(double), cmp);
	printf("%8d %6d %10.3f %8.3f %8.3f\n", n, BI_DIM, t[1], mean[0],
	       mean[1]);
out:
	free(x);
	free(y);
	return rc;
}

int main(int argc, char **argv)
{
	const char *sizes = "1000,10000";
	char *end;

	if (argc == 3 && !strcmp(argv[1], "--sizes"))
		sizes = argv[2];
	else if (argc != 1) {
		fputs("usage: bench_importance [--sizes N,N,...]\n", stderr);
		return 100;
	}
	puts("# results params seconds imp_a imp_b");
	while (*sizes) {
		long n = strtol(sizes, &end, 10);

		if (end == sizes || n < 2 || n > 10000000 ||
		    (*end && *end != ',')) {
			fputs("bench_importance: bad --sizes\n", stderr);
			return 100;
		}
		if (one((int)n)) {
			fputs("bench_importance: out of memory\n", stderr);
			return 111;
		}
		fflush(stdout);
		sizes = *end ? end + 1 : end;
	}
	return 0;
}
