/*
 * check_progress.c - intermediate results: the trainer's progress line,
 * the progress file (round trip, bound, refusals), the stop file, a
 * stopped result, and the stopping schedulers' rules computed by hand
 */
#include "err.h"
#include "optim.h"
#include "progress.h"
#include "result.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int line(const char *s, struct progress_point *p)
{
	char err[DEHBQ_ERRLEN];

	return progress_line(s, strlen(s), p, err);
}

START_TEST(test_progress_line)
{
	struct progress_point p;
	char err[DEHBQ_ERRLEN];
	static const char *const notours[] = {
		"epoch 3: loss 0.4",
		"",
		"[1, 2]",
		"{\"loss\": 0.3}",
		"Traceback (most recent call last):",
	};
	static const char *const bad[] = {
		"{\"fidelity\": 3}",			     /* no loss */
		"{\"fidelity\": 0, \"loss\": 1}",	     /* not above 0 */
		"{\"fidelity\": -2, \"loss\": 1}",	     /* negative */
		"{\"fidelity\": 3, \"loss\": \"a\"}",	     /* not a number */
		"{\"fidelity\": 3, \"loss\": 1e400}",	     /* overflows */
		"{\"fidelity\": 3, \"loss\": 1, \"lr\": 2}", /* unknown */
		"{\"fidelity\": 3, \"loss\": 1, \"cost\": -1}",
		"{\"fidelity\": \"3\", \"loss\": 1}",
		"{\"fidelity\": 3, \"loss\": 0.3", /* cut short */
	};
	size_t i;

	ck_assert_int_eq(line("{\"fidelity\": 3, \"loss\": 0.41}", &p),
			 DEHBQ_OK);
	ck_assert(p.fidelity == 3 && p.loss == 0.41 && p.cost == -1);
	ck_assert_int_eq(line("  {\"loss\": -2, \"fidelity\": 0.5, \"cost\": "
			      "7, \"info\": {\"acc\": 0.9}}\r",
			      &p),
			 DEHBQ_OK);
	ck_assert(p.fidelity == 0.5 && p.loss == -2 && p.cost == 7);
	for (i = 0; i < sizeof(notours) / sizeof(notours[0]); i++)
		ck_assert_msg(line(notours[i], &p) == DEHBQ_ENOENT, "%s",
			      notours[i]);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(progress_line(bad[i], strlen(bad[i]), &p, err) ==
				      DEHBQ_EINVAL,
			      "%s", bad[i]);
		ck_assert_msg(strstr(err, "progress line"), "%s", err);
	}
	/* a line that is not UTF-8 */
	ck_assert_int_eq(line("{\"fidelity\": 1, \"loss\": 1, \"info\": "
			      "{\"a\": \"\xff\"}}",
			      &p),
			 DEHBQ_EINVAL);
}
END_TEST

START_TEST(test_progress_file_bounded)
{
	struct progress pr, back;
	struct progress_point p = {0, 0, -1};
	char err[DEHBQ_ERRLEN], *txt;
	int i;

	progress_init(&pr, "00000012", 2, "0123456789ab");
	for (i = 1; i <= 100000; i++) {
		p.fidelity = i;
		p.loss = 1.0 / i;
		p.cost = i % 2 ? -1 : i * 0.5;
		ck_assert_int_eq(progress_add(&pr, &p), DEHBQ_OK);
		ck_assert_uint_le(pr.n, PROGRESS_MAX_POINTS);
	}
	/* the last point is always in, fidelities go up, nothing is lost
	 * but counted */
	ck_assert(progress_last(&pr)->fidelity == 100000);
	ck_assert_int_eq((int64_t)pr.n + pr.thinned, 100000);
	for (i = 1; i < (int)pr.n; i++)
		ck_assert(pr.pt[i].fidelity > pr.pt[i - 1].fidelity);
	/* a fidelity that does not go up is refused, and changes nothing */
	p.fidelity = 100000;
	ck_assert_int_eq(progress_add(&pr, &p), DEHBQ_EINVAL);
	p.fidelity = NAN;
	ck_assert_int_eq(progress_add(&pr, &p), DEHBQ_EINVAL);
	ck_assert_int_eq(progress_render(&pr, &txt), DEHBQ_OK);
	ck_assert_uint_le(strlen(txt), PROGRESS_CAP);
	ck_assert_int_eq(progress_parse("p", txt, strlen(txt), &back, err),
			 DEHBQ_OK);
	ck_assert_uint_eq(back.n, pr.n);
	ck_assert_int_eq(back.thinned, pr.thinned);
	ck_assert_int_eq(back.attempt, 2);
	ck_assert_str_eq(back.id, "00000012");
	for (i = 0; i < (int)pr.n; i++)
		ck_assert(back.pt[i].fidelity == pr.pt[i].fidelity &&
			  back.pt[i].loss == pr.pt[i].loss &&
			  back.pt[i].cost == pr.pt[i].cost);
	free(txt);
	progress_release(&back);
	progress_release(&pr);
}
END_TEST

START_TEST(test_progress_file_refused)
{
	static const char *const bad[][2] = {
		{"{\"format\":\"dehbq-progress/2\",\"id\":\"00000001\","
		 "\"attempt\":1,\"worker\":\"0123456789ab\",\"thinned\":0,"
		 "\"points\":[]}",
		 "format"},
		{"{\"format\":\"dehbq-progress/1\",\"id\":\"1\","
		 "\"attempt\":1,\"worker\":\"0123456789ab\",\"thinned\":0,"
		 "\"points\":[]}",
		 "'id'"},
		{"{\"format\":\"dehbq-progress/1\",\"id\":\"00000001\","
		 "\"attempt\":1,\"worker\":\"0123456789ab\",\"thinned\":0,"
		 "\"points\":[{\"fidelity\":2,\"loss\":1},{\"fidelity\":2,"
		 "\"loss\":1}]}",
		 "go up"},
		{"{\"format\":\"dehbq-progress/1\",\"id\":\"00000001\","
		 "\"attempt\":1,\"worker\":\"0123456789ab\",\"thinned\":0,"
		 "\"points\":[{\"fidelity\":2}]}",
		 "loss"},
		{"{\"format\":\"dehbq-progress/1\",\"id\":\"00000001\","
		 "\"attempt\":1,\"worker\":\"0123456789ab\",\"thinned\":-1,"
		 "\"points\":[]}",
		 "thinned"},
		{"{\"format\":\"dehbq-progress/1\",\"id\":\"00000001\","
		 "\"attempt\":1,\"worker\":\"0123456789ab\",\"thinned\":0,"
		 "\"points\":[],\"x\":1}",
		 "x"},
	};
	struct progress pr;
	char err[DEHBQ_ERRLEN];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(progress_parse("progress/f.json", bad[i][0],
					     strlen(bad[i][0]), &pr,
					     err) == DEHBQ_EINVAL,
			      "%s", bad[i][0]);
		ck_assert_msg(strstr(err, "progress/f.json") &&
				      strstr(err, bad[i][1]),
			      "%s: %s", bad[i][1], err);
	}
}
END_TEST

/* A stopped result has a loss and the fidelity it reached. */
START_TEST(test_result_stopped)
{
	struct result r, back;
	char err[DEHBQ_ERRLEN], *txt;

	ck_assert_int_eq(result_init(&r), DEHBQ_OK);
	memcpy(r.id, "00000003", 9);
	memcpy(r.study, "0b5c4d1e-7a8f-4c2b-9d3e-1f2a3b4c5d6e", 37);
	memcpy(r.worker, "0123456789ab", 13);
	memcpy(r.host, "h", 2);
	r.pid = 1;
	r.attempt = 1;
	r.status = RESULT_STOPPED;
	r.loss = 0.5;
	r.cost = 2;
	r.fidelity = 0; /* stopped needs the fidelity it reached */
	ck_assert_int_eq(result_render(&r, &txt), DEHBQ_EINVAL);
	r.fidelity = 9;
	ck_assert_int_eq(result_render(&r, &txt), DEHBQ_OK);
	ck_assert_int_eq(result_parse("r", txt, strlen(txt), &back, err),
			 DEHBQ_OK);
	ck_assert_int_eq(back.status, RESULT_STOPPED);
	ck_assert(back.loss == 0.5 && back.fidelity == 9);
	ck_assert(result_has_loss(&back));
	result_release(&back);
	/* without its fidelity, a stopped result is refused */
	*strstr(txt, "\"fidelity\"") = 'X';
	ck_assert_int_eq(result_parse("r", txt, strlen(txt), &back, err),
			 DEHBQ_EINVAL);
	free(txt);
	result_release(&r);
}
END_TEST

/* ---- the stopping schedulers' rules, by hand ---- */

static struct optim *open_stop(const char *name, const char *settings,
			       int64_t fevals)
{
	struct optim_setup u;
	struct optim *o;
	char err[DEHBQ_ERRLEN];
	cJSON *set = cJSON_Parse(settings);

	memset(&u, 0, sizeof(u));
	u.dim = 1;
	u.min_fidelity = 1;
	u.max_fidelity = 27;
	u.eta = 3;
	u.seed = 5;
	u.lim.fevals = fevals;
	u.settings = set;
	ck_assert_msg(optim_open(name, &u, &o, err) == DEHBQ_OK, "%s", err);
	cJSON_Delete(set);
	return o;
}

/*
 * asha-stop: rungs 1, 3, 9 below 27.  Values at rung 1 in this order go
 * on while among the best ceil(n / 3) so far, themselves included.
 */
START_TEST(test_asha_stop_rule)
{
	static const double v[] = {0.5, 0.7, 0.4, 0.45, 0.9, 0.1};
	static const int want[] = {0, 1, 0, 0, 1, 0}; /* 1: stopped */
	struct optim *o = open_stop("asha-stop", "{}", 100);
	struct optim_job j;
	double x[1], f, l;
	int k, stop;

	for (k = 0; k < 6; k++) {
		ck_assert_int_eq(optim_ask(o, &j, x), DEHBQ_OK);
		ck_assert(j.fidelity == 27);
		/* below the first rung: never stopped */
		ck_assert_int_eq(optim_report(o, j.id, 0.5, 9, &stop),
				 DEHBQ_OK);
		ck_assert_int_eq(stop, 0);
		/* a report past a rung records it there */
		ck_assert_int_eq(optim_report(o, j.id, 2, v[k], &stop),
				 DEHBQ_OK);
		ck_assert_msg(stop == want[k], "trial %d: stop %d", k, stop);
		ck_assert_int_eq(optim_reported(o, j.id, &f, &l, &stop),
				 DEHBQ_OK);
		ck_assert(f == 2 && l == v[k] && stop == want[k]);
	}
	/* a stopped trial is told as stopped: done, not failed */
	ck_assert_int_eq(optim_tell(o, 1, OPTIM_OK, 0.1, 1), DEHBQ_OK);
	ck_assert_int_eq(optim_tell(o, 4, OPTIM_STOPPED, NAN, 2), DEHBQ_OK);
	/* one the optimiser did not stop cannot be told so */
	ck_assert_int_eq(optim_tell(o, 0, OPTIM_STOPPED, 1, 1), DEHBQ_EINVAL);
	{
		struct optim_counts c;

		optim_counts(o, &c);
		ck_assert_int_eq(c.told, 2);
		ck_assert_int_eq(c.failed, 0);
	}
	optim_free(o);
}
END_TEST

/*
 * median-stop (startup 2): once 2 trials completed, a report at f stops
 * a trial whose best so far is worse than the completed trials' median
 * at exactly f.
 */
START_TEST(test_median_stop_rule)
{
	struct optim *o =
		open_stop("median-stop", "{\"startup_trials\":2}", 100);
	struct optim_job j[4];
	double x[1];
	int k, stop;

	for (k = 0; k < 4; k++)
		ck_assert_int_eq(optim_ask(o, &j[k], x), DEHBQ_OK);
	/* trials 0 and 1 complete with curves 1.0, 0.8 and 0.6, 0.4 */
	ck_assert_int_eq(optim_report(o, 0, 1, 1.0, &stop), DEHBQ_OK);
	ck_assert_int_eq(optim_report(o, 0, 2, 0.8, &stop), DEHBQ_OK);
	ck_assert_int_eq(optim_report(o, 1, 1, 0.6, &stop), DEHBQ_OK);
	ck_assert_int_eq(optim_report(o, 1, 2, 0.4, &stop), DEHBQ_OK);
	/* before the start-up trials completed, nothing is stopped */
	ck_assert_int_eq(optim_report(o, 2, 1, 5, &stop), DEHBQ_OK);
	ck_assert_int_eq(stop, 0);
	ck_assert_int_eq(optim_tell(o, 0, OPTIM_OK, 0.7, 27), DEHBQ_OK);
	ck_assert_int_eq(optim_tell(o, 1, OPTIM_OK, 0.3, 27), DEHBQ_OK);
	/* median at 2 is 0.6: trial 2's best (5, then 0.61) is worse */
	ck_assert_int_eq(optim_report(o, 2, 2, 0.61, &stop), DEHBQ_OK);
	ck_assert_int_eq(stop, 1);
	/* trial 3: 0.6 at 2 is not worse; at 1.5 no completed trial
	 * reported: it goes on */
	ck_assert_int_eq(optim_report(o, 3, 1.5, 9, &stop), DEHBQ_OK);
	ck_assert_int_eq(stop, 0);
	ck_assert_int_eq(optim_report(o, 3, 2, 0.6, &stop), DEHBQ_OK);
	ck_assert_int_eq(stop, 0);
	/* not above the last, or above the trial's fidelity: refused */
	ck_assert_int_eq(optim_report(o, 3, 2, 0.1, &stop), DEHBQ_EINVAL);
	ck_assert_int_eq(optim_report(o, 3, 28, 0.1, &stop), DEHBQ_EINVAL);
	/* a job takes at most OPTIM_MAX_REPORTS reports */
	for (k = 0; k < OPTIM_MAX_REPORTS - 2; k++)
		ck_assert_int_eq(optim_report(o, 3, 3 + k * 0.01, 0.6, &stop),
				 DEHBQ_OK);
	ck_assert_int_eq(optim_report(o, 3, 26, 0.6, &stop), DEHBQ_ETOOBIG);
	/* a report after a stop, or not above the last, is refused */
	ck_assert_int_eq(optim_report(o, 2, 3, 0.1, &stop), DEHBQ_ESTATE);
	ck_assert_int_eq(optim_report(o, 2, 28, 0.1, &stop), DEHBQ_ESTATE);
	ck_assert_int_eq(optim_report(o, 1, 3, 0.1, &stop), DEHBQ_ESTATE);
	optim_free(o);
}
END_TEST

/*
 * hyperband-stop: a trial is judged only from its bracket's first rung
 * on.  Values that grow with the id stop nearly every trial at the first
 * rung under asha-stop; under hyperband-stop only those of bracket 0, by
 * Hyperband's weights 27 of 49 (min 1, max 27, eta 3: brackets 27, 12, 6
 * and 4 trials).
 */
static int stopped_at_first_rung(const char *name, int n)
{
	struct optim *o = open_stop(name, "{}", n);
	struct optim_job j;
	double x[1];
	int k, stop, stops = 0;

	for (k = 0; k < n; k++) {
		ck_assert_int_eq(optim_ask(o, &j, x), DEHBQ_OK);
		ck_assert_int_eq(optim_report(o, j.id, 2, k, &stop), DEHBQ_OK);
		stops += stop;
		if (stop)
			ck_assert_int_eq(
				optim_tell(o, j.id, OPTIM_STOPPED, NAN, 2),
				DEHBQ_OK);
		else
			ck_assert_int_eq(optim_tell(o, j.id, OPTIM_OK, k, 27),
					 DEHBQ_OK);
	}
	optim_free(o);
	return stops;
}

START_TEST(test_hyperband_stop_brackets)
{
	int asha = stopped_at_first_rung("asha-stop", 490);
	int hb = stopped_at_first_rung("hyperband-stop", 490);

	ck_assert_msg(asha >= 480, "asha-stop stopped %d of 490", asha);
	/* 270 expected; the brackets are drawn, so a wide band */
	ck_assert_msg(hb > 220 && hb < 320, "hyperband-stop stopped %d", hb);
}
END_TEST

/* An optimiser that stops none refuses reports and stopped tells. */
START_TEST(test_report_refused)
{
	struct optim *o = open_stop("fifo", "{}", 10);
	struct optim_job j;
	double x[1];
	int stop;

	ck_assert(!(optim_caps("fifo") & OPTIM_CAP_STOPS));
	ck_assert(optim_caps("asha-stop") & OPTIM_CAP_STOPS);
	ck_assert_int_eq(optim_ask(o, &j, x), DEHBQ_OK);
	ck_assert_int_eq(optim_report(o, j.id, 1, 1, &stop), DEHBQ_EINVAL);
	ck_assert_int_eq(optim_tell(o, j.id, OPTIM_STOPPED, 1, 1),
			 DEHBQ_EINVAL);
	optim_free(o);
}
END_TEST

Suite *progress_suite(void)
{
	Suite *s = suite_create("progress");
	TCase *c = tcase_create("progress");

	tcase_add_test(c, test_progress_line);
	tcase_add_test(c, test_progress_file_bounded);
	tcase_add_test(c, test_progress_file_refused);
	tcase_add_test(c, test_result_stopped);
	tcase_add_test(c, test_asha_stop_rule);
	tcase_add_test(c, test_median_stop_rule);
	tcase_add_test(c, test_hyperband_stop_brackets);
	tcase_add_test(c, test_report_refused);
	suite_add_tcase(s, c);
	return s;
}
