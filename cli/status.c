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
#include "progress.h"
#include "space.h"
#include "spec.h"
#include "statusfile.h"
#include "study.h"
#include "timeutil.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
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
	char host[ID_HOST_LEN], wid[ID_WORKER_LEN], slot[48];
	struct jsonfile *jf;
	const cJSON *o, *tr, *sl, *pp;
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
	sl = cJSON_GetObjectItemCaseSensitive(o, "slot");
	pp = cJSON_GetObjectItemCaseSensitive(o, "parent_pid");
	if (cJSON_IsNumber(sl) && cJSON_IsNumber(pp)) /* a --slots worker's */
		snprintf(slot, sizeof(slot), "%.0f", sl->valuedouble);
	else
		snprintf(slot, sizeof(slot), "-");
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
		fprintf(w->f,
			"%-20s %8ld %-12s %-12s %-12s %-18s %-8s %-24s %8s "
			"%s\n",
			host, pid, wid, slot, str(o, "gpus", "-"), slurm,
			cJSON_IsString(tr) ? tr->valuestring : "-",
			str(o, "started", "?"), age, live ? "live" : "stale");
	} else if (live) {
		fprintf(w->f,
			"  %s:%ld %s  trial %s  heartbeat %s ago%s%s%s%s\n",
			host, pid, wid,
			cJSON_IsString(tr) ? tr->valuestring : "idle", age,
			*slot != '-' ? "  slot " : "", *slot != '-' ? slot : "",
			*str(o, "gpus", "") ? "  GPUs " : "",
			str(o, "gpus", ""));
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

/* Running trials that report as they train: the latest point of each
 * (progress/, docs/protocol.md 4.6), at most 10 lines. */
static void running_points(FILE *f, const char *root)
{
	char p[STUDY_PATH_MAX], err[DEHBQ_ERRLEN], wid[ID_WORKER_LEN];
	const struct progress_point *last;
	struct dirent **names;
	struct progress pr;
	int n, i, k = 0, attempt;
	uint64_t id;

	if (study_path(p, sizeof(p), root, "progress"))
		return;
	n = cli_list("status", p, &names);
	for (i = 0; i < n; i++) {
		if (study_parse_result(names[i]->d_name, &id, &attempt, wid) ||
		    study_path(p, sizeof(p), root, "progress/%s",
			       names[i]->d_name) ||
		    progress_load(p, &pr, err))
			continue;
		if ((last = progress_last(&pr)) && k++ < 10) {
			if (k == 1)
				fprintf(f, "running trials, latest "
					   "intermediate result\n");
			fprintf(f,
				"  trial %08llu attempt %d: loss %.6g at "
				"fidelity %g (%zu points)\n",
				(unsigned long long)id, attempt, last->loss,
				last->fidelity, pr.n);
		}
		progress_release(&pr);
	}
	if (k > 10)
		fprintf(f, "  (%d more: dehbq trials %s --state claimed)\n",
			k - 10, root);
	cli_list_free(names, n);
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

/* What render() learnt about the study, shared by its sections. */
struct view {
	FILE *f;	      /* output */
	const char *root;     /* the study directory */
	const struct spec *s; /* its spec */
	struct statusfile st; /* the orchestrator's last summary */
	int have_st;	      /* st was read */
	int finished;	      /* FINISHED exists */
	double now;	      /* the filesystem's clock */
	int local;	      /* ... or ours, when it cannot tell */
	double lease_age;     /* seconds since the lease's heartbeat */
	int have_lease;	      /* state/lease.json exists */
	int live;	      /* running: ETAs make sense */
	int dead;	      /* its pid is gone from this host */
	const char *stopped;  /* why the orchestrator stopped, or NULL */
	const char *held;     /* why it issues no trials, or NULL */
};

/* Read FINISHED or state/status.json, and the lease; judge the state. */
static void view_load(struct view *v)
{
	char p[STUDY_PATH_MAX], err[DEHBQ_ERRLEN];
	double mt;

	statusfile_init(&v->st);
	v->now = cli_fs_now(v->root, &v->local);
	if (!study_path(p, sizeof(p), v->root, "FINISHED") &&
	    access(p, F_OK) == 0) {
		v->finished = 1;
		if (!(v->have_st = !statusfile_load(p, &v->st, err)))
			cli_warn("status", "%s", err);
	}
	if (!v->have_st &&
	    !study_path(p, sizeof(p), v->root, "state/status.json") &&
	    access(p, F_OK) == 0 &&
	    !(v->have_st = !statusfile_load(p, &v->st, err)))
		cli_warn("status", "%s", err);
	if (!study_path(p, sizeof(p), v->root, "state/lease.json") &&
	    !cli_lmtime(p, &mt)) {
		v->lease_age = v->now - mt;
		v->have_lease = 1;
	}
	if (!v->have_st || v->finished)
		return;
	/* status.json has a reason once its orchestrator stopped */
	v->stopped = v->st.reason[0] ? v->st.reason : NULL;
	v->held = v->st.held[0] ? v->st.held : NULL;
	v->dead = !v->stopped && lease_holder_gone(v->st.host, (long)v->st.pid);
	v->live = !v->stopped && !v->held && !v->dead;
}

/* The orchestrator's line, progress, counts, incumbents, optimiser. */
static void orchestrator_lines(const struct view *v)
{
	const struct statusfile *st = &v->st;
	const struct statusfile_counts *c = &st->counts;
	struct statusfile_limits lim = {1, v->s->fevals, v->s->brackets,
					v->s->walltime, v->s->total_cost};
	FILE *f = v->f;
	char state[600], e[32], hb[32];

	fmt_dur(e, sizeof(e), st->elapsed);
	fmt_dur(hb, sizeof(hb), v->lease_age < 0 ? 0 : v->lease_age);
	if (v->stopped)
		snprintf(state, sizeof(state), "stopped (%s) after",
			 v->stopped);
	else if (v->finished)
		snprintf(state, sizeof(state), "finished after");
	else if (v->dead)
		snprintf(state, sizeof(state),
			 "DEAD (pid gone from this host) after");
	else
		snprintf(state, sizeof(state), "%s (heartbeat %s ago),",
			 v->held ? "HELD" : "running",
			 v->have_lease ? hb : "?");
	fprintf(f, "orchestrator %s:%.0f epoch %.0f, %s %s, updated %s%s\n",
		st->host[0] ? st->host : "?", (double)st->pid,
		(double)st->epoch, state, e, st->updated[0] ? st->updated : "?",
		v->finished ? "  FINISHED" : "");
	if (v->finished)
		fprintf(f, "finished: %s\n", st->reason[0] ? st->reason : "?");
	if (st->limits.valid) { /* dehbq extend may have raised them */
		lim.fevals = st->limits.fevals;
		lim.brackets = st->limits.brackets;
		lim.walltime = st->limits.walltime;
		lim.total_cost = st->limits.total_cost;
	}
	progress(f, &lim, c, st->elapsed, v->live);
	fprintf(f,
		"counts: issued %.0f, done %.0f, failed %.0f, in flight %.0f "
		"(pending %.0f, claimed %.0f)\n",
		(double)c->issued, (double)c->done, (double)c->failed,
		(double)c->inflight, (double)c->pending, (double)c->claimed);
	fprintf(f,
		"        requeues %.0f, expired %.0f, duplicates %.0f, "
		"quarantined %.0f, brackets %.0f, total cost %g\n",
		(double)c->requeues, (double)c->expired, (double)c->duplicates,
		(double)c->quarantined, (double)c->brackets, c->total_cost);
	if (c->forbidden)
		fprintf(f,
			"        forbidden %.0f (proposals the space's "
			"forbidden clauses refused; never run)\n",
			(double)c->forbidden);
	fprintf(f, "throughput: %.2f done/min\n",
		st->elapsed > 0 ? (double)c->done / st->elapsed * 60 : 0);
	if (v->s->obj.n)
		cli_front_status(f, v->root, v->s);
	else
		cli_status_incumbents(f, v->root, v->s, st, v->finished);
	cli_status_transfer(f, st->optimizer);
	if (!v->finished)
		cli_status_optimizer(f, st->optimizer);
}

/* What the directory holds now: counts, live workers, stale claims. */
struct dir_seen {
	int workers; /* live workers */
	int stale;   /* stale claims */
	long other;  /* unexpected names in archive/ */
};

static void directory_lines(const struct view *v, struct dir_seen *d)
{
	const struct statusfile_counts *c = &v->st.counts;
	struct wk_scan w;
	long archived;
	int npend, nclaim;
	FILE *f = v->f;

	cli_count_archive(v->root, &archived, &d->other);
	npend = cli_count_dir(v->root, "pending");
	nclaim = cli_count_dir(v->root, "claimed");
	fprintf(f,
		"directory: staging %d, pending %d, claimed %d, results %d, "
		"archived %ld, quarantine %d\n",
		cli_count_dir(v->root, "staging"), npend, nclaim,
		cli_count_dir(v->root, "results"), archived,
		cli_count_dir(v->root, "quarantine"));
	if (v->have_st && !v->finished &&
	    (npend != c->pending || nclaim != c->claimed))
		fprintf(f,
			"  (the counts above are the orchestrator's at its "
			"last batch, updated %s; the directory is listed now, "
			"and workers claim between the two)\n",
			v->st.updated[0] ? v->st.updated : "?");
	memset(&w, 0, sizeof(w));
	w.f = f;
	w.now = v->now;
	w.lease = v->s->lease;
	fprintf(f, "live workers%s\n", v->local ? " (local clock)" : "");
	scan_workers(v->root, &w);
	if (!w.live)
		fprintf(f, "  none\n");
	if (w.stale)
		fprintf(f, "  (%d stale registry entries: dehbq workers %s)\n",
			w.stale, v->root);
	d->workers = w.live;
	d->stale = stale_claims(f, v->root, v->now, v->s->lease);
	running_points(f, v->root);
}

/* One warning line, under a "warnings" heading printed once. */
static void warn(FILE *f, int *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void warn(FILE *f, int *n, const char *fmt, ...)
{
	va_list ap;

	if (!(*n)++)
		fprintf(f, "warnings\n");
	fprintf(f, "  ");
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

static void warnings(const struct view *v, const struct dir_seen *d)
{
	const struct statusfile_counts *c = &v->st.counts;
	const char *root = v->root;
	FILE *f = v->f;
	char e[32];
	int n = 0;

	if (v->finished)
		warn(f, &n, "FINISHED is present: the study is complete");
	if (!v->finished && !d->workers)
		warn(f, &n,
		     "no live workers: start some with dehbq-worker --study "
		     "%s -- TRAINER ...",
		     root);
	if (v->have_st && c->done > 0 && c->failed > 0.2 * (double)c->done)
		warn(f, &n,
		     "many failures: %.0f of %.0f trials failed (dehbq "
		     "trials %s --state failed)",
		     (double)c->failed, (double)c->done, root);
	if (v->held)
		warn(f, &n,
		     "held, no new trials: %s; fix the trainer, then dehbq "
		     "requeue %s --failed",
		     v->held, root);
	if (v->stopped)
		warn(f, &n,
		     "the orchestrator stopped (%s): resume the study with "
		     "dehbq-orchestrator %s",
		     v->stopped, root);
	else if (v->dead)
		warn(f, &n,
		     "the orchestrator (pid %.0f on this host) is gone without "
		     "stopping: resume the study with dehbq-orchestrator %s",
		     (double)v->st.pid, root);
	else if (!v->finished && v->have_lease && v->lease_age > v->s->lease) {
		fmt_dur(e, sizeof(e), v->lease_age);
		warn(f, &n,
		     "orchestrator lease stale: no heartbeat for %s (is "
		     "dehbq-orchestrator running?)",
		     e);
	}
	if (!v->finished && !v->have_lease)
		warn(f, &n, "no orchestrator has ever run on this study");
	if (d->stale)
		warn(f, &n, "%d stale claim%s (the orchestrator requeues them)",
		     d->stale, d->stale == 1 ? "" : "s");
	if (d->other)
		warn(f, &n, "%ld unexpected name%s in archive/", d->other,
		     d->other == 1 ? "" : "s");
}

static void render(FILE *f, const char *root, const struct spec *s,
		   int *finished)
{
	struct view v = {.f = f, .root = root, .s = s};
	struct dir_seen d = {0, 0, 0};

	view_load(&v);
	*finished = v.finished;
	fprintf(f, "study %s  %s%s%s\n", s->study, root, s->name[0] ? "  " : "",
		s->name);
	if (v.have_st)
		orchestrator_lines(&v);
	else
		fprintf(f,
			"no state/status.json: the orchestrator has not run "
			"yet (start: dehbq-orchestrator %s)\n",
			root);
	directory_lines(&v, &d);
	warnings(&v, &d);
	statusfile_release(&v.st);
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
	printf("%-20s %8s %-12s %-12s %-12s %-18s %-8s %-24s %8s %s\n", "host",
	       "pid", "worker", "slot", "gpus", "slurm", "trial", "started",
	       "hbeat", "state");
	scan_workers(argv[1], &w);
	printf("%d live, %d stale (lease %gs%s)\n", w.live, w.stale, s.lease,
	       local ? ", local clock" : "");
	spec_release(&s);
	return CLI_OK;
}
