/*
 * check_result.c - result files and trainer reports: exact round trip,
 * NaN/Infinity/1e400 and every rule of docs/protocol.md 4.3 enforced
 */
#include "err.h"
#include "result.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HEAD                                                                   \
	"{\"format\": \"dehbq-result/1\", \"id\": \"00000001\","               \
	" \"study\": \"1b4e28ba-2fa1-11d2-883f-0016d3cca427\","                \
	" \"attempt\": 1, "
#define TAIL                                                                   \
	", \"worker\": \"0123456789ab\", \"host\": \"n1\", \"pid\": 7,"        \
	" \"started\": \"2026-11-22T04:30:00.000Z\","                          \
	" \"finished\": \"2026-11-22T04:30:01.500Z\", \"wall_time\": 1.5}"

static int parse(const char *t, struct result *r, char *err)
{
	return result_parse("r.json", t, strlen(t), r, err);
}

START_TEST(test_result_round_trip_exact)
{
	const char *t =
		HEAD "\"status\": \"ok\", \"loss\": 0.30000000000000004,"
		     " \"cost\": 3, \"info\": {\"acc\": 0.9, \"l\": "
		     "[0.13973232520691303]}, \"objectives\": {\"acc\": 0.9, "
		     "\"ms\": 1e-3, \"f1\": 0.23024758425935397}" TAIL;
	char err[DEHBQ_ERRLEN], *text;
	struct result a, b;

	ck_assert_int_eq(parse(t, &a, err), DEHBQ_OK);
	/* numbers cJSON's printer would move by one ulp (fuzz_result found
	 * the objectives' in a render) stay exact through the round trip */
	ck_assert_str_eq(a.objectives, "{\"acc\":0.9,\"ms\":0.001,"
				       "\"f1\":0.23024758425935396}");
	ck_assert(a.loss == 0.30000000000000004 && a.cost == 3);
	ck_assert_str_eq(a.info, "{\"acc\":0.9,\"l\":[0.13973232520691303]}");
	ck_assert(fabs(a.finished - a.started - 1.5) < 1e-9);
	ck_assert_int_eq(result_render(&a, &text), DEHBQ_OK);
	ck_assert_int_eq(parse(text, &b, err), DEHBQ_OK);
	ck_assert(b.loss == a.loss && b.attempt == 1 && b.pid == 7);
	ck_assert_str_eq(b.info, a.info);
	ck_assert_str_eq(b.objectives, a.objectives);
	ck_assert(a.token == 0 && !strstr(text, "token"));
	free(text);
	result_release(&a);
	result_release(&b);
}
END_TEST

/* The token a worker copies from its trial file survives a round trip. */
START_TEST(test_result_token_round_trip)
{
	const char *t = HEAD "\"token\": \"0123456789abcdef\", \"status\": "
			     "\"ok\", \"loss\": 1, \"cost\": 1" TAIL;
	char err[DEHBQ_ERRLEN], *text;
	struct result a, b;

	ck_assert_int_eq(parse(t, &a, err), DEHBQ_OK);
	ck_assert(a.token == UINT64_C(0x0123456789abcdef));
	ck_assert_int_eq(result_render(&a, &text), DEHBQ_OK);
	ck_assert_int_eq(parse(text, &b, err), DEHBQ_OK);
	ck_assert(b.token == a.token);
	free(text);
	result_release(&a);
	result_release(&b);
}
END_TEST

static const struct {
	const char *text; /* result file text */
	const char *msg;  /* expected message substring */
} bad[] = {
	{HEAD "\"status\": \"ok\", \"loss\": NaN, \"cost\": 1" TAIL,
	 "invalid JSON near 'N'"},
	{HEAD "\"status\": \"ok\", \"loss\": Infinity, \"cost\": 1" TAIL,
	 "invalid JSON near 'I'"},
	{HEAD "\"status\": \"ok\", \"loss\": 1e400, \"cost\": 1" TAIL,
	 "number out of range"},
	{HEAD "\"status\": \"ok\", \"cost\": 1" TAIL,
	 "missing required field 'loss'"},
	{HEAD "\"status\": \"failed\", \"loss\": 1, \"cost\": 1" TAIL,
	 "'loss': must be absent when status is not ok"},
	{HEAD "\"status\": \"done\", \"cost\": 1" TAIL,
	 "'status': expected ok, failed, timeout, crashed or stopped"},
	{HEAD "\"status\": \"ok\", \"loss\": 1, \"cost\": -1" TAIL,
	 "'cost': -1 is out of range"},
	{HEAD "\"status\": \"ok\", \"loss\": \"0.1\", \"cost\": 1" TAIL,
	 "'loss': expected a number, found string"},
	{HEAD "\"status\": \"ok\", \"loss\": 1, \"cost\": 1, \"info\": 3" TAIL,
	 "'info': expected an object"},
	{HEAD "\"status\": \"ok\", \"loss\": 1, \"cost\": 1, "
	      "\"objectives\": {\"a b\": 1}" TAIL,
	 "'a b' is not an objective name"},
	{HEAD "\"status\": \"ok\", \"loss\": 1, \"cost\": 1, "
	      "\"objectives\": [1]" TAIL,
	 "'objectives': expected an object"},
	{"{\"format\": \"dehbq-result/1\", \"id\": \"../etc/x\"}",
	 "'id': expected 8 digits"},
	{HEAD "\"status\": \"ok\", \"loss\": 1, \"cost\": 1, \"extra\": 1" TAIL,
	 "unknown field 'extra'"},
	{HEAD "\"token\": \"../../x\", \"status\": \"ok\", \"loss\": 1, "
	      "\"cost\": 1" TAIL,
	 "field 'token'"},
};

START_TEST(test_result_bad_files_refused)
{
	char err[DEHBQ_ERRLEN];
	struct result r;

	ck_assert_int_eq(parse(bad[_i].text, &r, err), DEHBQ_EINVAL);
	ck_assert_msg(strstr(err, bad[_i].msg), "got '%s' want '%s'", err,
		      bad[_i].msg);
}
END_TEST

START_TEST(test_result_report_rules)
{
	char err[DEHBQ_ERRLEN], *info, *objs;
	double loss, cost;
	const char *ok = "{\"loss\": -2.5, \"info\": {\"a\": [1]}}";
	const char *mo = "{\"objectives\": {\"error\": 0.25, \"ms\": 12}}";
	const char *mobad = "{\"objectives\": {\"error\": \"x\"}}";
	const char *none = "{\"cost\": 1}";
	const char *nan = "{\"loss\": NaN}";
	const char *str = "{\"loss\": \"x\"}";

	ck_assert_int_eq(result_parse_report("rep", ok, strlen(ok), &loss,
					     &cost, &info, &objs, err),
			 DEHBQ_OK);
	ck_assert(loss == -2.5 && cost < 0);
	ck_assert_str_eq(info, "{\"a\":[1]}");
	free(info);
	ck_assert_int_eq(result_parse_report("rep", nan, strlen(nan), &loss,
					     &cost, &info, &objs, err),
			 DEHBQ_EINVAL);
	ck_assert_int_eq(result_parse_report("rep", str, strlen(str), &loss,
					     &cost, &info, &objs, err),
			 DEHBQ_EINVAL);
	ck_assert_int_eq(result_parse_report("rep", "[]", 2, &loss, &cost,
					     &info, &objs, err),
			 DEHBQ_EINVAL);
	/* objectives without a loss */
	ck_assert_int_eq(result_parse_report("rep", mo, strlen(mo), &loss,
					     &cost, &info, &objs, err),
			 DEHBQ_OK);
	ck_assert(isnan(loss));
	ck_assert_str_eq(objs, "{\"error\":0.25,\"ms\":12}");
	free(info);
	free(objs);
	ck_assert_int_eq(result_parse_report("rep", mobad, strlen(mobad), &loss,
					     &cost, &info, &objs, err),
			 DEHBQ_EINVAL);
	ck_assert_msg(strstr(err, "objectives.error"), "%s", err);
	ck_assert_ptr_null(objs);
	ck_assert_int_eq(result_parse_report("rep", none, strlen(none), &loss,
					     &cost, &info, &objs, err),
			 DEHBQ_EINVAL);
	ck_assert_msg(strstr(err, "loss"), "%s", err);
}
END_TEST

START_TEST(test_result_render_refuses_non_finite)
{
	struct result r;
	char *text;

	ck_assert_int_eq(result_init(&r), 0);
	r.status = RESULT_OK;
	r.loss = NAN;
	ck_assert_int_eq(result_render(&r, &text), DEHBQ_EINVAL);
	result_release(&r);
}
END_TEST

Suite *result_suite(void)
{
	Suite *s = suite_create("result");
	TCase *core = tcase_create("core");
	TCase *errors = tcase_create("errors");

	tcase_add_test(core, test_result_round_trip_exact);
	tcase_add_test(core, test_result_token_round_trip);
	tcase_add_test(core, test_result_report_rules);
	tcase_add_loop_test(errors, test_result_bad_files_refused, 0,
			    (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(errors, test_result_render_refuses_non_finite);
	suite_add_tcase(s, core);
	suite_add_tcase(s, errors);
	return s;
}
