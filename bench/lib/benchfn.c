/*
 * benchfn.c - multi-fidelity benchmark problems (shared/BENCHMARKS.md)
 *
 * Invariants: losses are pure functions of (u, b) plus draws from the
 * caller's rng; the fidelity s = log(b)/log(max) is clipped to [0, 1]
 * (Branin and Hartmann use b in [1, 100]).
 */
#include "benchfn.h"

#include "err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double h6_a[4][6] = {
	{10, 3, 17, 3.5, 1.7, 8},
	{0.05, 10, 17, 0.1, 8, 14},
	{3, 3.5, 1.7, 10, 17, 8},
	{17, 8, 0.05, 10, 0.1, 14},
};
static const double h6_p[4][6] = {
	{1312, 1696, 5569, 124, 8283, 5886},
	{2329, 4135, 8307, 3736, 1004, 9991},
	{2348, 1451, 3522, 2883, 3047, 6650},
	{4047, 8828, 8732, 5743, 1091, 381},
};
static const double h6_alpha[4] = {1.0, 1.2, 3.0, 3.2};

int benchfn_init(struct benchfn *f, const char *name, char *err)
{
	memset(f, 0, sizeof(*f));
	if (!strcmp(name, "branin")) {
		f->kind = BENCHFN_BRANIN;
		f->dim = 2;
		f->min_budget = 1;
		f->max_budget = 100;
		return DEHBQ_OK;
	}
	if (!strcmp(name, "hartmann6")) {
		f->kind = BENCHFN_HARTMANN6;
		f->dim = 6;
		f->min_budget = 1;
		f->max_budget = 100;
		return DEHBQ_OK;
	}
	if (!strncmp(name, "countingones", 12)) {
		char *end;
		long n = strtol(name + 12, &end, 10);

		if (end != name + 12 && !*end && n >= 1 && n <= 256) {
			f->kind = BENCHFN_COUNTINGONES;
			f->n = (int)n;
			f->dim = 2 * (int)n;
			f->min_budget = 576.0 / f->dim;
			f->max_budget = 93312.0 / f->dim;
			return DEHBQ_OK;
		}
	}
	if (!strcmp(name, "mixed4")) {
		f->kind = BENCHFN_MIXED;
		f->dim = 4;
		f->min_budget = 1;
		f->max_budget = 100;
		return DEHBQ_OK;
	}
	if (!strncmp(name, "levy", 4) || !strncmp(name, "rosenbrock", 10)) {
		size_t k = name[0] == 'l' ? 4 : 10;
		char *end;
		long n = strtol(name + k, &end, 10);

		if (end != name + k && !*end && n >= 2 && n <= 64) {
			f->kind = k == 4 ? BENCHFN_LEVY : BENCHFN_ROSENBROCK;
			f->n = (int)n;
			f->dim = (int)n;
			f->min_budget = 1;
			f->max_budget = 100;
			return DEHBQ_OK;
		}
	}
	return dehbq_errf(err, DEHBQ_EINVAL,
			  "benchmark '%s': unknown (branin, hartmann6, "
			  "countingonesN, levyN, rosenbrockN, mixed4)",
			  name);
}

static double fid_s(const struct benchfn *f, double b)
{
	double s = log(b) / log(f->max_budget);

	return s < 0 ? 0 : s > 1 ? 1 : s;
}

static double branin(const double *u, double s)
{
	const double pi = 3.14159265358979323846;
	double x1 = -5 + 15 * u[0], x2 = 15 * u[1];
	double B = 5.1 / (4 * pi * pi) - 0.01 * (1 - s);
	double C = 5 / pi - 0.1 * (1 - s);
	double T = 1 / (8 * pi) + 0.005 * (1 - s);
	double q = x2 - B * x1 * x1 + C * x1 - 6;

	return q * q + 10 * (1 - T) * cos(x1) + 10;
}

static double hartmann6(const double *u, double s)
{
	double h = 0;
	int i, j;

	for (i = 0; i < 4; i++) {
		double e = 0;

		for (j = 0; j < 6; j++) {
			double t = u[j] - h6_p[i][j] * 1e-4;

			e += h6_a[i][j] * t * t;
		}
		h -= (h6_alpha[i] - 0.5 * (1 - s)) * exp(-e);
	}
	return h;
}

/* Levy (Laguna and Marti 2005) on x = -10 + 20 u. */
static double levy(const double *u, int n)
{
	const double pi = 3.14159265358979323846;
	double w[64] = {0}, s, t;
	int i;

	for (i = 0; i < n; i++)
		w[i] = 1 + (-10 + 20 * u[i] - 1) / 4;
	t = sin(pi * w[0]);
	s = t * t;
	for (i = 0; i + 1 < n; i++) {
		t = sin(pi * w[i] + 1);
		s += (w[i] - 1) * (w[i] - 1) * (1 + 10 * t * t);
	}
	t = sin(2 * pi * w[n - 1]);
	return s + (w[n - 1] - 1) * (w[n - 1] - 1) * (1 + t * t);
}

/* Rosenbrock on x = -5 + 15 u. */
static double rosenbrock(const double *u, int n)
{
	double s = 0, a, b;
	int i;

	for (i = 0; i + 1 < n; i++) {
		a = -5 + 15 * u[i];
		b = -5 + 15 * u[i + 1];
		s += 100 * (b - a * a) * (b - a * a) + (1 - a) * (1 - a);
	}
	return s;
}

/*
 * mixed4: rate r = 10^(-5 + 5 u0), layers 1 + floor(8 u1), choice
 * floor(3 u2), dropout 0.8 u3; with a = log10 r + 3.2 and b = layers - 3,
 * 0.5 a^2 + 0.08 b^2 + 0.1 a b (positive definite) + the choice's penalty
 * (0.4, 0, 0.7) + 3 (dropout - 0.15)^2.
 */
static double mixed(const double *u)
{
	static const double pen[3] = {0.4, 0, 0.7};
	double a = -5 + 5 * u[0] + 3.2, b = fmin(floor(8 * u[1]), 7) + 1 - 3,
	       d = 0.8 * u[3] - 0.15;
	int c = (int)fmin(floor(3 * u[2]), 2);

	return 0.5 * a * a + 0.08 * b * b + 0.1 * a * b + pen[c] + 3 * d * d;
}

int benchfn_choices(const struct benchfn *f, int d)
{
	if (f->kind == BENCHFN_COUNTINGONES)
		return d < f->n ? 2 : 0;
	return f->kind == BENCHFN_MIXED && d == 2 ? 3 : 0;
}

double benchfn_loss(const struct benchfn *f, const double *u, double b,
		    struct rng *r)
{
	double s, sum = 0;
	int i;

	if (b < f->min_budget)
		b = f->min_budget;
	if (b > f->max_budget)
		b = f->max_budget;
	switch (f->kind) {
	case BENCHFN_BRANIN:
		s = fid_s(f, b);
		return branin(u, s) + sqrt(0.05) * (1 - s) * rng_normal(r);
	case BENCHFN_HARTMANN6:
		s = fid_s(f, b);
		return hartmann6(u, s) + 0.1 * (1 - s) * fabs(rng_normal(r));
	case BENCHFN_LEVY:
	case BENCHFN_ROSENBROCK:
	case BENCHFN_MIXED:
		s = fid_s(f, b);
		return benchfn_true_loss(f, u) *
		       (1 + 0.2 * (1 - s) * rng_normal(r));
	case BENCHFN_COUNTINGONES:
	default: {
		long n = (long)floor(b + 1e-6), k, hits;

		for (i = 0; i < f->n; i++)
			sum += u[i] >= 0.5 ? 1 : 0;
		for (i = 0; i < f->n; i++) {
			double p = u[f->n + i];

			for (hits = 0, k = 0; k < n; k++)
				hits += rng_uniform(r) < p;
			sum += n > 0 ? (double)hits / (double)n : 0;
		}
		return -sum;
	}
	}
}

double benchfn_true_loss(const struct benchfn *f, const double *u)
{
	double sum = 0;
	int i;

	switch (f->kind) {
	case BENCHFN_BRANIN:
		return branin(u, 1);
	case BENCHFN_HARTMANN6:
		return hartmann6(u, 1);
	case BENCHFN_LEVY:
		return levy(u, f->n);
	case BENCHFN_ROSENBROCK:
		return rosenbrock(u, f->n);
	case BENCHFN_MIXED:
		return mixed(u);
	case BENCHFN_COUNTINGONES:
	default:
		for (i = 0; i < f->n; i++)
			sum += (u[i] >= 0.5 ? 1 : 0) + u[f->n + i];
		return -sum;
	}
}

double benchfn_optimum(const struct benchfn *f)
{
	switch (f->kind) {
	case BENCHFN_BRANIN:
		return 0.397887357729738; /* 5 / (4 pi) */
	case BENCHFN_HARTMANN6:
		return -3.322368011415513;
	case BENCHFN_LEVY:
	case BENCHFN_ROSENBROCK:
	case BENCHFN_MIXED:
		return 0;
	case BENCHFN_COUNTINGONES:
	default:
		return -(double)f->dim;
	}
}

double benchfn_regret(const struct benchfn *f, const double *u)
{
	double r = benchfn_true_loss(f, u) - benchfn_optimum(f);

	return f->kind == BENCHFN_COUNTINGONES ? r / f->dim : r;
}
