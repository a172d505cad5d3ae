/*
 * progress.c - owns intermediate results' formats (progress.h): the
 * trainer's progress line, the progress file and the stop file
 */
#include "progress.h"

#include "err.h"
#include "jsonfile.h"
#include "utf8.h"

#include <cjson/cJSON.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int progress_line(const char *line, size_t len, struct progress_point *p,
		  char *err)
{
	static const char *const keys[] = {"fidelity", "loss",	     "cost",
					   "info",     "objectives", NULL};
	struct jsonfile *jf = NULL;
	const cJSON *root;
	size_t i = 0;
	int rc;

	while (i < len &&
	       (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
		i++;
	/* most output is not ours: tell it cheaply */
	if (i == len || line[i] != '{' ||
	    !memmem(line, len, "\"fidelity\"", 10))
		return DEHBQ_ENOENT;
	if (len > PROGRESS_LINE_MAX)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "progress line: longer than %u bytes",
				  PROGRESS_LINE_MAX);
	if (utf8_check(line, len) != len)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "progress line: not UTF-8");
	if (jsonfile_parse("progress line", line, len, &jf, err))
		return DEHBQ_EINVAL; /* meant as one, but not JSON */
	root = jsonfile_root(jf);
	if (!cJSON_IsObject(root) ||
	    !cJSON_GetObjectItemCaseSensitive(root, "fidelity")) {
		jsonfile_free(jf);
		return DEHBQ_ENOENT;
	}
	p->cost = -1;
	if ((rc = jsonfile_check_keys(jf, root, keys, err)) ||
	    (rc = jsonfile_get_number(jf, root, "fidelity", JSONFILE_REQUIRED,
				      DBL_MIN, HUGE_VAL, &p->fidelity, err)) ||
	    (rc = jsonfile_get_number(jf, root, "loss", JSONFILE_REQUIRED,
				      -HUGE_VAL, HUGE_VAL, &p->loss, err)) ||
	    (rc = jsonfile_get_number(jf, root, "cost", JSONFILE_OPTIONAL, 0,
				      HUGE_VAL, &p->cost, err)))
		rc = DEHBQ_EINVAL;
	jsonfile_free(jf);
	return rc;
}

void progress_init(struct progress *pr, const char *id, int attempt,
		   const char *worker)
{
	memset(pr, 0, sizeof(*pr));
	snprintf(pr->id, sizeof(pr->id), "%s", id);
	pr->attempt = attempt;
	snprintf(pr->worker, sizeof(pr->worker), "%s", worker);
}

const struct progress_point *progress_last(const struct progress *pr)
{
	return pr->n ? &pr->pt[pr->n - 1] : NULL;
}

/* Every second point but the last goes: the bound holds. */
static void thin(struct progress *pr)
{
	size_t i, k = 0;

	for (i = 0; i + 1 < pr->n; i += 2)
		pr->pt[k++] = pr->pt[i];
	pr->thinned += (int64_t)(pr->n - 1 - k);
	pr->pt[k++] = pr->pt[pr->n - 1];
	pr->n = k;
}

int progress_add(struct progress *pr, const struct progress_point *p)
{
	const struct progress_point *last = progress_last(pr);

	if (!(p->fidelity > 0) || !isfinite(p->fidelity) ||
	    !isfinite(p->loss) || (last && !(p->fidelity > last->fidelity)))
		return DEHBQ_EINVAL;
	if (pr->n == PROGRESS_MAX_POINTS)
		thin(pr);
	if (pr->n == pr->cap) {
		size_t cap = pr->cap ? pr->cap * 2 : 16;
		struct progress_point *n;

		if (cap > PROGRESS_MAX_POINTS)
			cap = PROGRESS_MAX_POINTS;
		if (!(n = realloc(pr->pt, cap * sizeof(*n))))
			return DEHBQ_ENOMEM;
		pr->pt = n;
		pr->cap = cap;
	}
	pr->pt[pr->n++] = *p;
	return DEHBQ_OK;
}

void progress_release(struct progress *pr)
{
	free(pr->pt);
	pr->pt = NULL;
	pr->n = pr->cap = 0;
}

int progress_render(const struct progress *pr, char **out)
{
	cJSON *o = cJSON_CreateObject(), *a, *e;
	int bad = !o;
	size_t i;

	*out = NULL;
	if (bad)
		return DEHBQ_ENOMEM;
	bad |= !cJSON_AddStringToObject(o, "format", PROGRESS_FORMAT) |
	       !cJSON_AddStringToObject(o, "id", pr->id) |
	       !cJSON_AddNumberToObject(o, "attempt", pr->attempt) |
	       !cJSON_AddStringToObject(o, "worker", pr->worker) |
	       !cJSON_AddNumberToObject(o, "thinned", (double)pr->thinned) |
	       !(a = cJSON_AddArrayToObject(o, "points"));
	for (i = 0; !bad && i < pr->n; i++) {
		const struct progress_point *p = &pr->pt[i];

		bad |= !(e = cJSON_CreateObject()) ||
		       !cJSON_AddItemToArray(a, e);
		if (bad)
			break;
		bad |= jsonfile_add_number(e, "fidelity", p->fidelity) |
		       jsonfile_add_number(e, "loss", p->loss);
		if (p->cost >= 0)
			bad |= jsonfile_add_number(e, "cost", p->cost);
	}
	return jsonfile_render(o, !bad, out);
}

static int parse_point(const struct jsonfile *jf, const cJSON *e,
		       struct progress_point *p, char *err)
{
	static const char *const keys[] = {"fidelity", "loss", "cost", NULL};
	int rc;

	if (!cJSON_IsObject(e))
		return jsonfile_errf(jf, e, err,
				     "field 'points': each must be an object");
	p->cost = -1;
	if ((rc = jsonfile_check_keys(jf, e, keys, err)) ||
	    (rc = jsonfile_get_number(jf, e, "fidelity", JSONFILE_REQUIRED,
				      DBL_MIN, HUGE_VAL, &p->fidelity, err)) ||
	    (rc = jsonfile_get_number(jf, e, "loss", JSONFILE_REQUIRED,
				      -HUGE_VAL, HUGE_VAL, &p->loss, err)) ||
	    (rc = jsonfile_get_number(jf, e, "cost", JSONFILE_OPTIONAL, 0,
				      HUGE_VAL, &p->cost, err)))
		return DEHBQ_EINVAL;
	return DEHBQ_OK;
}

static int parse_fields(const struct jsonfile *jf, struct progress *pr,
			char *err)
{
	static const char *const keys[] = {
		"format", "id", "attempt", "worker", "thinned", "points", NULL};
	const cJSON *root = jsonfile_root(jf), *a, *e;
	struct progress_point p;
	const char *s;
	int64_t v;
	uint64_t id;
	int rc;

	if ((rc = jsonfile_check_format(jf, PROGRESS_FORMAT, err)) ||
	    (rc = jsonfile_check_keys(jf, root, keys, err)) ||
	    (rc = jsonfile_get_string(jf, root, "id", JSONFILE_REQUIRED, &s,
				      err)))
		return rc;
	if (id_trial_parse(s, &id))
		return jsonfile_errf(
			jf, cJSON_GetObjectItemCaseSensitive(root, "id"), err,
			"field 'id': expected 8 digits");
	memcpy(pr->id, s, ID_TRIAL_LEN);
	if ((rc = jsonfile_get_int(jf, root, "attempt", JSONFILE_REQUIRED, 1,
				   1000000, &v, err)))
		return rc;
	pr->attempt = (int)v;
	if ((rc = jsonfile_get_string(jf, root, "worker", JSONFILE_REQUIRED, &s,
				      err)))
		return rc;
	if (!id_is_worker(s))
		return jsonfile_errf(
			jf, cJSON_GetObjectItemCaseSensitive(root, "worker"),
			err,
			"field 'worker': expected 12 lowercase hex digits");
	memcpy(pr->worker, s, ID_WORKER_LEN);
	if ((rc = jsonfile_get_int(jf, root, "thinned", JSONFILE_REQUIRED, 0,
				   INT64_MAX / 2, &pr->thinned, err)) ||
	    (rc = jsonfile_get_array(jf, root, "points", JSONFILE_REQUIRED, &a,
				     err)))
		return rc;
	if (cJSON_GetArraySize(a) > PROGRESS_MAX_POINTS)
		return jsonfile_errf(jf, a, err, "field 'points': more than %d",
				     PROGRESS_MAX_POINTS);
	cJSON_ArrayForEach(e, a)
	{
		if ((rc = parse_point(jf, e, &p, err)))
			return rc;
		if ((rc = progress_add(pr, &p)))
			return rc == DEHBQ_EINVAL
				       ? jsonfile_errf(jf, e, err,
						       "field 'points': the "
						       "fidelities must go up")
				       : rc;
	}
	return DEHBQ_OK;
}

/* Fill pr from a parsed file (which it frees). */
static int from_file(struct jsonfile *jf, struct progress *pr, char *err)
{
	int rc = parse_fields(jf, pr, err);

	jsonfile_free(jf);
	if (rc == DEHBQ_ENOENT)
		rc = DEHBQ_EINVAL;
	if (rc)
		progress_release(pr);
	return rc;
}

int progress_parse(const char *name, const char *text, size_t len,
		   struct progress *pr, char *err)
{
	struct jsonfile *jf;
	int rc;

	memset(pr, 0, sizeof(*pr));
	if ((rc = jsonfile_parse(name, text, len, &jf, err)))
		return rc;
	return from_file(jf, pr, err);
}

int progress_load(const char *path, struct progress *pr, char *err)
{
	struct jsonfile *jf;
	int rc;

	memset(pr, 0, sizeof(*pr));
	if ((rc = jsonfile_load(path, PROGRESS_CAP, &jf, err)))
		return rc;
	return from_file(jf, pr, err);
}

int progress_stop_render(const char *id, double fidelity, double loss,
			 char **out)
{
	cJSON *o = cJSON_CreateObject();
	int bad = !o;

	*out = NULL;
	if (bad)
		return DEHBQ_ENOMEM;
	bad |= !cJSON_AddStringToObject(o, "format", PROGRESS_STOP_FORMAT) |
	       !cJSON_AddStringToObject(o, "id", id) |
	       jsonfile_add_number(o, "fidelity", fidelity) |
	       jsonfile_add_number(o, "loss", loss);
	return jsonfile_render(o, !bad, out);
}
