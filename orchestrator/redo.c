/*
 * redo.c - owns the redo list: queued moves and writes, their text form in
 * a snapshot, and applying them (redo.h)
 */
#include "redo.h"

#include "atomicfile.h"
#include "err.h"
#include "fsutil.h"
#include "jsonbuf.h"
#include "study.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const op_names[REDO_NOPS] = {"move", "write", "unlink",
						"move-new"};

void redo_init(struct redo *r, const char *root)
{
	memset(r, 0, sizeof(*r));
	r->root = root;
}

static void entry_free(struct redo_entry *e)
{
	free(e->from);
	free(e->to);
	free(e->text);
}

void redo_release(struct redo *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		entry_free(&r->e[i]);
	free(r->e);
	redo_init(r, r->root);
}

int redo_push(struct redo *r, enum redo_op op, const char *from, const char *to,
	      const char *text)
{
	struct redo_entry *e;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;

		e = realloc(r->e, cap * sizeof(*e));
		if (!e)
			return DEHBQ_ENOMEM;
		r->e = e;
		r->cap = cap;
	}
	e = &r->e[r->n];
	e->op = op;
	e->from = from ? strdup(from) : NULL;
	e->to = strdup(to);
	e->text = text ? strdup(text) : NULL;
	if ((from && !e->from) || !e->to || (text && !e->text)) {
		entry_free(e);
		return DEHBQ_ENOMEM;
	}
	r->n++;
	return DEHBQ_OK;
}

/* A batch queues a few entries per trial: a scan is cheap enough. */
int redo_has_from(const struct redo *r, const char *path)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->e[i].from && !strcmp(r->e[i].from, path))
			return 1;
	return 0;
}

int redo_has_to(const struct redo *r, const char *path)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->e[i].to, path))
			return 1;
	return 0;
}

/* Path relative to the study root (every entry's path is inside it). */
static const char *rel_path(const struct redo *r, const char *abs)
{
	size_t n = strlen(r->root);

	return strncmp(abs, r->root, n) || abs[n] != '/' ? abs : abs + n + 1;
}

/* A relative path from a snapshot: inside one of our directories. */
static int rel_ok(const char *p)
{
	static const char *const top[] = {
		"staging/",  "pending/", "claimed/",
		"results/",  "archive/", "state/requests/",
		"progress/", "stop/",	 NULL};
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

char *redo_to_text(const struct redo *r)
{
	struct jsonbuf b;
	size_t i;

	jsonbuf_init(&b);
	jsonbuf_put(&b, "[", 1);
	for (i = 0; i < r->n; i++) {
		const struct redo_entry *e = &r->e[i];

		jsonbuf_puts(&b, i ? ",{\"op\":" : "{\"op\":");
		jsonbuf_str(&b, op_names[e->op]);
		if (e->from) {
			jsonbuf_puts(&b, ",\"from\":");
			jsonbuf_str(&b, rel_path(r, e->from));
		}
		jsonbuf_puts(&b, ",\"to\":");
		jsonbuf_str(&b, rel_path(r, e->to));
		if (e->text) {
			jsonbuf_puts(&b, ",\"text\":");
			jsonbuf_str(&b, e->text);
		}
		jsonbuf_put(&b, "}", 1);
	}
	jsonbuf_put(&b, "]", 1);
	return jsonbuf_take(&b);
}

int redo_load(struct redo *r, const cJSON *arr, const char *name, char *err)
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
		int k, moves;

		i++;
		for (k = 0; k < REDO_NOPS; k++)
			if (cJSON_IsString(op) &&
			    !strcmp(op->valuestring, op_names[k]))
				break;
		moves = k == REDO_MOVE || k == REDO_MOVE_NEW;
		if (k == REDO_NOPS || !cJSON_IsString(to) ||
		    !(rel_ok(to->valuestring) ||
		      /* a requeue in a finished study removes FINISHED */
		      (k == REDO_UNLINK &&
		       !strcmp(to->valuestring, "FINISHED"))) ||
		    (moves &&
		     (!cJSON_IsString(from) || !rel_ok(from->valuestring))) ||
		    (k == REDO_WRITE && !cJSON_IsString(text)) ||
		    study_path(t, sizeof(t), r->root, "%s", to->valuestring) ||
		    (moves && study_path(f, sizeof(f), r->root, "%s",
					 from->valuestring)))
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "%s: redo[%d]: unknown op, or a path "
					  "outside the study's directories; "
					  "move this snapshot aside to resume "
					  "from the previous one",
					  name, i);
		if (redo_push(r, (enum redo_op)k, moves ? f : NULL, t,
			      k == REDO_WRITE ? text->valuestring : NULL))
			return DEHBQ_ENOMEM;
	}
	return DEHBQ_OK;
}

int redo_stale_name(char *buf, size_t size, const char *dir, const char *from)
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

/* The directories to fsync once the queue is applied. */
struct dirset {
	char (*d)[STUDY_PATH_MAX]; /* distinct directories */
	size_t n, cap;		   /* their number and room */
	int failed;		   /* one could not be kept: sync none */
};

static void dirset_add(struct dirset *ds, const char *path)
{
	char dir[STUDY_PATH_MAX];
	size_t i;

	if (fsutil_dirname(path, dir, sizeof(dir)))
		return;
	for (i = 0; i < ds->n; i++)
		if (!strcmp(ds->d[i], dir))
			return;
	if (ds->n == ds->cap) {
		size_t cap = ds->cap ? 2 * ds->cap : 8;
		char(*nd)[STUDY_PATH_MAX] = realloc(ds->d, cap * sizeof(*nd));

		if (!nd) {
			ds->failed = 1;
			return;
		}
		ds->d = nd;
		ds->cap = cap;
	}
	memcpy(ds->d[ds->n++], dir, sizeof(dir));
}

static int apply_one(struct redo *r, const struct redo_entry *e, unsigned flags)
{
	unsigned fl = flags | ATOMICFILE_NODIRSYNC;
	char dir[STUDY_PATH_MAX], alt[STUDY_PATH_MAX];
	int rc;

	if (e->op == REDO_WRITE)
		return atomicfile_write(e->to, e->text, strlen(e->text), 0666,
					fl);
	if (e->op == REDO_UNLINK)
		return atomicfile_get_ops()->unlink(e->to) < 0 &&
				       errno != ENOENT
			       ? DEHBQ_ESYS
			       : DEHBQ_OK;
	fl |= ATOMICFILE_ENOENT_OK;
	if (e->op == REDO_MOVE_NEW) {
		rc = atomicfile_move(e->from, e->to, fl | ATOMICFILE_NOREPLACE);
		if (rc == DEHBQ_EEXIST) { /* an older copy: beside it */
			if (fsutil_dirname(e->to, dir, sizeof(dir)) ||
			    redo_stale_name(alt, sizeof(alt), dir, e->from))
				return DEHBQ_ETOOBIG;
			rc = atomicfile_move(e->from, alt, fl);
		}
	} else {
		rc = atomicfile_move(e->from, e->to, fl);
	}
	if (rc == DEHBQ_ENOENT) { /* moved by someone else first */
		r->gone = 1;
		rc = DEHBQ_OK;
	}
	return rc;
}

int redo_apply(struct redo *r, unsigned flags, int nosync)
{
	struct dirset ds = {NULL, 0, 0, 0};
	size_t k, i;
	int rc = DEHBQ_OK;

	for (k = 0; k < r->n; k++) {
		if ((rc = apply_one(r, &r->e[k], flags)))
			break;
		if (r->e[k].from)
			dirset_add(&ds, r->e[k].from);
		dirset_add(&ds, r->e[k].to);
		entry_free(&r->e[k]);
	}
	/* the rest stays queued, for the next batch (r->e is NULL while
	 * nothing was ever queued: no memmove of it) */
	if (k < r->n)
		memmove(r->e, r->e + k, (r->n - k) * sizeof(*r->e));
	r->n -= k;
	if (!nosync) {
		for (i = 0; i < ds.n; i++)
			fsutil_fsync_dir(ds.d[i]);
		if (ds.failed && !rc)
			rc = DEHBQ_ENOMEM;
	}
	free(ds.d);
	return rc;
}
