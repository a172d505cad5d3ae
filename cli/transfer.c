/*
 * transfer.c - `dehbq init --transfer-from SRC`: earlier studies and
 * imported evaluations, mapped into the new study's space and frozen into
 * STUDY/state/transfer.jsonl (common/transfer.h)
 *
 * A SRC that is a directory is a study on this filesystem: one task, its
 * ok results at its maximum fidelity, labelled by its name (else its
 * directory).  A SRC ending in .jsonl is a file of evaluations from any
 * tool, one JSON object per line: the parameters by name, "loss", "task"
 * (the label) and an optional "fidelity"; per task the rows at its highest
 * fidelity are used (a row without one counts as the maximum).  A SRC
 * ending in .csv has the same columns under a header row, typed by the
 * space (common/csvrows.h) and then checked as a JSON line is.  Each
 * configuration goes through the new space by parameter name and value
 * (space_config_from_json, then space_encode): a parameter missing, an
 * unknown one, a value outside the new range or choices refuses the whole
 * import with one line naming the file, the row (or trial) and the field.
 */
#include "cli.h"

#include "csvrows.h"
#include "err.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "space.h"
#include "spec.h"
#include "transfer.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One source's rows before they are grouped by task. */
struct rows {
	int dim;
	size_t n, cap;
	char (*task)[TRANSFER_LABEL_MAX];
	double *fid, *x, *y;
};

static int rows_add(struct rows *r, const char *task, double fid,
		    const double *x, double y)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 256;
		void *p;

		if (!(p = realloc(r->task, cap * sizeof(*r->task))))
			return DEHBQ_ENOMEM;
		r->task = p;
		if (!(p = realloc(r->fid, cap * sizeof(double))))
			return DEHBQ_ENOMEM;
		r->fid = p;
		if (!(p = realloc(r->x, cap * (size_t)r->dim * sizeof(double))))
			return DEHBQ_ENOMEM;
		r->x = p;
		if (!(p = realloc(r->y, cap * sizeof(double))))
			return DEHBQ_ENOMEM;
		r->y = p;
		r->cap = cap;
	}
	snprintf(r->task[r->n], TRANSFER_LABEL_MAX, "%s", task);
	r->fid[r->n] = fid;
	memcpy(&r->x[r->n * (size_t)r->dim], x,
	       (size_t)r->dim * sizeof(double));
	r->y[r->n++] = y;
	return DEHBQ_OK;
}

static void rows_free(struct rows *r)
{
	free(r->task);
	free(r->fid);
	free(r->x);
	free(r->y);
}

/* Each task's rows at its highest fidelity into t, tasks in the order
 * they first appear. */
static int rows_flush(struct rows *r, struct transfer *t)
{
	char label[TRANSFER_LABEL_MAX];
	size_t i, j;
	int rc;

	for (i = 0; i < r->n; i++) {
		double top = -INFINITY;

		if (!r->task[i][0])
			continue; /* taken with an earlier row's task */
		memcpy(label, r->task[i], sizeof(label));
		for (j = i; j < r->n; j++)
			if (!strcmp(r->task[j], label))
				top = fmax(top, r->fid[j]);
		for (j = i; j < r->n; j++) {
			if (strcmp(r->task[j], label))
				continue;
			if (r->fid[j] == top &&
			    (rc = transfer_add(t, label,
					       &r->x[j * (size_t)r->dim],
					       r->y[j])))
				return rc;
			r->task[j][0] = 0;
		}
	}
	return DEHBQ_OK;
}

/* A configuration object into the new space's vector. */
static int encode(const struct jsonfile *jf, const cJSON *cfg,
		  const struct space *sp, double *x, char *err)
{
	struct space_value *v = calloc((size_t)space_dim(sp) + 1, sizeof(*v));
	int rc;

	if (!v)
		return DEHBQ_ENOMEM;
	if (!(rc = space_config_from_json(jf, cfg, sp, v, err)))
		rc = space_encode(sp, v, x, err);
	free(v);
	return rc;
}

/* One line of a .jsonl import. */
static int jsonl_row(const char *file, long row, const char *p, size_t len,
		     const struct space *sp, struct rows *r, char *err)
{
	static const char *const meta[] = {"task", "loss", "fidelity", NULL};
	char name[4200], e[DEHBQ_ERRLEN];
	struct jsonfile *jf;
	const char *task = NULL;
	double loss = NAN, fid = INFINITY;
	cJSON *cfg = NULL;
	int rc, k;

	snprintf(name, sizeof(name), "%s: row %ld", file, row);
	if ((rc = jsonfile_parse(name, p, len, &jf, err)))
		return rc;
	rc = DEHBQ_EINVAL;
	if (!cJSON_IsObject(jsonfile_root(jf)))
		dehbq_errf(err, rc,
			   "%s: expected an object {\"task\": ..., "
			   "\"loss\": ..., PARAMETER: value, ...}",
			   name);
	else if (!(rc = jsonfile_get_string(jf, jsonfile_root(jf), "task",
					    JSONFILE_REQUIRED, &task, err)) &&
		 !(rc = jsonfile_get_number(jf, jsonfile_root(jf), "loss",
					    JSONFILE_REQUIRED, -1e300, 1e300,
					    &loss, err)) &&
		 !(rc = jsonfile_get_number(jf, jsonfile_root(jf), "fidelity",
					    JSONFILE_OPTIONAL, 1e-300, 1e300,
					    &fid, err))) {
		if (!task[0] || strlen(task) >= TRANSFER_LABEL_MAX)
			rc = dehbq_errf(err, DEHBQ_EINVAL,
					"%s: field 'task': an empty task "
					"label, or longer than %d bytes",
					name, TRANSFER_LABEL_MAX - 1);
		else if (!(cfg = cJSON_Duplicate(jsonfile_root(jf), 1)))
			rc = DEHBQ_ENOMEM;
	}
	if (!rc) {
		double *x = malloc((size_t)space_dim(sp) * sizeof(double));

		for (k = 0; meta[k]; k++)
			cJSON_DeleteItemFromObjectCaseSensitive(cfg, meta[k]);
		if (!x)
			rc = DEHBQ_ENOMEM;
		else if ((rc = encode(jf, cfg, sp, x, e)))
			dehbq_errf(err, rc, "%s", e); /* e names the row */
		else
			rc = rows_add(r, task, fid, x, loss);
		free(x);
	}
	cJSON_Delete(cfg);
	jsonfile_free(jf);
	return rc == DEHBQ_ENOENT ? DEHBQ_EINVAL : rc;
}

/* A file of at most TRANSFER_CAP bytes, or a line saying why not. */
static int read_src(const char *file, char **text, size_t *len, char *err)
{
	int rc = fsutil_read_file(file, TRANSFER_CAP, text, len);

	if (rc)
		return dehbq_errf(err, rc == DEHBQ_ENOMEM ? rc : DEHBQ_EINVAL,
				  "%s: cannot read it (%s)", file,
				  rc == DEHBQ_ESYS ? "no such file, or not "
						     "readable"
						   : dehbq_strerror(rc));
	return DEHBQ_OK;
}

struct csv_ctx {
	const char *file;
	const struct space *sp;
	struct rows *r;
	char *err;
};

/* A CSV record as the JSON line it stands for. */
static int csv_row(void *arg, long row, const cJSON *obj)
{
	struct csv_ctx *c = arg;
	char *line = cJSON_PrintUnformatted(obj);
	int rc;

	if (!line)
		return DEHBQ_ENOMEM;
	rc = jsonl_row(c->file, row, line, strlen(line), c->sp, c->r, c->err);
	free(line);
	if (rc) { /* drop the position in the JSON text made here */
		char pre[4200];
		size_t n = (size_t)snprintf(pre, sizeof(pre),
					    "%s: row %ld:", c->file, row);
		size_t k = n;

		if (n < sizeof(pre) && !strncmp(c->err, pre, n)) {
			while (c->err[k] &&
			       (isdigit((unsigned char)c->err[k]) ||
				c->err[k] == ':'))
				k++;
			if (k > n && c->err[k] == ' ')
				memmove(c->err + n, c->err + k,
					strlen(c->err + k) + 1);
		}
	}
	return rc;
}

/* The rows of a .csv (csv set) or .jsonl file. */
static int from_file(const char *file, int csv, const struct space *sp,
		     struct transfer *t, char *err)
{
	struct rows r = {.dim = space_dim(sp)};
	struct csv_ctx c = {file, sp, &r, err};
	char *text = NULL;
	size_t len;
	const char *p, *end;
	long row = 0;
	int rc;

	if ((rc = read_src(file, &text, &len, err)))
		return rc;
	if (csv)
		rc = csvrows_parse(file, text, len, sp, csv_row, &c, err);
	for (p = text, end = text + len; !csv && !rc && p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		row++;
		if (l && strspn(p, " \t\r") < l)
			rc = jsonl_row(file, row, p, l, sp, &r, err);
		p += l + 1;
	}
	if (!rc && !r.n)
		rc = dehbq_errf(err, DEHBQ_EINVAL,
				"%s: no row: nothing to "
				"transfer",
				file);
	if (!rc)
		rc = rows_flush(&r, t);
	rows_free(&r);
	free(text);
	return rc;
}

struct study_ctx {
	const struct spec *old, *new;
	const char *src;
	char label[TRANSFER_LABEL_MAX];
	struct transfer *t;
	double *x;
	char *err;
	int rc;
	size_t n;
};

static int study_row(void *arg, struct cli_row *row)
{
	struct study_ctx *c = arg;
	struct jsonfile *jf = NULL;
	char name[4200], e[DEHBQ_ERRLEN], *txt = NULL;
	cJSON *cfg;

	if (!row->has_result || row->r.status != RESULT_OK ||
	    row->t.fidelity != c->old->max_fidelity || !isfinite(row->r.loss))
		return 0;
	snprintf(name, sizeof(name), "%s: trial %08llu", c->src,
		 (unsigned long long)row->t.id);
	cfg = space_config_to_json(c->old->space, row->t.config);
	if (!cfg || !(txt = cJSON_PrintUnformatted(cfg)) ||
	    jsonfile_parse(name, txt, strlen(txt), &jf, e))
		c->rc = dehbq_errf(c->err, DEHBQ_ENOMEM, "out of memory");
	else if ((c->rc = encode(jf, jsonfile_root(jf), c->new->space, c->x,
				 e)))
		dehbq_errf(c->err, c->rc,
			   "%s (the earlier study's configuration does not "
			   "fit this study's space)",
			   e);
	else if ((c->rc = transfer_add(c->t, c->label, c->x, row->r.loss)))
		dehbq_errf(c->err, c->rc, "%s: %s", name,
			   dehbq_strerror(c->rc));
	else
		c->n++;
	cJSON_Delete(cfg);
	cJSON_free(txt);
	jsonfile_free(jf);
	return c->rc ? -1 : 0;
}

static int from_study(const char *dir, const struct spec *new,
		      struct transfer *t, char *err)
{
	struct study_ctx c = {0};
	struct spec old;
	const char *base;
	int rc;

	if ((rc = spec_load_study(dir, &old, err)))
		return rc;
	c.old = &old;
	c.new = new;
	c.src = dir;
	c.t = t;
	c.err = err;
	base = strrchr(dir, '/') && strrchr(dir, '/')[1] ? strrchr(dir, '/') + 1
							 : dir;
	snprintf(c.label, sizeof(c.label), "%s", old.name[0] ? old.name : base);
	if (!(c.x = malloc((size_t)space_dim(new->space) * sizeof(double))))
		rc = DEHBQ_ENOMEM;
	else if (cli_scan_trials("init", dir, &old, CLI_SCAN_ARCHIVE, study_row,
				 &c) &&
		 !c.rc)
		rc = dehbq_errf(err, DEHBQ_ENOMEM, "out of memory");
	else if (!(rc = c.rc) && !c.n)
		rc = dehbq_errf(err, DEHBQ_EINVAL,
				"%s: no ok result at its maximum fidelity "
				"(%g): nothing to transfer",
				dir, old.max_fidelity);
	free(c.x);
	spec_release(&old);
	return rc;
}

int cli_transfer_import(const struct spec *s, char *const *src, int nsrc,
			struct transfer *t, char *err)
{
	struct stat st;
	int i, rc = DEHBQ_OK;

	transfer_init(t, space_dim(s->space));
	for (i = 0; !rc && i < nsrc; i++) {
		size_t l = strlen(src[i]);

		if (stat(src[i], &st) == 0 && S_ISDIR(st.st_mode))
			rc = from_study(src[i], s, t, err);
		else if (l > 6 && !strcmp(src[i] + l - 6, ".jsonl"))
			rc = from_file(src[i], 0, s->space, t, err);
		else if (l > 4 && !strcmp(src[i] + l - 4, ".csv"))
			rc = from_file(src[i], 1, s->space, t, err);
		else
			rc = dehbq_errf(err, DEHBQ_EINVAL,
					"%s: neither a study directory nor a "
					".jsonl or .csv file",
					src[i]);
	}
	if (rc)
		transfer_release(t);
	return rc;
}
