/*
 * check_mlp.c - the transfer prior's MLP: its gradient against finite
 * differences, a heteroscedastic fit (mean and spread both learnt),
 * task weights that balance unequal tasks, determinism from the seed,
 * and refused input; and DNGO's other half, Bayesian linear regression
 * (blr.h): a line recovered, and the evidence's maximum
 */
#include "blr.h"
#include "err.h"
#include "mlp.h"
#include "rng.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NPTS 400

static struct mlp *net(int din, uint64_t seed, int steps)
{
	struct mlp_params p;
	struct mlp *m;
	struct rng r;

	mlp_default_params(&p);
	p.steps = steps;
	rng_seed(&r, seed);
	ck_assert_int_eq(mlp_new(din, &p, &r, &m), DEHBQ_OK);
	return m;
}

/* z = sin(6x) + (0.05 + 0.5x) eps: both the mean and the spread vary. */
static void hetero(double *x, double *z, size_t n, uint64_t seed)
{
	struct rng r;
	size_t i;

	rng_seed(&r, seed);
	for (i = 0; i < n; i++) {
		x[i] = rng_uniform(&r);
		z[i] = sin(6 * x[i]) + (0.05 + 0.5 * x[i]) * rng_normal(&r);
	}
}

START_TEST(test_mlp_gradient_matches_differences)
{
	struct mlp *m = net(3, 1, 0);
	double x[20 * 3], z[20], w[20], *g, *th, l0, l1, l2;
	size_t np = mlp_nparams(m), k;
	struct rng r;
	int i, bad = 0;

	rng_seed(&r, 2);
	for (i = 0; i < 60; i++)
		x[i] = rng_uniform(&r);
	for (i = 0; i < 20; i++) {
		z[i] = rng_normal(&r);
		w[i] = 0.5 + rng_uniform(&r);
	}
	g = malloc(np * sizeof(*g));
	th = mlp_params_ptr(m);
	ck_assert_int_eq(mlp_loss_grad(m, x, z, w, 20, NULL, &l0, g), DEHBQ_OK);
	for (k = 0; k < np; k += 7) { /* every 7th parameter, heads too */
		double h = 1e-6, old = th[k], fd;

		th[k] = old + h;
		mlp_loss_grad(m, x, z, w, 20, NULL, &l1, NULL);
		th[k] = old - h;
		mlp_loss_grad(m, x, z, w, 20, NULL, &l2, NULL);
		th[k] = old;
		fd = (l1 - l2) / (2 * h);
		if (fabs(fd - g[k]) > 1e-5 + 1e-4 * fabs(fd))
			bad++; /* a ReLU kink inside +-h: rare */
	}
	ck_assert_msg(bad <= 2, "%d of %zu gradient entries off", bad,
		      np / 7 + 1);
	/* the last head bias (sigma's) too */
	k = np - 1;
	th[k] += 1e-6;
	mlp_loss_grad(m, x, z, w, 20, NULL, &l1, NULL);
	th[k] -= 2e-6;
	mlp_loss_grad(m, x, z, w, 20, NULL, &l2, NULL);
	th[k] += 1e-6;
	ck_assert_double_eq_tol((l1 - l2) / 2e-6, g[k], 1e-5);
	free(g);
	mlp_free(m);
}
END_TEST

START_TEST(test_mlp_learns_mean_and_spread)
{
	static double x[NPTS], z[NPTS];
	struct mlp *m = net(1, 3, 1000);
	double grid[9], mu[9], sg[9], se = 0;
	struct rng r;
	int i;

	hetero(x, z, NPTS, 4);
	rng_seed(&r, 5);
	ck_assert_int_eq(mlp_train(m, x, z, NULL, NPTS, &r), DEHBQ_OK);
	for (i = 0; i < 9; i++)
		grid[i] = 0.1 * (i + 1);
	ck_assert_int_eq(mlp_predict(m, grid, 9, mu, sg), DEHBQ_OK);
	/* where the noise is small the mean is tight; where it is large the
	 * NLL weighs the mean's errors by 1/sigma^2 and fits it more loosely
	 * (0.25 off at x = 0.8 with noise 0.45, 45 points per tenth) */
	for (i = 0; i < 4; i++)
		ck_assert_msg(fabs(mu[i] - sin(6 * grid[i])) < 0.12,
			      "mean %g at x = %g, want %g", mu[i], grid[i],
			      sin(6 * grid[i]));
	for (i = 0; i < 9; i++)
		se += (mu[i] - sin(6 * grid[i])) * (mu[i] - sin(6 * grid[i]));
	ck_assert_msg(sqrt(se / 9) < 0.25, "mean RMSE %g", sqrt(se / 9));
	/* the true spread goes from 0.10 at x = 0.1 to 0.50 at x = 0.9 */
	ck_assert_msg(sg[8] > 2.5 * sg[0] && sg[0] < 0.25 && sg[8] > 0.3,
		      "sigma %g at 0.1, %g at 0.9", sg[0], sg[8]);
	mlp_free(m);
}
END_TEST

/* Two tasks with the same inputs and opposite targets, 100 and 300
 * points: weighted 1/size each, the mean sits between them. */
START_TEST(test_mlp_task_weights_balance_sizes)
{
	static double x[NPTS], z[NPTS], w[NPTS];
	struct mlp *a = net(1, 6, 300), *b = net(1, 6, 300);
	double at = 0.5, mua, mub, s;
	struct rng r;
	int i;

	rng_seed(&r, 7);
	for (i = 0; i < NPTS; i++) {
		x[i] = rng_uniform(&r);
		z[i] = i < 100 ? 1 : -1;
		w[i] = i < 100 ? 1.0 / 100 : 1.0 / 300;
	}
	rng_seed(&r, 8);
	ck_assert_int_eq(mlp_train(a, x, z, w, NPTS, &r), DEHBQ_OK);
	rng_seed(&r, 8);
	ck_assert_int_eq(mlp_train(b, x, z, NULL, NPTS, &r), DEHBQ_OK);
	mlp_predict(a, &at, 1, &mua, &s);
	mlp_predict(b, &at, 1, &mub, &s);
	ck_assert_msg(fabs(mua) < 0.2, "weighted mean %g", mua);
	ck_assert_msg(mub < -0.3, "unweighted mean %g", mub);
	mlp_free(a);
	mlp_free(b);
}
END_TEST

START_TEST(test_mlp_deterministic_from_the_seed)
{
	static double x[NPTS], z[NPTS];
	struct mlp *a = net(1, 9, 200), *b = net(1, 9, 200),
		   *c = net(1, 10, 200);
	double grid[5] = {0.1, 0.3, 0.5, 0.7, 0.9}, ma[5], mb[5], mc[5], s[5];
	struct rng r;

	hetero(x, z, NPTS, 11);
	rng_seed(&r, 12);
	mlp_train(a, x, z, NULL, NPTS, &r);
	rng_seed(&r, 12);
	mlp_train(b, x, z, NULL, NPTS, &r);
	rng_seed(&r, 12);
	mlp_train(c, x, z, NULL, NPTS, &r);
	mlp_predict(a, grid, 5, ma, s);
	mlp_predict(b, grid, 5, mb, s);
	mlp_predict(c, grid, 5, mc, s);
	ck_assert(memcmp(ma, mb, sizeof(ma)) == 0);
	ck_assert(memcmp(ma, mc, sizeof(ma)) != 0); /* other initial weights */
	mlp_free(a);
	mlp_free(b);
	mlp_free(c);
}
END_TEST

START_TEST(test_mlp_refuses_bad_input)
{
	struct mlp_params p;
	struct mlp *m = net(2, 1, 10);
	double x[4] = {0, 1, NAN, 0}, z[2] = {0, 1}, w[2] = {1, -1};
	struct rng r;

	rng_seed(&r, 1);
	ck_assert_int_eq(mlp_train(m, x, z, NULL, 2, &r), DEHBQ_EINVAL);
	x[2] = 0.5;
	ck_assert_int_eq(mlp_train(m, x, z, w, 2, &r), DEHBQ_EINVAL);
	ck_assert_int_eq(mlp_train(m, x, z, NULL, 0, &r), DEHBQ_EINVAL);
	mlp_default_params(&p);
	p.dropout = 1;
	mlp_free(NULL); /* allowed */
	{
		struct mlp *bad;

		ck_assert_int_eq(mlp_new(2, &p, &r, &bad), DEHBQ_EINVAL);
		ck_assert_ptr_null(bad);
	}
	mlp_free(m);
}
END_TEST

/*
 * Bayesian linear regression on the basis (x, 1) of y = 2x + 1 plus a
 * little noise: the evidence picks a small noise (beta large), the mean
 * is the line, the variance grows away from the data, a second fit of
 * the same data is the same bit for bit, and nothing is predicted before
 * a fit.
 */
START_TEST(test_blr_recovers_a_line)
{
	double phi[30 * 2], y[30], q[2 * 2] = {0.5, 1, 5, 1}, mu[2], var[2],
					 mu2[2], var2[2], la, lb;
	struct blr *b, *c;
	int i;

	for (i = 0; i < 30; i++) {
		phi[2 * i] = i / 29.0;
		phi[2 * i + 1] = 1;
		y[i] = 2 * phi[2 * i] + 1 + 1e-3 * sin(7.0 * i);
	}
	ck_assert_int_eq(blr_new(2, &b), DEHBQ_OK);
	ck_assert_int_eq(blr_predict(b, q, 1, mu, var), DEHBQ_ESTATE);
	ck_assert_int_eq(blr_fit(b, phi, y, 30), DEHBQ_OK);
	ck_assert_int_eq(blr_predict(b, q, 2, mu, var), DEHBQ_OK);
	ck_assert_double_eq_tol(mu[0], 2.0, 1e-3);
	ck_assert_double_eq_tol(mu[1], 11.0, 1e-2);
	ck_assert(var[0] < 1e-4 && var[1] > var[0]);
	blr_hyper(b, &la, &lb);
	ck_assert_msg(lb > 10, "log beta %g", lb);
	ck_assert_int_eq(blr_new(2, &c), DEHBQ_OK);
	ck_assert_int_eq(blr_fit(c, phi, y, 30), DEHBQ_OK);
	ck_assert_int_eq(blr_predict(c, q, 2, mu2, var2), DEHBQ_OK);
	ck_assert_mem_eq(mu, mu2, sizeof(mu));
	ck_assert_mem_eq(var, var2, sizeof(var));
	ck_assert_int_eq(blr_fit(c, phi, y, 0), DEHBQ_EINVAL);
	blr_free(c);
	ck_assert_int_eq(blr_new(0, &c), DEHBQ_EINVAL);
	ck_assert_ptr_null(c);
	blr_free(b);
	blr_free(NULL);
}
END_TEST

/* The evidence of blr.h, written out for a basis of two functions. */
static double blr_evidence2(const double *phi, const double *y, int n,
			    double la, double lb)
{
	double a = exp(la), be = exp(lb), s00 = 0, s01 = 0, s11 = 0, c0 = 0,
	       c1 = 0, det, m0, m1, r2 = 0;
	int i;

	for (i = 0; i < n; i++) {
		s00 += phi[2 * i] * phi[2 * i];
		s01 += phi[2 * i] * phi[2 * i + 1];
		s11 += phi[2 * i + 1] * phi[2 * i + 1];
		c0 += phi[2 * i] * y[i];
		c1 += phi[2 * i + 1] * y[i];
	}
	s00 = a + be * s00;
	s11 = a + be * s11;
	s01 *= be;
	det = s00 * s11 - s01 * s01;
	m0 = be * (s11 * c0 - s01 * c1) / det;
	m1 = be * (s00 * c1 - s01 * c0) / det;
	for (i = 0; i < n; i++) {
		double e = y[i] - phi[2 * i] * m0 - phi[2 * i + 1] * m1;

		r2 += e * e;
	}
	return la + 0.5 * n * lb - 0.5 * be * r2 -
	       0.5 * a * (m0 * m0 + m1 * m1) - 0.5 * log(det) -
	       0.5 * n * log(2 * M_PI);
}

/*
 * blr_fit's alpha and beta maximise the evidence: on a line with little
 * and with much noise, no point of a grid over the search box has an
 * evidence (computed here from its definition) above the fit's.
 */
START_TEST(test_blr_maximises_the_evidence)
{
	static const double noise[] = {1e-3, 0.3};
	double phi[40 * 2], y[40], la, lb, at, top;
	struct blr *b;
	int i, k, ga, gb;

	for (k = 0; k < 2; k++) {
		for (i = 0; i < 40; i++) {
			phi[2 * i] = i / 39.0;
			phi[2 * i + 1] = 1;
			y[i] = 2 * phi[2 * i] + 1 + noise[k] * sin(7.0 * i);
		}
		ck_assert_int_eq(blr_new(2, &b), DEHBQ_OK);
		ck_assert_int_eq(blr_fit(b, phi, y, 40), DEHBQ_OK);
		blr_hyper(b, &la, &lb);
		at = blr_evidence2(phi, y, 40, la, lb);
		top = -INFINITY;
		for (ga = 0; ga <= 40; ga++)
			for (gb = 0; gb <= 40; gb++)
				top = fmax(top, blr_evidence2(phi, y, 40,
							      -10 + 0.5 * ga,
							      -5 + 0.5 * gb));
		ck_assert_msg(at >= top - 1e-6,
			      "noise %g: evidence %.9g at (%g, %g), %.9g on "
			      "the grid",
			      noise[k], at, la, lb, top);
		blr_free(b);
	}
}
END_TEST

Suite *mlp_suite(void)
{
	Suite *s = suite_create("mlp");
	TCase *c = tcase_create("mlp");

	tcase_set_timeout(c, 120); /* training, under the sanitizers */
	tcase_add_test(c, test_mlp_gradient_matches_differences);
	tcase_add_test(c, test_mlp_learns_mean_and_spread);
	tcase_add_test(c, test_mlp_task_weights_balance_sizes);
	tcase_add_test(c, test_mlp_deterministic_from_the_seed);
	tcase_add_test(c, test_mlp_refuses_bad_input);
	tcase_add_test(c, test_blr_recovers_a_line);
	tcase_add_test(c, test_blr_maximises_the_evidence);
	suite_add_tcase(s, c);
	return s;
}
