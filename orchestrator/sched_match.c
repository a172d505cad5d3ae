/*
 * sched_match.c - owns matching a file to its trial: id, attempt, token,
 * and the trial as issued (docs/protocol.md section 6.1)
 *
 * A trial file, claim or result belongs to a trial only when its id, its
 * attempt and its token match what this orchestrator issued.  The token is
 * drawn when the id is issued and kept in every snapshot, so a stale copy,
 * a file issued under a lost snapshot or a forged one never matches; a
 * claim is also compared with the engine's job (fidelity and vector)
 * before it becomes ID.trial.json.  Whatever does not match goes to
 * quarantine/, never into the archive under a real id.
 */
#include "sched_impl.h"

#include "optim.h"
#include "err.h"
#include "fsutil.h"
#include "spec.h"
#include "study.h"
#include "trial.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* trial_load() of path: DEHBQ_OK; DEHBQ_ENOENT (gone); DEHBQ_EINVAL (bad
 * file, err says why); DEHBQ_ESYS (storage, errno) or DEHBQ_ENOMEM. */
int sched_load_trial(struct sched *s, const char *path, struct trial *t,
		     char *err)
{
	int rc = trial_load(path, s->spec->space, t, err);

	if (rc == DEHBQ_ESYS && errno == ENOENT)
		return DEHBQ_ENOENT;
	if (rc == DEHBQ_ENOMEM ||
	    (rc == DEHBQ_ESYS && fsutil_storage_errno(errno)))
		return rc;
	return rc ? DEHBQ_EINVAL : DEHBQ_OK;
}

/* The token of told trial id's archived trial file (as sched_load_trial). */
int sched_told_token(struct sched *s, uint64_t id, uint64_t *tok)
{
	char p[STUDY_PATH_MAX], err[DEHBQ_ERRLEN];
	struct trial t;
	int rc;

	if (study_trial_archive_path(p, sizeof(p), s->root, id))
		return DEHBQ_ETOOBIG;
	if ((rc = sched_load_trial(s, p, &t, err)))
		return rc;
	*tok = t.id == id ? t.token : 0;
	rc = t.id == id ? DEHBQ_OK : DEHBQ_EINVAL;
	trial_release(&t);
	return rc;
}

/*
 * Why trial file t is not in-flight trial e as issued, or NULL when it is.
 * attempt: the attempt t must have, or 0 for any attempt issued so far.
 */
const char *sched_not_issued(struct sched *s, const struct inflight *e,
			     const struct trial *t, int attempt, char *why,
			     size_t n)
{
	struct optim_job job;
	int i;

	if (t->id != e->id || strcmp(t->study, s->spec->study))
		snprintf(why, n, "its id or study is not trial %08llu's",
			 (unsigned long long)e->id);
	else if (t->token != e->token)
		snprintf(why, n,
			 "its token is not the one trial %08llu was issued "
			 "with (a file issued under a lost snapshot, or a "
			 "copy)",
			 (unsigned long long)e->id);
	else if (attempt ? t->attempt != attempt : t->attempt > e->attempt)
		snprintf(why, n, "its attempt %d is not the one that ran",
			 t->attempt);
	else if (optim_job(s->eng, e->id, &job, s->vec) ||
		 job.fidelity != t->fidelity)
		snprintf(why, n, "its fidelity is not the issued one");
	else {
		for (i = 0; i < t->dim; i++)
			if (t->vec[i] != s->vec[i])
				break;
		if (i == t->dim)
			return NULL;
		snprintf(why, n,
			 "its configuration is not the issued one (vector "
			 "entry %d)",
			 i);
	}
	return why;
}

enum sched_fit sched_fit(struct sched *s, const struct inflight *e,
			 const struct trial *t, char *why, size_t n)
{
	if (t->attempt < e->attempt &&
	    !sched_not_issued(s, e, t, t->attempt, why, n))
		return SCHED_FIT_OLDER;
	return sched_not_issued(s, e, t, e->attempt, why, n)
		       ? SCHED_FIT_NONE
		       : SCHED_FIT_CURRENT;
}

/* 1 when trial id was never issued by this study's current state. */
int sched_never_issued(const struct sched *s, uint64_t id, char *why, size_t n)
{
	struct optim_counts c;

	optim_counts(s->eng, &c);
	if (id < (uint64_t)c.asked)
		return 0;
	snprintf(why, n,
		 "trial %08llu was never issued: the study has issued %lld "
		 "(a file issued under a lost snapshot, or not written by "
		 "this study's orchestrator)",
		 (unsigned long long)id, (long long)c.asked);
	return 1;
}

/*
 * A file in pending/ or claimed/ whose trial is not in flight.  A copy of
 * a told trial's own file (its id and token are those of the archived
 * ID.trial.json) is archived as stale; anything else is quarantined.
 */
int sched_retire_stray(struct sched *s, const char *dir, const char *name,
		       uint64_t id)
{
	char p[STUDY_PATH_MAX], tp[STUDY_PATH_MAX], err[DEHBQ_ERRLEN];
	char why[DEHBQ_ERRLEN];
	uint64_t told = 0;
	struct trial t;
	int rc, same;

	if (study_join(p, sizeof(p), s->root, dir, name) ||
	    study_trial_archive_path(tp, sizeof(tp), s->root, id))
		return DEHBQ_ETOOBIG;
	if (redo_has_from(&s->redo, p))
		return DEHBQ_OK;
	if (sched_never_issued(s, id, why, sizeof(why))) {
		sched_quarantine(s, dir, name, why);
		return DEHBQ_OK;
	}
	if (redo_has_to(&s->redo,
			tp)) /* told this batch: the next one decides */
		return DEHBQ_OK;
	rc = sched_load_trial(s, p, &t, err);
	if (rc == DEHBQ_ENOENT)
		return DEHBQ_OK;
	if (rc == DEHBQ_EINVAL)
		sched_quarantine(s, dir, name, err);
	if (rc)
		return rc == DEHBQ_EINVAL ? DEHBQ_OK : rc;
	same = t.id == id && !strcmp(t.study, s->spec->study);
	rc = sched_told_token(s, id, &told);
	same = same && !rc && told == t.token;
	trial_release(&t);
	if (rc == DEHBQ_ESYS || rc == DEHBQ_ENOMEM)
		return rc;
	if (same)
		return sched_retire_stale(s, dir, name, id);
	snprintf(why, sizeof(why),
		 rc ? "trial %08llu has no readable archived trial file to "
		      "match it with; not archived under its id"
		    : "its id or token is not that of trial %08llu's archived "
		      "trial file (a file issued under a lost snapshot, or a "
		      "copy); not archived under its id",
		 (unsigned long long)id);
	sched_quarantine(s, dir, name, why);
	return DEHBQ_OK;
}
