/*
 * prior.c - the transfer prior: per-task psi and the MLP fit (prior.h)
 */
#include "prior.h"

#include "copula.h"
#include "err.h"
#include "jsonbuf.h"
#include "mlp.h"
#include "rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct prior {
	int dim;
	struct mlp *net;
	int ntasks;	  /* earlier tasks */
	size_t ntransfer; /* their results */
};

/* Validate the tasks; the total number of observations into *tot. */
static int check(const struct prior_tasks *t, int dim, size_t *tot, char *err)
{
	size_t i, at = 0;
	int k;

	if (t->ntasks < 1)
		return dehbq_errf(err, DEHBQ_EINVAL, "transfer: no task");
	for (k = 0; k < t->ntasks; k++) {
		if (!t->n[k])
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "transfer: task %d has no result", k);
		for (i = at; i < at + t->n[k]; i++) {
			int d;

			if (isnan(t->y[i]))
				return dehbq_errf(err, DEHBQ_EINVAL,
						  "transfer: task %d: a NaN "
						  "loss",
						  k);
			for (d = 0; d < dim; d++)
				if (!(t->x[i * (size_t)dim + (size_t)d] >= 0 &&
				      t->x[i * (size_t)dim + (size_t)d] <= 1))
					return dehbq_errf(
						err, DEHBQ_EINVAL,
						"transfer: task %d: a vector "
						"outside the unit cube",
						k);
		}
		at += t->n[k];
	}
	*tot = at;
	return DEHBQ_OK;
}

int prior_fit(const struct prior_tasks *t, int dim, uint64_t seed, int steps,
	      struct prior **out, char *err)
{
	struct mlp_params mp;
	struct prior *p;
	struct rng r;
	double *z = NULL, *w = NULL;
	size_t tot = 0, at = 0, i;
	int k, rc;

	*out = NULL;
	if ((rc = check(t, dim, &tot, err)))
		return rc;
	if (!(p = calloc(1, sizeof(*p))) ||
	    !(z = malloc(tot * sizeof(double))) ||
	    !(w = malloc(tot * sizeof(double)))) {
		rc = DEHBQ_ENOMEM;
		goto out;
	}
	p->dim = dim;
	p->ntasks = t->ntasks;
	p->ntransfer = tot;
	for (k = 0; k < t->ntasks; k++) { /* psi per task, weight 1 / n */
		if ((rc = copula_psi(&t->y[at], t->n[k], &z[at])))
			goto out;
		for (i = at; i < at + t->n[k]; i++)
			w[i] = 1.0 / (double)t->n[k];
		at += t->n[k];
	}
	mlp_default_params(&mp);
	mp.steps = steps;
	rng_seed(&r, seed ^ 0x7072696f72ull); /* "prior" */
	if (!(rc = mlp_new(dim, &mp, &r, &p->net)))
		rc = mlp_train(p->net, t->x, z, w, tot, &r);
out:
	free(z);
	free(w);
	if (rc) {
		prior_free(p);
		return rc == DEHBQ_ENOMEM ? dehbq_errf(err, rc, "out of memory")
					  : dehbq_errf(err, rc,
						       "transfer: the prior "
						       "cannot be fitted");
	}
	*out = p;
	return DEHBQ_OK;
}

void prior_free(struct prior *p)
{
	if (!p)
		return;
	mlp_free(p->net);
	free(p);
}

int prior_predict(const struct prior *p, const double *x, size_t n, double *mu,
		  double *sigma)
{
	return mlp_predict(p->net, x, n, mu, sigma);
}

int prior_rmse(const struct prior *p, const double *x, const double *y,
	       size_t n, int centred, double *rmse)
{
	double *z, *mu, *sg, s = 0, m = 0, zm = 0, zs = 0;
	size_t i;
	int rc;

	if (!n)
		return DEHBQ_EINVAL;
	z = malloc(n * sizeof(double));
	mu = malloc(n * sizeof(double));
	sg = malloc(n * sizeof(double));
	rc = z && mu && sg ? DEHBQ_OK : DEHBQ_ENOMEM;
	if (!rc && !(rc = copula_psi(y, n, z)) &&
	    !(rc = prior_predict(p, x, n, mu, sg))) {
		for (i = 0; centred && i < n; i++)
			m += (z[i] - mu[i]) / (double)n;
		for (i = 0; i < n; i++)
			s += (z[i] - mu[i] - m) * (z[i] - mu[i] - m);
		*rmse = sqrt(s / (double)n);
		for (i = 0; centred && i < n; i++)
			zm += z[i] / (double)n;
		for (i = 0; centred && i < n; i++)
			zs += (z[i] - zm) * (z[i] - zm) / (double)n;
		if (centred && zs > 0)
			*rmse /= sqrt(zs);
	}
	free(z);
	free(mu);
	free(sg);
	return rc;
}

double prior_snap(double u, int K)
{
	return K > 1 ? (floor(fmin(u * K, K - 1)) + 0.5) / K : u;
}

void prior_uniform(struct rng *r, const int *choices, int dim, size_t n,
		   double *x)
{
	size_t i, d = (size_t)dim;

	for (i = 0; i < n * d; i++) {
		int K = choices ? choices[i % d] : 0;
		double u = rng_uniform(r);

		x[i] = prior_snap(u, K);
	}
}

int prior_thompson(const struct prior *p, struct rng *r, const int *choices,
		   int dim, int ncand, double *vec)
{
	size_t i, best = 0, d = (size_t)dim, n = (size_t)ncand;
	double *cand = malloc(n * d * sizeof(double));
	double *mu = malloc(n * sizeof(double)),
	       *sg = malloc(n * sizeof(double));
	double bz = INFINITY;
	int rc = cand && mu && sg ? DEHBQ_OK : DEHBQ_ENOMEM;

	if (!rc) {
		prior_uniform(r, choices, dim, n, cand);
		rc = prior_predict(p, cand, n, mu, sg);
	}
	for (i = 0; !rc && i < n; i++) {
		double z = mu[i] + sg[i] * rng_normal(r);

		if (z < bz) {
			bz = z;
			best = i;
		}
	}
	if (!rc)
		memcpy(vec, &cand[best * d], d * sizeof(double));
	free(cand);
	free(mu);
	free(sg);
	return rc;
}

int prior_obs_add(struct prior_obs *o, const double *x, double y)
{
	if (o->n == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 64;
		double *nx =
			realloc(o->x, cap * (size_t)o->dim * sizeof(double));
		double *ny;

		if (!nx)
			return DEHBQ_ENOMEM;
		o->x = nx;
		if (!(ny = realloc(o->y, cap * sizeof(double))))
			return DEHBQ_ENOMEM;
		o->y = ny;
		o->cap = cap;
	}
	memcpy(&o->x[o->n * (size_t)o->dim], x,
	       (size_t)o->dim * sizeof(double));
	o->y[o->n++] = y;
	return DEHBQ_OK;
}

void prior_obs_free(struct prior_obs *o)
{
	free(o->x);
	free(o->y);
	o->x = o->y = NULL;
	o->n = o->cap = 0;
}

int prior_describe(const struct prior *p, const struct prior_obs *o,
		   struct jsonbuf *b)
{
	double rmse;

	jsonbuf_printf(b, "\"transfer_tasks\":%d,\"transfer_results\":%zu",
		       p->ntasks, p->ntransfer);
	jsonbuf_puts(b, ",\"prior_rmse\":");
	if (o->n && !prior_rmse(p, o->x, o->y, o->n, 1, &rmse))
		jsonbuf_num(b, rmse);
	else
		jsonbuf_puts(b, "null");
	return jsonbuf_failed(b);
}
