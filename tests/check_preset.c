/*
 * check_preset.c - the presets (optim/preset.c): each runs as its searcher
 * under its scheduler, ask for ask, and splits its settings between them;
 * and a study of one fidelity (min = max), which every optimiser of
 * OPTIM_CAP_ONE_FIDELITY runs at that fidelity and every other refuses
 */
#include "optim.h"
#include "optvar.h"
#include "searcher.h"

#include "err.h"
#include "jsonbuf.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Run o to the end with the driver; its log (malloc'ed). */
static char *run_log(struct optim *o)
{
	struct drv d;
	char *log;

	drv_init(&d, o, 3, 5);
	while (drv_step(&d))
		;
	log = strdup(d.log.p ? d.log.p : "");
	jsonbuf_free(&d.log);
	return log;
}

/*
 * Every preset, with its defaults, asks the jobs its searcher asks under
 * its scheduler ({"searcher": S} and what the preset fixes, the
 * searcher's defaults too).
 */
START_TEST(test_preset_is_its_composition)
{
	struct optim_setup u;
	struct optim *a, *b;
	char err[DEHBQ_ERRLEN], *la, *lb;
	int i, k, n = 0;

	for (i = 0; optim_table[i]; i++) {
		const struct optim_ops *p = optim_table[i];
		const char *sched =
			p->under ? p->under : optim_default_scheduler();
		cJSON *set;

		if (!p->preset)
			continue;
		set = cJSON_CreateObject();
		n++;
		ov_setup(&u, 11, 40); /* earlier tasks, for cts and gcp */
		ck_assert_msg(optim_open(p->name, &u, &a, err) == DEHBQ_OK,
			      "%s: %s", p->name, err);
		cJSON_AddStringToObject(set, "searcher", p->preset);
		for (k = 0; p->under_set && p->under_set[k]; k += 2)
			cJSON_AddStringToObject(set, p->under_set[k],
						p->under_set[k + 1]);
		u.settings = set;
		ck_assert_msg(optim_open(sched, &u, &b, err) == DEHBQ_OK,
			      "%s: %s", sched, err);
		la = run_log(a);
		lb = run_log(b);
		ck_assert_msg(strlen(la) > 0 && !strcmp(la, lb),
			      "%s is not %s with searcher %s", p->name, sched,
			      p->preset);
		free(la);
		free(lb);
		optim_free(a);
		optim_free(b);
		cJSON_Delete(set);
	}
	ck_assert_int_ge(n, 4);
}
END_TEST

static char *settings_text(const char *name, const char *in, char *err)
{
	cJSON *j = cJSON_Parse(in), *out = NULL;
	char *t = NULL;

	ck_assert_ptr_nonnull(j);
	if (optim_settings(name, j, &out, err) == DEHBQ_OK)
		t = cJSON_PrintUnformatted(out);
	cJSON_Delete(out);
	cJSON_Delete(j);
	return t;
}

/* bohb's settings: kde's, and max_active_brackets for hyperband. */
START_TEST(test_preset_bohb_splits_its_settings)
{
	char err[DEHBQ_ERRLEN], *t;

	t = settings_text("bohb",
			  "{\"max_active_brackets\":2,\"num_samples\":5}", err);
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(t, "{\"top_n_percent\":15,\"num_samples\":5,"
			    "\"random_fraction\":0.33333333333333331,"
			    "\"bandwidth_factor\":3,\"min_bandwidth\":0.001,"
			    "\"max_active_brackets\":2}");
	free(t);
	/* each refusal names the field */
	ck_assert_ptr_null(
		settings_text("bohb", "{\"max_active_brackets\":-1}", err));
	ck_assert_ptr_nonnull(strstr(err, "max_active_brackets"));
	ck_assert_ptr_null(
		settings_text("bohb", "{\"multi_fidelity\":\"asha\"}", err));
	ck_assert_ptr_nonnull(strstr(err, "multi_fidelity"));
	ck_assert_ptr_null(settings_text("bohb", "{\"num_samples\":0}", err));
	ck_assert_ptr_nonnull(strstr(err, "num_samples"));
	/* under hyperband, kde's settings are optimizer.search's */
	ck_assert_ptr_null(settings_text(
		"hyperband",
		"{\"searcher\":\"kde\",\"search\":{\"top_n_percent\":0}}",
		err));
	ck_assert_ptr_nonnull(strstr(err, "optimizer.search.top_n_percent"));
}
END_TEST

/*
 * dehb's settings: de's but population_size, which DEHB does not use (it
 * sizes its levels by its brackets): not shown, and refused; 0.4's
 * settings, max_active_brackets and the prior's included, are taken.
 */
START_TEST(test_preset_dehb_hides_population_size)
{
	char err[DEHBQ_ERRLEN], *t;

	t = settings_text("dehb",
			  "{\"mutation\":\"best1\",\"max_active_brackets\":2,"
			  "\"prior_mutants\":4}",
			  err);
	ck_assert_msg(t != NULL, "%s", err);
	ck_assert_str_eq(t, "{\"mutation\":\"best1\",\"crossover\":\"bin\","
			    "\"boundary\":\"random\",\"mutation_factor\":0.5,"
			    "\"crossover_prob\":0.5,\"prior_mutants\":4,"
			    "\"prior_candidates\":2000,\"prior_steps\":1000,"
			    "\"max_active_brackets\":2}");
	free(t);
	ck_assert_ptr_null(
		settings_text("dehb", "{\"population_size\":30}", err));
	ck_assert_msg(strstr(err, "optimizer.population_size") &&
			      strstr(err, "dehb"),
		      "%s", err);
	/* de itself keeps it */
	t = settings_text("de", "{\"population_size\":30}", err);
	ck_assert_msg(t && strstr(t, "\"population_size\":30"), "%s", err);
	free(t);
}
END_TEST

/* Ask n jobs of o and tell each (job `fail` as failed); the vectors are
 * appended to log, and job `fail` is kept in *fj, *fx. */
static void ask_tell(struct optim *o, int n, int64_t fail, struct optim_job *fj,
		     double *fx, struct jsonbuf *log)
{
	struct optim_job j;
	double x[DIM];
	int i;

	for (i = 0; i < n; i++) {
		ck_assert_int_eq(optim_ask(o, &j, x), DEHBQ_OK);
		jsonbuf_put(log, (const char *)x, sizeof(x));
		if ((int64_t)j.id == fail) {
			*fj = j;
			memcpy(fx, x, sizeof(x));
		}
		ck_assert_int_eq(
			ov_tell(o, j.id,
				(int64_t)j.id == fail ? OPTIM_FAILED : OPTIM_OK,
				ov_loss(x, j.fidelity), 1),
			DEHBQ_OK);
	}
}

/*
 * A requeue the scheduler refuses changes nothing, the searcher's jobs in
 * flight included: hyperband with searcher gp asks the same afterwards as
 * the run that never tried it.
 */
START_TEST(test_preset_refused_reopen_changes_nothing)
{
	struct optim_setup u;
	struct optim *o[2];
	struct optim_job fj[2], bad;
	struct jsonbuf log[2];
	double fx[2][DIM];
	char err[DEHBQ_ERRLEN];
	cJSON *set = cJSON_Parse("{\"searcher\":\"gp\",\"search\":"
				 "{\"n_candidates\":200,\"max_points\":30,"
				 "\"n_startup_trials\":4}}");
	int k;

	ov_setup(&u, 3, 200);
	u.settings = set;
	for (k = 0; k < 2; k++) {
		jsonbuf_init(&log[k]);
		ck_assert_int_eq(optim_open("hyperband", &u, &o[k], err),
				 DEHBQ_OK);
		ask_tell(o[k], 12, 5, &fj[k], fx[k], &log[k]);
	}
	bad = fj[0];
	snprintf(bad.state, sizeof(bad.state), "{\"level\":0,\"slot\":0}");
	ck_assert_int_ne(optim_reopen(o[0], &bad, fx[0]), DEHBQ_OK);
	for (k = 0; k < 2; k++) {
		ck_assert_int_eq(optim_reopen(o[k], &fj[k], fx[k]), DEHBQ_OK);
		ck_assert_int_eq(ov_tell(o[k], fj[k].id, OPTIM_OK, 0.5, 1),
				 DEHBQ_OK);
		ask_tell(o[k], 12, -1, &fj[k], fx[k], &log[k]);
	}
	ck_assert_uint_eq(log[0].len, log[1].len);
	ck_assert(!memcmp(log[0].p, log[1].p, log[0].len));
	for (k = 0; k < 2; k++) {
		optim_free(o[k]);
		jsonbuf_free(&log[k]);
	}
	cJSON_Delete(set);
}
END_TEST

/*
 * A study of one fidelity: the optimisers with OPTIM_CAP_ONE_FIDELITY run
 * it to the end, every job at that fidelity, and save -> load gives the
 * same state; the others refuse to open (and to load), naming why.
 */
START_TEST(test_one_fidelity_runs_or_is_refused)
{
	struct optim_setup u;
	struct optim *o, *l;
	char err[DEHBQ_ERRLEN];
	int i, ran = 0, refused = 0;

	for (i = 0; optim_table[i]; i++) {
		const char *name = optim_table[i]->name;
		int can = !!(optim_caps(name) & OPTIM_CAP_ONE_FIDELITY);
		struct drv d;
		struct jsonbuf h;
		char *saved, *again;
		cJSON *j;
		int k;

		jsonbuf_init(&h);
		ov_setup(&u, 11, 40);
		u.min_fidelity = u.max_fidelity = 7;
		if (!can) {
			ck_assert_msg(
				optim_open(name, &u, &o, err) == DEHBQ_EINVAL,
				"%s opened a study of one fidelity", name);
			ck_assert_msg(
				strstr(err, "needs a range of fidelities"),
				"%s: %s", name, err);
			refused++;
			continue;
		}
		ck_assert_msg(optim_open(name, &u, &o, err) == DEHBQ_OK,
			      "%s: %s", name, err);
		drv_init(&d, o, 2, 3);
		for (k = 0; k < 12 && drv_step(&d); k++)
			;
		for (k = 0; k < d.n; k++)
			ck_assert_msg(d.jb[k].fidelity == 7, "%s: fidelity %g",
				      name, d.jb[k].fidelity);
		ov_take_history(o, &h);
		saved = ov_save_text(o);
		ck_assert_ptr_nonnull(j = cJSON_Parse(saved));
		ck_assert_msg(optim_load(j, &u, h.p, h.len, &l, err) ==
				      DEHBQ_OK,
			      "%s: %s", name, err);
		again = ov_save_text(l);
		ck_assert_msg(!strcmp(saved, again), "%s: load changed it",
			      name);
		free(again);
		jsonbuf_free(&h);
		optim_free(l);
		cJSON_Delete(j);
		free(saved);
		jsonbuf_free(&d.log);
		optim_free(o);
		ran++;
	}
	ck_assert_int_ge(ran, 6);
	ck_assert_int_ge(refused, 5);
}
END_TEST

/*
 * The de preset takes 0.4's settings (de_pop_size, now the searcher's
 * population_size) and is the de searcher under fifo, proposal for
 * proposal, on a ladder of four levels (its one population takes the
 * stream of the ladder's top, as 0.4's engine gave it): the initial
 * population, the rolling target, the pool, the top-up of a pool too
 * small for rand2 (population 4), with jobs in flight told out of order
 * and failures.  (That this is 0.4's DE bit for bit is check_frozen's.)
 */
START_TEST(test_de_preset_takes_its_old_settings)
{
	static const char *const v[][2] = {
		{"{\"de_pop_size\":6}", "{\"population_size\":6}"},
		{"{\"de_pop_size\":5,\"mutation\":\"best1\","
		 "\"crossover\":\"exp\",\"boundary\":\"clip\"}",
		 "{\"population_size\":5,\"mutation\":\"best1\","
		 "\"crossover\":\"exp\",\"boundary\":\"clip\"}"},
		{"{\"de_pop_size\":4,\"mutation\":\"rand2\","
		 "\"mutation_factor\":0.9}",
		 "{\"population_size\":4,\"mutation\":\"rand2\","
		 "\"mutation_factor\":0.9}"},
	};
	char err[DEHBQ_ERRLEN], text[256];
	int i, k;

	for (i = 0; i < 3; i++) {
		struct optim_setup u;
		struct optim *a, *b;
		struct optim_job ja, jb, fl[4];
		double xa[DIM], xb[DIM], fx[4][DIM];
		cJSON *sa = cJSON_Parse(v[i][0]), *sb;
		int n = 0, trials = 0;

		snprintf(text, sizeof(text),
			 "{\"searcher\":\"de\",\"search\":%s}", v[i][1]);
		sb = cJSON_Parse(text);
		ov_setup(&u, 5 + (uint64_t)i, 200);
		u.min_fidelity = 1; /* eta 3: four levels */
		u.max_fidelity = 27;
		u.settings = sa;
		ck_assert_msg(optim_open("de", &u, &a, err) == DEHBQ_OK, "%s",
			      err);
		u.settings = sb;
		ck_assert_msg(optim_open("fifo", &u, &b, err) == DEHBQ_OK, "%s",
			      err);
		for (k = 0; k < 120; k++) {
			int t, j;
			double loss = 0;

			ck_assert_int_eq(optim_ask(a, &ja, xa), DEHBQ_OK);
			ck_assert_int_eq(optim_ask(b, &jb, xb), DEHBQ_OK);
			ck_assert_msg(ja.id == jb.id && ja.kind == jb.kind &&
					      !memcmp(xa, xb, sizeof(xa)),
				      "variant %d, job %d differs", i, k);
			trials += ja.kind == OPTIM_KIND_TRIAL;
			fl[n] = ja;
			memcpy(fx[n++], xa, sizeof(xa));
			if (n < 4)
				continue;
			t = (k * 7) % 4; /* out of order */
			for (j = 0; j < DIM; j++)
				loss += (fx[t][j] - 0.3) * (fx[t][j] - 0.3);
			j = fl[t].id % 7 == 3 ? OPTIM_FAILED : OPTIM_OK;
			ck_assert_int_eq(optim_tell(a, fl[t].id, j, loss, 1),
					 DEHBQ_OK);
			ck_assert_int_eq(optim_tell(b, fl[t].id, j, loss, 1),
					 DEHBQ_OK);
			fl[t] = fl[--n];
			memcpy(fx[t], fx[n], sizeof(fx[t]));
		}
		ck_assert_int_ge(trials, 100);
		optim_free(a);
		optim_free(b);
		cJSON_Delete(sa);
		cJSON_Delete(sb);
	}
}
END_TEST

Suite *preset_suite(void)
{
	Suite *s = suite_create("preset");
	TCase *tc = tcase_create("presets");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_preset_is_its_composition);
	tcase_add_test(tc, test_preset_bohb_splits_its_settings);
	tcase_add_test(tc, test_preset_dehb_hides_population_size);
	tcase_add_test(tc, test_preset_refused_reopen_changes_nothing);
	tcase_add_test(tc, test_one_fidelity_runs_or_is_refused);
	tcase_add_test(tc, test_de_preset_takes_its_old_settings);
	suite_add_tcase(s, tc);
	return s;
}
