/*
 * check_jsonbuf.c - compact JSON text: what it appends parses back to the
 * same values, strings of any bytes included, and it prints as cJSON does
 */
#include "err.h"
#include "jsonbuf.h"

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_jsonbuf_same_text_as_cjson)
{
	static const char *const strs[] = {
		"plain", "",	     "q\"uote",	    "back\\slash", "tab\there",
		"nl\n",	 "\x01\x1f", "caf\xc3\xa9", "del\x7f",	   NULL};
	static const double nums[] = {0,
				      -0.0,
				      1,
				      -17,
				      0.1,
				      1.0 / 3,
				      1e300,
				      6.999999999999999,
				      9007199254740991.0};
	struct jsonbuf b;
	cJSON *o, *a, *it;
	char *mine, *theirs;
	size_t i;

	jsonbuf_init(&b);
	jsonbuf_puts(&b, "{\"s\":[");
	o = cJSON_CreateObject();
	a = cJSON_AddArrayToObject(o, "s");
	for (i = 0; strs[i]; i++) {
		if (i)
			jsonbuf_puts(&b, ",");
		jsonbuf_str(&b, strs[i]);
		cJSON_AddItemToArray(a, cJSON_CreateString(strs[i]));
	}
	jsonbuf_puts(&b, "],\"n\":[");
	a = cJSON_AddArrayToObject(o, "n");
	for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		if (i)
			jsonbuf_puts(&b, ",");
		jsonbuf_num(&b, nums[i]);
	}
	jsonbuf_printf(&b, "],\"i\":%d,\"x\":", -3);
	jsonbuf_num(&b, INFINITY);
	jsonbuf_puts(&b, "}");
	ck_assert_int_eq(jsonbuf_failed(&b), DEHBQ_OK);
	mine = jsonbuf_take(&b);
	ck_assert_ptr_nonnull(mine);

	/* strings: byte for byte what cJSON prints */
	cJSON_AddNumberToObject(o, "i", -3);
	theirs = cJSON_PrintUnformatted(cJSON_GetObjectItem(o, "s"));
	ck_assert_ptr_nonnull(strstr(mine, theirs));
	cJSON_free(theirs);
	cJSON_Delete(o);

	/* and every value reads back exactly */
	o = cJSON_Parse(mine);
	ck_assert_ptr_nonnull(o);
	a = cJSON_GetObjectItem(o, "s");
	for (i = 0; strs[i]; i++)
		ck_assert_str_eq(cJSON_GetArrayItem(a, (int)i)->valuestring,
				 strs[i]);
	a = cJSON_GetObjectItem(o, "n");
	for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		it = cJSON_GetArrayItem(a, (int)i);
		ck_assert(it->valuedouble == nums[i]);
		ck_assert(!!signbit(it->valuedouble) == !!signbit(nums[i]));
	}
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(o, "x")));
	ck_assert_int_eq(cJSON_GetObjectItem(o, "i")->valueint, -3);
	cJSON_Delete(o);
	free(mine);
}
END_TEST

START_TEST(test_jsonbuf_grows_and_takes)
{
	struct jsonbuf b;
	char *t;
	int i;

	jsonbuf_init(&b);
	t = jsonbuf_take(&b);
	ck_assert_str_eq(t, "");
	free(t);
	for (i = 0; i < 5000; i++)
		jsonbuf_printf(&b, "%s%d", i ? "," : "[", i);
	jsonbuf_puts(&b, "]");
	/* one printf longer than the room left */
	jsonbuf_printf(&b, "%0300d", 7);
	ck_assert_uint_eq(b.len, strlen(b.p));
	t = jsonbuf_take(&b);
	ck_assert_ptr_null(b.p);
	ck_assert_int_eq(strncmp(t, "[0,1,2,", 7), 0);
	ck_assert_ptr_nonnull(strstr(t, ",4999]000"));
	ck_assert_uint_eq(strlen(strstr(t, "]") + 1), 300);
	free(t);
}
END_TEST

START_TEST(test_jsonbuf_int_as_printf)
{
	static const int64_t v[] = {
		0, 7, -1, 10, -10, 9007199254740991LL, INT64_MAX, INT64_MIN};
	char want[32];
	struct jsonbuf b;
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		jsonbuf_init(&b);
		jsonbuf_int(&b, v[i]);
		snprintf(want, sizeof(want), "%" PRId64, v[i]);
		ck_assert_str_eq(b.p, want);
		jsonbuf_free(&b);
	}
}
END_TEST

START_TEST(test_jsonbuf_failed_is_sticky)
{
	struct jsonbuf b;

	jsonbuf_init(&b);
	jsonbuf_puts(&b, "[1");
	b.failed = 1; /* as after a failed realloc */
	jsonbuf_puts(&b, ",2]");
	jsonbuf_str(&b, "x");
	ck_assert_str_eq(b.p, "[1");
	ck_assert_int_eq(jsonbuf_failed(&b), DEHBQ_ENOMEM);
	ck_assert_ptr_null(jsonbuf_take(&b));
	ck_assert_ptr_null(b.p);
}
END_TEST

Suite *jsonbuf_suite(void)
{
	Suite *s = suite_create("jsonbuf");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_jsonbuf_same_text_as_cjson);
	tcase_add_test(tc, test_jsonbuf_grows_and_takes);
	tcase_add_test(tc, test_jsonbuf_int_as_printf);
	tcase_add_test(tc, test_jsonbuf_failed_is_sticky);
	suite_add_tcase(s, tc);
	return s;
}
