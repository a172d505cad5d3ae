/*
 * sched_progress.c - owns intermediate results on the orchestrator's side
 * (docs/protocol.md 4.6 and 6): progress/ is read, new points are told to
 * an optimiser that stops trials (optim_report), its stop decisions become
 * stop/IIIIIIII.json, and the files of told trials go to the archive
 *
 * A progress file is read again only when its mtime or size changed, and
 * once more just before its trial is told (sched_progress_flush: a
 * trainer that ends within one read still has its points told); a
 * point is told only above the job's last reported fidelity (optim.h
 * keeps it, in the snapshot), so reading a file twice, or after a
 * restart, tells nothing twice.  A stop file is written through the redo
 * list: after the snapshot that holds the decision, never before, and
 * again by a restart that loads it.  A stopped trial whose worker is gone
 * is told as stopped when its claim expires (sched_claims.c).
 */
#include "sched_impl.h"

#include "err.h"
#include "logmsg.h"
#include "optim.h"
#include "progress.h"
#include "study.h"
#include "timeutil.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Queue stop/ID.json for in-flight trial id, stopped at fidelity. */
static int queue_stop(struct sched *s, uint64_t id, double fidelity,
		      double loss)
{
	char to[STUDY_PATH_MAX], ids[ID_TRIAL_LEN], *text = NULL;
	int rc;

	id_trial_format(id, ids);
	if (study_path(to, sizeof(to), s->root, "stop/%s.json", ids))
		return DEHBQ_ETOOBIG;
	if ((rc = progress_stop_render(ids, fidelity, loss, &text)))
		return rc;
	rc = redo_push(&s->redo, REDO_WRITE, NULL, to, text);
	free(text);
	logmsg_i(s->lg, "trial=%s stopped at fidelity %g (loss %.6g)", ids,
		 fidelity, loss);
	return rc;
}

/* Tell the points of pr that are new to the optimiser; queue: a stop
 * decided gets its stop file (not for a trial about to be told). */
static int tell_points(struct sched *s, uint64_t id, const struct progress *pr,
		       const char *name, int queue)
{
	double last, loss;
	size_t i;
	int stop, rc;

	if ((rc = optim_reported(s->eng, id, &last, &loss, &stop)) || stop)
		return DEHBQ_OK;
	for (i = 0; i < pr->n && !stop; i++) {
		const struct progress_point *p = &pr->pt[i];

		if (!(p->fidelity > last))
			continue;
		rc = optim_report(s->eng, id, p->fidelity, p->loss, &stop);
		if (rc == DEHBQ_ETOOBIG) { /* the bound on reports */
			struct inflight *e = sched_inf_find(s, id);

			if (e && !e->capped++)
				logmsg_w(s->lg,
					 "progress/%s: %d intermediate results "
					 "told, the most for one trial; the "
					 "rest are not",
					 name, OPTIM_MAX_REPORTS);
			return DEHBQ_OK;
		}
		if (rc == DEHBQ_EINVAL) { /* beyond the trial's fidelity */
			logmsg_w(s->lg,
				 "progress/%s: fidelity %g is above the "
				 "trial's; the rest of its points are ignored",
				 name, p->fidelity);
			return DEHBQ_OK;
		}
		if (rc)
			return rc;
		s->dirty = 1;
		last = p->fidelity;
		if (stop && queue &&
		    (rc = queue_stop(s, id, p->fidelity, p->loss)))
			return rc;
	}
	return DEHBQ_OK;
}

/* Move dir/name of told trial id into the archive as ID.aN.KIND.json. */
static int archive_told(struct sched *s, const char *dir, const char *name,
			uint64_t id, int attempt, const char *kind)
{
	char from[STUDY_PATH_MAX], to[STUDY_PATH_MAX];
	int rc;

	if (study_path(from, sizeof(from), s->root, "%s/%s", dir, name) ||
	    study_archive_file(to, sizeof(to), s->root, id, attempt, kind))
		return DEHBQ_ETOOBIG;
	if (redo_has_from(&s->redo, from))
		return DEHBQ_OK;
	if ((rc = sched_ensure_shard(s, id)))
		return rc;
	return redo_push(&s->redo, REDO_MOVE, from, to, NULL);
}

static int scan_progress(struct sched *s, const char *name, unsigned char dt)
{
	char path[STUDY_PATH_MAX], err[DEHBQ_ERRLEN], wid[ID_WORKER_LEN];
	struct progress pr;
	struct inflight *e;
	struct stat st;
	uint64_t id;
	int attempt, rc;

	(void)dt;
	if (study_parse_result(name, &id, &attempt, wid)) {
		sched_quarantine(s, "progress", name,
				 "not a progress file name "
				 "(IIIIIIII.aN.WID.json)");
		return DEHBQ_OK;
	}
	if (study_path(path, sizeof(path), s->root, "progress/%s", name))
		return DEHBQ_OK;
	if (!(e = sched_inf_find(s, id))) {
		if (sched_never_issued(s, id, err, sizeof(err))) {
			sched_quarantine(s, "progress", name, err);
			return DEHBQ_OK;
		}
		return archive_told(s, "progress", name, id, attempt,
				    "progress");
	}
	if (!optim_stops(s->eng))
		return DEHBQ_OK;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? DEHBQ_OK : DEHBQ_ESYS;
	/* each write is a rename: a new inode, even within one mtime tick */
	if (e->pmt == timeutil_secs(&st.st_mtim) && e->psize == st.st_size &&
	    e->pino == (uint64_t)st.st_ino)
		return DEHBQ_OK;
	rc = progress_load(path, &pr, err);
	if (rc == DEHBQ_ESYS && errno == ENOENT)
		return DEHBQ_OK;
	if (rc == DEHBQ_ESYS || rc == DEHBQ_ENOMEM)
		return rc;
	if (!rc && (strcmp(pr.worker, wid) || pr.attempt != attempt ||
		    strncmp(pr.id, name, 8))) {
		snprintf(err, sizeof(err),
			 "its id, attempt or worker is not its name's");
		progress_release(&pr);
		rc = DEHBQ_EINVAL;
	}
	if (rc) { /* bad, too big, a link: not the worker's file */
		sched_quarantine(s, "progress", name, err);
		return DEHBQ_OK;
	}
	e->pmt = timeutil_secs(&st.st_mtim);
	e->psize = st.st_size;
	e->pino = (uint64_t)st.st_ino;
	rc = tell_points(s, id, &pr, name, 1);
	progress_release(&pr);
	return rc;
}

int sched_progress_flush(struct sched *s, uint64_t id, const char *name)
{
	char path[STUDY_PATH_MAX], err[DEHBQ_ERRLEN];
	struct progress pr;
	int rc;

	if (!optim_stops(s->eng) ||
	    study_path(path, sizeof(path), s->root, "progress/%s", name))
		return DEHBQ_OK;
	/* any file it cannot read is the scan's to quarantine */
	if ((rc = progress_load(path, &pr, err)))
		return rc == DEHBQ_ENOMEM ? rc : DEHBQ_OK;
	rc = tell_points(s, id, &pr, name, 0);
	progress_release(&pr);
	return rc;
}

static int scan_stop(struct sched *s, const char *name, unsigned char dt)
{
	char path[STUDY_PATH_MAX];
	struct inflight *e;
	double f, loss;
	uint64_t id;
	int stop;

	(void)dt;
	if (study_parse_staging(name, &id)) {
		sched_quarantine(s, "stop", name,
				 "not a stop file name (IIIIIIII.json)");
		return DEHBQ_OK;
	}
	if (study_path(path, sizeof(path), s->root, "stop/%s", name) ||
	    redo_has_from(&s->redo, path))
		return DEHBQ_OK;
	if (!(e = sched_inf_find(s, id)))
		return archive_told(s, "stop", name, id, 0, "stop");
	/* in flight, not stopped: the file of a trial that was requeued
	 * after a failure (or of a snapshot since lost), stale */
	if (!optim_reported(s->eng, id, &f, &loss, &stop) && !stop)
		return archive_told(s, "stop", name, id, e->attempt, "stop");
	return DEHBQ_OK;
}

/*
 * Every stopped trial in flight has its stop file: a restart from a
 * snapshot whose redo list was already applied and cleared finds its
 * decisions here.
 */
static int restore_stops(struct sched *s)
{
	char path[STUDY_PATH_MAX], ids[ID_TRIAL_LEN];
	double f, loss;
	size_t i;
	int stop, rc;

	for (i = 0; i < s->ninf; i++) {
		if (optim_reported(s->eng, s->inf[i].id, &f, &loss, &stop) ||
		    !stop)
			continue;
		id_trial_format(s->inf[i].id, ids);
		if (study_path(path, sizeof(path), s->root, "stop/%s.json",
			       ids))
			return DEHBQ_ETOOBIG;
		if (access(path, F_OK) == 0 || redo_has_to(&s->redo, path))
			continue;
		if ((rc = queue_stop(s, s->inf[i].id, f, loss)))
			return rc;
		s->dirty = 1;
	}
	return DEHBQ_OK;
}

int sched_scan_progress(struct sched *s)
{
	int rc;

	if ((rc = sched_scan_dir(s, "progress", scan_progress, 1 << 30)))
		return rc;
	if (!optim_stops(s->eng))
		return DEHBQ_OK;
	if (!s->stops_restored) {
		if ((rc = restore_stops(s)))
			return rc;
		s->stops_restored = 1;
	}
	return sched_scan_dir(s, "stop", scan_stop, 1 << 30);
}
