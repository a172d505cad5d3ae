/*
 * snapshot.c - write, find, load and prune orchestrator snapshots
 *
 * Invariant: a snapshot file, once its name exists, is complete (atomic
 * write with fsync) and is never modified; a newer one is a new name.
 */
#include "snapshot.h"

#include "atomicfile.h"
#include "optim.h"
#include "err.h"
#include "fsutil.h"
#include "jsonbuf.h"
#include "jsonfile.h"
#include "study.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct snap_name {
	int64_t epoch; /* from the name */
	int64_t gen;   /* from the name */
	char name[64]; /* the file name */
};

static int parse_name(const char *n, struct snap_name *s)
{
	unsigned long long e, g;
	int len = 0;

	/* snapshot-EEEEEE-GGGGGGGGGG.json: 9 + 6 + 1 + 10 + 5 = 31 bytes */
	if (strlen(n) != 31 || strncmp(n, "snapshot-", 9) || n[15] != '-' ||
	    sscanf(n, "snapshot-%6llu-%10llu.json%n", &e, &g, &len) != 2 ||
	    len != 31)
		return -1;
	s->epoch = (int64_t)e;
	s->gen = (int64_t)g;
	snprintf(s->name, sizeof(s->name), "%s", n);
	return 0;
}

static int cmp_newest_first(const void *a, const void *b)
{
	const struct snap_name *x = a, *y = b;

	if (x->epoch != y->epoch)
		return x->epoch < y->epoch ? 1 : -1;
	if (x->gen != y->gen)
		return x->gen < y->gen ? 1 : -1;
	return 0;
}

/* List snapshot names, newest first.  Caller frees *out. */
static int list_snaps(const char *root, struct snap_name **out, size_t *n)
{
	char p[STUDY_PATH_MAX];
	struct snap_name *v = NULL, s;
	size_t len = 0, cap = 0;
	struct dirent *e;
	DIR *d;

	*out = NULL;
	*n = 0;
	if (study_path(p, sizeof(p), root, "state"))
		return DEHBQ_ETOOBIG;
	if (!(d = opendir(p)))
		return DEHBQ_ESYS;
	while ((e = readdir(d))) {
		if (fsutil_skip_name(e->d_name) || parse_name(e->d_name, &s))
			continue;
		if (len == cap) {
			struct snap_name *nv;

			cap = cap ? 2 * cap : 8;
			if (!(nv = realloc(v, cap * sizeof(*v)))) {
				free(v);
				closedir(d);
				return DEHBQ_ENOMEM;
			}
			v = nv;
		}
		v[len++] = s;
	}
	closedir(d);
	if (len > 1) /* qsort(NULL, 0, ...) is undefined behaviour */
		qsort(v, len, sizeof(*v), cmp_newest_first);
	*out = v;
	*n = len;
	return DEHBQ_OK;
}

int snapshot_write(const char *root, const struct snapshot_meta *m,
		   const struct snapshot_inflight *inf, size_t n,
		   struct optim *eng, const char *redo, unsigned flags)
{
	char p[STUDY_PATH_MAX], el[40];
	struct jsonbuf b;
	size_t i;
	int rc;

	jsonbuf_init(&b);
	jsonfile_fmt_double(el, sizeof(el), m->elapsed);
	jsonbuf_puts(&b, "{\"format\":\"" SNAPSHOT_FORMAT "\",\"study\":");
	jsonbuf_str(&b, m->study);
	jsonbuf_printf(
		&b,
		",\"epoch\":%" PRId64 ",\"generation\":%" PRId64
		",\"elapsed\":%s,\"stopping\":%s,\"quarantined\":%" PRId64
		",\"duplicates\":%" PRId64 ",\"requeues\":%" PRId64
		",\"expired\":%" PRId64 ",\"inflight\":[",
		m->epoch, m->generation, el, m->stopping ? "true" : "false",
		m->quarantined, m->duplicates, m->requeues, m->expired);
	for (i = 0; i < n; i++) {
		jsonbuf_puts(&b, i ? ",[" : "[");
		jsonbuf_int(&b, (int64_t)inf[i].id);
		jsonbuf_put(&b, ",", 1);
		jsonbuf_int(&b, inf[i].attempt);
		if (inf[i].token) {
			char tok[ID_TOKEN_LEN];

			id_token_format(inf[i].token, tok);
			jsonbuf_put(&b, ",", 1);
			jsonbuf_str(&b, tok);
		}
		jsonbuf_put(&b, "]", 1);
	}
	jsonbuf_puts(&b, "],\"history\":");
	if (m->history[0]) {
		jsonbuf_puts(&b, "{\"file\":");
		jsonbuf_str(&b, m->history);
		jsonbuf_printf(&b, ",\"bytes\":%" PRId64 "}", m->history_bytes);
	} else
		jsonbuf_puts(&b, "null");
	jsonbuf_puts(&b, ",\"redo\":");
	jsonbuf_puts(&b, redo ? redo : "[]");
	jsonbuf_puts(&b, ",\"optimizer\":");
	rc = optim_save(eng, &b);
	jsonbuf_puts(&b, "}\n");
	if (rc || (rc = jsonbuf_failed(&b))) {
		jsonbuf_free(&b);
		return rc;
	}
	rc = study_path(p, sizeof(p), root,
			"state/snapshot-%06lld-%010lld.json",
			(long long)m->epoch, (long long)m->generation);
	if (!rc)
		rc = atomicfile_write(p, b.p, b.len, 0666, flags);
	jsonbuf_free(&b);
	return rc;
}

/* A snapshot of an older dehbq: refused, never misread or quarantined. */
static int check_version(const struct jsonfile *jf, char *err)
{
	const cJSON *f =
		cJSON_GetObjectItemCaseSensitive(jsonfile_root(jf), "format");

	if (cJSON_IsString(f) && !strcmp(f->valuestring, "dehbq-snapshot/1")) {
		jsonfile_errf(jf, f, err,
			      "written by dehbq 0.3 or older "
			      "(dehbq-snapshot/1): finish the study with that "
			      "version, or start a new study");
		return DEHBQ_EUNSUP;
	}
	return jsonfile_check_format(jf, SNAPSHOT_FORMAT, err);
}

/* The [id, attempt, token] entries of "inflight" into a new array. */
static int load_inflight(const struct jsonfile *jf, const cJSON *arr,
			 struct snapshot_inflight **inf, size_t *n, char *err)
{
	const cJSON *it;
	size_t i = 0;

	*inf = calloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(**inf));
	if (!*inf)
		return DEHBQ_ENOMEM;
	cJSON_ArrayForEach(it, arr)
	{
		const cJSON *a = cJSON_GetArrayItem(it, 0);
		const cJSON *b = cJSON_GetArrayItem(it, 1);
		const cJSON *t = cJSON_GetArrayItem(it, 2);
		int k = cJSON_GetArraySize(it);

		if (!cJSON_IsArray(it) || k < 2 || k > 3 ||
		    (k == 3 &&
		     (!cJSON_IsString(t) ||
		      id_token_parse(t->valuestring, &(*inf)[i].token))) ||
		    !cJSON_IsNumber(a) || !cJSON_IsNumber(b) ||
		    a->valuedouble < 0 ||
		    a->valuedouble > (double)ID_TRIAL_MAX ||
		    a->valuedouble != (double)(uint64_t)a->valuedouble ||
		    b->valuedouble < 1 || b->valuedouble > 1000000 ||
		    b->valuedouble != (double)(int)b->valuedouble)
			return jsonfile_errf(jf, it, err,
					     "field 'inflight': expected [id, "
					     "attempt, token] entries");
		(*inf)[i].id = (uint64_t)a->valuedouble;
		(*inf)[i].attempt = (int)b->valuedouble;
		i++;
	}
	*n = i;
	return DEHBQ_OK;
}

/* "history": null, or {"file", "bytes"} naming a history file. */
static int load_history_ref(const struct jsonfile *jf, const cJSON *r,
			    struct snapshot_meta *m, char *err)
{
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(r, "history");
	const char *f;
	int64_t e;
	int rc;

	if (!h || cJSON_IsNull(h))
		return DEHBQ_OK;
	if (!cJSON_IsObject(h))
		return jsonfile_errf(jf, h, err,
				     "field 'history': expected an object or "
				     "null");
	if ((rc = jsonfile_get_string(jf, h, "file", JSONFILE_REQUIRED, &f,
				      err)) ||
	    (rc = jsonfile_get_int(jf, h, "bytes", JSONFILE_REQUIRED, 0,
				   HISTORY_MAX_BYTES, &m->history_bytes, err)))
		return rc;
	if (!history_parse_name(f, &e))
		return jsonfile_errf(jf, h, err,
				     "field 'history.file': expected "
				     "history-EEEEEE.jsonl");
	snprintf(m->history, sizeof(m->history), "%s", f);
	return DEHBQ_OK;
}

/*
 * setup NULL: read everything but the optimiser (*eng stays NULL).  Else
 * the optimiser, with the history its snapshot names (*history).
 */
static int load_one(const char *root, const char *path, const char *study,
		    const struct optim_setup *setup, struct snapshot_meta *m,
		    struct snapshot_inflight **inf, size_t *n,
		    struct optim **eng, char **history, cJSON **redo, int *torn,
		    char *err)
{
	static const char *const keys[] = {
		"format",    "study",	 "epoch",	"generation",
		"elapsed",   "stopping", "quarantined", "duplicates",
		"requeues",  "expired",	 "inflight",	"redo",
		"optimizer", "history",	 NULL,
	};
	const cJSON *rd = NULL;
	struct jsonfile *jf;
	const cJSON *r, *arr = NULL, *engine = NULL;
	const char *s;
	size_t i = 0;
	int rc;

	*inf = NULL;
	*n = 0;
	*eng = NULL;
	*history = NULL;
	*redo = NULL;
	memset(m, 0, sizeof(*m));
	*torn = 0;
	/* through the atomicfile seam, so that fault tests reach the read */
	if ((rc = jsonfile_load_with(path, SNAPSHOT_CAP,
				     atomicfile_get_ops()->open, &jf, err))) {
		*torn = rc == DEHBQ_EINVAL; /* not JSON, or not a file */
		/* gone (pruned, or moved by hand): pass over it; any other
		 * failure to read it (EIO, EMFILE, ESTALE) may pass */
		return rc == DEHBQ_ESYS && errno != ENOENT ? DEHBQ_EAGAIN : rc;
	}
	r = jsonfile_root(jf);
	if ((rc = check_version(jf, err)) ||
	    (rc = jsonfile_check_keys(jf, r, keys, err)) ||
	    (rc = jsonfile_get_string(jf, r, "study", JSONFILE_REQUIRED, &s,
				      err)))
		goto out;
	if (strcmp(s, study)) {
		*torn = 1; /* foreign */
		rc = jsonfile_errf(jf, r, err, "belongs to study %s, not %s", s,
				   study);
		goto out;
	}
	memcpy(m->study, s, ID_STUDY_LEN);
	if ((rc = jsonfile_get_int(jf, r, "epoch", JSONFILE_REQUIRED, 1, 999999,
				   &m->epoch, err)) ||
	    (rc = jsonfile_get_int(jf, r, "generation", JSONFILE_REQUIRED, 0,
				   INT64_C(9999999999), &m->generation, err)) ||
	    (rc = jsonfile_get_number(jf, r, "elapsed", JSONFILE_REQUIRED, 0,
				      1e12, &m->elapsed, err)) ||
	    (rc = jsonfile_get_bool(jf, r, "stopping", JSONFILE_REQUIRED,
				    &m->stopping, err)) ||
	    (rc = jsonfile_get_int(jf, r, "quarantined", JSONFILE_REQUIRED, 0,
				   INT64_MAX / 2, &m->quarantined, err)) ||
	    (rc = jsonfile_get_int(jf, r, "duplicates", JSONFILE_REQUIRED, 0,
				   INT64_MAX / 2, &m->duplicates, err)) ||
	    (rc = jsonfile_get_int(jf, r, "requeues", JSONFILE_REQUIRED, 0,
				   INT64_MAX / 2, &m->requeues, err)) ||
	    (rc = jsonfile_get_int(jf, r, "expired", JSONFILE_REQUIRED, 0,
				   INT64_MAX / 2, &m->expired, err)) ||
	    (rc = jsonfile_get_array(jf, r, "inflight", JSONFILE_REQUIRED, &arr,
				     err)) ||
	    (rc = jsonfile_get_array(jf, r, "redo", JSONFILE_REQUIRED, &rd,
				     err)) ||
	    (rc = jsonfile_get_object(jf, r, "optimizer", JSONFILE_REQUIRED,
				      &engine, err)))
		goto out;
	if (!(*redo = cJSON_Duplicate(rd, 1))) {
		rc = DEHBQ_ENOMEM;
		goto out;
	}
	if ((rc = load_inflight(jf, arr, inf, n, err)))
		goto out;
	if ((rc = load_history_ref(jf, r, m, err)) || !setup)
		goto out;
	if (m->history[0] &&
	    (rc = history_read(root, m->history, m->history_bytes, history,
			       err)))
		goto out;
	if ((rc = optim_load(engine, setup, *history, (size_t)m->history_bytes,
			     eng, err)))
		goto out;
	for (i = 0; i < *n; i++)
		if (optim_job(*eng, (*inf)[i].id, NULL, NULL)) {
			rc = jsonfile_errf(jf, arr, err,
					   "in-flight trial %llu unknown to "
					   "the optimizer",
					   (unsigned long long)(*inf)[i].id);
			goto out;
		}
out:
	if (rc == DEHBQ_ENOENT || rc == DEHBQ_ESTATE)
		rc = DEHBQ_EINVAL;
	if (rc) {
		free(*inf);
		*inf = NULL;
		*n = 0;
		optim_free(*eng);
		*eng = NULL;
		free(*history);
		*history = NULL;
		cJSON_Delete(*redo);
		*redo = NULL;
	}
	jsonfile_free(jf);
	return rc;
}

static void quarantine_snapshot(const char *root, const char *name,
				const char *why)
{
	char from[STUDY_PATH_MAX], to[STUDY_PATH_MAX], rp[STUDY_PATH_MAX];
	char line[DEHBQ_ERRLEN + 128], shown[DEHBQ_ERRLEN];

	if (study_path(from, sizeof(from), root, "state/%s", name) ||
	    study_path(to, sizeof(to), root, "quarantine/state.%s", name) ||
	    study_path(rp, sizeof(rp), root, "quarantine/state.%s.reason",
		       name) ||
	    atomicfile_move(from, to, 0))
		return;
	fsutil_printable(why, shown, sizeof(shown));
	snprintf(line, sizeof(line), "state/%s: %s\n", name, shown);
	atomicfile_write(rp, line, strlen(line), 0666, 0);
}

/*
 * snapshot_load(), and the CLI's reading (read_only: move nothing, and
 * fall back past any snapshot that does not load).  The orchestrator
 * falls back past a torn or foreign snapshot (moved to quarantine once an
 * older one has loaded) or one whose history is missing or short (left);
 * it stops at one this dehbq refuses, leaving every file in place: such a
 * snapshot is the optimiser's state, and only its loader is wrong.  It
 * also stops, with DEHBQ_EAGAIN, at one it could not read now (EIO,
 * EMFILE): an older snapshot would lose what this one holds.
 */
static int load_newest(const char *root, const char *study,
		       const struct optim_setup *setup, struct snapshot_meta *m,
		       struct snapshot_inflight **inf, size_t *n,
		       struct optim **eng, char **history, cJSON **redo,
		       int *skipped, char *warn, int read_only)
{
	char p[STUDY_PATH_MAX], (*why)[DEHBQ_ERRLEN];
	struct snap_name *v;
	size_t count, i, k;
	int rc = DEHBQ_ENOENT, *torn;

	*skipped = 0;
	warn[0] = 0;
	if ((rc = list_snaps(root, &v, &count)))
		return rc;
	why = calloc(count + 1, sizeof(*why));
	torn = calloc(count + 1, sizeof(*torn));
	for (i = 0; why && torn && i < count; i++) {
		if (study_path(p, sizeof(p), root, "state/%s", v[i].name))
			continue;
		rc = load_one(root, p, study, setup, m, inf, n, eng, history,
			      redo, &torn[i], why[i]);
		if (rc == DEHBQ_EAGAIN && read_only)
			rc = DEHBQ_ESYS;
		if (rc == DEHBQ_ENOMEM || rc == DEHBQ_EUNSUP ||
		    rc == DEHBQ_EAGAIN)
			memcpy(warn, why[i], DEHBQ_ERRLEN);
		if (rc == DEHBQ_OK || rc == DEHBQ_ENOMEM ||
		    rc == DEHBQ_EUNSUP || rc == DEHBQ_EAGAIN)
			break;
		if (!(*skipped)++ || (!read_only && !torn[i]))
			snprintf(warn, DEHBQ_ERRLEN, "state/%s: %s", v[i].name,
				 why[i]);
		if (!read_only && rc != DEHBQ_ESYS && !torn[i]) {
			rc = DEHBQ_EINVAL; /* refused: stop, move nothing */
			break;
		}
	}
	if (!why || !torn)
		rc = DEHBQ_ENOMEM;
	else if (i == count)
		rc = DEHBQ_ENOENT;
	for (k = 0; rc == DEHBQ_OK && !read_only && k < i; k++)
		if (torn[k])
			quarantine_snapshot(root, v[k].name, why[k]);
	free(why);
	free(torn);
	free(v);
	return rc;
}

int snapshot_load(const char *root, const char *study,
		  const struct optim_setup *setup, struct snapshot_meta *m,
		  struct snapshot_inflight **inf, size_t *n, struct optim **eng,
		  char **history, cJSON **redo, int *skipped, char *warn)
{
	return load_newest(root, study, setup, m, inf, n, eng, history, redo,
			   skipped, warn, 0);
}

int snapshot_read_inflight(const char *root, const char *study,
			   struct snapshot_inflight **inf, size_t *n)
{
	char warn[DEHBQ_ERRLEN];
	struct snapshot_meta m;
	struct optim *eng = NULL;
	cJSON *redo = NULL;
	char *history = NULL;
	int skipped, rc;

	*inf = NULL;
	*n = 0;
	rc = load_newest(root, study, NULL, &m, inf, n, &eng, &history, &redo,
			 &skipped, warn, 1);
	optim_free(eng);
	free(history);
	cJSON_Delete(redo);
	return rc;
}

void snapshot_prune_after(const char *root, int64_t epoch, int64_t generation)
{
	char p[STUDY_PATH_MAX];

	if (generation > SNAPSHOT_KEEP &&
	    !study_path(p, sizeof(p), root,
			"state/snapshot-%06lld-%010lld.json", (long long)epoch,
			(long long)(generation - SNAPSHOT_KEEP)))
		atomicfile_get_ops()->unlink(p);
}

int snapshot_prune(const char *root)
{
	char p[STUDY_PATH_MAX];
	struct snap_name *v;
	size_t n, i;
	int rc;

	if ((rc = list_snaps(root, &v, &n)))
		return rc;
	for (i = SNAPSHOT_KEEP; i < n; i++)
		if (!study_path(p, sizeof(p), root, "state/%s", v[i].name))
			atomicfile_get_ops()->unlink(p);
	free(v);
	return DEHBQ_OK;
}
