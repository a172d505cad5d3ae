/*
 * check_searchers.c - searchers seen through the optimiser interface:
 * asks made while jobs are in flight stay apart (gp's believer, with
 * fitted or sampled hyperparameters, and its local penalisation; tpe's
 * constant liar), and dngo learns
 */
#include "optim.h"
#include "optvar.h"

#include "err.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* GP's believer (with fitted or sampled hyperparameters), and its local
 * penalisation: sixteen asks in flight are sixteen different points. */
START_TEST(test_optim_gp_asks_in_flight_differ)
{
	static const char *const set[] = {
		"{}", "{\"batch\":\"penalise\"}",
		"{\"hyperparameters\":\"mcmc\",\"mcmc_samples\":3}"};
	struct optim_setup u;
	struct optim *o;
	struct optim_job j;
	char err[DEHBQ_ERRLEN];
	double x[16][DIM];
	cJSON *js = cJSON_Parse(set[_i]);
	int k, a, b, d;

	ov_setup(&u, 6, 0);
	u.choices = NULL;
	u.settings = js;
	ck_assert_msg(optim_open("gp", &u, &o, err) == DEHBQ_OK, "%s", err);
	cJSON_Delete(js);
	for (k = 0; k < 20; k++) {
		ck_assert_int_eq(optim_ask(o, &j, x[0]), DEHBQ_OK);
		ck_assert_int_eq(ov_tell(o, j.id, OPTIM_OK,
					 ov_loss(x[0], j.fidelity), 27),
				 DEHBQ_OK);
	}
	for (k = 0; k < 16; k++) {
		ck_assert_int_eq(optim_ask(o, &j, x[k]), DEHBQ_OK);
		ck_assert_int_eq(j.kind, OPTIM_KIND_TRIAL);
	}
	for (a = 0; a < 16; a++)
		for (b = 0; b < a; b++) {
			double s = 0;

			for (d = 0; d < DIM; d++)
				s += (x[a][d] - x[b][d]) * (x[a][d] - x[b][d]);
			ck_assert_msg(sqrt(s) > 1e-3,
				      "asks %d and %d: %g apart", a, b,
				      sqrt(s));
		}
	optim_free(o);
}
END_TEST

/* The mean distance from each of 16 asks in flight to its nearest
 * neighbour among the others, for tpe with these settings (seed s). */
static double tpe_spread(const char *settings, uint64_t s)
{
	struct optim_setup u;
	struct optim *o;
	struct optim_job j;
	char err[DEHBQ_ERRLEN];
	double x[16][DIM], tot = 0;
	cJSON *js = cJSON_Parse(settings);
	int k, a, b, d;

	ov_setup(&u, s, 0);
	u.choices = NULL;
	u.settings = js;
	ck_assert_msg(optim_open("tpe", &u, &o, err) == DEHBQ_OK, "%s", err);
	cJSON_Delete(js);
	for (k = 0; k < 30; k++) {
		ck_assert_int_eq(optim_ask(o, &j, x[0]), DEHBQ_OK);
		ck_assert_int_eq(ov_tell(o, j.id, OPTIM_OK,
					 ov_loss(x[0], j.fidelity), 27),
				 DEHBQ_OK);
	}
	for (k = 0; k < 16; k++)
		ck_assert_int_eq(optim_ask(o, &j, x[k]), DEHBQ_OK);
	for (a = 0; a < 16; a++) {
		double near = INFINITY;

		for (b = 0; b < 16; b++) {
			double q = 0;

			for (d = 0; b != a && d < DIM; d++)
				q += (x[a][d] - x[b][d]) * (x[a][d] - x[b][d]);
			if (b != a)
				near = fmin(near, sqrt(q));
		}
		tot += near / 16;
	}
	optim_free(o);
	return tot;
}

/* tpe's constant_liar: asks made while others are in flight spread out
 * (the jobs in flight join the bad set), on each of five seeds; without
 * it they crowd the good region. */
START_TEST(test_optim_tpe_liar_spreads_asks_in_flight)
{
	uint64_t s;

	for (s = 1; s <= 5; s++) {
		double plain = tpe_spread("{}", s),
		       liar = tpe_spread("{\"constant_liar\":true}", s);

		ck_assert_msg(liar > 1.2 * plain,
			      "seed %d: nearest neighbour %g, %g without",
			      (int)s, liar, plain);
	}
}
END_TEST

/*
 * The dngo searcher learns: after its 10 uniform start-up trials on a
 * bowl in three dimensions, its 20 model proposals (kind trial) find a
 * better point than the start-up's best, and than 20 more uniform draws
 * of the same seed (fifo with random), on each of three seeds.
 */
static double best_of_run(const char *settings, uint64_t s, int *trials)
{
	struct optim_setup u;
	struct optim *o;
	struct optim_job j;
	char err[DEHBQ_ERRLEN];
	double x[DIM], best = INFINITY;
	cJSON *js = cJSON_Parse(settings);
	int k, d;

	ov_setup(&u, s, 0);
	u.choices = NULL;
	u.settings = js;
	ck_assert_msg(optim_open("fifo", &u, &o, err) == DEHBQ_OK, "%s", err);
	cJSON_Delete(js);
	for (k = 0; k < 30; k++) {
		double l = 0;

		ck_assert_int_eq(optim_ask(o, &j, x), DEHBQ_OK);
		*trials += j.kind == OPTIM_KIND_TRIAL;
		for (d = 0; d < DIM; d++)
			l += (x[d] - 0.3) * (x[d] - 0.3);
		best = fmin(best, l);
		ck_assert_int_eq(ov_tell(o, j.id, OPTIM_OK, l, 27), DEHBQ_OK);
	}
	optim_free(o);
	return best;
}

START_TEST(test_optim_dngo_learns)
{
	uint64_t s;

	for (s = 1; s <= 3; s++) {
		int t = 0, t0 = 0;
		double dn = best_of_run("{\"searcher\":\"dngo\",\"search\":"
					"{\"hidden\":20,\"steps\":200}}",
					s, &t),
		       rnd = best_of_run("{\"searcher\":\"random\"}", s, &t0);

		ck_assert_int_eq(t, 20);
		ck_assert_msg(dn < rnd && dn < 0.01,
			      "seed %d: dngo %g, random %g", (int)s, dn, rnd);
	}
}
END_TEST

/* A figure of a dngo searcher's describe ("fits", "log_beta", ...). */
static double dngo_fig(const struct search_ops *ops, void *st, const char *k)
{
	struct jsonbuf b;
	cJSON *js;
	double v;

	jsonbuf_init(&b);
	jsonbuf_put(&b, "{", 1);
	ck_assert_int_eq(ops->describe(st, &b), DEHBQ_OK);
	jsonbuf_put(&b, "}", 1);
	ck_assert_ptr_nonnull(js = cJSON_ParseWithLength(b.p, b.len));
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(js, k));
	v = cJSON_GetObjectItem(js, k)->valuedouble;
	cJSON_Delete(js);
	jsonbuf_free(&b);
	return v;
}

/* describe's "fits" and "trained_on". */
static void dngo_fits(const struct search_ops *ops, void *st, long *fits,
		      long *on)
{
	*fits = (long)dngo_fig(ops, st, "fits");
	*on = (long)dngo_fig(ops, st, "trained_on");
}

/*
 * Open a dngo searcher with settings (the caller's, which it keeps while
 * *s is used: load reads them again) on the one-level DIM-dimensional
 * space of these tests, at fidelity 27; fills *s.
 */
static void *dngo_open(struct search_setup *s, const cJSON *settings,
		       uint64_t seed)
{
	static const double lad[1] = {27};
	char err[DEHBQ_ERRLEN];
	void *st = NULL;

	ck_assert_ptr_nonnull(settings);
	memset(s, 0, sizeof(*s));
	s->dim = DIM;
	s->seed = seed;
	s->settings = settings;
	s->ladder = lad;
	s->levels = 1;
	s->min_fidelity = s->max_fidelity = 27;
	ck_assert_msg(search_find("dngo")->open(s, &st, err) == DEHBQ_OK, "%s",
		      err);
	return st;
}

/*
 * dngo trains its network on a schedule: with retrain_growth 0.5, on the
 * first s results, s the last of 2, 3, 4, 6, 9, 13, 19, 28, 42 (s +
 * max(1, floor(s / 2))) not beyond the results; between those points the
 * network is kept and only the regression sees the new results.  A result
 * that leaves the first s (a re-run's first result becomes a failure)
 * trains it again on the same count.  With retrain_growth 0 every ask
 * with a new result trains.
 */
START_TEST(test_dngo_trains_on_a_schedule)
{
	static const long pts[] = {2, 3, 4, 6, 9, 13, 19, 28, 42, 1000};
	const struct search_ops *ops = search_find("dngo");
	struct search_setup s;
	enum trial_kind kind;
	double x[DIM];
	long fits, on, want;
	void *st;
	int k, g, d, p;

	for (g = 0; g < 2; g++) {
		cJSON *js = cJSON_Parse(
			g ? "{\"hidden\":6,\"steps\":10,\"n_candidates\":50,"
			    "\"n_startup_trials\":2,\"retrain_growth\":0}"
			  : "{\"hidden\":6,\"steps\":10,\"n_candidates\":50,"
			    "\"n_startup_trials\":2,\"retrain_growth\":0.5}");

		st = dngo_open(&s, js, 7);
		cJSON_Delete(js);
		for (k = 0, p = 0; k < 60; k++) {
			double l = 0;

			ck_assert_int_eq(ops->propose(st, 27, x, &kind),
					 DEHBQ_OK);
			dngo_fits(ops, st, &fits, &on);
			while (pts[p + 1] <= k)
				p++;
			want = g ? k : pts[p];
			if (k >= 2) {
				ck_assert_int_eq(on, want);
				ck_assert_int_eq(fits, g ? k - 1 : p + 1);
			}
			for (d = 0; d < DIM; d++)
				l += (x[d] - 0.3) * (x[d] - 0.3);
			ck_assert_int_eq(ops->observe(st, k, x, 27, l),
					 DEHBQ_OK);
		}
		if (!g) { /* job 3's result becomes a failure: trained again */
			ck_assert_int_eq(ops->observe(st, 3, x, 27, 1.0),
					 DEHBQ_OK);
			ck_assert_int_eq(ops->propose(st, 27, x, &kind),
					 DEHBQ_OK);
			dngo_fits(ops, st, &fits, &on);
			ck_assert_int_eq(on, 42);
			ck_assert_int_eq(fits, p + 2);
		}
		ops->free(st);
	}
}
END_TEST

/* describe's log_alpha and log_beta (the last regression's: bit for
 * bit, a fingerprint of the data it saw). */
static void dngo_hyper(const struct search_ops *ops, void *st, double *h)
{
	h[0] = dngo_fig(ops, st, "log_alpha");
	h[1] = dngo_fig(ops, st, "log_beta");
}

/*
 * dngo keeps the network's outputs for full blocks of 256 results while
 * the network is kept: after 600 results told one by one (an ask after
 * each), a copy loaded from its saved state and told the same results at
 * once proposes the same bits, its regression's alpha and beta too; so again
 * after a re-run turns an early result into a failure (its block is passed
 * again).
 */
START_TEST(test_dngo_blocks_equal_a_fresh_pass)
{
	const struct search_ops *ops = search_find("dngo");
	struct search_setup s;
	enum trial_kind ka, kb;
	double *xs = malloc(601 * DIM * sizeof(double)),
	       *ls = malloc(601 * sizeof(double)), xa[DIM], xb[DIM], ha[2],
	       hb[2];
	char err[DEHBQ_ERRLEN];
	struct jsonbuf b;
	cJSON *js = cJSON_Parse("{\"hidden\":6,\"steps\":10,\"n_candidates\":"
				"50,\"retrain_growth\":0.5}"),
	      *state;
	void *a, *c;
	int k, d, round;

	ck_assert_ptr_nonnull(xs);
	a = dngo_open(&s, js, 3);
	for (k = 0; k < 600; k++) {
		ck_assert_int_eq(ops->propose(a, 27, xs + k * DIM, &ka),
				 DEHBQ_OK);
		ls[k] = 0;
		for (d = 0; d < DIM; d++)
			ls[k] += sin(7 * xs[k * DIM + d]) + xs[k * DIM + d];
		ck_assert_int_eq(ops->observe(a, k, xs + k * DIM, 27, ls[k]),
				 DEHBQ_OK);
	}
	for (round = 0; round < 2; round++) {
		if (round) /* job 480 again: its first result fails */
			ck_assert_int_eq(
				ops->observe(a, 480, xs + 480 * DIM, 27, 9),
				DEHBQ_OK);
		jsonbuf_init(&b);
		ck_assert_int_eq(ops->save(a, &b), DEHBQ_OK);
		ck_assert_ptr_nonnull(
			state = cJSON_ParseWithLength(b.p, b.len));
		ck_assert_msg(ops->load(&s, state, &c, err) == DEHBQ_OK, "%s",
			      err);
		for (k = 0; k < 600; k++)
			ck_assert_int_eq(
				ops->observe(c, k, xs + k * DIM, 27, ls[k]),
				DEHBQ_OK);
		if (round)
			ck_assert_int_eq(
				ops->observe(c, 480, xs + 480 * DIM, 27, 9),
				DEHBQ_OK);
		ck_assert_int_eq(ops->propose(a, 27, xa, &ka), DEHBQ_OK);
		ck_assert_int_eq(ops->propose(c, 27, xb, &kb), DEHBQ_OK);
		ck_assert_int_eq(ka, TRIAL_KIND_TRIAL);
		ck_assert_mem_eq(xa, xb, sizeof(xa));
		dngo_hyper(ops, a, ha);
		dngo_hyper(ops, c, hb);
		ck_assert_mem_eq(ha, hb, sizeof(ha));
		ops->free(c);
		cJSON_Delete(state);
		jsonbuf_free(&b);
	}
	ops->free(a);
	cJSON_Delete(js);
	free(xs);
	free(ls);
}
END_TEST

Suite *searchers_suite(void)
{
	Suite *s = suite_create("searchers");
	TCase *c = tcase_create("core");

	tcase_set_timeout(c, 300);
	tcase_add_checked_fixture(c, NULL, ov_done);
	tcase_add_loop_test(c, test_optim_gp_asks_in_flight_differ, 0, 3);
	tcase_add_test(c, test_optim_tpe_liar_spreads_asks_in_flight);
	tcase_add_test(c, test_optim_dngo_learns);
	tcase_add_test(c, test_dngo_trains_on_a_schedule);
	tcase_add_test(c, test_dngo_blocks_equal_a_fresh_pass);
	suite_add_tcase(s, c);
	return s;
}
