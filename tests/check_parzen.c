/*
 * check_parzen.c - the joint Parzen estimator of multivariate TPE
 * (optim/models/parzen.c): a density that integrates to one, agrees with
 * the mixture written out term by term, survives thousands of points, and
 * draws that keep the dimensions of one component together
 */
#include "normal.h"
#include "parzen.h"
#include "rng.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>

/* Three points in 2 dimensions, weights 0.2, 0.3, 0.1 and the prior 0.4. */
static const double px[] = {0.1, 0.8, 0.5, 0.5, 0.9, 0.05};
static const size_t pset[] = {0, 1, 2};
static const double pw[] = {0.2, 0.3, 0.1, 0.4};

static void three(struct parzen *p, const int *choices, double *nrm)
{
	p->dim = 2;
	p->choices = choices;
	p->x = px;
	p->set = pset;
	p->m = 3;
	p->w = pw;
	p->sigma = 0.15;
	p->cat = 0.25;
	p->lognorm = nrm;
	parzen_fit(p);
}

/* A normal kernel truncated to [0, 1], written out. */
static double tn(double v, double mu, double sg)
{
	return normal_pdf((v - mu) / sg) / sg /
	       (normal_cdf((1 - mu) / sg) - normal_cdf(-mu / sg));
}

START_TEST(test_parzen_density_is_the_mixture)
{
	struct parzen p;
	double nrm[8], v[2];
	int a, b, i;

	three(&p, NULL, nrm);
	for (a = 0; a < 5; a++)
		for (b = 0; b < 5; b++) {
			double want = 0;

			v[0] = 0.03 + 0.23 * a;
			v[1] = 0.97 - 0.21 * b;
			for (i = 0; i < 3; i++)
				want += pw[i] * tn(v[0], px[2 * i], 0.15) *
					tn(v[1], px[2 * i + 1], 0.15);
			want += pw[3] * tn(v[0], 0.5, 1) * tn(v[1], 0.5, 1);
			ck_assert_double_eq_tol(parzen_log_density(&p, v),
						log(want), 1e-12);
		}
}
END_TEST

/* Midpoint rule on a 400 x 400 grid; a categorical dimension of K bins
 * sums its bins' probabilities (one value per bin). */
static double integral(const struct parzen *p, int K)
{
	double s = 0, v[2];
	int a, b, n = 400;

	for (a = 0; a < n; a++)
		for (b = 0; b < (K ? K : n); b++) {
			v[0] = (a + 0.5) / n;
			v[1] = K ? (b + 0.5) / K : (b + 0.5) / n;
			s += exp(parzen_log_density(p, v)) / n / (K ? 1 : n);
		}
	return s;
}

START_TEST(test_parzen_density_integrates_to_one)
{
	static const int cat[2] = {0, 3};
	struct parzen p;
	double nrm[8];

	three(&p, NULL, nrm);
	ck_assert_double_eq_tol(integral(&p, 0), 1, 1e-4);
	three(&p, cat, nrm);
	ck_assert_double_eq_tol(integral(&p, 3), 1, 1e-4);
}
END_TEST

/* A categorical kernel: the point's bin 1 + c, every bin c, normalised;
 * the prior's uniform. */
START_TEST(test_parzen_categorical_kernel)
{
	static const int cat[2] = {4, 4};
	static const double x1[] = {0.6, 0.1};
	static const size_t s1[] = {0};
	static const double w1[] = {1, 0};
	struct parzen p = {2, cat, x1, s1, 1, w1, 0.3, 0.5, NULL};
	double nrm[4], hit = 1.5 / 3, miss = 0.5 / 3, v[2] = {0.55, 0.2};

	p.lognorm = nrm;
	parzen_fit(&p);
	ck_assert_double_eq_tol(parzen_log_density(&p, v), log(hit * hit),
				1e-12);
	v[1] = 0.3;
	ck_assert_double_eq_tol(parzen_log_density(&p, v), log(hit * miss),
				1e-12);
}
END_TEST

/* 3000 points in 6 dimensions, far from v: every term underflows alone,
 * their log-sum-exp does not. */
START_TEST(test_parzen_many_points_no_underflow)
{
	enum { M = 3000, D = 6 };
	static double x[M * D], w[M + 1], nrm[(M + 1) * D];
	static size_t set[M];
	struct parzen p;
	double v[D] = {0.999, 0.999, 0.999, 0.999, 0.999, 0.999}, l;
	struct rng r;
	int i;

	rng_seed(&r, 5);
	for (i = 0; i < M * D; i++)
		x[i] = 0.2 * rng_uniform(&r);
	for (i = 0; i < M; i++) {
		set[i] = (size_t)i;
		w[i] = 1.0 / M;
	}
	w[M] = 0;
	p = (struct parzen){D, NULL, x, set, M, w, 0.01, 0, nrm};
	parzen_fit(&p);
	l = parzen_log_density(&p, v);
	ck_assert_msg(isfinite(l) && l < -1000, "log density %g", l);
}
END_TEST

/*
 * Draws: in the unit cube; from a component whose weight is 1, both
 * coordinates near that point together (the joint draw univariate TPE
 * cannot make); categorical draws at bin centres.
 */
START_TEST(test_parzen_draws_keep_dimensions_together)
{
	static const int cat[2] = {0, 3};
	static const double w0[] = {0, 1, 0, 0};
	struct parzen p;
	double nrm[8], v[2], s0 = 0, s1 = 0;
	struct rng r;
	int i, n = 20000;

	three(&p, NULL, nrm);
	p.w = w0;
	p.sigma = 0.02;
	rng_seed(&r, 11);
	for (i = 0; i < n; i++) {
		parzen_sample(&p, &r, v);
		ck_assert(v[0] >= 0 && v[0] <= 1 && v[1] >= 0 && v[1] <= 1);
		ck_assert_msg(fabs(v[0] - 0.5) < 0.15 &&
				      fabs(v[1] - 0.5) < 0.15,
			      "draw %d at (%g, %g)", i, v[0], v[1]);
		s0 += v[0];
		s1 += v[1];
	}
	ck_assert_double_eq_tol(s0 / n, 0.5, 1e-3);
	ck_assert_double_eq_tol(s1 / n, 0.5, 1e-3);
	three(&p, cat, nrm);
	for (i = 0; i < 1000; i++) {
		parzen_sample(&p, &r, v);
		ck_assert_msg(fabs(v[1] * 3 - floor(v[1] * 3) - 0.5) < 1e-12,
			      "categorical draw %g", v[1]);
	}
}
END_TEST

/* Scott's rule, 0.2 m^(-1/(d+4)), inside Optuna's clip [1/min(100, m+2), 1]. */
START_TEST(test_parzen_bandwidth)
{
	ck_assert_double_eq_tol(parzen_bandwidth(0, 2), 0.5, 1e-15);
	ck_assert_double_eq_tol(parzen_bandwidth(1, 2), 1.0 / 3, 1e-15);
	ck_assert_double_eq_tol(parzen_bandwidth(10, 2),
				0.2 * pow(10, -1.0 / 6), 1e-15);
	ck_assert_double_eq_tol(parzen_bandwidth(1000, 1),
				0.2 * pow(1000, -0.2), 1e-15);
	ck_assert_double_eq_tol(parzen_bandwidth(1000000000, 1), 0.01, 1e-15);
	ck_assert_double_eq_tol(parzen_bandwidth(20, 6), 0.2 * pow(20, -0.1),
				1e-15);
}
END_TEST

Suite *parzen_suite(void)
{
	Suite *s = suite_create("parzen");
	TCase *c = tcase_create("core");

	tcase_add_test(c, test_parzen_density_is_the_mixture);
	tcase_add_test(c, test_parzen_density_integrates_to_one);
	tcase_add_test(c, test_parzen_categorical_kernel);
	tcase_add_test(c, test_parzen_many_points_no_underflow);
	tcase_add_test(c, test_parzen_draws_keep_dimensions_together);
	tcase_add_test(c, test_parzen_bandwidth);
	suite_add_tcase(s, c);
	return s;
}
