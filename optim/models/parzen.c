/*
 * parzen.c - owns the joint Parzen estimator of multivariate TPE
 * (parzen.h): its bandwidth, draws and log density
 *
 * Invariants: a density sums its components in log space (the largest
 * term so far factored out), so that thousands of points in six dimensions do
 * not underflow; a truncated normal is drawn by rejection, clipped after
 * PARZEN_TN_TRIES draws (as search_tpe.c's univariate estimators).
 */
#include "parzen.h"

#include "normal.h"
#include "rng.h"

#include <math.h>

#define PARZEN_TN_TRIES	   64
#define PARZEN_LOG_SQRT2PI 0.91893853320467274178 /* log sqrt(2 pi) */

double parzen_bandwidth(size_t m, int dim)
{
	double n = m ? (double)m : 1.0, lo = 1.0 / fmin(100.0, m + 2.0),
	       s = 0.2 * pow(n, -1.0 / (dim + 4.0));

	return fmin(fmax(s, lo), 1.0);
}

static int kind(const struct parzen *p, int d)
{
	return p->choices && p->choices[d] > 1 ? p->choices[d] : 0;
}

/* Component i's mean in dimension d (the prior's: 0.5). */
static double mean(const struct parzen *p, size_t i, int d)
{
	return i < p->m ? p->x[p->set[i] * (size_t)p->dim + (size_t)d] : 0.5;
}

static int bin(double v, int K)
{
	int b = (int)floor(v * K);

	return b < 0 ? 0 : b < K ? b : K - 1;
}

void parzen_fit(struct parzen *p)
{
	size_t i;
	int d;

	for (i = 0; i <= p->m; i++)
		for (d = 0; d < p->dim; d++) {
			double mu = mean(p, i, d),
			       sg = i < p->m ? p->sigma : 1.0,
			       mass = normal_cdf((1 - mu) / sg) -
				      normal_cdf(-mu / sg);

			p->lognorm[i * (size_t)p->dim + (size_t)d] =
				log(sg * fmax(mass, 1e-300));
		}
}

void parzen_sample(const struct parzen *p, struct rng *r, double *v)
{
	double u = rng_uniform(r), c = 0;
	size_t i;
	int d, k;

	for (i = 0; i < p->m; i++) { /* the component, by weight */
		c += p->w[i];
		if (u < c)
			break;
	}
	for (d = 0; d < p->dim; d++) {
		int K = kind(p, d);
		double mu = mean(p, i, d), sg = i < p->m ? p->sigma : 1.0, x;

		if (K) { /* the point's bin with 1 / (K c + 1), else any */
			int b = i < p->m && rng_uniform(r) * (K * p->cat + 1) <
							1
					? bin(mu, K)
					: (int)(rng_uniform(r) * K);

			v[d] = ((b < K ? b : K - 1) + 0.5) / K;
			continue;
		}
		x = mu;
		for (k = 0; k < PARZEN_TN_TRIES; k++) {
			x = mu + sg * rng_normal(r);
			if (x >= 0 && x <= 1)
				break;
		}
		v[d] = fmin(fmax(x, 0), 1);
	}
}

/* log of component i's kernel at v, without its weight. */
static double component(const struct parzen *p, size_t i, const double *v)
{
	double s = 0;
	int d;

	for (d = 0; d < p->dim; d++) {
		int K = kind(p, d);
		double mu = mean(p, i, d), z;

		if (K) {
			double hit = i < p->m && bin(v[d], K) == bin(mu, K);

			s += i < p->m ? log((p->cat + hit) / (K * p->cat + 1))
				      : -log((double)K);
			continue;
		}
		z = (v[d] - mu) / (i < p->m ? p->sigma : 1.0);
		s += -0.5 * z * z - PARZEN_LOG_SQRT2PI -
		     p->lognorm[i * (size_t)p->dim + (size_t)d];
	}
	return s;
}

double parzen_log_density(const struct parzen *p, const double *v)
{
	double top = -INFINITY, sum = 0, t;
	size_t i;

	for (i = 0; i <= p->m; i++) { /* log-sum-exp in one pass */
		if (!(p->w[i] > 0))
			continue;
		t = log(p->w[i]) + component(p, i, v);
		if (t == -INFINITY) /* a kernel that gives v nothing */
			continue;
		if (t > top) {
			sum = sum * exp(top - t) + 1;
			top = t;
		} else {
			sum += exp(t - top);
		}
	}
	return top == -INFINITY ? -INFINITY : top + log(sum);
}
