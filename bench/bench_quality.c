/*
 * bench_quality.c - optimiser quality: DEHB vs baselines at equal budget
 *
 * Runs the in-process engine (dehb.h) on the problems of common/benchfn.h
 * with DEHB, random search, Hyperband and DE, sequentially (ask, evaluate,
 * tell), until the cumulative fidelity spent reaches BUDGET maximum-
 * fidelity equivalents (sum of job.fidelity / max_fidelity).  The run's
 * regret at a point is the noise-free regret of the incumbent measured at
 * the maximum fidelity (DEHB_INC_MAX), or of the any-fidelity incumbent
 * while nothing has reached the maximum yet.
 *
 * Output (stdout): per problem, mean +- std of the final regret over the
 * seeds; then the mean rank of each optimiser over every (problem, seed)
 * (rank 1 = lowest final regret, ties averaged).  With --csv DIR it also
 * writes DIR/quality_final.csv and DIR/quality_traj.csv: mean and std of
 * the regret at NPOINTS budgets spaced logarithmically from 1 to BUDGET.
 *
 * Usage: bench_quality [--seeds N] [--budget B] [--csv DIR] PROBLEM...
 * Exit codes: 0 ok, 100 usage, 111 engine failure.
 */
#include "benchfn.h"
#include "dehb.h"
#include "err.h"
#include "rng.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QUAL_NOPT     4
#define QUAL_NPOINTS  40
#define QUAL_MAXSEEDS 1000
#define QUAL_MAXPROB  16

static const enum dehb_optimizer qual_opts[QUAL_NOPT] = {
	DEHB_OPT_DEHB, DEHB_OPT_RANDOM, DEHB_OPT_HYPERBAND, DEHB_OPT_DE};

struct qual_run {
	double traj[QUAL_NPOINTS]; /* regret at each checkpoint */
	double final;		   /* regret when the budget is spent */
};

static double qual_point(double budget, int i)
{
	return exp(log(budget) * (double)i / (QUAL_NPOINTS - 1));
}

static double qual_regret(struct dehb *d, const struct benchfn *f, double *v)
{
	struct dehb_incumbent inc;

	if (dehb_incumbent(d, DEHB_INC_MAX, &inc, v) != DEHBQ_OK &&
	    dehb_incumbent(d, DEHB_INC_ANY, &inc, v) != DEHBQ_OK)
		return NAN;
	return benchfn_regret(f, v);
}

static int qual_run(const struct benchfn *f, enum dehb_optimizer o,
		    uint64_t seed, double budget, struct qual_run *out)
{
	struct dehb_params p;
	struct dehb_job job;
	struct dehb *d = NULL;
	struct rng r;
	char err[DEHBQ_ERRLEN];
	double *v = NULL, spent = 0, loss;
	int rc, pt = 0;

	dehb_params_init(&p);
	p.optimizer = o;
	p.dim = f->dim;
	p.min_fidelity = f->min_budget;
	p.max_fidelity = f->max_budget;
	p.eta = 3;
	p.seed = seed;
	rc = dehb_new(&p, &d, err);
	if (rc != DEHBQ_OK) {
		fprintf(stderr, "bench_quality: fatal: %s\n", err);
		return rc;
	}
	rc = DEHBQ_ENOMEM;
	v = malloc(sizeof(*v) * (size_t)f->dim);
	if (!v)
		goto fail;
	rng_seed(&r, seed * 7919 + 13);
	while (pt < QUAL_NPOINTS) {
		rc = dehb_ask(d, &job, v);
		if (rc != DEHBQ_OK) {
			fprintf(stderr, "bench_quality: fatal: ask: %s\n",
				dehbq_strerror(rc));
			goto fail;
		}
		loss = benchfn_loss(f, v, job.fidelity, &r);
		rc = dehb_tell(d, job.id, DEHB_OK, loss, job.fidelity);
		if (rc != DEHBQ_OK)
			goto fail;
		spent += job.fidelity / f->max_budget;
		while (pt < QUAL_NPOINTS &&
		       spent >= qual_point(budget, pt) - 1e-9)
			out->traj[pt++] = qual_regret(d, f, v);
	}
	out->final = out->traj[QUAL_NPOINTS - 1];
	rc = DEHBQ_OK;
fail:
	free(v);
	dehb_free(d);
	return rc;
}

static void qual_stats(const double *x, int n, double *mean, double *sd)
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

static int qual_long(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return errno || end == s || *end;
}

int main(int argc, char **argv)
{
	static struct qual_run runs[QUAL_MAXPROB][QUAL_NOPT][QUAL_MAXSEEDS];
	static double ranks[QUAL_NOPT], col[QUAL_MAXSEEDS];
	const char *csvdir = NULL, *probs[QUAL_MAXPROB];
	struct benchfn fns[QUAL_MAXPROB];
	char err[DEHBQ_ERRLEN], path[4096];
	long seeds = 50, budget = 200;
	int np = 0, ai, p, o, s, i, nrank = 0;
	FILE *ff = NULL, *ft = NULL;

	for (ai = 1; ai < argc; ai++) {
		if (!strcmp(argv[ai], "--seeds") && ai + 1 < argc) {
			if (qual_long(argv[++ai], &seeds) || seeds < 1 ||
			    seeds > QUAL_MAXSEEDS)
				goto usage;
		} else if (!strcmp(argv[ai], "--budget") && ai + 1 < argc) {
			if (qual_long(argv[++ai], &budget) || budget < 2)
				goto usage;
		} else if (!strcmp(argv[ai], "--csv") && ai + 1 < argc) {
			csvdir = argv[++ai];
		} else if (np < QUAL_MAXPROB && argv[ai][0] != '-') {
			probs[np] = argv[ai];
			if (benchfn_init(&fns[np], probs[np], err) !=
			    DEHBQ_OK) {
				fprintf(stderr, "bench_quality: %s\n", err);
				return 100;
			}
			np++;
		} else {
			goto usage;
		}
	}
	if (np == 0)
		goto usage;
	if (csvdir) {
		snprintf(path, sizeof(path), "%s/quality_final.csv", csvdir);
		ff = fopen(path, "w");
		snprintf(path, sizeof(path), "%s/quality_traj.csv", csvdir);
		ft = fopen(path, "w");
		if (!ff || !ft) {
			fprintf(stderr,
				"bench_quality: fatal: unable to "
				"write '%s': %s\n",
				path, strerror(errno));
			return 111;
		}
		fputs("problem,optimizer,seeds,budget,mean_regret,std_regret\n",
		      ff);
		fputs("problem,optimizer,budget,mean_regret,std_regret\n", ft);
	}
	printf("%-14s %-10s %24s\n", "problem", "optimizer",
	       "final regret mean +- std");
	for (p = 0; p < np; p++) {
		for (o = 0; o < QUAL_NOPT; o++) {
			double m, sd;

			for (s = 0; s < seeds; s++)
				if (qual_run(&fns[p], qual_opts[o],
					     (uint64_t)s + 1, (double)budget,
					     &runs[p][o][s]) != DEHBQ_OK)
					return 111;
			for (s = 0; s < seeds; s++)
				col[s] = runs[p][o][s].final;
			qual_stats(col, (int)seeds, &m, &sd);
			printf("%-14s %-10s %12.4e +- %9.3e\n", probs[p],
			       dehb_optimizer_name(qual_opts[o]), m, sd);
			if (ff)
				fprintf(ff, "%s,%s,%ld,%ld,%.6e,%.6e\n",
					probs[p],
					dehb_optimizer_name(qual_opts[o]),
					seeds, budget, m, sd);
			for (i = 0; ft && i < QUAL_NPOINTS; i++) {
				for (s = 0; s < seeds; s++)
					col[s] = runs[p][o][s].traj[i];
				qual_stats(col, (int)seeds, &m, &sd);
				fprintf(ft, "%s,%s,%.6g,%.6e,%.6e\n", probs[p],
					dehb_optimizer_name(qual_opts[o]),
					qual_point((double)budget, i), m, sd);
			}
		}
		/* ranks per seed, ties averaged */
		for (s = 0; s < seeds; s++) {
			for (o = 0; o < QUAL_NOPT; o++) {
				double x = runs[p][o][s].final, r = 1;
				int k;

				for (k = 0; k < QUAL_NOPT; k++) {
					double y = runs[p][k][s].final;

					if (k == o)
						continue;
					if (y < x)
						r += 1;
					else if (y == x)
						r += 0.5;
				}
				ranks[o] += r;
			}
			nrank++;
		}
	}
	printf("\n%-10s %9s   (over %d problems x %ld seeds, budget %ld "
	       "max-fidelity evaluations)\n",
	       "optimizer", "mean rank", np, seeds, budget);
	for (o = 0; o < QUAL_NOPT; o++) {
		printf("%-10s %9.3f\n", dehb_optimizer_name(qual_opts[o]),
		       ranks[o] / nrank);
		if (ff)
			fprintf(ff, "ALL,%s,%ld,%ld,rank,%.4f\n",
				dehb_optimizer_name(qual_opts[o]), seeds,
				budget, ranks[o] / nrank);
	}
	if ((ff && fclose(ff) != 0) || (ft && fclose(ft) != 0)) {
		fputs("bench_quality: fatal: unable to write the CSV\n",
		      stderr);
		return 111;
	}
	return 0;
usage:
	fputs("usage: bench_quality [--seeds N] [--budget B] [--csv DIR] "
	      "PROBLEM...\n",
	      stderr);
	return 100;
}
