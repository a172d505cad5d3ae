/*
 * check_mobj.c - multi-objective scores against values computed by hand:
 * the copula mean, the linear sum, the NSGA-II order per fidelity, the
 * random-weights draw; failures; and old results rescored as new ones
 * arrive, through the optim/ interface too, and in the kde searcher
 */
#include "err.h"
#include "mobj.h"
#include "optim.h"
#include "rng.h"
#include "searcher.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct mobj *new_mo(int mode, const double *w)
{
	struct mobj *mo;

	ck_assert_int_eq(mobj_new(2, w, mode, 7, &mo), DEHBQ_OK);
	return mo;
}

static void put3(struct mobj *mo)
{
	const double y[] = {1, 3, 2, 2, 3, 1};
	int i;

	for (i = 0; i < 3; i++)
		ck_assert_int_eq(mobj_put(mo, i, 1, &y[2 * i]), DEHBQ_OK);
}

START_TEST(test_mobj_copula_by_hand)
{
	struct mobj *mo = new_mo(MOBJ_COPULA, NULL);
	/* N = 3: delta = 1 / (4 3^(1/4) sqrt(pi ln 3)) = 0.1022498; F of the
	 * first objective 1/3, 2/3, 1 - delta; psi = -0.43073, 0.43073,
	 * 1.2688358; the second objective reversed; the mean of the two */
	double z1 = -0.4307273, z3 = 1.2688358;
	int changed;

	put3(mo);
	ck_assert_int_eq(mobj_score_all(mo, 0, &changed), DEHBQ_OK);
	ck_assert_int_eq(changed, 1);
	ck_assert_double_eq_tol(mobj_score(mo, 0), (z1 + z3) / 2, 1e-6);
	ck_assert_double_eq_tol(mobj_score(mo, 1), (-z1 - z1) / 2, 1e-6);
	ck_assert_double_eq_tol(mobj_score(mo, 2), (z3 + z1) / 2, 1e-6);
	ck_assert(isnan(mobj_score(mo, 3))); /* not told */
	/* nothing new: nothing recomputed */
	ck_assert_int_eq(mobj_score_all(mo, 5, &changed), DEHBQ_OK);
	ck_assert_int_eq(changed, 0);
	mobj_free(mo);
}
END_TEST

START_TEST(test_mobj_old_scores_move)
{
	struct mobj *mo = new_mo(MOBJ_COPULA, NULL);
	const double y4[] = {0.5, 0.5};
	double before;
	int changed;

	put3(mo);
	ck_assert_int_eq(mobj_score_all(mo, 0, &changed), DEHBQ_OK);
	before = mobj_score(mo, 1);
	/* a point better than all three shifts their ECDFs up */
	ck_assert_int_eq(mobj_put(mo, 3, 1, y4), DEHBQ_OK);
	ck_assert_int_eq(mobj_score_all(mo, 0, &changed), DEHBQ_OK);
	ck_assert_int_eq(changed, 1);
	ck_assert(mobj_score(mo, 1) > before);
	ck_assert(mobj_score(mo, 3) < mobj_score(mo, 1));
	/* a failure scores +inf and counts in every ECDF */
	ck_assert_int_eq(mobj_put(mo, 4, 1, NULL), DEHBQ_OK);
	ck_assert_int_eq(mobj_score_all(mo, 0, &changed), DEHBQ_OK);
	ck_assert(isinf(mobj_score(mo, 4)));
	ck_assert(mobj_values(mo, 4) == NULL);
	mobj_free(mo);
}
END_TEST

START_TEST(test_mobj_linear_weights)
{
	const double w[] = {1, 3};
	struct mobj *mo = new_mo(MOBJ_LINEAR, w);
	int changed;

	put3(mo);
	ck_assert_int_eq(mobj_score_all(mo, 0, &changed), DEHBQ_OK);
	ck_assert_double_eq_tol(mobj_score(mo, 0), 0.25 * 1 + 0.75 * 3, 1e-12);
	ck_assert_double_eq_tol(mobj_score(mo, 2), 0.25 * 3 + 0.75 * 1, 1e-12);
	mobj_free(mo);
}
END_TEST

START_TEST(test_mobj_pareto_by_hand)
{
	struct mobj *mo = new_mo(MOBJ_PARETO, NULL);
	const double y[] = {3, 3, 0, 0};
	int changed;

	put3(mo); /* one front at fidelity 1: ends 0, the middle 0.5/3 */
	ck_assert_int_eq(mobj_put(mo, 3, 1, &y[0]), DEHBQ_OK); /* behind */
	ck_assert_int_eq(mobj_put(mo, 4, 9, &y[2]), DEHBQ_OK); /* alone */
	ck_assert_int_eq(mobj_score_all(mo, 0, &changed), DEHBQ_OK);
	ck_assert_double_eq_tol(mobj_score(mo, 0), 0, 1e-12);
	ck_assert_double_eq_tol(mobj_score(mo, 1), 0.5 / 3, 1e-12);
	ck_assert_double_eq_tol(mobj_score(mo, 2), 0, 1e-12);
	ck_assert_double_eq_tol(mobj_score(mo, 3), 1, 1e-12);
	/* (0, 0) dominates all, but at another fidelity: its own front */
	ck_assert_double_eq_tol(mobj_score(mo, 4), 0, 1e-12);
	mobj_free(mo);
}
END_TEST

/* Positions of the n scores of ids 0..n-1, sorted ascending. */
static void score_order(const struct mobj *mo, int n, int *out)
{
	int i, j;

	for (i = 0; i < n; i++) {
		out[i] = 0;
		for (j = 0; j < n; j++)
			out[i] += mobj_score(mo, j) < mobj_score(mo, i);
	}
}

/*
 * Hypervolume selection orders a front as Optuna 3.1's MOTPE does: the
 * expected orders are optuna._hypervolume.hssp._solve_hssp's on the same
 * points with MOTPE's reference (the front's worst, times 1.1).
 */
START_TEST(test_mobj_hypervolume_is_motpes_order)
{
	const double x[] = {0.0, 0.05, 0.3, 0.32, 0.6, 0.9, 1.0, 0.75};
	const int want2[] = {3, 7, 1, 4, 5, 2, 0, 6};
	const double y3[] = {1, 2, 3, 3,   2, 1,   2,	2,   2,
			     1, 3, 2, 2.5, 1, 2.5, 1.5, 1.5, 2.9};
	const int want3[] = {2, 4, 5, 1, 3, 0};
	const double hand[] = {0, 1, 0.5, 0.5, 1, 0}, ref[] = {2, 2};
	const size_t idx[] = {0, 1, 2};
	double y[2];
	size_t order[3];
	int pos[8], i, changed;
	struct mobj *mo = new_mo(MOBJ_HYPERVOLUME, NULL);

	for (i = 0; i < 8; i++) {
		y[0] = x[i];
		y[1] = (1 - sqrt(x[i])) * 2 + 0.1;
		ck_assert_int_eq(mobj_put(mo, i, 1, y), DEHBQ_OK);
	}
	y[0] = 0.5; /* behind (0.3, 1.0046): the next front */
	y[1] = 1.5;
	ck_assert_int_eq(mobj_put(mo, 8, 1, y), DEHBQ_OK);
	ck_assert_int_eq(mobj_score_all(mo, 0, &changed), DEHBQ_OK);
	score_order(mo, 8, pos);
	for (i = 0; i < 8; i++) {
		ck_assert_int_eq(pos[want2[i]], i);
		ck_assert(mobj_score(mo, i) < 1);
	}
	ck_assert_double_eq_tol(mobj_score(mo, 8), 1, 1e-12);
	mobj_free(mo);

	ck_assert_int_eq(mobj_new(3, NULL, MOBJ_HYPERVOLUME, 7, &mo), DEHBQ_OK);
	for (i = 0; i < 6; i++)
		ck_assert_int_eq(mobj_put(mo, i, 1, &y3[3 * i]), DEHBQ_OK);
	ck_assert_int_eq(mobj_score_all(mo, 0, &changed), DEHBQ_OK);
	score_order(mo, 6, pos);
	for (i = 0; i < 6; i++)
		ck_assert_int_eq(pos[want3[i]], i);
	mobj_free(mo);
	/* exact hypervolume stops at three objectives */
	ck_assert_int_eq(mobj_new(4, NULL, MOBJ_HYPERVOLUME, 7, &mo),
			 DEHBQ_EINVAL);

	/* by hand, ref (2, 2): (0.5, 0.5) dominates 2.25, the ends 2 each;
	 * after it each end adds 0.5: a tie, the earlier first; past the
	 * one greedy pick the rest go by that gain */
	ck_assert_int_eq(pareto_hssp(hand, idx, 3, 2, ref, 1, order), DEHBQ_OK);
	ck_assert(order[0] == 1 && order[1] == 0 && order[2] == 2);
}
END_TEST

/* MOTPE's weights are Optuna 3.1's: the expected values are
 * _calculate_weights_below_for_multi_objective's on the same set (which
 * need not be one front: (3, 3) is dominated, weight ~ 1e-12 / max). */
START_TEST(test_mobj_motpe_weights_are_optunas)
{
	const double y[] = {0.1, 2.0, 0.5, 1.0, 0.4, 1.6,
			    1.5, 0.2, 1.0, 0.9, 3.0, 3.0};
	const double want[] = {0.309523809524358,    0.23809523809584335,
			       0.031746031746800935, 1.0,
			       0.039682539683302404, 7.936507936501638e-13};
	const int64_t jobs[] = {0, 1, 2, 3, 4, 5, 6};
	struct mobj *mo = new_mo(MOBJ_HYPERVOLUME, NULL);
	double w[7];
	int i;

	for (i = 0; i < 6; i++)
		ck_assert_int_eq(mobj_put(mo, i, 1, &y[2 * i]), DEHBQ_OK);
	ck_assert_int_eq(mobj_put(mo, 6, 1, NULL), DEHBQ_OK); /* failed */
	ck_assert_int_eq(mobj_motpe_weights(mo, jobs, 7, w), DEHBQ_OK);
	for (i = 0; i < 6; i++)
		ck_assert_double_eq_tol(w[i], want[i], 1e-12);
	ck_assert_double_eq_tol(w[6], 1e-12, 1e-20);
	ck_assert_int_eq(mobj_motpe_weights(mo, jobs + 1, 1, w), DEHBQ_OK);
	ck_assert_double_eq(w[0], 1);
	mobj_free(mo);
}
END_TEST

START_TEST(test_mobj_random_weights_per_epoch)
{
	struct mobj *mo = new_mo(MOBJ_RANDOM_WEIGHTS, NULL);
	double a[2], b[2], c[2], s0;
	int changed;

	mobj_epoch_weights(mo, 1, a);
	mobj_epoch_weights(mo, 1, b);
	mobj_epoch_weights(mo, 2, c);
	ck_assert_double_eq_tol(a[0] + a[1], 1, 1e-12);
	ck_assert(a[0] == b[0] && a[1] == b[1]);
	ck_assert(a[0] != c[0]);
	put3(mo);
	ck_assert_int_eq(mobj_score_all(mo, 1, &changed), DEHBQ_OK);
	s0 = mobj_score(mo, 0);
	/* Chebyshev on F = (1/3, 1 - delta): max + 0.05 sum */
	{
		double F0 = 1.0 / 3, F1 = 1 - 0.1022498;
		double m = fmax(a[0] * F0, a[1] * F1);

		ck_assert_double_eq_tol(s0, m + 0.05 * (a[0] * F0 + a[1] * F1),
					1e-5);
	}
	/* a new epoch: new weights, new scores */
	ck_assert_int_eq(mobj_score_all(mo, 2, &changed), DEHBQ_OK);
	ck_assert_int_eq(changed, 1);
	ck_assert(mobj_score(mo, 0) != s0);
	mobj_free(mo);
}
END_TEST

START_TEST(test_mobj_refusals)
{
	struct mobj *mo;
	const double bad[] = {1, 0}, nan2[] = {NAN, 1};
	int mode;

	ck_assert_int_eq(mobj_new(1, NULL, MOBJ_COPULA, 0, &mo), DEHBQ_EINVAL);
	ck_assert_int_eq(mobj_new(2, bad, MOBJ_COPULA, 0, &mo), DEHBQ_EINVAL);
	ck_assert_int_eq(mobj_new(2, NULL, 9, 0, &mo), DEHBQ_EINVAL);
	ck_assert_int_eq(mobj_mode_parse("sum", &mode), DEHBQ_EINVAL);
	ck_assert_int_eq(mobj_mode_parse("random-weights", &mode), DEHBQ_OK);
	ck_assert_int_eq(mode, MOBJ_RANDOM_WEIGHTS);
	mo = new_mo(MOBJ_COPULA, NULL);
	ck_assert_int_eq(mobj_put(mo, 0, 1, nan2), DEHBQ_EINVAL);
	ck_assert_int_eq(mobj_put(mo, -1, 1, NULL), DEHBQ_EINVAL);
	mobj_free(mo);
}
END_TEST

/* Through optim/: a single-objective tell is refused, scores move, and an
 * optimiser without rescore refuses the study. */
START_TEST(test_mobj_through_optim)
{
	struct optim_setup u = {0};
	struct optim_job j;
	struct optim *o;
	char err[DEHBQ_ERRLEN];
	double x[2], y[2], first;
	int i;

	u.dim = 2;
	u.min_fidelity = 1;
	u.max_fidelity = 9;
	u.eta = 3;
	u.seed = 3;
	u.lim.fevals = 40;
	u.nobj = 2;
	u.scalarise = MOBJ_COPULA;
	ck_assert_int_eq(optim_open("asha-stop", &u, &o, err), DEHBQ_EUNSUP);
	ck_assert_msg(strstr(err, "objectives"), "%s", err);
	ck_assert_int_eq(optim_open("asha", &u, &o, err), DEHBQ_OK);
	ck_assert_int_eq(optim_objectives(o), 2);
	ck_assert_int_eq(optim_ask(o, &j, x), DEHBQ_OK);
	ck_assert_int_eq(optim_tell(o, j.id, OPTIM_OK, 1, 1), DEHBQ_EINVAL);
	y[0] = 2, y[1] = 2;
	ck_assert_int_eq(optim_tell_obj(o, j.id, OPTIM_OK, y, 1), DEHBQ_OK);
	first = optim_score(o, 0);
	for (i = 1; i < 6; i++) {
		ck_assert_int_eq(optim_ask(o, &j, x), DEHBQ_OK);
		y[0] = y[1] = 1.0 / i; /* each better than the one before */
		ck_assert_int_eq(optim_tell_obj(o, j.id, OPTIM_OK, y, 1),
				 DEHBQ_OK);
	}
	ck_assert(optim_score(o, 0) > first); /* job 0 is now the worst */
	y[0] = INFINITY;
	ck_assert_int_eq(optim_ask(o, &j, x), DEHBQ_OK);
	ck_assert_int_eq(optim_tell_obj(o, j.id, OPTIM_OK, y, 1), DEHBQ_EINVAL);
	optim_free(o);
}
END_TEST

/* Scores the reverse of the first losses: job j's is 100 - j, by a linear
 * sum of two equal objectives; job 5 is not told (its score is NaN). */
static struct mobj *reversed_scores(void)
{
	struct mobj *mo = new_mo(MOBJ_LINEAR, NULL);
	double y[2];
	int j, changed;

	for (j = 0; j < 20; j++) {
		y[0] = y[1] = 100.0 - j;
		if (j != 5)
			ck_assert_int_eq(mobj_put(mo, j, 3, y), DEHBQ_OK);
	}
	ck_assert_int_eq(mobj_score_all(mo, 0, &changed), DEHBQ_OK);
	ck_assert(isnan(mobj_score(mo, 5)) && mobj_score(mo, 7) == 93);
	return mo;
}

/* Searcher `so` (ladder 1, 3; settings set) that observed 20 results at
 * fidelity 3, the loss of job j being j, or, with rescored, 100 - j (job 5
 * left alone, as a NaN score leaves it). */
static void *seen(const struct search_ops *so, const char *set_text,
		  int rescored, int via_rescore)
{
	static const double ladder[2] = {1, 3};
	struct search_setup u;
	char err[DEHBQ_ERRLEN];
	cJSON *set = cJSON_Parse(set_text);
	struct rng r;
	double x[2];
	void *st;
	int j;

	memset(&u, 0, sizeof(u));
	u.dim = 2;
	u.seed = 3;
	u.min_fidelity = 1;
	u.max_fidelity = 3;
	u.settings = set;
	u.ladder = ladder;
	u.levels = 2;
	u.rungs = 1;
	ck_assert_msg(so->open(&u, &st, err) == DEHBQ_OK, "%s", err);
	rng_seed(&r, 8);
	for (j = 0; j < 20; j++) {
		double loss =
			rescored && !via_rescore && j != 5 ? 100.0 - j : j;

		x[0] = rng_uniform(&r);
		x[1] = rng_uniform(&r);
		ck_assert_int_eq(so->observe(st, j, x, 3, loss), DEHBQ_OK);
	}
	if (via_rescore) {
		struct mobj *mo = reversed_scores();

		ck_assert_int_eq(so->rescore(st, mo), DEHBQ_OK);
		mobj_free(mo);
	}
	cJSON_Delete(set);
	return st;
}

/* Rescored, the kde and gcp searchers propose what one told the new
 * scores proposes, and not what they proposed before. */
START_TEST(test_mobj_searchers_rescore_their_results)
{
	static const char *const v[][2] = {
		{"kde", "{\"random_fraction\":0}"},
		{"gcp", "{\"n_candidates\":200,\"prior_steps\":20}"},
	};
	const struct search_ops *so = search_find(v[_i][0]);
	void *a = seen(so, v[_i][1], 1, 1), *b = seen(so, v[_i][1], 1, 0);
	void *c = seen(so, v[_i][1], 0, 0);
	double xa[2], xb[2], xc[2];
	enum trial_kind k;
	int i, differ = 0;

	for (i = 0; i < 5; i++) {
		ck_assert_int_eq(so->propose(a, 1, xa, &k), DEHBQ_OK);
		ck_assert_int_eq(so->propose(b, 1, xb, &k), DEHBQ_OK);
		ck_assert_int_eq(so->propose(c, 1, xc, &k), DEHBQ_OK);
		ck_assert(!memcmp(xa, xb, sizeof(xa)));
		differ += !!memcmp(xa, xc, sizeof(xa));
	}
	ck_assert_int_ge(differ, 4);
	so->free(a);
	so->free(b);
	so->free(c);
}
END_TEST

/* A tpe searcher that saw job 0 at (0.1, 0.1), job 1 at (0.9, 0.9) and 18
 * more in between, rescored by mo. */
static void *tpe_seen(const struct mobj *mo)
{
	static const double ladder[1] = {1};
	const struct search_ops *so = search_find("tpe");
	cJSON *set = cJSON_Parse(
		"{\"n_startup_trials\":3,\"hypervolume_weights\":true}");
	struct search_setup u;
	char err[DEHBQ_ERRLEN];
	double x[2];
	void *st;
	int j;

	memset(&u, 0, sizeof(u));
	u.dim = 2;
	u.seed = 4;
	u.min_fidelity = u.max_fidelity = 1;
	u.settings = set;
	u.ladder = ladder;
	u.levels = 1;
	ck_assert_msg(so->open(&u, &st, err) == DEHBQ_OK, "%s", err);
	for (j = 0; j < 20; j++) {
		x[0] = x[1] = j == 0 ? 0.1 : j == 1 ? 0.9 : 0.3 + 0.02 * j;
		ck_assert_int_eq(so->observe(st, j, x, 1, 0), DEHBQ_OK);
	}
	ck_assert_int_eq(so->rescore(st, mo), DEHBQ_OK);
	cJSON_Delete(set);
	return st;
}

/*
 * With hypervolume selection tpe weighs its good set as MOTPE does: of the
 * two jobs on the front (gamma(20) = 2 in both selections), job 0 adds
 * almost all the hypervolume (weight 1, job 1's 0.002), so proposals go
 * near job 0; with pareto selection both weigh 1.
 */
START_TEST(test_mobj_tpe_weighs_as_motpe)
{
	const struct search_ops *so = search_find("tpe");
	const double y0[] = {0, 0.5}, y1[] = {0.98, 0.49};
	struct mobj *mh = new_mo(MOBJ_HYPERVOLUME, NULL);
	struct mobj *mp = new_mo(MOBJ_PARETO, NULL);
	double x[2], y[2];
	enum trial_kind k;
	int j, changed, near_h = 0, near_p = 0;
	void *h, *p;

	for (j = 0; j < 20; j++) {
		y[0] = y[1] = 1 + j;
		ck_assert_int_eq(mobj_put(mh, j, 1,
					  j == 0   ? y0
					  : j == 1 ? y1
						   : y),
				 DEHBQ_OK);
		ck_assert_int_eq(mobj_put(mp, j, 1,
					  j == 0   ? y0
					  : j == 1 ? y1
						   : y),
				 DEHBQ_OK);
	}
	ck_assert_int_eq(mobj_score_all(mh, 0, &changed), DEHBQ_OK);
	ck_assert_int_eq(mobj_score_all(mp, 0, &changed), DEHBQ_OK);
	h = tpe_seen(mh);
	p = tpe_seen(mp);
	for (j = 0; j < 20; j++) {
		ck_assert_int_eq(so->propose(h, 1, x, &k), DEHBQ_OK);
		near_h += x[0] + x[1] < 1;
		ck_assert_int_eq(so->propose(p, 1, x, &k), DEHBQ_OK);
		near_p += x[0] + x[1] < 1;
	}
	ck_assert_int_ge(near_h, 18); /* 20 measured */
	ck_assert_int_le(near_p, 13); /* 7 measured: both ends weigh */
	so->free(h);
	so->free(p);
	mobj_free(mh);
	mobj_free(mp);
}
END_TEST

Suite *mobj_suite(void)
{
	Suite *s = suite_create("mobj");
	TCase *c = tcase_create("mobj");

	tcase_add_test(c, test_mobj_copula_by_hand);
	tcase_add_test(c, test_mobj_old_scores_move);
	tcase_add_test(c, test_mobj_linear_weights);
	tcase_add_test(c, test_mobj_pareto_by_hand);
	tcase_add_test(c, test_mobj_hypervolume_is_motpes_order);
	tcase_add_test(c, test_mobj_motpe_weights_are_optunas);
	tcase_add_test(c, test_mobj_tpe_weighs_as_motpe);
	tcase_add_test(c, test_mobj_random_weights_per_epoch);
	tcase_add_test(c, test_mobj_refusals);
	tcase_add_test(c, test_mobj_through_optim);
	tcase_add_loop_test(c, test_mobj_searchers_rescore_their_results, 0, 2);
	suite_add_tcase(s, c);
	return s;
}
