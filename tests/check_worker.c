/*
 * check_worker.c - the worker's pure parts: placeholder substitution,
 * environment names, report parsing, the priority choice, claiming
 * (including a lost race and quarantine) and the duration estimator
 */
#include "atomicfile.h"
#include "claim.h"
#include "err.h"
#include "jsonfile.h"
#include "logmsg.h"
#include "outcome.h"
#include "registry.h"
#include "result.h"
#include "run.h"
#include "runenv.h"
#include "space.h"
#include "spec.h"
#include "study.h"
#include "testutil.h"
#include "trial.h"
#include "workdir.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

static const struct runenv_vars vars = {
	"/w/config.json", "9",	"00000042", "2", "/w",
	"/w/result.json", "77", "",
};

static char *subst(const char *in)
{
	char *out;

	ck_assert_int_eq(runenv_subst(in, &vars, &out), DEHBQ_OK);
	return out;
}

#define ck_subst(in, want)                                                     \
	do {                                                                   \
		char *got_ = subst(in);                                        \
		ck_assert_str_eq(got_, want);                                  \
		free(got_);                                                    \
	} while (0)

START_TEST(test_worker_subst_known_placeholders)
{
	ck_subst("{config}", "/w/config.json");
	ck_subst("--lr={budget}/{id}.a{attempt}", "--lr=9/00000042.a2");
	ck_subst("{workdir}{result}{seed}", "/w/w/result.json77");
	ck_subst("p={parent_workdir}.", "p=.");
	ck_subst("{id}{id}{id}{id}{id}{id}",
		 "000000420000004200000042000000420000004200000042");
}
END_TEST

START_TEST(test_worker_subst_leaves_unknown_alone)
{
	ck_subst("", "");
	ck_subst("plain", "plain");
	ck_subst("{nope}", "{nope}");
	ck_subst("{", "{");
	ck_subst("}{", "}{");
	ck_subst("{}", "{}");
	ck_subst("{config", "{config");
	ck_subst("{CONFIG}", "{CONFIG}");
	ck_subst("{{id}}", "{00000042}");
	ck_subst("{ id}", "{ id}");
}
END_TEST

START_TEST(test_worker_env_name_sanitised)
{
	char buf[64];

	ck_assert_int_eq(space_env_name("lr", buf, sizeof(buf)), DEHBQ_OK);
	ck_assert_str_eq(buf, "DEHBQ_P_LR");
	ck_assert_int_eq(space_env_name("n-layers", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "DEHBQ_P_N_LAYERS");
	ck_assert_int_eq(space_env_name("data:set.v2", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "DEHBQ_P_DATA_SET_V2");
	ck_assert_int_eq(space_env_name("a b=c\xc3\xa9", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "DEHBQ_P_A_B_C__");
	ck_assert_int_eq(space_env_name("Mixed9", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "DEHBQ_P_MIXED9");
	ck_assert_int_eq(space_env_name("toolong", buf, 10), DEHBQ_ETOOBIG);
	ck_assert_int_eq(space_env_name("ab", buf, 11), DEHBQ_OK);
	ck_assert_int_eq(space_env_name("abc", buf, 11), DEHBQ_ETOOBIG);
}
END_TEST

START_TEST(test_worker_budget_text_is_shortest_exact)
{
	char buf[40];
	const double xs[] = {9,	     0.1,	   1.0 / 3, 6.999999999999999,
			     1e-300, 123456789.125};
	size_t i;

	jsonfile_fmt_double(buf, sizeof(buf), 9);
	ck_assert_str_eq(buf, "9");
	jsonfile_fmt_double(buf, sizeof(buf), 0.1);
	ck_assert_str_eq(buf, "0.1");
	jsonfile_fmt_double(buf, sizeof(buf), 6.999999999999999);
	ck_assert_str_eq(buf, "6.999999999999999");
	for (i = 0; i < sizeof(xs) / sizeof(xs[0]); i++) {
		jsonfile_fmt_double(buf, sizeof(buf), xs[i]);
		ck_assert(strtod(buf, NULL) == xs[i]);
	}
}
END_TEST

/* outcome_report on stdout text only. */
static int report(const char *out, double *loss, double *cost, char **info,
		  char *err)
{
	char *objs = NULL;
	int rc = outcome_report(NULL, out, strlen(out), loss, cost, info, &objs,
				err);

	free(objs);
	return rc;
}

START_TEST(test_worker_report_last_stdout_line)
{
	char err[DEHBQ_ERRLEN], *info;
	double loss, cost;

	ck_assert_int_eq(report("epoch 1\n{\"loss\": 1}\nepoch 2\n"
				"{\"loss\": 0.5, \"cost\": 3, \"info\": "
				"{\"a\": [1]}}\n\n  \n",
				&loss, &cost, &info, err),
			 DEHBQ_OK);
	ck_assert(loss == 0.5);
	ck_assert(cost == 3);
	ck_assert_ptr_nonnull(strstr(info, "\"a\""));
	free(info);
	/* no trailing newline, CRLF, cost absent */
	ck_assert_int_eq(
		report("x\r\n{\"loss\": -2}\r\n", &loss, &cost, &info, err),
		DEHBQ_OK);
	ck_assert(loss == -2);
	ck_assert(cost < 0);
	ck_assert_str_eq(info, "{}");
	free(info);
	ck_assert_int_eq(report("{\"loss\": 7}", &loss, &cost, &info, err), 0);
	ck_assert(loss == 7);
	free(info);
}
END_TEST

/* The two mistakes people make get a message that says what to do. */
START_TEST(test_worker_report_hints)
{
	char err[DEHBQ_ERRLEN], *info = NULL;
	double loss, cost;

	ck_assert_int_eq(
		report("{'loss': 0.25, 'cost': 3}\n", &loss, &cost, &info, err),
		DEHBQ_EINVAL);
	ck_assert_msg(strstr(err, "single quotes") && strstr(err, "json.dumps"),
		      "%s", err);
	ck_assert_int_eq(report("{\"loss\": 0.25}\ndone in 3 s, bye\n", &loss,
				&cost, &info, err),
			 DEHBQ_EINVAL);
	ck_assert_msg(strstr(err, "plain text") &&
			      strstr(err, "must be the last line") &&
			      strstr(err, "done in 3 s"),
		      "%s", err);
	ck_assert_ptr_null(info);
}
END_TEST

START_TEST(test_worker_report_invalid)
{
	static const char *const bad[] = {
		"",
		"\n\n   \n",
		"hello world\n",
		"{\"loss\": 1}\ntrailing garbage\n",
		"{\"loss\": NaN}\n",
		"{\"loss\": Infinity}\n",
		"{\"loss\": -Infinity}\n",
		"{\"loss\": 1e400}\n",
		"{\"loss\": \"0.5\"}\n",
		"{\"loss\": null}\n",
		"{\"loss\": true}\n",
		"{\"cost\": 1}\n",
		"{\"loss\": 1, \"cost\": -1}\n",
		"{\"loss\": 1, \"bogus\": 1}\n",
		"{\"loss\": 1, \"loss\": 2}\n",
		"{\"loss\": 1, \"info\": 3}\n",
		"[1]\n",
		"0.5\n",
		"{\"loss\": 1\n",
	};
	char err[DEHBQ_ERRLEN], *info;
	double loss, cost;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		info = NULL;
		ck_assert_msg(report(bad[i], &loss, &cost, &info, err) ==
				      DEHBQ_EINVAL,
			      "accepted: %s", bad[i]);
		ck_assert_msg(err[0], "no message for: %s", bad[i]);
		ck_assert_ptr_null(info);
	}
}
END_TEST

START_TEST(test_worker_report_file_wins)
{
	char err[DEHBQ_ERRLEN], *info, *objs;
	const char *f = tu_path("result.json");
	double loss, cost;
	const char *out = "{\"loss\": 1}\n";

	/* missing file: stdout is used */
	ck_assert_int_eq(outcome_report(f, out, strlen(out), &loss, &cost,
					&info, &objs, err),
			 DEHBQ_OK);
	ck_assert(loss == 1);
	free(info);
	tu_write(f, "{\"loss\": 2, \"cost\": 0}");
	ck_assert_int_eq(outcome_report(f, out, strlen(out), &loss, &cost,
					&info, &objs, err),
			 DEHBQ_OK);
	ck_assert(loss == 2);
	ck_assert(cost == 0);
	free(info);
	/* a bad file is not rescued by stdout */
	tu_write(f, "{\"loss\": NaN}");
	ck_assert_int_eq(outcome_report(f, out, strlen(out), &loss, &cost,
					&info, &objs, err),
			 DEHBQ_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "$DEHBQ_RESULT"));
	/* a symlink is refused */
	unlink(f);
	ck_assert_int_eq(symlink(tu_path("elsewhere.json"), f), 0);
	tu_write(tu_path("elsewhere.json"), "{\"loss\": 3}");
	ck_assert_int_eq(outcome_report(f, out, strlen(out), &loss, &cost,
					&info, &objs, err),
			 DEHBQ_EINVAL);
}
END_TEST

static struct claim_entry ent(int rung, uint64_t id)
{
	struct claim_entry e;

	memset(&e, 0, sizeof(e));
	study_pending_name(e.name, sizeof(e.name), rung, id);
	e.rung = rung;
	e.id = id;
	return e;
}

START_TEST(test_worker_choose_best_priority)
{
	struct claim_entry e[20];
	uint64_t r;
	int i, seen[20] = {0};

	for (i = 0; i < 12; i++)
		e[i] = ent(3, (uint64_t)i + 1);
	for (i = 12; i < 20; i++)
		e[i] = ent(1, (uint64_t)i + 1);
	for (r = 0; r < 1000; r++) {
		size_t k = claim_choose(e, 20, 8, r * 2654435761u);

		ck_assert_uint_lt(k, 8);
		seen[k]++;
	}
	for (i = 0; i < 8; i++)
		ck_assert_int_gt(seen[i], 0); /* every one of the first k */
	/* a best group smaller than k: only its members */
	for (r = 0; r < 100; r++)
		ck_assert_uint_lt(claim_choose(e + 9, 11, 8, r), 3);
	ck_assert_uint_eq(claim_choose(e, 1, 8, 12345), 0);
	ck_assert_uint_eq(claim_choose(e, 20, 0, 12345), 0);
	ck_assert_uint_eq(claim_choose(e, 20, 1, 12345), 0);
}
END_TEST

/* A study in tu_dir with the native test space. */
static struct spec spec;
static struct claim_ctx cx;
static struct logmsg lg;

static void study_setup(void)
{
	char err[DEHBQ_ERRLEN];
	char path[4096];

	tu_setup();
	spec_defaults(&spec);
	spec.min_fidelity = 1; /* levels 9, 3, 1: rungs 0..2 */
	spec.max_fidelity = 9;
	snprintf(path, sizeof(path), "%s/space_native.json", tu_datadir());
	ck_assert_int_eq(space_load(path, &spec.space, err), DEHBQ_OK);
	snprintf(spec.study, sizeof(spec.study), "%s",
		 "1ab6bee3-f5bb-4934-997e-54ea6e1390e1");
	ck_assert_int_eq(study_create_dirs(tu_dir), DEHBQ_OK);
	logmsg_init(&lg, "check_worker");
	lg.fd = -1; /* quiet */
	memset(&cx, 0, sizeof(cx));
	cx.root = tu_dir;
	cx.spec = &spec;
	snprintf(cx.host, sizeof(cx.host), "testhost");
	cx.pid = 4242;
	snprintf(cx.worker, sizeof(cx.worker), "0123456789ab");
	cx.lg = &lg;
}

static void study_teardown(void)
{
	spec_release(&spec);
	tu_teardown();
}

static double put_fidelity = 3; /* fidelity put_trial writes */

/* Write pending/PP-ID.json for a valid trial (study overridable). */
static void put_trial(uint64_t id, int rung, uint64_t file_id,
		      const char *study)
{
	struct trial t;
	char name[64], *txt;
	int d = space_dim(spec.space), i;

	ck_assert_int_eq(trial_init(&t, d), DEHBQ_OK);
	t.id = id;
	snprintf(t.study, sizeof(t.study), "%s", study);
	t.epoch = 1;
	t.rung = rung;
	t.fidelity = put_fidelity;
	t.created = 1.7e9;
	t.seed = 5;
	for (i = 0; i < d; i++)
		t.vec[i] = 0.5;
	space_decode(spec.space, t.vec, t.config);
	ck_assert_int_eq(trial_render(&t, spec.space, &txt), DEHBQ_OK);
	study_pending_name(name, sizeof(name), rung, file_id);
	tu_write(tu_path("pending/%s", name), txt);
	free(txt);
	trial_release(&t);
}

START_TEST(test_worker_claim_and_lost_race)
{
	struct claim_entry e = ent(1, 42);
	struct claim c, c2;
	char err[DEHBQ_ERRLEN];
	struct stat st;

	put_trial(42, 1, 42, spec.study);
	ck_assert_int_eq(claim_try(&cx, &e, &c, err), DEHBQ_OK);
	ck_assert_uint_eq(c.trial.id, 42);
	ck_assert_int_eq(c.trial.rung, 1);
	ck_assert_str_eq(c.path, tu_path("claimed/00000042@testhost.4242."
					 "0123456789ab.json"));
	ck_assert_int_eq(stat(c.path, &st), 0);
	ck_assert_int_eq(stat(tu_path("pending/98-00000042.json"), &st), -1);
	/* the file is gone: somebody else won */
	ck_assert_int_eq(claim_try(&cx, &e, &c2, err), DEHBQ_ELOST);
	ck_assert_str_eq(err, "");
	/* release puts it back under the same name */
	ck_assert_int_eq(claim_giveback(&cx, &c), DEHBQ_OK);
	ck_assert_int_eq(stat(tu_path("pending/98-00000042.json"), &st), 0);
	ck_assert_int_eq(stat(c.path, &st), -1);
	claim_release(&c);
	ck_assert_int_eq(tu_count(tu_path("quarantine")), 0);
}
END_TEST

/* The mtime the file had at the instant of the claim's rename. */
static time_t renamed_mtime;

static int rename_spy(const char *from, const char *to)
{
	struct stat st;

	renamed_mtime = lstat(from, &st) == 0 ? st.st_mtime : 0;
	return rename(from, to);
}

/*
 * A trial that waited in pending/ longer than the lease: the claim must
 * appear with a fresh mtime.  An orchestrator woken by the rename itself
 * would otherwise see an expired claim before the worker touches it.
 */
START_TEST(test_worker_claim_appears_fresh)
{
	struct atomicfile_ops spy = *atomicfile_get_ops();
	struct utimbuf old = {.actime = 1000000000, .modtime = 1000000000};
	struct claim_entry e = ent(1, 43);
	struct claim c;
	char err[DEHBQ_ERRLEN];

	put_trial(43, 1, 43, spec.study);
	ck_assert_int_eq(utime(tu_path("pending/98-00000043.json"), &old), 0);
	spy.rename = rename_spy;
	atomicfile_set_ops(&spy);
	renamed_mtime = 0;
	ck_assert_int_eq(claim_try(&cx, &e, &c, err), DEHBQ_OK);
	atomicfile_set_ops(NULL);
	ck_assert_msg(llabs((long long)(time(NULL) - renamed_mtime)) < 60,
		      "the claim appeared with mtime %lld",
		      (long long)renamed_mtime);
	claim_release(&c);
}
END_TEST

/*
 * A pending file with a second link (one to a file outside the study) is
 * refused and quarantined without its mtime being touched; the file
 * outside keeps its mtime and content.
 */
START_TEST(test_worker_claim_refuses_hard_links)
{
	struct utimbuf old = {.actime = 1000000000, .modtime = 1000000000};
	struct claim_entry e = ent(1, 44);
	struct claim c;
	char err[DEHBQ_ERRLEN], outside[4200], *why;
	struct stat st;

	put_trial(44, 1, 44, spec.study);
	snprintf(outside, sizeof(outside), "%s/outside", tu_dir);
	ck_assert_int_eq(link(tu_path("pending/98-00000044.json"), outside), 0);
	ck_assert_int_eq(utime(outside, &old), 0);
	ck_assert_int_eq(claim_try(&cx, &e, &c, err), DEHBQ_ELOST);
	ck_assert_int_eq(stat(outside, &st), 0);
	ck_assert_int_eq((long long)st.st_mtime, 1000000000);
	ck_assert_int_eq(stat(tu_path("pending/98-00000044.json"), &st), -1);
	ck_assert_int_eq(
		stat(tu_path("quarantine/pending.98-00000044.json"), &st), 0);
	why = tu_read(tu_path("quarantine/pending.98-00000044.json.reason"),
		      NULL);
	ck_assert_ptr_nonnull(why);
	ck_assert(strstr(why, "hard links"));
	free(why);
	ck_assert_int_eq(tu_count(tu_path("claimed")), 0);
}
END_TEST

/* The work directory goes with the token; a parent's, by its archive. */
START_TEST(test_worker_workdir_named_by_token)
{
	char p[4096], want[4096];
	struct claim_entry e = ent(1, 45);
	struct claim c;
	char err[DEHBQ_ERRLEN];

	ck_assert_int_eq(workdir_of(tu_dir, 45, 0, p, sizeof(p)), DEHBQ_OK);
	ck_assert_str_eq(p, tu_path("work/0000/00000045"));
	ck_assert_int_eq(workdir_of(tu_dir, 10045, UINT64_C(0x9f1c2e7a04b3d865),
				    p, sizeof(p)),
			 DEHBQ_OK);
	ck_assert_str_eq(p, tu_path("work/0001/00010045-9f1c2e7a04b3d865"));
	/* no archived parent trial file: the id's plain directory */
	ck_assert_int_eq(workdir_find(tu_dir, spec.space, 45, p, sizeof(p)),
			 DEHBQ_OK);
	ck_assert_str_eq(p, tu_path("work/0000/00000045"));
	/* an archived one with a token: its directory */
	put_trial(45, 1, 45, spec.study);
	ck_assert_int_eq(claim_try(&cx, &e, &c, err), DEHBQ_OK);
	c.trial.token = UINT64_C(0x0123456789abcdef);
	{
		char *txt;

		ck_assert_int_eq(trial_render(&c.trial, spec.space, &txt), 0);
		ck_assert_int_eq(mkdir(tu_path("archive/0000"), 0777), 0);
		tu_write(tu_path("archive/0000/00000045.trial.json"), txt);
		free(txt);
	}
	ck_assert_int_eq(workdir_find(tu_dir, spec.space, 45, p, sizeof(p)),
			 DEHBQ_OK);
	snprintf(want, sizeof(want), "%s",
		 tu_path("work/0000/00000045-0123456789abcdef"));
	ck_assert_str_eq(p, want);
	claim_release(&c);
}
END_TEST

START_TEST(test_worker_claim_quarantines_bad_trials)
{
	struct claim_entry e;
	struct claim c;
	char err[DEHBQ_ERRLEN], *why;

	put_trial(7, 0, 7, "2ab6bee3-f5bb-4934-997e-54ea6e1390e1");
	e = ent(0, 7);
	ck_assert_int_eq(claim_try(&cx, &e, &c, err), DEHBQ_ELOST);
	ck_assert_ptr_nonnull(strstr(err, "study"));
	why = tu_read(tu_path("quarantine/pending.99-00000007.json.reason"),
		      NULL);
	ck_assert_ptr_nonnull(strstr(why, "pending/99-00000007.json: "));
	ck_assert_ptr_nonnull(strchr(why, '\n'));
	free(why);
	ck_assert_int_eq(tu_count(tu_path("claimed")), 0);

	put_trial(8, 0, 9, spec.study); /* id does not match the name */
	e = ent(0, 9);
	ck_assert_int_eq(claim_try(&cx, &e, &c, err), DEHBQ_ELOST);
	put_trial(10, 2, 10, spec.study);
	rename(tu_path("pending/97-00000010.json"),
	       tu_path("pending/99-00000010.json")); /* rung != name */
	e = ent(0, 10);
	ck_assert_int_eq(claim_try(&cx, &e, &c, err), DEHBQ_ELOST);
	/* valid trial files the study could not have issued */
	put_trial(11, 5, 11, spec.study); /* 3 levels: rungs 0..2 */
	e = ent(5, 11);
	ck_assert_int_eq(claim_try(&cx, &e, &c, err), DEHBQ_ELOST);
	ck_assert_msg(strstr(err, "3 levels"), "%s", err);
	put_fidelity = 1e299;
	put_trial(12, 0, 12, spec.study);
	put_fidelity = 3;
	e = ent(0, 12);
	ck_assert_int_eq(claim_try(&cx, &e, &c, err), DEHBQ_ELOST);
	ck_assert_msg(strstr(err, "field 'fidelity' (1e+299) is outside"), "%s",
		      err);
	ck_assert_int_eq(tu_count(tu_path("quarantine")), 10);
	ck_assert_int_eq(tu_count(tu_path("claimed")), 0);
}
END_TEST

START_TEST(test_worker_scan_sorts_and_quarantines)
{
	struct claim_list l;

	put_trial(5, 0, 5, spec.study);
	put_trial(3, 2, 3, spec.study);
	put_trial(4, 0, 4, spec.study);
	tu_write(tu_path("pending/.tmp.123"), "x");
	tu_write(tu_path("pending/readme"), "x");
	ck_assert_int_eq(
		symlink("/etc/passwd", tu_path("pending/99-00000009.json")), 0);
	claim_list_init(&l);
	ck_assert_int_eq(claim_scan(&cx, &l), DEHBQ_OK);
	ck_assert_uint_eq(l.n, 3);
	ck_assert_str_eq(l.ents[0].name, "97-00000003.json");
	ck_assert_int_eq(l.ents[0].rung, 2);
	ck_assert_str_eq(l.ents[1].name, "99-00000004.json");
	ck_assert_str_eq(l.ents[2].name, "99-00000005.json");
	claim_list_remove(&l, 0);
	ck_assert_uint_eq(l.n, 2);
	ck_assert_str_eq(l.ents[0].name, "99-00000004.json");
	claim_list_release(&l);
	ck_assert_int_eq(tu_count(tu_path("quarantine")), 4);
	ck_assert_int_eq(tu_count(tu_path("pending")), 4); /* 3 + dotfile */
}
END_TEST

START_TEST(test_worker_estimator)
{
	struct run_est e;

	memset(&e, 0, sizeof(e));
	ck_assert(run_est_get(&e, 3) == 0);
	run_est_add(&e, 1, 10);
	run_est_add(&e, 1, 12);
	run_est_add(&e, 1, 11);
	ck_assert(run_est_get(&e, 1) == 12);
	ck_assert(run_est_get(&e, 3) == 36); /* scaled up */
	run_est_add(&e, 9, 50);
	ck_assert(run_est_get(&e, 9) == 50); /* seen: exact */
	ck_assert(run_est_get(&e, 3) == 36); /* max of 36 and 50/3 */
}
END_TEST

START_TEST(test_worker_registry_render)
{
	struct registry rg;
	char *txt;

	ck_assert_int_eq(
		registry_init(&rg, tu_dir, "h1", 7, "0123456789ab", "python3"),
		DEHBQ_OK);
	ck_assert_str_eq(rg.path, tu_path("workers/h1.7.0123456789ab.json"));
	ck_assert_int_eq(registry_render(&rg, &txt), DEHBQ_OK);
	ck_assert_ptr_nonnull(strstr(txt, "\"dehbq-worker/1\""));
	ck_assert_ptr_nonnull(strstr(txt, "\"trial\":\tnull"));
	ck_assert_ptr_nonnull(strstr(txt, "\"command\":\t\"python3\""));
	free(txt);
}
END_TEST

Suite *worker_suite(void)
{
	Suite *s = suite_create("worker");
	TCase *pure = tcase_create("pure");
	TCase *files = tcase_create("files");

	tcase_add_checked_fixture(pure, tu_setup, tu_teardown);
	tcase_add_checked_fixture(files, study_setup, study_teardown);
	tcase_add_test(pure, test_worker_subst_known_placeholders);
	tcase_add_test(pure, test_worker_subst_leaves_unknown_alone);
	tcase_add_test(pure, test_worker_env_name_sanitised);
	tcase_add_test(pure, test_worker_budget_text_is_shortest_exact);
	tcase_add_test(pure, test_worker_report_last_stdout_line);
	tcase_add_test(pure, test_worker_report_invalid);
	tcase_add_test(pure, test_worker_report_hints);
	tcase_add_test(pure, test_worker_report_file_wins);
	tcase_add_test(pure, test_worker_choose_best_priority);
	tcase_add_test(pure, test_worker_estimator);
	tcase_add_test(pure, test_worker_registry_render);
	tcase_add_test(files, test_worker_claim_and_lost_race);
	tcase_add_test(files, test_worker_claim_appears_fresh);
	tcase_add_test(files, test_worker_claim_refuses_hard_links);
	tcase_add_test(files, test_worker_workdir_named_by_token);
	tcase_add_test(files, test_worker_claim_quarantines_bad_trials);
	tcase_add_test(files, test_worker_scan_sorts_and_quarantines);
	suite_add_tcase(s, pure);
	suite_add_tcase(s, files);
	return s;
}
