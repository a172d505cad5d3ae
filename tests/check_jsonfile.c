/*
 * check_jsonfile.c - bounded JSON reads and file:line:col messages
 */
#include "err.h"
#include "jsonfile.h"
#include "testutil.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int parse(const char *text, struct jsonfile **jf, char *err)
{
	return jsonfile_parse("t.json", text, strlen(text), jf, err);
}

static void expect_error(const char *text, const char *msg)
{
	struct jsonfile *jf;
	char err[DEHBQ_ERRLEN];

	ck_assert_int_eq(parse(text, &jf, err), DEHBQ_EINVAL);
	ck_assert_ptr_null(jf);
	ck_assert_msg(strstr(err, msg), "got '%s', want '%s'", err, msg);
}

START_TEST(test_jsonfile_syntax_errors_have_line_and_col)
{
	expect_error("{\n  \"a\": 1,\n  \"b\": tru\n}",
		     "t.json:3:8: invalid JSON");
	expect_error("{\"a\": NaN}", "t.json:1:7: invalid JSON near 'N'");
	expect_error("{\"a\": Infinity}", "invalid JSON near 'I'");
	expect_error("{\"a\": [1, 2,", "unexpected end of input");
	expect_error("{\"a\": 1,}", "trailing comma?");
	expect_error("{\"a\": 1} x", "t.json:1:10:");
	expect_error("", "unexpected end of input");
}
END_TEST

START_TEST(test_jsonfile_rejects_huge_numbers_and_duplicates)
{
	expect_error("{\n \"x\": 1e400}", "t.json:2:2: number out of range");
	expect_error("[1, -1e999]", "t.json:1:5: number out of range");
	expect_error("{\"a\": 1,\n \"a\": 2}", "t.json:2:2: duplicate key");
}
END_TEST

/*
 * cJSON decodes \u0000 to a NUL byte, which would cut the C string short
 * ("x\u0000y" read as "x"); it is refused in values and keys alike.
 */
START_TEST(test_jsonfile_escaped_nul_refused_with_position)
{
	const char *msg = "string contains \\u0000 (a NUL character); "
			  "remove it";
	char want[DEHBQ_ERRLEN];

	snprintf(want, sizeof(want), "t.json:1:12: %s", msg);
	expect_error("{\"name\": \"x\\u0000y\"}", want);
	snprintf(want, sizeof(want), "t.json:2:4: %s", msg);
	expect_error("{\n \"a\\u0000b\": 1}", want);
	snprintf(want, sizeof(want), "t.json:3:3: %s", msg);
	expect_error("[\"ok\",\n \"\\\"\",\n \"\\u0000\"]", want);
	/* an escaped backslash, then an escaped NUL */
	snprintf(want, sizeof(want), "t.json:1:5: %s", msg);
	expect_error("[\"\\\\\\u0000\"]", want);
	expect_error("[\"\\u00000\"]", msg);
}
END_TEST

/* Only a real escape counts: "\\u0000" is a backslash and the text u0000. */
START_TEST(test_jsonfile_escaped_backslash_then_u0000_accepted)
{
	static const struct {
		const char *json; /* the document */
		const char *want; /* its "a" string */
	} ok[] = {
		{"{\"a\": \"\\\\u0000\"}", "\\u0000"},
		{"{\"a\": \"x\\\\\\\\u0000\"}", "x\\\\u0000"},
		{"{\"a\": \"\\u0001\\u00a0u0000\"}", "\x01\xc2\xa0u0000"},
		{"{\"a\": \"\\\"u0000\"}", "\"u0000"},
		{"{\"a\": \"\\/u0000\"}", "/u0000"},
	};
	struct jsonfile *jf;
	char err[DEHBQ_ERRLEN];
	const char *v;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = NULL;
		ck_assert_msg(parse(ok[i].json, &jf, err) == DEHBQ_OK, "%s: %s",
			      ok[i].json, err);
		ck_assert_int_eq(jsonfile_get_string(jf, jsonfile_root(jf), "a",
						     JSONFILE_REQUIRED, &v,
						     err),
				 DEHBQ_OK);
		ck_assert_str_eq(v, ok[i].want);
		jsonfile_free(jf);
	}
}
END_TEST

START_TEST(test_jsonfile_deep_nesting_refused)
{
	char buf[4200];
	int i;

	for (i = 0; i < 2000; i++)
		buf[i] = '[';
	for (; i < 4000; i++)
		buf[i] = ']';
	buf[i] = 0;
	expect_error(buf, "invalid JSON");
}
END_TEST

START_TEST(test_jsonfile_getters_report_field_positions)
{
	struct jsonfile *jf;
	char err[DEHBQ_ERRLEN];
	const char *s = NULL;
	int64_t n = 0;
	double d = 0;
	const char *text = "{\"format\": \"dehbq-x/1\",\n"
			   "  \"name\": \"ok\",\n"
			   "  \"count\": 2.5,\n"
			   "  \"ratio\": 7,\n"
			   "  \"tpyo\": 1}";
	static const char *const keys[] = {"format", "name", "count", "ratio",
					   NULL};

	ck_assert_int_eq(parse(text, &jf, err), DEHBQ_OK);
	ck_assert_int_eq(jsonfile_check_format(jf, "dehbq-x/1", err), 0);
	ck_assert_int_eq(jsonfile_check_format(jf, "dehbq-y/1", err),
			 DEHBQ_EINVAL);
	ck_assert_str_eq(err, "t.json:1:2: field 'format': expected "
			      "\"dehbq-y/1\"");
	ck_assert_int_eq(jsonfile_get_string(jf, jsonfile_root(jf), "name",
					     JSONFILE_REQUIRED, &s, err),
			 0);
	ck_assert_str_eq(s, "ok");
	ck_assert_int_eq(jsonfile_get_int(jf, jsonfile_root(jf), "count",
					  JSONFILE_REQUIRED, 0, 10, &n, err),
			 DEHBQ_EINVAL);
	ck_assert_str_eq(err, "t.json:3:3: field 'count': expected an "
			      "integer, found 2.5");
	ck_assert_int_eq(jsonfile_get_number(jf, jsonfile_root(jf), "ratio",
					     JSONFILE_REQUIRED, 0, 1, &d, err),
			 DEHBQ_EINVAL);
	ck_assert_msg(strstr(err, "t.json:4:3: field 'ratio': 7 is out of"),
		      "%s", err);
	ck_assert_int_eq(jsonfile_get_string(jf, jsonfile_root(jf), "missing",
					     JSONFILE_REQUIRED, &s, err),
			 DEHBQ_ENOENT);
	ck_assert_msg(strstr(err, "missing required field 'missing'"), "%s",
		      err);
	ck_assert_int_eq(jsonfile_get_string(jf, jsonfile_root(jf), "missing",
					     JSONFILE_OPTIONAL, &s, err),
			 0);
	ck_assert_int_eq(jsonfile_get_string(jf, jsonfile_root(jf), "count",
					     JSONFILE_REQUIRED, &s, err),
			 DEHBQ_EINVAL);
	ck_assert_msg(strstr(err, "expected a string, found number"), "%s",
		      err);
	ck_assert_int_eq(jsonfile_check_keys(jf, jsonfile_root(jf), keys, err),
			 DEHBQ_EINVAL);
	ck_assert_str_eq(err, "t.json:5:3: unknown field 'tpyo' (typo?)");
	jsonfile_free(jf);
}
END_TEST

START_TEST(test_jsonfile_load_refuses_symlink_fifo_and_big)
{
	struct jsonfile *jf;
	char err[DEHBQ_ERRLEN];
	const char *real = tu_path("real.json"), *link = tu_path("link.json");
	const char *fifo = tu_path("fifo.json");

	tu_write(real, "{\"a\": 1}");
	ck_assert_int_eq(jsonfile_load(real, 100, &jf, err), DEHBQ_OK);
	jsonfile_free(jf);
	ck_assert_int_eq(symlink("/etc/passwd", link), 0);
	ck_assert_int_eq(jsonfile_load(link, 100, &jf, err), DEHBQ_EINVAL);
	ck_assert_msg(strstr(err, "symbolic link"), "%s", err);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_eq(jsonfile_load(fifo, 100, &jf, err), DEHBQ_EINVAL);
	ck_assert_msg(strstr(err, "not a regular file"), "%s", err);
	ck_assert_int_eq(jsonfile_load(real, 4, &jf, err), DEHBQ_ETOOBIG);
	ck_assert_msg(strstr(err, "larger than 4 bytes"), "%s", err);
	ck_assert_int_eq(jsonfile_load(tu_path("none"), 4, &jf, err),
			 DEHBQ_ESYS);
	ck_assert_msg(strstr(err, "No such file"), "%s", err);
}
END_TEST

/* The shortest text that reads back; the number item carries it exactly. */
START_TEST(test_jsonfile_numbers_print_shortest_exact_text)
{
	static const struct {
		double d;
		const char *text;
	} cases[] = {
		{0.1, "0.1"},
		{0.30000000000000004, "0.30000000000000004"},
		{1.0 / 3.0, "0.3333333333333333"},
		{-0.0, "-0.0"},
		{27, "27"},
		{-3, "-3"},
		{9007199254740991.0, "9007199254740991"},
		{9007199254740992.0, "9007199254740992"},
		{1e300, "1e+300"},
		{5e-324, "4.94065645841247e-324"},
	};
	char buf[40];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cJSON *it = jsonfile_number(cases[i].d);
		char *txt;

		jsonfile_fmt_double(buf, sizeof(buf), cases[i].d);
		ck_assert_str_eq(buf, cases[i].text);
		ck_assert_ptr_nonnull(it);
		ck_assert(it->valuedouble == cases[i].d);
		txt = cJSON_PrintUnformatted(it);
		ck_assert_str_eq(txt, cases[i].text);
		cJSON_free(txt);
		cJSON_Delete(it);
	}
	jsonfile_fmt_double(buf, sizeof(buf), INFINITY);
	ck_assert_str_eq(buf, "inf");
	ck_assert_ptr_null(jsonfile_number(INFINITY));
	ck_assert_ptr_null(jsonfile_number(NAN));
}
END_TEST

/*
 * A parsed tree printed again keeps every number: 0.13973232520691303 is one
 * that cJSON's own printer writes as 0.139732325206913, a different double
 * (a trainer's objectives and info are stored this way; CI once saw `dehbq
 * best` differ from the export by that ulp).
 */
START_TEST(test_jsonfile_print_exact_keeps_every_number)
{
	static const char in[] = "{\"a\":0.13973232520691303,\"b\":[1,"
				 "0.30000000000000004,{\"c\":-0.0}],"
				 "\"d\":\"0.1\",\"e\":null}";
	cJSON *o = cJSON_Parse(in), *back;
	char *txt;

	ck_assert_ptr_nonnull(o);
	txt = jsonfile_print_exact(o);
	ck_assert_ptr_nonnull(txt);
	ck_assert_str_eq(txt, in);
	back = cJSON_Parse(txt);
	ck_assert(cJSON_GetObjectItem(back, "a")->valuedouble ==
		  0.13973232520691303);
	ck_assert(cJSON_Compare(o, back, 1));
	ck_assert(cJSON_IsNumber(cJSON_GetObjectItem(o, "a"))); /* unchanged */
	cJSON_free(txt);
	cJSON_Delete(back);
	cJSON_Delete(o);
}
END_TEST

Suite *jsonfile_suite(void)
{
	Suite *s = suite_create("jsonfile");
	TCase *core = tcase_create("core");
	TCase *errors = tcase_create("errors");
	TCase *limits = tcase_create("limits");

	tcase_add_checked_fixture(limits, tu_setup, tu_teardown);
	tcase_add_test(core, test_jsonfile_getters_report_field_positions);
	tcase_add_test(core, test_jsonfile_numbers_print_shortest_exact_text);
	tcase_add_test(core, test_jsonfile_print_exact_keeps_every_number);
	tcase_add_test(errors, test_jsonfile_syntax_errors_have_line_and_col);
	tcase_add_test(errors,
		       test_jsonfile_rejects_huge_numbers_and_duplicates);
	tcase_add_test(errors, test_jsonfile_escaped_nul_refused_with_position);
	tcase_add_test(errors,
		       test_jsonfile_escaped_backslash_then_u0000_accepted);
	tcase_add_test(limits, test_jsonfile_deep_nesting_refused);
	tcase_add_test(limits, test_jsonfile_load_refuses_symlink_fifo_and_big);
	suite_add_tcase(s, core);
	suite_add_tcase(s, errors);
	suite_add_tcase(s, limits);
	return s;
}
