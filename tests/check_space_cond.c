/*
 * check_space_cond.c - conditional search spaces: ConfigSpace JSON with
 * conditions as ConfigSpace 0.4 and 1.x write it, which parameters are
 * active for given values (EQ, NEQ, IN, LT, GT, AND, OR, chains), the
 * configuration without its inactive parameters and back, the native
 * round trip, and refused conditions
 */
#include "err.h"
#include "jsonfile.h"
#include "space.h"
#include "testutil.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct space *load(const char *file)
{
	char err[DEHBQ_ERRLEN] = "", path[4096];
	struct space *sp;

	snprintf(path, sizeof(path), "%s/%s", tu_datadir(), file);
	ck_assert_msg(space_load(path, &sp, err) == DEHBQ_OK, "%s: %s", file,
		      err);
	return sp;
}

static int parse(const char *text, struct space **out, char *err)
{
	struct jsonfile *jf;
	int rc = jsonfile_parse("t.json", text, strlen(text), &jf, err);

	*out = NULL;
	if (rc)
		return rc;
	rc = space_from_json(jf, jsonfile_root(jf), out, err);
	jsonfile_free(jf);
	return rc;
}

/* The configuration vector x decodes to, as compact JSON (caller frees). */
static char *config_of(const struct space *sp, const double *x)
{
	struct space_value v[8];
	cJSON *o;
	char *t;

	ck_assert_int_eq(space_decode(sp, x, v), DEHBQ_OK);
	ck_assert_ptr_nonnull(o = space_config_to_json(sp, v));
	t = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return t;
}

/* booster (gblinear, gbtree, dart), eta, max_depth IN {gbtree, dart},
 * rate_drop EQ dart, skip_drop if rate_drop > 0.5 (a chain). */
START_TEST(test_cond_configspace_0_4_in_eq_gt_chain)
{
	struct space *sp = load("space_cs_conditions_0.4.json");
	/* booster's bins: [0,1/3) gblinear, [1/3,2/3) gbtree, dart */
	double lin[5] = {0.1, 0.5, 0.5, 0.9, 0.5},
	       tree[5] = {0.5, 0.5, 0.5, 0.9, 0.5},
	       dart_hi[5] = {0.9, 0.5, 0.5, 0.9, 0.25},
	       dart_lo[5] = {0.9, 0.5, 0.5, 0.2, 0.25};
	char *t;

	ck_assert(space_has_conditions(sp));
	t = config_of(sp, lin);
	ck_assert_msg(!strncmp(t, "{\"booster\":\"gblinear\",\"eta\":", 28) &&
			      !strstr(t, "max_depth") && !strstr(t, "drop"),
		      "%s", t);
	free(t);
	t = config_of(sp, tree);
	ck_assert_msg(strstr(t, "\"max_depth\":") && !strstr(t, "rate_drop") &&
			      !strstr(t, "skip_drop"),
		      "%s", t);
	free(t);
	t = config_of(sp, dart_hi); /* rate_drop 0.9 > 0.5: skip_drop on */
	ck_assert_msg(strstr(t, "\"rate_drop\":0.9") &&
			      strstr(t, "\"skip_drop\":0.25"),
		      "%s", t);
	free(t);
	t = config_of(sp, dart_lo); /* rate_drop 0.2: skip_drop off */
	ck_assert_msg(strstr(t, "\"rate_drop\":0.2") && !strstr(t, "skip_drop"),
		      "%s", t);
	free(t);
	space_free(sp);
}
END_TEST

/* kernel, degree EQ poly, coef0 OR(poly, sigmoid), gamma AND(kernel NEQ
 * linear, shrink LT high) with shrink an ordinal (none, low, high). */
START_TEST(test_cond_configspace_1x_and_or_neq_lt)
{
	struct space *sp = load("space_cs_conditions_1x.json");
	static const struct {
		double kernel, shrink;
		int degree, coef0, gamma;
	} cases[] = {
		{0.1, 0.1, 0, 0, 0}, /* linear */
		{0.3, 0.1, 1, 1, 1}, /* poly, none */
		{0.3, 0.9, 1, 1, 0}, /* poly, high: not LT high */
		{0.6, 0.5, 0, 0, 1}, /* rbf, low */
		{0.9, 0.5, 0, 1, 1}, /* sigmoid */
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double x[6] = {cases[i].kernel, 0.5, 0.5, 0.5,
			       cases[i].shrink, 0.5};
		char *t = config_of(sp, x);

		ck_assert_msg(!!strstr(t, "degree") == cases[i].degree &&
				      !!strstr(t, "coef0") == cases[i].coef0 &&
				      !!strstr(t, "gamma") == cases[i].gamma &&
				      strstr(t, "\"tol\""),
			      "case %zu: %s", i, t);
		free(t);
	}
	space_free(sp);
}
END_TEST

/* Native spaces carry the same conditions, and a space survives
 * space_to_json and back with them (study.json embeds it). */
START_TEST(test_cond_round_trip_native)
{
	const char *files[] = {"space_cs_conditions_0.4.json",
			       "space_cs_conditions_1x.json"};
	char err[DEHBQ_ERRLEN];
	size_t f;

	for (f = 0; f < 2; f++) {
		struct space *a = load(files[f]), *b;
		cJSON *o = space_to_json(a);
		char *text = cJSON_Print(o);

		ck_assert_ptr_nonnull(strstr(text, "\"conditions\""));
		ck_assert_msg(parse(text, &b, err) == DEHBQ_OK, "%s\n%s", err,
			      text);
		ck_assert(space_equal(a, b));
		cJSON_Delete(o);
		free(text);
		space_free(a);
		space_free(b);
	}
}
END_TEST

/* A configuration leaves inactive parameters out, and only those. */
START_TEST(test_cond_config_from_json)
{
	struct space *sp = load("space_cs_conditions_0.4.json");
	static const struct {
		const char *cfg, *want; /* want: NULL ok, else in the error */
	} cases[] = {
		{"{\"booster\":\"gblinear\",\"eta\":0.1}", NULL},
		{"{\"booster\":\"dart\",\"eta\":0.1,\"max_depth\":3,"
		 "\"rate_drop\":0.7,\"skip_drop\":0.1}",
		 NULL},
		{"{\"booster\":\"dart\",\"eta\":0.1,\"max_depth\":3,"
		 "\"rate_drop\":0.2}",
		 NULL},
		{"{\"booster\":\"gblinear\",\"eta\":0.1,\"max_depth\":3}",
		 "parameter 'max_depth' is inactive here"},
		{"{\"booster\":\"gbtree\",\"eta\":0.1}",
		 "missing parameter 'max_depth'"},
		{"{\"booster\":\"dart\",\"eta\":0.1,\"max_depth\":3,"
		 "\"rate_drop\":0.7}",
		 "missing parameter 'skip_drop'"},
		{"{\"eta\":0.1}", "missing parameter 'booster'"},
	};
	struct space_value v[5];
	char err[DEHBQ_ERRLEN];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct jsonfile *jf;
		int rc;

		ck_assert_int_eq(jsonfile_parse("cfg.json", cases[i].cfg,
						strlen(cases[i].cfg), &jf, err),
				 DEHBQ_OK);
		rc = space_config_from_json(jf, jsonfile_root(jf), sp, v, err);
		jsonfile_free(jf);
		if (!cases[i].want) {
			double x[5];
			cJSON *o, *back, *it;
			char *t;

			ck_assert_msg(rc == DEHBQ_OK, "%zu: %s", i, err);
			/* and back: encode, decode, the same configuration */
			ck_assert_int_eq(space_encode(sp, v, x, err), DEHBQ_OK);
			t = config_of(sp, x);
			o = cJSON_Parse(cases[i].cfg);
			back = cJSON_Parse(t);
			/* the same parameters (log-scale floats come back
			 * within an ulp or two, docs/space.md) */
			ck_assert_int_eq(cJSON_GetArraySize(o),
					 cJSON_GetArraySize(back));
			for (it = o->child; it; it = it->next)
				ck_assert_msg(cJSON_GetObjectItemCaseSensitive(
						      back, it->string),
					      "%zu: %s", i, t);
			cJSON_Delete(o);
			cJSON_Delete(back);
			free(t);
		} else {
			ck_assert_msg(rc == DEHBQ_EINVAL &&
					      strstr(err, cases[i].want),
				      "%zu: %s", i, err);
		}
	}
	space_free(sp);
}
END_TEST

START_TEST(test_cond_refused)
{
	static const struct {
		const char *conds, *want;
	} cases[] = {
		{"[{\"child\":\"b\",\"parent\":\"zz\",\"type\":\"EQ\","
		 "\"value\":\"x\"}]",
		 "'parent' zz is not a parameter"},
		{"[{\"child\":\"b\",\"parent\":\"a\",\"type\":\"EQ\","
		 "\"value\":\"q\"}]",
		 "\"q\" is not one of its 2 choices"},
		{"[{\"child\":\"b\",\"parent\":\"a\",\"type\":\"EQ\","
		 "\"value\":\"x\"},{\"child\":\"b\",\"parent\":\"a\","
		 "\"type\":\"EQ\",\"value\":\"y\"}]",
		 "'b' has a second condition"},
		{"[{\"child\":\"b\",\"parent\":\"c\",\"type\":\"GT\","
		 "\"value\":0.5},{\"child\":\"c\",\"parent\":\"b\","
		 "\"type\":\"LT\",\"value\":0.5}]",
		 "conditions form a cycle"},
		{"[{\"child\":\"b\",\"parent\":\"a\",\"type\":\"GT\","
		 "\"value\":\"x\"}]",
		 "a categorical has no order"},
		{"[{\"child\":\"b\",\"parent\":\"a\",\"type\":\"LIKE\","
		 "\"value\":\"x\"}]",
		 "type 'LIKE' is not one of"},
		{"[{\"type\":\"AND\",\"conditions\":[{\"child\":\"b\","
		 "\"parent\":\"a\",\"type\":\"EQ\",\"value\":\"x\"},{\"child\":"
		 "\"c\",\"parent\":\"a\",\"type\":\"EQ\",\"value\":\"x\"}]}]",
		 "must all have the same child"},
		{"[{\"child\":\"b\",\"parent\":\"c\",\"type\":\"GT\","
		 "\"value\":2}]",
		 "out of range"},
		{"[{\"child\":\"b\",\"parent\":\"b\",\"type\":\"GT\","
		 "\"value\":0.5}]",
		 "cannot be its own parent"},
	};
	char text[1024], err[DEHBQ_ERRLEN];
	struct space *sp;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text),
			 "{\"format\":\"dehbq-space/1\",\"parameters\":["
			 "{\"name\":\"a\",\"type\":\"categorical\","
			 "\"choices\":[\"x\",\"y\"]},"
			 "{\"name\":\"b\",\"type\":\"float\",\"low\":0,"
			 "\"high\":1},"
			 "{\"name\":\"c\",\"type\":\"float\",\"low\":0,"
			 "\"high\":1}],\"conditions\":%s}",
			 cases[i].conds);
		ck_assert_msg(parse(text, &sp, err) == DEHBQ_EINVAL &&
				      strstr(err, cases[i].want),
			      "%zu: %s", i, err);
		ck_assert_ptr_null(sp);
	}
}
END_TEST

/* ConfigSpace 1.x's AND of EQUALS clauses, IN, and what is refused. */
START_TEST(test_cond_forbidden_clauses)
{
	struct space *sp = load("space_cs_forbidden_1x.json"), *b;
	double xy[2][2] = {{0.2, 0.2}, {0.8, 0.8}};
	struct space_value v[2];
	char err[DEHBQ_ERRLEN], *text;
	cJSON *o;
	int i, j;

	ck_assert(space_has_forbidden(sp));
	for (i = 0; i < 2; i++)
		for (j = 0; j < 2; j++) {
			double x[2] = {xy[i][0], xy[j][1]};

			space_decode(sp, x, v);
			ck_assert_int_eq(space_forbidden(sp, v),
					 i == 1 && j == 1);
		}
	o = space_to_json(sp);
	text = cJSON_Print(o);
	ck_assert_msg(parse(text, &b, err) == DEHBQ_OK, "%s", err);
	ck_assert(space_equal(sp, b));
	cJSON_Delete(o);
	free(text);
	space_free(b);
	space_free(sp);
	{
		static const struct {
			const char *forb, *want;
			int rc;
		} bad[] = {
			{"[{\"type\":\"EQUALS\",\"name\":\"zz\",\"value\":1}]",
			 "'name' zz is not a parameter", DEHBQ_EINVAL},
			{"[{\"type\":\"IN\",\"name\":\"a\",\"values\":[]}]",
			 "'values' is empty", DEHBQ_EINVAL},
			{"[{\"type\":\"EQUALS\",\"name\":\"a\",\"value\":\"q\"}"
			 "]",
			 "not one of its 2 choices", DEHBQ_EINVAL},
			{"[{\"type\":\"RELATION_EQ\",\"left\":\"a\","
			 "\"right\":\"b\"}]",
			 "not supported yet", DEHBQ_EUNSUP},
		};
		char t[512];
		size_t k;

		for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			snprintf(t, sizeof(t),
				 "{\"format\":\"dehbq-space/1\",\"parameters\":"
				 "[{\"name\":\"a\",\"type\":\"categorical\","
				 "\"choices\":[\"x\",\"y\"]},{\"name\":\"b\","
				 "\"type\":\"categorical\",\"choices\":[\"x\","
				 "\"y\"]}],\"forbiddens\":%s}",
				 bad[k].forb);
			ck_assert_msg(parse(t, &b, err) == bad[k].rc &&
					      strstr(err, bad[k].want),
				      "%zu: %s", k, err);
		}
	}
}
END_TEST

Suite *space_cond_suite(void)
{
	Suite *s = suite_create("space_cond");
	TCase *c = tcase_create("conditions");

	tcase_add_checked_fixture(c, tu_setup, tu_teardown);
	tcase_add_test(c, test_cond_configspace_0_4_in_eq_gt_chain);
	tcase_add_test(c, test_cond_configspace_1x_and_or_neq_lt);
	tcase_add_test(c, test_cond_round_trip_native);
	tcase_add_test(c, test_cond_config_from_json);
	tcase_add_test(c, test_cond_refused);
	tcase_add_test(c, test_cond_forbidden_clauses);
	suite_add_tcase(s, c);
	return s;
}
