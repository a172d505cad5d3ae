/*
 * sched.c - owns the orchestrator's batch: results -> engine -> new trials
 * (the other files of the module are listed in sched_impl.h)
 *
 * Invariants (docs/protocol.md sections 6 and 8):
 *   - write-ahead: a trial is published (staging -> pending) only after a
 *     durable snapshot lists it in flight;
 *   - archive-after-snapshot: a result leaves results/ only after a
 *     durable snapshot includes its tell;
 *   - the engine is told at most once per trial id, and only a result that
 *     matches the issued trial (sched_match.c);
 *   - the in-flight table holds exactly the engine's in-flight jobs, each
 *     with the attempt number of its newest trial file and its token.
 * Every change that must wait for the snapshot is queued in s->redo and
 * applied by redo_apply() once snapshot_write() has succeeded.
 */
#include "sched_impl.h"

#include "atomicfile.h"
#include "mobj.h"
#include "optim.h"
#include "err.h"
#include "fsutil.h"
#include "id.h"
#include "lease.h"
#include "logmsg.h"
#include "space.h"
#include "spec.h"
#include "study.h"
#include "timeutil.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

double sched_elapsed(const struct sched *s)
{
	return s->elapsed_base + (timeutil_mono() - s->mono_start);
}

/*
 * Remove the dotfiles of crashed atomic writes (ours or a worker's, in
 * results/) older than the lease: a writer alive that long would have
 * lost its lease, and its file is renamed away within milliseconds.
 */
static void sweep_tmp(struct sched *s, const char *dir, const char *name)
{
	char p[STUDY_PATH_MAX];
	double mt;

	if (strncmp(name, ".", 1) || !strstr(name, ".tmp") ||
	    study_path(p, sizeof(p), s->root, "%s/%s", dir, name))
		return;
	if (s->fs_now > 0 && !timeutil_mtime(p, &mt) &&
	    s->fs_now - mt > s->spec->lease)
		atomicfile_get_ops()->unlink(p);
}

int sched_scan_dir(struct sched *s, const char *dir, sched_scan_fn fn, int cap)
{
	char p[STUDY_PATH_MAX];
	struct dirent *e;
	DIR *d;
	int rc = DEHBQ_OK, n = 0;

	if (study_path(p, sizeof(p), s->root, "%s", dir))
		return DEHBQ_ETOOBIG;
	if (!(d = opendir(p)))
		return DEHBQ_ESYS;
	while ((e = readdir(d)) && n < cap) {
		if (fsutil_skip_name(e->d_name)) {
			sweep_tmp(s, dir, e->d_name);
			continue;
		}
		n++;
		if ((rc = fn(s, e->d_name, e->d_type)))
			break;
	}
	closedir(d);
	return rc;
}

/*
 * Intermediate results (sched_progress.c): in every full batch, and in
 * light ones every SCHED_LIVE_INTERVAL seconds, so that a stop reaches
 * its worker within about a second (and in the batch that finishes the
 * study, so that its last files are archived).
 */
#define SCHED_LIVE_INTERVAL 0.5
static int scan_live(struct sched *s)
{
	s->next_live = timeutil_mono() + SCHED_LIVE_INTERVAL;
	return sched_scan_progress(s);
}

/* progress/ and stop/ in a study made before them. */
static int live_dirs(const char *root)
{
	static const char *const dirs[] = {"progress", "stop"};
	char p[STUDY_PATH_MAX];
	int made = 0;
	size_t i;

	for (i = 0; i < 2; i++) {
		if (study_path(p, sizeof(p), root, "%s", dirs[i]))
			return DEHBQ_ETOOBIG;
		if (mkdir(p, 0777) == 0)
			made = 1;
		else if (errno != EEXIST)
			return DEHBQ_ESYS;
	}
	return made ? fsutil_fsync_dir(root) : DEHBQ_OK;
}

static int can_ask(const struct sched *s)
{
	return !s->meta.stopping && !s->held[0] && !optim_exhausted(s->eng);
}

static int ask_trials(struct sched *s)
{
	int idle = s->live_workers - s->nclaimed;
	int target = (idle > 0 ? idle : 0) + s->spec->prefetch;
	int rc;

	optim_set_elapsed(s->eng, sched_elapsed(s));
	while (s->npending < target && can_ask(s)) {
		struct optim_job job;

		if (s->spec->max_inflight &&
		    s->ninf >= (size_t)s->spec->max_inflight)
			break;
		rc = optim_ask(s->eng, &job, s->vec);
		if (rc == DEHBQ_EAGAIN || rc == DEHBQ_EDONE)
			break;
		if (rc)
			return rc;
		if ((rc = sched_inf_add(s, job.id, 1, id_token_new())) ||
		    (rc = sched_stage_trial(s, job.id, 1)))
			return rc;
		sched_inf_find(s, job.id)->seen = 1;
		s->npending++;
		s->dirty = 1;
		logmsg_d(s->lg,
			 "trial=%08llu issued bracket=%lld rung=%d "
			 "fidelity=%.17g kind=%s",
			 (unsigned long long)job.id, (long long)job.bracket,
			 job.rung, job.fidelity, optim_kind_name(job.kind));
	}
	return DEHBQ_OK;
}

/*
 * The optimiser's new history records to its file, before the snapshot
 * that counts them; they stay pending in the optimiser when the append
 * fails, for the next batch.
 */
static int flush_history(struct sched *s)
{
	const char *t;
	size_t n;
	int rc;

	if (!optim_keeps_history(s->eng))
		return DEHBQ_OK;
	optim_history_pending(s->eng, &t, &n);
	if (n && (rc = history_append(&s->hist, t, n)))
		return rc;
	optim_history_written(s->eng);
	memcpy(s->meta.history, s->hist.name, sizeof(s->meta.history));
	s->meta.history_bytes = s->hist.bytes;
	return DEHBQ_OK;
}

static int write_snapshot(struct sched *s)
{
	struct snapshot_inflight *v;
	char *redo;
	size_t i;
	int rc;

	if ((rc = flush_history(s)))
		return rc;
	v = calloc(s->ninf + 1, sizeof(*v));
	if (!v)
		return DEHBQ_ENOMEM;
	for (i = 0; i < s->ninf; i++) {
		v[i].id = s->inf[i].id;
		v[i].attempt = s->inf[i].attempt;
		v[i].token = s->inf[i].token;
	}
	s->meta.elapsed = sched_elapsed(s);
	s->meta.epoch = s->lease->epoch;
	s->meta.generation++;
	if (!s->opts.nosync) {
		char p[STUDY_PATH_MAX];

		/* staged trials are referenced by the snapshot */
		if (!study_path(p, sizeof(p), s->root, "staging"))
			fsutil_fsync_dir(p);
	}
	redo = redo_to_text(&s->redo);
	rc = redo ? snapshot_write(s->root, &s->meta, v, s->ninf, s->eng, redo,
				   s->flags)
		  : DEHBQ_ENOMEM;
	free(redo);
	free(v);
	if (rc) {
		s->meta.generation--;
		return rc;
	}
	/* by listing until the kept ones are all of our epoch; then by the
	 * name each snapshot pushes out */
	if (++s->nsnaps > SNAPSHOT_KEEP)
		snapshot_prune_after(s->root, s->meta.epoch,
				     s->meta.generation);
	else
		snapshot_prune(s->root);
	s->dirty = 0;
	return DEHBQ_OK;
}

/* Apply the redo list; a vanished source may mean a vanished shard. */
static int apply_redo(struct sched *s)
{
	int rc = redo_apply(&s->redo, s->flags, s->opts.nosync);

	if (s->redo.gone) {
		s->shard_made = 0;
		s->redo.gone = 0;
	}
	return rc;
}

int sched_batch(struct sched *s, int full, char *err)
{
	size_t i;
	int rc;

	if ((rc = lease_check(s->lease, err)))
		return rc;
	if (full && ((rc = lease_heartbeat(s->lease)) ||
		     (rc = lease_fs_now(s->root, &s->fs_now)))) {
		dehbq_errf(err, rc, "unable to heartbeat '%s/state': %s",
			   s->root, strerror(errno));
		return rc;
	}
	if (s->redo.n) {
		/* A previous batch could not finish (here, or in the run whose
		 * snapshot this process loaded); redo its commit only. */
		size_t n = s->redo.n;
		int resumed = !s->nsnaps;

		if (s->dirty && (rc = write_snapshot(s)))
			goto storage;
		if ((rc = apply_redo(s)))
			goto storage;
		if (resumed)
			logmsg_i(s->lg,
				 "made the %zu moves the loaded snapshot "
				 "recorded as not yet made",
				 n);
		else
			logmsg_i(s->lg,
				 "storage recovered; %zu queued moves made", n);
	}
	s->npending = 0;
	if (full) {
		for (i = 0; i < s->ninf; i++)
			s->inf[i].seen = 0;
		s->nclaimed = s->live_workers = 0;
	}
	/* results first: a finished trial is told before its claim's age is
	 * looked at, so downtime never requeues work that is already done */
	if ((rc = sched_scan_results(s)) ||
	    (full &&
	     (rc = sched_scan_dir(s, "claimed", sched_scan_claim, 1 << 30))) ||
	    (rc = sched_scan_dir(s, "pending", sched_scan_pending, 1 << 30)) ||
	    (full &&
	     (rc = sched_scan_dir(s, "workers", sched_scan_worker, 1 << 30))) ||
	    (full && (rc = sched_scan_dir(s, "state/requests",
					  sched_scan_request, 1000))) ||
	    (rc = sched_check_missing(s, full)) ||
	    /* after the claims: a stopped trial whose claim expired is
	     * told, and its files archived, in one batch */
	    ((full || timeutil_mono() >= s->next_live ||
	      optim_finished(s->eng)) &&
	     (rc = scan_live(s))))
		goto storage;
	if (!full) /* every in-flight trial not in pending/ counts as claimed */
		s->nclaimed = (int)s->ninf - s->npending;
	if ((rc = ask_trials(s)))
		goto storage;
	if (s->dirty && (rc = write_snapshot(s)))
		goto storage;
	if ((rc = apply_redo(s)))
		goto storage;
	sched_write_status(s, full);
	return DEHBQ_OK;
storage:
	if (rc == DEHBQ_ENOMEM)
		return dehbq_errf(err, rc, "out of memory");
	return dehbq_errf(err, rc,
			  "storage error (%s); keeping the last good snapshot "
			  "and retrying",
			  rc == DEHBQ_ESYS ? strerror(errno)
					   : dehbq_strerror(rc));
}

int sched_finished(const struct sched *s)
{
	if (s->redo.n)
		return 0;
	if (s->meta.stopping || optim_exhausted(s->eng))
		return s->ninf == 0 || !s->spec->drain;
	return 0;
}

int sched_stopping(const struct sched *s)
{
	return s->meta.stopping;
}

int sched_pending(const struct sched *s)
{
	return s->npending;
}

int sched_finish(struct sched *s, const char *reason)
{
	int rc;

	/* retire whatever is still queued (drain off, or a stop), and archive
	 * claims a listing missed while workers renamed files around it */
	if ((rc = sched_scan_dir(s, "pending", sched_scan_pending, 1 << 30)) ||
	    (rc = sched_scan_dir(s, "claimed", sched_scan_claim, 1 << 30)) ||
	    (s->dirty && (rc = write_snapshot(s))) || (rc = apply_redo(s)))
		return rc; /* nothing final written; the caller retries */
	sched_write_status(s, 1);
	rc = sched_write_finished(s, reason, s->flags);
	if (!rc)
		logmsg_i(s->lg, "study finished: %s", reason);
	return rc;
}

/* The optimiser's feasibility test: not a forbidden configuration (the
 * space's forbidden clauses); decodes into the scheduler's scratch. */
static int feasible(void *arg, const double *vec)
{
	struct sched *s = arg;
	const struct space *sp = s->spec->space;

	if (space_decode(sp, vec, s->vals))
		return 1; /* out of memory: let the trial file step fail */
	return !space_forbidden(sp, s->vals);
}

/* The optimiser's setup from the study (borrows s->choices, the spec). */
static void study_setup(struct sched *s, struct optim_setup *u)
{
	const struct spec *sp = s->spec;

	memset(u, 0, sizeof(*u));
	u->dim = space_dim(sp->space);
	u->min_fidelity = sp->min_fidelity;
	u->max_fidelity = sp->max_fidelity;
	u->eta = sp->eta;
	u->seed = sp->seed;
	u->lim.fevals = sp->fevals;
	u->lim.brackets = sp->brackets;
	u->lim.cost = sp->total_cost;
	u->lim.walltime = sp->walltime;
	u->choices = s->choices;
	u->space = sp->space;
	u->settings = sp->settings;
	if (sp->obj.n) {
		u->nobj = sp->obj.n;
		u->obj_weights = sp->obj.weight;
		if (mobj_mode_parse(
			    sp->obj.pareto ? objectives_selection_name(&sp->obj)
					   : sp->obj.scalarise,
			    &u->scalarise))
			u->scalarise = -1; /* optim_open says why */
	}
	if (s->tr.ntasks)
		u->transfer = &s->trv;
	if (space_has_forbidden(sp->space)) {
		u->feasible = feasible;
		u->feasible_arg = s;
	}
}

/* The frozen transfer data, when init imported some. */
static int load_transfer(struct sched *s, char *err)
{
	int rc = transfer_load(s->root, space_dim(s->spec->space), &s->tr, err);

	if (rc == DEHBQ_ENOENT)
		return DEHBQ_OK;
	if (rc)
		return rc;
	s->trv.ntasks = s->tr.ntasks;
	s->trv.n = s->tr.n;
	s->trv.x = s->tr.x;
	s->trv.y = s->tr.y;
	logmsg_i(s->lg, "transfer: %d earlier tasks, %zu results", s->tr.ntasks,
		 s->tr.total);
	return DEHBQ_OK;
}

static int new_engine(struct sched *s, char *err)
{
	struct optim_setup u;
	char e[DEHBQ_ERRLEN];
	int rc;

	study_setup(s, &u);
	if ((rc = optim_open(s->spec->optimizer, &u, &s->eng, e)))
		return dehbq_errf(err, rc, "study.json: %s", e);
	return DEHBQ_OK;
}

/*
 * This epoch's own history file, a copy of what the snapshot named (its
 * writer may still append to its own file until it notices the fence).
 */
static int start_history(struct sched *s, const char *text, char *err)
{
	int rc;

	if (!optim_keeps_history(s->eng))
		return DEHBQ_OK;
	if ((rc = history_start(&s->hist, s->root, s->lease->epoch, text,
				(size_t)s->meta.history_bytes, s->flags)))
		return dehbq_errf(err, rc,
				  "unable to write the optimizer's history "
				  "in '%s/state': %s",
				  s->root,
				  rc == DEHBQ_ESYS ? strerror(errno)
						   : dehbq_strerror(rc));
	memcpy(s->meta.history, s->hist.name, sizeof(s->meta.history));
	s->meta.history_bytes = s->hist.bytes;
	history_prune(s->root, s->hist.name);
	return DEHBQ_OK;
}

/* No snapshot: a new study, unless it has history (then refuse). */
static int start_fresh(struct sched *s, int skipped, const char *warn,
		       char *err)
{
	char ap[STUDY_PATH_MAX];
	int rc;

	if (skipped)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "no snapshot in '%s/state' can be loaded "
				  "(%s); refusing to start over, nothing was "
				  "moved",
				  s->root, warn);
	if (!study_path(ap, sizeof(ap), s->root, "archive") &&
	    sched_archive_has_files(ap, 0))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "'%s/archive' holds trials but '%s/state' "
				  "has no snapshot; refusing to start the "
				  "study over",
				  s->root, s->root);
	memcpy(s->meta.study, s->spec->study, ID_STUDY_LEN);
	if ((rc = new_engine(s, err)))
		return rc;
	s->dirty = 1;
	logmsg_i(s->lg, "new study %s: optimizer %s, %d parameters",
		 s->spec->study, s->spec->optimizer, space_dim(s->spec->space));
	return DEHBQ_OK;
}

int sched_open(struct sched **out, const char *root, struct spec *spec,
	       struct lease *lease, struct logmsg *lg,
	       const struct sched_opts *opts, char *err)
{
	char warn[DEHBQ_ERRLEN], *htext = NULL;
	struct optim_setup setup;
	struct snapshot_inflight *v = NULL;
	cJSON *redo = NULL;
	struct sched *s;
	size_t n = 0, i;
	int skipped, rc, dim = space_dim(spec->space);

	*out = NULL;
	if (!(s = calloc(1, sizeof(*s))))
		return DEHBQ_ENOMEM;
	s->root = root;
	s->spec = spec;
	s->lease = lease;
	s->lg = lg;
	s->opts = *opts;
	s->flags = opts->nosync ? ATOMICFILE_NOSYNC : 0;
	s->mono_start = timeutil_mono();
	s->last_progress = -1e9;
	redo_init(&s->redo, root);
	s->vec = calloc((size_t)dim + 1, sizeof(*s->vec));
	s->vals = calloc((size_t)dim + 1, sizeof(*s->vals));
	s->choices = calloc((size_t)dim + 1, sizeof(*s->choices));
	if (!s->vec || !s->vals || !s->choices) {
		rc = DEHBQ_ENOMEM;
		goto fail;
	}
	for (i = 0; i < (size_t)dim; i++)
		s->choices[i] = space_param_choices(spec->space, (int)i);
	if ((rc = live_dirs(root))) {
		dehbq_errf(err, rc, "cannot create '%s/progress' or 'stop': %s",
			   root, strerror(errno));
		goto fail;
	}
	if ((rc = load_transfer(s, err)))
		goto fail;
	study_setup(s, &setup);
	rc = snapshot_load(root, spec->study, &setup, &s->meta, &v, &n, &s->eng,
			   &htext, &redo, &skipped, warn);
	if (skipped && rc == DEHBQ_OK)
		logmsg_w(lg, "skipped %d unreadable snapshot(s): %s", skipped,
			 warn);
	if (rc == DEHBQ_ENOENT) {
		if ((rc = start_fresh(s, skipped, warn, err)))
			goto fail;
	} else if (rc == DEHBQ_EUNSUP) {
		dehbq_errf(err, rc, "%s", warn);
		goto fail;
	} else if (rc == DEHBQ_EINVAL) {
		dehbq_errf(err, rc,
			   "%s/%s; refusing to start: nothing was moved, and "
			   "a dehbq that loads it resumes the study (to resume "
			   "from the snapshot before it instead, move it out "
			   "of state/)",
			   root, warn);
		goto fail;
	} else if (rc == DEHBQ_EAGAIN) {
		/* a storage error: main.c retries the start with backoff */
		rc = dehbq_errf(err, DEHBQ_ESYS,
				"%s; will retry (an older snapshot would "
				"lose what this one holds)",
				warn);
		goto fail;
	} else if (rc) {
		dehbq_errf(err, rc, "unable to read snapshots in '%s/state'",
			   root);
		goto fail;
	} else {
		if (s->meta.epoch >= lease->epoch &&
		    (rc = lease_raise(lease, s->meta.epoch + 1, err)))
			goto fail;
		logmsg_i(lg,
			 "resumed from snapshot epoch %lld generation %lld "
			 "(%zu trials in flight)",
			 (long long)s->meta.epoch,
			 (long long)s->meta.generation, n);
		s->dirty = 1; /* re-stamp with our epoch */
	}
	if ((rc = start_history(s, htext, err)))
		goto fail;
	free(htext);
	htext = NULL;
	s->elapsed_base = s->meta.elapsed;
	for (i = 0; i < n; i++)
		if ((rc = sched_inf_add(s, v[i].id, v[i].attempt, v[i].token)))
			goto fail;
	free(v);
	v = NULL;
	if (skipped && (rc = sched_retell(s)))
		goto fail;
	/* Redo what the crashed run had queued after its last snapshot, before
	 * reconciling, so those files are not mistaken for strays. */
	if (redo) {
		char name[64];

		snprintf(name, sizeof(name),
			 "state/snapshot-%06lld-%010lld.json",
			 (long long)s->meta.epoch,
			 (long long)s->meta.generation);
		if ((rc = redo_load(&s->redo, redo, name, err)))
			goto fail;
	}
	cJSON_Delete(redo);
	redo = NULL;
	if ((rc = sched_reconcile(s, err)))
		goto fail;
	*out = s;
	return DEHBQ_OK;
fail:
	free(v);
	free(htext);
	cJSON_Delete(redo);
	sched_close(s);
	return rc;
}

void sched_close(struct sched *s)
{
	if (!s)
		return;
	redo_release(&s->redo);
	free(s->inf);
	free(s->vec);
	free(s->vals);
	free(s->choices);
	optim_free(s->eng);
	transfer_release(&s->tr);
	free(s);
}
