/*
 * check_id.c - identifier formats: nothing path-hostile gets through
 */
#include "err.h"
#include "id.h"
#include "logmsg.h"

#include <check.h>
#include <string.h>

START_TEST(test_id_generated_ids_validate)
{
	char s[ID_STUDY_LEN], w[ID_WORKER_LEN], h[ID_HOST_LEN], t[ID_TRIAL_LEN];
	uint64_t n;

	id_study_new(s);
	id_worker_new(w);
	id_host(h);
	ck_assert(id_is_study(s));
	ck_assert(id_is_worker(w));
	ck_assert(id_is_host(h));
	ck_assert_int_eq(id_trial_format(42, t), DEHBQ_OK);
	ck_assert_str_eq(t, "00000042");
	ck_assert_int_eq(id_trial_parse(t, &n), DEHBQ_OK);
	ck_assert_uint_eq(n, 42);
	ck_assert_int_eq(id_trial_format(ID_TRIAL_MAX + 1, t), DEHBQ_ETOOBIG);
	ck_assert_int_eq(id_trial_format(0, t), DEHBQ_OK);
	ck_assert_str_eq(t, "00000000");
	ck_assert_int_eq(id_trial_format(ID_TRIAL_MAX, t), DEHBQ_OK);
	ck_assert_str_eq(t, "99999999");
	ck_assert_int_eq(id_trial_format(12345678, t), DEHBQ_OK);
	ck_assert_str_eq(t, "12345678");
}
END_TEST

START_TEST(test_id_hostile_strings_rejected)
{
	static const char *bad[] = {
		"",	     "../../etc", "0000004/", "0000004",
		"000000420", "0000004a",  "a/b",      "..",
		"host name", "host\n",	  "héte",     "x.y",
	};
	size_t i;
	uint64_t n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(id_trial_parse(bad[i], &n), DEHBQ_EINVAL);
		ck_assert(!id_is_study(bad[i]));
		ck_assert(!id_is_worker(bad[i]));
		if (strcmp(bad[i], "0000004") && strcmp(bad[i], "000000420") &&
		    strcmp(bad[i], "0000004a"))
			ck_assert_msg(!id_is_host(bad[i]), "%s", bad[i]);
	}
	ck_assert(!id_is_worker("ABCDEF012345"));
	ck_assert(!id_is_study("1B4E28BA-2FA1-11D2-883F-0016D3CCA427"));
	ck_assert(id_is_study("1b4e28ba-2fa1-11d2-883f-0016d3cca427"));
}
END_TEST

START_TEST(test_logmsg_format_line)
{
	char buf[256];
	size_t n;

	n = logmsg_format(buf, sizeof(buf), "dehbq-x", 4242, LOGMSG_WARN,
			  1777636800.123, "trial=%s lost", "00000001");
	ck_assert_str_eq(buf, "2026-05-01T12:00:00.123Z dehbq-x[4242] W "
			      "trial=00000001 lost\n");
	ck_assert_uint_eq(n, strlen(buf));
	n = logmsg_format(buf, 40, "p", 1, LOGMSG_INFO, 0, "%s",
			  "a very long message that will be truncated");
	ck_assert_uint_eq(n, 39);
	ck_assert_int_eq(buf[38], '\n');
}
END_TEST

START_TEST(test_id_token_format_parse)
{
	static const char *const bad[] = {
		"",
		"0000000000000000",
		"0123456789ABCDEF",
		"0123456789abcde",
		"0123456789abcdef0",
		"0123456789abcdeg",
		"../../etc/passwd",
	};
	char t[ID_TOKEN_LEN];
	uint64_t v, w;
	size_t i;

	id_token_format(UINT64_C(0x0123456789abcdef), t);
	ck_assert_str_eq(t, "0123456789abcdef");
	ck_assert_int_eq(id_token_parse(t, &v), DEHBQ_OK);
	ck_assert(v == UINT64_C(0x0123456789abcdef));
	for (i = 0; i < 100; i++) { /* random, never 0, round trip */
		v = id_token_new();
		ck_assert(v != 0);
		id_token_format(v, t);
		ck_assert_int_eq(id_token_parse(t, &w), DEHBQ_OK);
		ck_assert(v == w);
	}
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		ck_assert_int_eq(id_token_parse(bad[i], &v), DEHBQ_EINVAL);
}
END_TEST

Suite *id_suite(void)
{
	Suite *s = suite_create("id");
	TCase *core = tcase_create("core");
	TCase *errors = tcase_create("errors");

	tcase_add_test(core, test_id_generated_ids_validate);
	tcase_add_test(core, test_logmsg_format_line);
	tcase_add_test(core, test_id_token_format_parse);
	tcase_add_test(errors, test_id_hostile_strings_rejected);
	suite_add_tcase(s, core);
	suite_add_tcase(s, errors);
	return s;
}
