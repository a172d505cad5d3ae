/*
 * check_crash.c - the crash sweep: a short study, run by the scheduler
 * and a worker in lockstep in one process, is killed right after each of
 * its orchestrator's file-system changes in turn (every open that
 * creates, write, rename and unlink: testhooks.h), and restarted.  Every
 * restart must load and end FINISHED with exactly fevals results, no trial told
 * twice, and the same optimiser state and trajectory as the run never killed;
 * for every optimiser of optim_table[] and the compositions below.
 *
 * Each run is a fork()ed child, so that "killed" is SIGKILL with the
 * study's files as they are, and the next run a new process.  The worker
 * is the scheduler's caller (it claims the first pending trial and writes
 * its result, as dehbq-worker would), so the sequence of writes is the
 * same in every run up to the kill: nothing here depends on timing.
 */
#include "cli.h"
#include "atomicfile.h"
#include "claim.h"
#include "err.h"
#include "id.h"
#include "lease.h"
#include "logmsg.h"
#include "optim.h"
#include "optvar.h"
#include "progress.h"
#include "result.h"
#include "run.h"
#include "sched.h"
#include "searcher.h"
#include "spec.h"
#include "study.h"
#include "testhooks.h"
#include "testutil.h"
#include "trial.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_FEVALS 40
#define KILLED	   (128 + 9) /* child(): killed by SIGKILL */
#define MAX_WRITES 100000

/*
 * optimiser, its settings (the models kept small), dehbq init options (T:
 * earlier tasks; a scalarisation or pareto: two objectives), results and
 * trials in flight.  GP runs long enough to refit with a step of 3 (at 30
 * results) on one trial in flight, where 0.3's snapshots stopped loading.
 */
struct variant {
	const char *opt, *settings, *mode;
	int fevals, inflight;
};
static const struct variant variants[] = {
	{"dehb", "{}", "", 16, 3},
	{"random", "{}", "", 16, 3},
	{"sh", "{}", "", 16, 3},
	{"hyperband", "{}", "", 16, 3},
	{"de", "{\"de_pop_size\":4}", "", 16, 3},
	{"asha", "{}", "", 16, 3},
	{"re", "{\"population_size\":4,\"sample_size\":2}", "", 16, 3},
	{"tpe", "{\"n_startup_trials\":3}", "", 16, 3},
	{"bohb", "{}", "", 16, 3},
	{"gp", "{\"n_startup_trials\":3,\"n_candidates\":100}", "", 40, 1},
	{"cts", "{\"n_candidates\":100,\"prior_steps\":20}", "T", 16, 3},
	{"gcp",
	 "{\"n_startup_trials\":3,\"n_candidates\":100,\"prior_steps\":20}",
	 "T", 16, 3},
	{"gcp", "{\"n_startup_trials\":3,\"n_candidates\":100}", "", 16, 3},
	{"dehb", "{\"prior_steps\":20,\"prior_candidates\":100}", "T", 16, 3},
	{"tpe", "{\"n_startup_trials\":3,\"multi_fidelity\":\"asha\"}", "", 16,
	 3},
	{"gp",
	 "{\"n_startup_trials\":3,\"n_candidates\":100,"
	 "\"multi_fidelity\":\"asha\"}",
	 "", 40, 1},
	{"gcp",
	 "{\"n_startup_trials\":3,\"n_candidates\":100,\"prior_steps\":20,"
	 "\"multi_fidelity\":\"asha\"}",
	 "T", 16, 3},
	{"dehb", "{}", "copula", 16, 3},
	{"tpe", "{\"n_startup_trials\":3}", "random-weights", 16, 3},
	{"asha", "{}", "pareto", 16, 3},
	{"re", "{\"population_size\":4,\"sample_size\":2}", "linear", 16, 3},
	{"gp",
	 "{\"n_startup_trials\":3,\"n_candidates\":100,\"acquisition\":"
	 "\"ts\",\"output\":\"copula\"}",
	 "", 16, 3},
	{"hyperband", "{}", "linear", 16, 3},
	{"sh", "{}", "pareto", 16, 3},
	{"de", "{\"de_pop_size\":4}", "random-weights", 16, 3},
	{"random", "{}", "copula", 16, 3},
	{"tpe", "{\"n_startup_trials\":3,\"multi_fidelity\":\"asha\"}",
	 "pareto", 16, 3},
	{"gp", "{\"n_startup_trials\":3,\"n_candidates\":100}",
	 "random-weights", 16, 3},
	{"tpe", "{\"n_startup_trials\":3,\"hypervolume_weights\":true}",
	 "hypervolume", 16, 3},
	{"pbt", "{\"population_size\":4,\"explore\":\"pb2\"}", "", 24, 3},
};
#define NVARIANTS ((int)(sizeof(variants) / sizeof(variants[0])))

/* Variant i: the list above, then every scheduler x searcher pair (init
 * --scheduler opt --searcher *searcher; NULL: --optimizer opt).  A
 * searcher that needs earlier tasks (cts) gets them, its prior's fit
 * short. */
static struct variant variant_at(int i, const char **searcher)
{
	struct variant v = {NULL, "{}", "", 16, 3};

	*searcher = NULL;
	if (i < NVARIANTS)
		return variants[i];
	v.opt = ov_pair(i - NVARIANTS, searcher);
	if (search_find(*searcher)->caps & SEARCH_CAP_NEEDS_TRANSFER) {
		v.settings = "{\"search\":{\"n_candidates\":100,"
			     "\"prior_steps\":20}}";
		v.mode = "T";
	}
	return v;
}

/* ---- one study, in lockstep ---- */

static double loss_of(const double *x)
{
	return (x[0] - 0.3) * (x[0] - 0.3) + x[1] * 0.1 + (x[2] > 0.5) * 0.05;
}

/* Write trial t's result: ok at its fidelity, or stopped at fidelity
 * stop_f (> 0) with loss stop_l. */
static void write_result(const char *dir, const struct spec *spec,
			 const struct trial *t, double stop_f, double stop_l)
{
	struct result r;
	char name[128], obj[128];
	double loss = loss_of(t->vec) + 1.0 / t->fidelity;

	ck_assert_int_eq(result_init(&r), DEHBQ_OK);
	id_trial_format(t->id, r.id);
	memcpy(r.study, spec->study, sizeof(r.study));
	r.attempt = t->attempt;
	r.token = t->token;
	r.status = stop_f > 0 ? RESULT_STOPPED : RESULT_OK;
	r.loss = stop_f > 0 ? stop_l : loss;
	r.fidelity = stop_f;
	r.cost = stop_f > 0 ? stop_f : t->fidelity;
	if (spec->obj.n) {
		snprintf(obj, sizeof(obj), "{\"f1\": %.17g, \"f2\": %.17g}",
			 loss, (t->vec[0] - 0.8) * (t->vec[0] - 0.8));
		ck_assert_ptr_nonnull(r.objectives = strdup(obj));
	}
	memcpy(r.worker, "c0ffee000001", 13);
	memcpy(r.host, "crashhost", 10);
	r.pid = 4242;
	r.started = 1e9;
	r.finished = 1e9 + 1;
	r.wall_time = 1;
	r.exit_code = 0;
	ck_assert_int_eq(run_write_result(dir, &r, name, sizeof(name)),
			 DEHBQ_OK);
	result_release(&r);
}

/* Intermediate results of t, as a worker writes them: fidelities 1..4,
 * the loss falling as 1 / f. */
#define CRASH_POINTS 4
static double point_loss(const struct trial *t, int f)
{
	return loss_of(t->vec) + 1.0 / f + 0.1 * (t->id % 3);
}

static void write_progress(const char *dir, const struct trial *t)
{
	struct progress pr;
	struct progress_point p = {0, 0, -1};
	char ids[ID_TRIAL_LEN], name[128], path[4200], *txt;
	int f;

	id_trial_format(t->id, ids);
	progress_init(&pr, ids, t->attempt, "c0ffee000001");
	for (f = 1; f <= CRASH_POINTS; f++) {
		p.fidelity = f;
		p.loss = point_loss(t, f);
		ck_assert_int_eq(progress_add(&pr, &p), DEHBQ_OK);
	}
	ck_assert_int_eq(progress_render(&pr, &txt), DEHBQ_OK);
	ck_assert_int_eq(study_result_name(name, sizeof(name), t->id,
					   t->attempt, "c0ffee000001"),
			 DEHBQ_OK);
	snprintf(path, sizeof(path), "%s/progress/%s", dir, name);
	ck_assert_int_eq(atomicfile_write(path, txt, strlen(txt), 0666, 0),
			 DEHBQ_OK);
	free(txt);
	progress_release(&pr);
}

/*
 * A study whose optimiser stops trials runs each in two steps, so that
 * an orchestrator batch reads its progress in between: this worker's
 * claim, if it has one, ends now (stopped when stop/ID.json is there,
 * else ok).  1 when one ended.
 */
static int finish_claimed(const char *dir, const struct spec *spec)
{
	char p[4200], err[DEHBQ_ERRLEN], ids[ID_TRIAL_LEN];
	struct dirent *d;
	struct trial t;
	DIR *cd;
	int done = 0;

	snprintf(p, sizeof(p), "%s/claimed", dir);
	ck_assert_ptr_nonnull(cd = opendir(p));
	while (!done && (d = readdir(cd))) {
		if (!strstr(d->d_name, "@crashhost.4242.c0ffee000001"))
			continue;
		snprintf(p, sizeof(p), "%s/claimed/%s", dir, d->d_name);
		ck_assert_msg(trial_load(p, spec->space, &t, err) == DEHBQ_OK,
			      "%s", err);
		id_trial_format(t.id, ids);
		snprintf(p, sizeof(p), "%s/stop/%s.json", dir, ids);
		if (access(p, F_OK) == 0)
			write_result(dir, spec, &t, CRASH_POINTS,
				     point_loss(&t, CRASH_POINTS));
		else
			write_result(dir, spec, &t, 0, 0);
		trial_release(&t);
		done = 1;
	}
	closedir(cd);
	return done;
}

/* The worker: claim the first pending trial and write its result (or,
 * when the optimiser stops trials, its progress: finish_claimed writes
 * the result at its next call).  0 when nothing was pending. */
static int work_one(const char *dir, const struct spec *spec, struct logmsg *lg)
{
	struct claim_ctx cx = {dir,  spec,	     "crashhost",
			       4242, "c0ffee000001", lg};
	int stops = optim_caps(spec->optimizer) & OPTIM_CAP_STOPS;
	struct claim_list l;
	struct claim c;
	char err[DEHBQ_ERRLEN];

	if (stops && finish_claimed(dir, spec))
		return 1;
	claim_list_init(&l);
	ck_assert_int_eq(claim_scan(&cx, &l), DEHBQ_OK);
	if (!l.n) {
		claim_list_release(&l);
		return 0;
	}
	ck_assert_msg(claim_try(&cx, &l.ents[0], &c, err) == DEHBQ_OK, "%s",
		      err);
	claim_list_release(&l);
	if (stops)
		write_progress(dir, &c.trial);
	else
		write_result(dir, spec, &c.trial, 0, 0);
	claim_release(&c);
	return 1;
}

/* The orchestrator's part of one step: a batch, then FINISHED when due.
 * 1 when the study finished. */
static int orchestrate(struct sched *s)
{
	char err[DEHBQ_ERRLEN];
	int done;

	testhooks_counting(1);
	ck_assert_msg(sched_batch(s, 1, err) == DEHBQ_OK, "%s", err);
	done = sched_finished(s);
	if (done)
		ck_assert_int_eq(sched_finish(s, "budget exhausted"), DEHBQ_OK);
	testhooks_counting(0);
	return done;
}

/* Open (or resume) the study and run it to the end.  In a child. */
static void run_study(const char *dir)
{
	struct sched_opts so = {1, 1e9};
	char err[DEHBQ_ERRLEN];
	struct logmsg lg;
	struct lease lease;
	struct spec spec;
	struct sched *s;
	int steps;

	logmsg_init(&lg, "check_crash");
	lg.fd = -1;
	ck_assert_int_eq(spec_load_study(dir, &spec, err), DEHBQ_OK);
	testhooks_counting(1);
	ck_assert_msg(lease_acquire(&lease, dir, spec.lease, 0, 0, NULL, err) ==
			      DEHBQ_OK,
		      "%s", err);
	ck_assert_msg(sched_open(&s, dir, &spec, &lease, &lg, &so, err) ==
			      DEHBQ_OK,
		      "%s", err);
	testhooks_counting(0);
	for (steps = 0; !orchestrate(s); steps++) {
		ck_assert_int_lt(steps, 10 * MAX_FEVALS + 100);
		work_one(dir, &spec, &lg);
	}
	sched_close(s);
	spec_release(&spec);
}

/* run_study in a child killed after its kill-th change (0: never);
 * returns the child's exit code.  *changes gets the changes it made. */
static int child(const char *dir, long kill, long *changes)
{
	int fds[2], st;
	pid_t pid;
	long n;

	ck_assert_int_eq(pipe(fds), 0);
	if (!(pid = fork())) {
		close(fds[0]);
		testhooks_crash_after(kill);
		run_study(dir);
		n = testhooks_changes();
		if (write(fds[1], &n, sizeof(n)) != sizeof(n))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	ck_assert_int_gt(pid, 0);
	if (read(fds[0], changes, sizeof(*changes)) != sizeof(*changes))
		*changes = -1;
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* ---- the study's outcome ---- */

/* The newest snapshot's optimiser state without its clock, and the
 * trajectory (trial id -> loss, from the archived results), as text. */
static char *outcome(const char *dir)
{
	char p[4096], best[256] = "", *t, *out;
	struct dirent *d;
	cJSON *j, *e;
	DIR *sd;
	size_t len = 0, cap = 1 << 16;
	uint64_t id;

	snprintf(p, sizeof(p), "%s/state", dir);
	ck_assert_ptr_nonnull(sd = opendir(p));
	while ((d = readdir(sd)))
		if (!strncmp(d->d_name, "snapshot-", 9) &&
		    strcmp(d->d_name, best) > 0)
			snprintf(best, sizeof(best), "%s", d->d_name);
	closedir(sd);
	snprintf(p, sizeof(p), "%s/state/%s", dir, best);
	ck_assert_ptr_nonnull(t = tu_read(p, NULL));
	ck_assert_ptr_nonnull(j = cJSON_Parse(t));
	free(t);
	e = cJSON_GetObjectItem(j, "optimizer");
	cJSON_DeleteItemFromObject(cJSON_GetObjectItem(e, "books"), "elapsed");
	ck_assert_ptr_nonnull(out = malloc(cap));
	t = cJSON_PrintUnformatted(e);
	len = (size_t)snprintf(out, cap, "%s\n", t);
	free(t);
	cJSON_Delete(j);
	for (id = 0; id < 10 * MAX_FEVALS; id++) {
		struct result r;
		char err[DEHBQ_ERRLEN];

		snprintf(p, sizeof(p), "%s/archive/0000/%08llu.result.json",
			 dir, (unsigned long long)id);
		if (result_load(p, &r, err))
			continue;
		ck_assert_int_lt(len + 64, cap);
		len += (size_t)snprintf(
			out + len, cap - len, "%llu a%d %.17g\n",
			(unsigned long long)id, r.attempt, r.loss);
		result_release(&r);
	}
	return out;
}

/* Files of the archive whose names hold kind. */
static int archived_of(const char *dir, const char *kind)
{
	char p[4096];
	struct dirent *d;
	DIR *sd;
	int n = 0;

	snprintf(p, sizeof(p), "%s/archive/0000", dir);
	ck_assert_ptr_nonnull(sd = opendir(p));
	while ((d = readdir(sd)))
		n += strstr(d->d_name, kind) != NULL;
	closedir(sd);
	return n;
}

/* Results archived (each trial has one ID.result.json at most). */
static int archived(const char *dir)
{
	return archived_of(dir, ".result.json");
}

/* ---- the sweep ---- */

/* Variant v's study, created by `dehbq init` (in a child: it parses
 * options with getopt) in dir. */
static void make_study(const struct variant *v, const char *searcher,
		       const char *dir)
{
	const char *mode = v->mode;
	char spec[4400], tr[4400];
	const char *argv[16];
	int argc = 0, st, i;
	pid_t pid;
	FILE *f;

	snprintf(spec, sizeof(spec), "%s.spec.json", dir);
	snprintf(tr, sizeof(tr), "%s.earlier.jsonl", dir);
	ck_assert_ptr_nonnull(f = fopen(spec, "w"));
	fprintf(f,
		"{\"format\": \"dehbq-study/1\", \"space\": {\"format\": "
		"\"dehbq-space/1\", \"parameters\": ["
		"{\"name\": \"x\", \"type\": \"float\", \"low\": 0, \"high\": "
		"1},"
		"{\"name\": \"layers\", \"type\": \"int\", \"low\": 1, "
		"\"high\": 8},"
		"{\"name\": \"opt\", \"type\": \"categorical\", \"choices\": "
		"[\"adam\", \"sgd\"]}]},"
		"\"fidelity\": {\"min\": 1, \"max\": 9, \"eta\": 3}, "
		"\"seed\": 7, \"termination\": {\"fevals\": %d},"
		"\"optimizer\": %s,"
		"\"runtime\": {\"lease\": 600, \"poll\": 1, "
		"\"max_inflight\": %d, \"prefetch\": 2}}\n",
		v->fevals, v->settings, v->inflight);
	fclose(f);
	ck_assert_ptr_nonnull(f = fopen(tr, "w"));
	for (i = 0; i < 40; i++) /* two earlier tasks */
		fprintf(f,
			"{\"task\": \"t%d\", \"x\": %.3f, \"layers\": %d, "
			"\"opt\": \"%s\", \"loss\": %.4f}\n",
			i % 2, (i * 37 % 40) / 40.0, 1 + i % 8,
			i % 3 ? "adam" : "sgd",
			((i * 37 % 40) / 40.0 - 0.3) *
					((i * 37 % 40) / 40.0 - 0.3) +
				(i % 2) * 0.2);
	fclose(f);
	argv[argc++] = "init";
	argv[argc++] = dir;
	argv[argc++] = "--spec";
	argv[argc++] = spec;
	argv[argc++] = searcher ? "--scheduler" : "--optimizer";
	argv[argc++] = v->opt;
	if (searcher) {
		argv[argc++] = "--searcher";
		argv[argc++] = searcher;
	}
	if (!strcmp(mode, "T")) {
		argv[argc++] = "--transfer-from";
		argv[argc++] = tr;
	} else if (mode[0]) {
		argv[argc++] = "--objective";
		argv[argc++] = "f1";
		argv[argc++] = "--objective";
		argv[argc++] = "f2";
		argv[argc++] =
			!strcmp(mode, "pareto") || !strcmp(mode, "hypervolume")
				? "--selection"
				: "--scalarise";
		argv[argc++] = mode;
	}
	argv[argc] = NULL;
	if (!(pid = fork())) {
		if (!freopen("/dev/null", "w", stdout) ||
		    !freopen("/dev/null", "w", stderr))
			_exit(111);
		_exit(cli_init(argc, (char **)argv));
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && !WEXITSTATUS(st), "%s: init failed",
		      v->opt);
}

/* dir as a fresh copy of the pristine study */
static void fresh_copy(const char *pristine, const char *dir)
{
	char cmd[8300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && cp -a '%s' '%s'", dir,
		 pristine, dir);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_crash_after_every_write)
{
	const char *searcher;
	const struct variant var = variant_at(
				     _i < NVARIANTS
					     ? _i
					     : NVARIANTS +
						       ov_sampled(_i -
								  NVARIANTS),
				     &searcher),
			     *v = &var;
	char base[4200], pristine[4300], dir[4300], *want, *got;
	long total, n, k;

	/* tmpfs when there is one: a killed process leaves the same files
	 * on any file system, and the sweep makes thousands of copies */
	snprintf(base, sizeof(base), "%s/crash.XXXXXX",
		 access("/dev/shm", W_OK) ? tu_dir : "/dev/shm");
	ck_assert_ptr_nonnull(mkdtemp(base));
	snprintf(pristine, sizeof(pristine), "%s/pristine", base);
	snprintf(dir, sizeof(dir), "%s/run", base);
	make_study(v, searcher, pristine);
	fresh_copy(pristine, dir);
	ck_assert_int_eq(child(dir, 0, &total), 0);
	ck_assert_int_gt(total, 0);
	ck_assert_int_eq(archived(dir), v->fevals);
	/* an optimiser that stops trials stopped some: the sweep kills it
	 * at its stop files' writes too */
	if (optim_caps(v->opt) & OPTIM_CAP_STOPS)
		ck_assert_int_gt(archived_of(dir, ".stop.json"), 0);
	want = outcome(dir);
	for (k = 1; k <= total; k++) {
		fresh_copy(pristine, dir);
		ck_assert_int_eq(child(dir, k, &n), KILLED);
		ck_assert_msg(child(dir, 0, &n) == 0,
			      "%s %s: the restart after change %ld of %ld "
			      "failed",
			      v->opt, v->settings, k, total);
		ck_assert_msg(archived(dir) == v->fevals,
			      "%s %s: killed after change %ld of %ld: %d "
			      "results archived, not %d",
			      v->opt, v->settings, k, total, archived(dir),
			      v->fevals);
		got = outcome(dir);
		ck_assert_msg(!strcmp(want, got),
			      "%s %s: killed after change %ld of %ld: another "
			      "state or trajectory than the run never "
			      "killed:\n%s\n%s",
			      v->opt, v->settings, k, total, want, got);
		free(got);
		snprintf(pristine, sizeof(pristine), "%s/run/quarantine", base);
		ck_assert_int_eq(tu_count(pristine), 0);
		snprintf(pristine, sizeof(pristine), "%s/pristine", base);
	}
	free(want);
	snprintf(dir, sizeof(dir), "rm -rf '%s'", base);
	ck_assert_int_eq(system(dir), 0);
}
END_TEST

#define CRASH_PARTS 3

Suite *crash_suite(void)
{
	static const char *const part[CRASH_PARTS] = {"sweep1", "sweep2",
						      "sweep3"};
	Suite *s = suite_create("crash");
	int n = NVARIANTS + ov_sampled_len(), i;

	/* The slowest suite, in parts: make check runs them side by side
	 * (tests/unit.sh takes crash:sweep1 ...). */
	for (i = 0; i < CRASH_PARTS; i++) {
		TCase *c = tcase_create(part[i]);

		tcase_set_timeout(c, 900);
		tcase_add_checked_fixture(c, tu_setup, tu_teardown);
		tcase_add_loop_test(c, test_crash_after_every_write,
				    n * i / CRASH_PARTS,
				    n * (i + 1) / CRASH_PARTS);
		suite_add_tcase(s, c);
	}
	return s;
}
