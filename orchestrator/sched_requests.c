/*
 * sched_requests.c - owns the requests of the dehbq command in
 * state/requests/: stop, requeue a trial, requeue every failed trial,
 * extend the budget
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
	       : k == TRIAL_KIND_PRIOR	 ? OPTIM_KIND_PRIOR
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
	if (result_has_loss(&r)) { /* ok or stopped: done */
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
			if (!result_has_loss(&r) && !sched_inf_find(s, id)) {
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

/*
 * dehbq extend: add "add"'s amounts to the optimiser's limits.  A stopped
 * or finished study runs again: the stop is withdrawn and FINISHED goes
 * once the snapshot holds the new limits.  A request the optimiser refuses
 * (a limit the study does not have) is quarantined with the reason, and
 * DEHBQ_EINVAL says so to the caller.
 */
static int extend_now(struct sched *s, const struct jsonfile *jf,
		      const cJSON *add, const char *name, const char *shown,
		      char *err)
{
	static const char *const keys[] = {"fevals", "brackets", "walltime",
					   "total_cost", NULL};
	const double big = 9007199254740992.0; /* 2^53 */
	struct optim_limits old, lim;
	char to[STUDY_PATH_MAX];
	int64_t fe = 0, br = 0;
	double wt = 0, tc = 0;
	int rc;

	if ((rc = jsonfile_check_keys(jf, add, keys, err)) ||
	    (rc = jsonfile_get_int(jf, add, "fevals", JSONFILE_OPTIONAL, 1,
				   (int64_t)big, &fe, err)) ||
	    (rc = jsonfile_get_int(jf, add, "brackets", JSONFILE_OPTIONAL, 1,
				   (int64_t)big, &br, err)) ||
	    (rc = jsonfile_get_number(jf, add, "walltime", JSONFILE_OPTIONAL,
				      1e-3, big, &wt, err)) ||
	    (rc = jsonfile_get_number(jf, add, "total_cost", JSONFILE_OPTIONAL,
				      1e-9, big, &tc, err)) ||
	    (!fe && !br && !wt && !tc &&
	     (rc = dehbq_errf(err, DEHBQ_EINVAL,
			      "extend: nothing to add (fevals, brackets, "
			      "walltime or total_cost)")))) {
		sched_quarantine(s, "state/requests", name, err);
		return DEHBQ_EINVAL;
	}
	optim_limits(s->eng, &old);
	lim = old;
	lim.fevals += fe;
	lim.brackets += br;
	lim.walltime += wt;
	lim.cost += tc;
	if ((rc = optim_extend(s->eng, &lim, err))) {
		if (rc == DEHBQ_ENOMEM)
			return rc;
		sched_quarantine(s, "state/requests", name, err);
		return DEHBQ_EINVAL;
	}
	s->meta.stopping = 0;
	if ((rc = study_path(to, sizeof(to), s->root, "FINISHED")) ||
	    (rc = redo_push(&s->redo, REDO_UNLINK, NULL, to, NULL)))
		return rc;
	s->dirty = 1;
	logmsg_i(s->lg,
		 "budget extended by request (%s): fevals %lld, brackets "
		 "%lld, walltime %g s, total cost %g (was %lld, %lld, %g, %g; "
		 "0: no limit)",
		 shown, (long long)lim.fevals, (long long)lim.brackets,
		 lim.walltime, lim.cost, (long long)old.fevals,
		 (long long)old.brackets, old.walltime, old.cost);
	return DEHBQ_OK;
}

int sched_scan_request(struct sched *s, const char *name, unsigned char dtype)
{
	static const char *const keys[] = {"format", "action", "trial", "add",
					   NULL};
	char p[STUDY_PATH_MAX], err[DEHBQ_ERRLEN], shown[STUDY_NAME_MAX];
	struct jsonfile *jf;
	const char *action = NULL, *trial = NULL;
	const cJSON *add = NULL;
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
				JSONFILE_OPTIONAL, &trial, err) ||
	    jsonfile_get_object(jf, jsonfile_root(jf), "add", JSONFILE_OPTIONAL,
				&add, err)) {
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
	} else if (!strcmp(action, "extend") && add) {
		rc = extend_now(s, jf, add, name, shown, err);
		if (rc == DEHBQ_EINVAL) { /* quarantined: nothing to unlink */
			jsonfile_free(jf);
			return DEHBQ_OK;
		}
	} else {
		jsonfile_free(jf);
		sched_quarantine(s, "state/requests", name,
				 "unknown action or bad trial id (known: stop, "
				 "requeue with \"trial\": \"IIIIIIII\", "
				 "requeue-failed, extend with \"add\")");
		return DEHBQ_OK;
	}
	jsonfile_free(jf);
	if (rc)
		return rc;
	return redo_push(&s->redo, REDO_UNLINK, NULL, p, NULL);
}
