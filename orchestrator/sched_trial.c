/*
 * sched_trial.c - owns the in-flight table and the trial files the
 * scheduler writes: staging, the archive shards, stale copies, quarantine
 */
#include "sched_impl.h"

#include "atomicfile.h"
#include "optim.h"
#include "err.h"
#include "fsutil.h"
#include "id.h"
#include "lease.h"
#include "logmsg.h"
#include "quarantine.h"
#include "space.h"
#include "spec.h"
#include "study.h"
#include "timeutil.h"
#include "trial.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct inflight *sched_inf_find(struct sched *s, uint64_t id)
{
	size_t lo = 0, hi = s->ninf;

	while (lo < hi) { /* sorted by id: ids are issued in order */
		size_t mid = (lo + hi) / 2;

		if (s->inf[mid].id == id)
			return &s->inf[mid];
		if (s->inf[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int sched_inf_add(struct sched *s, uint64_t id, int attempt, uint64_t token)
{
	struct inflight *e;
	size_t i;

	if (s->ninf == s->capinf) {
		size_t cap = s->capinf ? 2 * s->capinf : 64;
		struct inflight *n = realloc(s->inf, cap * sizeof(*n));

		if (!n)
			return DEHBQ_ENOMEM;
		s->inf = n;
		s->capinf = cap;
	}
	for (i = s->ninf; i > 0 && s->inf[i - 1].id > id; i--)
		;
	memmove(&s->inf[i + 1], &s->inf[i], (s->ninf - i) * sizeof(*e));
	e = &s->inf[i];
	memset(e, 0, sizeof(*e));
	e->id = id;
	e->attempt = attempt;
	e->token = token;
	s->ninf++;
	return DEHBQ_OK;
}

void sched_inf_remove(struct sched *s, uint64_t id)
{
	struct inflight *e = sched_inf_find(s, id);
	size_t i;

	if (!e)
		return;
	i = (size_t)(e - s->inf);
	memmove(e, e + 1, (s->ninf - i - 1) * sizeof(*e));
	s->ninf--;
}

int sched_archive_path(const struct sched *s, char *buf, size_t size,
		       uint64_t id, const char *name)
{
	char dir[STUDY_ARCHIVE_DIR_LEN];

	study_archive_dir(dir, id);
	return study_join(buf, size, s->root, dir, name);
}

/* mkdir the archive shard of id; the last one made is remembered. */
int sched_ensure_shard(struct sched *s, uint64_t id)
{
	char p[STUDY_PATH_MAX], dir[STUDY_ARCHIVE_DIR_LEN];
	unsigned shard = study_shard(id);

	if (s->shard_made == shard + 1)
		return DEHBQ_OK;
	study_archive_dir(dir, id);
	if (study_join(p, sizeof(p), s->root, dir, NULL))
		return DEHBQ_ETOOBIG;
	if (mkdir(p, 0777) < 0 && errno != EEXIST)
		return DEHBQ_ESYS;
	s->shard_made = shard + 1;
	return DEHBQ_OK;
}

/*
 * Move dir/name into quarantine/ beside a reason file (quarantine.h).
 * Quarantine is independent of the optimiser state, so it happens at once.
 */
void sched_quarantine_from(struct sched *s, const char *from, const char *dir,
			   const char *name, const char *why)
{
	char shown[STUDY_NAME_MAX], reason[DEHBQ_ERRLEN], qn[STUDY_NAME_MAX];
	char qshown[STUDY_NAME_MAX];
	int rc, re;

	fsutil_printable(name, shown, sizeof(shown));
	fsutil_printable(why, reason, sizeof(reason));
	rc = quarantine_move(s->root, from, dir, name, why, s->flags, qn,
			     sizeof(qn), &re);
	if (rc == DEHBQ_ENOENT)
		return;
	if (rc) {
		logmsg_w(s->lg, "unable to quarantine '%s/%s': %s", dir, shown,
			 rc == DEHBQ_ESYS ? strerror(errno)
					  : dehbq_strerror(rc));
		return;
	}
	fsutil_printable(qn, qshown, sizeof(qshown));
	if (re)
		logmsg_w(s->lg, "cannot write 'quarantine/%s.reason': %s",
			 qshown, strerror(re));
	s->meta.quarantined++;
	s->dirty = 1;
	logmsg_w(s->lg, "quarantined %s/%s as quarantine/%s: %s", dir, shown,
		 qshown, reason);
}

void sched_quarantine(struct sched *s, const char *dir, const char *name,
		      const char *why)
{
	sched_quarantine_from(s, NULL, dir, name, why);
}

static uint64_t trial_seed(uint64_t study_seed, uint64_t id)
{
	uint64_t z = study_seed * UINT64_C(0x9e3779b97f4a7c15) + id + 1;

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return (z ^ (z >> 31)) & ((UINT64_C(1) << 53) - 1);
}

_Static_assert(TRIAL_STATE_MAX == OPTIM_STATE_MAX,
	       "a trial file carries the optimiser's whole per-trial state");

/* The optimiser's job kinds and the trial file's, one to one. */
static enum trial_kind trial_kind_of(enum optim_kind k)
{
	return k == OPTIM_KIND_PROMOTION ? TRIAL_KIND_PROMOTION
	       : k == OPTIM_KIND_RANDOM	 ? TRIAL_KIND_RANDOM
	       : k == OPTIM_KIND_PRIOR	 ? TRIAL_KIND_PRIOR
					 : TRIAL_KIND_TRIAL;
}

/* Render the in-flight job id as a trial file with this attempt. */
int sched_render_trial(struct sched *s, uint64_t id, int attempt, char **text,
		       int *rung)
{
	struct optim_job job;
	struct trial t;
	int rc;

	if ((rc = optim_job(s->eng, id, &job, s->vec)))
		return rc;
	memset(&t, 0, sizeof(t));
	t.id = id;
	memcpy(t.study, s->spec->study, ID_STUDY_LEN);
	t.epoch = s->lease->epoch;
	t.bracket = job.bracket;
	t.rung = job.rung;
	t.fidelity = job.fidelity;
	t.kind = trial_kind_of(job.kind);
	t.parent = job.parent;
	t.attempt = attempt;
	t.token = sched_inf_find(s, id) ? sched_inf_find(s, id)->token : 0;
	t.created = timeutil_now();
	t.seed = trial_seed(s->spec->seed, id);
	memcpy(t.optimizer, job.state, sizeof(t.optimizer));
	t.dim = space_dim(s->spec->space);
	t.vec = s->vec;
	t.config = s->vals;
	if ((rc = space_decode(s->spec->space, s->vec, s->vals)))
		return rc;
	*rung = job.rung;
	return trial_render(&t, s->spec->space, text);
}

/* Write staging/ID.json and queue its publication. */
int sched_stage_trial(struct sched *s, uint64_t id, int attempt)
{
	char sp[STUDY_PATH_MAX], pp[STUDY_PATH_MAX], name[STUDY_NAME_MAX];
	char *text = NULL;
	int rung = 0, rc;

	if ((rc = sched_render_trial(s, id, attempt, &text, &rung)) ||
	    (rc = sched_ensure_shard(s,
				     id))) /* for the worker's claim_archive */
		goto out;
	if ((rc = study_staging_name(name, sizeof(name), id)) ||
	    (rc = study_join(sp, sizeof(sp), s->root, "staging", name)) ||
	    (rc = study_pending_name(name, sizeof(name), rung, id)) ||
	    (rc = study_join(pp, sizeof(pp), s->root, "pending", name)))
		goto out;
	/* write-ahead: valid once the batch's snapshot names it */
	rc = atomicfile_write_ahead(sp, text, strlen(text), 0666, s->flags);
	if (!rc)
		rc = redo_push(&s->redo, REDO_MOVE, sp, pp, NULL);
out:
	free(text);
	{
		struct inflight *e = sched_inf_find(s, id);

		if (e) /* retried on the next batch, see sched_check_missing()
			*/
			e->unstaged = rc != DEHBQ_OK;
	}
	return rc;
}

int sched_retire_stale(struct sched *s, const char *dir, const char *name,
		       uint64_t id)
{
	char from[STUDY_PATH_MAX], to[STUDY_PATH_MAX], shard[STUDY_PATH_MAX];
	char sdir[STUDY_ARCHIVE_DIR_LEN];
	int rc;

	study_archive_dir(sdir, id);
	if (study_join(from, sizeof(from), s->root, dir, name) ||
	    study_join(shard, sizeof(shard), s->root, sdir, NULL) ||
	    redo_stale_name(to, sizeof(to), shard, from))
		return DEHBQ_ETOOBIG;
	if (redo_has_from(&s->redo, from))
		return DEHBQ_OK;
	if ((rc = sched_ensure_shard(s, id)))
		return rc;
	return redo_push(&s->redo, REDO_MOVE, from, to, NULL);
}
