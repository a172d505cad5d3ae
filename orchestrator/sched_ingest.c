/*
 * sched_ingest.c - owns taking results: validate, match, tell the engine,
 * archive (or quarantine, or note a duplicate), count failures in a row
 */
#include "sched_impl.h"

#include "objectives.h"
#include "optim.h"
#include "err.h"
#include "fsutil.h"
#include "logmsg.h"
#include "result.h"
#include "spec.h"
#include "study.h"
#include "trial.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_RESULTS_PER_BATCH 20000

static int archive_note(struct sched *s, uint64_t id, const char *name,
			const char *note)
{
	char p[STUDY_PATH_MAX], buf[STUDY_NAME_MAX + 16];
	char line[1024];

	snprintf(buf, sizeof(buf), "%s.note", name);
	if (sched_archive_path(s, p, sizeof(p), id, buf))
		return DEHBQ_ETOOBIG;
	snprintf(line, sizeof(line), "%s\n", note);
	return redo_push(&s->redo, REDO_WRITE, NULL, p, line);
}

static int queue_duplicate(struct sched *s, const char *path, uint64_t id,
			   const char *name, const char *why)
{
	char to[STUDY_PATH_MAX], stem[STUDY_NAME_MAX], dup[STUDY_NAME_MAX + 16];
	int rc;

	snprintf(stem, sizeof(stem), "%.*s", (int)strlen(name) - 5, name);
	snprintf(dup, sizeof(dup), "%s.duplicate.json", stem);
	if ((rc = sched_ensure_shard(s, id)))
		return rc;
	if (sched_archive_path(s, to, sizeof(to), id, dup))
		return DEHBQ_ETOOBIG;
	s->meta.duplicates++;
	s->dirty = 1;
	logmsg_i(s->lg, "trial=%08llu result %s archived as duplicate: %s",
		 (unsigned long long)id, name, why);
	if ((rc = redo_push(&s->redo, REDO_MOVE, path, to, NULL)))
		return rc;
	return archive_note(s, id, stem, why);
}

/*
 * A told result: an ok one ends a run of failures; the run reaching
 * runtime.max_failures_in_a_row holds the study (no new trials) until a
 * requeue request.  The count lives in memory only: a restart starts it
 * again, which is how a user resumes after fixing the trainer.
 */
void sched_count_failure(struct sched *s, uint64_t id, const struct result *r)
{
	char why[160], host[ID_HOST_LEN], log[40];
	int max = s->spec->max_failures_in_a_row;

	if (r->status == RESULT_OK || r->status == RESULT_STOPPED) {
		s->fail_run = 0;
		return;
	}
	if (++s->fail_run < max || !max || s->held[0])
		return;
	fsutil_printable(r->error, why, sizeof(why));
	fsutil_printable(r->host, host, sizeof(host));
	study_log_path(log, sizeof(log), "", id, r->attempt, "err");
	snprintf(s->held, sizeof(s->held),
		 "%d results in a row failed; the last, trial %08llu attempt "
		 "%d on %s: %s (its log: %s)",
		 s->fail_run, (unsigned long long)id, r->attempt, host, why,
		 log);
	logmsg_e(s->lg,
		 "holding the study, no new trials: %s. Fix the trainer, "
		 "then run 'dehbq requeue %s --failed' (or 'dehbq stop')",
		 s->held, s->root);
}

/* A requeue request ends a hold: the user has looked at the failures. */
void sched_release_hold(struct sched *s, const char *why)
{
	s->fail_run = 0;
	if (!s->held[0])
		return;
	s->held[0] = 0;
	logmsg_i(s->lg, "hold released by request (%s): issuing trials again",
		 why);
}

/*
 * A result whose trial is not in flight: a duplicate when its token is
 * that of the told trial's archived trial file, else quarantined.
 */
static int result_stray(struct sched *s, const char *path, const char *name,
			uint64_t id, uint64_t token)
{
	char tp[STUDY_PATH_MAX], why[DEHBQ_ERRLEN];
	uint64_t told = 0;
	int rc;

	if (sched_never_issued(s, id, why, sizeof(why))) {
		sched_quarantine(s, "results", name, why);
		return DEHBQ_OK;
	}
	if (study_trial_archive_path(tp, sizeof(tp), s->root, id))
		return DEHBQ_ETOOBIG;
	if (redo_has_to(&s->redo,
			tp)) /* told this batch: the next one decides */
		return DEHBQ_OK;
	rc = sched_told_token(s, id, &told);
	if (rc == DEHBQ_ESYS || rc == DEHBQ_ENOMEM)
		return rc;
	if (!rc && told == token)
		return queue_duplicate(s, path, id, name,
				       "trial already told; not told again");
	snprintf(why, sizeof(why),
		 "trial %08llu is not in flight and this result's token is "
		 "not that of its archived trial file (a result of a trial "
		 "issued under a lost snapshot, or of a copy); not told",
		 (unsigned long long)id);
	sched_quarantine(s, "results", name, why);
	return DEHBQ_OK;
}

/*
 * The trial file that result r's worker ran: claimed/ID@HOST.PID.WID.json,
 * or its stale copy in the archive when its lease expired meanwhile.
 * DEHBQ_OK: it is in-flight trial e as issued, and from is its path; or
 * neither exists, from is "" and *text the trial file rendered as issued.
 * DEHBQ_EINVAL: it is not (why says how); *live is 1 when it is the file
 * in claimed/ (named cname).  Else DEHBQ_ESYS, DEHBQ_ENOMEM.
 */
static int match_claim(struct sched *s, const struct inflight *e,
		       const struct result *r, char *from, size_t size,
		       char *cname, char **text, int *live, char *why, size_t n)
{
	char shard[STUDY_PATH_MAX], sdir[STUDY_ARCHIVE_DIR_LEN];
	char lp[STUDY_PATH_MAX], err[DEHBQ_ERRLEN];
	struct study_claim c;
	struct trial t;
	int rc, rung;

	*text = NULL;
	from[0] = 0;
	memset(&c, 0, sizeof(c));
	c.id = e->id;
	memcpy(c.host, r->host, sizeof(c.host));
	c.pid = r->pid;
	memcpy(c.worker, r->worker, sizeof(c.worker));
	study_archive_dir(sdir, e->id);
	if (study_claim_name(cname, STUDY_NAME_MAX, &c) ||
	    study_join(lp, sizeof(lp), s->root, "claimed", cname) ||
	    study_join(shard, sizeof(shard), s->root, sdir, NULL) ||
	    redo_stale_name(from, size, shard, lp) || strlen(lp) >= size) {
		from[0] = 0; /* no such claim can exist */
		rc = DEHBQ_ENOENT;
	} else {
		rc = sched_load_trial(s, lp, &t, err);
	}
	*live = rc != DEHBQ_ENOENT;
	if (*live)
		memcpy(from, lp, strlen(lp) + 1);
	else if (from[0])
		rc = sched_load_trial(s, from, &t, err);
	if (rc == DEHBQ_ENOENT) {
		from[0] = 0;
		return sched_render_trial(s, e->id, r->attempt, text, &rung);
	}
	if (rc == DEHBQ_EINVAL)
		snprintf(why, n, "cannot be read: %.400s", err);
	if (rc)
		return rc;
	rc = sched_not_issued(s, e, &t, r->attempt, why, n) ? DEHBQ_EINVAL
							    : DEHBQ_OK;
	trial_release(&t);
	return rc;
}

/*
 * The told trial's file becomes archive/SSSS/ID.trial.json: the claim that
 * ran (from), or, when it is gone, the text rendered as issued, unless a
 * file there already has that name (the claim then goes beside it, as
 * stale: redo.h, REDO_MOVE_NEW).
 */
static int archive_run_file(struct sched *s, uint64_t id, const char *from,
			    const char *text)
{
	char tp[STUDY_PATH_MAX];

	if (study_trial_archive_path(tp, sizeof(tp), s->root, id))
		return DEHBQ_ETOOBIG;
	if (from[0])
		return redo_push(&s->redo, REDO_MOVE_NEW, from, tp, NULL);
	if (!text || redo_has_to(&s->redo, tp) || access(tp, F_OK) == 0 ||
	    errno != ENOENT)
		return DEHBQ_OK;
	logmsg_w(s->lg,
		 "trial=%08llu the claim that ran it is gone; its trial file "
		 "is archived as issued",
		 (unsigned long long)id);
	return redo_push(&s->redo, REDO_WRITE, NULL, tp, text);
}

/*
 * Read results/name into r, checked against its name and the study.
 * 1: r is loaded (the caller releases it); 0: nothing to do (gone, being
 * handled, or quarantined here); < 0: -(error) that aborts the batch.
 */
static int load_result(struct sched *s, const char *name, const char *path,
		       uint64_t *id, int *attempt, struct result *r)
{
	char err[DEHBQ_ERRLEN], wid[ID_WORKER_LEN], why[128];
	struct stat st;
	int rc;

	if (redo_has_from(&s->redo, path))
		return 0; /* already handled, waiting for the snapshot */
	if (study_parse_result(name, id, attempt, wid)) {
		sched_quarantine(
			s, "results", name,
			"not a result file name (IIIIIIII.aN.WID.json)");
		return 0;
	}
	/* result_load opens with O_NOFOLLOW | O_NONBLOCK and refuses
	 * anything but a regular file; the lstat names what it is, and
	 * counts its links: a file outside the study hard-linked into
	 * results/ is not read */
	why[0] = 0;
	if (lstat(path, &st) < 0) { /* result_load says what went wrong */
		st.st_mode = S_IFREG;
		st.st_nlink = 1;
	}
	if (!S_ISREG(st.st_mode))
		snprintf(why, sizeof(why),
			 "not a regular file (a directory, symlink or FIFO)");
	else if (st.st_nlink > 1)
		snprintf(why, sizeof(why),
			 "has %lu hard links; a result file must be its only "
			 "name (refused, not read)",
			 (unsigned long)st.st_nlink);
	if (why[0]) {
		sched_quarantine(s, "results", name, why);
		return 0;
	}
	rc = result_load(path, r, err);
	if (rc == DEHBQ_ESYS && errno == ENOENT)
		return 0;
	/* a failing disk aborts the batch (retried); a file we cannot read
	 * (EACCES, ELOOP, ...) is a bad file and goes to quarantine */
	if (rc == DEHBQ_ENOMEM ||
	    (rc == DEHBQ_ESYS && fsutil_storage_errno(errno)))
		return -rc;
	if (rc) {
		sched_quarantine(s, "results", name, err);
		return 0;
	}
	if (strcmp(r->study, s->spec->study) || r->attempt != *attempt ||
	    strcmp(r->worker, wid) || strtoull(r->id, NULL, 10) != *id) {
		result_release(r);
		sched_quarantine(s, "results", name,
				 "id, study, attempt or worker inside does not "
				 "match the file name and study");
		return 0;
	}
	return 1;
}

/*
 * Why result r cannot be told for in-flight trial e (then it is
 * quarantined here, with the claim that ran it when that is the culprit):
 * 1 refused, 0 it may be told, < 0 -(error).  On 0, from/text say which
 * trial file to archive (see match_claim).
 */
static int refuse_result(struct sched *s, const char *name,
			 const struct inflight *e, const struct result *r,
			 char *from, size_t size, char **text)
{
	char cname[STUDY_NAME_MAX], why[DEHBQ_ERRLEN];
	char reason[DEHBQ_ERRLEN + STUDY_NAME_MAX + 64];
	int rc, live = 0;

	if (r->token != e->token) {
		snprintf(why, sizeof(why),
			 "its token is not the one trial %08llu in flight was "
			 "issued with (a result of a trial issued under a "
			 "lost snapshot, or of a copy); not told",
			 (unsigned long long)e->id);
		sched_quarantine(s, "results", name, why);
		return 1;
	}
	if (r->attempt > e->attempt) { /* any issued attempt may win */
		snprintf(why, sizeof(why),
			 "attempt %d was never issued (the trial is at "
			 "attempt %d)",
			 r->attempt, e->attempt);
		sched_quarantine(s, "results", name, why);
		return 1;
	}
	rc = match_claim(s, e, r, from, size, cname, text, &live, why,
			 sizeof(why));
	if (rc != DEHBQ_EINVAL)
		return rc ? -rc : 0;
	snprintf(reason, sizeof(reason),
		 "the trial file it ran (%s%s) %s; not told",
		 live ? "claimed/" : "the archived stale copy of ", cname, why);
	sched_quarantine(s, "results", name, reason);
	if (live)
		sched_quarantine(s, "claimed", cname, why);
	return 1;
}

int sched_tell(struct sched *s, uint64_t id, const struct result *r)
{
	double y[OBJECTIVES_MAX];
	char why[DEHBQ_ERRLEN];
	const struct objectives *ob = &s->spec->obj;
	int ok = r && r->status == RESULT_OK, rc;

	if (r && r->status == RESULT_STOPPED && !ob->n) {
		/* stopped at the optimiser's word (sched_progress.c); a stop
		 * it does not know (a snapshot lost since, a point it has not
		 * read) may follow from the result's own point */
		double f, l;
		int stop;

		if (!optim_reported(s->eng, id, &f, &l, &stop) && !stop &&
		    r->fidelity > f &&
		    optim_report(s->eng, id, r->fidelity, r->loss, &stop) ==
			    DEHBQ_OK)
			s->dirty = 1;
		rc = optim_tell(s->eng, id, OPTIM_STOPPED, r->loss, r->cost);
		if (rc != DEHBQ_EINVAL)
			return rc;
		logmsg_w(s->lg,
			 "trial=%08llu counted as failed: its result says "
			 "stopped, but the optimizer did not stop it",
			 (unsigned long long)id);
	}
	if (!ob->n)
		return optim_tell(s->eng, id, ok ? OPTIM_OK : OPTIM_FAILED,
				  ok ? r->loss : NAN, r ? r->cost : 0);
	if (ok &&
	    objectives_read(ob, r->objectives, y, NULL, why, sizeof(why))) {
		logmsg_w(s->lg, "trial=%08llu counted as failed: %s",
			 (unsigned long long)id, why);
		ok = 0;
	}
	return optim_tell_obj(s->eng, id, ok ? OPTIM_OK : OPTIM_FAILED,
			      ok ? y : NULL, r ? r->cost : 0);
}

static int ingest_result(struct sched *s, const char *name)
{
	char path[STUDY_PATH_MAX], to[STUDY_PATH_MAX], from[STUDY_PATH_MAX];
	char *text = NULL;
	struct result r;
	struct inflight *e;
	uint64_t id;
	int attempt, rc;

	if (study_join(path, sizeof(path), s->root, "results", name))
		return DEHBQ_OK;
	if ((rc = load_result(s, name, path, &id, &attempt, &r)) <= 0)
		return -rc;
	if (!(e = sched_inf_find(s, id))) {
		uint64_t tok = r.token;

		result_release(&r);
		return result_stray(s, path, name, id, tok);
	}
	if ((rc = refuse_result(s, name, e, &r, from, sizeof(from), &text))) {
		result_release(&r);
		return rc < 0 ? -rc : DEHBQ_OK;
	}
	if ((rc = sched_progress_flush(s, id, name))) {
		result_release(&r);
		free(text);
		return rc;
	}
	rc = sched_tell(s, id, &r);
	if (rc) {
		result_release(&r);
		logmsg_e(s->lg, "trial=%08llu engine refused result: %s",
			 (unsigned long long)id, dehbq_strerror(rc));
		free(text);
		return queue_duplicate(s, path, id, name,
				       "the optimiser refused this result");
	}
	if (r.status == RESULT_OK)
		logmsg_i(s->lg,
			 "trial=%08llu attempt=%d told loss=%.6g cost=%.3g "
			 "host=%s",
			 (unsigned long long)id, attempt, r.loss, r.cost,
			 r.host);
	else if (r.status == RESULT_STOPPED)
		logmsg_i(s->lg,
			 "trial=%08llu attempt=%d told stopped at fidelity "
			 "%g loss=%.6g cost=%.3g host=%s",
			 (unsigned long long)id, attempt, r.fidelity, r.loss,
			 r.cost, r.host);
	else
		logmsg_i(s->lg, "trial=%08llu attempt=%d told status=%s (%s)",
			 (unsigned long long)id, attempt,
			 result_status_name(r.status), r.error);
	sched_count_failure(s, id, &r);
	result_release(&r);
	s->dirty = 1;
	sched_inf_remove(s, id);
	/* the trial file first: a reader never sees a result without it */
	if (!(rc = sched_ensure_shard(s, id)) &&
	    !(rc = archive_run_file(s, id, from, text)) &&
	    !(rc = study_archive_file(to, sizeof(to), s->root, id, 0,
				      "result")))
		rc = redo_push(&s->redo, REDO_MOVE, path, to, NULL);
	free(text);
	return rc;
}

static int scan_result(struct sched *s, const char *name, unsigned char dtype)
{
	(void)dtype;
	return ingest_result(s, name);
}

int sched_scan_results(struct sched *s)
{
	return sched_scan_dir(s, "results", scan_result, MAX_RESULTS_PER_BATCH);
}
