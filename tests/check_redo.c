/*
 * check_redo.c - the redo list: its text form round trip, what a loaded
 * list may name, and applying it (order, stale copies, retries)
 */
#include "atomicfile.h"
#include "err.h"
#include "redo.h"
#include "study.h"
#include "testutil.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct redo r;

static void setup(void)
{
	tu_setup();
	ck_assert_int_eq(study_create_dirs(tu_dir), DEHBQ_OK);
	ck_assert_int_eq(mkdir(tu_path("archive/0000"), 0777), 0);
	redo_init(&r, tu_dir);
}

static void teardown(void)
{
	redo_release(&r);
	atomicfile_set_ops(NULL);
	tu_teardown();
}

/* 1 when the file at p holds exactly text */
static int holds(const char *p, const char *text)
{
	char *t = tu_read(p, NULL);
	int same = t && !strcmp(t, text);

	free(t);
	return same;
}

static int exists(const char *p)
{
	struct stat st;

	return lstat(p, &st) == 0;
}

/* Text form: relative paths, read back to the same entries. */
START_TEST(test_redo_text_round_trip)
{
	struct redo back;
	char err[DEHBQ_ERRLEN], *text;
	cJSON *arr;
	size_t i;

	ck_assert_int_eq(redo_push(&r, REDO_MOVE,
				   tu_path("staging/00000001.json"),
				   tu_path("pending/99-00000001.json"), NULL),
			 DEHBQ_OK);
	ck_assert_int_eq(redo_push(&r, REDO_WRITE, NULL,
				   tu_path("archive/0000/00000001.a1.x.note"),
				   "why \"quoted\"\n"),
			 DEHBQ_OK);
	ck_assert_int_eq(redo_push(&r, REDO_UNLINK, NULL,
				   tu_path("state/requests/r.json"), NULL),
			 DEHBQ_OK);
	/* a requeue in a finished study: FINISHED goes, and only by unlink */
	ck_assert_int_eq(
		redo_push(&r, REDO_UNLINK, NULL, tu_path("FINISHED"), NULL),
		DEHBQ_OK);
	ck_assert_int_eq(
		redo_push(&r, REDO_MOVE_NEW,
			  tu_path("claimed/00000001@h.1.0123456789ab.json"),
			  tu_path("archive/0000/00000001.trial.json"), NULL),
		DEHBQ_OK);
	ck_assert(redo_has_from(&r, tu_path("staging/00000001.json")));
	ck_assert(!redo_has_from(&r, tu_path("pending/99-00000001.json")));
	ck_assert(redo_has_to(&r, tu_path("archive/0000/00000001.trial.json")));
	text = redo_to_text(&r);
	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_null(strstr(text, tu_dir)); /* relative */
	ck_assert(strstr(text, "\"from\":\"staging/00000001.json\""));
	arr = cJSON_Parse(text);
	ck_assert_ptr_nonnull(arr);
	redo_init(&back, tu_dir);
	ck_assert_int_eq(redo_load(&back, arr, "snap", err), DEHBQ_OK);
	ck_assert_uint_eq(back.n, r.n);
	for (i = 0; i < r.n; i++) {
		ck_assert_int_eq(back.e[i].op, r.e[i].op);
		ck_assert_str_eq(back.e[i].to, r.e[i].to);
		ck_assert(!r.e[i].from || !strcmp(back.e[i].from, r.e[i].from));
		ck_assert(!r.e[i].text || !strcmp(back.e[i].text, r.e[i].text));
	}
	redo_release(&back);
	cJSON_Delete(arr);
	free(text);
}
END_TEST

/* A loaded list names only our directories, never anything else. */
START_TEST(test_redo_load_refuses)
{
	static const char *const bad[] = {
		"[{\"op\":\"move\",\"from\":\"../x\",\"to\":\"pending/a\"}]",
		"[{\"op\":\"move\",\"from\":\"staging/a\",\"to\":\"/etc/"
		"passwd\"}]",
		"[{\"op\":\"move\",\"from\":\"staging/a\",\"to\":\"state/"
		"lease.json\"}]",
		"[{\"op\":\"move\",\"from\":\"archive/../../"
		"x\",\"to\":\"pending/a\"}]",
		"[{\"op\":\"write\",\"to\":\"archive/0000/a\"}]",
		"[{\"op\":\"rm -rf\",\"to\":\"archive/0000/a\"}]",
		"[{\"op\":\"unlink\",\"to\":\"pending/a\\u0001b\"}]",
		"[{\"op\":\"move\",\"to\":\"pending/a\"}]",
		"[{\"op\":\"write\",\"to\":\"FINISHED\",\"text\":\"x\"}]",
		"[{\"op\":\"move\",\"from\":\"FINISHED\",\"to\":"
		"\"pending/a\"}]",
	};
	char err[DEHBQ_ERRLEN];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		cJSON *arr = cJSON_Parse(bad[i]);

		ck_assert_ptr_nonnull(arr);
		ck_assert_int_eq(redo_load(&r, arr, "snap", err), DEHBQ_EINVAL);
		ck_assert_msg(strstr(err, "snap: redo[0]"), "%s", err);
		cJSON_Delete(arr);
		redo_release(&r);
	}
}
END_TEST

/* Apply: in order; a taken name sends the file beside it as stale; a
 * vanished source is done; the queue empties. */
START_TEST(test_redo_apply)
{
	tu_write(tu_path("staging/00000001.json"), "t1\n");
	tu_write(tu_path("claimed/00000002@h.1.0123456789ab.json"), "c2\n");
	tu_write(tu_path("archive/0000/00000002.trial.json"), "older\n");
	tu_write(tu_path("state/requests/r.json"), "{}\n");
	redo_push(&r, REDO_MOVE, tu_path("staging/00000001.json"),
		  tu_path("pending/99-00000001.json"), NULL);
	redo_push(&r, REDO_MOVE_NEW,
		  tu_path("claimed/00000002@h.1.0123456789ab.json"),
		  tu_path("archive/0000/00000002.trial.json"), NULL);
	redo_push(&r, REDO_MOVE, tu_path("results/gone.json"),
		  tu_path("archive/0000/gone.json"), NULL);
	redo_push(&r, REDO_WRITE, NULL, tu_path("archive/0000/n.note"), "n\n");
	redo_push(&r, REDO_UNLINK, NULL, tu_path("state/requests/r.json"),
		  NULL);
	redo_push(&r, REDO_UNLINK, NULL, tu_path("state/requests/none.json"),
		  NULL);
	ck_assert_int_eq(redo_apply(&r, 0, 0), DEHBQ_OK);
	ck_assert_uint_eq(r.n, 0);
	ck_assert(r.gone);
	ck_assert(exists(tu_path("pending/99-00000001.json")));
	ck_assert(!exists(tu_path("staging/00000001.json")));
	ck_assert(
		holds(tu_path("archive/0000/00000002.trial.json"), "older\n"));
	ck_assert(exists(
		tu_path("archive/0000/"
			"claimed.00000002@h.1.0123456789ab.stale.json")));
	ck_assert(holds(tu_path("archive/0000/n.note"), "n\n"));
	ck_assert(!exists(tu_path("state/requests/r.json")));
}
END_TEST

static int renames;

static int rename_fails_second(const char *from, const char *to)
{
	if (++renames == 2) {
		errno = EIO;
		return -1;
	}
	return rename(from, to);
}

/* A failing entry and everything after it stay queued for the retry. */
START_TEST(test_redo_apply_failure_keeps_the_rest)
{
	struct atomicfile_ops ops = *atomicfile_get_ops();
	int i;

	for (i = 1; i <= 3; i++) {
		char from[64], to[64];

		snprintf(from, sizeof(from), "staging/0000000%d.json", i);
		snprintf(to, sizeof(to), "pending/99-0000000%d.json", i);
		tu_write(tu_path("%s", from), "t\n");
		redo_push(&r, REDO_MOVE, tu_path("%s", from), tu_path("%s", to),
			  NULL);
	}
	ops.rename = rename_fails_second;
	atomicfile_set_ops(&ops);
	renames = 0;
	ck_assert_int_eq(redo_apply(&r, 0, 0), DEHBQ_ESYS);
	atomicfile_set_ops(NULL);
	ck_assert_uint_eq(r.n, 2);
	ck_assert(strstr(r.e[0].from, "00000002"));
	ck_assert(exists(tu_path("pending/99-00000001.json")));
	ck_assert_int_eq(redo_apply(&r, 0, 0), DEHBQ_OK);
	ck_assert_uint_eq(r.n, 0);
	ck_assert(exists(tu_path("pending/99-00000003.json")));
}
END_TEST

/* Entries in many directories (once capped at 16 fsynced) all apply. */
START_TEST(test_redo_apply_many_directories)
{
	int i;

	for (i = 0; i < 40; i++) {
		ck_assert_int_eq(mkdir(tu_path("archive/%04d", i + 1), 0777),
				 0);
		redo_push(&r, REDO_WRITE, NULL,
			  tu_path("archive/%04d/n.note", i + 1), "n\n");
	}
	ck_assert_int_eq(redo_apply(&r, 0, 0), DEHBQ_OK);
	for (i = 0; i < 40; i++)
		ck_assert(exists(tu_path("archive/%04d/n.note", i + 1)));
}
END_TEST

Suite *redo_suite(void)
{
	Suite *s = suite_create("redo");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_redo_text_round_trip);
	tcase_add_test(tc, test_redo_load_refuses);
	tcase_add_test(tc, test_redo_apply);
	tcase_add_test(tc, test_redo_apply_failure_keeps_the_rest);
	tcase_add_test(tc, test_redo_apply_many_directories);
	suite_add_tcase(s, tc);
	return s;
}
