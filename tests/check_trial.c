/*
 * check_trial.c - trial files: exact round trip, and validation against
 * the study's space before a worker runs anything
 */
#include "err.h"
#include "jsonfile.h"
#include "space.h"
#include "trial.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct space *sp;

static void setup(void)
{
	const char *t = "{\"format\": \"dehbq-space/1\", \"parameters\": ["
			"{\"name\": \"x\", \"type\": \"float\", \"low\": 0,"
			" \"high\": 1},"
			"{\"name\": \"opt\", \"type\": \"categorical\","
			" \"choices\": [\"adam\", \"sgd\"]}]}";
	char err[DEHBQ_ERRLEN];
	struct jsonfile *jf;

	ck_assert_int_eq(jsonfile_parse("s", t, strlen(t), &jf, err), 0);
	ck_assert_int_eq(space_from_json(jf, jsonfile_root(jf), &sp, err), 0);
	jsonfile_free(jf);
}

static void teardown(void)
{
	space_free(sp);
}

static char *render_text(int attempt, double fid, const char *vec_text)
{
	struct trial t;
	char *text;

	ck_assert_int_eq(trial_init(&t, 2), 0);
	t.id = 42;
	memcpy(t.study, "1b4e28ba-2fa1-11d2-883f-0016d3cca427", 37);
	t.epoch = 3;
	t.bracket = 5;
	t.rung = 1;
	t.fidelity = fid;
	t.kind = TRIAL_KIND_PROMOTION;
	t.parent = 17;
	t.attempt = attempt;
	t.created = 1795000000.5;
	t.seed = 123;
	t.vec[0] = 0.1 + 0.2; /* 0.30000000000000004 */
	t.vec[1] = 0.75;
	t.vec_text = vec_text;
	ck_assert_int_eq(space_decode(sp, t.vec, t.config), 0);
	ck_assert_int_eq(trial_render(&t, sp, &text), 0);
	trial_release(&t);
	return text;
}

static char *render(int attempt, double fid)
{
	return render_text(attempt, fid, NULL);
}

/* the engine's vector text (orchestrator) lays out as the vector itself */
START_TEST(test_trial_render_vec_text_same_bytes)
{
	char *a = render(1, 9),
	     *b = render_text(1, 9, "0.30000000000000004,0.75");

	ck_assert_str_eq(a, b);
	ck_assert(strstr(a, "[0.30000000000000004, 0.75]"));
	free(a);
	free(b);
}
END_TEST

START_TEST(test_trial_round_trip_exact_fidelity_and_vector)
{
	char err[DEHBQ_ERRLEN], *text = render(2, 6.999999999999999);
	struct trial t;

	ck_assert_int_eq(trial_parse("t.json", text, strlen(text), sp, &t, err),
			 DEHBQ_OK);
	ck_assert(t.fidelity == 6.999999999999999);
	ck_assert(t.vec[0] == 0.1 + 0.2);
	ck_assert(t.id == 42 && t.attempt == 2 && t.parent == 17);
	ck_assert(t.kind == TRIAL_KIND_PROMOTION);
	ck_assert_str_eq(t.config[1].s, "sgd");
	ck_assert(strstr(text, "\"fidelity\":\t6.999999999999999"));
	trial_release(&t);
	free(text);
}
END_TEST

/* Replace the first occurrence of `from` in the rendered trial. */
static void expect_refused(const char *from, const char *to, const char *msg)
{
	char err[DEHBQ_ERRLEN], *text = render(1, 9), buf[8192], *p;
	struct trial t;

	p = strstr(text, from);
	ck_assert_ptr_nonnull(p);
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(p - text), text, to,
		 p + strlen(from));
	ck_assert_int_eq(trial_parse("t.json", buf, strlen(buf), sp, &t, err),
			 DEHBQ_EINVAL);
	ck_assert_msg(strstr(err, msg), "got '%s' want '%s'", err, msg);
	free(text);
}

START_TEST(test_trial_validation_refuses_bad_fields)
{
	expect_refused("\"00000042\"", "\"0000004/\"", "field 'id'");
	expect_refused("\"opt\":\t\"sgd\"", "\"opt\":\t\"rm -rf /\"", "opt");
	expect_refused("\"opt\":\t\"sgd\"", "\"opt\":\t\"sgd\", \"cmd\": \"x\"",
		       "cmd");
	expect_refused("\"fidelity\":\t9", "\"fidelity\":\t-1", "fidelity");
	expect_refused("\"kind\":\t\"promotion\"", "\"kind\":\t\"shell\"",
		       "field 'kind'");
	expect_refused("\"attempt\":\t1", "\"attempt\":\t0", "field 'attempt'");
	expect_refused("\"vector\":\t[", "\"vector\":\t[2, ", "field 'vector'");
	expect_refused("\"parent\":\t\"00000017\"", "\"parent\":\t\"../x\"",
		       "field 'parent'");
}
END_TEST

Suite *trial_suite(void)
{
	Suite *s = suite_create("trial");
	TCase *core = tcase_create("core");
	TCase *errors = tcase_create("errors");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_checked_fixture(errors, setup, teardown);
	tcase_add_test(core, test_trial_round_trip_exact_fidelity_and_vector);
	tcase_add_test(core, test_trial_render_vec_text_same_bytes);
	tcase_add_test(errors, test_trial_validation_refuses_bad_fields);
	suite_add_tcase(s, core);
	suite_add_tcase(s, errors);
	return s;
}
