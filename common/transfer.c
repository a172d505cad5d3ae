/*
 * transfer.c - the frozen transfer data, state/transfer.jsonl
 * (transfer.h)
 */
#include "transfer.h"

#include "err.h"
#include "fsutil.h"
#include "jsonbuf.h"
#include "study.h"
#include "utf8.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void transfer_init(struct transfer *t, int dim)
{
	memset(t, 0, sizeof(*t));
	t->dim = dim;
}

void transfer_release(struct transfer *t)
{
	free(t->label);
	free(t->n);
	free(t->x);
	free(t->y);
	transfer_init(t, t->dim);
}

static int label_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (!n || n >= TRANSFER_LABEL_MAX || utf8_check(s, n) != n)
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 0;
	return 1;
}

static int grow(struct transfer *t, int newtask)
{
	void *p;

	if (t->total == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;

		if (!(p = realloc(t->x, cap * (size_t)t->dim * sizeof(double))))
			return DEHBQ_ENOMEM;
		t->x = p;
		if (!(p = realloc(t->y, cap * sizeof(double))))
			return DEHBQ_ENOMEM;
		t->y = p;
		t->cap = cap;
	}
	if (newtask && t->ntasks == t->capt) {
		int cap = t->capt ? 2 * t->capt : 8;

		if (!(p = realloc(t->label, (size_t)cap * sizeof(*t->label))))
			return DEHBQ_ENOMEM;
		t->label = p;
		if (!(p = realloc(t->n, (size_t)cap * sizeof(*t->n))))
			return DEHBQ_ENOMEM;
		t->n = p;
		t->capt = cap;
	}
	return DEHBQ_OK;
}

int transfer_add(struct transfer *t, const char *label, const double *x,
		 double y)
{
	int d, newtask, rc;

	if (!label_ok(label) || !isfinite(y))
		return DEHBQ_EINVAL;
	for (d = 0; d < t->dim; d++)
		if (!(x[d] >= 0 && x[d] <= 1))
			return DEHBQ_EINVAL;
	newtask = !t->ntasks || strcmp(t->label[t->ntasks - 1], label);
	if ((rc = grow(t, newtask)))
		return rc;
	if (newtask) {
		strcpy(t->label[t->ntasks], label);
		t->n[t->ntasks++] = 0;
	}
	memcpy(&t->x[t->total * (size_t)t->dim], x,
	       (size_t)t->dim * sizeof(double));
	t->y[t->total++] = y;
	t->n[t->ntasks - 1]++;
	return DEHBQ_OK;
}

int transfer_render(const struct transfer *t, char **out)
{
	struct jsonbuf b;
	size_t i = 0;
	int k, d, rc;

	*out = NULL;
	jsonbuf_init(&b);
	for (k = 0; k < t->ntasks; k++) {
		size_t end = i + t->n[k];

		for (; i < end; i++) {
			jsonbuf_puts(&b, "{\"task\":");
			jsonbuf_str(&b, t->label[k]);
			jsonbuf_puts(&b, ",\"x\":[");
			for (d = 0; d < t->dim; d++) {
				if (d)
					jsonbuf_put(&b, ",", 1);
				jsonbuf_num(
					&b,
					t->x[i * (size_t)t->dim + (size_t)d]);
			}
			jsonbuf_puts(&b, "],\"loss\":");
			jsonbuf_num(&b, t->y[i]);
			jsonbuf_puts(&b, "}\n");
		}
	}
	if ((rc = jsonbuf_failed(&b))) {
		jsonbuf_free(&b);
		return rc;
	}
	*out = jsonbuf_take(&b);
	return *out ? DEHBQ_OK : DEHBQ_ENOMEM;
}

/* One line into t; DEHBQ_EINVAL when it is not a valid row. */
static int parse_line(struct transfer *t, const char *p, size_t len)
{
	double x[4096];
	cJSON *o = cJSON_ParseWithLength(p, len);
	const cJSON *task = cJSON_GetObjectItemCaseSensitive(o, "task"),
		    *xa = cJSON_GetObjectItemCaseSensitive(o, "x"),
		    *loss = cJSON_GetObjectItemCaseSensitive(o, "loss"), *e;
	int d = 0, rc = DEHBQ_EINVAL;

	if (t->dim > 4096 || !cJSON_IsString(task) || !cJSON_IsArray(xa) ||
	    cJSON_GetArraySize(xa) != t->dim || !cJSON_IsNumber(loss) ||
	    cJSON_GetArraySize(o) != 3)
		goto out;
	cJSON_ArrayForEach(e, xa)
	{
		if (!cJSON_IsNumber(e))
			goto out;
		x[d++] = e->valuedouble;
	}
	rc = transfer_add(t, task->valuestring, x, loss->valuedouble);
out:
	cJSON_Delete(o);
	return rc;
}

int transfer_parse(const char *name, const char *text, size_t len, int dim,
		   struct transfer *t, char *err)
{
	const char *p = text, *end = text + len;
	long line = 0;
	int rc = DEHBQ_OK;

	transfer_init(t, dim);
	while (!rc && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		line++;
		if (!nl) {
			rc = dehbq_errf(err, DEHBQ_EINVAL,
					"%s:%ld: no end of line (a truncated "
					"file)",
					name, line);
			break;
		}
		rc = parse_line(t, p, (size_t)(nl - p));
		if (rc == DEHBQ_EINVAL)
			dehbq_errf(err, rc,
				   "%s:%ld: expected {\"task\": LABEL, \"x\": "
				   "[%d numbers in 0..1], \"loss\": number}",
				   name, line, dim);
		p = nl + 1;
	}
	if (!rc && !t->ntasks)
		rc = dehbq_errf(err, DEHBQ_EINVAL, "%s: no result", name);
	if (rc)
		transfer_release(t);
	return rc;
}

int transfer_load(const char *root, int dim, struct transfer *t, char *err)
{
	char path[STUDY_PATH_MAX];
	char *text = NULL;
	size_t len;
	int rc;

	transfer_init(t, dim);
	if (study_path(path, sizeof(path), root, "state/transfer.jsonl"))
		return dehbq_errf(err, DEHBQ_EINVAL, "%s: path too long", root);
	rc = fsutil_read_file(path, TRANSFER_CAP, &text, &len);
	if (rc == DEHBQ_ESYS && errno == ENOENT)
		return DEHBQ_ENOENT;
	if (rc)
		return dehbq_errf(err, rc, "%s: %s", path,
				  rc == DEHBQ_ESYS ? strerror(errno)
						   : dehbq_strerror(rc));
	rc = transfer_parse(path, text, len, dim, t, err);
	free(text);
	return rc;
}
