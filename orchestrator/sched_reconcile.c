/*
 * sched_reconcile.c - owns matching the directory to the snapshot at start
 * (docs/protocol.md section 8): staged trials, pending and claimed files,
 * and, after a fallback past a lost snapshot, the archive
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
#include "trial.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* 1 when the staged file at path is in-flight trial e's current attempt. */
static int staged_is_current(struct sched *s, const char *path,
			     const struct inflight *e)
{
	char err[DEHBQ_ERRLEN];
	struct trial t;
	int ok;

	if (trial_load(path, s->spec->space, &t, err))
		return 0;
	ok = !strcmp(t.study, s->spec->study) && t.id == e->id &&
	     t.attempt == e->attempt && t.token == e->token;
	trial_release(&t);
	return ok;
}

static int reconcile_staging(struct sched *s, const char *name,
			     unsigned char dtype)
{
	char p[STUDY_PATH_MAX], pp[STUDY_PATH_MAX], pn[STUDY_NAME_MAX];
	struct inflight *e;
	uint64_t id;

	(void)dtype;
	if (study_path(p, sizeof(p), s->root, "staging/%s", name))
		return DEHBQ_OK;
	if (study_parse_staging(name, &id)) {
		sched_quarantine(s, "staging", name, "not a staging file name");
		return DEHBQ_OK;
	}
	e = sched_inf_find(s, id);
	if (!e || !staged_is_current(s, p, e)) {
		atomicfile_get_ops()->unlink(
			p); /* never published: safe to drop */
		return DEHBQ_OK;
	}
	{
		struct optim_job job;

		if (optim_job(s->eng, id, &job, NULL) ||
		    study_pending_name(pn, sizeof(pn), job.rung, id) ||
		    study_path(pp, sizeof(pp), s->root, "pending/%s", pn))
			return DEHBQ_OK;
	}
	e->seen = 1;
	if (redo_has_from(&s->redo, p))
		return DEHBQ_OK;
	return redo_push(&s->redo, REDO_MOVE, p, pp, NULL);
}

/*
 * At start, pending/ and claimed/ files are matched to the trials in
 * flight: older attempts are retired as stale, files of no trial in flight
 * go through sched_retire_stray(), and what does not match is quarantined.
 */
static int reconcile_public(struct sched *s, const char *dir, const char *name)
{
	char p[STUDY_PATH_MAX], err[DEHBQ_ERRLEN], why[DEHBQ_ERRLEN];
	struct study_claim c;
	struct inflight *e;
	struct trial t;
	enum sched_fit fit;
	uint64_t id;
	int rung, rc;

	if (!strcmp(dir, "pending") ? study_parse_pending(name, &rung, &id)
				    : study_parse_claim(name, &c))
		return DEHBQ_OK; /* the batch scan quarantines it */
	if (strcmp(dir, "pending"))
		id = c.id;
	if (!(e = sched_inf_find(s, id)))
		return sched_retire_stray(s, dir, name, id);
	if (study_join(p, sizeof(p), s->root, dir, name) ||
	    redo_has_from(&s->redo, p))
		return DEHBQ_OK;
	rc = sched_load_trial(s, p, &t, err);
	if (rc == DEHBQ_EINVAL)
		sched_quarantine(s, dir, name, err);
	if (rc)
		return rc == DEHBQ_EINVAL || rc == DEHBQ_ENOENT ? DEHBQ_OK : rc;
	fit = sched_fit(s, e, &t, why, sizeof(why));
	trial_release(&t);
	if (fit == SCHED_FIT_OLDER)
		return sched_retire_stale(s, dir, name, id);
	if (fit == SCHED_FIT_NONE)
		sched_quarantine(s, dir, name, why);
	return DEHBQ_OK;
}

static int rec_pending(struct sched *s, const char *name, unsigned char dtype)
{
	(void)dtype;
	return reconcile_public(s, "pending", name);
}

static int rec_claimed(struct sched *s, const char *name, unsigned char dtype)
{
	(void)dtype;
	return reconcile_public(s, "claimed", name);
}

/*
 * 1 when archive/ holds a file: an empty shard is not history, since a
 * first batch makes the shard of its trials before its first snapshot.
 */
int sched_archive_has_files(const char *path, int depth)
{
	char sub[STUDY_PATH_MAX];
	struct dirent *e;
	struct stat st;
	DIR *d = opendir(path);
	int found = 0;

	if (!d)
		return 0;
	while (!found && (e = readdir(d))) {
		if (fsutil_skip_name(e->d_name))
			continue;
		found = 1;
		if (depth == 0 &&
		    snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name) <
			    (int)sizeof(sub) &&
		    !lstat(sub, &st) && S_ISDIR(st.st_mode))
			found = sched_archive_has_files(sub, 1);
	}
	closedir(d);
	return found;
}

/*
 * After falling back to an older snapshot, ids at or above the count it
 * has issued were issued under the lost newer one and will be issued
 * again, with new tokens: their archive files are not these trials'
 * history.  They go to quarantine/ (the data is kept, under
 * archive.NAME), so the re-issued trials can never be paired with them.
 */
static int quarantine_lost_issues(struct sched *s)
{
	char dir[STUDY_PATH_MAX], p[STUDY_PATH_MAX], why[200];
	char sdir[STUDY_ARCHIVE_DIR_LEN];
	struct optim_counts c;
	struct dirent *de;
	uint64_t id, sh;
	int moved;
	DIR *d;

	optim_counts(s->eng, &c);
	for (sh = study_shard((uint64_t)c.asked);; sh++) {
		study_archive_dir(sdir, sh * 10000);
		if (study_join(dir, sizeof(dir), s->root, sdir, NULL))
			return DEHBQ_ETOOBIG;
		do { /* a directory changed while read may hide an entry */
			if (!(d = opendir(dir)))
				return errno == ENOENT ? DEHBQ_OK : DEHBQ_ESYS;
			moved = 0;
			while ((de = readdir(d))) {
				if (fsutil_skip_name(de->d_name) ||
				    study_archive_name_id(de->d_name, &id) ||
				    id < (uint64_t)c.asked ||
				    fsutil_pathf(p, sizeof(p), "%s/%s", dir,
						 de->d_name))
					continue;
				snprintf(why, sizeof(why),
					 "trial %08llu was issued under a lost "
					 "snapshot and is issued again; this "
					 "file is not its history",
					 (unsigned long long)id);
				sched_quarantine_from(s, p, "archive",
						      de->d_name, why);
				moved = 1;
			}
			closedir(d);
		} while (moved);
	}
}

/*
 * After falling back to an older snapshot, some trials it counts in flight
 * may already have an archived result (told and archived under the lost
 * newer snapshot).  The archive is the history: tell them from there, when
 * the result is theirs (the same token).  One that is not is quarantined.
 */
int sched_retell(struct sched *s)
{
	static const char lost[] = "its token is not that of the trial in "
				   "flight under this id (issued under a "
				   "lost snapshot)";
	char p[STUDY_PATH_MAX], err[DEHBQ_ERRLEN], name[ID_TRIAL_LEN + 12];
	size_t i = 0;
	int rc;

	while (i < s->ninf) {
		struct inflight *e = &s->inf[i];
		uint64_t id = e->id;
		struct result r;

		id_trial_format(id, name);
		memcpy(name + ID_TRIAL_LEN - 1, ".result.json", 13);
		if (sched_archive_path(s, p, sizeof(p), id, name) ||
		    access(p, F_OK) < 0 || result_load(p, &r, err)) {
			i++;
			continue;
		}
		if (r.token != e->token) {
			uint64_t told = 0;

			result_release(&r);
			sched_quarantine_from(s, p, "archive", name, lost);
			memcpy(name + ID_TRIAL_LEN - 1, ".trial.json", 12);
			if (!sched_told_token(s, id, &told) &&
			    told != e->token &&
			    !sched_archive_path(s, p, sizeof(p), id, name))
				sched_quarantine_from(s, p, "archive", name,
						      lost);
			i++;
			continue;
		}
		rc = sched_tell(s, id, &r);
		result_release(&r);
		if (rc) {
			i++;
			continue;
		}
		logmsg_w(s->lg,
			 "trial=%08llu re-told from its archived result "
			 "(newer snapshot was lost)",
			 (unsigned long long)id);
		s->dirty = 1;
		sched_inf_remove(s, id); /* e now points at the next entry */
	}
	return quarantine_lost_issues(s);
}

int sched_reconcile(struct sched *s, char *err)
{
	int rc;

	if ((rc = lease_fs_now(s->root, &s->fs_now)) ||
	    (rc = sched_scan_dir(s, "staging", reconcile_staging, 1 << 30)) ||
	    (rc = sched_scan_dir(s, "pending", rec_pending, 1 << 30)) ||
	    (rc = sched_scan_dir(s, "claimed", rec_claimed, 1 << 30)))
		return dehbq_errf(err, rc, "unable to reconcile '%s': %s",
				  s->root, strerror(errno));
	return DEHBQ_OK;
}
