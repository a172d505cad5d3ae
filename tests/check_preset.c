/*
 * check_preset.c - the presets (optim/preset.c): each runs as its searcher
 * under its scheduler, ask for ask, and splits its settings between them
 */
#include "optim.h"
#include "optvar.h"
#include "searcher.h"

#include "err.h"

#include <check.h>
#include <cjson/cJSON.h>
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
 * its scheduler ({"searcher": S}, the searcher's defaults too).
 */
START_TEST(test_preset_is_its_composition)
{
	struct optim_setup u;
	struct optim *a, *b;
	char err[DEHBQ_ERRLEN], *la, *lb;
	int i, n = 0;

	for (i = 0; optim_table[i]; i++) {
		const struct optim_ops *p = optim_table[i];
		const char *sched =
			p->under ? p->under : optim_default_scheduler();
		cJSON *set = cJSON_CreateObject();

		if (!p->preset)
			continue;
		n++;
		ov_setup(&u, 11, 40); /* earlier tasks, for cts and gcp */
		ck_assert_msg(optim_open(p->name, &u, &a, err) == DEHBQ_OK,
			      "%s: %s", p->name, err);
		cJSON_AddStringToObject(set, "searcher", p->preset);
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

Suite *preset_suite(void)
{
	Suite *s = suite_create("preset");
	TCase *tc = tcase_create("presets");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_preset_is_its_composition);
	tcase_add_test(tc, test_preset_bohb_splits_its_settings);
	suite_add_tcase(s, tc);
	return s;
}
