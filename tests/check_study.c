/*
 * check_study.c - file-name grammar of the study directory: every name
 * round-trips, and nothing path-hostile parses
 */
#include "err.h"
#include "study.h"
#include "testutil.h"

#include <check.h>
#include <string.h>
#include <sys/stat.h>

START_TEST(test_study_names_round_trip)
{
	char buf[STUDY_NAME_MAX], host[ID_HOST_LEN], wid[ID_WORKER_LEN];
	struct study_claim c = {42, "node-17", 4242, "0123456789ab"}, d;
	uint64_t id;
	int rung, attempt;
	long pid;

	ck_assert_int_eq(study_pending_name(buf, sizeof(buf), 2, 42), 0);
	ck_assert_str_eq(buf, "97-00000042.json");
	ck_assert_int_eq(study_parse_pending(buf, &rung, &id), 0);
	ck_assert(rung == 2 && id == 42);
	ck_assert_int_eq(study_claim_name(buf, sizeof(buf), &c), 0);
	ck_assert_str_eq(buf, "00000042@node-17.4242.0123456789ab.json");
	ck_assert_int_eq(study_parse_claim(buf, &d), 0);
	ck_assert(d.id == 42 && d.pid == 4242);
	ck_assert_str_eq(d.host, "node-17");
	ck_assert_str_eq(d.worker, "0123456789ab");
	ck_assert_int_eq(study_result_name(buf, sizeof(buf), 7, 3, c.worker),
			 0);
	ck_assert_str_eq(buf, "00000007.a3.0123456789ab.json");
	ck_assert_int_eq(study_parse_result(buf, &id, &attempt, wid), 0);
	ck_assert(id == 7 && attempt == 3);
	ck_assert_int_eq(study_worker_name(buf, sizeof(buf), "n1", 9, c.worker),
			 0);
	ck_assert_int_eq(study_parse_worker(buf, host, &pid, wid), 0);
	ck_assert(pid == 9 && !strcmp(host, "n1"));
	ck_assert_uint_eq(study_shard(123456), 12);
}
END_TEST

START_TEST(test_study_hostile_names_rejected)
{
	static const char *bad[] = {
		"97-0000042.json",
		"97-000000421.json",
		"9-00000042.json",
		"97-00000042.json.tmp",
		".97-00000042.json",
		"97-0000004/.json",
		"00000042@../x.1.0123456789ab.json",
		"00000042@host.0.0123456789ab.json",
		"00000042@host.01.0123456789ab.json",
		"00000042@ho/st.1.0123456789ab.json",
		"00000042@host.1.0123456789AB.json",
		"00000042.a0.0123456789ab.json",
		"00000042.a.0123456789ab.json",
		"00000042.a1.0123456789a.json",
		"../00000042.a1.0123456789ab.json",
		"",
		"..",
		".json",
	};
	char wid[ID_WORKER_LEN];
	struct study_claim c;
	uint64_t id;
	int r, a;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(study_parse_pending(bad[i], &r, &id), "%s",
			      bad[i]);
		ck_assert_msg(study_parse_claim(bad[i], &c), "%s", bad[i]);
		ck_assert_msg(study_parse_result(bad[i], &id, &a, wid), "%s",
			      bad[i]);
	}
}
END_TEST

START_TEST(test_study_builders_refuse_invalid_parts)
{
	char buf[STUDY_NAME_MAX];
	struct study_claim c = {1, "bad/host", 1, "0123456789ab"};

	ck_assert_int_ne(study_claim_name(buf, sizeof(buf), &c), 0);
	ck_assert_int_ne(study_pending_name(buf, sizeof(buf), 100, 1), 0);
	ck_assert_int_ne(study_pending_name(buf, 8, 1, 1), 0);
	ck_assert_int_ne(
		study_result_name(buf, sizeof(buf), 1, 0, "0123456789ab"), 0);
}
END_TEST

START_TEST(test_study_create_dirs_is_idempotent)
{
	struct stat st;
	int i;

	ck_assert_int_eq(study_create_dirs(tu_path("s")), 0);
	ck_assert_int_eq(study_create_dirs(tu_path("s")), 0);
	for (i = 0; study_dirs[i]; i++)
		ck_assert_msg(stat(tu_path("s/%s", study_dirs[i]), &st) == 0 &&
				      S_ISDIR(st.st_mode),
			      "%s", study_dirs[i]);
}
END_TEST

START_TEST(test_study_path_joins_and_refuses_overflow)
{
	char buf[32], big[STUDY_PATH_MAX + 8];

	ck_assert_int_eq(study_path(buf, sizeof(buf), "/s", "claimed/%s",
				    "00000007@h.1.w.json"),
			 DEHBQ_OK);
	ck_assert_str_eq(buf, "/s/claimed/00000007@h.1.w.json");
	/* exactly full: 31 characters and the NUL */
	ck_assert_int_eq(study_path(buf, sizeof(buf), "/s", "%s",
				    "abcdefghijklmnopqrstuvwxyzAB"),
			 DEHBQ_OK);
	ck_assert_uint_eq(strlen(buf), 31);
	ck_assert_int_eq(study_path(buf, sizeof(buf), "/s", "%s",
				    "abcdefghijklmnopqrstuvwxyzABC"),
			 DEHBQ_ETOOBIG);
	ck_assert_str_eq(buf, "");
	memset(big, 'r', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	ck_assert_int_eq(study_path(buf, sizeof(buf), big, "x"), DEHBQ_ETOOBIG);
	ck_assert_int_eq(study_path(buf, 3, "/s", "%s", ""), DEHBQ_ETOOBIG);
	ck_assert_int_eq(study_path(buf, 4, "/s", "%s", ""), DEHBQ_OK);
	ck_assert_str_eq(buf, "/s/");
}
END_TEST

START_TEST(test_study_join_matches_study_path)
{
	char a[32], b[32];

	ck_assert_int_eq(
		study_join(a, sizeof(a), "/s", "results", "00000007.a1.w.json"),
		DEHBQ_OK);
	ck_assert_int_eq(study_path(b, sizeof(b), "/s", "results/%s",
				    "00000007.a1.w.json"),
			 DEHBQ_OK);
	ck_assert_str_eq(a, b);
	ck_assert_int_eq(study_join(a, sizeof(a), ".", "archive/0000", NULL),
			 DEHBQ_OK);
	ck_assert_str_eq(a, "./archive/0000");
	/* exactly full: 31 characters and the NUL; one more is refused */
	ck_assert_int_eq(study_join(a, sizeof(a), "/s", "d",
				    "abcdefghijklmnopqrstuvwxyz"),
			 DEHBQ_OK);
	ck_assert_uint_eq(strlen(a), 31);
	ck_assert_int_eq(study_join(a, sizeof(a), "/s", "d",
				    "abcdefghijklmnopqrstuvwxyzA"),
			 DEHBQ_ETOOBIG);
	ck_assert_str_eq(a, "");
	ck_assert_int_eq(study_join(a, 3, "/s", NULL, NULL), DEHBQ_OK);
	ck_assert_int_eq(study_join(a, 2, "/s", NULL, NULL), DEHBQ_ETOOBIG);
	/* the pending name, made without printf, for every rung bound */
	ck_assert_int_eq(study_pending_name(a, sizeof(a), 0, 99999999), 0);
	ck_assert_str_eq(a, "99-99999999.json");
	ck_assert_int_eq(study_pending_name(a, 17, 99, 0), 0);
	ck_assert_str_eq(a, "00-00000000.json");
	ck_assert_int_ne(study_pending_name(a, 16, 99, 0), 0);
	ck_assert_int_ne(study_pending_name(a, sizeof(a), 0, 100000000), 0);
	ck_assert_int_ne(study_pending_name(a, sizeof(a), -1, 1), 0);
}
END_TEST

START_TEST(test_study_archive_paths)
{
	char d[STUDY_ARCHIVE_DIR_LEN], p[64];

	study_archive_dir(d, 0);
	ck_assert_str_eq(d, "archive/0000");
	study_archive_dir(d, 123456);
	ck_assert_str_eq(d, "archive/0012");
	study_archive_dir(d, 99999999);
	ck_assert_str_eq(d, "archive/9999");
	ck_assert_int_eq(study_trial_archive_path(p, sizeof(p), "/s", 123456),
			 DEHBQ_OK);
	ck_assert_str_eq(p, "/s/archive/0012/00123456.trial.json");
	/* 35 characters and the NUL fit exactly; one byte less does not */
	ck_assert_int_eq(study_trial_archive_path(p, 36, "/s", 7), DEHBQ_OK);
	ck_assert_int_eq(study_trial_archive_path(p, 35, "/s", 7),
			 DEHBQ_ETOOBIG);
	ck_assert_int_eq(
		study_trial_archive_path(p, sizeof(p), "/s", 100000000),
		DEHBQ_ETOOBIG);
	ck_assert_str_eq(p, "");
	/* every archive and log name comes from here */
	ck_assert_int_eq(
		study_archive_file(p, sizeof(p), "/s", 42, 0, "result"),
		DEHBQ_OK);
	ck_assert_str_eq(p, "/s/archive/0000/00000042.result.json");
	ck_assert_int_eq(
		study_archive_file(p, sizeof(p), "/s", 10042, 2, "trial"),
		DEHBQ_OK);
	ck_assert_str_eq(p, "/s/archive/0001/00010042.a2.trial.json");
	ck_assert_int_eq(study_archive_file(p, sizeof(p), "/s", 1, -1, "trial"),
			 DEHBQ_EINVAL);
	ck_assert_int_eq(study_log_path(p, sizeof(p), "/s", 10042, 3, "err"),
			 DEHBQ_OK);
	ck_assert_str_eq(p, "/s/logs/0001/00010042.a3.err");
	ck_assert_int_eq(study_log_path(p, sizeof(p), "", 7, 1, "out"),
			 DEHBQ_OK);
	ck_assert_str_eq(p, "logs/0000/00000007.a1.out");
	ck_assert_int_eq(study_log_path(p, 10, "", 7, 1, "out"), DEHBQ_ETOOBIG);
}
END_TEST

Suite *study_suite(void)
{
	Suite *s = suite_create("study");
	TCase *core = tcase_create("core");
	TCase *errors = tcase_create("errors");

	tcase_add_checked_fixture(core, tu_setup, tu_teardown);
	tcase_add_test(core, test_study_names_round_trip);
	tcase_add_test(core, test_study_create_dirs_is_idempotent);
	tcase_add_test(core, test_study_path_joins_and_refuses_overflow);
	tcase_add_test(core, test_study_join_matches_study_path);
	tcase_add_test(core, test_study_archive_paths);
	tcase_add_test(errors, test_study_hostile_names_rejected);
	tcase_add_test(errors, test_study_builders_refuse_invalid_parts);
	suite_add_tcase(s, core);
	suite_add_tcase(s, errors);
	return s;
}
