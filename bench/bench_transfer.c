/*
 * bench_transfer.c - transfer learning, leave one task out, on the shipped
 * tabular benchmark (bench/data/gbtab.csv.gz, bench/data/make_gbtab.py)
 *
 * The table holds M related tasks (gradient boosting on M datasets), each
 * with the same 500 configurations (5 hyperparameters, a unit-cube vector
 * u each) evaluated at 3, 9, 27 and 81 boosting rounds.  For each task j,
 * each method tunes j for B iterations (B evaluations at 81 rounds; a
 * multi-fidelity method spends the same cost, a job at b rounds costing
 * b / 81) and may use the other M - 1 tasks' results at 81 rounds as
 * history.  A proposal is looked up at the nearest design point (squared
 * Euclidean distance in the unit cube; ties to the lower index).
 *
 * Methods (optim/ in process, one job in flight): RS (random), GP (gp),
 * GCP (gcp without earlier tasks), CTS and GCP+prior (cts and gcp, with
 * the other tasks as transfer data), DEHB (dehb, fidelities 3..81, eta 3),
 * DEHB+prior (dehb with the other tasks), ASHA (random search scheduled by
 * ASHA) and ASHA+GCP (gcp with multi_fidelity "asha" and the other tasks).
 * For each prior method, the cost at which it reaches its prior-free
 * version's final ADTM (the target: at most half of it).
 *
 * Figures (TRANSFER_SPEC.md, "How to evaluate"): DTM_j(t) = (best_j(t) -
 * min_j) / (max_j - min_j), min and max over task j's 500 losses at 81
 * rounds, best_j(t) the best loss at 81 rounds after cost t; ADTM(t), its
 * mean over tasks (and seeds); the improvement over RS, per task the mean
 * over t of (DTM_RS(t) - DTM(t)) / DTM_RS(t) (t where DTM_RS > 0), then
 * averaged over tasks; the mean rank of the methods by DTM per task and t;
 * and the prior's RMSE on each task (fitted on the others; psi over all of
 * its 500 results), also on a task whose losses were shuffled.
 *
 * --prior-steps S: the prior MLP's steps per stage (1000, as
 * TRANSFER_SPEC; make bench-quick uses fewer).
 *
 * Usage: bench_transfer [--seeds N] [--iters B] [--prior-steps S]
 *                       [--only METHOD,...] [--csv DIR] DATA.csv
 * (--only: those methods, and rs, which every comparison needs)
 * Exit codes: 0 ok, 100 usage or bad data, 111 optimiser failure.
 */
#include "benchopt.h"
#include "benchstat.h"

#include <cjson/cJSON.h>

#include "err.h"
#include "optim.h"
#include "prior.h"
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TB_DIM	   5
#define TB_NCFG	   500
#define TB_MAXT	   16
#define TB_NFID	   4
#define TB_MAXIT   200
#define TB_NMETH   9
#define TB_MAXSEED 100

static const double fids[TB_NFID] = {3, 9, 27, 81};
static const char *const meth[TB_NMETH] = {
	"rs",	"gp",	      "gcp",  "cts",	 "gcp+prior",
	"dehb", "dehb+prior", "asha", "asha+gcp"};
static const char *const optname[TB_NMETH] = {
	"random", "gp", "gcp", "cts", "gcp", "dehb", "dehb", "asha", "gcp"};
static const int uses_prior[TB_NMETH] = {0, 0, 0, 1, 1, 0, 1, 0, 1};
/* settings, "%d" the prior's steps */
static const char *const setfmt[TB_NMETH] = {
	NULL,
	NULL,
	"{\"prior_steps\":%d}",
	"{\"prior_steps\":%d}",
	"{\"prior_steps\":%d}",
	NULL,
	"{\"prior_steps\":%d}",
	NULL,
	"{\"prior_steps\":%d,\"multi_fidelity\":\"asha\"}"};
/* a prior method's prior-free version, -1 for none */
static const int base_of[TB_NMETH] = {-1, -1, -1, 0, 2, -1, 5, -1, 7};

struct task {
	char name[64];
	double u[TB_NCFG][TB_DIM];
	double loss[TB_NCFG][TB_NFID];
	double lo, hi; /* min and max loss at 81 */
	int n;
};

static struct task tasks[TB_MAXT];
static int ntask;
static int prior_steps = 1000; /* --prior-steps */
static cJSON *mset[TB_NMETH];  /* each method's settings, or NULL */
static int use[TB_NMETH];      /* --only; rs always */

static int load(const char *path)
{
	char line[2048], name[64];
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f)) { /* header */
		fclose(f);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		double u[TB_DIM], l[TB_NFID], skip;
		struct task *t;
		int cfg, k;

		if (sscanf(line,
			   "%63[^,],%d,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,"
			   "%lf,%lf,%lf,%lf,%lf",
			   name, &cfg, &skip, &skip, &skip, &skip, &skip, &u[0],
			   &u[1], &u[2], &u[3], &u[4], &l[0], &l[1], &l[2],
			   &l[3]) != 16 ||
		    cfg < 0 || cfg >= TB_NCFG)
			continue;
		for (k = 0; k < ntask && strcmp(tasks[k].name, name); k++)
			;
		if (k == ntask) {
			if (ntask == TB_MAXT)
				continue;
			snprintf(tasks[ntask++].name, 64, "%s", name);
		}
		t = &tasks[k];
		memcpy(t->u[cfg], u, sizeof(u));
		memcpy(t->loss[cfg], l, sizeof(l));
		t->n = cfg + 1 > t->n ? cfg + 1 : t->n;
	}
	fclose(f);
	for (int k = 0; k < ntask; k++) {
		struct task *t = &tasks[k];

		t->lo = INFINITY;
		t->hi = -INFINITY;
		for (int c = 0; c < t->n; c++) {
			t->lo = fmin(t->lo, t->loss[c][TB_NFID - 1]);
			t->hi = fmax(t->hi, t->loss[c][TB_NFID - 1]);
		}
	}
	return ntask >= 2 ? 0 : -1;
}

/* The other tasks' results at 81 rounds, as transfer data. */
struct tdata {
	size_t n[TB_MAXT];
	double x[TB_MAXT * TB_NCFG * TB_DIM], y[TB_MAXT * TB_NCFG];
	struct prior_tasks v;
};

static void others(int j, struct tdata *d)
{
	size_t at = 0;
	int k, c;

	d->v.ntasks = 0;
	for (k = 0; k < ntask; k++) {
		if (k == j)
			continue;
		for (c = 0; c < tasks[k].n; c++) {
			memcpy(&d->x[at * TB_DIM], tasks[k].u[c],
			       sizeof(tasks[k].u[c]));
			d->y[at++] = tasks[k].loss[c][TB_NFID - 1];
		}
		d->n[d->v.ntasks++] = (size_t)tasks[k].n;
	}
	d->v.n = d->n;
	d->v.x = d->x;
	d->v.y = d->y;
}

/* One run: dtm[t] after cost t + 1, t < iters. */
static int run(int m, int j, uint64_t seed, int iters, const struct tdata *d,
	       double *dtm)
{
	const struct task *t = &tasks[j];
	struct optim_setup u = {0};
	struct optim_job job;
	struct optim *o;
	char err[DEHBQ_ERRLEN];
	double x[TB_DIM], cost = 0, best = INFINITY;
	int rc, k = 0, f;

	u.dim = TB_DIM;
	u.min_fidelity = fids[0];
	u.max_fidelity = fids[TB_NFID - 1];
	u.eta = 3;
	u.seed = seed;
	u.transfer = uses_prior[m] ? &d->v : NULL;
	u.settings = mset[m];
	if ((rc = optim_open(optname[m], &u, &o, err))) {
		fprintf(stderr, "bench_transfer: %s: %s\n", meth[m], err);
		return rc;
	}
	while (k < iters) {
		int c;

		if ((rc = optim_ask(o, &job, x)))
			break;
		c = bench_nearest(&t->u[0][0], t->n, TB_DIM, x);
		for (f = 0; f < TB_NFID && fids[f] != job.fidelity; f++)
			;
		if (f == TB_NFID) {
			rc = DEHBQ_ESTATE;
			break;
		}
		if ((rc = optim_tell(o, job.id, OPTIM_OK, t->loss[c][f],
				     job.fidelity / fids[TB_NFID - 1])))
			break;
		if (f == TB_NFID - 1)
			best = fmin(best, t->loss[c][f]);
		cost += job.fidelity / fids[TB_NFID - 1];
		while (k < iters && cost >= k + 1 - 1e-9)
			dtm[k++] = isfinite(best)
					   ? (best - t->lo) / (t->hi - t->lo)
					   : 1;
	}
	optim_free(o);
	return rc == DEHBQ_EDONE ? 0 : rc;
}

static double dtm_all[TB_NMETH][TB_MAXT][TB_MAXIT]; /* mean over seeds */
/* per task and seed, DTM at the end and at half the cost */
static double dtm_end[TB_NMETH][TB_MAXT * TB_MAXSEED];
static double dtm_half[TB_NMETH][TB_MAXT * TB_MAXSEED];

/* A prior method against its prior-free version over every task and
 * seed: final DTM mean +- sd each, and Mann-Whitney p of the prior
 * method's final DTM against the other's, and of its DTM at half the cost
 * against the other's final. */
static void versus(int m, int b, int n)
{
	double ma, sa, mb, sb, mh, sh, u, eff;
	double pf = benchstat_mann_whitney(dtm_end[m], dtm_end[b], n, &u, &eff);
	double ph =
		benchstat_mann_whitney(dtm_half[m], dtm_end[b], n, &u, &eff);

	benchstat_mean_sd(dtm_end[m], n, &ma, &sa);
	benchstat_mean_sd(dtm_end[b], n, &mb, &sb);
	benchstat_mean_sd(dtm_half[m], n, &mh, &sh);
	printf("    final DTM %.4f +- %.4f against %s's %.4f +- %.4f "
	       "(Mann-Whitney p %.3g); at half the cost %.4f +- %.4f "
	       "(p %.3g against %s's final; %d runs each)\n",
	       ma, sa, meth[b], mb, sb, pf, mh, sh, ph, meth[b], n);
}

static void report(int seeds, int iters)
{
	double rank[TB_NMETH] = {0}, adtm[TB_NMETH][TB_MAXIT] = {{0}};
	int m, j, t, i;

	printf("transfer, leave one task out: %d tasks, %d seeds each, %d "
	       "iterations (cost in evaluations at 81 rounds)\n",
	       ntask, seeds, iters);
	for (m = 0; m < TB_NMETH; m++)
		for (j = 0; j < ntask; j++)
			for (t = 0; t < iters; t++)
				adtm[m][t] += dtm_all[m][j][t] / ntask;
	for (j = 0; j < ntask; j++)
		for (t = 0; t < iters; t++)
			for (m = 0; m < TB_NMETH; m++)
				for (i = 0; i < TB_NMETH; i++)
					rank[m] +=
						!use[m] || !use[i]
							? 0
							: (dtm_all[i][j]
								  [t] < dtm_all[m]
									       [j]
									       [t]
								   ? 1.0
							   : i != m && dtm_all[i]
									      [j]
									      [t] ==
										   dtm_all[m]
											  [j]
											  [t]
								   ? 0.5
								   : 0) /
								  (ntask *
								   iters);
	printf("  %-10s %-10s %-10s %-10s %-14s %s\n", "method", "ADTM@10",
	       "ADTM@25", "ADTM@end", "vs RS", "mean rank");
	for (m = 0; m < TB_NMETH; m++) {
		double imp = 0;

		if (!use[m])
			continue;
		for (j = 0; j < ntask; j++) {
			double s = 0;
			int nt = 0;

			for (t = 0; t < iters; t++)
				if (dtm_all[0][j][t] > 0) {
					s += (dtm_all[0][j][t] -
					      dtm_all[m][j][t]) /
					     dtm_all[0][j][t];
					nt++;
				}
			imp += nt ? s / nt / ntask : 0;
		}
		printf("  %-10s %-10.4f %-10.4f %-10.4f %-14.3f %.2f\n",
		       meth[m], adtm[m][iters > 10 ? 9 : iters - 1],
		       adtm[m][iters > 25 ? 24 : iters - 1], adtm[m][iters - 1],
		       imp, rank[m] + 1);
	}
	printf("cost to reach the prior-free version's final ADTM "
	       "(target: at most half of its cost):\n");
	for (m = 0; m < TB_NMETH; m++) {
		int b = base_of[m];

		if (b < 0 || !use[m] || !use[b])
			continue;
		for (t = 0; t < iters && adtm[m][t] > adtm[b][iters - 1]; t++)
			;
		if (t == iters)
			printf("  %-10s never within %d (%s's final %.4f; "
			       "its own %.4f): MISSED\n",
			       meth[m], iters, meth[b], adtm[b][iters - 1],
			       adtm[m][iters - 1]);
		else
			printf("  %-10s %d of %s's %d (%.2f; %s's final "
			       "%.4f): %s\n",
			       meth[m], t + 1, meth[b], iters,
			       (t + 1.0) / iters, meth[b], adtm[b][iters - 1],
			       t + 1 <= iters / 2 ? "MET" : "MISSED");
		versus(m, b, ntask * seeds);
	}
}

int main(int argc, char **argv)
{
	static struct tdata d;
	static double runs[TB_MAXSEED][TB_MAXIT];
	long seeds = 30, iters = 50;
	const char *only = NULL;
	const char *dir = NULL;
	FILE *ftr = NULL;
	int i, j, m, s, t;

	for (i = 1; i + 1 < argc && argv[i][0] == '-'; i += 2) {
		if (!strcmp(argv[i], "--seeds"))
			seeds = strtol(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--iters"))
			iters = strtol(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--csv"))
			dir = argv[i + 1];
		else if (!strcmp(argv[i], "--prior-steps"))
			prior_steps = (int)strtol(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--only"))
			only = argv[i + 1];
		else
			break;
	}
	if (i != argc - 1 || seeds < 2 || seeds > TB_MAXSEED || iters < 1 ||
	    iters > TB_MAXIT || prior_steps < 1 || prior_steps > 100000) {
		fprintf(stderr, "usage: bench_transfer [--seeds N] [--iters B] "
				"[--prior-steps S] [--only METHOD,...] "
				"[--csv DIR] DATA.csv\n");
		return 100;
	}
	for (m = 0; m < TB_NMETH; m++) {
		char set[128];
		size_t l = strlen(meth[m]);
		const char *q = only;

		while (q && (strncmp(q, meth[m], l) || (q[l] && q[l] != ',')) &&
		       (q = strchr(q, ',')))
			q++;
		use[m] = !m || !only || q;
		if (!setfmt[m])
			continue;
		snprintf(set, sizeof(set), setfmt[m], prior_steps);
		if (!(mset[m] = cJSON_Parse(set)))
			return 111;
	}
	if (load(argv[i])) {
		fprintf(stderr, "bench_transfer: %s: not the gbtab table\n",
			argv[i]);
		return 100;
	}
	if (dir) {
		char p[4096];

		snprintf(p, sizeof(p), "%s/transfer_traj.csv", dir);
		if (!(ftr = fopen(p, "w")))
			return 111;
		fprintf(ftr, "task,method,iteration,dtm_mean,dtm_sd\n");
	}
	printf("prior RMSE per task (fitted on the others, psi over all of "
	       "its results):\n");
	for (j = 0; j < ntask; j++) {
		struct prior *p;
		char err[DEHBQ_ERRLEN];
		double x[TB_NCFG * TB_DIM], y[TB_NCFG], ys[TB_NCFG], r1 = NAN,
								     r2 = NAN;
		int c;

		others(j, &d);
		for (c = 0; c < tasks[j].n; c++) {
			memcpy(&x[c * TB_DIM], tasks[j].u[c],
			       sizeof(tasks[j].u[c]));
			y[c] = tasks[j].loss[c][TB_NFID - 1];
		}
		for (c = 0; c < tasks[j].n; c++) /* a task unlike the others */
			ys[c] = y[(c * 211 + 17) % tasks[j].n];
		if (!prior_fit(&d.v, TB_DIM, 1, prior_steps, &p, err)) {
			prior_rmse(p, x, y, (size_t)tasks[j].n, 0, &r1);
			prior_rmse(p, x, ys, (size_t)tasks[j].n, 0, &r2);
			prior_free(p);
		}
		printf("  %-14s %.3f   (its losses shuffled: %.3f)\n",
		       tasks[j].name, r1, r2);
	}
	for (m = 0; m < TB_NMETH; m++)
		for (j = 0; use[m] && j < ntask; j++) {
			others(j, &d);
			for (s = 0; s < seeds; s++)
				if (run(m, j, (uint64_t)s + 1, (int)iters, &d,
					runs[s]))
					return 111;
			for (s = 0; s < seeds; s++) {
				dtm_end[m][j * seeds + s] = runs[s][iters - 1];
				dtm_half[m][j * seeds + s] =
					runs[s][iters / 2 - (iters > 1)];
			}
			for (t = 0; t < iters; t++) {
				double col[TB_MAXSEED], mean, sd;

				for (s = 0; s < seeds; s++)
					col[s] = runs[s][t];
				benchstat_mean_sd(col, (int)seeds, &mean, &sd);
				dtm_all[m][j][t] = mean;
				if (ftr)
					fprintf(ftr, "%s,%s,%d,%.6g,%.6g\n",
						tasks[j].name, meth[m], t + 1,
						mean, sd);
			}
		}
	report((int)seeds, (int)iters);
	if (ftr)
		fclose(ftr);
	return 0;
}
