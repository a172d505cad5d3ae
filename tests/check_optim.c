/*
 * check_optim.c - the optimiser contract, run over every entry of
 * optim_table[] and every composition (optvar.h): unique ids, vectors in
 * the unit cube, a double tell refused, save -> load -> continue identical
 * to continuing, the same seed giving the same trajectory, tells in random
 * order and failures never crashing, requeues, and every budget honoured
 * exactly.
 */
#include "benchfn.h"
#include "err.h"
#include "jsonbuf.h"
#include "mobj.h"
#include "optim.h"
#include "optvar.h"
#include "rng.h"
#include "testutil.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ids 0, 1, 2, ... unique; the run ends with exactly fevals asked. */
START_TEST(test_optim_ids_unique_and_fevals_exact)
{
	struct optim *o = ov_open(_i, 11, 200);
	struct optim_counts c;
	struct drv d;

	(void)ov_name(_i);

	drv_init(&d, o, 4, 5);
	while (drv_step(&d))
		;
	optim_counts(o, &c);
	ck_assert_int_eq(c.asked, 200);
	ck_assert_int_eq(c.told, 200);
	ck_assert_int_eq(c.failed, d.fails);
	ck_assert_int_eq(c.inflight, 0);
	ck_assert(optim_finished(o));
	/* the log's ids are 0..199 in order */
	{
		const char *p = d.log.p;
		uint64_t want = 0;

		while (p && *p) {
			ck_assert_uint_eq(strtoull(p, NULL, 10), want++);
			p = strchr(p, '\n');
			p = p ? p + 1 : NULL;
		}
		ck_assert_uint_eq(want, 200);
	}
	ck_assert_int_eq(ov_tell(o, 200, OPTIM_OK, 1, 1), DEHBQ_ENOENT);
	ck_assert_int_eq(ov_tell(o, 3, OPTIM_OK, 1, 1), DEHBQ_ESTATE);
	jsonbuf_free(&d.log);
	optim_free(o);
}
END_TEST

/* Same seed, same tell order: the same asks, bit for bit; another seed
 * differs. */
START_TEST(test_optim_same_seed_same_trajectory)
{
	struct optim *a = ov_open(_i, 3, 150), *b = ov_open(_i, 3, 150);
	struct optim *c = ov_open(_i, 4, 150);
	struct drv da, db, dc;

	(void)ov_name(_i);

	drv_init(&da, a, 8, 9);
	drv_init(&db, b, 8, 9);
	drv_init(&dc, c, 8, 9);
	while (drv_step(&da))
		;
	while (drv_step(&db))
		;
	while (drv_step(&dc))
		;
	tu_assert_same(ov_name(_i), da.log.p, db.log.p);
	ck_assert_str_ne(da.log.p, dc.log.p);
	jsonbuf_free(&da.log);
	jsonbuf_free(&db.log);
	jsonbuf_free(&dc.log);
	optim_free(a);
	optim_free(b);
	optim_free(c);
}
END_TEST

/* save -> load -> continue is identical to continuing, at several points
 * and with jobs in flight. */
START_TEST(test_optim_save_load_continue_identical)
{
	static const int at[] = {0, 1, 7, 40, 97};
	char err[DEHBQ_ERRLEN];
	size_t k;

	(void)ov_name(_i);

	for (k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
		struct optim *a = ov_open(_i, 21, 160), *b, *e;
		struct jsonbuf hist;
		struct optim_setup u;
		struct drv da, db;
		char *ta, *tb;
		cJSON *j;
		int s;

		drv_init(&da, a, 6, 13);
		jsonbuf_init(&hist);
		for (s = 0; s < at[k] && drv_step(&da); s++)
			ov_take_history(
				a, &hist); /* as the scheduler, per batch */
		ta = ov_save_text(a);
		ck_assert_ptr_nonnull(j = cJSON_Parse(ta));
		ov_setup(&u, 21, 160);
		ck_assert_msg(optim_load(j, &u, hist.p, hist.len, &b, err) ==
				      DEHBQ_OK,
			      "%s: %s", ov_name(_i), err);
		if (optim_keeps_history(a) && at[k] > 20) {
			/* without its history, the state does not load */
			ck_assert_int_eq(optim_load(j, &u, NULL, 0, &e, err),
					 DEHBQ_EINVAL);
			ck_assert_msg(strstr(err, "history"), "%s", err);
			/* a truncated history neither */
			ck_assert_int_eq(optim_load(j, &u, hist.p, hist.len - 2,
						    &e, err),
					 DEHBQ_EINVAL);
		}
		jsonbuf_free(&hist);
		cJSON_Delete(j);
		tb = ov_save_text(b);
		tu_assert_same(ov_name(_i), ta,
			       tb); /* load then save: the same text */
		free(tb);
		/* the copy continues with the driver's exact state */
		db = da;
		db.o = b;
		jsonbuf_init(&db.log);
		jsonbuf_free(&da.log);
		jsonbuf_init(&da.log);
		while (drv_step(&da))
			;
		while (drv_step(&db))
			;
		tu_assert_same(ov_name(_i), da.log.p ? da.log.p : "",
			       db.log.p ? db.log.p : "");
		free(ta);
		ta = ov_save_text(a);
		tb = ov_save_text(b);
		tu_assert_same(ov_name(_i), ta, tb);
		free(ta);
		free(tb);
		jsonbuf_free(&da.log);
		jsonbuf_free(&db.log);
		optim_free(a);
		optim_free(b);
	}
}
END_TEST

/*
 * dehbq extend: a run whose limit is raised when it is exhausted goes on
 * exactly as a run opened with the higher limit (one job in flight, so
 * both see the same asks and tells), also through a save and a load
 * right after the extension, with the setup's original, lower limit: the
 * snapshot's limits win.  A limit neither shrinks nor appears.
 */
static void extend_run(int v, int brackets)
{
	struct optim_limits lo = {0}, hi = {0}, bad;
	struct optim_setup u;
	struct optim *a, *b, *c;
	struct jsonbuf hist;
	struct drv da, db;
	char err[DEHBQ_ERRLEN], *ta, *tb;
	cJSON *j;

	(void)ov_name(v); /* its settings, before ov_setup */
	if (brackets) {
		lo.brackets = 2;
		hi.brackets = 5;
	} else {
		lo.fevals = 45;
		hi.fevals = 110;
	}
	ov_setup(&u, 31, 0);
	u.lim = hi;
	ck_assert_int_eq(optim_open(ov_name(v), &u, &a, err), DEHBQ_OK);
	u.lim = lo;
	ck_assert_int_eq(optim_open(ov_name(v), &u, &b, err), DEHBQ_OK);
	drv_init(&da, a, 1, 17);
	drv_init(&db, b, 1, 17);
	jsonbuf_init(&hist);
	while (drv_step(&db))
		ov_take_history(b, &hist);
	ck_assert(optim_finished(b));
	/* what may not change, and nothing changes with it */
	bad = hi;
	bad.cost = 5;
	ck_assert_int_eq(optim_extend(b, &bad, err), DEHBQ_EINVAL);
	ck_assert_msg(strstr(err, "total_cost: the study has no such limit"),
		      "%s", err);
	bad = lo;
	if (brackets)
		bad.brackets = 1;
	else
		bad.fevals = 44;
	ck_assert_int_eq(optim_extend(b, &bad, err), DEHBQ_EINVAL);
	ck_assert_msg(strstr(err, "is below the current"), "%s", err);
	ck_assert(optim_finished(b));
	ck_assert_int_eq(optim_extend(b, &hi, err), DEHBQ_OK);
	ck_assert(!optim_exhausted(b));
	/* save, load with the study's original limits, continue */
	ta = ov_save_text(b);
	ck_assert_ptr_nonnull(j = cJSON_Parse(ta));
	ck_assert_msg(optim_load(j, &u, hist.p, hist.len, &c, err) == DEHBQ_OK,
		      "%s: %s", ov_name(v), err);
	cJSON_Delete(j);
	jsonbuf_free(&hist);
	tb = ov_save_text(c);
	tu_assert_same(ov_name(v), ta, tb);
	free(ta);
	free(tb);
	optim_free(b);
	db.o = c;
	while (drv_step(&db))
		;
	while (drv_step(&da))
		;
	tu_assert_same(ov_name(v), da.log.p, db.log.p);
	ta = ov_save_text(a);
	tb = ov_save_text(c);
	tu_assert_same(ov_name(v), ta, tb);
	free(ta);
	free(tb);
	jsonbuf_free(&da.log);
	jsonbuf_free(&db.log);
	optim_free(a);
	optim_free(c);
}

START_TEST(test_optim_extend_continues_as_if_opened_so)
{
	extend_run(_i, 0);
	extend_run(_i, 1);
}
END_TEST

/* A forbidden region (x0 > 0.6 and x1 < 0.4: 24 % of the space). */
static int feasible_q(void *arg, const double *x)
{
	(void)arg;
	return !(x[0] > 0.6 && x[1] < 0.4);
}

/* Every vector the driver logged (the last DIM fields of each line). */
static int log_all_feasible(const char *p)
{
	while (p && *p) {
		const char *end = strchr(p, '\n'), *q = end;
		double x[DIM];
		int k;

		for (k = DIM - 1; k >= 0; k--) {
			while (q > p && q[-1] != ' ')
				q--;
			x[k] = strtod(q, NULL);
			q--;
		}
		if (!feasible_q(NULL, x))
			return 0;
		p = end ? end + 1 : NULL;
	}
	return 1;
}

/*
 * Forbidden configurations (feasible() says 0) never leave optim_ask; they
 * count for no limit, and save -> load -> continue stays identical with
 * them in the history.
 */
/* A pair whose searcher proposes from the prior alone (cts), or gcp under
 * a scheduler that starts configurations low (asha, sh, hyperband) or
 * models each rung (the stopping ones): its first asks are mostly the
 * prior's; or a model under pbt (below).  Such a pair may propose
 * nothing forbidden. */
static int prior_pair(int i)
{
	const char *sched, *sr;
	int k = i - ov_table_len() - ov_composed_len();

	if (k < 0)
		return 0;
	sched = ov_pair(k, &sr);
	if (search_find(sr)->caps & SEARCH_CAP_NEEDS_TRANSFER)
		return 1;
	/* pbt's searcher proposes only the population (40) and resamples:
	 * a model's proposals may all miss the corner */
	if (!strcmp(sched, "pbt"))
		return (search_find(sr)->caps & SEARCH_CAP_LEARNS) != 0;
	return (optim_caps(sched) &
		(OPTIM_CAP_RUNGS | OPTIM_CAP_BRACKETS | OPTIM_CAP_STOPS)) &&
	       !strcmp(sr, "gcp");
}

START_TEST(test_optim_forbidden_never_asked)
{
	struct optim_setup u;
	struct optim *a, *b;
	struct optim_counts c;
	struct jsonbuf hist;
	struct drv da, db;
	char err[DEHBQ_ERRLEN], *ta;
	cJSON *j;

	(void)ov_name(_i); /* its settings, before ov_setup */
	int s;

	ov_setup(&u, 41, 120);
	u.feasible = feasible_q;
	ck_assert_int_eq(optim_open(ov_name(_i), &u, &a, err), DEHBQ_OK);
	drv_init(&da, a, 4, 3);
	jsonbuf_init(&hist);
	for (s = 0; s < 40 && drv_step(&da); s++)
		ov_take_history(a, &hist);
	ta = ov_save_text(a);
	ck_assert_ptr_nonnull(j = cJSON_Parse(ta));
	ck_assert_msg(optim_load(j, &u, hist.p, hist.len, &b, err) == DEHBQ_OK,
		      "%s: %s", ov_name(_i), err);
	cJSON_Delete(j);
	free(ta);
	jsonbuf_free(&hist);
	db = da;
	db.o = b;
	jsonbuf_init(&db.log);
	jsonbuf_free(&da.log);
	jsonbuf_init(&da.log);
	while (drv_step(&da))
		;
	while (drv_step(&db))
		;
	tu_assert_same(ov_name(_i), da.log.p, db.log.p);
	ck_assert(log_all_feasible(da.log.p));
	optim_counts(a, &c);
	ck_assert_int_eq(c.asked, 120);
	ck_assert_int_eq(c.told, 120);
	/* the prior, fitted on tasks whose optimum is far from the
	 * forbidden corner, never leads there: CTS, DEHB+prior and ASHA
	 * with GCP+prior (whose rung-0 asks are mostly CTS's), as the
	 * composition or the pair */
	ck_assert_msg(
		c.forbidden > 0 || !strcmp(ov_name(_i), "cts") ||
			(!strcmp(ov_name(_i), "dehb") && !ov_notransfer) ||
			_i == ov_table_len() + ov_composed_len() - 1 ||
			prior_pair(_i),
		"%s: no forbidden proposal to refuse", ov_name(_i));
	jsonbuf_free(&da.log);
	jsonbuf_free(&db.log);
	optim_free(a);
	optim_free(b);
}
END_TEST

/* Many workers, tells in random order, one in ten failed: no crash, the
 * books add up, and the incumbents are the best told. */
START_TEST(test_optim_random_order_tells)
{
	struct optim *o = ov_open(_i, 99, 500);
	struct optim_counts c;
	struct optim_best any, max;
	struct drv d;

	(void)ov_name(_i);

	drv_init(&d, o, MAXW, 77);
	while (drv_step(&d))
		;
	optim_counts(o, &c);
	ck_assert_int_eq(c.asked, 500);
	ck_assert_int_eq(c.failed, d.fails);
	ck_assert_int_eq(optim_best(o, OPTIM_BEST_ANY, &any, NULL), DEHBQ_OK);
	if (optim_best(o, OPTIM_BEST_MAX, &max, NULL) == DEHBQ_OK) {
		ck_assert(max.fidelity == 27);
		ck_assert(any.loss <= max.loss);
	}
	jsonbuf_free(&d.log);
	optim_free(o);
}
END_TEST

/* The cost limit counts work in flight: the total never passes the limit
 * by more than one job's fidelity, and is reached. */
START_TEST(test_optim_cost_budget_counts_inflight)
{
	struct optim_setup u;
	struct optim *o;
	struct optim_counts c;
	char err[DEHBQ_ERRLEN];
	struct drv d;

	(void)ov_name(_i);

	ov_setup(&u, 5, 0);
	u.lim.cost = 600;
	ck_assert_int_eq(optim_open(ov_name(_i), &u, &o, err), DEHBQ_OK);
	drv_init(&d, o, 8, 1);
	while (drv_step(&d))
		;
	optim_counts(o, &c);
	ck_assert_msg(c.total_cost >= 600 && c.total_cost < 600 + 27,
		      "%s: total cost %g", ov_name(_i), c.total_cost);
	jsonbuf_free(&d.log);
	optim_free(o);
}
END_TEST

/*
 * Exactly: with a cost limit equal to the sum of the first k fidelities,
 * the optimiser is exhausted after k asks and no tell; a tell of a cheaper
 * real cost makes room again; a save and load keep the charge.
 */
START_TEST(test_optim_cost_charge_is_exact)
{
	struct optim_setup u;
	struct optim *o, *e;
	struct optim_job j[5];
	char err[DEHBQ_ERRLEN], *t;
	double x[DIM], sum = 0;
	cJSON *js;
	int k;

	(void)ov_name(_i);

	o = ov_open(_i, 5, 0);
	for (k = 0; k < 5; k++) {
		ck_assert_int_eq(optim_ask(o, &j[k], x), DEHBQ_OK);
		sum += j[k].fidelity;
	}
	optim_free(o);
	ov_setup(&u, 5, 0);
	u.lim.cost = sum;
	ck_assert_int_eq(optim_open(ov_name(_i), &u, &o, err), DEHBQ_OK);
	for (k = 0; k < 5; k++) {
		ck_assert_msg(!optim_exhausted(o), "%s: %d", ov_name(_i), k);
		ck_assert_int_eq(optim_ask(o, &j[k], x), DEHBQ_OK);
	}
	ck_assert(optim_exhausted(o));
	ck_assert_int_eq(optim_ask(o, &j[0], x), DEHBQ_EDONE);
	t = ov_save_text(o);
	ck_assert_ptr_nonnull(js = cJSON_Parse(t));
	ck_assert_int_eq(optim_load(js, &u, NULL, 0, &e, err), DEHBQ_OK);
	ck_assert(optim_exhausted(e));
	ck_assert_int_eq(ov_tell(o, j[0].id, OPTIM_OK, 1, j[0].fidelity / 2),
			 DEHBQ_OK);
	ck_assert(!optim_exhausted(o));
	cJSON_Delete(js);
	free(t);
	optim_free(e);
	optim_free(o);
}
END_TEST

/* A parameter of many choices (more than any scratch sized by the
 * history): every optimiser runs, and RE's mutations change its bin. */
START_TEST(test_optim_many_choices)
{
	static const int many[DIM] = {300, 0, 2};
	struct optim_setup u;
	struct optim *o;
	char err[DEHBQ_ERRLEN];
	struct drv d;

	(void)ov_name(_i);

	ov_setup(&u, 3, 80);
	u.choices = many;
	ck_assert_int_eq(optim_open(ov_name(_i), &u, &o, err), DEHBQ_OK);
	drv_init(&d, o, 3, 2);
	while (drv_step(&d))
		;
	jsonbuf_free(&d.log);
	optim_free(o);
}
END_TEST

/* Wall time and brackets. */
START_TEST(test_optim_walltime_and_brackets)
{
	struct optim_setup u;
	struct optim *o;
	struct optim_job j;
	struct optim_counts c;
	char err[DEHBQ_ERRLEN];
	double x[DIM];
	struct drv d;

	(void)ov_name(_i);

	ov_setup(&u, 5, 0);
	u.lim.walltime = 10;
	ck_assert_int_eq(optim_open(ov_name(_i), &u, &o, err), DEHBQ_OK);
	ck_assert_int_eq(optim_ask(o, &j, x), DEHBQ_OK);
	optim_set_elapsed(o, 10);
	ck_assert_int_eq(optim_ask(o, &j, x), DEHBQ_EDONE);
	ck_assert(optim_exhausted(o) && !optim_finished(o));
	ck_assert_int_eq(ov_tell(o, 0, OPTIM_OK, 1, 1), DEHBQ_OK);
	ck_assert(optim_finished(o));
	optim_free(o);

	ov_setup(&u, 5, 0);
	u.lim.brackets = 3;
	ck_assert_int_eq(optim_open(ov_name(_i), &u, &o, err), DEHBQ_OK);
	drv_init(&d, o, 4, 1);
	while (drv_step(&d))
		;
	optim_counts(o, &c);
	if (c.brackets)
		ck_assert_int_eq(c.brackets, 3);
	else
		ck_assert_int_eq(c.asked, 3);
	jsonbuf_free(&d.log);
	optim_free(o);
}
END_TEST

/* A failed job comes back (dehbq requeue) and its new result counts. */
START_TEST(test_optim_reopen_failed_job)
{
	struct optim *o = ov_open(_i, 8, 50);
	struct optim_job j, back;
	struct optim_counts c;
	double x[DIM];

	(void)ov_name(_i);

	ck_assert_int_eq(optim_ask(o, &j, x), DEHBQ_OK);
	ck_assert_int_eq(optim_reopen(o, &j, x), DEHBQ_ESTATE); /* in flight */
	ck_assert_int_eq(ov_tell(o, j.id, OPTIM_FAILED, 0, 1), DEHBQ_OK);
	back = j;
	back.id = 5;
	ck_assert_int_eq(optim_reopen(o, &back, x), DEHBQ_ENOENT);
	back = j;
	snprintf(back.state, sizeof(back.state), "{\"bogus\":1}");
	if (j.state[0])
		ck_assert_int_eq(optim_reopen(o, &back, x), DEHBQ_EINVAL);
	ck_assert_int_eq(optim_reopen(o, &j, x), DEHBQ_OK);
	optim_counts(o, &c);
	ck_assert_int_eq(c.told, 0);
	ck_assert_int_eq(c.failed, 0);
	ck_assert_int_eq(c.inflight, 1);
	ck_assert_int_eq(ov_tell(o, j.id, OPTIM_OK, 0.5, 1), DEHBQ_OK);
	optim_counts(o, &c);
	ck_assert_int_eq(c.told, 1);
	ck_assert_int_eq(c.failed, 0);
	optim_free(o);
}
END_TEST

/* Saved state of another format or optimiser is refused, not misread. */
START_TEST(test_optim_load_refuses_other_formats)
{
	struct optim *o = ov_open(_i, 1, 10), *b;
	struct optim_setup u;
	char err[DEHBQ_ERRLEN], *t = ov_save_text(o), *p;
	cJSON *j;

	(void)ov_name(_i);

	ov_setup(&u, 1, 10);
	p = strstr(t, OPTIM_FORMAT);
	ck_assert_ptr_nonnull(p);
	p[strlen(OPTIM_FORMAT) - 1] = '9';
	ck_assert_ptr_nonnull(j = cJSON_Parse(t));
	ck_assert_int_eq(optim_load(j, &u, NULL, 0, &b, err), DEHBQ_EUNSUP);
	ck_assert_msg(strstr(err, "dehbq-optim/9"), "%s", err);
	cJSON_Delete(j);
	ck_assert_ptr_nonnull(j = cJSON_Parse("{\"counts\":{}}"));
	ck_assert_int_eq(optim_load(j, &u, NULL, 0, &b, err), DEHBQ_EUNSUP);
	ck_assert_msg(strstr(err, "older dehbq"), "%s", err);
	cJSON_Delete(j);
	free(t);
	/* the study's setup must be the saved one */
	t = ov_save_text(o);
	ck_assert_ptr_nonnull(j = cJSON_Parse(t));
	u.seed = 2;
	ck_assert_int_eq(optim_load(j, &u, NULL, 0, &b, err), DEHBQ_EINVAL);
	cJSON_Delete(j);
	free(t);
	optim_free(o);
}
END_TEST

/* Settings: defaults filled in, unknown keys refused with their name. */
START_TEST(test_optim_settings_validated)
{
	cJSON *in = cJSON_Parse("{\"no_such_setting\":1}"), *out;
	char err[DEHBQ_ERRLEN];

	(void)ov_name(_i);

	ck_assert_int_eq(optim_settings(ov_name(_i), NULL, &out, err),
			 DEHBQ_OK);
	ck_assert(cJSON_IsObject(out));
	cJSON_Delete(out);
	ck_assert_int_eq(optim_settings(ov_name(_i), in, &out, err),
			 DEHBQ_EINVAL);
	ck_assert_msg(strstr(err, "optimizer.no_such_setting"), "%s", err);
	cJSON_Delete(in);
}
END_TEST

/* gp's batch and hyperparameters, tpe's hypervolume_weights: refused, the
 * field named. */
START_TEST(test_optim_new_settings_refused)
{
	static const char *const bad[][3] = {
		{"gp", "{\"batch\":\"penalise\",\"acquisition\":\"ts\"}",
		 "'acquisition' to 'ei'"},
		{"gp", "{\"batch\":\"liar\"}", "batch"},
		{"gp", "{\"hyperparameters\":\"mcmc\",\"acquisition\":\"ucb\"}",
		 "'hyperparameters' to 'ml'"},
		{"gp", "{\"hyperparameters\":\"mcmc\",\"batch\":\"penalise\"}",
		 "'hyperparameters' to 'ml'"},
		{"gp", "{\"mcmc_samples\":0}", "mcmc_samples"},
		{"gp", "{\"hyperparameters\":\"nuts\"}", "hyperparameters"},
		{"tpe", "{\"hypervolume_weights\":1}", "hypervolume_weights"},
	};
	char err[DEHBQ_ERRLEN];
	cJSON *out;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cJSON *in = cJSON_Parse(bad[i][1]);

		ck_assert_int_eq(optim_settings(bad[i][0], in, &out, err),
				 DEHBQ_EINVAL);
		ck_assert_msg(strstr(err, bad[i][2]), "%s", err);
		cJSON_Delete(in);
	}
}
END_TEST

/* DEHB beats random search on Branin at equal cost (10 seeds). */
static double branin_regret(const char *name, uint64_t seed)
{
	struct optim_setup u;
	struct optim_job j;
	struct optim_best b;
	struct benchfn f;
	struct optim *o;
	struct rng noise;
	char err[DEHBQ_ERRLEN];
	double x[2], spent = 0;

	ck_assert_int_eq(benchfn_init(&f, "branin", err), DEHBQ_OK);
	memset(&u, 0, sizeof(u));
	u.dim = f.dim;
	u.min_fidelity = f.min_budget;
	u.max_fidelity = f.max_budget;
	u.eta = 3;
	u.seed = seed;
	ck_assert_int_eq(optim_open(name, &u, &o, err), DEHBQ_OK);
	rng_seed(&noise, seed + 1000);
	while (spent < 100 * 60) {
		ck_assert_int_eq(optim_ask(o, &j, x), DEHBQ_OK);
		ck_assert_int_eq(
			ov_tell(o, j.id, OPTIM_OK,
				benchfn_loss(&f, x, j.fidelity, &noise),
				j.fidelity),
			DEHBQ_OK);
		spent += j.fidelity;
	}
	if (optim_best(o, OPTIM_BEST_MAX, &b, x) != DEHBQ_OK)
		optim_best(o, OPTIM_BEST_ANY, &b, x);
	optim_free(o);
	return benchfn_regret(&f, x);
}

START_TEST(test_optim_dehb_beats_random_search_on_branin)
{
	double rd = 0, rr = 0;
	uint64_t s;

	for (s = 0; s < 10; s++) {
		rd += branin_regret("dehb", s);
		rr += branin_regret("random", s);
	}
	ck_assert_msg(rd < rr, "DEHB mean regret %g, random %g", rd / 10,
		      rr / 10);
}
END_TEST

/*
 * The halton searcher: the first b^k points of dimension j (base b, its
 * prime) put exactly one point in each of the b^k equal intervals of
 * [0, 1), for every seed (the digit multipliers permute the points and the
 * shift rotates them, modulo 1); the seed changes the points; save -> load
 * continues the sequence.
 */
START_TEST(test_search_halton_stratifies)
{
	static const int base[3] = {2, 3, 5}, npt[3] = {256, 243, 125};
	const struct search_ops *h = search_find("halton");
	static const double top = 27;
	struct search_setup u = {.dim = 3,
				 .seed = 11,
				 .min_fidelity = 1,
				 .max_fidelity = 27,
				 .ladder = &top,
				 .levels = 1};
	double x[3], y[3], first[3];
	char err[DEHBQ_ERRLEN], hit[256];
	enum trial_kind kind;
	struct jsonbuf b;
	cJSON *js;
	void *st, *st2;
	int j, n, seed;

	ck_assert_ptr_nonnull(h);
	for (seed = 1; seed <= 3; seed++) {
		u.seed = (uint64_t)seed;
		for (j = 0; j < 3; j++) {
			ck_assert_int_eq(h->open(&u, &st, err), DEHBQ_OK);
			memset(hit, 0, sizeof(hit));
			for (n = 0; n < npt[j]; n++) {
				ck_assert_int_eq(h->propose(st, 27, x, &kind),
						 DEHBQ_OK);
				ck_assert(x[j] >= 0 && x[j] < 1);
				if (!n && !j)
					first[seed - 1] = x[0];
				hit[(int)(x[j] * npt[j])]++;
			}
			for (n = 0; n < npt[j]; n++)
				ck_assert_msg(hit[n] == 1,
					      "base %d, seed %d: interval %d "
					      "holds %d points",
					      base[j], seed, n, hit[n]);
			h->free(st);
		}
	}
	ck_assert(first[0] != first[1] && first[1] != first[2]);
	/* save after 7 points, load, continue: the same 8th point */
	ck_assert_int_eq(h->open(&u, &st, err), DEHBQ_OK);
	for (n = 0; n < 7; n++)
		h->propose(st, 27, x, &kind);
	jsonbuf_init(&b);
	ck_assert_int_eq(h->save(st, &b), DEHBQ_OK);
	ck_assert_ptr_nonnull(js = cJSON_Parse(b.p));
	ck_assert_int_eq(h->load(&u, js, &st2, err), DEHBQ_OK);
	h->propose(st, 27, x, &kind);
	h->propose(st2, 27, y, &kind);
	ck_assert_mem_eq(x, y, sizeof(x));
	cJSON_Delete(js);
	jsonbuf_free(&b);
	h->free(st);
	h->free(st2);
}
END_TEST

/* ASHA promotes a rung's best result once a third of the rung is in. */
START_TEST(test_optim_asha_promotes_top_third)
{
	struct optim_setup u;
	struct optim *o;
	struct optim_job j[4];
	char err[DEHBQ_ERRLEN];
	double x[DIM];
	int i;

	ov_setup(&u, 1, 0);
	u.lim.fevals = 100;
	ck_assert_int_eq(optim_open("asha", &u, &o, err), DEHBQ_OK);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(optim_ask(o, &j[i], x), DEHBQ_OK);
		ck_assert_int_eq(j[i].rung, 0);
		ck_assert(j[i].fidelity == 1);
	}
	ck_assert_int_eq(ov_tell(o, 1, OPTIM_OK, 0.2, 1), DEHBQ_OK);
	ck_assert_int_eq(ov_tell(o, 0, OPTIM_OK, 0.9, 1), DEHBQ_OK);
	ck_assert_int_eq(optim_ask(o, &j[3], x), DEHBQ_OK); /* 2 of 3: none */
	ck_assert_int_eq(j[3].rung, 0);
	ck_assert_int_eq(ov_tell(o, 2, OPTIM_OK, 0.5, 1), DEHBQ_OK);
	ck_assert_int_eq(optim_ask(o, &j[3], x), DEHBQ_OK); /* 3: top 1 */
	ck_assert_int_eq(j[3].rung, 1);
	ck_assert(j[3].fidelity == 3);
	ck_assert_int_eq(j[3].kind, OPTIM_KIND_PROMOTION);
	ck_assert_int_eq(j[3].parent, 1);
	ck_assert_int_eq(optim_ask(o, &j[3], x), DEHBQ_OK); /* no repeat */
	ck_assert_int_eq(j[3].rung, 0);
	optim_free(o);
}
END_TEST

/* RE ages out the oldest member, not the worst. */
START_TEST(test_optim_re_removes_oldest)
{
	struct optim_setup u;
	struct optim *o;
	struct optim_job j;
	cJSON *in = cJSON_Parse("{\"population_size\":3,\"sample_size\":3}");
	char err[DEHBQ_ERRLEN];
	double x[DIM];
	int i;

	ov_setup(&u, 1, 0);
	u.lim.fevals = 100;
	u.settings = in;
	ck_assert_int_eq(optim_open("re", &u, &o, err), DEHBQ_OK);
	/* the best (0.0) is told first, so it is the first to age out */
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(optim_ask(o, &j, x), DEHBQ_OK);
		ck_assert_int_eq(j.kind,
				 i < 3 ? OPTIM_KIND_RANDOM : OPTIM_KIND_TRIAL);
		ck_assert_int_eq(ov_tell(o, j.id, OPTIM_OK, i, 27), DEHBQ_OK);
	}
	{
		char *t = ov_save_text(o);

		/* members now: losses 1, 2, 3 (0 aged out) */
		ck_assert_msg(strstr(t, "\"loss\":[3,1,2]"), "%s", t);
		free(t);
	}
	cJSON_Delete(in);
	optim_free(o);
}
END_TEST

/* Composed with ASHA, the model proposes rung 0 and ASHA promotes. */
START_TEST(test_optim_model_proposes_asha_schedules)
{
	/* the composed variants with ASHA: tpe, gp, and gcp (the last) */
	static const char *const names[] = {"tpe", "gp", "gcp"};
	const int variant[] = {0, 1, ov_composed_len() - 1};
	struct optim_setup u;
	struct optim *o;
	struct optim_job j;
	char err[DEHBQ_ERRLEN];
	double x[DIM];
	int k, low = 0, model = 0, promoted = 0;

	ov_name(ov_table_len() + variant[_i]);
	ov_setup(&u, 4, 150);
	ck_assert_int_eq(optim_open(names[_i], &u, &o, err), DEHBQ_OK);
	for (k = 0; k < 150; k++) {
		ck_assert_int_eq(optim_ask(o, &j, x), DEHBQ_OK);
		low += j.rung == 0 && j.fidelity == 1;
		model += j.rung == 0 && j.kind == OPTIM_KIND_TRIAL;
		promoted += j.kind == OPTIM_KIND_PROMOTION;
		ck_assert_int_eq(ov_tell(o, j.id, OPTIM_OK,
					 ov_loss(x, j.fidelity), j.fidelity),
				 DEHBQ_OK);
	}
	ck_assert_msg(low > 50 && promoted > 20 && model > 20,
		      "%s: rung 0 %d, promotions %d, model proposals %d",
		      names[_i], low, promoted, model);
	optim_free(o);
}
END_TEST

Suite *optim_suite(void)
{
	Suite *s = suite_create("optim");
	/* the contract in two cases, which make check runs side by side
	 * (tests/unit.sh takes optim:contract ...) */
	TCase *c = tcase_create("contract");
	TCase *c2 = tcase_create("contract2");
	TCase *b = tcase_create("backends");
	int n = ov_count();

	tcase_set_timeout(c, 120);
	tcase_set_timeout(c2, 120);
	tcase_add_checked_fixture(c, NULL, ov_done);
	tcase_add_checked_fixture(c2, NULL, ov_done);
	tcase_add_loop_test(c, test_optim_ids_unique_and_fevals_exact, 0, n);
	tcase_add_loop_test(c, test_optim_same_seed_same_trajectory, 0, n);
	tcase_add_loop_test(c, test_optim_save_load_continue_identical, 0, n);
	tcase_add_loop_test(c2, test_optim_random_order_tells, 0, n);
	tcase_add_loop_test(c2, test_optim_cost_budget_counts_inflight, 0, n);
	tcase_add_loop_test(c2, test_optim_cost_charge_is_exact, 0, n);
	tcase_add_loop_test(c2, test_optim_many_choices, 0, n);
	tcase_add_loop_test(c2, test_optim_walltime_and_brackets, 0, n);
	tcase_add_loop_test(c2, test_optim_reopen_failed_job, 0, n);
	tcase_add_loop_test(c2, test_optim_extend_continues_as_if_opened_so, 0,
			    n);
	tcase_add_loop_test(c2, test_optim_forbidden_never_asked, 0, n);
	tcase_add_loop_test(c2, test_optim_load_refuses_other_formats, 0, n);
	tcase_add_loop_test(c2, test_optim_settings_validated, 0, n);
	tcase_add_test(b, test_optim_asha_promotes_top_third);
	tcase_add_test(b, test_optim_re_removes_oldest);
	tcase_add_loop_test(b, test_optim_model_proposes_asha_schedules, 0, 3);
	tcase_add_test(b, test_optim_new_settings_refused);
	tcase_add_checked_fixture(b, NULL, ov_done);
	tcase_add_test(b, test_search_halton_stratifies);
	tcase_add_test(b, test_optim_dehb_beats_random_search_on_branin);
	suite_add_tcase(s, c);
	suite_add_tcase(s, c2);
	suite_add_tcase(s, b);
	return s;
}
