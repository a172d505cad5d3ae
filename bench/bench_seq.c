/*
 * bench_seq.c - single-fidelity search, evaluation by evaluation: the
 * regret of the best configuration so far after every evaluation, per
 * seed, as CSV for bench/seqcompare.py
 *
 * The side-by-side half of issue #38: bench/peer_tpe.py writes the same
 * rows for Optuna 3.1's TPE on the same problems (bench/lib/benchfn.h, at
 * the maximum budget, where they are noise-free), so that a model's
 * regret after 20 and 60 evaluations can be compared seed against seed.
 *
 * A METHOD is LABEL=OPTIMISER or LABEL=OPTIMISER:SETTINGS, SETTINGS a JSON
 * object given to the optimiser as the study's optimizer settings, with
 * the defaults a new study gets filled in (as dehbq init does).  The
 * OPTIMISER "default" is the one dehbq init picks for a study of one
 * fidelity when none is named (optim_default_one_fidelity).  The
 * study has one fidelity (the problem's maximum), so only optimisers that
 * can run one open.  With --jobs J, J evaluations are in flight: each ask
 * is made while the J - 1 asked before it are still out, and results come
 * back oldest first, as J equal workers return them.
 *
 * Usage: bench_seq [--seeds N] [--seed0 S] [--evals N] [--jobs J] METHOD...
 *                  -- PROBLEM...
 * (seeds S, S + 1, ..., S + N - 1; S is 0 unless given: more seeds of an
 * earlier run are another run with --seed0.)
 * Output (stdout): problem,method,seed,jobs,evals,regret
 * Exit codes: 0 ok, 100 usage, 111 optimiser failure.
 */
#include "benchfn.h"
#include "benchopt.h"
#include "err.h"
#include "gp.h"
#include "optim.h"
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEQ_MAXJOBS 256
#define SEQ_MAXDIM  512

static int seq_open(const struct benchfn *f, const struct bench_method *m,
		    uint64_t seed, struct optim **o)
{
	int ch[SEQ_MAXDIM], i;
	struct optim_setup u;

	memset(&u, 0, sizeof(u));
	for (i = 0; i < f->dim && i < SEQ_MAXDIM; i++)
		ch[i] = benchfn_choices(f, i);
	u.dim = f->dim;
	u.min_fidelity = f->max_budget;
	u.max_fidelity = f->max_budget;
	u.eta = 3;
	u.seed = seed;
	u.choices = ch;
	return bench_method_open("bench_seq", m, &u, o);
}

struct seq_run {
	const char *prob, *label;
	const struct benchfn *f;
	uint64_t seed;
	long jobs;
	struct rng r;
	double best;
};

/* bench_ring's tell: the loss to o, the best regret so far as a row. */
static int seq_tell(void *ctx, struct optim *o, uint64_t id, const double *x,
		    long told)
{
	struct seq_run *q = ctx;
	int rc = optim_tell(o, id, OPTIM_OK,
			    benchfn_loss(q->f, x, q->f->max_budget, &q->r), 1);

	q->best = fmin(q->best, benchfn_regret(q->f, x));
	if (!rc)
		printf("%s,%s,%llu,%ld,%ld,%.10g\n", q->prob, q->label,
		       (unsigned long long)q->seed, q->jobs, told, q->best);
	return rc;
}

/* One run: a CSV row after every evaluation. */
static int seq_run(const char *prob, const struct benchfn *f,
		   const struct bench_method *m, uint64_t seed, long evals,
		   long jobs)
{
	struct seq_run q = {prob, m->label, f, seed, jobs, {{0}}, INFINITY};
	struct optim *o = NULL;
	int rc;

	if (seq_open(f, m, seed, &o))
		return DEHBQ_EINVAL;
	rng_seed(&q.r, seed);
	if ((rc = bench_ring(o, f->dim, evals, jobs, seq_tell, &q)))
		fprintf(stderr, "bench_seq: fatal: %s seed %llu: %s\n",
			m->label, (unsigned long long)seed, dehbq_strerror(rc));
	optim_free(o);
	return rc;
}

int main(int argc, char **argv)
{
	static struct bench_method ms[64];
	static struct benchfn fs[16];
	const char *probs[16];
	char err[DEHBQ_ERRLEN];
	long seeds = 20, evals = 60, jobs = 1, seed0 = 0;
	int nm = 0, np = 0, ai, p, i, rc = 0, dash = 0;
	long s;

	gp_blas_single_thread();
	for (ai = 1; ai < argc; ai++) {
		const char *a = argv[ai];

		int o = dash ? 0
			     : bench_run_opt(argc, argv, &ai, SEQ_MAXJOBS,
					     &seeds, &evals, &jobs);

		if (o < 0) {
			goto usage;
		} else if (!o && !dash && !strcmp(a, "--seed0")) {
			if (ai + 1 >= argc ||
			    bench_long(argv[++ai], 0, 1000000, &seed0))
				goto usage;
		} else if (o > 0) {
			continue;
		} else if (!dash && !strcmp(a, "--")) {
			dash = 1;
		} else if (!dash && nm < 64) {
			if (bench_method_parse(a, &ms[nm++]))
				goto usage;
		} else if (dash && np < 16) {
			if (benchfn_init(&fs[np], a, err)) {
				fprintf(stderr, "bench_seq: %s\n", err);
				return 100;
			}
			if (fs[np].dim > SEQ_MAXDIM)
				goto usage;
			probs[np++] = a;
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
				rc = seq_run(probs[p], &fs[p], &ms[i],
					     (uint64_t)(seed0 + s), evals,
					     jobs);
	for (i = 0; i < nm; i++)
		bench_method_release(&ms[i]);
	return rc ? 111 : 0;
usage:
	fprintf(stderr, "usage: bench_seq [--seeds N] [--seed0 S] [--evals N] "
			"[--jobs J] "
			"LABEL=OPTIMISER[:SETTINGS]... -- PROBLEM...\n");
	return 100;
}
