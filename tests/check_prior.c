/*
 * check_prior.c - the transfer prior: a prior fitted on related tasks
 * predicts a new related task (RMSE well below 1) and not a shuffled one
 * (RMSE about 1 or more), the fit is a function of the seed, and bad
 * transfer data is refused with a reason
 */
#include "err.h"
#include "optim.h"
#include "prior.h"
#include "rng.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DIM 3
#define N   60

static double f(const double *x, int k)
{
	/* the same bowl, scaled and shifted per task */
	return (1 + k) * ((x[0] - 0.3) * (x[0] - 0.3) +
			  (x[1] - 0.6) * (x[1] - 0.6) + 0.1 * x[2]) +
	       3 * k;
}

static void tasks(double *x, double *y, int ntask, uint64_t seed)
{
	struct rng r;
	int i, d;

	rng_seed(&r, seed);
	for (i = 0; i < ntask * N; i++) {
		for (d = 0; d < DIM; d++)
			x[i * DIM + d] = rng_uniform(&r);
		y[i] = f(&x[i * DIM], i / N);
	}
}

START_TEST(test_prior_predicts_a_related_task)
{
	static double x[4 * N * DIM], y[4 * N], ys[N];
	size_t n[3] = {N, N, N};
	struct prior_tasks t = {3, n, x, y};
	struct prior *p;
	char err[DEHBQ_ERRLEN];
	double rmse, rshuf;
	int i;

	tasks(x, y, 4, 1); /* task 3 is the new one */
	ck_assert_msg(prior_fit(&t, DIM, 7, 300, &p, err) == DEHBQ_OK, "%s",
		      err);
	ck_assert_int_eq(prior_rmse(p, &x[3 * N * DIM], &y[3 * N], N, 0, &rmse),
			 DEHBQ_OK);
	for (i = 0; i < N; i++) /* the same losses, at other points */
		ys[i] = y[3 * N + (i * 7 + 3) % N];
	ck_assert_int_eq(prior_rmse(p, &x[3 * N * DIM], ys, N, 0, &rshuf),
			 DEHBQ_OK);
	ck_assert_msg(rmse < 0.6, "related task: RMSE %g", rmse);
	ck_assert_msg(rshuf > 0.9, "shuffled task: RMSE %g", rshuf);
	prior_free(p);
}
END_TEST

START_TEST(test_prior_is_a_function_of_the_seed)
{
	static double x[2 * N * DIM], y[2 * N];
	size_t n[2] = {N, N};
	struct prior_tasks t = {2, n, x, y};
	struct prior *a, *b, *c;
	char err[DEHBQ_ERRLEN];
	double ma[N], sa[N], mb[N], sb[N], mc[N], sc[N];

	tasks(x, y, 2, 2);
	ck_assert_int_eq(prior_fit(&t, DIM, 5, 50, &a, err), DEHBQ_OK);
	ck_assert_int_eq(prior_fit(&t, DIM, 5, 50, &b, err), DEHBQ_OK);
	ck_assert_int_eq(prior_fit(&t, DIM, 6, 50, &c, err), DEHBQ_OK);
	prior_predict(a, x, N, ma, sa);
	prior_predict(b, x, N, mb, sb);
	prior_predict(c, x, N, mc, sc);
	ck_assert(!memcmp(ma, mb, sizeof(ma)) && !memcmp(sa, sb, sizeof(sa)));
	ck_assert(memcmp(ma, mc, sizeof(ma)));
	ck_assert(sa[0] > 0);
	prior_free(a);
	prior_free(b);
	prior_free(c);
}
END_TEST

START_TEST(test_prior_refuses_bad_data)
{
	double x[2 * DIM] = {0.5, 0.5, 0.5, 0.5, 1.5, 0.5}, y[2] = {1, 2};
	size_t n2[2] = {1, 1}, n0[2] = {2, 0};
	struct prior_tasks t = {2, n2, x, y};
	struct prior *p;
	char err[DEHBQ_ERRLEN];

	ck_assert_int_eq(prior_fit(&t, DIM, 1, 5, &p, err), DEHBQ_EINVAL);
	ck_assert_msg(strstr(err, "unit cube"), "%s", err);
	x[4] = 0.5;
	t.n = n0;
	ck_assert_int_eq(prior_fit(&t, DIM, 1, 5, &p, err), DEHBQ_EINVAL);
	ck_assert_msg(strstr(err, "task 1 has no result"), "%s", err);
	t.n = n2;
	y[0] = NAN;
	ck_assert_int_eq(prior_fit(&t, DIM, 1, 5, &p, err), DEHBQ_EINVAL);
	ck_assert_msg(strstr(err, "NaN"), "%s", err);
}
END_TEST

Suite *prior_suite(void)
{
	Suite *s = suite_create("prior");
	TCase *c = tcase_create("prior");

	tcase_set_timeout(c, 60);
	tcase_add_test(c, test_prior_predicts_a_related_task);
	tcase_add_test(c, test_prior_is_a_function_of_the_seed);
	tcase_add_test(c, test_prior_refuses_bad_data);
	suite_add_tcase(s, c);
	return s;
}
