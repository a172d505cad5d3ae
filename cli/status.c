/*
 * status.c - `dehbq status STUDY [--watch [SECS]]` and `dehbq workers STUDY`
 *
 * status reads state/status.json (rewritten by the orchestrator every
 * batch, fields in orchestrator/sched.c summary_json) or FINISHED, plus
 * the directory itself: counts by directory, the worker registry and the
 * claims.  Ages are filesystem time (see study.c, cli_fs_now).  A missing
 * or damaged status.json is reported and the directory counts are still
 * shown.  The screen is rendered into memory and written at once, so
 * --watch redraws without flicker.
 */
#include "cli.h"

#include "err.h"
#include "jsonfile.h"
#include "lease.h"
#include "space.h"
#include "spec.h"
#include "statusfile.h"
#include "study.h"
#include "timeutil.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char status_usage[] =
	"usage: dehbq status STUDY [--watch [SECS]]\n"
	"\n"
	"Show a study's progress toward termination with an ETA, counts by\n"
	"state, both incumbents, the active brackets by rung, live workers,\n"
	"stale claims, throughput and warnings.  --watch redraws every SECS\n"
	"seconds (default 2) until the study finishes or Ctrl-C.\n";

static const char workers_usage[] =
	"usage: dehbq workers STUDY\n"
	"\n"
	"List the worker registry (workers/*.json): host, pid, worker id,\n"
	"SLURM job/array ids, current trial, start time, heartbeat age and\n"
	"whether the worker is live (heartbeat within runtime.lease).\n";

/* Number member of obj, or dflt. */
static double num(const cJSON *obj, const char *key, double dflt)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsNumber(it) ? it->valuedouble : dflt;
}

static const char *str(const cJSON *obj, const char *key, const char *dflt)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(it) ? it->valuestring : dflt;
}

static void fmt_dur(char *buf, size_t size, double s)
{
	if (!isfinite(s) || s < 0)
		snprintf(buf, size, "?");
	else if (s < 60)
		snprintf(buf, size, "%.0fs", s);
	else if (s < 3600)
		snprintf(buf, size, "%dm%02ds", (int)(s / 60), (int)s % 60);
	else if (s < 86400 * 99.0)
		snprintf(buf, size, "%dh%02dm", (int)(s / 3600),
			 (int)(s / 60) % 60);
	else
		snprintf(buf, size, "%.0fd", s / 86400);
}

/* eta: seconds, NAN unknown ("?"), negative when nothing runs (none). */
static void bar(FILE *f, const char *what, double cur, double max, double eta,
		const char *unit)
{
	char e[32];
	double frac = max > 0 ? cur / max : 0;
	int i, w = 30, fill;

	if (frac > 1)
		frac = 1;
	if (frac < 0)
		frac = 0;
	fill = (int)(frac * w + 0.5);
	fprintf(f, "  %-9s [", what);
	for (i = 0; i < w; i++)
		fputc(i < fill ? '#' : '.', f);
	fmt_dur(e, sizeof(e), eta);
	fprintf(f, "] %5.1f%%  %g/%g%s", frac * 100, cur, max, unit);
	if (eta < 0 && frac < 1) /* not running: no ETA */
		fputc('\n', f);
	else
		fprintf(f, "  ETA %s\n", frac >= 1 ? "reached" : e);
}

/* none: what to say when there is none ("none yet" while running) */
static void incumbent(FILE *f, const char *label,
		      const struct statusfile_best *inc, const char *none)
{
	const cJSON *cfg = inc->config, *it;
	char *txt;

	if (!inc->valid) {
		fprintf(f, "  %-22s %s\n", label, none);
		return;
	}
	fprintf(f, "  %-22s loss %.6g at fidelity %g (trial %s)\n", label,
		inc->loss, inc->fidelity, inc->trial[0] ? inc->trial : "?");
	if (!cJSON_IsObject(cfg))
		return;
	fprintf(f, "  %-22s", "");
	cJSON_ArrayForEach(it, cfg)
	{
		txt = cJSON_IsString(it) ? NULL : cJSON_PrintUnformatted(it);
		fprintf(f, " %s=%s", it->string ? it->string : "?",
			txt ? txt : (it->valuestring ? it->valuestring : "?"));
		cJSON_free(txt);
	}
	fputc('\n', f);
}

static void brackets(FILE *f, const cJSON *br)
{
	const cJSON *b, *r;
	int nb = 0;

	if (!cJSON_IsArray(br))
		return;
	cJSON_ArrayForEach(b, br)
	{
		const cJSON *rungs =
			cJSON_GetObjectItemCaseSensitive(b, "rungs");
		int j = 0;

		if (!cJSON_IsArray(rungs))
			continue;
		if (!nb++)
			fprintf(f, "active brackets\n");
		if (nb > 20) {
			fprintf(f, "  ... %d more\n",
				cJSON_GetArraySize(br) - 20);
			break;
		}
		fprintf(f, "  bracket %.0f:", num(b, "id", -1));
		cJSON_ArrayForEach(r, rungs)
		{
			/* "pending": not yet handed out by the optimiser */
			double n = num(r, "n", 0), d = num(r, "done", 0);
			double p = num(r, "pending", 0), run = n - d - p;

			fprintf(f, "%s rung%d %.0f/%.0f done", j ? "," : "", j,
				d, n);
			if (run > 0 && p > 0)
				fprintf(f, " (%.0f running, %.0f to issue)",
					run, p);
			else if (run > 0 || p > 0)
				fprintf(f, " (%.0f %s)", run > 0 ? run : p,
					run > 0 ? "running" : "to issue");
			j++;
		}
		fputc('\n', f);
	}
}

/* ASHA's rungs: results so far and how many went up. */
static void rungs(FILE *f, const cJSON *rs)
{
	const cJSON *r;
	int k = 0;

	if (!cJSON_IsArray(rs))
		return;
	fprintf(f, "rungs\n");
	cJSON_ArrayForEach(r, rs)
	{
		fprintf(f,
			"  rung%d at fidelity %g: %.0f results, %.0f "
			"promoted\n",
			k++, num(r, "fidelity", 0), num(r, "results", 0),
			num(r, "promoted", 0));
	}
}

/* What the optimiser reports of itself (status.json's "optimizer"). */
static void optimizer(FILE *f, const cJSON *o)
{
	const cJSON *br = cJSON_GetObjectItemCaseSensitive(o, "brackets");
	const cJSON *rs = cJSON_GetObjectItemCaseSensitive(o, "rungs");

	if (br)
		brackets(f, br);
	if (rs)
		rungs(f, rs);
	if (cJSON_GetObjectItemCaseSensitive(o, "population_size"))
		fprintf(f, "population %.0f of %.0f\n", num(o, "population", 0),
			num(o, "population_size", 0));
}

/* A transfer optimiser's earlier tasks and its prior's RMSE here. */
static void transfer_status(FILE *f, const cJSON *o)
{
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, "prior_rmse");

	if (!cJSON_GetObjectItemCaseSensitive(o, "transfer_tasks"))
		return;
	fprintf(f,
		"transfer: %.0f earlier tasks, %.0f results (state/"
		"transfer.jsonl)\n",
		num(o, "transfer_tasks", 0), num(o, "transfer_results", 0));
	if (!cJSON_IsNumber(r)) {
		fprintf(f, "          prior RMSE: none yet (no result at the "
			   "maximum fidelity)\n");
		return;
	}
	fprintf(f, "          prior RMSE on this study's results: %.3f\n",
		r->valuedouble);
	if (r->valuedouble > 1)
		fprintf(f,
			"          warning: above 1, the prior predicts this "
			"study no better than knowing nothing; its earlier "
			"tasks may be unlike this one\n");
}

struct wk_scan {
	FILE *f;      /* output */
	double now;   /* filesystem now */
	double lease; /* runtime.lease */
	int live;     /* live workers seen */
	int stale;    /* stale registry entries */
	int table;    /* 1: full table (workers), 0: live list (status) */
};

static void worker_row(const char *root, const char *name, struct wk_scan *w)
{
	char p[STUDY_PATH_MAX], err[DEHBQ_ERRLEN], age[32];
	char host[ID_HOST_LEN], wid[ID_WORKER_LEN];
	struct jsonfile *jf;
	const cJSON *o, *tr;
	double mt;
	long pid;
	int live;

	if (study_parse_worker(name, host, &pid, wid)) {
		cli_warn(w->table ? "workers" : "status",
			 "skipping '%s/workers/%s': unexpected name", root,
			 name);
		return;
	}
	if (study_path(p, sizeof(p), root, "workers/%s", name))
		return;
	if (jsonfile_load(p, JSONFILE_CAP, &jf, err)) {
		if (errno != ENOENT) /* a worker may exit meanwhile */
			cli_warn(w->table ? "workers" : "status", "skipping %s",
				 err);
		return;
	}
	if (cli_lmtime(p, &mt)) {
		jsonfile_free(jf);
		return;
	}
	o = jsonfile_root(jf);
	live = w->now - mt <= w->lease;
	w->live += live;
	w->stale += !live;
	fmt_dur(age, sizeof(age), w->now - mt < 0 ? 0 : w->now - mt);
	tr = cJSON_GetObjectItemCaseSensitive(o, "trial");
	if (w->table) {
		const char *aj = str(o, "slurm_array_job_id", "");
		const char *at = str(o, "slurm_array_task_id", "");
		char slurm[80];

		if (*aj)
			snprintf(slurm, sizeof(slurm), "%s/%s_%s",
				 str(o, "slurm_job_id", "-"), aj, at);
		else
			snprintf(slurm, sizeof(slurm), "%s",
				 str(o, "slurm_job_id", "-"));
		fprintf(w->f, "%-20s %8ld %-12s %-18s %-8s %-24s %8s %s\n",
			host, pid, wid, slurm,
			cJSON_IsString(tr) ? tr->valuestring : "-",
			str(o, "started", "?"), age, live ? "live" : "stale");
	} else if (live) {
		fprintf(w->f, "  %s:%ld %s  trial %s  heartbeat %s ago\n", host,
			pid, wid, cJSON_IsString(tr) ? tr->valuestring : "idle",
			age);
	}
	jsonfile_free(jf);
}

static void scan_workers(const char *root, struct wk_scan *w)
{
	char p[STUDY_PATH_MAX];
	struct dirent **names;
	int n, i;

	if (study_path(p, sizeof(p), root, "workers"))
		return;
	n = cli_list(w->table ? "workers" : "status", p, &names);
	for (i = 0; i < n; i++)
		worker_row(root, names[i]->d_name, w);
	cli_list_free(names, n);
}

/* A single-objective study: the incumbents at the maximum and any
 * fidelity. */
static void incumbents(FILE *f, const char *root, const struct spec *s,
		       const struct statusfile *st, int finished)
{
	char none_max[160];

	fprintf(f, "incumbents\n");
	if (finished)
		snprintf(none_max, sizeof(none_max),
			 "none: no trial reached fidelity %g before the study "
			 "ended (dehbq extend %s --fevals N gives it more)",
			 s->max_fidelity, root);
	else
		snprintf(none_max, sizeof(none_max), "none yet");
	incumbent(f, "at max fidelity:", &st->best_max, none_max);
	incumbent(f, "at any fidelity:", &st->best_any,
		  finished ? "none: no trial succeeded" : "none yet");
}

/* Claims whose mtime is older than the lease, listed. */
static int stale_claims(FILE *f, const char *root, double now, double lease)
{
	char p[STUDY_PATH_MAX], age[32];
	struct dirent **names;
	int n, i, k = 0;

	if (study_path(p, sizeof(p), root, "claimed"))
		return 0;
	n = cli_list("status", p, &names);
	for (i = 0; i < n; i++) {
		struct study_claim c;
		double mt;

		if (study_parse_claim(names[i]->d_name, &c) ||
		    study_path(p, sizeof(p), root, "claimed/%s",
			       names[i]->d_name) ||
		    cli_lmtime(p, &mt) || now - mt <= lease)
			continue;
		if (!k++)
			fprintf(f, "stale claims (no heartbeat for > %gs)\n",
				lease);
		fmt_dur(age, sizeof(age), now - mt);
		fprintf(f,
			"  trial %08llu on %s:%ld (%s), last heartbeat %s "
			"ago\n",
			(unsigned long long)c.id, c.host, c.pid, c.worker, age);
	}
	cli_list_free(names, n);
	return k;
}

/* Render one screen into f; sets *finished. */
/* The progress bars toward each limit, with ETAs while live. */
static void progress(FILE *f, const struct statusfile_limits *l,
		     const struct statusfile_counts *c, double elapsed,
		     int live)
{
	double issued = (double)c->issued, done = (double)c->done;
	double rate = elapsed > 0 ? done / elapsed : 0;
	double nb = (double)c->brackets, tc = c->total_cost;

	fprintf(f, "progress\n");
	if (l->fevals) {
		bar(f, "issued", issued, (double)l->fevals,
		    !live      ? -1
		    : rate > 0 ? (l->fevals - issued) / rate
			       : NAN,
		    "");
		bar(f, "done", done, (double)l->fevals,
		    !live      ? -1
		    : rate > 0 ? (l->fevals - done) / rate
			       : NAN,
		    "");
	}
	if (l->brackets)
		bar(f, "brackets", nb, (double)l->brackets,
		    !live    ? -1
		    : nb > 0 ? (l->brackets - nb) * elapsed / nb
			     : NAN,
		    "");
	if (l->walltime > 0)
		bar(f, "walltime", elapsed, l->walltime,
		    live ? l->walltime - elapsed : -1, "s");
	if (l->total_cost > 0)
		bar(f, "cost", tc, l->total_cost,
		    !live    ? -1
		    : tc > 0 ? (l->total_cost - tc) * elapsed / tc
			     : NAN,
		    "");
}

static void render(FILE *f, const char *root, const struct spec *s,
		   int *finished)
{
	char p[STUDY_PATH_MAX], err[DEHBQ_ERRLEN], e[32];
	struct statusfile st;
	const struct statusfile_counts *c = &st.counts;
	int o = 0; /* a summary was read into st */
	struct wk_scan w;
	long archived, other;
	int npend, nclaim;
	int local, nstale, nwarn = 0;
	double now = cli_fs_now(root, &local), mt;
	double elapsed = 0, done = 0, issued = 0, failed = 0, rate = 0;
	double lease_age = 0;
	int have_lease = 0, live = 0; /* live: ETAs make sense */
	int dead = 0;		      /* its pid is gone from this host */
	char state[600], hb[32];
	const char *stopped = NULL; /* why the orchestrator stopped */
	const char *held = NULL;    /* why it issues no new trials */
	struct statusfile_limits lim = {1, s->fevals, s->brackets, s->walltime,
					s->total_cost};

	*finished = 0;
	statusfile_init(&st);
	if (!study_path(p, sizeof(p), root, "FINISHED") &&
	    access(p, F_OK) == 0) {
		*finished = 1;
		if (!(o = !statusfile_load(p, &st, err)))
			cli_warn("status", "%s", err);
	}
	if (!o && !study_path(p, sizeof(p), root, "state/status.json") &&
	    access(p, F_OK) == 0 && !(o = !statusfile_load(p, &st, err)))
		cli_warn("status", "%s", err);
	fprintf(f, "study %s  %s%s%s\n", s->study, root, s->name[0] ? "  " : "",
		s->name);
	if (!study_path(p, sizeof(p), root, "state/lease.json") &&
	    !cli_lmtime(p, &mt)) {
		lease_age = now - mt;
		have_lease = 1;
	}
	if (o) {
		elapsed = st.elapsed;
		done = (double)c->done;
		issued = (double)c->issued;
		failed = (double)c->failed;
		rate = elapsed > 0 ? done / elapsed : 0;
		/* status.json has a reason once its orchestrator stopped */
		stopped = *finished || !st.reason[0] ? NULL : st.reason;
		held = *finished || !st.held[0] ? NULL : st.held;
		dead = !*finished && !stopped &&
		       lease_holder_gone(st.host, (long)st.pid);
		live = !*finished && !stopped && !held && !dead;
		fmt_dur(e, sizeof(e), elapsed);
		fmt_dur(hb, sizeof(hb), lease_age < 0 ? 0 : lease_age);
		if (stopped)
			snprintf(state, sizeof(state), "stopped (%s) after",
				 stopped);
		else if (*finished)
			snprintf(state, sizeof(state), "finished after");
		else if (dead)
			snprintf(state, sizeof(state),
				 "DEAD (pid gone from this host) after");
		else
			snprintf(state, sizeof(state), "%s (heartbeat %s ago),",
				 held ? "HELD" : "running",
				 have_lease ? hb : "?");
		fprintf(f,
			"orchestrator %s:%.0f epoch %.0f, %s %s, updated "
			"%s%s\n",
			st.host[0] ? st.host : "?", (double)st.pid,
			(double)st.epoch, state, e,
			st.updated[0] ? st.updated : "?",
			*finished ? "  FINISHED" : "");
		if (*finished)
			fprintf(f, "finished: %s\n",
				st.reason[0] ? st.reason : "?");
		if (st.limits.valid) { /* dehbq extend may have raised them */
			lim.fevals = st.limits.fevals;
			lim.brackets = st.limits.brackets;
			lim.walltime = st.limits.walltime;
			lim.total_cost = st.limits.total_cost;
		}
		progress(f, &lim, c, elapsed, live);
		fprintf(f,
			"counts: issued %.0f, done %.0f, failed %.0f, in "
			"flight %.0f (pending %.0f, claimed %.0f)\n",
			issued, done, failed, (double)c->inflight,
			(double)c->pending, (double)c->claimed);
		fprintf(f,
			"        requeues %.0f, expired %.0f, duplicates "
			"%.0f, quarantined %.0f, brackets %.0f, total cost "
			"%g\n",
			(double)c->requeues, (double)c->expired,
			(double)c->duplicates, (double)c->quarantined,
			(double)c->brackets, c->total_cost);
		if (c->forbidden)
			fprintf(f,
				"        forbidden %.0f (proposals the space's "
				"forbidden clauses refused; never run)\n",
				(double)c->forbidden);
		fprintf(f, "throughput: %.2f done/min\n", rate * 60);
		if (s->obj.n)
			cli_front_status(f, root, s);
		else
			incumbents(f, root, s, &st, *finished);
		transfer_status(f, st.optimizer);
		if (!*finished)
			optimizer(f, st.optimizer);
	} else {
		fprintf(f,
			"no state/status.json: the orchestrator has not run "
			"yet (start: dehbq-orchestrator %s)\n",
			root);
	}
	cli_count_archive(root, &archived, &other);
	npend = cli_count_dir(root, "pending");
	nclaim = cli_count_dir(root, "claimed");
	fprintf(f,
		"directory: staging %d, pending %d, claimed %d, results "
		"%d, archived %ld, quarantine %d\n",
		cli_count_dir(root, "staging"), npend, nclaim,
		cli_count_dir(root, "results"), archived,
		cli_count_dir(root, "quarantine"));
	if (o && !*finished && (npend != c->pending || nclaim != c->claimed))
		fprintf(f,
			"  (the counts above are the orchestrator's at its "
			"last batch, updated %s; the directory is listed now, "
			"and workers claim between the two)\n",
			st.updated[0] ? st.updated : "?");
	memset(&w, 0, sizeof(w));
	w.f = f;
	w.now = now;
	w.lease = s->lease;
	fprintf(f, "live workers%s\n", local ? " (local clock)" : "");
	scan_workers(root, &w);
	if (!w.live)
		fprintf(f, "  none\n");
	if (w.stale)
		fprintf(f, "  (%d stale registry entries: dehbq workers %s)\n",
			w.stale, root);
	nstale = stale_claims(f, root, now, s->lease);
#define WARN(...)                                                              \
	do {                                                                   \
		if (!nwarn++)                                                  \
			fprintf(f, "warnings\n");                              \
		fprintf(f, "  ");                                              \
		fprintf(f, __VA_ARGS__);                                       \
		fputc('\n', f);                                                \
	} while (0)
	if (*finished)
		WARN("FINISHED is present: the study is complete");
	if (!*finished && !w.live)
		WARN("no live workers: start some with dehbq-worker --study %s "
		     "-- TRAINER ...",
		     root);
	if (done > 0 && failed > 0.2 * done)
		WARN("many failures: %.0f of %.0f trials failed (dehbq trials "
		     "%s --state failed)",
		     failed, done, root);
	if (held)
		WARN("held, no new trials: %s; fix the trainer, then dehbq "
		     "requeue %s --failed",
		     held, root);
	if (stopped)
		WARN("the orchestrator stopped (%s): resume the study with "
		     "dehbq-orchestrator %s",
		     stopped, root);
	else if (dead)
		WARN("the orchestrator (pid %.0f on this host) is gone without "
		     "stopping: resume the study with dehbq-orchestrator %s",
		     (double)st.pid, root);
	else if (!*finished && have_lease && lease_age > s->lease) {
		fmt_dur(e, sizeof(e), lease_age);
		WARN("orchestrator lease stale: no heartbeat for %s (is "
		     "dehbq-orchestrator running?)",
		     e);
	}
	if (!*finished && !have_lease)
		WARN("no orchestrator has ever run on this study");
	if (nstale)
		WARN("%d stale claim%s (the orchestrator requeues them)",
		     nstale, nstale == 1 ? "" : "s");
	if (other)
		WARN("%ld unexpected name%s in archive/", other,
		     other == 1 ? "" : "s");
#undef WARN
	statusfile_release(&st);
}

int cli_status(int argc, char **argv)
{
	const char *root = NULL;
	double every = -1;
	struct spec s;
	int i, rc, finished;

	if (cli_wants_help(argc, argv)) {
		fputs(status_usage, stdout);
		return CLI_OK;
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--watch")) {
			every = 2;
			if (i + 1 < argc && argv[i + 1][0] != '-' &&
			    !cli_parse_double(argv[i + 1], &every)) {
				i++;
				if (every < 0.1 || every > 86400) {
					return cli_usage_error(
						"status", status_usage,
						"--watch: '%s' is not between "
						"0.1 and 86400 seconds",
						argv[i]);
				}
			}
		} else if (argv[i][0] == '-' || root) {
			return cli_usage_error("status", status_usage,
					       "unexpected argument '%s'",
					       argv[i]);
		} else {
			root = argv[i];
		}
	}
	if (!root) {
		return cli_usage_error("status", status_usage, "need STUDY");
		return CLI_EINPUT;
	}
	if ((rc = cli_open_study("status", root, &s)))
		return rc;
	for (;;) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		if (!f) {
			spec_release(&s);
			return cli_fail("status", CLI_ESYS,
					"fatal: out of memory");
		}
		render(f, root, &s, &finished);
		fclose(f);
		if (every > 0)
			fputs("\033[H\033[2J", stdout);
		fwrite(buf, 1, len, stdout);
		free(buf);
		if (fflush(stdout) == EOF) {
			spec_release(&s);
			return cli_fail("status", CLI_ESYS,
					"fatal: unable to write to standard "
					"output: %s",
					strerror(errno));
		}
		if (every <= 0 || finished)
			break;
		timeutil_sleep(every, NULL);
	}
	spec_release(&s);
	return CLI_OK;
}

int cli_workers(int argc, char **argv)
{
	struct wk_scan w;
	struct spec s;
	int local, rc;

	if (cli_wants_help(argc, argv)) {
		fputs(workers_usage, stdout);
		return CLI_OK;
	}
	if ((rc = cli_positional("workers", workers_usage, argc, argv, 1,
				 "STUDY", NULL)))
		return rc;
	if ((rc = cli_open_study("workers", argv[1], &s)))
		return rc;
	memset(&w, 0, sizeof(w));
	w.f = stdout;
	w.now = cli_fs_now(argv[1], &local);
	w.lease = s.lease;
	w.table = 1;
	printf("%-20s %8s %-12s %-18s %-8s %-24s %8s %s\n", "host", "pid",
	       "worker", "slurm", "trial", "started", "hbeat", "state");
	scan_workers(argv[1], &w);
	printf("%d live, %d stale (lease %gs%s)\n", w.live, w.stale, s.lease,
	       local ? ", local clock" : "");
	spec_release(&s);
	return CLI_OK;
}
