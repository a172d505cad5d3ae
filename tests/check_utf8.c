/*
 * check_utf8.c - what counts as UTF-8, its repair, and the places that
 * rely on it: JSON readers refuse other text, JSON writers repair it
 */
#include "err.h"
#include "jsonbuf.h"
#include "jsonfile.h"
#include "result.h"
#include "utf8.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static size_t check(const char *s)
{
	return utf8_check(s, strlen(s));
}

START_TEST(test_utf8_valid_and_invalid)
{
	static const char *const good[] = {
		"",
		"ascii",
		"caf\xc3\xa9",
		"\xe2\x82\xac",
		"\xf0\x9f\x98\x80",
		"\xf4\x8f\xbf\xbf", /* U+10FFFF */
		"\xed\x9f\xbf",	    /* U+D7FF, below the surrogates */
	};
	/* each with the offset of its first bad byte */
	static const struct {
		const char *s;
		size_t at;
	} bad[] = {
		{"caf\xe9", 3},		     /* latin-1 */
		{"ab\xff", 2},		     /* never valid */
		{"\xc0\xaf", 0},	     /* overlong '/' */
		{"\xe0\x80\xaf", 0},	     /* overlong */
		{"\xed\xa0\x80", 0},	     /* surrogate U+D800 */
		{"\xf4\x90\x80\x80", 0},     /* above U+10FFFF */
		{"x\xe2\x82", 1},	     /* truncated at the end */
		{"\x80", 0},		     /* a lone continuation byte */
		{"\xf8\x88\x80\x80\x80", 0}, /* 5-byte form */
	};
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(*good); i++)
		ck_assert_uint_eq(check(good[i]), strlen(good[i]));
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		ck_assert_msg(check(bad[i].s) == bad[i].at, "case %zu: %zu", i,
			      check(bad[i].s));
}
END_TEST

START_TEST(test_utf8_repair_maximal_subparts)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"caf\xc3\xa9", "caf\xc3\xa9"},
		{"caf\xe9!", "caf\xef\xbf\xbd!"},
		/* a valid start and one good continuation: one U+FFFD */
		{"a\xe2\x82"
		 "b",
		 "a\xef\xbf\xbd"
		 "b"},
		/* two invalid bytes: two */
		{"\xff\xfe", "\xef\xbf\xbd\xef\xbf\xbd"},
		{"\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
	};
	size_t i, n;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *r = utf8_repair(cases[i].in, strlen(cases[i].in), &n);

		ck_assert_ptr_nonnull(r);
		ck_assert_str_eq(r, cases[i].out);
		ck_assert_uint_eq(n, strlen(cases[i].out));
		ck_assert_uint_eq(check(r), n);
		free(r);
	}
}
END_TEST

/* A reader refuses text that is not UTF-8, naming line and column. */
START_TEST(test_utf8_json_reader_refuses)
{
	char err[DEHBQ_ERRLEN];
	struct jsonfile *jf;
	const char *t = "{\n \"a\": \"caf\xe9\"}";

	ck_assert_int_eq(jsonfile_parse("f.json", t, strlen(t), &jf, err),
			 DEHBQ_EINVAL);
	ck_assert_msg(strstr(err, "f.json:2:") && strstr(err, "not UTF-8"),
		      "%s", err);
}
END_TEST

/* Writers repair: jsonbuf strings and cJSON renders come out valid. */
START_TEST(test_utf8_json_writers_repair)
{
	struct jsonbuf b;
	struct result r;
	char *text, err[DEHBQ_ERRLEN];
	struct jsonfile *jf;

	jsonbuf_init(&b);
	jsonbuf_str(&b, "tail \xff\xfe end");
	ck_assert(!jsonbuf_failed(&b));
	ck_assert_uint_eq(check(b.p), b.len);
	ck_assert(strstr(b.p, "\xef\xbf\xbd"));
	jsonbuf_free(&b);

	ck_assert_int_eq(result_init(&r), DEHBQ_OK);
	memcpy(r.id, "00000001", 9);
	memcpy(r.study, "1b4e28ba-2fa1-11d2-883f-0016d3cca427", 37);
	memcpy(r.worker, "abcdefabcdef", 13);
	memcpy(r.host, "h", 2);
	r.attempt = 1;
	r.pid = 1;
	r.status = RESULT_FAILED;
	free(r.stderr_tail);
	r.stderr_tail = strdup("Traceback \xff\xfe caf\xe9\n");
	ck_assert_int_eq(result_render(&r, &text), DEHBQ_OK);
	ck_assert_uint_eq(check(text), strlen(text));
	ck_assert_int_eq(jsonfile_parse("r", text, strlen(text), &jf, err),
			 DEHBQ_OK);
	jsonfile_free(jf);
	free(text);
	result_release(&r);
}
END_TEST

/* A trainer's report whose info is not UTF-8 is refused with a reason. */
START_TEST(test_utf8_report_refused)
{
	const char *t = "{\"loss\": 1, \"info\": {\"n\": \"caf\xe9\"}}";
	char err[DEHBQ_ERRLEN], *info = NULL, *objs = NULL;
	double loss, cost;

	ck_assert_int_eq(result_parse_report("report", t, strlen(t), &loss,
					     &cost, &info, &objs, err),
			 DEHBQ_EINVAL);
	ck_assert_msg(strstr(err, "not UTF-8") && strstr(err, "info"), "%s",
		      err);
	ck_assert_ptr_null(info);
}
END_TEST

Suite *utf8_suite(void)
{
	Suite *s = suite_create("utf8");
	TCase *core = tcase_create("core");

	tcase_add_test(core, test_utf8_valid_and_invalid);
	tcase_add_test(core, test_utf8_repair_maximal_subparts);
	tcase_add_test(core, test_utf8_json_reader_refuses);
	tcase_add_test(core, test_utf8_json_writers_repair);
	tcase_add_test(core, test_utf8_report_refused);
	suite_add_tcase(s, core);
	return s;
}
