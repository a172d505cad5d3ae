/*
 * check_pbt.c - the pbt scheduler's own rules (optim/sched/optim_pbt.c):
 * segments and their chain of parents, the ready point's exploit and
 * explore, a failed segment resampled, the end when every member is done,
 * and its settings.  The contract suites (optim, reload, crash) run it with
 * every searcher; space_move() is in check_space.c.
 */
#include "optim.h"
#include "optvar.h"

#include "err.h"
#include "pb2.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static struct optim *pbt_open(const char *settings, uint64_t seed)
{
	struct optim_setup u;
	struct optim *o;
	char err[DEHBQ_ERRLEN];
	cJSON *in = cJSON_Parse(settings);

	ck_assert_ptr_nonnull(in);
	ov_setup(&u, seed, 0);
	u.settings = in;
	u.lim.fevals = 10000;
	ck_assert_msg(optim_open("pbt", &u, &o, err) == DEHBQ_OK, "%s", err);
	cJSON_Delete(in);
	return o;
}

static void state_is(const struct optim_job *j, int member, int seg, int donor)
{
	char want[OPTIM_STATE_MAX];

	snprintf(want, sizeof(want),
		 "{\"member\":%d,\"segment\":%d,\"donor\":%d}", member, seg,
		 donor);
	ck_assert_str_eq(j->state, want);
	ck_assert_int_eq(j->bracket, member);
}

/*
 * Four members, one unit per segment; their first segments end in the
 * order 0, 3, 1, 2 with losses 0.1, 0.9, 0.2, 0.3.  At member 3's ready
 * point two members have results and it is the bottom one: it exploits
 * member 0, the top one, continuing from member 0's job with member 0's
 * configuration moved by 0.8 or 1.2.  The others are never at the bottom
 * of their ready points and continue from their own, unchanged.
 */
START_TEST(test_pbt_exploit_continues_from_the_donor)
{
	struct optim *o = pbt_open("{\"population_size\":4,"
				   "\"resample_probability\":0}",
				   7);
	static const int order[4] = {0, 3, 1, 2};
	static const double loss[4] = {0.1, 0.2, 0.3, 0.9};
	struct optim_job j[8];
	double x[8][DIM];
	int i, d, m;

	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(optim_ask(o, &j[i], x[i]), DEHBQ_OK);
		ck_assert(j[i].fidelity == 1);
		ck_assert_int_eq(j[i].parent, -1);
		state_is(&j[i], i, 1, -1);
	}
	ck_assert_int_eq(optim_ask(o, &j[4], x[4]), DEHBQ_EAGAIN);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(
			ov_tell(o, j[order[i]].id, OPTIM_OK, loss[order[i]], 1),
			DEHBQ_OK);
	for (i = 4; i < 8; i++) { /* in the order they became ready */
		ck_assert_int_eq(optim_ask(o, &j[i], x[i]), DEHBQ_OK);
		m = order[i - 4];
		ck_assert(j[i].fidelity == 2);
		if (m != 3) {
			state_is(&j[i], m, 2, -1);
			ck_assert_int_eq(j[i].parent, (int64_t)j[m].id);
			ck_assert_int_eq(j[i].kind, OPTIM_KIND_PROMOTION);
			ck_assert(!memcmp(x[i], x[m], sizeof(x[i])));
			continue;
		}
		state_is(&j[i], 3, 2, 0);
		ck_assert_int_eq(j[i].parent, (int64_t)j[0].id);
		ck_assert_int_eq(j[i].kind, OPTIM_KIND_TRIAL);
		for (d = 0; d < DIM; d++) {
			if (ov_choices[d]) { /* a categorical: a bin centre */
				double k = x[i][d] * ov_choices[d] - 0.5;

				ck_assert(k == floor(k) && k >= 0 &&
					  k < ov_choices[d]);
				continue;
			}
			ck_assert_msg(x[i][d] == fmin(1, x[0][d] * 0.8) ||
					      x[i][d] == fmin(1, x[0][d] * 1.2),
				      "dim %d: %g from %g", d, x[i][d],
				      x[0][d]);
		}
	}
	optim_free(o);
}
END_TEST

/* A failed segment has no checkpoint: the member is resampled by the
 * searcher and starts again from its last one (none: from scratch). */
START_TEST(test_pbt_failed_segment_is_resampled)
{
	struct optim *o = pbt_open("{\"population_size\":2}", 3);
	struct optim_job j[5];
	double x[5][DIM];

	ck_assert_int_eq(optim_ask(o, &j[0], x[0]), DEHBQ_OK);
	ck_assert_int_eq(optim_ask(o, &j[1], x[1]), DEHBQ_OK);
	ck_assert_int_eq(ov_tell(o, 0, OPTIM_OK, 0.5, 1), DEHBQ_OK);
	ck_assert_int_eq(optim_ask(o, &j[2], x[2]), DEHBQ_OK);
	state_is(&j[2], 0, 2, -1);
	ck_assert_int_eq(ov_tell(o, 1, OPTIM_FAILED, INFINITY, 1), DEHBQ_OK);
	ck_assert_int_eq(optim_ask(o, &j[3], x[3]), DEHBQ_OK);
	state_is(&j[3], 1, 1, -1);
	ck_assert_int_eq(j[3].parent, -1);
	ck_assert_int_eq(j[3].kind, OPTIM_KIND_RANDOM);
	ck_assert(memcmp(x[3], x[1], sizeof(x[3])));
	/* its segment again fails: back to the last checkpoint, none */
	ck_assert_int_eq(ov_tell(o, 3, OPTIM_FAILED, INFINITY, 1), DEHBQ_OK);
	ck_assert_int_eq(optim_ask(o, &j[4], x[4]), DEHBQ_OK);
	state_is(&j[4], 1, 1, -1);
	optim_free(o);
}
END_TEST

/*
 * Segments of 9 up to 27: three per member.  The study ends when every
 * member's last segment ended ok, with no limit reached; a requeued
 * failure (dehbq requeue) goes back in flight while its member waits.
 */
START_TEST(test_pbt_ends_when_every_member_is_done)
{
	struct optim *o = pbt_open("{\"population_size\":3,"
				   "\"perturbation_interval\":9}",
				   5);
	struct optim_job j;
	struct optim_counts c;
	double x[DIM];
	int n = 0, failed = 0;

	while (optim_ask(o, &j, x) == DEHBQ_OK) {
		ck_assert(j.fidelity == 9 || j.fidelity == 18 ||
			  j.fidelity == 27);
		n++;
		if (j.id == 4 && !failed) {
			ck_assert_int_eq(
				ov_tell(o, j.id, OPTIM_FAILED, INFINITY, 1),
				DEHBQ_OK);
			ck_assert_int_eq(optim_reopen(o, &j, x), DEHBQ_OK);
			failed = 1;
		}
		ck_assert_int_eq(
			ov_tell(o, j.id, OPTIM_OK, 1.0 / j.fidelity, 1),
			DEHBQ_OK);
	}
	ck_assert_int_eq(optim_ask(o, &j, x), DEHBQ_EDONE);
	ck_assert(optim_finished(o));
	optim_counts(o, &c);
	ck_assert_int_eq(c.asked, n);
	ck_assert_int_le(n, 3 * 3); /* an exploit may skip a segment */
	ck_assert_int_ge(n, 3 + 2);
	optim_free(o);
}
END_TEST

/* Bad settings are refused with the field named. */
START_TEST(test_pbt_settings_refused)
{
	static const struct {
		const char *in, *says;
	} bad[] = {
		{"{\"population_size\":1}", "population_size"},
		{"{\"quantile_fraction\":0.6}", "quantile_fraction"},
		{"{\"resample_probability\":2}", "resample_probability"},
		{"{\"perturbation_factors\":[1.2,0.8]}",
		 "perturbation_factors"},
		{"{\"perturbation_factors\":[0.8]}", "perturbation_factors"},
		{"{\"explore\":\"bandit\"}", "explore"},
		{"{\"explore\":1}", "explore"},
		{"{\"perturbation_interval\":0.1}", "outside the study's"},
		{"{\"perturbation_interval\":30}", "outside the study's"},
	};
	struct optim_setup u;
	struct optim *o;
	char err[DEHBQ_ERRLEN];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cJSON *in = cJSON_Parse(bad[i].in);

		ov_setup(&u, 1, 100);
		u.settings = in;
		ck_assert_int_eq(optim_open("pbt", &u, &o, err), DEHBQ_EINVAL);
		ck_assert_msg(strstr(err, bad[i].says), "%s: %s", bad[i].in,
			      err);
		cJSON_Delete(in);
	}
	/* 0.25 .. 27 by 0.25: 108 segments, more than a searcher's ladder */
	{
		cJSON *in = cJSON_Parse("{\"perturbation_interval\":0.25}");

		ov_setup(&u, 1, 100);
		u.min_fidelity = 0.25;
		u.settings = in;
		ck_assert_int_eq(optim_open("pbt", &u, &o, err), DEHBQ_EINVAL);
		ck_assert_msg(strstr(err, "at most 64"), "%s", err);
		cJSON_Delete(in);
	}
}
END_TEST

/*
 * PB2's bandit: forty segments, each from a checkpoint of loss 1, whose
 * improvement per unit is largest where x0 = 0.3 whatever x1 is.  The
 * choice for a donor at x0 = 0.85 goes to x0 near 0.3, the same twice
 * from the same stream; with fewer than PB2_MIN_ROWS rows, or from
 * scratch only, there is no choice (the caller perturbs).
 */
START_TEST(test_pb2_chooses_where_segments_improved)
{
	static const double dx[2] = {0.85, 0.5};
	struct pb2 *p;
	struct rng r;
	double x[2], a[2], b[2];
	int i;

	ck_assert_int_eq(pb2_new(2, NULL, 10, &p), DEHBQ_OK);
	rng_seed(&r, 5);
	for (i = 0; i < 40; i++) {
		x[0] = rng_uniform(&r);
		x[1] = rng_uniform(&r);
		ck_assert_int_eq(pb2_observe(p, 1000 + i, -1, x, 0, 1, 1),
				 DEHBQ_OK);
		if (i == PB2_MIN_ROWS - 1) {
			rng_seed(&r, 9);
			ck_assert_int_eq(pb2_choose(p, 2, 1, dx, NULL, 0, NULL,
						    NULL, &r, a),
					 DEHBQ_EAGAIN);
		}
		ck_assert_int_eq(
			pb2_observe(p, i, 1000 + i, x, 1, 2,
				    1 - 0.5 * (1 - 4 * (x[0] - 0.3) *
							   (x[0] - 0.3))),
			DEHBQ_OK);
	}
	ck_assert_uint_eq(pb2_rows(p), 40);
	rng_seed(&r, 9);
	ck_assert_int_eq(pb2_choose(p, 3, 0.7, dx, NULL, 0, NULL, NULL, &r, a),
			 DEHBQ_OK);
	rng_seed(&r, 9);
	ck_assert_int_eq(pb2_choose(p, 3, 0.7, dx, NULL, 0, NULL, NULL, &r, b),
			 DEHBQ_OK);
	ck_assert(!memcmp(a, b, sizeof(a)));
	ck_assert_msg(fabs(a[0] - 0.3) < 0.1, "x0 %g, not near 0.3", a[0]);
	ck_assert(a[1] >= 0 && a[1] <= 1);
	pb2_free(p);
}
END_TEST

Suite *pbt_suite(void)
{
	Suite *s = suite_create("pbt");
	TCase *c = tcase_create("rules");

	tcase_add_checked_fixture(c, NULL, ov_done);
	tcase_add_test(c, test_pbt_exploit_continues_from_the_donor);
	tcase_add_test(c, test_pbt_failed_segment_is_resampled);
	tcase_add_test(c, test_pbt_ends_when_every_member_is_done);
	tcase_add_test(c, test_pbt_settings_refused);
	tcase_add_test(c, test_pb2_chooses_where_segments_improved);
	suite_add_tcase(s, c);
	return s;
}
