/*
 * de.c - owns the Differential Evolution operators on unit-cube vectors,
 * and their names
 *
 * Invariants:
 * - RNG draw order per trial is the contract (spec 8.7): donor sampling,
 *   then crossover (dim uniforms, plus one integer if no gene was
 *   selected, for bin; one integer then uniforms for exp), then one
 *   uniform per violating coordinate for random repair.
 * - Nothing here writes a population row: crossover writes a fresh
 *   trial, which fixes the reference's in-place exp crossover (9.9).
 */
#include "de.h"

#include "err.h"

#include <string.h>

const char *const de_mutation_names[] = {
	"rand1", "rand2", "best1", "currenttobest1", "randtobest1", NULL};
const char *const de_crossover_names[] = {"bin", "exp", NULL};
const char *const de_boundary_names[] = {"random", "clip", NULL};

/* names[v] for v in [0, n), else "unknown". */
static const char *name_of(const char *const *names, int n, int v)
{
	return v >= 0 && v < n ? names[v] : "unknown";
}

static int parse_name(const char *const *names, int n, const char *s, int *v)
{
	int i;

	for (i = 0; s && i < n; i++) {
		if (!strcmp(s, names[i])) {
			*v = i;
			return DEHBQ_OK;
		}
	}
	return DEHBQ_EINVAL;
}

#define NAMES(a)    a, (int)(sizeof(a) / sizeof(a[0])) - 1
#define mut_names   de_mutation_names
#define cx_names    de_crossover_names
#define bound_names de_boundary_names

const char *de_mutation_name(enum de_mutation m)
{
	return name_of(NAMES(mut_names), (int)m);
}

int de_mutation_parse(const char *s, enum de_mutation *m)
{
	int v, rc = parse_name(NAMES(mut_names), s, &v);

	if (rc == DEHBQ_OK)
		*m = (enum de_mutation)v;
	return rc;
}

const char *de_crossover_name(enum de_crossover c)
{
	return name_of(NAMES(cx_names), (int)c);
}

int de_crossover_parse(const char *s, enum de_crossover *c)
{
	int v, rc = parse_name(NAMES(cx_names), s, &v);

	if (rc == DEHBQ_OK)
		*c = (enum de_crossover)v;
	return rc;
}

const char *de_boundary_name(enum de_boundary b)
{
	return name_of(NAMES(bound_names), (int)b);
}

int de_boundary_parse(const char *s, enum de_boundary *b)
{
	int v, rc = parse_name(NAMES(bound_names), s, &v);

	if (rc == DEHBQ_OK)
		*b = (enum de_boundary)v;
	return rc;
}

int de_donors_needed(enum de_mutation m)
{
	switch (m) {
	case DE_MUT_RAND2:
		return 5;
	case DE_MUT_BEST1:
	case DE_MUT_CURRENTTOBEST1:
		return 2;
	case DE_MUT_RAND1:
	case DE_MUT_RANDTOBEST1:
	default:
		return 3;
	}
}

int de_sample_distinct(struct rng *r, int n, int k, int *out)
{
	int i, j;

	if (k < 0 || n < k)
		return DEHBQ_EINVAL;
	for (i = 0; i < k; i++) {
		int v, dup;

		do {
			v = (int)rng_below(r, (uint64_t)n);
			dup = 0;
			for (j = 0; j < i; j++)
				if (out[j] == v)
					dup = 1;
		} while (dup);
		out[i] = v;
	}
	return DEHBQ_OK;
}

void de_mutate(enum de_mutation m, double F, int dim,
	       const double *const *donors, const double *best,
	       const double *current, double *mutant)
{
	const double *r1 = donors[0], *r2 = donors[1];
	int d;

	for (d = 0; d < dim; d++) {
		double v;

		switch (m) {
		case DE_MUT_RAND2:
			v = r1[d] + F * (r2[d] - donors[2][d]) +
			    F * (donors[3][d] - donors[4][d]);
			break;
		case DE_MUT_BEST1:
			v = best[d] + F * (r1[d] - r2[d]);
			break;
		case DE_MUT_CURRENTTOBEST1:
			v = current[d] + F * (best[d] - current[d]) +
			    F * (r1[d] - r2[d]);
			break;
		case DE_MUT_RANDTOBEST1:
			v = r1[d] + F * (best[d] - r1[d]) +
			    F * (r2[d] - donors[2][d]);
			break;
		case DE_MUT_RAND1:
		default:
			v = r1[d] + F * (r2[d] - donors[2][d]);
			break;
		}
		mutant[d] = v;
	}
}

void de_crossover(enum de_crossover c, struct rng *r, int dim, double cr,
		  const double *target, const double *mutant, double *trial)
{
	int d, any = 0;

	if (c == DE_CX_EXP) {
		int n = (int)rng_below(r, (uint64_t)dim), len = 0;

		for (d = 0; d < dim; d++)
			trial[d] = target[d];
		while (len < dim && rng_uniform(r) < cr) {
			int k = (n + len) % dim;

			trial[k] = mutant[k];
			len++;
		}
		return;
	}
	for (d = 0; d < dim; d++) {
		if (rng_uniform(r) < cr) {
			trial[d] = mutant[d];
			any = 1;
		} else {
			trial[d] = target[d];
		}
	}
	if (!any) {
		d = (int)rng_below(r, (uint64_t)dim);
		trial[d] = mutant[d];
	}
}

void de_repair(enum de_boundary b, struct rng *r, int dim, double *x)
{
	int d;

	for (d = 0; d < dim; d++) {
		if (x[d] >= 0.0 && x[d] <= 1.0)
			continue;
		if (b == DE_BOUND_CLIP)
			x[d] = x[d] < 0.0 ? 0.0 : 1.0;
		else
			x[d] = rng_uniform(r);
	}
}
