/*
 * check_trial.c - trial files: exact round trip, and validation against
 * the study's space before a worker runs anything
 */
#include "err.h"
#include "jsonfile.h"
#include "space.h"
#include "timeutil.h"
#include "trial.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
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

static char *render_text(int attempt, double fid, const char *state)
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
	snprintf(t.optimizer, sizeof(t.optimizer), "%s", state ? state : "");
	ck_assert_int_eq(space_decode(sp, t.vec, t.config), 0);
	ck_assert_int_eq(trial_render(&t, sp, &text), 0);
	trial_release(&t);
	return text;
}

static char *render(int attempt, double fid)
{
	return render_text(attempt, fid, NULL);
}

/* JSON has no infinity or NaN: such a trial is refused, not printed */
START_TEST(test_trial_render_refuses_non_finite)
{
	struct trial t;
	char *text = NULL;

	ck_assert_int_eq(trial_init(&t, 2), 0);
	memcpy(t.study, "1b4e28ba-2fa1-11d2-883f-0016d3cca427", 37);
	t.fidelity = 1;
	t.attempt = 1;
	t.vec[0] = 0.5;
	t.vec[1] = 0.5;
	ck_assert_int_eq(space_decode(sp, t.vec, t.config), 0);
	t.vec[1] = NAN;
	ck_assert_int_eq(trial_render(&t, sp, &text), DEHBQ_EINVAL);
	ck_assert_ptr_null(text);
	t.vec[1] = 0.5;
	t.config[0].f = INFINITY;
	ck_assert_int_eq(trial_render(&t, sp, &text), DEHBQ_EINVAL);
	t.config[0].f = 0.5;
	ck_assert_int_eq(trial_render(&t, sp, &text), DEHBQ_OK);
	free(text);
	trial_release(&t);
}
END_TEST

/* the optimiser's state travels as an opaque string and comes back intact */
START_TEST(test_trial_optimizer_state_round_trips)
{
	const char *st = "{\"level\":1,\"slot\":2,\"config_id\":3}";
	char *a = render_text(1, 9, st), *b = render(1, 9), err[DEHBQ_ERRLEN];
	char big[400];
	struct trial t;

	ck_assert(strstr(a, "\"optimizer\":\t\"{\\\"level\\\":1,"));
	ck_assert(!strstr(b, "\"optimizer\""));
	ck_assert(strstr(a, "[0.30000000000000004, 0.75]"));
	ck_assert_int_eq(
		trial_parse("00000042.json", a, strlen(a), sp, &t, err),
		DEHBQ_OK);
	ck_assert_str_eq(t.optimizer, st);
	trial_release(&t);
	ck_assert_int_eq(
		trial_parse("00000042.json", b, strlen(b), sp, &t, err),
		DEHBQ_OK);
	ck_assert_str_eq(t.optimizer, "");
	trial_release(&t);
	free(a);
	/* longer than TRIAL_STATE_MAX - 1: refused with the field named */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	free(b);
	b = render(1, 9);
	{
		char *c = malloc(strlen(b) + 512), *at = strstr(b, "\"seed\"");

		ck_assert_ptr_nonnull(at);
		sprintf(c, "%.*s\"optimizer\": \"%s\",\n\t%s", (int)(at - b), b,
			big, at);
		ck_assert_int_eq(
			trial_parse("00000042.json", c, strlen(c), sp, &t, err),
			DEHBQ_EINVAL);
		ck_assert_msg(strstr(err, "field 'optimizer'"), "%s", err);
		free(c);
	}
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

/* The token: rendered when set, read back; absent reads as 0. */
START_TEST(test_trial_token_round_trip)
{
	char err[DEHBQ_ERRLEN], *text = render(1, 9), *with, *p;
	struct trial t;

	ck_assert_ptr_null(strstr(text, "token"));
	ck_assert_int_eq(trial_parse("t.json", text, strlen(text), sp, &t, err),
			 DEHBQ_OK);
	ck_assert(t.token == 0);
	/* add one after "attempt", as trial_render places it */
	p = strstr(text, "\"created\"");
	ck_assert_ptr_nonnull(p);
	with = malloc(strlen(text) + 64);
	sprintf(with, "%.*s\"token\":\t\"9f1c2e7a04b3d865\",\n\t%s",
		(int)(p - text), text, p);
	trial_release(&t);
	ck_assert_int_eq(trial_parse("t.json", with, strlen(with), sp, &t, err),
			 DEHBQ_OK);
	ck_assert(t.token == UINT64_C(0x9f1c2e7a04b3d865));
	free(text);
	ck_assert_int_eq(trial_render(&t, sp, &text), DEHBQ_OK);
	ck_assert(strstr(text, "\"token\":\t\"9f1c2e7a04b3d865\""));
	trial_release(&t);
	free(text);
	free(with);
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
	expect_refused("\"attempt\":\t1", "\"attempt\":\t1, \"token\": \"0\"",
		       "field 'token'");
	expect_refused("\"attempt\":\t1",
		       "\"attempt\":\t1, \"token\": \"0000000000000000\"",
		       "field 'token'");
}
END_TEST

/* The layout as cJSON_Print() gives it, built the way trial.c once did. */
static char *cjson_layout(const struct trial *t, const struct space *s)
{
	char id[ID_TRIAL_LEN], created[TIMEUTIL_ISO_LEN], *txt, *out;
	cJSON *o = cJSON_CreateObject(), *cfg, *vec;
	int i;

	id_trial_format(t->id, id);
	timeutil_iso(t->created, created);
	cJSON_AddStringToObject(o, "format", "dehbq-trial/1");
	cJSON_AddStringToObject(o, "id", id);
	cJSON_AddStringToObject(o, "study", t->study);
	cJSON_AddItemToObject(o, "epoch", jsonfile_number((double)t->epoch));
	cJSON_AddItemToObject(o, "bracket",
			      jsonfile_number((double)t->bracket));
	cJSON_AddItemToObject(o, "rung", jsonfile_number(t->rung));
	cJSON_AddItemToObject(o, "fidelity", jsonfile_number(t->fidelity));
	cJSON_AddStringToObject(o, "kind", trial_kind_name(t->kind));
	cJSON_AddNullToObject(o, "parent");
	cJSON_AddItemToObject(o, "attempt", jsonfile_number(t->attempt));
	cJSON_AddStringToObject(o, "created", created);
	cJSON_AddItemToObject(o, "seed", jsonfile_number((double)t->seed));
	cfg = space_config_to_json(s, t->config);
	cJSON_AddItemToObject(o, "config", cfg);
	vec = cJSON_AddArrayToObject(o, "vector");
	for (i = 0; i < t->dim; i++) {
		char x[40];

		jsonfile_fmt_exact(x, sizeof(x), t->vec[i]);
		cJSON_AddItemToArray(vec, cJSON_CreateRaw(x));
	}
	txt = cJSON_Print(o);
	ck_assert_ptr_nonnull(txt);
	out = malloc(strlen(txt) + 2);
	sprintf(out, "%s\n", txt);
	cJSON_free(txt);
	cJSON_Delete(o);
	return out;
}

/* every kind of value, and choices that need escaping */
START_TEST(test_trial_render_is_cjson_layout)
{
	const char *text =
		"{\"format\": \"dehbq-space/1\", \"parameters\": ["
		"{\"name\": \"lr\", \"type\": \"float\", \"low\": 1e-5,"
		" \"high\": 1, \"log\": true},"
		"{\"name\": \"n.q:x-1\", \"type\": \"int\", \"low\": -5,"
		" \"high\": 500},"
		"{\"name\": \"_opt\", \"type\": \"categorical\","
		" \"choices\": [\"a\\\\b\", \"tab\\there\", \"caf\u00e9\"]},"
		"{\"name\": \"flag\", \"type\": \"categorical\","
		" \"choices\": [true, false]}]}";
	char err[DEHBQ_ERRLEN], *mine, *want;
	struct jsonfile *jf;
	struct space *s;
	struct trial t;
	int k;

	ck_assert_int_eq(jsonfile_parse("s", text, strlen(text), &jf, err), 0);
	ck_assert_msg(space_from_json(jf, jsonfile_root(jf), &s, err) == 0,
		      "%s", err);
	jsonfile_free(jf);
	for (k = 0; k < 20; k++) {
		ck_assert_int_eq(trial_init(&t, 4), 0);
		t.id = (uint64_t)k * 7919;
		memcpy(t.study, "1b4e28ba-2fa1-11d2-883f-0016d3cca427", 37);
		t.epoch = k;
		t.bracket = k / 3;
		t.fidelity = k % 2 ? 1.0 / 3 : 27;
		t.attempt = 1 + k % 4;
		t.created = 1795000000.25 + k;
		t.seed = (uint64_t)k * 1000003;
		t.vec[0] = k / 20.0 + 0.001;
		t.vec[1] = (k * 37 % 20) / 19.0;
		t.vec[2] = (k % 3) / 3.0 + 0.1; /* each choice */
		t.vec[3] = k % 3 / 2.0;
		ck_assert_int_eq(space_decode(s, t.vec, t.config), 0);
		ck_assert_int_eq(trial_render(&t, s, &mine), 0);
		want = cjson_layout(&t, s);
		ck_assert_str_eq(mine, want);
		free(mine);
		free(want);
		trial_release(&t);
	}
	space_free(s);
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
	tcase_add_test(core, test_trial_optimizer_state_round_trips);
	tcase_add_test(core, test_trial_render_is_cjson_layout);
	tcase_add_test(core, test_trial_render_refuses_non_finite);
	tcase_add_test(core, test_trial_token_round_trip);
	tcase_add_test(errors, test_trial_validation_refuses_bad_fields);
	suite_add_tcase(s, core);
	suite_add_tcase(s, errors);
	return s;
}
