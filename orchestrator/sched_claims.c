/*
 * sched_claims.c - owns claims and their heartbeats (expiry, requeue,
 * failure after max_attempts), the count of pending/, the worker registry
 * and republishing trials whose file went missing
 */
#include "sched_impl.h"

#include "optim.h"
#include "atomicfile.h"
#include "err.h"
#include "fsutil.h"
#include "lease.h"
#include "logmsg.h"
#include "result.h"
#include "spec.h"
#include "study.h"
#include "timeutil.h"
#include "trial.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Synthetic result for a trial that ran out of attempts, or (stop > 0)
 * whose worker died after the optimiser stopped it: stopped, with its last
 * reported loss at fidelity stop, never requeued.
 */
static int fail_expired(struct sched *s, struct inflight *e, const char *who,
			double stop, double loss)
{
	char to[STUDY_PATH_MAX], *text = NULL;
	struct result r;
	uint64_t id = e->id;
	int rc;

	if ((rc = result_init(&r)))
		return rc;
	snprintf(r.id, sizeof(r.id), "%08llu", (unsigned long long)id);
	memcpy(r.study, s->spec->study, ID_STUDY_LEN);
	r.attempt = e->attempt;
	r.token = e->token;
	r.status = stop > 0 ? RESULT_STOPPED : RESULT_FAILED;
	r.loss = loss;
	r.fidelity = stop;
	memcpy(r.worker, "000000000000", ID_WORKER_LEN);
	snprintf(r.host, sizeof(r.host), "%s", s->lease->host);
	r.pid = s->lease->pid;
	r.started = r.finished = timeutil_now();
	free(r.error);
	r.error = malloc(256);
	if (r.error && stop > 0)
		snprintf(r.error, 256,
			 "lease expired after the optimizer stopped it (last "
			 "worker %s); its last reported loss counts",
			 who);
	else if (r.error)
		snprintf(r.error, 256,
			 "lease expired on attempt %d of %d (last worker %s); "
			 "counted as failed",
			 e->attempt, s->spec->max_attempts, who);
	rc = r.error ? result_render(&r, &text) : DEHBQ_ENOMEM;
	if (!rc)
		rc = sched_tell(s, id, stop > 0 ? &r : NULL);
	result_release(&r);
	if (!rc && !(rc = sched_ensure_shard(s, id)) &&
	    !(rc = study_archive_file(to, sizeof(to), s->root, id, 0,
				      "result")))
		rc = redo_push(&s->redo, REDO_WRITE, NULL, to, text);
	free(text);
	if (rc)
		return rc;
	if (stop > 0)
		logmsg_w(s->lg,
			 "trial=%08llu stopped: its lease expired after the "
			 "stop",
			 (unsigned long long)id);
	else
		logmsg_w(s->lg, "trial=%08llu failed: lease expired %d times",
			 (unsigned long long)id, e->attempt);
	s->meta.expired++;
	s->dirty = 1;
	sched_inf_remove(s, id);
	return DEHBQ_OK;
}

/* The claim's mtime, revalidated: open() forces NFS to refetch attributes. */
static int fresh_mtime(const char *path, double *mt)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? DEHBQ_ENOENT : DEHBQ_ESYS;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return DEHBQ_ESYS;
	}
	close(fd);
	*mt = timeutil_secs(&st.st_mtim);
	return DEHBQ_OK;
}

/*
 * The claim of a trial that has been told becomes archive/SSSS/ID.trial.json
 * (the trial file as it was run), unless that name is taken, in which case
 * it is an older copy and is archived as stale.  Whether the name is taken
 * is found out when the move is done (REDO_MOVE_NEW), except for a name
 * this batch already moves a file to.
 */
static int archive_trial_file(struct sched *s, const char *path,
			      const char *name, uint64_t id)
{
	char to[STUDY_PATH_MAX];
	int rc;

	if (study_trial_archive_path(to, sizeof(to), s->root, id))
		return DEHBQ_ETOOBIG;
	if (redo_has_to(&s->redo, to))
		return sched_retire_stale(s, "claimed", name, id);
	if ((rc = sched_ensure_shard(s, id)))
		return rc;
	return redo_push(&s->redo, REDO_MOVE_NEW, path, to, NULL);
}

/*
 * An expired claim of in-flight trial e: 1 when it is e's current attempt
 * as issued (the caller requeues or fails it); else it is retired here (an
 * older attempt: archived as stale; anything else: quarantined) and the
 * return is DEHBQ_OK, or an error.
 */
static int expired_claim_is_trial(struct sched *s, const struct inflight *e,
				  const char *path, const char *name)
{
	char err[DEHBQ_ERRLEN], why[DEHBQ_ERRLEN];
	struct trial t;
	int rc = sched_load_trial(s, path, &t, err);
	enum sched_fit fit;

	if (rc == DEHBQ_ENOENT)
		return DEHBQ_OK;
	if (rc == DEHBQ_EINVAL)
		sched_quarantine(s, "claimed", name, err);
	if (rc)
		return rc == DEHBQ_EINVAL ? DEHBQ_OK : rc;
	fit = sched_fit(s, e, &t, why, sizeof(why));
	trial_release(&t);
	if (fit == SCHED_FIT_OLDER)
		return sched_retire_stale(s, "claimed", name, e->id);
	if (fit == SCHED_FIT_NONE) {
		sched_quarantine(s, "claimed", name, why);
		return DEHBQ_OK;
	}
	return 1;
}

int sched_scan_claim(struct sched *s, const char *name, unsigned char dtype)
{
	char path[STUDY_PATH_MAX], who[ID_HOST_LEN + 40], pname[STUDY_NAME_MAX];
	struct study_claim c;
	struct inflight *e;
	struct stat st;
	double mt, rf, rl;
	int rc, stop;

	if (study_parse_claim(name, &c)) {
		sched_quarantine(
			s, "claimed", name,
			"not a claim file name (IIIIIIII@HOST.PID.WID.json)");
		return DEHBQ_OK;
	}
	if (study_path(path, sizeof(path), s->root, "claimed/%s", name))
		return DEHBQ_OK;
	if (redo_has_from(&s->redo, path))
		return DEHBQ_OK;
	e = sched_inf_find(s, c.id);
	/* a told trial's claim needs no mtime: readdir's type will do */
	if (e || dtype != DT_REG) {
		if (lstat(path, &st) < 0)
			return errno == ENOENT ? DEHBQ_OK : DEHBQ_ESYS;
		if (!S_ISREG(st.st_mode)) {
			sched_quarantine(s, "claimed", name,
					 "not a regular file");
			return DEHBQ_OK;
		}
	}
	if (!e)
		return sched_retire_stray(s, "claimed", name, c.id);
	e->seen = 1;
	s->nclaimed++;
	mt = timeutil_secs(&st.st_mtim);
	if (s->fs_now - mt <= s->spec->lease)
		return DEHBQ_OK;
	rc = fresh_mtime(path, &mt);
	if (rc == DEHBQ_ENOENT)
		return DEHBQ_OK;
	if (rc)
		return rc;
	if (s->fs_now - mt <= s->spec->lease)
		return DEHBQ_OK;
	s->nclaimed--;
	if ((rc = expired_claim_is_trial(s, e, path, name)) != 1)
		return rc;
	snprintf(who, sizeof(who), "%s:%ld", c.host, c.pid);
	/* what the dead attempt reported counts, and may stop it */
	if (!study_result_name(pname, sizeof(pname), c.id, e->attempt,
			       c.worker) &&
	    (rc = sched_progress_flush(s, c.id, pname)))
		return rc;
	if (optim_reported(s->eng, c.id, &rf, &rl, &stop))
		stop = 0;
	if (e->attempt >= s->spec->max_attempts || stop) {
		/* told: archived, ID.trial.json beside its result */
		if ((rc = archive_trial_file(s, path, name, c.id)))
			return rc;
		return fail_expired(s, e, who, stop ? rf : 0, rl);
	}
	logmsg_w(s->lg,
		 "trial=%08llu claim by %s expired (no heartbeat for %.0f s); "
		 "requeued as attempt %d",
		 (unsigned long long)c.id, who, s->fs_now - mt, e->attempt + 1);
	e->attempt++;
	s->meta.requeues++;
	s->dirty = 1;
	s->npending++;
	if ((rc = sched_retire_stale(s, "claimed", name, c.id)))
		return rc;
	return sched_stage_trial(s, c.id, e->attempt);
}

int sched_scan_pending(struct sched *s, const char *name, unsigned char dtype)
{
	char why[128];
	struct optim_job job;
	struct inflight *e;
	uint64_t id;
	int rung;

	if (study_parse_pending(name, &rung, &id)) {
		sched_quarantine(s, "pending", name,
				 "not a pending file name (PP-IIIIIIII.json)");
		return DEHBQ_OK;
	}
	if (dtype != DT_REG && dtype != DT_UNKNOWN) {
		sched_quarantine(s, "pending", name, "not a regular file");
		return DEHBQ_OK;
	}
	e = sched_inf_find(s, id);
	if (!e) /* told through another attempt, or not ours */
		return sched_retire_stray(s, "pending", name, id);
	if (!optim_job(s->eng, id, &job, NULL) && job.rung != rung) {
		snprintf(why, sizeof(why),
			 "trial %08llu in flight is published at rung %d, not "
			 "under this name",
			 (unsigned long long)id, job.rung);
		sched_quarantine(s, "pending", name, why);
		return DEHBQ_OK;
	}
	e->seen = 1;
	s->npending++;
	return DEHBQ_OK;
}

int sched_scan_worker(struct sched *s, const char *name, unsigned char dtype)
{
	char p[STUDY_PATH_MAX], host[ID_HOST_LEN], wid[ID_WORKER_LEN];
	long pid;
	double mt;

	(void)dtype;

	if (study_parse_worker(name, host, &pid, wid)) {
		sched_quarantine(
			s, "workers", name,
			"not a worker registry name (HOST.PID.WID.json)");
		return DEHBQ_OK;
	}
	if (study_path(p, sizeof(p), s->root, "workers/%s", name) ||
	    timeutil_mtime(p, &mt))
		return DEHBQ_OK;
	if (s->fs_now - mt <= s->spec->lease)
		s->live_workers++;
	else if (s->fs_now - mt > 10 * s->spec->lease)
		atomicfile_get_ops()->unlink(
			p); /* a worker dead for long: forget it */
	return DEHBQ_OK;
}

/*
 * Trials whose staging write failed: stage them again.  After a full
 * batch, in-flight trials with no file anywhere: republish after `lease`.
 */
int sched_check_missing(struct sched *s, int full)
{
	size_t i;
	int rc;

	for (i = 0; i < s->ninf; i++) {
		struct inflight *e = &s->inf[i];

		if (e->unstaged) { /* a storage error interrupted it */
			if ((rc = sched_stage_trial(s, e->id, e->attempt)))
				return rc;
			s->npending++;
			continue;
		}
		if (!full)
			continue;
		if (e->seen) {
			e->missing_since = 0;
			continue;
		}
		if (e->missing_since == 0) {
			e->missing_since = s->fs_now;
			continue;
		}
		if (s->fs_now - e->missing_since <= s->spec->lease)
			continue;
		logmsg_w(s->lg,
			 "trial=%08llu has no file for %.0f s; republished "
			 "(attempt %d)",
			 (unsigned long long)e->id,
			 s->fs_now - e->missing_since, e->attempt);
		e->missing_since = 0;
		if ((rc = sched_stage_trial(s, e->id, e->attempt)))
			return rc;
		s->npending++;
	}
	return DEHBQ_OK;
}
