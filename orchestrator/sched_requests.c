/*
 * sched_requests.c - owns the requests of the dehbq command in
 * state/requests/: stop, requeue a trial, requeue every failed trial
 */
#include "sched_impl.h"

#include "optim.h"
#include "err.h"
#include "fsutil.h"
#include "id.h"
#include "jsonfile.h"
#include "logmsg.h"
#include "result.h"
#include "spec.h"
#include "study.h"
#include "trial.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

static enum optim_kind optim_kind_of(enum trial_kind k)
{
	return k == TRIAL_KIND_PROMOTION ? OPTIM_KIND_PROMOTION
	       : k == TRIAL_KIND_RANDOM	 ? OPTIM_KIND_RANDOM
					 : OPTIM_KIND_TRIAL;
}

/*
 * Re-run a trial whose result failed: the engine reopens the job (selection
 * applies to the new result, its bracket is not held back), the old result
 * and trial file stay in the archive as ID.aN.result.json / ID.aN.trial.json,
 * and a trial file with the next attempt is published.
 */
static int reopen_failed(struct sched *s, uint64_t id, const char *why)
{
	char tp[STUDY_PATH_MAX], rp[STUDY_PATH_MAX], to[STUDY_PATH_MAX];
	char err[DEHBQ_ERRLEN];
	struct optim_job job;
	struct result r;
	struct trial t;
	uint64_t token;
	int rc, attempt;

	if (study_archive_file(tp, sizeof(tp), s->root, id, 0, "trial") ||
	    study_archive_file(rp, sizeof(rp), s->root, id, 0, "result"))
		return DEHBQ_ETOOBIG;
	if (result_load(rp, &r, err)) {
		logmsg_w(s->lg,
			 "trial=%08llu not requeued (%s): no archived "
			 "result (%s)",
			 (unsigned long long)id, why, err);
		return DEHBQ_OK;
	}
	if (r.status == RESULT_OK) {
		result_release(&r);
		logmsg_w(s->lg,
			 "trial=%08llu not requeued (%s): it has a valid "
			 "result",
			 (unsigned long long)id, why);
		return DEHBQ_OK;
	}
	attempt = r.attempt + 1;
	result_release(&r);
	if (trial_load(tp, s->spec->space, &t, err)) {
		logmsg_w(s->lg, "trial=%08llu not requeued (%s): %s",
			 (unsigned long long)id, why, err);
		return DEHBQ_OK;
	}
	memset(&job, 0, sizeof(job));
	job.id = id;
	job.fidelity = t.fidelity;
	job.bracket = t.bracket;
	job.rung = t.rung;
	job.kind = optim_kind_of(t.kind);
	job.parent = t.parent;
	memcpy(job.state, t.optimizer, sizeof(job.state));
	if (t.attempt >= attempt)
		attempt = t.attempt + 1;
	/* the same issued trial again: its token, and so its work directory */
	token = t.token ? t.token : id_token_new();
	rc = optim_reopen(s->eng, &job, t.vec);
	if (rc) {
		logmsg_w(s->lg,
			 "trial=%08llu not requeued (%s): the optimiser "
			 "cannot reopen it (%s)",
			 (unsigned long long)id, why, dehbq_strerror(rc));
		trial_release(&t);
		return rc == DEHBQ_ENOMEM ? rc : DEHBQ_OK;
	}
	rc = study_archive_file(to, sizeof(to), s->root, id, t.attempt,
				"trial");
	trial_release(&t);
	if (rc || (rc = redo_push(&s->redo, REDO_MOVE, tp, to, NULL)))
		return rc;
	if ((rc = study_archive_file(to, sizeof(to), s->root, id, attempt - 1,
				     "result")) ||
	    (rc = redo_push(&s->redo, REDO_MOVE, rp, to, NULL)) ||
	    (rc = sched_inf_add(s, id, attempt, token)))
		return rc;
	/* a finished study is not finished any more: workers refuse to run
	 * while FINISHED exists, so it goes once the snapshot holds the job */
	if ((rc = study_path(to, sizeof(to), s->root, "FINISHED")) ||
	    (rc = redo_push(&s->redo, REDO_UNLINK, NULL, to, NULL)))
		return rc;
	s->meta.requeues++;
	s->dirty = 1;
	logmsg_i(s->lg,
		 "trial=%08llu failed earlier; requeued by request (%s) "
		 "as attempt %d",
		 (unsigned long long)id, why, attempt);
	return sched_stage_trial(s, id, attempt);
}

/* Archive every claim of trial id as stale (a rare request: a listing). */
static int retire_claims(struct sched *s, uint64_t id)
{
	char p[STUDY_PATH_MAX];
	struct study_claim c;
	struct dirent *d;
	DIR *dir;
	int rc = DEHBQ_OK;

	if (study_path(p, sizeof(p), s->root, "claimed"))
		return DEHBQ_ETOOBIG;
	if (!(dir = opendir(p)))
		return DEHBQ_ESYS;
	while (!rc && (d = readdir(dir)))
		if (!study_parse_claim(d->d_name, &c) && c.id == id)
			rc = sched_retire_stale(s, "claimed", d->d_name, id);
	closedir(dir);
	return rc;
}

static int requeue_now(struct sched *s, uint64_t id, const char *why)
{
	struct inflight *e = sched_inf_find(s, id);
	int rc;

	if (!e)
		return reopen_failed(s, id, why);
	/* retire its current files; a late result still counts if first */
	if ((rc = retire_claims(s, id)))
		return rc;
	e->attempt++;
	s->meta.requeues++;
	s->dirty = 1;
	logmsg_i(s->lg, "trial=%08llu requeued by request (%s) as attempt %d",
		 (unsigned long long)id, why, e->attempt);
	return sched_stage_trial(s, id, e->attempt);
}

/* Every trial whose latest archived result failed (a one-off full scan). */
static int requeue_failed(struct sched *s, const char *why)
{
	char ap[STUDY_PATH_MAX], sp[STUDY_PATH_MAX], fp[STUDY_PATH_MAX];
	char err[DEHBQ_ERRLEN];
	struct dirent *e, *f;
	DIR *a, *d;
	int rc = DEHBQ_OK, n = 0;

	if (study_path(ap, sizeof(ap), s->root, "archive") ||
	    !(a = opendir(ap)))
		return DEHBQ_OK;
	while (!rc && (e = readdir(a))) {
		if (fsutil_skip_name(e->d_name) ||
		    fsutil_pathf(sp, sizeof(sp), "%s/%s", ap, e->d_name) ||
		    !(d = opendir(sp)))
			continue;
		while (!rc && (f = readdir(d))) {
			struct result r;
			uint64_t id;
			char idtext[ID_TRIAL_LEN];

			if (strlen(f->d_name) != 20 ||
			    strcmp(f->d_name + 8, ".result.json"))
				continue;
			memcpy(idtext, f->d_name, 8);
			idtext[8] = 0;
			if (id_trial_parse(idtext, &id) ||
			    fsutil_pathf(fp, sizeof(fp), "%s/%s", sp,
					 f->d_name) ||
			    result_load(fp, &r, err))
				continue;
			if (r.status != RESULT_OK && !sched_inf_find(s, id)) {
				rc = reopen_failed(s, id, why);
				n++;
			}
			result_release(&r);
		}
		closedir(d);
	}
	closedir(a);
	logmsg_i(s->lg, "%s: %d failed trial(s) requeued", why, n);
	return rc;
}

int sched_scan_request(struct sched *s, const char *name, unsigned char dtype)
{
	static const char *const keys[] = {"format", "action", "trial", NULL};
	char p[STUDY_PATH_MAX], err[DEHBQ_ERRLEN], shown[STUDY_NAME_MAX];
	struct jsonfile *jf;
	const char *action = NULL, *trial = NULL;
	size_t n = strlen(name);
	uint64_t id;
	int rc = DEHBQ_OK;

	(void)dtype;

	if (n < 6 || strcmp(name + n - 5, ".json")) {
		sched_quarantine(s, "state/requests", name,
				 "not a request file name (NAME.json, as dehbq "
				 "writes them)");
		return DEHBQ_OK;
	}
	if (study_path(p, sizeof(p), s->root, "state/requests/%s", name))
		return DEHBQ_OK;
	if (redo_has_from(&s->redo, p))
		return DEHBQ_OK;
	fsutil_printable(name, shown, sizeof(shown));
	if (jsonfile_load(p, JSONFILE_CAP, &jf, err)) {
		sched_quarantine(s, "state/requests", name, err);
		return DEHBQ_OK;
	}
	if (jsonfile_check_format(jf, "dehbq-request/1", err) ||
	    jsonfile_check_keys(jf, jsonfile_root(jf), keys, err) ||
	    jsonfile_get_string(jf, jsonfile_root(jf), "action",
				JSONFILE_REQUIRED, &action, err) ||
	    jsonfile_get_string(jf, jsonfile_root(jf), "trial",
				JSONFILE_OPTIONAL, &trial, err)) {
		jsonfile_free(jf);
		sched_quarantine(s, "state/requests", name, err);
		return DEHBQ_OK;
	}
	if (!strcmp(action, "stop")) {
		if (!s->meta.stopping)
			logmsg_i(s->lg,
				 "stop requested (%s): no new trials; "
				 "finishing",
				 shown);
		s->meta.stopping = 1;
		s->dirty = 1;
	} else if (!strcmp(action, "requeue") && trial &&
		   !id_trial_parse(trial, &id)) {
		sched_release_hold(s, shown);
		rc = requeue_now(s, id, shown);
	} else if (!strcmp(action, "requeue-failed")) {
		sched_release_hold(s, shown);
		rc = requeue_failed(s, shown);
	} else {
		jsonfile_free(jf);
		sched_quarantine(s, "state/requests", name,
				 "unknown action or bad trial id (known: stop, "
				 "requeue with \"trial\": \"IIIIIIII\")");
		return DEHBQ_OK;
	}
	jsonfile_free(jf);
	if (rc)
		return rc;
	return redo_push(&s->redo, REDO_UNLINK, NULL, p, NULL);
}
