/*
 * bench_mo.c - multi-objective quality at equal total cost: hypervolume
 * error against cost, on multi-fidelity ZDT problems with a known front
 *
 * Problems (6 unit dimensions, fidelity 1..27, eta 3): zdt1 (a convex
 * front, f2 = 1 - sqrt(f1)) and zdt2 (a concave one, f2 = 1 - f1^2), with
 * g = 1 + 3 mean(x1..x5) (ZDT's 9 leaves nothing near the front at these
 * budgets).  Below the maximum fidelity b each objective
 * carries Gaussian noise of sd 0.2 ln(27 / b) / ln 27, which vanishes at 27.
 *
 * Methods, each through optim/ with two objectives: random search (at the
 * maximum fidelity), DEHB with linear, copula and random-weights
 * scalarisation and with Pareto selection, and BOHB and GCP (at the
 * maximum fidelity) with copula scalarisation.  J simulated workers as in
 * bench_quality (a job costs and lasts fidelity / 27); a run stops when
 * the told cost reaches B maximum-fidelity evaluations.  Its hypervolume
 * error at a cost is HV(true front) - HV(noise-free objectives of every
 * configuration evaluated at the maximum fidelity so far), with the
 * reference point (1.1, 4.1), beyond the worst f1 and the worst g.
 *
 * Output: per problem, the final hypervolume error and its mean over 20
 * log-spaced costs (mean +- std over the seeds), each method's mean rank,
 * and two-sided Mann-Whitney U tests: copula vs linear (the paper's
 * claim), and each method vs random search.  --csv DIR writes mo_final.csv
 * and mo_traj.csv.
 *
 * --linear-weights A,B weighs linear scalarisation's f1 and f2 (default
 * 1,1: the raw sum).
 *
 * Usage: bench_mo [--seeds N] [--budget B] [--jobs J] [--linear-weights A,B]
 *                 [--csv DIR] PROBLEM...
 * Exit codes: 0 ok, 100 usage, 111 optimiser failure.
 */
#include "benchstat.h"
#include "err.h"
#include "mobj.h"
#include "optim.h"
#include "pareto.h"
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MO_DIM	    6
#define MO_MAXF	    27.0
#define MO_NPOINTS  20
#define MO_MAXSEEDS 200
#define MO_MAXJOBS  64
#define MO_NMETH    7

static const struct {
	const char *label, *optimizer;
	int mode;
} meth[MO_NMETH] = {
	{"random", "random", MOBJ_COPULA},
	{"dehb-linear", "dehb", MOBJ_LINEAR},
	{"dehb-copula", "dehb", MOBJ_COPULA},
	{"dehb-random-weights", "dehb", MOBJ_RANDOM_WEIGHTS},
	{"dehb-pareto", "dehb", MOBJ_PARETO},
	{"bohb-copula", "bohb", MOBJ_COPULA},
	{"gcp-copula", "gcp", MOBJ_COPULA},
};

static const double ref[2] = {1.1, 4.1};
static double linw[2] = {1, 1}; /* --linear-weights */

/* Noise-free objectives of problem p (1: zdt1, 2: zdt2) at u. */
static void zdt(int p, const double *u, double *y)
{
	double g = 0, r;
	int i;

	for (i = 1; i < MO_DIM; i++)
		g += u[i];
	g = 1 + 3 * g / (MO_DIM - 1);
	r = u[0] / g;
	y[0] = u[0];
	y[1] = g * (p == 1 ? 1 - sqrt(r) : 1 - r * r);
}

/* HV of the true front, from a dense sample of it. */
static double true_hv(int p)
{
	enum { N = 20001 };
	static double y[2 * N];
	double u[MO_DIM] = {0}, hv;
	int i;

	for (i = 0; i < N; i++) {
		u[0] = (double)i / (N - 1);
		zdt(p, u, &y[2 * i]);
	}
	pareto_hypervolume(y, N, 2, ref, &hv);
	return hv;
}

struct job {
	uint64_t id;
	double fid, end, x[MO_DIM];
};

struct run {
	double traj[MO_NPOINTS], final, anytime;
};

static double point(double budget, int i)
{
	return budget * pow(10, -1.5 * (MO_NPOINTS - 1 - i) / (MO_NPOINTS - 1));
}

/* The hypervolume error of the max-fidelity points seen so far. */
static double hv_error(const double *top, size_t n, double hvstar)
{
	double hv = 0;

	if (n && pareto_hypervolume(top, n, 2, ref, &hv))
		return NAN;
	return hvstar - hv;
}

static int one_run(int p, int m, uint64_t seed, double budget, int jobs,
		   double hvstar, struct run *out)
{
	struct optim_setup u = {0};
	struct optim *o;
	struct job fl[MO_MAXJOBS];
	struct rng r;
	double now = 0, cost = 0, *top = NULL;
	size_t ntop = 0;
	char err[DEHBQ_ERRLEN];
	int nfl = 0, k = 0, rc, i;

	u.dim = MO_DIM;
	u.min_fidelity = 1;
	u.max_fidelity = MO_MAXF;
	u.eta = 3;
	u.seed = seed;
	u.nobj = 2;
	u.scalarise = meth[m].mode;
	if (meth[m].mode == MOBJ_LINEAR)
		u.obj_weights = linw;
	if ((rc = optim_open(meth[m].optimizer, &u, &o, err))) {
		fprintf(stderr, "bench_mo: %s\n", err);
		return rc;
	}
	rng_seed(&r, seed * 7919 + (uint64_t)p);
	if (!(top = malloc(2 * sizeof(double) * (size_t)(budget + jobs + 2))))
		return DEHBQ_ENOMEM;
	while (cost < budget) {
		struct optim_job j;
		double y[2], sd;
		int best = 0;

		while (nfl < jobs && !(rc = optim_ask(o, &j, fl[nfl].x))) {
			fl[nfl].id = j.id;
			fl[nfl].fid = j.fidelity;
			fl[nfl].end = now + j.fidelity / MO_MAXF;
			nfl++;
		}
		if (rc && rc != DEHBQ_EAGAIN && rc != DEHBQ_EDONE)
			break;
		if (!nfl)
			break;
		for (i = 1; i < nfl; i++)
			if (fl[i].end < fl[best].end ||
			    (fl[i].end == fl[best].end &&
			     fl[i].id < fl[best].id))
				best = i;
		now = fl[best].end;
		zdt(p, fl[best].x, y);
		sd = 0.2 * log(MO_MAXF / fl[best].fid) / log(MO_MAXF);
		if (fl[best].fid == MO_MAXF) {
			memcpy(&top[2 * ntop++], y, sizeof(y));
		} else {
			y[0] += sd * rng_normal(&r);
			y[1] += sd * rng_normal(&r);
		}
		if ((rc = optim_tell_obj(o, fl[best].id, OPTIM_OK, y,
					 fl[best].fid / MO_MAXF)))
			break;
		cost += fl[best].fid / MO_MAXF;
		fl[best] = fl[--nfl];
		while (k < MO_NPOINTS && point(budget, k) <= cost)
			out->traj[k++] = hv_error(top, ntop, hvstar);
		rc = 0;
	}
	while (k < MO_NPOINTS)
		out->traj[k++] = hv_error(top, ntop, hvstar);
	out->final = out->traj[MO_NPOINTS - 1];
	out->anytime = 0;
	for (i = 0; i < MO_NPOINTS; i++)
		out->anytime += out->traj[i] / MO_NPOINTS;
	free(top);
	optim_free(o);
	return rc;
}

static void compare(const char *prob, const char *what, int a, int b,
		    struct run (*rs)[MO_MAXSEEDS], int n, int anytime)
{
	double xa[MO_MAXSEEDS], xb[MO_MAXSEEDS], u, eff, p;
	int s;

	for (s = 0; s < n; s++) {
		xa[s] = anytime ? rs[a][s].anytime : rs[a][s].final;
		xb[s] = anytime ? rs[b][s].anytime : rs[b][s].final;
	}
	p = benchstat_mann_whitney(xa, xb, n, &u, &eff);
	printf("  %-6s %-8s %-20s vs %-12s U=%6.1f P(lower)=%.2f p=%.2g: "
	       "%s\n",
	       prob, what, meth[a].label, meth[b].label, u, eff, p,
	       p >= 0.05   ? "NO DIFFERENCE"
	       : eff > 0.5 ? "BETTER"
			   : "WORSE");
}

static int run_problem(const char *name, int p, int seeds, double budget,
		       int jobs, FILE *fin, FILE *ftr)
{
	static struct run rs[MO_NMETH][MO_MAXSEEDS];
	double hvstar = true_hv(p), rank[MO_NMETH] = {0};
	int m, s, i, rc;

	for (m = 0; m < MO_NMETH; m++)
		for (s = 0; s < seeds; s++)
			if ((rc = one_run(p, m, (uint64_t)s + 1, budget, jobs,
					  hvstar, &rs[m][s])))
				return rc;
	for (s = 0; s < seeds; s++) /* ranks by anytime error, ties shared */
		for (m = 0; m < MO_NMETH; m++)
			for (i = 0; i < MO_NMETH; i++)
				rank[m] +=
					(rs[i][s].anytime < rs[m][s].anytime)
						? 1.0 / seeds
					: (i != m &&
					   rs[i][s].anytime == rs[m][s].anytime)
						? 0.5 / seeds
						: 0;
	printf("%s (true hypervolume %.4f, budget %g evaluations at "
	       "fidelity 27, %d job%s, %d seeds)\n",
	       name, hvstar, budget, jobs, jobs == 1 ? "" : "s", seeds);
	printf("  %-20s %-20s %-20s %s\n", "method", "final HV error",
	       "anytime HV error", "mean rank");
	for (m = 0; m < MO_NMETH; m++) {
		double xf[MO_MAXSEEDS], xa[MO_MAXSEEDS], mf, sf, ma, sa;

		for (s = 0; s < seeds; s++) {
			xf[s] = rs[m][s].final;
			xa[s] = rs[m][s].anytime;
			for (i = 0; ftr && i < MO_NPOINTS; i++)
				fprintf(ftr, "%s,%s,%d,%.6g,%.6g\n", name,
					meth[m].label, s + 1, point(budget, i),
					rs[m][s].traj[i]);
		}
		benchstat_mean_sd(xf, seeds, &mf, &sf);
		benchstat_mean_sd(xa, seeds, &ma, &sa);
		printf("  %-20s %.4f +- %.4f      %.4f +- %.4f      %.2f\n",
		       meth[m].label, mf, sf, ma, sa, rank[m] + 1);
		if (fin)
			fprintf(fin, "%s,%s,%d,%.6g,%.6g,%.6g,%.6g,%.3f\n",
				name, meth[m].label, seeds, mf, sf, ma, sa,
				rank[m] + 1);
	}
	compare(name, "final", 2, 1, rs, seeds, 0);
	compare(name, "anytime", 2, 1, rs, seeds, 1);
	for (m = 1; m < MO_NMETH; m++)
		compare(name, "final", m, 0, rs, seeds, 0);
	compare(name, "final", 4, 2, rs, seeds, 0);
	compare(name, "final", 3, 2, rs, seeds, 0);
	compare(name, "final", 5, 2, rs, seeds, 0); /* bohb vs dehb, copula */
	compare(name, "final", 6, 2, rs, seeds, 0); /* gcp vs dehb, copula */
	return DEHBQ_OK;
}

int main(int argc, char **argv)
{
	long seeds = 25, jobs = 1;
	double budget = 100;
	const char *dir = NULL;
	FILE *fin = NULL, *ftr = NULL;
	int i, rc = 0;

	for (i = 1; i < argc && argv[i][0] == '-'; i += 2) {
		char *end;

		if (i + 1 >= argc)
			goto usage;
		if (!strcmp(argv[i], "--seeds"))
			seeds = strtol(argv[i + 1], &end, 10);
		else if (!strcmp(argv[i], "--jobs"))
			jobs = strtol(argv[i + 1], &end, 10);
		else if (!strcmp(argv[i], "--budget"))
			budget = strtod(argv[i + 1], &end);
		else if (!strcmp(argv[i], "--linear-weights") &&
			 sscanf(argv[i + 1], "%lf,%lf", &linw[0], &linw[1]) ==
				 2 &&
			 linw[0] > 0 && linw[1] > 0)
			end = argv[i + 1] + strlen(argv[i + 1]);
		else if (!strcmp(argv[i], "--csv"))
			dir = argv[i + 1],
			end = argv[i + 1] + strlen(argv[i + 1]);
		else
			goto usage;
		if (*end || seeds < 2 || seeds > MO_MAXSEEDS || jobs < 1 ||
		    jobs > MO_MAXJOBS || !(budget >= 1 && budget <= 1e5))
			goto usage;
	}
	if (i >= argc)
		goto usage;
	if (dir) {
		char p[4096];

		snprintf(p, sizeof(p), "%s/mo_final.csv", dir);
		fin = fopen(p, "w");
		snprintf(p, sizeof(p), "%s/mo_traj.csv", dir);
		ftr = fopen(p, "w");
		if (!fin || !ftr) {
			fprintf(stderr, "bench_mo: cannot write in %s\n", dir);
			return 111;
		}
		fputs("problem,method,seeds,final_mean,final_sd,anytime_mean,"
		      "anytime_sd,mean_rank\n",
		      fin);
		fputs("problem,method,seed,cost,hv_error\n", ftr);
	}
	for (; i < argc && !rc; i++) {
		int p = !strcmp(argv[i], "zdt1")   ? 1
			: !strcmp(argv[i], "zdt2") ? 2
						   : 0;

		if (!p)
			goto usage;
		rc = run_problem(argv[i], p, (int)seeds, budget, (int)jobs, fin,
				 ftr);
	}
	if (fin)
		fclose(fin);
	if (ftr)
		fclose(ftr);
	return rc ? 111 : 0;
usage:
	fprintf(stderr, "usage: bench_mo [--seeds N] [--budget B] [--jobs J] "
			"[--linear-weights A,B] [--csv DIR] zdt1|zdt2...\n");
	return 100;
}
