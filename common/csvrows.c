/*
 * csvrows.c - owns reading CSV evaluations into typed JSON objects
 * (csvrows.h), over libcsv
 */
#include "csvrows.h"

#include "err.h"
#include "space_impl.h"

#include <csv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CSV_MAX_COLUMNS (SPACE_MAX_PARAMS + 16)

struct rd {
	const char *name;
	const struct space *sp;
	csvrows_fn fn;
	void *ctx;
	char *err;
	char **hdr; /* header names, nh */
	int nh, nf; /* header columns; fields of the current record */
	long row;   /* records done */
	cJSON *obj; /* the current record */
	int rc;
};

/* A finite number that is all of s, or 0. */
static int number(const char *s, double *v)
{
	char *end;

	if (!*s)
		return 0;
	*v = strtod(s, &end);
	return !*end && isfinite(*v);
}

/* Parameter p's JSON value for text s (csvrows.h). */
static cJSON *param_value(const struct space_param *p, const char *s)
{
	double v;
	int k;

	if (p->type == SPACE_FLOAT || p->type == SPACE_INT)
		return number(s, &v) ? cJSON_CreateNumber(v)
				     : cJSON_CreateString(s);
	for (k = 0; k < p->n; k++) {
		const struct space_value *c = &p->choices[k];

		if (c->type == SPACE_V_STRING && !strcmp(c->s, s))
			return cJSON_CreateString(s);
		if (c->type == SPACE_V_BOOL &&
		    !strcasecmp(s, c->b ? "true" : "false"))
			return cJSON_CreateBool(c->b);
		if ((c->type == SPACE_V_FLOAT || c->type == SPACE_V_INT) &&
		    number(s, &v) &&
		    v == (c->type == SPACE_V_INT ? (double)c->i : c->f))
			return cJSON_CreateNumber(v);
	}
	return cJSON_CreateString(s);
}

static cJSON *field_value(const struct rd *r, const char *col, const char *s)
{
	int i = space_param_find(r->sp, col);
	double v;

	if (i >= 0)
		return param_value(&r->sp->p[i], s);
	if (strcmp(col, "task") &&
	    (!strcmp(col, "loss") || !strcmp(col, "fidelity")) && number(s, &v))
		return cJSON_CreateNumber(v);
	return cJSON_CreateString(s);
}

static void fail(struct rd *r, int rc, const char *what)
{
	if (!r->rc)
		r->rc = rc == DEHBQ_ENOMEM
				? rc
				: dehbq_errf(r->err, rc, "%s: row %ld: %s",
					     r->name, r->row + 1, what);
}

static void on_field(void *s, size_t len, void *data)
{
	struct rd *r = data;
	const char *f = s ? s : "";
	char **h;
	cJSON *v;

	if (r->rc)
		return;
	if (strlen(f) != len) {
		fail(r, DEHBQ_EINVAL, "a NUL byte in a field");
	} else if (!r->row) { /* the header */
		if (!len || r->nh >= CSV_MAX_COLUMNS) {
			fail(r, DEHBQ_EINVAL,
			     "the header: an empty column name, or too many "
			     "columns");
		} else if (!(h = realloc(r->hdr,
					 (size_t)(r->nh + 1) * sizeof(*h)))) {
			fail(r, DEHBQ_ENOMEM, "");
		} else {
			r->hdr = h;
			if (!(h[r->nh] = strdup(f)))
				fail(r, DEHBQ_ENOMEM, "");
			else
				r->nh++;
		}
	} else if (r->nf++ < r->nh && len) {
		if (!r->obj && !(r->obj = cJSON_CreateObject())) {
			fail(r, DEHBQ_ENOMEM, "");
		} else if (!(v = field_value(r, r->hdr[r->nf - 1], f)) ||
			   !cJSON_AddItemToObject(r->obj, r->hdr[r->nf - 1],
						  v)) {
			cJSON_Delete(v);
			fail(r, DEHBQ_ENOMEM, "");
		}
	}
}

/* 1 if the header names a column twice. */
static int header_dup(const struct rd *r)
{
	int i, j;

	for (i = 0; i < r->nh; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(r->hdr[i], r->hdr[j]))
				return 1;
	return 0;
}

static void on_record(int c, void *data)
{
	struct rd *r = data;
	char what[96];
	cJSON *o;

	(void)c;
	if (r->rc)
		return;
	if (!r->row && header_dup(r)) {
		fail(r, DEHBQ_EINVAL, "the header names a column twice");
		return;
	}
	if (r->row && r->nf != r->nh) {
		snprintf(what, sizeof(what),
			 "%d fields, where the header has %d", r->nf, r->nh);
		fail(r, DEHBQ_EINVAL, what);
		return;
	}
	if (r->row) {
		if (!(o = r->obj ? r->obj : cJSON_CreateObject())) {
			fail(r, DEHBQ_ENOMEM, "");
			return;
		}
		r->obj = NULL;
		r->rc = r->fn(r->ctx, r->row + 1, o);
		cJSON_Delete(o);
	}
	r->row++;
	r->nf = 0;
}

int csvrows_parse(const char *name, const char *text, size_t len,
		  const struct space *sp, csvrows_fn fn, void *ctx, char *err)
{
	struct rd r = {name, sp, fn, ctx, err, NULL, 0, 0, 0, NULL, 0};
	struct csv_parser p;
	int i;

	if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL))
		return DEHBQ_ENOMEM;
	if (csv_parse(&p, text, len, on_field, on_record, &r) != len ||
	    csv_fini(&p, on_field, on_record, &r))
		fail(&r,
		     csv_error(&p) == CSV_ENOMEM ? DEHBQ_ENOMEM : DEHBQ_EINVAL,
		     "malformed CSV (a quote out of place, or a quoted field "
		     "never closed)");
	csv_free(&p);
	cJSON_Delete(r.obj);
	for (i = 0; i < r.nh; i++)
		free(r.hdr[i]);
	free(r.hdr);
	if (!r.rc && !r.row)
		r.rc = dehbq_errf(err, DEHBQ_EINVAL, "%s: empty: no header",
				  name);
	return r.rc;
}
