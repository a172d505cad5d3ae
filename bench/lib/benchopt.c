/*
 * benchopt.c - owns what the in-process benchmarks share about optimisers
 * (benchopt.h): method arguments, opening with a new study's settings,
 * integer arguments, and the nearest design point of a table
 */
#include "benchopt.h"

#include "err.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bench_method_parse(const char *arg, struct bench_method *m)
{
	const char *eq = strchr(arg, '='), *colon;
	size_t n;

	memset(m, 0, sizeof(*m));
	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(m->label))
		return -1;
	memcpy(m->label, arg, (size_t)(eq - arg));
	colon = strchr(eq + 1, ':');
	n = colon ? (size_t)(colon - eq - 1) : strlen(eq + 1);
	if (!n || n >= sizeof(m->opt))
		return -1;
	memcpy(m->opt, eq + 1, n);
	if (!strcmp(m->opt, "default"))
		snprintf(m->opt, sizeof(m->opt), "%s",
			 optim_default_one_fidelity());
	if (colon && !(m->settings = cJSON_Parse(colon + 1)))
		return -1;
	return 0;
}

void bench_method_release(struct bench_method *m)
{
	cJSON_Delete(m->settings);
	m->settings = NULL;
}

int bench_method_open(const char *prog, const struct bench_method *m,
		      struct optim_setup *u, struct optim **o)
{
	char err[DEHBQ_ERRLEN];
	cJSON *full = NULL;
	int rc;

	if (!(rc = optim_settings(m->opt, m->settings, &full, err))) {
		u->settings = full;
		rc = optim_open(m->opt, u, o, err);
		u->settings = NULL;
		cJSON_Delete(full);
	}
	if (rc)
		fprintf(stderr, "%s: fatal: %s: %s\n", prog, m->label, err);
	return rc;
}

int bench_ring(struct optim *o, int dim, long evals, long jobs,
	       int (*tell)(void *ctx, struct optim *o, uint64_t id,
			   const double *x, long told),
	       void *ctx)
{
	double *x = malloc((size_t)jobs * (size_t)dim * sizeof(double));
	uint64_t *id = malloc((size_t)jobs * sizeof(uint64_t));
	struct optim_job j;
	long told = 0, head = 0, n = 0, asked = 0, k;
	int rc = x && id ? DEHBQ_OK : DEHBQ_ENOMEM;

	while (!rc && told < evals) {
		while (n < jobs && asked < evals) { /* a ring, oldest at head */
			k = (head + n) % jobs;
			if ((rc = optim_ask(o, &j, &x[k * dim])))
				break;
			id[k] = j.id;
			n++;
			asked++;
		}
		if (rc == DEHBQ_EAGAIN || rc == DEHBQ_EDONE)
			rc = DEHBQ_OK;
		if (!rc && !n)
			rc = DEHBQ_ESTATE;
		if (rc)
			break;
		rc = tell(ctx, o, id[head], &x[head * dim], ++told);
		head = (head + 1) % jobs;
		n--;
	}
	free(x);
	free(id);
	return rc;
}

int bench_run_opt(int argc, char **argv, int *ai, long maxjobs, long *seeds,
		  long *evals, long *jobs)
{
	const char *a = argv[*ai];
	long *v = !strcmp(a, "--seeds")	  ? seeds
		  : !strcmp(a, "--evals") ? evals
		  : !strcmp(a, "--jobs")  ? jobs
					  : NULL;

	if (!v || *ai + 1 >= argc)
		return v ? -1 : 0;
	++*ai;
	return bench_long(argv[*ai], 1,
			  v == seeds   ? 10000
			  : v == evals ? 1000000
				       : maxjobs,
			  v)
		       ? -1
		       : 1;
}

int bench_long(const char *s, long lo, long hi, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return errno || end == s || *end || *v < lo || *v > hi ? -1 : 0;
}

int bench_nearest(const double *u, int n, int dim, const double *x)
{
	double best = INFINITY;
	int c, i, arg = 0;

	for (c = 0; c < n; c++) {
		double d = 0;

		for (i = 0; i < dim; i++)
			d += (u[c * dim + i] - x[i]) * (u[c * dim + i] - x[i]);
		if (d < best) {
			best = d;
			arg = c;
		}
	}
	return arg;
}
