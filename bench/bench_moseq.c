/*
 * bench_moseq.c - multi-objective search at one fidelity, evaluation by
 * evaluation: the hypervolume error of everything evaluated so far after
 * every evaluation, per seed, as CSV for bench/seqcompare.py
 *
 * The multi-objective side by side of issue #38: bench/peer_mo.py writes
 * the same rows for Optuna 3.1's MOTPE and NSGA-II on the same problems,
 * so that dehbq's searchers can be compared seed against seed at 100 and
 * 200 evaluations.  Problems nobody here tuned to, at their textbook
 * definitions with 6 variables in [0, 1] and two objectives:
 *   zdt1, zdt2, zdt3  g = 1 + 9 mean(x2..x6); f1 = x1,
 *                     f2 = g (1 - sqrt(f1/g)), g (1 - (f1/g)^2),
 *                     g (1 - sqrt(f1/g) - f1/g sin(10 pi f1))
 *   dtlz2             g = sum (xi - 0.5)^2 over x2..x6;
 *                     f1 = (1 + g) cos(x1 pi/2), f2 = (1 + g) sin(x1 pi/2)
 * Objectives are normalised by the true front's ideal and nadir point
 * (from a dense sample of it), the reference point is (1.1, 1.1), and the
 * error is HV(true front) - HV(the evaluated points), both in that scale.
 * peer_mo.py computes the same figures the same way.
 *
 * A METHOD is MODE/LABEL=OPTIMISER[:SETTINGS]: MODE how the study's two
 * objectives become the optimiser's (mobj.h: copula, linear,
 * random-weights, pareto), the rest as bench_seq's.  With --jobs J, J
 * evaluations are in flight and come back oldest first.
 *
 * Usage: bench_moseq [--seeds N] [--evals N] [--jobs J] METHOD... --
 *                    PROBLEM...
 * Output (stdout): problem,method,seed,jobs,evals,regret (the HV error)
 * Exit codes: 0 ok, 100 usage, 111 optimiser failure.
 */
#include "benchopt.h"
#include "err.h"
#include "gp.h"
#include "mobj.h"
#include "optim.h"
#include "pareto.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MQ_DIM	   6
#define MQ_MAXJOBS 256
#define MQ_FRONT   100001 /* points in the dense sample of a true front */

static const char *const mq_names[] = {"zdt1", "zdt2", "zdt3", "dtlz2"};
#define MQ_NPROB ((int)(sizeof(mq_names) / sizeof(mq_names[0])))

struct mq_problem {
	int p;		     /* index into mq_names */
	double lo[2], hi[2]; /* the true front's ideal and nadir */
	double hvstar;	     /* its hypervolume, normalised */
};

/* Objectives of problem p at u. */
static void mq_eval(int p, const double *u, double *y)
{
	double g = 0, r;
	int i;

	if (p == 3) {
		for (i = 1; i < MQ_DIM; i++)
			g += (u[i] - 0.5) * (u[i] - 0.5);
		y[0] = (1 + g) * cos(u[0] * M_PI / 2);
		y[1] = (1 + g) * sin(u[0] * M_PI / 2);
		return;
	}
	for (i = 1; i < MQ_DIM; i++)
		g += u[i];
	g = 1 + 9 * g / (MQ_DIM - 1);
	r = u[0] / g;
	y[0] = u[0];
	y[1] = g * (p == 0   ? 1 - sqrt(r)
		    : p == 1 ? 1 - r * r
			     : 1 - sqrt(r) - r * sin(10 * M_PI * u[0]));
}

static void mq_norm(const struct mq_problem *q, const double *y, double *z)
{
	z[0] = (y[0] - q->lo[0]) / (q->hi[0] - q->lo[0]);
	z[1] = (y[1] - q->lo[1]) / (q->hi[1] - q->lo[1]);
}

static const double mq_ref[2] = {2, 2};

/*
 * The true front: x1 on a grid of MQ_FRONT points, the rest where g is
 * least (0 for zdt, 0.5 for dtlz2); its non-dominated points give the
 * ideal and nadir, and their normalised hypervolume HV*.
 */
static int mq_init(const char *name, struct mq_problem *q)
{
	double *y = malloc(2 * sizeof(double) * MQ_FRONT), u[MQ_DIM];
	int *rank = malloc(sizeof(int) * MQ_FRONT), rc, k;
	size_t i, n = 0;

	for (q->p = 0; q->p < MQ_NPROB && strcmp(name, mq_names[q->p]);)
		q->p++;
	if (q->p == MQ_NPROB || !y || !rank) {
		free(y);
		free(rank);
		return q->p == MQ_NPROB ? DEHBQ_EINVAL : DEHBQ_ENOMEM;
	}
	for (k = 1; k < MQ_DIM; k++)
		u[k] = q->p == 3 ? 0.5 : 0;
	for (i = 0; i < MQ_FRONT; i++) {
		u[0] = (double)i / (MQ_FRONT - 1);
		mq_eval(q->p, u, &y[2 * i]);
	}
	if (!(rc = pareto_rank(y, MQ_FRONT, 2, rank))) {
		q->lo[0] = q->lo[1] = INFINITY;
		q->hi[0] = q->hi[1] = -INFINITY;
		for (i = 0; i < MQ_FRONT; i++) {
			if (rank[i])
				continue;
			for (k = 0; k < 2; k++) {
				q->lo[k] = fmin(q->lo[k], y[2 * i + k]);
				q->hi[k] = fmax(q->hi[k], y[2 * i + k]);
			}
			memmove(&y[2 * n++], &y[2 * i], 2 * sizeof(double));
		}
		for (i = 0; i < n; i++)
			mq_norm(q, &y[2 * i], &y[2 * i]);
		rc = pareto_hypervolume(y, n, 2, mq_ref, &q->hvstar);
	}
	free(y);
	free(rank);
	return rc;
}

static int mq_open(const struct bench_method *m, int mode, uint64_t seed,
		   struct optim **o)
{
	static const int ch[MQ_DIM];
	struct optim_setup u;

	memset(&u, 0, sizeof(u));
	u.dim = MQ_DIM;
	u.min_fidelity = 1;
	u.max_fidelity = 1;
	u.eta = 3;
	u.seed = seed;
	u.choices = ch;
	u.nobj = 2;
	u.scalarise = mode;
	return bench_method_open("bench_moseq", m, &u, o);
}

struct mq_run {
	const struct mq_problem *q;
	const char *label;
	uint64_t seed;
	long jobs;
	double *seen; /* the normalised objectives told so far */
};

/* bench_ring's tell: the objectives to o, the HV error so far as a row. */
static int mq_tell(void *ctx, struct optim *o, uint64_t id, const double *x,
		   long told)
{
	struct mq_run *r = ctx;
	double y[2], hv;
	int rc;

	mq_eval(r->q->p, x, y);
	if ((rc = optim_tell_obj(o, id, OPTIM_OK, y, 1)))
		return rc;
	mq_norm(r->q, y, &r->seen[2 * (told - 1)]);
	if ((rc = pareto_hypervolume(r->seen, (size_t)told, 2, mq_ref, &hv)))
		return rc;
	printf("%s,%s,%llu,%ld,%ld,%.10g\n", mq_names[r->q->p], r->label,
	       (unsigned long long)r->seed, r->jobs, told, r->q->hvstar - hv);
	return DEHBQ_OK;
}

/* One run: a CSV row after every evaluation. */
static int mq_run(const struct mq_problem *q, const struct bench_method *m,
		  int mode, uint64_t seed, long evals, long jobs)
{
	struct mq_run r = {q, m->label, seed, jobs,
			   malloc(2 * sizeof(double) * (size_t)evals)};
	struct optim *o = NULL;
	int rc = DEHBQ_ENOMEM;

	if (r.seen && !(rc = mq_open(m, mode, seed, &o)))
		rc = bench_ring(o, MQ_DIM, evals, jobs, mq_tell, &r);
	if (rc)
		fprintf(stderr, "bench_moseq: fatal: %s seed %llu: %s\n",
			m->label, (unsigned long long)seed, dehbq_strerror(rc));
	optim_free(o);
	free(r.seen);
	return rc;
}

/* MODE/METHOD: 0 ok, -1 malformed. */
static int mq_method(const char *a, struct bench_method *m, int *mode)
{
	const char *sl = strchr(a, '/');
	char name[32];

	if (!sl || (size_t)(sl - a) >= sizeof(name))
		return -1;
	memcpy(name, a, (size_t)(sl - a));
	name[sl - a] = '\0';
	if (mobj_mode_parse(name, mode))
		return -1;
	return bench_method_parse(sl + 1, m);
}

int main(int argc, char **argv)
{
	static struct bench_method ms[64];
	static struct mq_problem qs[16];
	int mode[64], nm = 0, np = 0, ai, p, i, rc = 0, dash = 0;
	long seeds = 20, evals = 200, jobs = 1, s;

	gp_blas_single_thread();
	for (ai = 1; ai < argc; ai++) {
		const char *a = argv[ai];

		int o = dash ? 0
			     : bench_run_opt(argc, argv, &ai, MQ_MAXJOBS,
					     &seeds, &evals, &jobs);

		if (o < 0) {
			goto usage;
		} else if (o > 0) {
			continue;
		} else if (!dash && !strcmp(a, "--")) {
			dash = 1;
		} else if (!dash && nm < 64) {
			if (mq_method(a, &ms[nm], &mode[nm]))
				goto usage;
			nm++;
		} else if (dash && np < 16) {
			if ((rc = mq_init(a, &qs[np++]))) {
				fprintf(stderr, "bench_moseq: %s: %s\n", a,
					rc == DEHBQ_EINVAL
						? "unknown problem (zdt1, "
						  "zdt2, zdt3, dtlz2)"
						: dehbq_strerror(rc));
				return rc == DEHBQ_EINVAL ? 100 : 111;
			}
			fprintf(stderr,
				"bench_moseq: %s: ideal (%.6g, %.6g), nadir "
				"(%.6g, %.6g), true HV %.6f\n",
				a, qs[np - 1].lo[0], qs[np - 1].lo[1],
				qs[np - 1].hi[0], qs[np - 1].hi[1],
				qs[np - 1].hvstar);
		} else {
			goto usage;
		}
	}
	if (!nm || !np)
		goto usage;
	printf("problem,method,seed,jobs,evals,regret\n");
	for (p = 0; p < np && !rc; p++)
		for (i = 0; i < nm && !rc; i++)
			for (s = 0; s < seeds && !rc; s++)
				rc = mq_run(&qs[p], &ms[i], mode[i],
					    (uint64_t)s, evals, jobs);
	for (i = 0; i < nm; i++)
		bench_method_release(&ms[i]);
	return rc ? 111 : 0;
usage:
	fprintf(stderr, "usage: bench_moseq [--seeds N] [--evals N] "
			"[--jobs J] MODE/LABEL=OPTIMISER[:SETTINGS]... -- "
			"PROBLEM...\n");
	return 100;
}
