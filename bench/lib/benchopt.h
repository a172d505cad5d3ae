/*
 * benchopt.h - what the in-process benchmarks share about optimisers: a
 * METHOD argument (LABEL=OPTIMISER[:SETTINGS]), opening one with the
 * settings a new study gets (as dehbq init fills them), a run with J
 * evaluations in flight, a bounded integer argument, and the nearest
 * point of a tabular design
 *
 * Ownership: a bench_method owns its settings (bench_method_release).
 */
#ifndef DEHBQ_BENCHOPT_H
#define DEHBQ_BENCHOPT_H

#include <cjson/cJSON.h>

#include "optim.h"

struct bench_method {
	char label[64];
	char opt[64];
	cJSON *settings; /* NULL: the optimiser's defaults */
};

/*
 * Parse LABEL=OPTIMISER[:SETTINGS] (SETTINGS a JSON object).  The
 * OPTIMISER "default" is what dehbq init picks for a study of one fidelity
 * (optim_default_one_fidelity).  0 ok, -1 malformed (an unknown
 * optimiser fails at bench_method_open).
 */
int bench_method_parse(const char *arg, struct bench_method *m);
void bench_method_release(struct bench_method *m);

/*
 * Open m's optimiser for setup u (u->settings is set here: m's settings
 * with every default filled in).  DEHBQ_OK, or the code with one line on
 * stderr naming prog and the method.
 */
int bench_method_open(const char *prog, const struct bench_method *m,
		      struct optim_setup *u, struct optim **o);

/*
 * Run o for evals evaluations of dim values with jobs of them in flight:
 * each ask is made while the jobs - 1 asked before it are still out, and
 * results come back oldest first, as equal workers return them.  tell
 * evaluates x, tells o the result of job id and records it; told counts
 * from 1.  DEHBQ_OK, or the first failing code (DEHBQ_ESTATE: o asked
 * nothing with nothing in flight).
 */
int bench_ring(struct optim *o, int dim, long evals, long jobs,
	       int (*tell)(void *ctx, struct optim *o, uint64_t id,
			   const double *x, long told),
	       void *ctx);

/*
 * The run options of bench_seq and bench_moseq at argv[*ai]: --seeds N
 * (1..10000), --evals N (1..1000000), --jobs J (1..maxjobs).  1: taken,
 * *ai on its value; 0: not one of them; -1: one of them, malformed.
 */
int bench_run_opt(int argc, char **argv, int *ai, long maxjobs, long *seeds,
		  long *evals, long *jobs);

/* s as a decimal integer in [lo, hi]: 0 ok, -1 not one. */
int bench_long(const char *s, long lo, long hi, long *v);

/*
 * The index of the row of u (n rows of dim values, row-major) nearest to
 * x in squared Euclidean distance; ties to the lower index.
 */
int bench_nearest(const double *u, int n, int dim, const double *x);

#endif
