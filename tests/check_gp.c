/*
 * check_gp.c - the Gaussian process model: the likelihood's gradient and
 * the posterior's gradients against finite differences, interpolation of
 * noise-free data, a fit that finds the one relevant dimension, joint
 * draws, and refused hyperparameters; the slice sampler's moments, EI
 * averaged over models (EI-MCMC), and the hyperprior
 */
#include "copula.h"
#include "err.h"
#include "acq.h"
#include "gp.h"
#include "normal.h"
#include "rng.h"
#include "slice.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N 40
#define D 3

static double f3(const double *x)
{
	return sin(6 * x[0]) + 0.5 * x[1] * x[1]; /* x[2] is irrelevant */
}

static void data(double *x, double *y, size_t n, uint64_t seed)
{
	struct rng r;
	size_t i;
	int d;

	rng_seed(&r, seed);
	for (i = 0; i < n; i++) {
		for (d = 0; d < D; d++)
			x[i * D + d] = rng_uniform(&r);
		y[i] = f3(x + i * D);
	}
}

START_TEST(test_gp_nll_gradient_matches_differences)
{
	static const int choices[D] = {0, 0, 4};
	double x[N * D], y[N], th[D + 2], g[D + 2];
	struct gp *gp;
	int j;

	data(x, y, N, 1);
	ck_assert_int_eq(gp_new(D, choices, &gp), DEHBQ_OK);
	th[0] = log(1.7), th[1] = log(0.6), th[2] = log(2.2);
	th[3] = log(0.8), th[4] = log(1e-2);
	ck_assert_int_eq(gp_set_theta(gp, th), DEHBQ_OK);
	ck_assert_int_eq(gp_condition(gp, x, y, N), DEHBQ_OK);
	ck_assert_int_eq(gp_nll_grad(gp, g), DEHBQ_OK);
	for (j = 0; j < D + 2; j++) {
		double h = 1e-6, up, dn, fd;

		th[j] += h;
		gp_set_theta(gp, th);
		gp_condition(gp, x, y, N);
		up = gp_nll(gp);
		th[j] -= 2 * h;
		gp_set_theta(gp, th);
		gp_condition(gp, x, y, N);
		dn = gp_nll(gp);
		th[j] += h;
		fd = (up - dn) / (2 * h);
		ck_assert_msg(fabs(fd - g[j]) <= 1e-5 * fmax(1, fabs(fd)),
			      "theta[%d]: analytic %.9g, differences %.9g", j,
			      g[j], fd);
	}
	gp_free(gp);
}
END_TEST

START_TEST(test_gp_posterior_gradient_and_interpolation)
{
	double x[N * D], y[N], mu[N], var[N], p[D], dmu[D], dvar[D];
	struct gp *gp;
	int i, d;

	data(x, y, N, 2);
	ck_assert_int_eq(gp_new(D, NULL, &gp), DEHBQ_OK);
	ck_assert_int_eq(gp_predict(gp, x, 1, mu, var), DEHBQ_ESTATE);
	{
		double th[D + 2] = {log(3), log(2), log(0.5), 0, log(1e-8)};

		ck_assert_int_eq(gp_set_theta(gp, th), DEHBQ_OK);
	}
	ck_assert_int_eq(gp_condition(gp, x, y, N), DEHBQ_OK);
	/* noise-free data: the mean goes through it, the variance vanishes */
	ck_assert_int_eq(gp_predict(gp, x, N, mu, var), DEHBQ_OK);
	for (i = 0; i < N; i++) {
		ck_assert_msg(fabs(mu[i] - y[i]) < 1e-4, "point %d", i);
		ck_assert(var[i] >= 0 && var[i] < 1e-4);
	}
	p[0] = 0.31, p[1] = 0.72, p[2] = 0.45;
	ck_assert_int_eq(gp_predict_grad(gp, p, mu, var, dmu, dvar), DEHBQ_OK);
	for (d = 0; d < D; d++) {
		double h = 1e-6, mu1, v1, mu2, v2, q[D] = {p[0], p[1], p[2]};

		q[d] = p[d] + h;
		gp_predict(gp, q, 1, &mu1, &v1);
		q[d] = p[d] - h;
		gp_predict(gp, q, 1, &mu2, &v2);
		ck_assert_msg(fabs((mu1 - mu2) / (2 * h) - dmu[d]) < 1e-5,
			      "dmu[%d]", d);
		ck_assert_msg(fabs((v1 - v2) / (2 * h) - dvar[d]) < 1e-5,
			      "dvar[%d]", d);
	}
	/* the batch and the single-point paths agree */
	{
		double m1, v1;

		gp_predict(gp, p, 1, &m1, &v1);
		ck_assert(fabs(m1 - mu[0]) < 1e-12 &&
			  fabs(v1 - var[0]) < 1e-12);
	}
	gp_free(gp);
}
END_TEST

START_TEST(test_gp_fit_finds_the_relevant_dimensions)
{
	struct gp_fit_params fp = {5, 500, 1e-6, 0};
	double x[100 * D], y[100], th[D + 2], th2[D + 2], before;
	struct gp *gp, *gp2;
	struct rng r, r2;

	data(x, y, 100, 3);
	ck_assert_int_eq(gp_new(D, NULL, &gp), DEHBQ_OK);
	ck_assert_int_eq(gp_condition(gp, x, y, 100), DEHBQ_OK);
	before = gp_nll(gp);
	rng_seed(&r, 7);
	ck_assert_int_eq(gp_fit(gp, x, y, 100, &r, &fp), DEHBQ_OK);
	ck_assert_msg(gp_nll(gp) < before - 10, "nll %g, was %g", gp_nll(gp),
		      before);
	gp_get_theta(gp, th);
	/* x[2] does not matter: its inverse lengthscale is the smallest */
	ck_assert_msg(th[2] < th[0] - 1 && th[2] < th[1] - 1,
		      "log eta %g %g %g", th[0], th[1], th[2]);
	ck_assert(exp(th[D + 1]) < 1e-2); /* noise-free data, little noise */
	/* the same inputs and stream give the same fit, bit for bit */
	ck_assert_int_eq(gp_new(D, NULL, &gp2), DEHBQ_OK);
	rng_seed(&r2, 7);
	ck_assert_int_eq(gp_fit(gp2, x, y, 100, &r2, &fp), DEHBQ_OK);
	gp_get_theta(gp2, th2);
	ck_assert_mem_eq(th, th2, sizeof(th));
	gp_free(gp);
	gp_free(gp2);
}
END_TEST

/*
 * The hyperprior (gp_prior_nll): its gradient matches central
 * differences, it is least at the Gamma priors' modes (lengthscale
 * (a - 1) / b = 1/3, s2 = 1 / 0.15, sn2 = 0.1 / 0.05), and a MAP fit of
 * three points keeps every inverse lengthscale inside the box, where
 * the likelihood alone (the same points and stream) runs one to its edge.
 */
START_TEST(test_gp_prior_gradient_modes_and_map)
{
	double th[D + 2] = {0.3, -1.2, 2.0, 1.1, -4.0}, g[D + 2] = {0},
		      m[D + 2], lo[D + 2], hi[D + 2], x[3 * D], y[3], t2[D + 2];
	struct gp_fit_params ml = {3, 500, 1e-6, 0}, map = {3, 500, 1e-6, 1};
	struct gp *gp;
	struct rng r;
	int j, k, edge;

	gp_prior_nll(D, th, g);
	for (j = 0; j < D + 2; j++) {
		double a[D + 2], b[D + 2], h = 1e-6, fd;

		memcpy(a, th, sizeof(th));
		memcpy(b, th, sizeof(th));
		a[j] += h;
		b[j] -= h;
		fd = (gp_prior_nll(D, a, NULL) - gp_prior_nll(D, b, NULL)) /
		     (2 * h);
		ck_assert_msg(fabs(fd - g[j]) < 1e-6, "d%d %g vs %g", j, g[j],
			      fd);
	}
	for (j = 0; j < D; j++)
		m[j] = log(3.0);
	m[D] = log(1 / 0.15);
	m[D + 1] = log(2.0);
	for (j = 0; j < D + 2; j++) {
		double a[D + 2], b[D + 2];

		memcpy(a, m, sizeof(m));
		memcpy(b, m, sizeof(m));
		a[j] += 0.01;
		b[j] -= 0.01;
		ck_assert(gp_prior_nll(D, a, NULL) > gp_prior_nll(D, m, NULL));
		ck_assert(gp_prior_nll(D, b, NULL) > gp_prior_nll(D, m, NULL));
	}
	data(x, y, 3, 5);
	gp_theta_box(D, lo, hi);
	for (k = 0; k < 2; k++) {
		ck_assert_int_eq(gp_new(D, NULL, &gp), DEHBQ_OK);
		rng_seed(&r, 11);
		ck_assert_int_eq(gp_fit(gp, x, y, 3, &r, k ? &map : &ml),
				 DEHBQ_OK);
		gp_get_theta(gp, t2);
		for (j = 0, edge = 0; j < D; j++)
			edge |= t2[j] < lo[j] + 0.01 || t2[j] > hi[j] - 0.01;
		ck_assert_msg(edge == !k, "%s: log eta %g %g %g",
			      k ? "MAP" : "ML", t2[0], t2[1], t2[2]);
		gp_free(gp);
	}
}
END_TEST

START_TEST(test_gp_joint_sample)
{
	double x[N * D], y[N], xs[50 * D], mu[50], var[50], s[50];
	double sum[50] = {0}, sq[50] = {0};
	struct gp *gp;
	struct rng r;
	int i, k;

	data(x, y, N, 4);
	data(xs, s, 50, 5);
	ck_assert_int_eq(gp_new(D, NULL, &gp), DEHBQ_OK);
	ck_assert_int_eq(gp_condition(gp, x, y, N), DEHBQ_OK);
	ck_assert_int_eq(gp_predict(gp, xs, 50, mu, var), DEHBQ_OK);
	rng_seed(&r, 9);
	for (k = 0; k < 400; k++) {
		ck_assert_int_eq(gp_sample(gp, xs, 50, &r, s), DEHBQ_OK);
		for (i = 0; i < 50; i++) {
			sum[i] += s[i];
			sq[i] += (s[i] - mu[i]) * (s[i] - mu[i]);
		}
	}
	/* the draws' mean and spread match the marginal posterior */
	for (i = 0; i < 50; i++) {
		double sd = sqrt(var[i]) + 1e-3;

		ck_assert_msg(fabs(sum[i] / 400 - mu[i]) < 0.25 * sd + 1e-3,
			      "point %d: mean %g, posterior %g", i,
			      sum[i] / 400, mu[i]);
		ck_assert_msg(sqrt(sq[i] / 400) < 1.3 * sd &&
				      sqrt(sq[i] / 400) > 0.7 * sd - 1e-3,
			      "point %d: spread %g, posterior %g", i,
			      sqrt(sq[i] / 400), sd);
	}
	gp_free(gp);
}
END_TEST

/*
 * The confidence bound: with kappa 0 the candidate of least posterior
 * mean, with a large kappa the one of largest variance (an acq_space that
 * lists no continuous dimension skips the refinement, so the candidate
 * itself is asked); kappa grows with the candidates and the step, as
 * Srinivas et al.'s beta_t.
 */
START_TEST(test_acq_lcb_trades_mean_for_spread)
{
	double x[N * D], y[N], xs[60 * D], s[60], mu[60], var[60], v[D];
	struct acq_space sp = {D, NULL, 0};
	struct gp *gp;
	int i, lo = 0, hi = 0;

	data(x, y, N, 4);
	data(xs, s, 60, 6);
	ck_assert_int_eq(gp_new(D, NULL, &gp), DEHBQ_OK);
	ck_assert_int_eq(gp_condition(gp, x, y, N), DEHBQ_OK);
	ck_assert_int_eq(gp_predict(gp, xs, 60, mu, var), DEHBQ_OK);
	for (i = 1; i < 60; i++) {
		lo = mu[i] < mu[lo] ? i : lo;
		hi = var[i] > var[hi] ? i : hi;
	}
	ck_assert_int_eq(acq_lcb(gp, xs, 60, &sp, 0, v), DEHBQ_OK);
	ck_assert(v[0] == xs[lo * D] && v[1] == xs[lo * D + 1]);
	ck_assert_int_eq(acq_lcb(gp, xs, 60, &sp, 1e6, v), DEHBQ_OK);
	ck_assert(v[0] == xs[hi * D] && v[1] == xs[hi * D + 1]);
	ck_assert_double_eq_tol(
		acq_ucb_kappa(100, 3),
		sqrt(2 * log(100 * 9 * M_PI * M_PI / (6 * ACQ_UCB_DELTA)) /
		     ACQ_UCB_SCALE),
		1e-12);
	ck_assert(acq_ucb_kappa(100, 10) > acq_ucb_kappa(100, 3));
	gp_free(gp);
}
END_TEST

/*
 * Local penalisation: a job in flight at EI's own choice, whose mean lies
 * well above the best (r = 1 with L = 10: a ball of radius 0.1, edge
 * sd 0.01), sends the next ask out of that ball; with r = 0 and a wide
 * edge it only discourages, and no penalty at all (np = 0) is EI's
 * choice.  The refinement runs (both dimensions continuous), so the
 * penalised gradient is used.
 */
START_TEST(test_acq_ei_pen_keeps_out_of_the_ball)
{
	static const int cont[D] = {0, 1, 2};
	double x[N * D], y[N], xs[200 * D], s[200], v0[D], v[D], ymin = 1e300;
	double r = 1, sd = 0.01, d = 0, L;
	struct acq_space sp = {D, cont, D};
	struct acq_pen pen = {v0, &r, &sd, 1, 10};
	struct gp *gp;
	int i;

	data(x, y, N, 4);
	data(xs, s, 200, 9);
	for (i = 0; i < N; i++)
		ymin = fmin(ymin, y[i]);
	ck_assert_int_eq(gp_new(D, NULL, &gp), DEHBQ_OK);
	ck_assert_int_eq(gp_condition(gp, x, y, N), DEHBQ_OK);
	ck_assert_int_eq(acq_ei(gp, xs, 200, &sp, ymin, v0), DEHBQ_OK);
	ck_assert_int_eq(acq_ei_pen(gp, xs, 200, &sp, ymin, &pen, v), DEHBQ_OK);
	for (i = 0; i < D; i++)
		d += (v[i] - v0[i]) * (v[i] - v0[i]);
	ck_assert_msg(sqrt(d) > 0.09, "%g from the job in flight", sqrt(d));
	pen.np = 0;
	ck_assert_int_eq(acq_ei_pen(gp, xs, 200, &sp, ymin, &pen, v), DEHBQ_OK);
	ck_assert(!memcmp(v, v0, sizeof(v)));
	ck_assert_int_eq(acq_lipschitz(gp, xs, 200, D, &L), DEHBQ_OK);
	ck_assert(L > 0 && isfinite(L));
	/* the gradient it climbs is the value's, at a point on the ball's
	 * edge, where the penaliser's slope counts most */
	pen.np = 1;
	r = 0.5;
	sd = 0.2;
	for (i = 0; i < D; i++)
		v[i] = fmin(fmax(v0[i] + (i ? 0.01 : 0.05), 0), 1);
	{
		double g[D], e = acq_ei_pen_at(gp, &sp, ymin, &pen, v, g);

		ck_assert(e > 0);
		for (i = 0; i < D; i++) {
			double a[D], b[D], h = 1e-6;

			memcpy(a, v, sizeof(a));
			memcpy(b, v, sizeof(b));
			a[i] += h;
			b[i] -= h;
			ck_assert_double_eq_tol(
				g[i],
				(acq_ei_pen_at(gp, &sp, ymin, &pen, a, NULL) -
				 acq_ei_pen_at(gp, &sp, ymin, &pen, b, NULL)) /
					(2 * h),
				1e-5 * fmax(1, fabs(g[i])));
		}
	}
	gp_free(gp);
}
END_TEST

/* A Gaussian of correlation rho in 2-D (1-D: n 1), and a flat density. */
static double gauss_logp(const double *x, int n, void *ctx)
{
	double rho = *(const double *)ctx;

	if (n == 1)
		return -0.5 * x[0] * x[0];
	return -(x[0] * x[0] - 2 * rho * x[0] * x[1] + x[1] * x[1]) /
	       (2 * (1 - rho * rho));
}

static double flat_logp(const double *x, int n, void *ctx)
{
	(void)x;
	(void)n;
	(void)ctx;
	return 0;
}

/*
 * Slice sampling leaves the density invariant: 20000 sweeps of a standard
 * normal give mean 0 and variance 1, of a correlated pair correlation 0.9
 * (within a few standard errors, for this seed: deterministic), of a flat
 * density on [2, 3] mean 2.5 and variance 1/12, never leaving the box; a
 * start outside the box or of density -inf is refused.
 */
START_TEST(test_slice_sampler_moments)
{
	static const double lo[2] = {-10, -10}, hi[2] = {10, 10}, w[2] = {1, 1},
			    flo[1] = {2}, fhi[1] = {3};
	struct slice_box b1 = {1, lo, hi, w}, b2 = {2, lo, hi, w},
			 bf = {1, flo, fhi, w};
	double rho = 0.9, x[2] = {0, 0}, lp, m[2] = {0, 0}, v[2] = {0, 0},
	       c = 0;
	struct rng r;
	long ev = 0;
	int i, n = 20000;

	rng_seed(&r, 11);
	lp = gauss_logp(x, 1, &rho);
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(
			slice_sweep(&b1, gauss_logp, &rho, &r, x, &lp, &ev),
			DEHBQ_OK);
		m[0] += x[0];
		v[0] += x[0] * x[0];
	}
	ck_assert_double_eq_tol(m[0] / n, 0, 0.05);
	ck_assert_double_eq_tol(v[0] / n, 1, 0.06);
	x[0] = x[1] = 0;
	m[0] = v[0] = 0;
	lp = gauss_logp(x, 2, &rho);
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(
			slice_sweep(&b2, gauss_logp, &rho, &r, x, &lp, &ev),
			DEHBQ_OK);
		m[0] += x[0];
		m[1] += x[1];
		v[0] += x[0] * x[0];
		v[1] += x[1] * x[1];
		c += x[0] * x[1];
	}
	ck_assert_double_eq_tol(c / sqrt(v[0] * v[1]), 0.9, 0.03);
	x[0] = 2.5;
	m[0] = v[0] = 0;
	lp = 0;
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(
			slice_sweep(&bf, flat_logp, NULL, &r, x, &lp, &ev),
			DEHBQ_OK);
		ck_assert(x[0] >= 2 && x[0] <= 3);
		m[0] += x[0];
		v[0] += (x[0] - 2.5) * (x[0] - 2.5);
	}
	ck_assert_double_eq_tol(m[0] / n, 2.5, 0.01);
	ck_assert_double_eq_tol(v[0] / n, 1.0 / 12, 0.005);
	x[0] = 4;
	ck_assert_int_eq(slice_sweep(&bf, flat_logp, NULL, &r, x, &lp, &ev),
			 DEHBQ_EINVAL);
	x[0] = 2.5;
	lp = -INFINITY;
	ck_assert_int_eq(slice_sweep(&bf, flat_logp, NULL, &r, x, &lp, &ev),
			 DEHBQ_EINVAL);
}
END_TEST

/*
 * EI averaged over models: over one model, or two copies of it, it is
 * acq_ei exactly; over two models of different lengthscales its choice
 * has the highest mean EI of the candidates (the refinement only adds),
 * which neither model's own choice has here.
 */
START_TEST(test_acq_ei_mean_over_models)
{
	static const int cont[D] = {0, 1, 2};
	struct acq_space sp = {D, cont, D};
	double x[12 * D], y[12], cand[300 * D], th[D + 2], a[D], b[D], c[D];
	double mu[2][300], var[2][300], best = -1, at = 0, ymin = INFINITY;
	struct gp *g[2];
	struct rng r;
	int i, k;

	data(x, y, 12, 5);
	for (i = 0; i < 12; i++)
		ymin = fmin(ymin, y[i]);
	rng_seed(&r, 9);
	for (i = 0; i < 300 * D; i++)
		cand[i] = rng_uniform(&r);
	for (k = 0; k < 2; k++) {
		ck_assert_int_eq(gp_new(D, NULL, &g[k]), DEHBQ_OK);
		gp_default_theta(D, th);
		for (i = 0; i < D; i++)
			th[i] = k ? 2.5 : -1; /* short and long lengthscales */
		ck_assert_int_eq(gp_set_theta(g[k], th), DEHBQ_OK);
		ck_assert_int_eq(gp_condition(g[k], x, y, 12), DEHBQ_OK);
		ck_assert_int_eq(gp_predict(g[k], cand, 300, mu[k], var[k]),
				 DEHBQ_OK);
	}
	ck_assert_int_eq(acq_ei(g[0], cand, 300, &sp, ymin, a), DEHBQ_OK);
	ck_assert_int_eq(acq_ei_mean(g, 1, cand, 300, &sp, ymin, b), DEHBQ_OK);
	ck_assert_mem_eq(a, b, sizeof(a));
	{
		struct gp *twice[2] = {g[0], g[0]};

		ck_assert_int_eq(acq_ei_mean(twice, 2, cand, 300, &sp, ymin, b),
				 DEHBQ_OK);
		ck_assert_mem_eq(a, b, sizeof(a));
	}
	for (i = 0; i < 300; i++)
		best = fmax(best, (acq_ei_value(ymin, mu[0][i], var[0][i]) +
				   acq_ei_value(ymin, mu[1][i], var[1][i])) /
					  2);
	ck_assert_int_eq(acq_ei_mean(g, 2, cand, 300, &sp, ymin, c), DEHBQ_OK);
	ck_assert_int_eq(gp_predict(g[0], c, 1, &mu[0][0], &var[0][0]),
			 DEHBQ_OK);
	ck_assert_int_eq(gp_predict(g[1], c, 1, &mu[1][0], &var[1][0]),
			 DEHBQ_OK);
	at = (acq_ei_value(ymin, mu[0][0], var[0][0]) +
	      acq_ei_value(ymin, mu[1][0], var[1][0])) /
	     2;
	ck_assert_msg(at >= best - 1e-12, "mean EI %g, best candidate %g", at,
		      best);
	ck_assert_int_eq(acq_ei(g[1], cand, 300, &sp, ymin, b), DEHBQ_OK);
	ck_assert(memcmp(a, c, sizeof(a)) && memcmp(b, c, sizeof(b)));
	ck_assert_int_eq(acq_ei_mean(g, 0, cand, 300, &sp, ymin, c),
			 DEHBQ_EINVAL);
	gp_free(g[0]);
	gp_free(g[1]);
}
END_TEST

/* TRANSFER_SPEC: the sign under which a lower mean gives a higher EI. */
START_TEST(test_acq_ei_sign)
{
	ck_assert(acq_ei_value(0, -1, 1) > acq_ei_value(0, 0, 1));
	ck_assert(acq_ei_value(0, 0, 1) > acq_ei_value(0, 1, 1));
	ck_assert_double_eq_tol(acq_ei_value(0, 0, 1), 1 / sqrt(2 * M_PI),
				1e-12); /* v = 0: EI = phi(0) */
	ck_assert_double_eq_tol(acq_ei_value(0, -2, 0), 2, 1e-12);
	ck_assert(acq_ei_value(0, 0, 4) > acq_ei_value(0, 0, 1));
}
END_TEST

/*
 * Local candidates: every coordinate in [0, 1]; continuous ones a step
 * from one of the centres (sigma at most ACQ_LOCAL_SMAX, so within 5 of
 * it but for one draw in millions); a lone categorical one always redrawn
 * (probability 1 / 1), so it leaves its centre's value; no centre, no
 * candidate written.
 */
START_TEST(test_acq_local_around_centres)
{
	static const int cont[2] = {0, 2};
	static const double c0[3] = {0.1, 0.25, 0.9}, c1[3] = {0.7, 0.75, 0.4};
	const double *ctr[2] = {c0, c1};
	struct acq_space sp = {3, cont, 2};
	double cand[600 * 3], near = 0;
	struct rng r;
	int i, moved = 0, used[2] = {0, 0};

	rng_seed(&r, 3);
	for (i = 0; i < 600 * 3; i++)
		cand[i] = -1;
	acq_local(ctr, 0, &sp, &r, cand, 600);
	ck_assert(cand[0] == -1);
	acq_local(ctr, 2, &sp, &r, cand, 600);
	for (i = 0; i < 600; i++) {
		const double *v = cand + 3 * i;
		double d0 = fabs(v[0] - c0[0]) + fabs(v[2] - c0[2]),
		       d1 = fabs(v[0] - c1[0]) + fabs(v[2] - c1[2]);
		int k = d0 < d1 ? 0 : 1;

		ck_assert(v[0] >= 0 && v[0] <= 1 && v[1] >= 0 && v[1] < 1 &&
			  v[2] >= 0 && v[2] <= 1);
		ck_assert_msg(fmin(d0, d1) < 2 * 5 * ACQ_LOCAL_SMAX,
			      "candidate %d is %g from its centre", i,
			      fmin(d0, d1));
		used[k]++;
		near += fmin(d0, d1) / 600;
		moved += v[1] != ctr[k][1];
	}
	ck_assert_int_gt(used[0], 200);
	ck_assert_int_gt(used[1], 200);
	ck_assert_int_eq(moved, 600);
	ck_assert_msg(near < 0.15, "mean distance %g", near);
}
END_TEST

START_TEST(test_gp_refuses)
{
	double th[D + 2];
	struct gp *gp;

	ck_assert_int_eq(gp_new(0, NULL, &gp), DEHBQ_EINVAL);
	ck_assert_int_eq(gp_new(D, NULL, &gp), DEHBQ_OK);
	gp_default_theta(D, th);
	th[0] = log(1e3); /* eta above 100 */
	ck_assert_int_eq(gp_set_theta(gp, th), DEHBQ_EINVAL);
	gp_default_theta(D, th);
	th[D + 1] = NAN;
	ck_assert_int_eq(gp_set_theta(gp, th), DEHBQ_EINVAL);
	ck_assert_int_eq(gp_condition(gp, th, th, 0), DEHBQ_EINVAL);
	gp_free(gp);
}
END_TEST

/* psi by hand: y = 3, 1, 2, 2 (N = 4, delta = 0.0847...). */
START_TEST(test_copula_psi_by_hand)
{
	const double y[] = {3, 1, 2, 2, INFINITY}, d4 = copula_delta(4);
	double z[5], q;

	ck_assert(fabs(d4 - 1 / (4 * sqrt(2.0) * sqrt(M_PI * log(4.0)))) <
		  1e-15);
	ck_assert(copula_delta(1) == 0.25);
	ck_assert_int_eq(copula_psi(y, 4, z), DEHBQ_OK);
	normal_quantile(0.25, &q);
	ck_assert(fabs(z[1] - q) < 1e-12);		    /* F = 1/4 */
	ck_assert(fabs(z[2] - -q) < 1e-12 && z[2] == z[3]); /* ties: 3/4 */
	normal_quantile(1 - d4, &q);
	ck_assert(fabs(z[0] - q) < 1e-12); /* F = 1, clipped to 1 - delta */
	/* a failure takes 1 - delta too; the best value is clipped below */
	ck_assert_int_eq(copula_psi(y, 5, z), DEHBQ_OK);
	normal_quantile(1 - copula_delta(5), &q);
	ck_assert(z[4] == q && z[0] < q);
	ck_assert_int_eq(copula_psi(y, 0, z), DEHBQ_EINVAL);
	{
		const double bad[] = {1, NAN};

		ck_assert_int_eq(copula_psi(bad, 2, z), DEHBQ_EINVAL);
	}
}
END_TEST

Suite *gp_suite(void)
{
	Suite *s = suite_create("gp");
	TCase *c = tcase_create("core");

	tcase_set_timeout(c, 120); /* the fit, under the sanitizers */
	tcase_add_test(c, test_acq_ei_sign);
	tcase_add_test(c, test_slice_sampler_moments);
	tcase_add_test(c, test_acq_ei_mean_over_models);
	tcase_add_test(c, test_acq_ei_pen_keeps_out_of_the_ball);
	tcase_add_test(c, test_gp_nll_gradient_matches_differences);
	tcase_add_test(c, test_gp_posterior_gradient_and_interpolation);
	tcase_add_test(c, test_gp_fit_finds_the_relevant_dimensions);
	tcase_add_test(c, test_gp_joint_sample);
	tcase_add_test(c, test_gp_prior_gradient_modes_and_map);
	tcase_add_test(c, test_gp_refuses);
	tcase_add_test(c, test_acq_local_around_centres);
	tcase_add_test(c, test_acq_lcb_trades_mean_for_spread);
	tcase_add_test(c, test_copula_psi_by_hand);
	suite_add_tcase(s, c);
	return s;
}
