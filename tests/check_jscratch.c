/*
 * check_jscratch.c - cJSON's scratch block: reuse, fallback, nesting, and
 * plain malloc outside scopes
 */
#include "jscratch.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/* Build and print a tree of n items; return the address of the root. */
static void *build(int n, char **text)
{
	cJSON *o = cJSON_CreateArray();
	void *at = o;
	int i;

	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(o, cJSON_CreateNumber(i));
	*text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return at;
}

START_TEST(test_jscratch_scopes_reuse_the_block)
{
	char *t1, *t2, *copy;
	void *a, *b;

	jscratch_begin();
	a = build(10, &t1);
	copy = strdup(t1); /* what must outlive the scope is copied */
	jscratch_end();
	jscratch_begin();
	b = build(10, &t2);
	ck_assert_str_eq(t2, copy);
	cJSON_free(t1);
	cJSON_free(t2);
	jscratch_end();
	ck_assert_ptr_eq(a, b); /* the same bytes, handed out again */
	free(copy);
}
END_TEST

START_TEST(test_jscratch_outgrown_scope_falls_back_then_grows)
{
	char *t;
	void *small, *big, *again;

	jscratch_begin();
	small = build(1, &t);
	cJSON_free(t);
	jscratch_end();
	/* ~100k items: far more than the first block */
	jscratch_begin();
	big = build(100000, &t);
	ck_assert_int_eq(strlen(t) > 400000, 1);
	cJSON_free(t); /* the malloc fallback: freed as usual */
	jscratch_end();
	jscratch_begin();
	again = build(100000, &t);
	ck_assert_int_eq(strlen(t) > 400000, 1);
	cJSON_free(t);
	jscratch_end();
	ck_assert_ptr_ne(small, NULL);
	ck_assert_ptr_ne(big, NULL);
	/* the next scope got a block of its own, big enough: the root is at
	 * its start, as in the first scope */
	jscratch_begin();
	ck_assert_ptr_eq(build(1, &t), again);
	cJSON_free(t);
	jscratch_end();
	jscratch_release();
}
END_TEST

START_TEST(test_jscratch_nested_scopes_release_at_the_outer_end)
{
	char *t1, *t2;
	void *a, *b;

	jscratch_begin();
	a = build(3, &t1);
	jscratch_begin();
	b = build(3, &t2);
	jscratch_end();
	ck_assert_ptr_ne(a, b);
	ck_assert_str_eq(t1, "[0,1,2]"); /* still valid: the outer is open */
	ck_assert_str_eq(t2, "[0,1,2]");
	cJSON_free(t1);
	cJSON_free(t2);
	jscratch_end();
	jscratch_end(); /* unbalanced: ignored */
	jscratch_release();
}
END_TEST

START_TEST(test_jscratch_outside_scopes_cjson_uses_malloc)
{
	cJSON *kept;
	char *t;

	jscratch_begin();
	jscratch_end();
	kept = cJSON_Parse("{\"a\": [1, 2, {\"b\": \"c\"}]}");
	ck_assert_ptr_nonnull(kept);
	/* a scope in between must not disturb a tree made outside */
	jscratch_begin();
	build(1000, &t);
	cJSON_free(t);
	jscratch_end();
	t = cJSON_PrintUnformatted(kept);
	ck_assert_str_eq(t, "{\"a\":[1,2,{\"b\":\"c\"}]}");
	cJSON_free(t);
	cJSON_Delete(kept);
	jscratch_release();
}
END_TEST

Suite *jscratch_suite(void)
{
	Suite *s = suite_create("jscratch");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_jscratch_scopes_reuse_the_block);
	tcase_add_test(tc, test_jscratch_outgrown_scope_falls_back_then_grows);
	tcase_add_test(tc,
		       test_jscratch_nested_scopes_release_at_the_outer_end);
	tcase_add_test(tc, test_jscratch_outside_scopes_cjson_uses_malloc);
	suite_add_tcase(s, tc);
	return s;
}
