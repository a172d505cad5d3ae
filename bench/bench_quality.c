/*
 * bench_quality.c - optimiser quality at equal total cost, with 1 or J jobs
 * in flight
 *
 * Runs every optimiser of optim_table[] in process on the problems of
 * bench/lib/benchfn.h, each with the settings dehbq init gives a new
 * study (optim_settings fills in the defaults).  J simulated workers: each job
 * takes its fidelity as its cost and its time; the next tell is the job that
 * finishes first (ties: lowest id), so with J > 1 the optimiser asks while J -
 * 1 results are still out, as a multi-worker study does.  A run stops when the
 * told cost reaches the budget, in maximum-fidelity evaluations.  Its regret at
 * a point is the noise-free regret of the incumbent at the maximum
 * fidelity (OPTIM_BEST_MAX), or of the any-fidelity one while nothing has
 * reached the maximum.
 *
 * Budget: --budget B maximum-fidelity evaluations, or --brackets N: the
 * cost of the first N brackets of the Hyperband cycle (the DEHB paper's
 * budgets are in brackets: 100 for Branin and Hartmann-6, 200 for counting
 * ones), the same cost for every optimiser.
 *
 * Output (stdout): per problem, mean +- std of the final regret and of
 * the anytime regret (the mean of the log10 regret at NPOINTS costs spaced
 * logarithmically up to the budget) over the seeds; the mean rank of each
 * optimiser; and the comparisons the issues ask for, each with a two-sided
 * Mann-Whitney U test: ASHA vs Hyperband (anytime), RE vs random, TPE vs
 * random, BOHB vs Hyperband, GP vs random and TPE, and the compositions
 * with ASHA (tpe+asha, gp+asha) against their parts (final).  --only
 * picks optimisers and compositions by name.  --csv DIR writes
 * quality_final.csv and quality_traj.csv.
 *
 * Usage: bench_quality [--seeds N] [--budget B | --brackets N] [--jobs J]
 *                      [--only OPT,...] [--csv DIR] PROBLEM...
 * Exit codes: 0 ok, 100 usage, 111 optimiser failure.
 */
#include "benchfn.h"
#include "benchstat.h"
#include "err.h"
#include "gp.h"
#include "hb.h"
#include "optim.h"
#include "rng.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QUAL_MAXOPT   16
#define QUAL_NPOINTS  40
#define QUAL_MAXSEEDS 1000
#define QUAL_MAXPROB  16
#define QUAL_MAXJOBS  256

struct qual_run {
	double traj[QUAL_NPOINTS]; /* regret at each checkpoint */
	double final;		   /* regret when the budget is spent */
	double anytime;		   /* mean log10 regret over traj */
};

static const char *names[QUAL_MAXOPT]; /* the optimisers compared */
static int nopt;

/*
 * Compositions compared beside optim_table's entries: a label, the
 * optimiser it opens and the settings it opens it with.
 */
static const struct {
	const char *label, *base, *settings;
} composed[] = {
	{"tpe+asha", "tpe", "{\"multi_fidelity\":\"asha\"}"},
	{"gp+asha", "gp", "{\"multi_fidelity\":\"asha\"}"},
	{"fifo+halton", "fifo", "{\"searcher\":\"halton\"}"},
	{"asha+halton", "asha", "{\"searcher\":\"halton\"}"},
	{"gp-uniform", "gp", "{\"local_fraction\":0}"},
	{"bohb-mbw0.3", "bohb", "{\"min_bandwidth\":0.3}"},
	{"re-0.4", "re", "{\"population_size\":100,\"sample_size\":10}"},
};
#define QUAL_NCOMPOSED ((int)(sizeof(composed) / sizeof(composed[0])))

struct qual_job {
	uint64_t id;
	double fid, end;
	double *x;
};

static double qual_point(double budget, int i)
{
	return exp(log(budget) * (double)i / (QUAL_NPOINTS - 1));
}

static double qual_regret(struct optim *o, const struct benchfn *f, double *v)
{
	struct optim_best b;

	if (optim_best(o, OPTIM_BEST_MAX, &b, v) != DEHBQ_OK &&
	    optim_best(o, OPTIM_BEST_ANY, &b, v) != DEHBQ_OK)
		return NAN;
	return benchfn_regret(f, v);
}

/* Cost of the first n brackets of the Hyperband cycle, in max-fidelity
 * evaluations. */
static double bracket_budget(const struct benchfn *f, long n)
{
	double fid[HB_MAX_LEVELS], c = 0;
	int L, sz[HB_MAX_LEVELS], k, j;
	long b;

	if (hb_levels(f->min_budget, f->max_budget, 3, &L))
		return 0;
	hb_fidelities(f->max_budget, 3, L, fid);
	for (b = 0; b < n; b++) {
		int s = hb_bracket_s(L, b);

		if (hb_rung_sizes(L, 3, s, sz))
			return 0;
		for (j = 0; j <= s; j++) {
			k = L - 1 - s + j;
			c += sz[j] * fid[k] / f->max_budget;
		}
	}
	return c;
}

static int qual_open(const struct benchfn *f, const char *name, uint64_t seed,
		     struct optim **o)
{
	int ch[512], i, rc;
	struct optim_setup u;
	char err[DEHBQ_ERRLEN];
	cJSON *full = NULL;

	memset(&u, 0, sizeof(u));
	for (i = 0; i < QUAL_NCOMPOSED; i++)
		if (!strcmp(name, composed[i].label)) {
			name = composed[i].base;
			u.settings = cJSON_Parse(composed[i].settings);
			if (!u.settings)
				return DEHBQ_ENOMEM;
		}
	for (i = 0; i < f->dim && i < 512; i++)
		ch[i] = benchfn_choices(f, i);
	u.dim = f->dim;
	u.min_fidelity = f->min_budget;
	u.max_fidelity = f->max_budget;
	u.eta = 3;
	u.seed = seed;
	u.choices = ch;
	/* the settings a new study gets (dehbq init fills in the defaults) */
	rc = optim_settings(name, u.settings, &full, err);
	cJSON_Delete((cJSON *)u.settings);
	u.settings = full;
	if (!rc)
		rc = optim_open(name, &u, o, err);
	cJSON_Delete(full);
	if (rc) {
		fprintf(stderr, "bench_quality: fatal: %s\n", err);
		return DEHBQ_EINVAL;
	}
	return DEHBQ_OK;
}

/* Fill the free workers; 0, or an error. */
static int qual_fill(struct optim *o, struct qual_job *fl, int *n, int jobs,
		     double now)
{
	struct optim_job j;
	int rc;

	while (*n < jobs) {
		rc = optim_ask(o, &j, fl[*n].x);
		if (rc == DEHBQ_EAGAIN || rc == DEHBQ_EDONE)
			break;
		if (rc)
			return rc;
		fl[*n].id = j.id;
		fl[*n].fid = j.fidelity;
		fl[*n].end = now + j.fidelity;
		(*n)++;
	}
	return *n ? DEHBQ_OK : DEHBQ_ESTATE; /* nothing to wait for */
}

static int qual_run(const struct benchfn *f, const char *name, uint64_t seed,
		    double budget, int jobs, struct qual_run *out)
{
	struct qual_job fl[QUAL_MAXJOBS];
	struct optim *o = NULL;
	struct rng r;
	double *v = NULL, spent = 0, now = 0, s = 0;
	int rc, pt = 0, n = 0, i, k;

	memset(fl, 0, sizeof(fl));
	if ((rc = qual_open(f, name, seed, &o)))
		return rc;
	rc = DEHBQ_ENOMEM;
	if (!(v = malloc(sizeof(*v) * (size_t)f->dim)))
		goto fail;
	for (i = 0; i < jobs; i++)
		if (!(fl[i].x = malloc(sizeof(double) * (size_t)f->dim)))
			goto fail;
	rng_seed(&r, seed * 7919 + 13);
	while (pt < QUAL_NPOINTS) {
		struct qual_job t;

		if ((rc = qual_fill(o, fl, &n, jobs, now))) {
			fprintf(stderr, "bench_quality: fatal: %s: ask: %s\n",
				name, dehbq_strerror(rc));
			goto fail;
		}
		for (k = 0, i = 1; i < n; i++)
			if (fl[i].end < fl[k].end ||
			    (fl[i].end == fl[k].end && fl[i].id < fl[k].id))
				k = i;
		t = fl[k];
		fl[k] = fl[n - 1];
		fl[n - 1] = t;
		n--;
		now = t.end;
		rc = optim_tell(o, t.id, OPTIM_OK,
				benchfn_loss(f, t.x, t.fid, &r), t.fid);
		if (rc)
			goto fail;
		spent += t.fid / f->max_budget;
		while (pt < QUAL_NPOINTS &&
		       spent >= qual_point(budget, pt) - 1e-9)
			out->traj[pt++] = qual_regret(o, f, v);
	}
	out->final = out->traj[QUAL_NPOINTS - 1];
	for (i = 0; i < QUAL_NPOINTS; i++)
		s += log10(fmax(out->traj[i], 1e-12));
	out->anytime = s / QUAL_NPOINTS;
	rc = DEHBQ_OK;
fail:
	for (i = 0; i < jobs; i++)
		free(fl[i].x);
	free(v);
	optim_free(o);
	return rc;
}

static int qual_long(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return errno || end == s || *end;
}

static int opt_index(const char *name)
{
	int i;

	for (i = 0; i < nopt; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

/* Does the comma-separated list only name n (no list: everything does)? */
static int listed(const char *only, const char *n)
{
	size_t len = strlen(n);
	const char *p = only;

	while (p) {
		if (!strncmp(p, n, len) && (!p[len] || p[len] == ','))
			return 1;
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return !only;
}

/*
 * --only a,b,c: those optimisers of optim_table, in the table's order,
 * then those compositions.
 */
/*
 * The transfer optimisers are measured by bench_transfer on related
 * tasks: cts needs earlier tasks, and gcp without them is compared there
 * too.  Named in --only, they run here (cts then fails: no earlier task).
 */
static int transfer_opt(const char *name)
{
	return !strcmp(name, "cts") || !strcmp(name, "gcp");
}

/*
 * pbt continues each trial from its parent's checkpoint: an evaluation
 * here trains from scratch, so its results would mean nothing (issue 36
 * has its own benchmark to build).  Named in --only, it runs.
 */
static int needs_checkpoints(const char *name)
{
	return (optim_caps(name) & OPTIM_CAP_SEGMENTS) != 0;
}

static int select_opts(const char *only)
{
	int i;

	nopt = 0;
	for (i = 0; optim_table[i] && nopt < QUAL_MAXOPT; i++)
		if (only ? listed(only, optim_table[i]->name)
			 : !transfer_opt(optim_table[i]->name) &&
				    !needs_checkpoints(optim_table[i]->name))
			names[nopt++] = optim_table[i]->name;
	for (i = 0; i < QUAL_NCOMPOSED && nopt < QUAL_MAXOPT; i++)
		if (listed(only, composed[i].label))
			names[nopt++] = composed[i].label;
	return nopt ? 0 : -1;
}

/* "A vs B" on one measure, with the test and a verdict. */
static void compare(const char *prob, const char *what, const char *a,
		    const char *b, const double *xa, const double *xb, int n)
{
	double ma, sa, mb, sb, u, eff,
		p = benchstat_mann_whitney(xa, xb, n, &u, &eff);

	benchstat_mean_sd(xa, n, &ma, &sa);
	benchstat_mean_sd(xb, n, &mb, &sb);
	printf("%-14s %s vs %s, %s: %.4g +- %.3g vs %.4g +- %.3g; U = %.1f, "
	       "P(%s better) = %.2f, p = %.3g: %s\n",
	       prob, a, b, what, ma, sa, mb, sb, u, a, eff, p,
	       p >= 0.05   ? "no significant difference"
	       : eff > 0.5 ? "BETTER"
			   : "WORSE");
}

/* The comparisons the issues ask for. */
static const struct {
	const char *a, *b;
	int anytime; /* else the final regret */
} cmps[] = {
	{"asha", "hyperband", 1},     {"re", "random", 0},
	{"tpe", "random", 0},	      {"bohb", "hyperband", 0},
	{"gp", "random", 0},	      {"gp", "tpe", 0},
	{"tpe+asha", "asha", 0},      {"tpe+asha", "tpe", 0},
	{"gp+asha", "asha", 0},	      {"gp+asha", "gp", 0},
	{"gp+asha", "bohb", 0},	      {"fifo+halton", "random", 0},
	{"fifo+halton", "random", 1}, {"asha+halton", "asha", 0},
	{"asha+halton", "asha", 1},   {"gp", "gp-uniform", 0},
	{"gp", "gp-uniform", 1},      {"bohb-mbw0.3", "bohb", 0},
	{"bohb-mbw0.3", "bohb", 1},   {"re", "re-0.4", 0},
	{"re", "re-0.4", 1},
};

#define QUAL_EARLY 50 /* "small budgets": this many max-fidelity evals */

/*
 * Regret after QUAL_EARLY maximum-fidelity evaluations' cost (the last
 * checkpoint at or below it): each optimiser's mean +- std and mean rank,
 * and GP against the best of the others there.
 */
static void early(const char *prob, struct qual_run (*r)[QUAL_MAXSEEDS],
		  int seeds, double B)
{
	double rank[QUAL_MAXOPT] = {0}, xa[QUAL_MAXSEEDS], xb[QUAL_MAXSEEDS];
	int pt = -1, i, o, k, s, gp = opt_index("gp"), best = -1;

	for (i = 0; i < QUAL_NPOINTS; i++)
		if (qual_point(B, i) <= QUAL_EARLY + 1e-9)
			pt = i;
	if (pt < 0)
		return;
	printf("%-14s after %.1f max-fidelity evaluations' cost:", prob,
	       qual_point(B, pt));
	for (o = 0; o < nopt; o++) {
		double m, sd;

		for (s = 0; s < seeds; s++) {
			xa[s] = r[o][s].traj[pt];
			for (k = 0; k < nopt; k++)
				if (k != o)
					rank[o] += r[k][s].traj[pt] < xa[s] ? 1
						   : r[k][s].traj[pt] == xa[s]
							   ? 0.5
							   : 0;
		}
		benchstat_mean_sd(xa, seeds, &m, &sd);
		printf(" %s %.3g+-%.2g (rank %.2f)", names[o], m, sd,
		       1 + rank[o] / seeds);
		if (o != gp && (best < 0 || rank[o] < rank[best]))
			best = o;
	}
	putchar('\n');
	if (gp < 0 || best < 0)
		return;
	for (s = 0; s < seeds; s++) {
		xa[s] = r[gp][s].traj[pt];
		xb[s] = r[best][s].traj[pt];
	}
	compare(prob, "early regret", "gp", names[best], xa, xb, seeds);
}

int main(int argc, char **argv)
{
	static struct qual_run runs[QUAL_MAXPROB][QUAL_MAXOPT][QUAL_MAXSEEDS];
	static double ranks[QUAL_MAXOPT], col[QUAL_MAXSEEDS],
		col2[QUAL_MAXSEEDS];
	const char *csvdir = NULL, *probs[QUAL_MAXPROB];
	struct benchfn fns[QUAL_MAXPROB];
	char err[DEHBQ_ERRLEN], path[4096];
	long seeds = 20, budget = 0, brackets = 0, jobs = 1;
	const char *only = NULL;
	int np = 0, ai, p, o, s, i, nrank = 0;
	FILE *ff = NULL, *ft = NULL;

	gp_blas_single_thread();
	for (ai = 1; ai < argc; ai++) {
		if (!strcmp(argv[ai], "--seeds") && ai + 1 < argc) {
			if (qual_long(argv[++ai], &seeds) || seeds < 1 ||
			    seeds > QUAL_MAXSEEDS)
				goto usage;
		} else if (!strcmp(argv[ai], "--budget") && ai + 1 < argc) {
			if (qual_long(argv[++ai], &budget) || budget < 2)
				goto usage;
		} else if (!strcmp(argv[ai], "--brackets") && ai + 1 < argc) {
			if (qual_long(argv[++ai], &brackets) || brackets < 1)
				goto usage;
		} else if (!strcmp(argv[ai], "--jobs") && ai + 1 < argc) {
			if (qual_long(argv[++ai], &jobs) || jobs < 1 ||
			    jobs > QUAL_MAXJOBS)
				goto usage;
		} else if (!strcmp(argv[ai], "--only") && ai + 1 < argc) {
			only = argv[++ai];
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
	if (np == 0 || (!budget == !brackets) || select_opts(only))
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
		fputs("problem,optimizer,seeds,budget,jobs,mean_regret,std_"
		      "regret,mean_anytime,std_anytime\n",
		      ff);
		fputs("problem,optimizer,budget,mean_regret,std_regret\n", ft);
	}
	printf("%-14s %-10s %9s %24s %24s\n", "problem", "optimizer", "budget",
	       "final regret mean +- std", "anytime log10 mean +- std");
	for (p = 0; p < np; p++) {
		double B = brackets ? bracket_budget(&fns[p], brackets)
				    : (double)budget;

		for (o = 0; o < nopt; o++) {
			const char *name = names[o];
			double m, sd, am, asd;

			for (s = 0; s < seeds; s++)
				if (qual_run(&fns[p], name, (uint64_t)s + 1, B,
					     (int)jobs, &runs[p][o][s]))
					return 111;
			for (s = 0; s < seeds; s++) {
				col[s] = runs[p][o][s].final;
				col2[s] = runs[p][o][s].anytime;
			}
			benchstat_mean_sd(col, (int)seeds, &m, &sd);
			benchstat_mean_sd(col2, (int)seeds, &am, &asd);
			printf("%-14s %-10s %9.1f %12.4e +- %9.3e %12.3f +- "
			       "%9.3f\n",
			       probs[p], name, B, m, sd, am, asd);
			if (ff)
				fprintf(ff,
					"%s,%s,%ld,%.6g,%ld,%.6e,%.6e,%.6e,"
					"%.6e\n",
					probs[p], name, seeds, B, jobs, m, sd,
					am, asd);
			for (i = 0; ft && i < QUAL_NPOINTS; i++) {
				for (s = 0; s < seeds; s++)
					col[s] = runs[p][o][s].traj[i];
				benchstat_mean_sd(col, (int)seeds, &m, &sd);
				fprintf(ft, "%s,%s,%.6g,%.6e,%.6e\n", probs[p],
					name, qual_point(B, i), m, sd);
			}
		}
		/* ranks per seed, ties averaged */
		for (s = 0; s < seeds; s++) {
			for (o = 0; o < nopt; o++) {
				double x = runs[p][o][s].final, r = 1;
				int k;

				for (k = 0; k < nopt; k++) {
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
	printf("\n%-10s %9s   (over %d problems x %ld seeds, %ld job%s in "
	       "flight)\n",
	       "optimizer", "mean rank", np, seeds, jobs, jobs > 1 ? "s" : "");
	for (o = 0; o < nopt; o++) {
		printf("%-10s %9.3f\n", names[o], ranks[o] / nrank);
		if (ff)
			fprintf(ff, "ALL,%s,%ld,0,%ld,rank,%.4f,,\n", names[o],
				seeds, jobs, ranks[o] / nrank);
	}
	printf("\ncomparisons (two-sided Mann-Whitney U over %ld seeds; "
	       "lower is better)\n",
	       seeds);
	for (p = 0; p < np; p++)
		for (i = 0; i < (int)(sizeof(cmps) / sizeof(cmps[0])); i++) {
			int a = opt_index(cmps[i].a), b = opt_index(cmps[i].b);
			double xa[QUAL_MAXSEEDS], xb[QUAL_MAXSEEDS];

			if (a < 0 || b < 0)
				continue;
			for (s = 0; s < seeds; s++) {
				xa[s] = cmps[i].anytime ? runs[p][a][s].anytime
							: runs[p][a][s].final;
				xb[s] = cmps[i].anytime ? runs[p][b][s].anytime
							: runs[p][b][s].final;
			}
			compare(probs[p],
				cmps[i].anytime ? "anytime log10 regret"
						: "final regret",
				cmps[i].a, cmps[i].b, xa, xb, (int)seeds);
		}
	for (p = 0; p < np; p++)
		early(probs[p], runs[p], (int)seeds,
		      brackets ? bracket_budget(&fns[p], brackets)
			       : (double)budget);
	if ((ff && fclose(ff) != 0) || (ft && fclose(ft) != 0)) {
		fputs("bench_quality: fatal: unable to write the CSV\n",
		      stderr);
		return 111;
	}
	return 0;
usage:
	fputs("usage: bench_quality [--seeds N] [--budget B | --brackets N] "
	      "[--jobs J] [--only OPT,...] [--csv DIR] PROBLEM...\n",
	      stderr);
	return 100;
}
