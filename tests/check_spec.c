/*
 * check_spec.c - the study spec: defaults, round trip, and every
 * tests/data/spec_bad_*.json failing with its own precise message
 */
#include "err.h"
#include "space.h"
#include "spec.h"
#include "optim.h"

#include <cjson/cJSON.h>
#include "testutil.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct {
	const char *file; /* tests/data/spec_bad_<file>.json */
	int code;	  /* expected return code */
	const char *msg;  /* expected message substring */
} bad[] = {
	{"batch_interval", DEHBQ_EINVAL,
	 ":3:25: field 'batch_interval': -0.5 is out of range [0, 10]"},
	{"drain_type", DEHBQ_EINVAL,
	 ":3:14: field 'drain': expected true or false, found string"},
	{"eta_one", DEHBQ_EINVAL, ":2:35: field 'eta': 1 is out of range"},
	{"failures", DEHBQ_EINVAL,
	 ":3:25: field 'max_failures_in_a_row': -1 is out of range [0, "
	 "1000000]"},
	{"fevals_fraction", DEHBQ_EINVAL,
	 ":2:52: field 'fevals': expected an integer, found 10.5"},
	{"format", DEHBQ_EINVAL,
	 ":1:2: field 'format': expected "
	 "\"dehbq-study/1\""},
	{"min_ge_max", DEHBQ_EINVAL,
	 ":2:26: fidelity: 'min' (27) must be <= 'max' (9) (equal: a study "
	 "of one fidelity)"},
	{"no_space", DEHBQ_EINVAL, "missing required field 'space'"},
	{"poll_vs_lease", DEHBQ_EINVAL,
	 ":3:27: runtime: 'poll' (6 s) must be at most half of 'lease' "
	 "(10 s)"},
	{"seed_negative", DEHBQ_EINVAL,
	 ":2:36: field 'seed': -1 is out of "
	 "range"},
	{"space_bad", DEHBQ_EINVAL,
	 ":1:113: parameter 'lr': 'low' (0.1) must be < 'high' (0.01)"},
	{"space_path", DEHBQ_EINVAL,
	 "spec_bad_space_path.json:1:29: field 'space': cannot read '"},
	{"space_path", DEHBQ_EINVAL,
	 "no-such-space.json': No such file or directory; give the path of a "
	 "regular JSON file relative to the spec, or embed the space object"},
	{"space_empty", DEHBQ_EINVAL,
	 "spec_bad_space_empty.json:1:29: field 'space': empty path; give the "
	 "path of a regular JSON file relative to the spec, or embed the "
	 "space object"},
	{"space_devzero", DEHBQ_EINVAL,
	 "spec_bad_space_devzero.json:1:29: field 'space': '/dev/zero' is not "
	 "a regular file; give the path of a regular JSON file relative to "
	 "the spec"},
	{"space_dir", DEHBQ_EINVAL,
	 "spec_bad_space_dir.json:1:29: field 'space': '"},
	{"space_dir", DEHBQ_EINVAL,
	 "/.' is not a regular file; give the path of a regular JSON file"},
	{"space_nul", DEHBQ_EINVAL,
	 "spec_bad_space_nul.json:1:56: string contains \\u0000 (a NUL "
	 "character); remove it"},
	{"study_id", DEHBQ_EINVAL,
	 ":1:29: field 'study': expected a "
	 "lowercase UUID"},
	{"too_many_levels", DEHBQ_EINVAL,
	 "gives more than 64 levels with eta 1.5; raise 'eta' or 'min'"},
	{"unknown_runtime", DEHBQ_EINVAL,
	 ":3:14: unknown field 'leese' "
	 "(typo?)"},
};

START_TEST(test_spec_bad_file_fails_with_its_message)
{
	char path[512], err[DEHBQ_ERRLEN];
	struct spec s;
	int rc;

	snprintf(path, sizeof(path), "%s/spec_bad_%s.json", tu_datadir(),
		 bad[_i].file);
	rc = spec_load(path, 1, &s, err);
	ck_assert_msg(rc == bad[_i].code, "%s: rc %d", path, rc);
	ck_assert_msg(strstr(err, bad[_i].msg), "%s: got '%s', want '%s'", path,
		      err, bad[_i].msg);
	ck_assert_ptr_null(s.space);
}
END_TEST

/* A spec without a limit parses (status, report read such a study); init
 * and the orchestrator refuse it unless the optimizer ends by itself. */
START_TEST(test_spec_limits_unless_it_ends_itself)
{
	char path[512], err[DEHBQ_ERRLEN];
	struct spec s;

	snprintf(path, sizeof(path), "%s/spec_no_termination.json",
		 tu_datadir());
	ck_assert_int_eq(spec_load(path, 1, &s, err), DEHBQ_OK);
	ck_assert_int_eq(spec_check_limits(&s, 0, "x.json", err), DEHBQ_EINVAL);
	ck_assert_msg(strstr(err, "x.json: termination: set at least one of "
				  "'fevals', 'brackets', 'walltime', "
				  "'total_cost' (optimizer 'dehb' does not "
				  "end by itself)"),
		      "%s", err);
	ck_assert_int_eq(spec_check_limits(&s, 1, "x.json", err), DEHBQ_OK);
	s.fevals = 5;
	ck_assert_int_eq(spec_check_limits(&s, 0, "x.json", err), DEHBQ_OK);
	spec_release(&s);
}
END_TEST

/*
 * A space path that is a symbolic link or too big is refused at the spec's
 * field 'space', not with a bare message about the space file.
 */
START_TEST(test_spec_space_path_symlink_and_big_name_the_field)
{
	char err[DEHBQ_ERRLEN], src[512];
	const char *spec = tu_path("spec.json");
	struct spec s;
	int fd;

	snprintf(src, sizeof(src), "%s/space_native.json", tu_datadir());
	ck_assert_int_eq(symlink(src, tu_path("link.json")), 0);
	tu_write(spec, "{\"format\": \"dehbq-study/1\",\n"
		       " \"space\": \"link.json\",\n"
		       " \"fidelity\": {\"min\": 1, \"max\": 9},\n"
		       " \"termination\": {\"fevals\": 10}}\n");
	ck_assert_int_eq(spec_load(spec, 1, &s, err), DEHBQ_EINVAL);
	ck_assert_ptr_null(s.space);
	ck_assert_msg(strstr(err, "spec.json:2:2: field 'space': '") &&
			      strstr(err, "/link.json' is a symbolic link "
					  "(refused); give the path of the "
					  "file it points to"),
		      "%s", err);

	fd = open(tu_path("big.json"), O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)SPACE_FILE_CAP + 1), 0);
	close(fd);
	tu_write(spec, "{\"format\": \"dehbq-study/1\",\n"
		       " \"space\": \"big.json\",\n"
		       " \"fidelity\": {\"min\": 1, \"max\": 9},\n"
		       " \"termination\": {\"fevals\": 10}}\n");
	ck_assert_int_eq(spec_load(spec, 1, &s, err), DEHBQ_ETOOBIG);
	ck_assert_ptr_null(s.space);
	ck_assert_msg(strstr(err, "spec.json:2:2: field 'space': '") &&
			      strstr(err, "/big.json' is larger than 4194304 "
					  "bytes, the limit for a space file"),
		      "%s", err);

	/* the real file through the same path works */
	tu_write(spec, "{\"format\": \"dehbq-study/1\",\n"
		       " \"space\": \"link.json\",\n"
		       " \"fidelity\": {\"min\": 1, \"max\": 9},\n"
		       " \"termination\": {\"fevals\": 10}}\n");
	ck_assert_int_eq(unlink(tu_path("link.json")), 0);
	tu_write(tu_path("link.json"), "{\"format\": \"dehbq-space/1\", "
				       "\"parameters\": [{\"name\": \"x\", "
				       "\"type\": \"float\", \"low\": 0, "
				       "\"high\": 1}]}");
	ck_assert_int_eq(spec_load(spec, 1, &s, err), DEHBQ_OK);
	ck_assert_int_eq(space_dim(s.space), 1);
	spec_release(&s);
}
END_TEST

static const char good[] =
	"{\"format\": \"dehbq-study/1\", \"name\": \"t\",\n"
	" \"space\": {\"format\": \"dehbq-space/1\", \"parameters\": [\n"
	"  {\"name\": \"x\", \"type\": \"float\", \"low\": 0, \"high\": 1}]},\n"
	" \"fidelity\": {\"min\": 1, \"max\": 343, \"eta\": 7},\n"
	" \"optimizer\": {\"crossover_prob\": 0.30000000000000004},\n"
	" \"seed\": 9007199254740992,\n"
	" \"termination\": {\"walltime\": 0.1}}";

START_TEST(test_spec_defaults_and_exact_round_trip)
{
	char err[DEHBQ_ERRLEN], *text;
	struct spec a, b;

	ck_assert_int_eq(spec_parse("g.json", good, strlen(good), 0, &a, err),
			 DEHBQ_OK);
	ck_assert_str_eq(a.optimizer, "dehb");
	ck_assert(a.lease == 60 && a.poll == 1 && a.max_attempts == 3);
	ck_assert_int_eq(a.max_failures_in_a_row, 20);
	ck_assert(a.drain == 1 && a.prefetch == 1);
	ck_assert(a.batch_interval == SPEC_BATCH_INTERVAL);
	ck_assert(cJSON_GetObjectItem(a.settings, "crossover_prob")
			  ->valuedouble == 0.30000000000000004);
	ck_assert_uint_eq(a.seed, 9007199254740992ULL);
	ck_assert_int_eq(spec_render(&a, &text), DEHBQ_OK);
	ck_assert_int_eq(spec_parse("r.json", text, strlen(text), 0, &b, err),
			 DEHBQ_OK);
	ck_assert(cJSON_Compare(a.settings, b.settings, 1));
	ck_assert(b.walltime == a.walltime && b.eta == a.eta);
	ck_assert_int_eq(b.max_failures_in_a_row, a.max_failures_in_a_row);
	ck_assert(space_equal(a.space, b.space));
	free(text);
	spec_release(&a);
	spec_release(&b);
}
END_TEST

/* No fidelity is a study of one fidelity, 1 (issue 39); min = max one of
 * that fidelity, which renders and parses back the same. */
START_TEST(test_spec_one_fidelity)
{
	char path[512], err[DEHBQ_ERRLEN], *text;
	struct spec a, b;

	snprintf(path, sizeof(path), "%s/spec_one_fidelity.json", tu_datadir());
	ck_assert_msg(spec_load(path, 1, &a, err) == DEHBQ_OK, "%s", err);
	ck_assert(a.min_fidelity == 1 && a.max_fidelity == 1);
	ck_assert_int_eq(spec_levels(&a), 1);
	ck_assert_int_eq(spec_check(&a, "x", err), DEHBQ_OK);
	a.min_fidelity = a.max_fidelity = 50;
	ck_assert_int_eq(spec_render(&a, &text), DEHBQ_OK);
	ck_assert_int_eq(spec_parse("r.json", text, strlen(text), 0, &b, err),
			 DEHBQ_OK);
	ck_assert(b.min_fidelity == 50 && b.max_fidelity == 50);
	a.min_fidelity = 51;
	ck_assert_int_eq(spec_check(&a, "x", err), DEHBQ_EINVAL);
	ck_assert_msg(strstr(err, "must be >= 1e-300 and <= 'max'"), "%s", err);
	free(text);
	spec_release(&a);
	spec_release(&b);
}
END_TEST

START_TEST(test_spec_study_json_must_embed_space)
{
	char err[DEHBQ_ERRLEN];
	struct spec s;
	const char *t = "{\"format\": \"dehbq-study/1\", \"space\": \"s.json\","
			" \"fidelity\": {\"min\": 1, \"max\": 9},"
			" \"termination\": {\"fevals\": 3}}";

	ck_assert_int_eq(spec_parse("study.json", t, strlen(t), 0, &s, err),
			 DEHBQ_EINVAL);
	ck_assert_msg(strstr(err, "must be embedded"), "%s", err);
}
END_TEST

/*
 * The spec keeps the optimiser's settings unread; the optimiser validates
 * them (optim_settings, as `dehbq init` and `dehbq validate` call it).
 */
static const struct {
	const char *file, *msg;
} bad_settings[] = {
	{"cr_range", "optimizer.crossover_prob: must be a number in [0, 1]"},
	{"mutation", "optimizer.mutation: must be one of rand1, rand2, best1, "
		     "currenttobest1, randtobest1"},
	/* ... and the list, from the table (below) */
	{"optimizer_name",
	 "optimizer.name: unknown optimizer 'bayesopt9' (one of: "},
};

START_TEST(test_spec_settings_are_the_optimizers)
{
	char path[512], err[DEHBQ_ERRLEN];
	struct spec s;
	cJSON *full = NULL;

	snprintf(path, sizeof(path), "%s/spec_bad_%s.json", tu_datadir(),
		 bad_settings[_i].file);
	ck_assert_int_eq(spec_load(path, 1, &s, err), DEHBQ_OK);
	ck_assert_int_eq(optim_settings(s.optimizer, s.settings, &full, err),
			 DEHBQ_EINVAL);
	ck_assert_msg(strstr(err, bad_settings[_i].msg), "%s: got '%s'", path,
		      err);
	if (!strcmp(bad_settings[_i].file, "optimizer_name")) {
		char list[512], want[600];

		ck_assert_int_eq(optim_list(0, ", ", list, sizeof(list)),
				 DEHBQ_OK);
		snprintf(want, sizeof(want), "(one of: %s)", list);
		ck_assert_msg(strstr(err, want), "got '%s'", err);
	}
	ck_assert_ptr_null(full);
	spec_release(&s);
}
END_TEST

START_TEST(test_spec_settings_defaults_filled_in)
{
	char err[DEHBQ_ERRLEN], *text;
	struct spec a, b;
	cJSON *full;

	ck_assert_int_eq(spec_parse("g.json", good, strlen(good), 0, &a, err),
			 DEHBQ_OK);
	ck_assert_int_eq(optim_settings(a.optimizer, a.settings, &full, err),
			 DEHBQ_OK);
	ck_assert_int_eq(spec_set_settings(&a, full), DEHBQ_OK);
	cJSON_Delete(full);
	ck_assert_int_eq(spec_render(&a, &text), DEHBQ_OK);
	ck_assert_ptr_nonnull(strstr(text, "\"mutation\":\t\"rand1\""));
	ck_assert_int_eq(spec_parse("r.json", text, strlen(text), 0, &b, err),
			 DEHBQ_OK);
	ck_assert(cJSON_Compare(a.settings, b.settings, 1));
	free(text);
	spec_release(&a);
	spec_release(&b);
}
END_TEST

/*
 * A spec built from options (dehbq init) gets the file parser's ranges
 * from spec_check: each value the parser refuses, spec_check refuses too.
 */
START_TEST(test_spec_check_applies_the_parsers_ranges)
{
	static const char *const field[] = {
		"'eta'",	  "'eta'",
		"'brackets'",	  "'walltime'",
		"'lease'",	  "'poll'",
		"'max_attempts'", "'max_failures_in_a_row'",
	};
	char err[DEHBQ_ERRLEN];
	struct spec a;
	int i;

	ck_assert_int_eq(spec_parse("g.json", good, strlen(good), 0, &a, err),
			 DEHBQ_OK);
	ck_assert_int_eq(spec_check(&a, "options", err), DEHBQ_OK);
	for (i = 0; i < 8; i++) {
		struct spec b = a;

		switch (i) {
		case 0:
			b.eta = 1.00005;
			break;
		case 1:
			b.eta = 2e6;
			break;
		case 2:
			b.brackets = SPEC_BRACKETS_MAX + 1;
			break;
		case 3:
			b.walltime = 2e9;
			break;
		case 4:
			b.lease = 0.5, b.poll = 0.1;
			break;
		case 5:
			b.poll = 0;
			break;
		case 6:
			b.max_attempts = 0;
			break;
		default:
			b.max_failures_in_a_row = SPEC_FAILURES_MAX + 1;
			break;
		}
		ck_assert_int_eq(spec_check(&b, "options", err), DEHBQ_EINVAL);
		ck_assert_msg(strstr(err, field[i]) && strstr(err, "options: "),
			      "case %d: %s", i, err);
	}
	spec_release(&a);
}
END_TEST

Suite *spec_suite(void)
{
	Suite *s = suite_create("spec");
	TCase *core = tcase_create("core");
	TCase *errors = tcase_create("errors");
	TCase *limits = tcase_create("limits");

	tcase_add_test(core, test_spec_defaults_and_exact_round_trip);
	tcase_add_test(core, test_spec_one_fidelity);
	tcase_add_test(core, test_spec_settings_defaults_filled_in);
	tcase_add_loop_test(
		core, test_spec_settings_are_the_optimizers, 0,
		(int)(sizeof(bad_settings) / sizeof(bad_settings[0])));
	tcase_add_test(errors, test_spec_check_applies_the_parsers_ranges);
	tcase_add_test(errors, test_spec_study_json_must_embed_space);
	tcase_add_test(errors, test_spec_limits_unless_it_ends_itself);
	tcase_add_loop_test(errors, test_spec_bad_file_fails_with_its_message,
			    0, (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_checked_fixture(limits, tu_setup, tu_teardown);
	tcase_add_test(limits,
		       test_spec_space_path_symlink_and_big_name_the_field);
	suite_add_tcase(s, core);
	suite_add_tcase(s, errors);
	suite_add_tcase(s, limits);
	return s;
}
