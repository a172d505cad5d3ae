/*
 * check_newsettings.c - settings that changed a searcher's proposals after
 * 0.4 (tpe's multivariate, gp's local_fraction and hyperprior, re's
 * population_size): a
 * new study gets the new
 * default written into its settings, a study that lacks the member (every
 * 0.4 study) keeps 0.4's proposals, job for job, and a bad value is named
 */
#include "err.h"
#include "optim.h"
#include "optvar.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *opt, *key, *legacy, *other;
} changed[] = {
	{"tpe", "multivariate", "false", "true"},
	{"gp", "local_fraction", "0", "0.5"},
	{"gp", "hyperprior", "\"none\"", "\"gamma\""},
	{"re", "population_size", "100", "20"},
};
#define NCHANGED ((int)(sizeof(changed) / sizeof(changed[0])))

/* The driver's log of opt with settings text set, run to the end. */
static char *log_of(const char *opt, const char *set)
{
	struct optim_setup u;
	struct optim *o;
	struct drv d;
	char err[DEHBQ_ERRLEN], *log;
	cJSON *j = cJSON_Parse(set);

	ck_assert_ptr_nonnull(j);
	ov_setup(&u, 21, 40);
	u.settings = j;
	ck_assert_msg(optim_open(opt, &u, &o, err) == DEHBQ_OK, "%s %s: %s",
		      opt, set, err);
	drv_init(&d, o, 2, 9);
	while (drv_step(&d))
		;
	log = strdup(d.log.p ? d.log.p : "");
	jsonbuf_free(&d.log);
	optim_free(o);
	cJSON_Delete(j);
	return log;
}

/* A member absent is 0.4's value; the other value asks other jobs. */
START_TEST(test_absent_member_is_the_old_behaviour)
{
	char with[128], other[128], *a, *b, *c;
	const char *opt = changed[_i].opt, *small = "";

	if (!strcmp(opt, "gp"))
		small = ",\"n_candidates\":200,\"max_points\":30";
	snprintf(with, sizeof(with), "{\"%s\":%s%s}", changed[_i].key,
		 changed[_i].legacy, small);
	snprintf(other, sizeof(other), "{\"%s\":%s%s}", changed[_i].key,
		 changed[_i].other, small);
	a = log_of(opt,
		   *small ? "{\"n_candidates\":200,\"max_points\":30}" : "{}");
	b = log_of(opt, with);
	c = log_of(opt, other);
	ck_assert_msg(strlen(a) > 0 && !strcmp(a, b),
		      "%s without %s is not %s %s", opt, changed[_i].key,
		      changed[_i].key, changed[_i].legacy);
	ck_assert_msg(strcmp(a, c), "%s %s %s asks what 0.4 asked", opt,
		      changed[_i].key, changed[_i].other);
	free(a);
	free(b);
	free(c);
}
END_TEST

/* dehbq init writes the new default into a new study's settings. */
START_TEST(test_new_study_gets_the_new_default)
{
	cJSON *out = NULL;
	const cJSON *v;
	char err[DEHBQ_ERRLEN], *t;

	ck_assert_int_eq(optim_settings(changed[_i].opt, NULL, &out, err),
			 DEHBQ_OK);
	v = cJSON_GetObjectItemCaseSensitive(out, changed[_i].key);
	ck_assert_ptr_nonnull(v);
	t = cJSON_PrintUnformatted(v);
	ck_assert_msg(!strcmp(t, changed[_i].other) ||
			      !strcmp(t, changed[_i].legacy),
		      "%s.%s = %s", changed[_i].opt, changed[_i].key, t);
	free(t);
	cJSON_Delete(out);
}
END_TEST

/* A bad value: one line naming the field, under a scheduler too. */
START_TEST(test_bad_value_is_named)
{
	static const char *const bad[][3] = {
		{"tpe", "{\"multivariate\":1}", "optimizer.multivariate"},
		{"gp", "{\"local_fraction\":1.5}", "optimizer.local_fraction"},
		{"gp", "{\"local_fraction\":\"half\"}",
		 "optimizer.local_fraction"},
		{"gp", "{\"hyperprior\":\"lognormal\"}",
		 "optimizer.hyperprior"},
		{"re", "{\"population_size\":\"big\"}",
		 "optimizer.population_size"},
		{"re", "{\"population_size\":4,\"sample_size\":25}",
		 "optimizer.sample_size"},
		{"re", "{\"population_size\":4,\"sample_size\":5}",
		 "optimizer.sample_size"},
		{"asha",
		 "{\"searcher\":\"tpe\",\"search\":{\"multivariate\":"
		 "\"yes\"}}",
		 "optimizer.search.multivariate"},
	};
	cJSON *in, *out = NULL;
	char err[DEHBQ_ERRLEN];
	size_t k;

	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		in = cJSON_Parse(bad[k][1]);
		ck_assert_int_eq(optim_settings(bad[k][0], in, &out, err),
				 DEHBQ_EINVAL);
		ck_assert_msg(strstr(err, bad[k][2]) && !strchr(err, '\n'),
			      "%s %s: %s", bad[k][0], bad[k][1], err);
		cJSON_Delete(in);
	}
}
END_TEST

/*
 * re's sample_size alone: a study.json of 0.4 with sample_size 25 (its
 * population 100) still opens, and a new study gets a population of at
 * least its sample.
 */
START_TEST(test_re_sample_alone)
{
	struct optim_setup u;
	struct optim *o;
	char err[DEHBQ_ERRLEN];
	cJSON *in = cJSON_Parse("{\"sample_size\":25}"), *out = NULL;

	ov_setup(&u, 3, 40);
	u.settings = in;
	ck_assert_msg(optim_open("re", &u, &o, err) == DEHBQ_OK, "%s", err);
	optim_free(o);
	ck_assert_int_eq(optim_settings("re", in, &out, err), DEHBQ_OK);
	ck_assert_int_eq(
		cJSON_GetObjectItemCaseSensitive(out, "population_size")
			->valueint,
		25);
	cJSON_Delete(out);
	cJSON_Delete(in);
}
END_TEST

Suite *newsettings_suite(void)
{
	Suite *s = suite_create("newsettings");
	TCase *c = tcase_create("core");

	tcase_set_timeout(c, 60);
	tcase_add_loop_test(c, test_absent_member_is_the_old_behaviour, 0,
			    NCHANGED);
	tcase_add_loop_test(c, test_new_study_gets_the_new_default, 0,
			    NCHANGED);
	tcase_add_test(c, test_bad_value_is_named);
	tcase_add_test(c, test_re_sample_alone);
	suite_add_tcase(s, c);
	return s;
}
