/*
 * bench_pbt.c - a problem where the best schedule beats every fixed
 * configuration, with checkpoints and a simulated clock: PBT and PB2
 * against ASHA, random search and DEHB at equal total training (issue 36)
 *
 * The trainer is SGD with momentum on the noisy quadratic model (Zhang et
 * al. 2019, "Which algorithmic choices matter at which batch sizes?"), a
 * model of neural-network training in which a large learning rate makes
 * fast progress and a small one reaches a lower loss, so the best
 * learning rate falls as training goes on.  NQM_D dimensions of curvature
 * h_i = 1 / i; w starts at 1 everywhere; a step takes the gradient h_i w_i
 * plus noise N(0, NQM_NOISE h_i) (a minibatch's), and momentum.  The loss
 * is the expected one, 0.5 sum h_i w_i^2; at NQM_CAP or more the run
 * diverged, and the job fails (a trainer's NaN).
 * One fidelity unit is NQM_STEPS steps; the maximum fidelity is
 * NQM_MAXF units.  The two parameters: lr log-uniform in [1e-3, 3],
 * momentum uniform in [0, 0.95] (a dehbq space, so pbt moves them in their
 * own units).
 *
 * A job at fidelity f with a parent whose checkpoint is kept continues
 * from it (the parent's w and velocity) and trains f - f_parent units;
 * otherwise it trains f from scratch.  Its noise comes from (seed, job
 * id).  W simulated workers each run one job, one time unit per fidelity
 * unit; a free worker asks at once, and an ask that finds nothing to run
 * waits for the next result.
 *
 * Equal training: a scheduler of segments (pbt) runs until it ends, when
 * every member has reached NQM_MAXF.  How much it trains varies: a member
 * that exploits a donor behind it trains the donor's later segments
 * again.  The other methods stop asking when the units started reach
 * B * NQM_MAXF ("B full trainings"; the jobs running finish), where B is
 * --budget, or by default the most any run of a segment scheduler listed
 * before them trained, rounded up: never less than PBT had.
 *
 * Quality: the lowest loss of a job that trained to NQM_MAXF.  The
 * oracle: the best fixed configuration, from a 60 x 20 grid at full
 * training, each averaged over 5 noise seeds, printed for reference.
 *
 * Usage: bench_pbt [--seeds N] [--budget B] [--workers W] METHOD...
 * (list pbt's methods first, for the default budget)
 * METHOD is LABEL=OPTIMISER[:SETTINGS] (benchopt.h); a one-fidelity
 * optimiser runs every trial at NQM_MAXF, the others fidelities 1..27
 * with eta 3.  Output: one CSV row per run, method,seed,budget,workers,
 * trained,trials,loss; then, for each method, the mean and standard
 * deviation of log10(loss) and, against the first method, the two-sided
 * Mann-Whitney U p-value.  Exit codes: 0 ok, 100 usage, 111 optimiser
 * failure.
 */
#include "benchopt.h"
#include "benchstat.h"
#include "err.h"
#include "jsonfile.h"
#include "optim.h"
#include "rng.h"
#include "space.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NQM_D	   20
#define NQM_STEPS  20
#define NQM_MAXF   27
#define NQM_NOISE  0.3
#define NQM_CAP	   1e3
#define PB_MAXW	   64
#define PB_MAXM	   16
#define PB_MAXSEED 200

struct ck { /* a job's checkpoint */
	double w[NQM_D], v[NQM_D];
	double f; /* fidelity reached; 0: none */
};

static struct space *sp;
static const char space_text[] =
	"{\"format\":\"dehbq-space/1\",\"parameters\":["
	"{\"name\":\"lr\",\"type\":\"float\",\"low\":0.001,\"high\":3,"
	"\"log\":true},"
	"{\"name\":\"momentum\",\"type\":\"float\",\"low\":0,"
	"\"high\":0.95}]}";

static double nqm_loss(const double *w)
{
	double l = 0;
	int i;

	for (i = 0; i < NQM_D; i++)
		l += 0.5 * w[i] * w[i] / (i + 1);
	return isfinite(l) && l < NQM_CAP ? l : NQM_CAP;
}

/* Train c for units units with (lr, mom), noise from r. */
static void nqm_train(struct ck *c, double lr, double mom, double units,
		      struct rng *r)
{
	long s, n = lround(units * NQM_STEPS);
	int i;

	for (s = 0; s < n; s++)
		for (i = 0; i < NQM_D; i++) {
			double h = 1.0 / (i + 1),
			       g = h * c->w[i] +
				   sqrt(NQM_NOISE * h) * rng_normal(r);

			c->v[i] = mom * c->v[i] - lr * g;
			c->w[i] += c->v[i];
			if (!(fabs(c->w[i]) < 1e6)) /* diverged */
				c->w[i] = copysign(1e6, c->w[i]);
		}
	c->f += units;
}

static void params(const double *x, double *lr, double *mom)
{
	struct space_value v[2];

	space_decode(sp, x, v);
	*lr = v[0].f;
	*mom = v[1].f;
}

/* ---- one run ---- */

struct run {
	struct optim *o;
	struct ck *ck; /* by job id */
	size_t nck;
	uint64_t seed;
	double budget, started, trained, best;
	long trials;
	struct {
		uint64_t id;
		double end, loss, units;
	} w[PB_MAXW];
	int busy[PB_MAXW];
};

static int grow(struct run *r, uint64_t id)
{
	size_t n = r->nck;
	struct ck *c;

	if (id < n)
		return 0;
	while (n <= id)
		n = n ? 2 * n : 256;
	if (!(c = realloc(r->ck, n * sizeof(*c))))
		return -1;
	memset(c + r->nck, 0, (n - r->nck) * sizeof(*c));
	r->ck = c;
	r->nck = n;
	return 0;
}

/* Start job j on worker k at time now: train it (the result is known at
 * once; the clock reveals it at its end). */
static int start(struct run *r, int k, const struct optim_job *j,
		 const double *x, double now)
{
	struct ck *c;
	struct rng g;
	double lr, mom;
	int i;

	if (grow(r, j->id))
		return -1;
	c = &r->ck[j->id];
	if (j->parent >= 0 && (uint64_t)j->parent < r->nck &&
	    r->ck[j->parent].f > 0 && r->ck[j->parent].f < j->fidelity)
		*c = r->ck[j->parent];
	else {
		for (i = 0; i < NQM_D; i++) {
			c->w[i] = 1;
			c->v[i] = 0;
		}
		c->f = 0;
	}
	params(x, &lr, &mom);
	rng_seed(&g, r->seed * 1000003ULL + j->id);
	r->w[k].units = j->fidelity - c->f;
	nqm_train(c, lr, mom, r->w[k].units, &g);
	r->w[k].id = j->id;
	r->w[k].end = now + r->w[k].units;
	r->w[k].loss = nqm_loss(c->w);
	r->busy[k] = 1;
	r->started += r->w[k].units;
	r->trials++;
	return 0;
}

static int run_one(struct run *r, int workers)
{
	struct optim_job j;
	double x[2], now = 0;
	int k, rc;

	for (;;) {
		int next = -1;

		for (k = 0; k < workers && r->started < r->budget; k++) {
			if (r->busy[k])
				continue;
			rc = optim_ask(r->o, &j, x);
			if (rc == DEHBQ_EAGAIN || rc == DEHBQ_EDONE)
				break;
			if (rc || start(r, k, &j, x, now))
				return -1;
		}
		for (k = 0; k < workers; k++)
			if (r->busy[k] &&
			    (next < 0 || r->w[k].end < r->w[next].end))
				next = k;
		if (next < 0)
			return 0;
		now = r->w[next].end;
		r->busy[next] = 0;
		r->trained += r->w[next].units;
		if (r->ck[r->w[next].id].f >= NQM_MAXF)
			r->best = fmin(r->best, r->w[next].loss);
		if (optim_tell(r->o, r->w[next].id,
			       r->w[next].loss < NQM_CAP ? OPTIM_OK
							 : OPTIM_FAILED,
			       r->w[next].loss, r->w[next].units))
			return -1;
	}
}

static int open_method(const struct bench_method *m, uint64_t seed,
		       struct optim **o)
{
	unsigned caps = optim_caps(m->opt);
	static const int choices[2] = {0, 0};
	struct optim_setup u = {0};

	u.dim = 2;
	u.choices = choices;
	u.max_fidelity = NQM_MAXF;
	u.min_fidelity = caps & OPTIM_CAP_ONE_FIDELITY ? NQM_MAXF : 1;
	u.eta = 3;
	u.seed = seed;
	u.space = sp;
	return bench_method_open("bench_pbt", m, &u, o);
}

/* The best fixed configuration's loss at full training (the grid's). */
static double oracle(double *blr, double *bmom)
{
	double best = INFINITY, x[2];
	int a, b, s;

	for (a = 0; a < 60; a++)
		for (b = 0; b < 20; b++) {
			double lr, mom, l = 0;

			x[0] = (a + 0.5) / 60;
			x[1] = (b + 0.5) / 20;
			params(x, &lr, &mom);
			for (s = 0; s < 5; s++) {
				struct ck c = {{0}, {0}, 0};
				struct rng g;
				int i;

				for (i = 0; i < NQM_D; i++)
					c.w[i] = 1;
				rng_seed(&g, 777 + (uint64_t)s);
				nqm_train(&c, lr, mom, NQM_MAXF, &g);
				l += nqm_loss(c.w) / 5;
			}
			if (l < best) {
				best = l;
				*blr = lr;
				*bmom = mom;
			}
		}
	return best;
}

static int load_space(void)
{
	struct jsonfile *jf;
	char err[DEHBQ_ERRLEN];
	int rc = jsonfile_parse("bench_pbt space", space_text,
				strlen(space_text), &jf, err);

	if (!rc) {
		rc = space_from_json(jf, jsonfile_root(jf), &sp, err);
		jsonfile_free(jf);
	}
	if (rc)
		fprintf(stderr, "bench_pbt: %s\n", err);
	return rc;
}

static void summary(struct bench_method *m, int nm, double (*res)[PB_MAXSEED],
		    int seeds)
{
	double lg[PB_MAXM][PB_MAXSEED], mean, sd, u, eff;
	int i, s;

	for (i = 0; i < nm; i++)
		for (s = 0; s < seeds; s++)
			lg[i][s] = log10(res[i][s]);
	printf("# method, log10(loss) mean +- sd over %d seeds, "
	       "Mann-Whitney p against %s\n",
	       seeds, m[0].label);
	for (i = 0; i < nm; i++) {
		benchstat_mean_sd(lg[i], seeds, &mean, &sd);
		printf("# %-12s %8.4f +- %.4f", m[i].label, mean, sd);
		if (i) {
			double p = benchstat_mann_whitney(lg[i], lg[0], seeds,
							  &u, &eff);

			printf("   p = %.2g, P(below %s) = %.2f", p, m[0].label,
			       eff);
		}
		printf("\n");
	}
}

int main(int argc, char **argv)
{
	static double res[PB_MAXM][PB_MAXSEED];
	struct bench_method m[PB_MAXM];
	long seeds = 20, budget = 0, workers = 8, seg = 0;
	double olr = 0, omom = 0, ol;
	int a = 1, nm = 0, i, s;

	for (; a + 1 < argc && !strncmp(argv[a], "--", 2); a += 2) {
		long *v = !strcmp(argv[a], "--seeds")	  ? &seeds
			  : !strcmp(argv[a], "--budget")  ? &budget
			  : !strcmp(argv[a], "--workers") ? &workers
							  : NULL;

		if (!v || bench_long(argv[a + 1], 1,
				     v == &seeds     ? PB_MAXSEED
				     : v == &workers ? PB_MAXW
						     : 10000,
				     v))
			goto usage;
	}
	for (; a < argc && nm < PB_MAXM; a++, nm++)
		if (bench_method_parse(argv[a], &m[nm]))
			goto usage;
	if (!nm || a < argc)
		goto usage;
	if (load_space())
		return 100;
	ol = oracle(&olr, &omom);
	printf("# oracle: best fixed configuration lr %.4g momentum %.3g: "
	       "loss %.5g (log10 %.4f)\n",
	       olr, omom, ol, log10(ol));
	printf("method,seed,budget,workers,trained,trials,loss\n");
	for (i = 0; i < nm; i++)
		for (s = 0; s < seeds; s++) {
			struct run r = {0};

			r.seed = (uint64_t)s + 1;
			r.budget = optim_caps(m[i].opt) & OPTIM_CAP_SEGMENTS
					   ? INFINITY
				   : budget ? (double)budget * NQM_MAXF
				   : seg    ? (double)seg * NQM_MAXF
					    : 8.0 * NQM_MAXF;
			r.best = NQM_CAP;
			if (open_method(&m[i], r.seed, &r.o))
				return 111;
			if (run_one(&r, (int)workers)) {
				fprintf(stderr,
					"bench_pbt: %s seed %d failed\n",
					m[i].label, s + 1);
				return 111;
			}
			res[i][s] = r.best;
			if (isinf(r.budget) &&
			    ceil(r.trained / NQM_MAXF) > (double)seg)
				seg = (long)ceil(r.trained / NQM_MAXF);
			printf("%s,%d,%g,%ld,%g,%ld,%.6g\n", m[i].label, s + 1,
			       r.budget / NQM_MAXF, workers, r.trained,
			       r.trials, r.best);
			optim_free(r.o);
			free(r.ck);
		}
	summary(m, nm, res, (int)seeds);
	for (i = 0; i < nm; i++)
		bench_method_release(&m[i]);
	space_free(sp);
	return 0;
usage:
	fprintf(stderr, "usage: bench_pbt [--seeds N] [--budget B] "
			"[--workers W] LABEL=OPTIMISER[:SETTINGS]...\n");
	return 100;
}
