/*
 * sched.c - the orchestrator's batch: results -> engine -> new trials
 *
 * Invariants (docs/protocol.md sections 6 and 8):
 *   - write-ahead: a trial is published (staging -> pending) only after a
 *     durable snapshot lists it in flight;
 *   - archive-after-snapshot: a result leaves results/ only after a
 *     durable snapshot includes its tell;
 *   - the engine is told at most once per trial id; later results for it
 *     are duplicates and are archived with a note;
 *   - the in-flight table holds exactly the engine's in-flight jobs, each
 *     with the attempt number of its newest trial file.
 * Every action that must wait for the snapshot is queued in `acts` and
 * applied by apply_actions() once snapshot_write() has succeeded.
 */
#include "sched.h"

#include "atomicfile.h"
#include "dehb.h"
#include "err.h"
#include "fsutil.h"
#include "jscratch.h"
#include "jsonbuf.h"
#include "jsonfile.h"
#include "lease.h"
#include "logmsg.h"
#include "quarantine.h"
#include "result.h"
#include "snapshot.h"
#include "space.h"
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

#define MAX_RESULTS_PER_BATCH 20000
#define TMP_MAX_AGE	      3600.0 /* dotfiles older than this are removed */
#define STATUS_MIN_INTERVAL   0.1    /* light batches' status.json, see below */
#define MAX_HINTS	      64     /* result names a light batch reads */
#define HINT_LEN	      48     /* longer: not a result name; list */

struct inflight {
	uint64_t id;	      /* trial id */
	int attempt;	      /* attempt of its newest trial file */
	uint64_t token;	      /* drawn when it was issued (id.h) */
	int seen;	      /* found in staging/pending/claimed by the last
				 full batch */
	double missing_since; /* fs time it was first missing; 0 = present */
	int unstaged;	      /* its trial file could not be written yet */
};

/* How a trial file stands against the in-flight trial of its id. */
enum fit {
	FIT_CURRENT, /* its current attempt, as issued */
	FIT_OLDER,   /* an older attempt of it, as issued */
	FIT_NONE,    /* not this issued trial */
};

enum act_type {
	ACT_MOVE,     /* rename from -> to */
	ACT_WRITE,    /* write text to `to` */
	ACT_UNLINK,   /* remove `to` */
	ACT_MOVE_NEW, /* rename from -> to, or beside it as stale if taken */
	ACT_NTYPES
};

struct act {
	enum act_type type; /* what to do */
	char *from;	    /* ACT_MOVE, ACT_MOVE_NEW source */
	char *to;	    /* destination path */
	char *text;	    /* ACT_WRITE content */
};

struct sched {
	const char *root;	   /* study directory, borrowed */
	struct spec *spec;	   /* borrowed */
	struct lease *lease;	   /* borrowed */
	struct logmsg *lg;	   /* borrowed */
	struct sched_opts opts;	   /* options */
	struct dehb *eng;	   /* owned engine */
	struct snapshot_meta meta; /* snapshot header and counters */
	struct inflight *inf;	   /* in-flight table */
	size_t ninf, capinf;	   /* its length and capacity */
	struct act *acts;	   /* actions waiting for the snapshot */
	uint32_t *aidx;		   /* hash set over acts' paths: 0 = empty,
				      else 1 + index * 2 + (0 from, 1 to) */
	size_t aidxcap;		   /* its size, a power of 2 */
	size_t nacts, capacts;	   /* their count and capacity */
	int dirty;		   /* engine or table changed since snapshot */
	double fs_now;		   /* filesystem clock this batch */
	double mono_start;	   /* monotonic time at open */
	double elapsed_base;	   /* elapsed time loaded from the snapshot */
	int live_workers;	   /* registry files with a fresh heartbeat */
	int nclaimed;		   /* claims of in-flight trials */
	int npending;		   /* pending or staged in-flight trials */
	long long told;		   /* tells since open */
	double last_progress;	  /* monotonic time of the last progress line */
	double last_status;	  /* monotonic time status.json was written */
	double *vec;		  /* scratch vector, dim entries */
	struct space_value *vals; /* scratch config, dim entries */
	unsigned flags;		  /* atomicfile flags for moves */
	unsigned shard_made;	  /* 1 + the archive shard last made, or 0 */
	int nsnaps;		  /* snapshots this process wrote */
	int cwd_is_root;	  /* "." is root: see sys_path() */
	int fail_run;		  /* told results that failed in a row */
	char held[384];		  /* why no new trial is issued, or "" */
	char hint[MAX_HINTS][HINT_LEN]; /* sched_hint()'s names */
	int nhints;			/* their number */
	int hints_lost;			/* some were not kept: list */
	long left_pending;		/* sched_claims() since the batch */
	int left_lost;			/* ... or unknown: list pending/ */
};

/* ---- small helpers ---- */

static double elapsed(const struct sched *s)
{
	return s->elapsed_base + (timeutil_mono() - s->mono_start);
}

static struct inflight *inf_find(struct sched *s, uint64_t id)
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

static int inf_add(struct sched *s, uint64_t id, int attempt, uint64_t token)
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

static void inf_remove(struct sched *s, uint64_t id)
{
	struct inflight *e = inf_find(s, id);
	size_t i;

	if (!e)
		return;
	i = (size_t)(e - s->inf);
	memmove(e, e + 1, (s->ninf - i - 1) * sizeof(*e));
	s->ninf--;
}

/*
 * The queued actions are looked up by path for every file a batch scans
 * ("is this file already being moved?"), so they are indexed by a hash set
 * of their source and target paths: O(1) instead of O(queue) per file.
 */
static uint64_t path_hash(const char *p)
{
	uint64_t h = UINT64_C(1469598103934665603); /* FNV-1a */

	while (*p)
		h = (h ^ (unsigned char)*p++) * UINT64_C(1099511628211);
	return h;
}

static void aidx_put(struct sched *s, const char *path, uint32_t v)
{
	size_t mask = s->aidxcap - 1, i = path_hash(path) & mask;

	while (s->aidx[i])
		i = (i + 1) & mask;
	s->aidx[i] = v;
}

/* Rebuild the index for the current acts, at least 4x their paths. */
static int aidx_rebuild(struct sched *s, size_t want)
{
	size_t cap = 64, k;

	while (cap < 4 * want)
		cap *= 2;
	if (cap != s->aidxcap) {
		uint32_t *n = calloc(cap, sizeof(*n));

		if (!n)
			return DEHBQ_ENOMEM;
		free(s->aidx);
		s->aidx = n;
		s->aidxcap = cap;
	} else {
		memset(s->aidx, 0, cap * sizeof(*s->aidx));
	}
	for (k = 0; k < s->nacts; k++) {
		if (s->acts[k].from)
			aidx_put(s, s->acts[k].from, (uint32_t)(1 + 2 * k));
		aidx_put(s, s->acts[k].to, (uint32_t)(2 + 2 * k));
	}
	return DEHBQ_OK;
}

/* Is path the source (want_to = 0) or target (1) of a queued action? */
static int act_has(const struct sched *s, const char *path, int want_to)
{
	size_t mask, i;

	if (!s->aidxcap)
		return 0;
	mask = s->aidxcap - 1;
	for (i = path_hash(path) & mask; s->aidx[i]; i = (i + 1) & mask) {
		uint32_t v = s->aidx[i] - 1;
		const struct act *a = &s->acts[v / 2];
		const char *q = (v & 1) ? a->to : a->from;

		if ((int)(v & 1) == want_to && !strcmp(q, path))
			return 1;
	}
	return 0;
}

static int act_has_from(const struct sched *s, const char *from)
{
	return act_has(s, from, 0);
}

static int act_has_to(const struct sched *s, const char *to)
{
	return act_has(s, to, 1);
}

static int act_push(struct sched *s, enum act_type t, const char *from,
		    const char *to, const char *text)
{
	struct act *a;

	if (s->nacts == s->capacts) {
		size_t cap = s->capacts ? 2 * s->capacts : 64;
		struct act *n = realloc(s->acts, cap * sizeof(*n));

		if (!n)
			return DEHBQ_ENOMEM;
		s->acts = n;
		s->capacts = cap;
	}
	a = &s->acts[s->nacts];
	a->type = t;
	a->from = from ? strdup(from) : NULL;
	a->to = strdup(to);
	a->text = text ? strdup(text) : NULL;
	if ((from && !a->from) || !a->to || (text && !a->text)) {
		free(a->from);
		free(a->to);
		free(a->text);
		return DEHBQ_ENOMEM;
	}
	s->nacts++;
	if (2 * s->nacts * 4 > s->aidxcap)
		return aidx_rebuild(s, 2 * s->nacts);
	if (a->from)
		aidx_put(s, a->from, (uint32_t)(1 + 2 * (s->nacts - 1)));
	aidx_put(s, a->to, (uint32_t)(2 + 2 * (s->nacts - 1)));
	return DEHBQ_OK;
}

static void acts_clear(struct sched *s)
{
	size_t i;

	for (i = 0; i < s->nacts; i++) {
		free(s->acts[i].from);
		free(s->acts[i].to);
		free(s->acts[i].text);
	}
	s->nacts = 0;
	if (s->aidx)
		memset(s->aidx, 0, s->aidxcap * sizeof(*s->aidx));
}

/* ---- the redo list: queued actions, persisted in every snapshot ---- */

static const char *act_names[ACT_NTYPES] = {"move", "write", "unlink",
					    "move-new"};

/* Path relative to the study root (every act path is inside it). */
static const char *rel_path(const struct sched *s, const char *abs)
{
	size_t n = strlen(s->root);

	return strncmp(abs, s->root, n) || abs[n] != '/' ? abs : abs + n + 1;
}

/* The path to hand to a system call: relative when cwd is the root. */
static const char *sys_path(const struct sched *s, const char *abs)
{
	return s->cwd_is_root ? rel_path(s, abs) : abs;
}

/* A relative path from a snapshot: inside one of our directories. */
static int rel_ok(const char *p)
{
	static const char *const top[] = {
		"staging/", "pending/",	       "claimed/", "results/",
		"archive/", "state/requests/", NULL};
	int i;

	for (i = 0; top[i]; i++)
		if (!strncmp(p, top[i], strlen(top[i])))
			break;
	if (!top[i] || strstr(p, "..") || strstr(p, "//"))
		return 0;
	for (; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return 0;
	return 1;
}

/* The redo list as compact JSON text (caller frees); NULL: no memory. */
static char *acts_to_text(const struct sched *s)
{
	struct jsonbuf b;
	size_t i;

	jsonbuf_init(&b);
	jsonbuf_put(&b, "[", 1);
	for (i = 0; i < s->nacts; i++) {
		const struct act *a = &s->acts[i];

		jsonbuf_puts(&b, i ? ",{\"op\":" : "{\"op\":");
		jsonbuf_str(&b, act_names[a->type]);
		if (a->from) {
			jsonbuf_puts(&b, ",\"from\":");
			jsonbuf_str(&b, rel_path(s, a->from));
		}
		jsonbuf_puts(&b, ",\"to\":");
		jsonbuf_str(&b, rel_path(s, a->to));
		if (a->text) {
			jsonbuf_puts(&b, ",\"text\":");
			jsonbuf_str(&b, a->text);
		}
		jsonbuf_put(&b, "}", 1);
	}
	jsonbuf_put(&b, "]", 1);
	return jsonbuf_take(&b);
}

static int acts_from_json(struct sched *s, const cJSON *arr, char *err)
{
	const cJSON *o;
	int i = -1;

	cJSON_ArrayForEach(o, arr)
	{
		const cJSON *op = cJSON_GetObjectItemCaseSensitive(o, "op");
		const cJSON *from = cJSON_GetObjectItemCaseSensitive(o, "from");
		const cJSON *to = cJSON_GetObjectItemCaseSensitive(o, "to");
		const cJSON *text = cJSON_GetObjectItemCaseSensitive(o, "text");
		char f[STUDY_PATH_MAX], t[STUDY_PATH_MAX];
		int type, moves;

		i++;
		for (type = 0; type < ACT_NTYPES; type++)
			if (cJSON_IsString(op) &&
			    !strcmp(op->valuestring, act_names[type]))
				break;
		moves = type == ACT_MOVE || type == ACT_MOVE_NEW;
		if (type == ACT_NTYPES || !cJSON_IsString(to) ||
		    !rel_ok(to->valuestring) ||
		    (moves &&
		     (!cJSON_IsString(from) || !rel_ok(from->valuestring))) ||
		    (type == ACT_WRITE && !cJSON_IsString(text)) ||
		    study_path(t, sizeof(t), s->root, "%s", to->valuestring) ||
		    (moves && study_path(f, sizeof(f), s->root, "%s",
					 from->valuestring)))
			return dehbq_errf(
				err, DEHBQ_EINVAL,
				"state/snapshot-%06lld-%010lld.json: redo[%d]: "
				"unknown op, or a path outside the study's "
				"directories; move this snapshot aside to "
				"resume from the previous one",
				(long long)s->meta.epoch,
				(long long)s->meta.generation, i);
		if (act_push(s, (enum act_type)type, moves ? f : NULL, t,
			     type == ACT_WRITE ? text->valuestring : NULL))
			return DEHBQ_ENOMEM;
	}
	return DEHBQ_OK;
}

static int archive_path(const struct sched *s, char *buf, size_t size,
			uint64_t id, const char *name)
{
	char dir[STUDY_ARCHIVE_DIR_LEN];

	study_archive_dir(dir, id);
	return study_join(buf, size, s->root, dir, name);
}

/* mkdir the archive shard of id; the last one made is remembered. */
static int ensure_shard(struct sched *s, uint64_t id)
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
static void quarantine_from(struct sched *s, const char *from, const char *dir,
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

static void quarantine(struct sched *s, const char *dir, const char *name,
		       const char *why)
{
	quarantine_from(s, NULL, dir, name, why);
}

/* Remove our dotfiles (crashed atomic writes) older than an hour. */
static void sweep_tmp(struct sched *s, const char *dir, const char *name)
{
	char p[STUDY_PATH_MAX];
	double mt;

	if (strncmp(name, ".", 1) || !strstr(name, ".tmp") ||
	    study_path(p, sizeof(p), s->root, "%s/%s", dir, name))
		return;
	if (!timeutil_mtime(p, &mt) && s->fs_now - mt > TMP_MAX_AGE)
		unlink(p);
}

/* ---- trial files ---- */

static uint64_t trial_seed(uint64_t study_seed, uint64_t id)
{
	uint64_t z = study_seed * UINT64_C(0x9e3779b97f4a7c15) + id + 1;

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return (z ^ (z >> 31)) & ((UINT64_C(1) << 53) - 1);
}

/* The engine's job kinds and the trial file's, one to one. */
static enum trial_kind trial_kind_of(enum dehb_kind k)
{
	return k == DEHB_KIND_PROMOTION ? TRIAL_KIND_PROMOTION
	       : k == DEHB_KIND_RANDOM	? TRIAL_KIND_RANDOM
					: TRIAL_KIND_TRIAL;
}

static enum dehb_kind dehb_kind_of(enum trial_kind k)
{
	return k == TRIAL_KIND_PROMOTION ? DEHB_KIND_PROMOTION
	       : k == TRIAL_KIND_RANDOM	 ? DEHB_KIND_RANDOM
					 : DEHB_KIND_TRIAL;
}

/* Render the in-flight job id as a trial file with this attempt. */
static int render_trial(struct sched *s, uint64_t id, int attempt, char **text,
			int *rung)
{
	struct dehb_job job;
	struct trial t;
	int rc;

	if ((rc = dehb_job_get(s->eng, id, &job, s->vec)))
		return rc;
	memset(&t, 0, sizeof(t));
	t.id = id;
	memcpy(t.study, s->spec->study, ID_STUDY_LEN);
	t.epoch = s->lease->epoch;
	t.bracket = job.bracket;
	t.rung = job.rung;
	t.fidelity = job.fidelity;
	t.kind = trial_kind_of(job.kind);
	t.parent = job.parent_job;
	t.attempt = attempt;
	t.token = inf_find(s, id) ? inf_find(s, id)->token : 0;
	t.created = timeutil_now();
	t.seed = trial_seed(s->spec->seed, id);
	t.level = job.level;
	t.slot = job.slot;
	t.config_id = job.config_id;
	t.dim = space_dim(s->spec->space);
	t.vec = s->vec;
	t.vec_text = dehb_job_xtext(s->eng, id); /* NULL: from vec */
	t.config = s->vals;
	if ((rc = space_decode(s->spec->space, s->vec, s->vals)))
		return rc;
	*rung = job.rung;
	return trial_render(&t, s->spec->space, text);
}

/* Write staging/ID.json and queue its publication. */
static int stage_trial(struct sched *s, uint64_t id, int attempt)
{
	char sp[STUDY_PATH_MAX], pp[STUDY_PATH_MAX], name[STUDY_NAME_MAX];
	char *text = NULL;
	int rung = 0, rc;

	if ((rc = render_trial(s, id, attempt, &text, &rung)) ||
	    (rc = ensure_shard(s, id))) /* for the worker's claim_archive */
		goto out;
	id_trial_format(id, name);
	memcpy(name + ID_TRIAL_LEN - 1, ".json", 6);
	if ((rc = study_join(sp, sizeof(sp), s->root, "staging", name)) ||
	    (rc = study_pending_name(name, sizeof(name), rung, id)) ||
	    (rc = study_join(pp, sizeof(pp), s->root, "pending", name)))
		goto out;
	/* write-ahead: valid once the batch's snapshot names it */
	rc = atomicfile_write_ahead(sys_path(s, sp), text, strlen(text), 0666,
				    s->flags);
	if (!rc)
		rc = act_push(s, ACT_MOVE, sp, pp, NULL);
out:
	free(text);
	{
		struct inflight *e = inf_find(s, id);

		if (e) /* retried on the next batch, see check_missing() */
			e->unstaged = rc != DEHBQ_OK;
	}
	return rc;
}

/*
 * The name a retired or older copy of `from` (.../DIR/NAME.json, always
 * inside the study) takes in the archive directory dir:
 * dir/DIR.NAME.stale.json.
 */
static int stale_name(char *buf, size_t size, const char *dir, const char *from)
{
	const char *name = strrchr(from, '/'), *d;
	size_t n;

	if (!name || (n = strlen(name + 1)) < 5)
		return DEHBQ_ETOOBIG;
	for (d = name; d > from && d[-1] != '/'; d--)
		;
	return fsutil_pathf(buf, size, "%s/%.*s.%.*s.stale.json", dir,
			    (int)(name - d), d, (int)n - 5, name + 1);
}

static int move_to_archive_stale(struct sched *s, const char *dir,
				 const char *name, uint64_t id)
{
	char from[STUDY_PATH_MAX], to[STUDY_PATH_MAX], shard[STUDY_PATH_MAX];
	char sdir[STUDY_ARCHIVE_DIR_LEN];
	int rc;

	study_archive_dir(sdir, id);
	if (study_join(from, sizeof(from), s->root, dir, name) ||
	    study_join(shard, sizeof(shard), s->root, sdir, NULL) ||
	    stale_name(to, sizeof(to), shard, from))
		return DEHBQ_ETOOBIG;
	if (act_has_from(s, from))
		return DEHBQ_OK;
	if ((rc = ensure_shard(s, id)))
		return rc;
	return act_push(s, ACT_MOVE, from, to, NULL);
}

/*
 * ---- matching a file to its trial (docs/protocol.md section 6.1) ----
 *
 * A trial file, claim or result belongs to a trial only when its id, its
 * attempt and its token match what this orchestrator issued.  The token is
 * drawn when the id is issued and kept in every snapshot, so a stale copy,
 * a file issued under a lost snapshot or a forged one never matches; a
 * claim is also compared with the engine's job (fidelity and vector)
 * before it becomes ID.trial.json.  Whatever does not match goes to
 * quarantine/, never into the archive under a real id.
 */

/* trial_load() of path: DEHBQ_OK; DEHBQ_ENOENT (gone); DEHBQ_EINVAL (bad
 * file, err says why); DEHBQ_ESYS (storage, errno) or DEHBQ_ENOMEM. */
static int load_trial_file(struct sched *s, const char *path, struct trial *t,
			   char *err)
{
	int rc = trial_load(sys_path(s, path), s->spec->space, t, err);

	if (rc == DEHBQ_ESYS && errno == ENOENT)
		return DEHBQ_ENOENT;
	if (rc == DEHBQ_ENOMEM ||
	    (rc == DEHBQ_ESYS && fsutil_storage_errno(errno)))
		return rc;
	return rc ? DEHBQ_EINVAL : DEHBQ_OK;
}

/* The token of told trial id's archived trial file (as load_trial_file). */
static int told_token(struct sched *s, uint64_t id, uint64_t *tok)
{
	char p[STUDY_PATH_MAX], err[DEHBQ_ERRLEN];
	struct trial t;
	int rc;

	if (study_trial_archive_path(p, sizeof(p), s->root, id))
		return DEHBQ_ETOOBIG;
	if ((rc = load_trial_file(s, p, &t, err)))
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
static const char *not_issued(struct sched *s, const struct inflight *e,
			      const struct trial *t, int attempt, char *why,
			      size_t n)
{
	struct dehb_job job;
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
	else if (dehb_job_get(s->eng, e->id, &job, s->vec) ||
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

static enum fit fit_of(struct sched *s, const struct inflight *e,
		       const struct trial *t, char *why, size_t n)
{
	if (t->attempt < e->attempt && !not_issued(s, e, t, t->attempt, why, n))
		return FIT_OLDER;
	return not_issued(s, e, t, e->attempt, why, n) ? FIT_NONE : FIT_CURRENT;
}

/* 1 when trial id was never issued by this study's current state. */
static int never_issued(const struct sched *s, uint64_t id, char *why, size_t n)
{
	struct dehb_counts c;

	dehb_get_counts(s->eng, &c);
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
static int retire_stray(struct sched *s, const char *dir, const char *name,
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
	if (act_has_from(s, p))
		return DEHBQ_OK;
	if (never_issued(s, id, why, sizeof(why))) {
		quarantine(s, dir, name, why);
		return DEHBQ_OK;
	}
	if (act_has_to(s, tp)) /* told this batch: the next one decides */
		return DEHBQ_OK;
	rc = load_trial_file(s, p, &t, err);
	if (rc == DEHBQ_ENOENT)
		return DEHBQ_OK;
	if (rc == DEHBQ_EINVAL)
		quarantine(s, dir, name, err);
	if (rc)
		return rc == DEHBQ_EINVAL ? DEHBQ_OK : rc;
	same = t.id == id && !strcmp(t.study, s->spec->study);
	rc = told_token(s, id, &told);
	same = same && !rc && told == t.token;
	trial_release(&t);
	if (rc == DEHBQ_ESYS || rc == DEHBQ_ENOMEM)
		return rc;
	if (same)
		return move_to_archive_stale(s, dir, name, id);
	snprintf(why, sizeof(why),
		 rc ? "trial %08llu has no readable archived trial file to "
		      "match it with; not archived under its id"
		    : "its id or token is not that of trial %08llu's archived "
		      "trial file (a file issued under a lost snapshot, or a "
		      "copy); not archived under its id",
		 (unsigned long long)id);
	quarantine(s, dir, name, why);
	return DEHBQ_OK;
}

/* ---- results ---- */

static int archive_note(struct sched *s, uint64_t id, const char *name,
			const char *note)
{
	char p[STUDY_PATH_MAX], buf[STUDY_NAME_MAX + 16];
	char line[1024];

	snprintf(buf, sizeof(buf), "%s.note", name);
	if (archive_path(s, p, sizeof(p), id, buf))
		return DEHBQ_ETOOBIG;
	snprintf(line, sizeof(line), "%s\n", note);
	return act_push(s, ACT_WRITE, NULL, p, line);
}

static int queue_duplicate(struct sched *s, const char *path, uint64_t id,
			   const char *name, const char *why)
{
	char to[STUDY_PATH_MAX], stem[STUDY_NAME_MAX];
	int rc;

	snprintf(stem, sizeof(stem), "%.*s", (int)strlen(name) - 5, name);
	if ((rc = ensure_shard(s, id)))
		return rc;
	if (archive_path(s, to, sizeof(to), id, stem) ||
	    strlen(to) + 16 > sizeof(to))
		return DEHBQ_ETOOBIG;
	strcat(to, ".duplicate.json");
	s->meta.duplicates++;
	s->dirty = 1;
	logmsg_i(s->lg, "trial=%08llu result %s archived as duplicate: %s",
		 (unsigned long long)id, name, why);
	if ((rc = act_push(s, ACT_MOVE, path, to, NULL)))
		return rc;
	return archive_note(s, id, stem, why);
}

/*
 * A told result: an ok one ends a run of failures; the run reaching
 * runtime.max_failures_in_a_row holds the study (no new trials) until a
 * requeue request.  The count lives in memory only: a restart starts it
 * again, which is how a user resumes after fixing the trainer.
 */
static void count_failure(struct sched *s, uint64_t id, const struct result *r)
{
	char why[160], host[ID_HOST_LEN];
	int max = s->spec->max_failures_in_a_row;

	if (r->status == RESULT_OK) {
		s->fail_run = 0;
		return;
	}
	if (++s->fail_run < max || !max || s->held[0])
		return;
	fsutil_printable(r->error, why, sizeof(why));
	fsutil_printable(r->host, host, sizeof(host));
	snprintf(s->held, sizeof(s->held),
		 "%d results in a row failed; the last, trial %08llu attempt "
		 "%d on %s: %s (its log: logs/%04u/%08llu.a%d.err)",
		 s->fail_run, (unsigned long long)id, r->attempt, host, why,
		 study_shard(id), (unsigned long long)id, r->attempt);
	logmsg_e(s->lg,
		 "holding the study, no new trials: %s. Fix the trainer, "
		 "then run 'dehbq requeue %s --failed' (or 'dehbq stop')",
		 s->held, s->root);
}

/* A requeue request ends a hold: the user has looked at the failures. */
static void release_hold(struct sched *s, const char *why)
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

	if (never_issued(s, id, why, sizeof(why))) {
		quarantine(s, "results", name, why);
		return DEHBQ_OK;
	}
	if (study_trial_archive_path(tp, sizeof(tp), s->root, id))
		return DEHBQ_ETOOBIG;
	if (act_has_to(s, tp)) /* told this batch: the next one decides */
		return DEHBQ_OK;
	rc = told_token(s, id, &told);
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
	quarantine(s, "results", name, why);
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
	    stale_name(from, size, shard, lp) || strlen(lp) >= size) {
		from[0] = 0; /* no such claim can exist */
		rc = DEHBQ_ENOENT;
	} else {
		rc = load_trial_file(s, lp, &t, err);
	}
	*live = rc != DEHBQ_ENOENT;
	if (*live)
		memcpy(from, lp, strlen(lp) + 1);
	else if (from[0])
		rc = load_trial_file(s, from, &t, err);
	if (rc == DEHBQ_ENOENT) {
		from[0] = 0;
		return render_trial(s, e->id, r->attempt, text, &rung);
	}
	if (rc == DEHBQ_EINVAL)
		snprintf(why, n, "cannot be read: %.400s", err);
	if (rc)
		return rc;
	rc = not_issued(s, e, &t, r->attempt, why, n) ? DEHBQ_EINVAL : DEHBQ_OK;
	trial_release(&t);
	return rc;
}

/*
 * The told trial's file becomes archive/SSSS/ID.trial.json: the claim that
 * ran (from), or, when it is gone, the text rendered as issued, unless a
 * file there already has that name (see archive_trial_file).
 */
static int archive_run_file(struct sched *s, uint64_t id, const char *from,
			    const char *text)
{
	char tp[STUDY_PATH_MAX];

	if (study_trial_archive_path(tp, sizeof(tp), s->root, id))
		return DEHBQ_ETOOBIG;
	if (from[0])
		return act_push(s, ACT_MOVE_NEW, from, tp, NULL);
	if (!text || act_has_to(s, tp) || access(sys_path(s, tp), F_OK) == 0 ||
	    errno != ENOENT)
		return DEHBQ_OK;
	logmsg_w(s->lg,
		 "trial=%08llu the claim that ran it is gone; its trial file "
		 "is archived as issued",
		 (unsigned long long)id);
	return act_push(s, ACT_WRITE, NULL, tp, text);
}

static int ingest_result(struct sched *s, const char *name)
{
	char path[STUDY_PATH_MAX], err[DEHBQ_ERRLEN], to[STUDY_PATH_MAX];
	char wid[ID_WORKER_LEN], an[ID_TRIAL_LEN + 12]; /* archived name */
	char from[STUDY_PATH_MAX], cname[STUDY_NAME_MAX], why[DEHBQ_ERRLEN];
	char *text = NULL;
	struct result r;
	struct inflight *e;
	struct stat st;
	uint64_t id;
	int attempt, rc, live = 0;

	if (study_join(path, sizeof(path), s->root, "results", name))
		return DEHBQ_OK;
	if (act_has_from(s, path))
		return DEHBQ_OK; /* already handled, waiting for the snapshot */
	if (study_parse_result(name, &id, &attempt, wid)) {
		quarantine(s, "results", name,
			   "not a result file name (IIIIIIII.aN.WID.json)");
		return DEHBQ_OK;
	}
	/* result_load opens with O_NOFOLLOW | O_NONBLOCK and refuses
	 * anything but a regular file; the lstat is for its links: a file
	 * outside the study hard-linked into results/ is not read */
	if (lstat(sys_path(s, path), &st) == 0 && st.st_nlink > 1) {
		snprintf(why, sizeof(why),
			 "has %lu hard links; a result file must be its only "
			 "name (refused, not read)",
			 (unsigned long)st.st_nlink);
		quarantine(s, "results", name, why);
		return DEHBQ_OK;
	}
	jscratch_begin();
	/* r is malloc'd, so it outlives the scope */
	rc = result_load(sys_path(s, path), &r, err);
	jscratch_end();
	if (rc == DEHBQ_ESYS && errno == ENOENT)
		return DEHBQ_OK;
	/* a failing disk aborts the batch (retried); a file we cannot read
	 * (EACCES, ELOOP, ...) is a bad file and goes to quarantine */
	if (rc == DEHBQ_ENOMEM ||
	    (rc == DEHBQ_ESYS && fsutil_storage_errno(errno)))
		return rc;
	if (rc) {
		quarantine(s, "results", name, err);
		return DEHBQ_OK;
	}
	if (strcmp(r.study, s->spec->study) || r.attempt != attempt ||
	    strcmp(r.worker, wid) || strtoull(r.id, NULL, 10) != id) {
		result_release(&r);
		quarantine(s, "results", name,
			   "id, study, attempt or worker inside does not "
			   "match the file name and study");
		return DEHBQ_OK;
	}
	e = inf_find(s, id);
	if (!e) {
		uint64_t tok = r.token;

		result_release(&r);
		return result_stray(s, path, name, id, tok);
	}
	if (r.token != e->token) {
		result_release(&r);
		snprintf(why, sizeof(why),
			 "its token is not the one trial %08llu in flight was "
			 "issued with (a result of a trial issued under a "
			 "lost snapshot, or of a copy); not told",
			 (unsigned long long)id);
		quarantine(s, "results", name, why);
		return DEHBQ_OK;
	}
	if (attempt > e->attempt) { /* any issued attempt may win; not this */
		result_release(&r);
		snprintf(why, sizeof(why),
			 "attempt %d was never issued (the trial is at "
			 "attempt %d)",
			 attempt, e->attempt);
		quarantine(s, "results", name, why);
		return DEHBQ_OK;
	}
	rc = match_claim(s, e, &r, from, sizeof(from), cname, &text, &live, why,
			 sizeof(why));
	if (rc == DEHBQ_EINVAL) {
		char reason[DEHBQ_ERRLEN + STUDY_NAME_MAX + 64];

		result_release(&r);
		snprintf(reason, sizeof(reason),
			 "the trial file it ran (%s%s) %s; not told",
			 live ? "claimed/" : "the archived stale copy of ",
			 cname, why);
		quarantine(s, "results", name, reason);
		if (live)
			quarantine(s, "claimed", cname, why);
		return DEHBQ_OK;
	}
	if (rc) {
		result_release(&r);
		return rc;
	}
	rc = dehb_tell(s->eng, id,
		       r.status == RESULT_OK ? DEHB_OK : DEHB_FAILED,
		       r.status == RESULT_OK ? r.loss : NAN, r.cost);
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
	else
		logmsg_i(s->lg, "trial=%08llu attempt=%d told status=%s (%s)",
			 (unsigned long long)id, attempt,
			 result_status_name(r.status), r.error);
	count_failure(s, id, &r);
	result_release(&r);
	s->told++;
	s->dirty = 1;
	id_trial_format(id, an);
	memcpy(an + ID_TRIAL_LEN - 1, ".result.json", 13);
	inf_remove(s, id);
	/* the trial file first: a reader never sees a result without it */
	if (!(rc = ensure_shard(s, id)) &&
	    !(rc = archive_run_file(s, id, from, text)) &&
	    !(rc = archive_path(s, to, sizeof(to), id, an)))
		rc = act_push(s, ACT_MOVE, path, to, NULL);
	free(text);
	return rc;
}

/* ---- directory scans ---- */

/* dtype: the entry's d_type from readdir(), DT_UNKNOWN if not known */
typedef int (*scan_fn)(struct sched *s, const char *name, unsigned char dtype);

static int scan_dir(struct sched *s, const char *dir, scan_fn fn, int cap)
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

static int scan_result(struct sched *s, const char *name, unsigned char dtype)
{
	(void)dtype;
	return ingest_result(s, name);
}

void sched_hint(struct sched *s, const char *name)
{
	if (!name || s->nhints == MAX_HINTS || strlen(name) >= HINT_LEN)
		s->hints_lost = 1;
	else
		memcpy(s->hint[s->nhints++], name, strlen(name) + 1);
}

/* results/: the hinted names in a light batch, else a listing. */
static int scan_results(struct sched *s, int full)
{
	int i, rc = DEHBQ_OK;

	if (full || s->hints_lost)
		rc = scan_dir(s, "results", scan_result, MAX_RESULTS_PER_BATCH);
	else
		for (i = 0; i < s->nhints && !rc; i++)
			if (!fsutil_skip_name(s->hint[i]))
				rc = ingest_result(s, s->hint[i]);
	s->nhints = s->hints_lost = 0;
	return rc;
}

/* Synthetic result for a trial that ran out of attempts. */
static int fail_expired(struct sched *s, struct inflight *e, const char *who)
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
	r.status = RESULT_FAILED;
	memcpy(r.worker, "000000000000", ID_WORKER_LEN);
	snprintf(r.host, sizeof(r.host), "%s", s->lease->host);
	r.pid = s->lease->pid;
	r.started = r.finished = timeutil_now();
	free(r.error);
	r.error = malloc(256);
	if (r.error)
		snprintf(r.error, 256,
			 "lease expired on attempt %d of %d (last worker %s); "
			 "counted as failed",
			 e->attempt, s->spec->max_attempts, who);
	rc = r.error ? result_render(&r, &text) : DEHBQ_ENOMEM;
	result_release(&r);
	if (rc)
		return rc;
	rc = dehb_tell(s->eng, id, DEHB_FAILED, NAN, 0);
	if (!rc && !(rc = ensure_shard(s, id)) &&
	    !(rc = archive_path(s, to, sizeof(to), id, ""))) {
		snprintf(to + strlen(to), sizeof(to) - strlen(to),
			 "%08llu.result.json", (unsigned long long)id);
		rc = act_push(s, ACT_WRITE, NULL, to, text);
	}
	free(text);
	if (rc)
		return rc;
	logmsg_w(s->lg, "trial=%08llu failed: lease expired %d times",
		 (unsigned long long)id, e->attempt);
	s->meta.expired++;
	s->told++;
	s->dirty = 1;
	inf_remove(s, id);
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
 * is found out when the move is done (ACT_MOVE_NEW), except for a name
 * this batch already moves a file to.
 */
static int archive_trial_file(struct sched *s, const char *path,
			      const char *name, uint64_t id)
{
	char to[STUDY_PATH_MAX];
	int rc;

	if (study_trial_archive_path(to, sizeof(to), s->root, id))
		return DEHBQ_ETOOBIG;
	if (act_has_to(s, to))
		return move_to_archive_stale(s, "claimed", name, id);
	if ((rc = ensure_shard(s, id)))
		return rc;
	return act_push(s, ACT_MOVE_NEW, path, to, NULL);
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
	int rc = load_trial_file(s, path, &t, err);
	enum fit fit;

	if (rc == DEHBQ_ENOENT)
		return DEHBQ_OK;
	if (rc == DEHBQ_EINVAL)
		quarantine(s, "claimed", name, err);
	if (rc)
		return rc == DEHBQ_EINVAL ? DEHBQ_OK : rc;
	fit = fit_of(s, e, &t, why, sizeof(why));
	trial_release(&t);
	if (fit == FIT_OLDER)
		return move_to_archive_stale(s, "claimed", name, e->id);
	if (fit == FIT_NONE) {
		quarantine(s, "claimed", name, why);
		return DEHBQ_OK;
	}
	return 1;
}

static int scan_claim(struct sched *s, const char *name, unsigned char dtype)
{
	char path[STUDY_PATH_MAX], who[ID_HOST_LEN + 40];
	struct study_claim c;
	struct inflight *e;
	struct stat st;
	double mt;
	int rc;

	if (study_parse_claim(name, &c)) {
		quarantine(
			s, "claimed", name,
			"not a claim file name (IIIIIIII@HOST.PID.WID.json)");
		return DEHBQ_OK;
	}
	if (study_path(path, sizeof(path), s->root, "claimed/%s", name))
		return DEHBQ_OK;
	if (act_has_from(s, path))
		return DEHBQ_OK;
	e = inf_find(s, c.id);
	/* a told trial's claim needs no mtime: readdir's type will do */
	if (e || dtype != DT_REG) {
		if (lstat(sys_path(s, path), &st) < 0)
			return errno == ENOENT ? DEHBQ_OK : DEHBQ_ESYS;
		if (!S_ISREG(st.st_mode)) {
			quarantine(s, "claimed", name, "not a regular file");
			return DEHBQ_OK;
		}
	}
	if (!e)
		return retire_stray(s, "claimed", name, c.id);
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
	if (e->attempt >= s->spec->max_attempts) {
		/* failed: archived as told, ID.trial.json beside its result */
		if ((rc = archive_trial_file(s, path, name, c.id)))
			return rc;
		return fail_expired(s, e, who);
	}
	logmsg_w(s->lg,
		 "trial=%08llu claim by %s expired (no heartbeat for %.0f s); "
		 "requeued as attempt %d",
		 (unsigned long long)c.id, who, s->fs_now - mt, e->attempt + 1);
	e->attempt++;
	s->meta.requeues++;
	s->dirty = 1;
	s->npending++;
	if ((rc = move_to_archive_stale(s, "claimed", name, c.id)))
		return rc;
	return stage_trial(s, c.id, e->attempt);
}

static int scan_pending(struct sched *s, const char *name, unsigned char dtype)
{
	char why[128];
	struct dehb_job job;
	struct inflight *e;
	uint64_t id;
	int rung;

	if (study_parse_pending(name, &rung, &id)) {
		quarantine(s, "pending", name,
			   "not a pending file name (PP-IIIIIIII.json)");
		return DEHBQ_OK;
	}
	if (dtype != DT_REG && dtype != DT_UNKNOWN) {
		quarantine(s, "pending", name, "not a regular file");
		return DEHBQ_OK;
	}
	e = inf_find(s, id);
	if (!e) /* told through another attempt, or not ours */
		return retire_stray(s, "pending", name, id);
	if (!dehb_job_get(s->eng, id, &job, NULL) && job.rung != rung) {
		snprintf(why, sizeof(why),
			 "trial %08llu in flight is published at rung %d, not "
			 "under this name",
			 (unsigned long long)id, job.rung);
		quarantine(s, "pending", name, why);
		return DEHBQ_OK;
	}
	e->seen = 1;
	s->npending++;
	return DEHBQ_OK;
}

void sched_claims(struct sched *s, long n)
{
	if (n < 0)
		s->left_lost = 1;
	else
		s->left_pending += n;
}

/* pending/: counted in a light batch (from the last batch's count and the
 * files that left since), else listed.  prev: the last batch's count. */
static int scan_pendings(struct sched *s, int full, int prev)
{
	int rc = DEHBQ_OK;

	if (full || s->left_lost)
		rc = scan_dir(s, "pending", scan_pending, 1 << 30);
	else
		s->npending = prev > s->left_pending
				      ? prev - (int)s->left_pending
				      : 0;
	s->left_pending = s->left_lost = 0;
	return rc;
}

static int scan_worker(struct sched *s, const char *name, unsigned char dtype)
{
	char p[STUDY_PATH_MAX], host[ID_HOST_LEN], wid[ID_WORKER_LEN];
	long pid;
	double mt;

	(void)dtype;

	if (study_parse_worker(name, host, &pid, wid)) {
		quarantine(s, "workers", name,
			   "not a worker registry name (HOST.PID.WID.json)");
		return DEHBQ_OK;
	}
	if (study_path(p, sizeof(p), s->root, "workers/%s", name) ||
	    timeutil_mtime(p, &mt))
		return DEHBQ_OK;
	if (s->fs_now - mt <= s->spec->lease)
		s->live_workers++;
	else if (s->fs_now - mt > 10 * s->spec->lease)
		unlink(p); /* a worker dead for long: forget it */
	return DEHBQ_OK;
}

/* ---- requests from the dehbq command ---- */

/*
 * Re-run a trial whose result failed: the engine reopens the job (selection
 * applies to the new result, its bracket is not held back), the old result
 * and trial file stay in the archive as ID.aN.result.json / ID.aN.trial.json,
 * and a trial file with the next attempt is published.
 */
static int reopen_failed(struct sched *s, uint64_t id, const char *why)
{
	char tp[STUDY_PATH_MAX], rp[STUDY_PATH_MAX], to[STUDY_PATH_MAX];
	char err[DEHBQ_ERRLEN], name[64];
	struct dehb_job job;
	struct result r;
	struct trial t;
	uint64_t token;
	int rc, attempt;

	snprintf(name, sizeof(name), "%08llu.trial.json",
		 (unsigned long long)id);
	if (archive_path(s, tp, sizeof(tp), id, name))
		return DEHBQ_ETOOBIG;
	snprintf(name, sizeof(name), "%08llu.result.json",
		 (unsigned long long)id);
	if (archive_path(s, rp, sizeof(rp), id, name))
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
	job.level = t.level;
	job.bracket = t.bracket;
	job.rung = t.rung;
	job.kind = dehb_kind_of(t.kind);
	job.slot = t.slot;
	job.config_id = t.config_id;
	job.parent_job = t.parent;
	if (t.attempt >= attempt)
		attempt = t.attempt + 1;
	/* the same issued trial again: its token, and so its work directory */
	token = t.token ? t.token : id_token_new();
	rc = t.level < 0 || t.config_id < 0 ||
			     dehb_level_fidelity(s->eng, t.level) != t.fidelity
		     ? DEHBQ_EINVAL
		     : dehb_reopen(s->eng, &job, t.vec);
	if (rc) {
		logmsg_w(s->lg,
			 "trial=%08llu not requeued (%s): the optimiser "
			 "cannot reopen it (%s)",
			 (unsigned long long)id, why, dehbq_strerror(rc));
		trial_release(&t);
		return rc == DEHBQ_ENOMEM ? rc : DEHBQ_OK;
	}
	snprintf(name, sizeof(name), "%08llu.a%d.trial.json",
		 (unsigned long long)id, t.attempt);
	trial_release(&t);
	if ((rc = archive_path(s, to, sizeof(to), id, name)) ||
	    (rc = act_push(s, ACT_MOVE, tp, to, NULL)))
		return rc;
	snprintf(name, sizeof(name), "%08llu.a%d.result.json",
		 (unsigned long long)id, attempt - 1);
	if ((rc = archive_path(s, to, sizeof(to), id, name)) ||
	    (rc = act_push(s, ACT_MOVE, rp, to, NULL)) ||
	    (rc = inf_add(s, id, attempt, token)))
		return rc;
	s->meta.requeues++;
	s->dirty = 1;
	logmsg_i(s->lg,
		 "trial=%08llu failed earlier; requeued by request (%s) "
		 "as attempt %d",
		 (unsigned long long)id, why, attempt);
	return stage_trial(s, id, attempt);
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
			rc = move_to_archive_stale(s, "claimed", d->d_name, id);
	closedir(dir);
	return rc;
}

static int requeue_now(struct sched *s, uint64_t id, const char *why)
{
	struct inflight *e = inf_find(s, id);
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
	return stage_trial(s, id, e->attempt);
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
			if (r.status != RESULT_OK && !inf_find(s, id)) {
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

static int scan_request(struct sched *s, const char *name, unsigned char dtype)
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
		quarantine(s, "state/requests", name,
			   "not a request file name (NAME.json, as dehbq "
			   "writes them)");
		return DEHBQ_OK;
	}
	if (study_path(p, sizeof(p), s->root, "state/requests/%s", name))
		return DEHBQ_OK;
	if (act_has_from(s, p))
		return DEHBQ_OK;
	fsutil_printable(name, shown, sizeof(shown));
	if (jsonfile_load(p, JSONFILE_CAP, &jf, err)) {
		quarantine(s, "state/requests", name, err);
		return DEHBQ_OK;
	}
	if (jsonfile_check_format(jf, "dehbq-request/1", err) ||
	    jsonfile_check_keys(jf, jsonfile_root(jf), keys, err) ||
	    jsonfile_get_string(jf, jsonfile_root(jf), "action",
				JSONFILE_REQUIRED, &action, err) ||
	    jsonfile_get_string(jf, jsonfile_root(jf), "trial",
				JSONFILE_OPTIONAL, &trial, err)) {
		jsonfile_free(jf);
		quarantine(s, "state/requests", name, err);
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
		release_hold(s, shown);
		rc = requeue_now(s, id, shown);
	} else if (!strcmp(action, "requeue-failed")) {
		release_hold(s, shown);
		rc = requeue_failed(s, shown);
	} else {
		jsonfile_free(jf);
		quarantine(s, "state/requests", name,
			   "unknown action or bad trial id (known: stop, "
			   "requeue with \"trial\": \"IIIIIIII\")");
		return DEHBQ_OK;
	}
	jsonfile_free(jf);
	if (rc)
		return rc;
	return act_push(s, ACT_UNLINK, NULL, p, NULL);
}

/* ---- the batch ---- */

static int can_ask(const struct sched *s)
{
	return !s->meta.stopping && !s->held[0] && !dehb_exhausted(s->eng);
}

static int ask_trials(struct sched *s)
{
	int idle = s->live_workers - s->nclaimed;
	int target = (idle > 0 ? idle : 0) + s->spec->prefetch;
	int rc;

	dehb_set_elapsed(s->eng, elapsed(s));
	while (s->npending < target && can_ask(s)) {
		struct dehb_job job;

		if (s->spec->max_inflight &&
		    s->ninf >= (size_t)s->spec->max_inflight)
			break;
		rc = dehb_ask(s->eng, &job, s->vec);
		if (rc == DEHBQ_EAGAIN || rc == DEHBQ_EDONE)
			break;
		if (rc)
			return rc;
		if ((rc = inf_add(s, job.id, 1, id_token_new())) ||
		    (rc = stage_trial(s, job.id, 1)))
			return rc;
		inf_find(s, job.id)->seen = 1;
		s->npending++;
		s->dirty = 1;
		logmsg_d(s->lg,
			 "trial=%08llu issued bracket=%lld rung=%d "
			 "fidelity=%.17g kind=%s",
			 (unsigned long long)job.id, (long long)job.bracket,
			 job.rung, job.fidelity, dehb_kind_name(job.kind));
	}
	return DEHBQ_OK;
}

/*
 * Trials whose staging write failed: stage them again.  After a full
 * batch, in-flight trials with no file anywhere: republish after `lease`.
 */
static int check_missing(struct sched *s, int full)
{
	size_t i;
	int rc;

	for (i = 0; i < s->ninf; i++) {
		struct inflight *e = &s->inf[i];

		if (e->unstaged) { /* a storage error interrupted it */
			if ((rc = stage_trial(s, e->id, e->attempt)))
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
		if ((rc = stage_trial(s, e->id, e->attempt)))
			return rc;
		s->npending++;
	}
	return DEHBQ_OK;
}

static int write_snapshot(struct sched *s)
{
	struct snapshot_inflight *v;
	char *redo;
	size_t i;
	int rc;

	v = calloc(s->ninf + 1, sizeof(*v));
	if (!v)
		return DEHBQ_ENOMEM;
	for (i = 0; i < s->ninf; i++) {
		v[i].id = s->inf[i].id;
		v[i].attempt = s->inf[i].attempt;
		v[i].token = s->inf[i].token;
	}
	s->meta.elapsed = elapsed(s);
	s->meta.epoch = s->lease->epoch;
	s->meta.generation++;
	if (!s->opts.nosync) {
		char p[STUDY_PATH_MAX];

		/* staged trials are referenced by the snapshot */
		if (!study_path(p, sizeof(p), s->root, "staging"))
			fsutil_fsync_dir(p);
	}
	redo = acts_to_text(s);
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

static void sync_dir_of(const char *path, char (*done)[STUDY_PATH_MAX],
			int *ndone, int cap)
{
	char dir[STUDY_PATH_MAX];
	int i;

	if (fsutil_dirname(path, dir, sizeof(dir)))
		return;
	for (i = 0; i < *ndone; i++)
		if (!strcmp(done[i], dir))
			return;
	if (*ndone < cap)
		memcpy(done[(*ndone)++], dir, sizeof(dir));
}

/* ACT_MOVE_NEW found `to` taken: from goes beside it, as stale. */
static int move_beside(const struct sched *s, const struct act *a,
		       unsigned flags)
{
	char dir[STUDY_PATH_MAX], alt[STUDY_PATH_MAX];

	if (fsutil_dirname(a->to, dir, sizeof(dir)) ||
	    stale_name(alt, sizeof(alt), dir, a->from))
		return DEHBQ_ETOOBIG;
	return atomicfile_move(sys_path(s, a->from), sys_path(s, alt), flags);
}

static int apply_actions(struct sched *s)
{
	static char dirs[16][STUDY_PATH_MAX];
	int ndirs = 0, i;
	size_t k;

	for (k = 0; k < s->nacts; k++) {
		struct act *a = &s->acts[k];
		int rc;

		if (a->type == ACT_WRITE) {
			rc = atomicfile_write(sys_path(s, a->to), a->text,
					      strlen(a->text), 0666,
					      s->flags | ATOMICFILE_NODIRSYNC);
		} else if (a->type == ACT_UNLINK) {
			rc = unlink(sys_path(s, a->to)) < 0 && errno != ENOENT
				     ? DEHBQ_ESYS
				     : DEHBQ_OK;
		} else {
			unsigned fl = s->flags | ATOMICFILE_NODIRSYNC |
				      ATOMICFILE_ENOENT_OK;

			if (a->type == ACT_MOVE_NEW) {
				rc = atomicfile_move(sys_path(s, a->from),
						     sys_path(s, a->to),
						     fl | ATOMICFILE_NOREPLACE);
				if (rc == DEHBQ_EEXIST) /* an older copy */
					rc = move_beside(s, a, fl);
			} else {
				rc = atomicfile_move(sys_path(s, a->from),
						     sys_path(s, a->to), fl);
			}
			if (rc ==
			    DEHBQ_ENOENT) { /* a worker claimed it first */
				s->shard_made = 0; /* or a shard is gone */
				rc = DEHBQ_OK;
			}
			sync_dir_of(a->from, dirs, &ndirs, 16);
		}
		if (rc) {
			/* keep the rest queued; they are retried next batch */
			memmove(s->acts, s->acts + k,
				(s->nacts - k) * sizeof(*s->acts));
			s->nacts -= k;
			aidx_rebuild(s, 2 * s->nacts);
			return rc;
		}
		sync_dir_of(a->to, dirs, &ndirs, 16);
		free(a->from);
		free(a->to);
		free(a->text);
	}
	s->nacts = 0;
	if (s->aidx)
		memset(s->aidx, 0, s->aidxcap * sizeof(*s->aidx));
	if (!s->opts.nosync)
		for (i = 0; i < ndirs; i++)
			fsutil_fsync_dir(dirs[i]);
	return DEHBQ_OK;
}

static void write_status(struct sched *s, int full);

int sched_batch(struct sched *s, int full, char *err)
{
	size_t i;
	int rc, prev_pending;

	if ((rc = lease_check(s->lease, err)))
		return rc;
	if (full && ((rc = lease_heartbeat(s->lease)) ||
		     (rc = lease_fs_now(s->root, &s->fs_now)))) {
		dehbq_errf(err, rc, "unable to heartbeat '%s/state': %s",
			   s->root, strerror(errno));
		return rc;
	}
	if (s->nacts) {
		/* A previous batch could not finish (here, or in the run whose
		 * snapshot this process loaded); redo its commit only. */
		size_t n = s->nacts;
		int resumed = !s->nsnaps;

		if (s->dirty && (rc = write_snapshot(s)))
			goto storage;
		if ((rc = apply_actions(s)))
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
	prev_pending = s->npending;
	s->npending = 0;
	if (full) {
		for (i = 0; i < s->ninf; i++)
			s->inf[i].seen = 0;
		s->nclaimed = s->live_workers = 0;
	}
	/* results first: a finished trial is told before its claim's age is
	 * looked at, so downtime never requeues work that is already done */
	if ((rc = scan_results(s, full)) ||
	    (full && (rc = scan_dir(s, "claimed", scan_claim, 1 << 30))) ||
	    (rc = scan_pendings(s, full, prev_pending)) ||
	    (full && (rc = scan_dir(s, "workers", scan_worker, 1 << 30))) ||
	    (full &&
	     (rc = scan_dir(s, "state/requests", scan_request, 1000))) ||
	    (rc = check_missing(s, full)))
		goto storage;
	if (!full) /* every in-flight trial not in pending/ counts as claimed */
		s->nclaimed = (int)s->ninf - s->npending;
	if ((rc = ask_trials(s)))
		goto storage;
	if (s->dirty && (rc = write_snapshot(s)))
		goto storage;
	if ((rc = apply_actions(s)))
		goto storage;
	write_status(s, full);
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
	if (s->nacts)
		return 0;
	if (s->meta.stopping || dehb_exhausted(s->eng))
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

long long sched_told(const struct sched *s)
{
	return s->told;
}

/* ---- status and summary ---- */

static cJSON *incumbent_json(struct sched *s, enum dehb_inc_which which)
{
	struct dehb_incumbent inc;
	cJSON *o;
	char id[ID_TRIAL_LEN];

	if (dehb_incumbent(s->eng, which, &inc, s->vec) || !inc.valid)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	if (!o)
		return NULL;
	id_trial_format(inc.job_id, id);
	jsonfile_add_number(o, "loss", inc.loss);
	jsonfile_add_number(o, "fidelity", inc.fidelity);
	cJSON_AddStringToObject(o, "trial", id);
	if (!space_decode(s->spec->space, s->vec, s->vals))
		cJSON_AddItemToObject(
			o, "config",
			space_config_to_json(s->spec->space, s->vals));
	return o;
}

static cJSON *summary_json(struct sched *s, const char *format,
			   const char *reason)
{
	char now[TIMEUTIL_ISO_LEN];
	struct dehb_counts c;
	cJSON *o = cJSON_CreateObject(), *cnt, *br;
	int i, nb;

	if (!o)
		return NULL;
	dehb_get_counts(s->eng, &c);
	timeutil_iso(timeutil_now(), now);
	cJSON_AddStringToObject(o, "format", format);
	cJSON_AddStringToObject(o, "study", s->spec->study);
	if (reason)
		cJSON_AddStringToObject(o, "reason", reason);
	if (s->held[0])
		cJSON_AddStringToObject(o, "held", s->held);
	cJSON_AddStringToObject(o, "updated", now);
	jsonfile_add_number(o, "epoch", (double)s->lease->epoch);
	cJSON_AddStringToObject(o, "host", s->lease->host);
	jsonfile_add_number(o, "pid", (double)s->lease->pid);
	jsonfile_add_number(o, "elapsed", elapsed(s));
	cJSON_AddBoolToObject(o, "stopping", s->meta.stopping);
	cJSON_AddBoolToObject(o, "exhausted", dehb_exhausted(s->eng));
	cnt = cJSON_AddObjectToObject(o, "counts");
	if (cnt) {
		jsonfile_add_number(cnt, "issued", (double)c.asked);
		jsonfile_add_number(cnt, "done", (double)c.told);
		jsonfile_add_number(cnt, "failed", (double)c.failed);
		jsonfile_add_number(cnt, "inflight", (double)c.inflight);
		jsonfile_add_number(cnt, "pending", s->npending);
		jsonfile_add_number(cnt, "claimed", s->nclaimed);
		jsonfile_add_number(cnt, "quarantined",
				    (double)s->meta.quarantined);
		jsonfile_add_number(cnt, "duplicates",
				    (double)s->meta.duplicates);
		jsonfile_add_number(cnt, "requeues", (double)s->meta.requeues);
		jsonfile_add_number(cnt, "expired", (double)s->meta.expired);
		jsonfile_add_number(cnt, "brackets", (double)c.brackets);
		jsonfile_add_number(cnt, "total_cost", c.total_cost);
	}
	jsonfile_add_number(o, "live_workers", s->live_workers);
	cJSON_AddItemToObject(o, "incumbent_max_fidelity",
			      incumbent_json(s, DEHB_INC_MAX));
	cJSON_AddItemToObject(o, "incumbent_any_fidelity",
			      incumbent_json(s, DEHB_INC_ANY));
	br = cJSON_AddArrayToObject(o, "brackets");
	nb = dehb_active_brackets(s->eng);
	for (i = 0; br && i < nb; i++) {
		struct dehb_rung_info rungs[SPEC_MAX_LEVELS];
		int64_t bid;
		int nr, j;
		cJSON *b = cJSON_CreateObject(), *ra;

		if (!b || dehb_bracket_info(s->eng, i, &bid, rungs,
					    SPEC_MAX_LEVELS, &nr)) {
			cJSON_Delete(b);
			continue;
		}
		cJSON_AddItemToArray(br, b);
		jsonfile_add_number(b, "id", (double)bid);
		ra = cJSON_AddArrayToObject(b, "rungs");
		for (j = 0; ra && j < nr; j++) {
			cJSON *r = cJSON_CreateObject();

			if (!r)
				continue;
			cJSON_AddItemToArray(ra, r);
			jsonfile_add_number(r, "fidelity", rungs[j].fidelity);
			jsonfile_add_number(r, "n", rungs[j].n);
			jsonfile_add_number(r, "pending", rungs[j].pending);
			jsonfile_add_number(r, "done", rungs[j].done);
		}
	}
	return o;
}

static int write_json(struct sched *s, const char *rel, cJSON *o,
		      unsigned flags)
{
	char p[STUDY_PATH_MAX], *txt;
	int rc;

	if ((rc = jsonfile_render(o, o != NULL, &txt)))
		return rc;
	rc = study_path(p, sizeof(p), s->root, "%s", rel);
	if (!rc)
		rc = atomicfile_write(p, txt, strlen(txt), 0666, flags);
	free(txt);
	return rc;
}

/*
 * status.json after every full batch, and after a light one once
 * STATUS_MIN_INTERVAL has passed since the last write: results that
 * trickle in at hundreds of batches a second need not rewrite a summary
 * that people read once a second (with 8 workers and a no-op trainer
 * this cut the orchestrator's CPU per trial from about 72 to 62 us).
 */
static void write_status(struct sched *s, int full)
{
	double now = timeutil_mono();

	if (full || now - s->last_status >= STATUS_MIN_INTERVAL) {
		s->last_status = now;
		jscratch_begin();
		write_json(s, "state/status.json",
			   summary_json(s, "dehbq-status/1", NULL),
			   ATOMICFILE_NOSYNC);
		jscratch_end();
	}
	if (now - s->last_progress >= s->opts.progress_secs) {
		struct dehb_counts c;
		struct dehb_incumbent a, m;

		s->last_progress = now;
		dehb_get_counts(s->eng, &c);
		dehb_incumbent(s->eng, DEHB_INC_ANY, &a, NULL);
		dehb_incumbent(s->eng, DEHB_INC_MAX, &m, NULL);
		logmsg_i(
			s->lg,
			"progress done=%lld issued=%lld inflight=%lld "
			"workers=%d best=%.6g best_at_max=%.6g elapsed=%.0fs%s",
			(long long)c.told, (long long)c.asked,
			(long long)c.inflight, s->live_workers,
			a.valid ? a.loss : NAN, m.valid ? m.loss : NAN,
			elapsed(s),
			s->held[0] ? " HELD (failures in a row; see above)"
				   : "");
	}
}

void sched_stopped(struct sched *s, const char *reason)
{
	jscratch_begin();
	write_json(s, "state/status.json",
		   summary_json(s, "dehbq-status/1", reason),
		   ATOMICFILE_NOSYNC);
	jscratch_end();
}

int sched_finish(struct sched *s, const char *reason)
{
	int rc;

	/* retire whatever is still queued (drain off, or a stop), and archive
	 * claims a listing missed while workers renamed files around it */
	if ((rc = scan_dir(s, "pending", scan_pending, 1 << 30)) ||
	    (rc = scan_dir(s, "claimed", scan_claim, 1 << 30)) ||
	    (s->dirty && (rc = write_snapshot(s))) || (rc = apply_actions(s)))
		return rc; /* nothing final written; the caller retries */
	write_status(s, 1);
	rc = write_json(s, "FINISHED",
			summary_json(s, "dehbq-finished/1", reason), s->flags);
	if (!rc)
		logmsg_i(s->lg, "study finished: %s", reason);
	return rc;
}

/* ---- open: snapshot + reconciliation ---- */

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
	size_t n = strlen(name);

	(void)dtype;
	if (study_path(p, sizeof(p), s->root, "staging/%s", name))
		return DEHBQ_OK;
	if (n != 13 || strcmp(name + 8, ".json") ||
	    sscanf(name, "%8llu", (unsigned long long *)&id) != 1) {
		quarantine(s, "staging", name, "not a staging file name");
		return DEHBQ_OK;
	}
	e = inf_find(s, id);
	if (!e || !staged_is_current(s, p, e)) {
		unlink(p); /* never published: safe to drop */
		return DEHBQ_OK;
	}
	{
		struct dehb_job job;

		if (dehb_job_get(s->eng, id, &job, NULL) ||
		    study_pending_name(pn, sizeof(pn), job.rung, id) ||
		    study_path(pp, sizeof(pp), s->root, "pending/%s", pn))
			return DEHBQ_OK;
	}
	e->seen = 1;
	if (act_has_from(s, p))
		return DEHBQ_OK;
	return act_push(s, ACT_MOVE, p, pp, NULL);
}

/*
 * At start, pending/ and claimed/ files are matched to the trials in
 * flight: older attempts are retired as stale, files of no trial in flight
 * go through retire_stray(), and what does not match is quarantined.
 */
static int reconcile_public(struct sched *s, const char *dir, const char *name)
{
	char p[STUDY_PATH_MAX], err[DEHBQ_ERRLEN], why[DEHBQ_ERRLEN];
	struct study_claim c;
	struct inflight *e;
	struct trial t;
	enum fit fit;
	uint64_t id;
	int rung, rc;

	if (!strcmp(dir, "pending") ? study_parse_pending(name, &rung, &id)
				    : study_parse_claim(name, &c))
		return DEHBQ_OK; /* the batch scan quarantines it */
	if (strcmp(dir, "pending"))
		id = c.id;
	if (!(e = inf_find(s, id)))
		return retire_stray(s, dir, name, id);
	if (study_join(p, sizeof(p), s->root, dir, name) || act_has_from(s, p))
		return DEHBQ_OK;
	rc = load_trial_file(s, p, &t, err);
	if (rc == DEHBQ_EINVAL)
		quarantine(s, dir, name, err);
	if (rc)
		return rc == DEHBQ_EINVAL || rc == DEHBQ_ENOENT ? DEHBQ_OK : rc;
	fit = fit_of(s, e, &t, why, sizeof(why));
	trial_release(&t);
	if (fit == FIT_OLDER)
		return move_to_archive_stale(s, dir, name, id);
	if (fit == FIT_NONE)
		quarantine(s, dir, name, why);
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
static int archive_has_files(const char *path, int depth)
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
			found = archive_has_files(sub, 1);
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
	struct dehb_counts c;
	struct dirent *de;
	uint64_t id, sh;
	int moved;
	DIR *d;

	dehb_get_counts(s->eng, &c);
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
				quarantine_from(s, p, "archive", de->d_name,
						why);
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
static int retell_archived(struct sched *s)
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
		if (archive_path(s, p, sizeof(p), id, name) ||
		    access(p, F_OK) < 0 || result_load(p, &r, err)) {
			i++;
			continue;
		}
		if (r.token != e->token) {
			uint64_t told = 0;

			result_release(&r);
			quarantine_from(s, p, "archive", name, lost);
			memcpy(name + ID_TRIAL_LEN - 1, ".trial.json", 12);
			if (!told_token(s, id, &told) && told != e->token &&
			    !archive_path(s, p, sizeof(p), id, name))
				quarantine_from(s, p, "archive", name, lost);
			i++;
			continue;
		}
		rc = dehb_tell(s->eng, id,
			       r.status == RESULT_OK ? DEHB_OK : DEHB_FAILED,
			       r.status == RESULT_OK ? r.loss : NAN, r.cost);
		result_release(&r);
		if (rc) {
			i++;
			continue;
		}
		logmsg_w(s->lg,
			 "trial=%08llu re-told from its archived result "
			 "(newer snapshot was lost)",
			 (unsigned long long)id);
		s->told++;
		s->dirty = 1;
		inf_remove(s, id); /* e now points at the next entry */
	}
	return quarantine_lost_issues(s);
}

static int new_engine(struct sched *s, char *err)
{
	struct dehb_params p;
	const struct spec *sp = s->spec;
	int rc;

	dehb_params_init(&p);
	p.dim = space_dim(sp->space);
	p.min_fidelity = sp->min_fidelity;
	p.max_fidelity = sp->max_fidelity;
	p.eta = sp->eta;
	p.mutation_factor = sp->mutation_factor;
	p.crossover_prob = sp->crossover_prob;
	p.seed = sp->seed;
	p.max_fevals = sp->fevals;
	p.max_brackets = sp->brackets;
	p.max_cost = sp->total_cost;
	p.max_walltime = sp->walltime;
	p.max_active_brackets = sp->max_active_brackets;
	p.de_pop_size = sp->de_pop_size;
	if (dehb_optimizer_parse(sp->optimizer, &p.optimizer) ||
	    dehb_mutation_parse(sp->mutation, &p.mutation) ||
	    dehb_crossover_parse(sp->crossover, &p.crossover) ||
	    dehb_boundary_parse(sp->boundary, &p.boundary))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "study.json: unknown optimizer setting");
	if ((rc = dehb_new(&p, &s->eng, err)))
		return rc;
	return DEHBQ_OK;
}

int sched_open(struct sched **out, const char *root, struct spec *spec,
	       struct lease *lease, struct logmsg *lg,
	       const struct sched_opts *opts, char *err)
{
	char warn[DEHBQ_ERRLEN];
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
	{
		struct stat a, b;

		s->cwd_is_root = stat(".", &a) == 0 && stat(root, &b) == 0 &&
				 a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	}
	s->vec = calloc((size_t)dim + 1, sizeof(*s->vec));
	s->vals = calloc((size_t)dim + 1, sizeof(*s->vals));
	if (!s->vec || !s->vals) {
		rc = DEHBQ_ENOMEM;
		goto fail;
	}
	rc = snapshot_load(root, spec->study, &s->meta, &v, &n, &s->eng, &redo,
			   &skipped, warn);
	if (skipped)
		logmsg_w(lg, "skipped %d unreadable snapshot(s): %s", skipped,
			 warn);
	if (rc == DEHBQ_ENOENT) {
		char ap[STUDY_PATH_MAX];
		int started = 0;

		if (!study_path(ap, sizeof(ap), root, "archive"))
			started = archive_has_files(ap, 0);
		if (started && !skipped) {
			rc = dehbq_errf(err, DEHBQ_EINVAL,
					"'%s/archive' holds trials but "
					"'%s/state' has no snapshot; refusing "
					"to start the study over",
					root, root);
			goto fail;
		}
		if (skipped) {
			rc = dehbq_errf(err, DEHBQ_EINVAL,
					"no snapshot in '%s/state' can be "
					"loaded (%s); refusing to start over",
					root, warn);
			goto fail;
		}
		memcpy(s->meta.study, spec->study, ID_STUDY_LEN);
		if ((rc = new_engine(s, err)))
			goto fail;
		s->dirty = 1;
		logmsg_i(lg, "new study %s: optimizer %s, %d parameters",
			 spec->study, spec->optimizer, dim);
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
	s->elapsed_base = s->meta.elapsed;
	for (i = 0; i < n; i++)
		if ((rc = inf_add(s, v[i].id, v[i].attempt, v[i].token)))
			goto fail;
	free(v);
	v = NULL;
	if (skipped && (rc = retell_archived(s)))
		goto fail;
	/* Redo what the crashed run had queued after its last snapshot, before
	 * reconciling, so those files are not mistaken for strays. */
	if (redo && (rc = acts_from_json(s, redo, err)))
		goto fail;
	cJSON_Delete(redo);
	redo = NULL;
	if ((rc = lease_fs_now(root, &s->fs_now)) ||
	    (rc = scan_dir(s, "staging", reconcile_staging, 1 << 30)) ||
	    (rc = scan_dir(s, "pending", rec_pending, 1 << 30)) ||
	    (rc = scan_dir(s, "claimed", rec_claimed, 1 << 30))) {
		dehbq_errf(err, rc, "unable to reconcile '%s': %s", root,
			   strerror(errno));
		goto fail;
	}
	*out = s;
	return DEHBQ_OK;
fail:
	free(v);
	cJSON_Delete(redo);
	sched_close(s);
	return rc;
}

void sched_close(struct sched *s)
{
	if (!s)
		return;
	acts_clear(s);
	free(s->acts);
	free(s->aidx);
	free(s->inf);
	free(s->vec);
	free(s->vals);
	dehb_free(s->eng);
	free(s);
}
