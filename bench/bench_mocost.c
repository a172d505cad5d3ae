/*
 * bench_mocost.c - what a multi-objective tell costs the orchestrator:
 * every result's score is recomputed when one arrives (docs/algorithm.md,
 * "Scores move"), so the cost grows with the history
 *
 * For each scalarisation (copula, linear, random-weights, pareto,
 * hypervolume) and each
 * history size n: n results of a ZDT1-like problem (f1 uniform, f2 on and
 * behind a convex front) spread over the fidelities 1, 3, 9 and 27 as
 * DEHB's brackets spread them, then T more tells, each one mobj_put and
 * one mobj_score_all (what optim.c does per tell).  Pareto selection is
 * measured with 2 objectives (a sweep, O(n log n)) and 3 (NSGA-II's sort,
 * O(n^2) within a fidelity, so only up to 10,000 results); hypervolume
 * selection likewise, its greedy subset selection on top.
 *
 * Output: one row per (mode, m, n): the median and the worst ms per tell
 * and the tells per second that median sustains; 1,000 workers on
 * 30-second trials need 33.
 *
 * Usage: bench_mocost [--sizes N,N,...] [--tells T]
 * Exit codes: 0 ok, 100 usage, 111 failure.
 */
#include "benchstat.h"
#include "err.h"
#include "mobj.h"
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MC_MAXSIZES	8
#define MC_MAXTELLS	1000
#define MC_PARETO3_MAXN 10000 /* O(n^2): beyond this a row takes minutes */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One result: a fidelity as a bracket spreads them, and m objectives. */
static double draw(struct rng *g, int m, double *y)
{
	double u = rng_uniform(g), f1 = rng_uniform(g);
	double gz = 1 + 3 * rng_uniform(g) * rng_uniform(g);
	int k;

	y[0] = f1;
	y[1] = gz * (1 - sqrt(f1 / gz));
	for (k = 2; k < m; k++)
		y[k] = rng_uniform(g) * gz;
	return u < 0.6 ? 1 : u < 0.85 ? 3 : u < 0.95 ? 9 : 27;
}

/* Median and worst ms per tell after n results; 0 or an error code. */
static int measure(int mode, int m, long n, int tells, double *p50,
		   double *worst)
{
	static double ms[MC_MAXTELLS];
	struct mobj *mo = NULL;
	struct rng g;
	double y[3], fid, t0;
	int rc, changed, t;
	long i;

	rng_seed(&g, 1);
	if ((rc = mobj_new(m, NULL, mode, 1, &mo)))
		return rc;
	for (i = 0; i < n && !rc; i++) {
		fid = draw(&g, m, y);
		rc = mobj_put(mo, i, fid, y);
	}
	if (!rc)
		rc = mobj_score_all(mo, 0, &changed);
	for (t = 0; t < tells && !rc; t++) {
		fid = draw(&g, m, y);
		t0 = now();
		if (!(rc = mobj_put(mo, n + t, fid, y)))
			rc = mobj_score_all(mo, (uint64_t)t / 8, &changed);
		ms[t] = (now() - t0) * 1e3;
	}
	mobj_free(mo);
	if (rc)
		return rc;
	*p50 = benchstat_quantile(ms, tells, 0.5);
	*worst = ms[tells - 1]; /* sorted now */
	return DEHBQ_OK;
}

static int parse_sizes(const char *s, long *n, int *k)
{
	char *end;

	for (*k = 0; *k < MC_MAXSIZES; s = end + 1) {
		n[(*k)++] = strtol(s, &end, 10);
		if (n[*k - 1] < 1 || n[*k - 1] > 10000000 ||
		    (*end && *end != ','))
			return -1;
		if (!*end)
			return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	long sizes[MC_MAXSIZES] = {1000, 10000}, tells = 20;
	int nsizes = 2, mode, m, k, i, rc;
	double p50, worst;
	char *end;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--sizes")) {
			if (parse_sizes(argv[i + 1], sizes, &nsizes))
				goto usage;
		} else if (!strcmp(argv[i], "--tells")) {
			tells = strtol(argv[i + 1], &end, 10);
			if (*end || tells < 1 || tells > MC_MAXTELLS)
				goto usage;
		} else {
			goto usage;
		}
	}
	if (i != argc)
		goto usage;
	printf("# multi-objective cost per tell (put + rescore all), one "
	       "core\n");
	printf("%-15s %2s %8s %10s %10s %9s\n", "mode", "m", "results",
	       "p50_ms", "worst_ms", "tells/s");
	for (mode = MOBJ_COPULA; mode <= MOBJ_HYPERVOLUME; mode++)
		for (m = 2; m <= (mode >= MOBJ_PARETO ? 3 : 2); m++)
			for (k = 0; k < nsizes; k++) {
				if (m == 3 && sizes[k] > MC_PARETO3_MAXN)
					continue;
				rc = measure(mode, m, sizes[k], (int)tells,
					     &p50, &worst);
				if (rc) {
					fprintf(stderr,
						"bench_mocost: %s: %s\n",
						mobj_mode_name(mode),
						dehbq_strerror(rc));
					return 111;
				}
				printf("%-15s %2d %8ld %10.3f %10.3f %9.0f\n",
				       mobj_mode_name(mode), m, sizes[k], p50,
				       worst, 1e3 / p50);
			}
	return 0;
usage:
	fprintf(stderr, "usage: bench_mocost [--sizes N,N,...] [--tells T]\n");
	return 100;
}
