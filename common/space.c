/*
 * space.c - search spaces: parse, validate, unit-cube encode/decode
 *
 * Invariants of a parsed struct space (checked once, at parse time, so
 * decode and encode never fail):
 *   - 1 <= dim <= SPACE_MAX_PARAMS; names are unique, 1..128 bytes of
 *     [A-Za-z0-9_.:-] not starting with a digit, '.', ':' or '-'.
 *   - no two names give the same environment variable (space_env_name:
 *     lr and LR, a.b and a-b), so the trainer sees every parameter.
 *   - float: low < high, both finite, high - low finite; log => low > 0.
 *   - int: low < high, |low|, |high| <= 2^53; log => low >= 1.
 *   - categorical/ordinal: 1..SPACE_MAX_CHOICES unique choices, all of
 *     one value type; a constant has exactly one "choice", its value.
 *   - numbers that are integral and within 2^53 are SPACE_V_INT, other
 *     numbers SPACE_V_FLOAT (JSON cannot tell 3 from 3.0).
 *
 * Encoding (docs/space.md; fixes DEHB_SPEC 9.8 of the reference):
 *   - every entry is clamped to [0,1] first; v = 0 and v = 1 decode to
 *     the exact bounds.
 *   - float: low + v (high - low), or exp(ln low + v ln(high/low)),
 *     clamped to [low, high] so log scale never leaves the bounds.
 *   - int, n = high - low + 1 values: min(floor(v n), n - 1), so every
 *     integer, endpoints included, gets mass 1/n.  Log scale: floor of
 *     exp(ln low + v (ln(high + 1) - ln low)), clamped.
 *   - K choices: min(floor(v K), K - 1); encode k -> (k + 0.5)/K, the bin
 *     centre, far from both edges.
 *   - constants encode as 0.5; decoding ignores the entry.
 *   - encode checks decode(v) == x and, if rounding spoilt it, walks v a
 *     few ulps until it holds, so round trips are exact.
 */
#include "space.h"
#include "space_impl.h"

#include "err.h"
#include "fsutil.h"

#include <ctype.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_LEN 128		/* bytes of a parameter name */
#define INT_LIMIT    9007199254740992.0 /* 2^53: exact in a double */
#define NUDGE_STEPS  64			/* ulps encode may walk each way */

/* Field names of one input format. */
struct dialect {
	const char *lo;		    /* lower bound key */
	const char *hi;		    /* upper bound key */
	int defaults;		    /* parse and check "default" */
	const char *const *k_num;   /* allowed keys, float/int */
	const char *const *k_cat;   /* allowed keys, categorical */
	const char *const *k_ord;   /* allowed keys, ordinal */
	const char *const *k_const; /* allowed keys, constant */
};

static const char *const native_num[] = {"name", "type",    "low", "high",
					 "log",	 "default", NULL};
static const char *const native_cat[] = {"name", "type", "choices", "default",
					 NULL};
static const char *const native_ord[] = {"name", "type", "sequence", "default",
					 NULL};
static const char *const native_const[] = {"name", "type", "value", NULL};
static const struct dialect native = {
	"low", "high", 1, native_num, native_cat, native_ord, native_const};

/* ConfigSpace: default/default_value, weights, meta and q are ignored. */
static const char *const cs_num[] = {
	"name",	   "type",	    "log", "lower", "upper",
	"default", "default_value", "q",   "meta",  NULL};
static const char *const cs_cat[] = {"name",	"type",		 "choices",
				     "default", "default_value", "weights",
				     "meta",	"probabilities", NULL};
static const char *const cs_ord[] = {
	"name", "type", "sequence", "default", "default_value", "meta", NULL};
static const char *const cs_const[] = {"name", "type", "value", "meta", NULL};
static const struct dialect configspace = {"lower", "upper", 0,	      cs_num,
					   cs_cat,  cs_ord,  cs_const};

/* ---- small helpers ---- */

/* Shortest of %.15g, %.16g, %.17g that reads back as x. */
/*
 * Insert "parameter 'NAME': " after the "file:line:col: " prefix of a
 * message a jsonfile getter wrote, so every message names the parameter.
 * A missing required field (DEHBQ_ENOENT) is bad input: DEHBQ_EINVAL.
 */
static int param_ctx(const struct jsonfile *jf, char *err, const char *pname,
		     int rc)
{
	char tmp[DEHBQ_ERRLEN];
	const char *name = jsonfile_name(jf), *p;
	size_t n = strlen(name);

	if (rc == DEHBQ_ENOENT)
		rc = DEHBQ_EINVAL;
	if (!err || strncmp(err, name, n))
		return rc;
	p = err + n;
	if (p[0] == ':' && isdigit((unsigned char)p[1])) {
		p++;
		while (isdigit((unsigned char)*p))
			p++;
		if (p[0] == ':' && isdigit((unsigned char)p[1])) {
			p++;
			while (isdigit((unsigned char)*p))
				p++;
		}
	}
	if (p[0] != ':' || p[1] != ' ')
		return rc;
	p += 2;
	snprintf(tmp, sizeof(tmp), "%.*sparameter '%s': %s", (int)(p - err),
		 err, pname, p);
	snprintf(err, DEHBQ_ERRLEN, "%s", tmp);
	return rc;
}

void space_value_release(struct space_value *v)
{
	if (v->type == SPACE_V_STRING)
		free((char *)v->s);
}

static void param_release(struct space_param *p)
{
	int i;

	free(p->name);
	if (p->choices)
		for (i = 0; i < p->n; i++)
			space_value_release(&p->choices[i]);
	free(p->choices);
	free(p->order);
}

void space_free(struct space *sp)
{
	int i;

	if (!sp)
		return;
	if (sp->p)
		for (i = 0; i < sp->dim; i++)
			param_release(&sp->p[i]);
	free(sp->p);
	free(sp->by_name);
	space_cond_free(sp);
	space_forb_free(sp);
	free(sp);
}

static int name_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (n < 1 || n > NAME_MAX_LEN)
		return 0;
	if (!isalpha((unsigned char)s[0]) && s[0] != '_')
		return 0;
	for (i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.:-", s[i]))
			return 0;
	return 1;
}

_Static_assert(SPACE_ENV_LEN >= sizeof(SPACE_ENV_PREFIX) + NAME_MAX_LEN,
	       "SPACE_ENV_LEN must hold the variable of any valid name");

int space_env_name(const char *name, char *buf, size_t size)
{
	size_t n = sizeof(SPACE_ENV_PREFIX) - 1, i;

	if (size < n + strlen(name) + 1)
		return DEHBQ_ETOOBIG;
	memcpy(buf, SPACE_ENV_PREFIX, n);
	for (i = 0; name[i]; i++) {
		unsigned char c = (unsigned char)name[i];

		/* by hand, not toupper/isalnum: the locale must not matter */
		if (c >= 'a' && c <= 'z')
			c = (unsigned char)(c - 'a' + 'A');
		else if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
			c = '_';
		buf[n++] = (char)c;
	}
	buf[n] = 0;
	return DEHBQ_OK;
}

/* JSON scalar -> value; strings are copied.  EINVAL for other items. */
int space_value_from_item(const cJSON *it, struct space_value *v)
{
	memset(v, 0, sizeof(*v));
	if (cJSON_IsString(it)) {
		v->type = SPACE_V_STRING;
		v->s = strdup(it->valuestring);
		return v->s ? DEHBQ_OK : DEHBQ_ENOMEM;
	}
	if (cJSON_IsBool(it)) {
		v->type = SPACE_V_BOOL;
		v->b = cJSON_IsTrue(it);
		return DEHBQ_OK;
	}
	if (cJSON_IsNumber(it)) {
		double d = it->valuedouble;

		if (d == floor(d) && fabs(d) <= INT_LIMIT) {
			v->type = SPACE_V_INT;
			v->i = (int64_t)d;
		} else {
			v->type = SPACE_V_FLOAT;
			v->f = d;
		}
		return DEHBQ_OK;
	}
	return DEHBQ_EINVAL;
}

/* Exact equality of two values of the same parameter. */
int space_value_eq(const struct space_value *x, const struct space_value *y)
{
	if (x->type == SPACE_V_STRING || y->type == SPACE_V_STRING)
		return x->type == y->type && !strcmp(x->s, y->s);
	if (x->type == SPACE_V_BOOL || y->type == SPACE_V_BOOL)
		return x->type == y->type && !x->b == !y->b;
	if (x->type == SPACE_V_INT && y->type == SPACE_V_INT)
		return x->i == y->i;
	return (x->type == SPACE_V_INT ? (double)x->i : x->f) ==
	       (y->type == SPACE_V_INT ? (double)y->i : y->f);
}

/* Total order for sorting values of one type (duplicates adjacent). */
static int value_cmp(const struct space_value *x, const struct space_value *y)
{
	double dx, dy;

	if (x->type == SPACE_V_STRING)
		return strcmp(x->s, y->s);
	if (x->type == SPACE_V_BOOL)
		return (x->b > y->b) - (x->b < y->b);
	if (x->type == SPACE_V_INT && y->type == SPACE_V_INT)
		return (x->i > y->i) - (x->i < y->i);
	dx = x->type == SPACE_V_INT ? (double)x->i : x->f;
	dy = y->type == SPACE_V_INT ? (double)y->i : y->f;
	return (dx > dy) - (dx < dy);
}

/* 0 string, 1 number, 2 bool, -1 invalid: values compare within one. */
static int value_class(const struct space_value *v)
{
	switch (v->type) {
	case SPACE_V_STRING:
		return v->s ? 0 : -1;
	case SPACE_V_FLOAT:
	case SPACE_V_INT:
		return 1;
	case SPACE_V_BOOL:
		return 2;
	case SPACE_V_INACTIVE:
		break;
	}
	return -1;
}

/* Index of the choice equal to v, -1 if none; O(log n). */
static int find_choice(const struct space_param *p, const struct space_value *v)
{
	int lo = 0, hi = p->n - 1;

	if (value_class(v) < 0 || value_class(v) != value_class(p->choices))
		return -1;
	if (!p->order) /* a constant */
		return space_value_eq(&p->choices[0], v) ? 0 : -1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		int c = value_cmp(v, &p->choices[p->order[mid]]);

		if (!c)
			return p->order[mid];
		if (c < 0)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	return -1;
}

/* Index of the choice matching JSON scalar it (same JSON type), or -1. */
static int find_choice_item(const struct space_param *p, const cJSON *it)
{
	struct space_value v;

	memset(&v, 0, sizeof(v));
	if (cJSON_IsString(it)) {
		v.type = SPACE_V_STRING;
		v.s = it->valuestring;
	} else if (cJSON_IsBool(it)) {
		v.type = SPACE_V_BOOL;
		v.b = cJSON_IsTrue(it);
	} else if (cJSON_IsNumber(it)) {
		v.type = SPACE_V_FLOAT;
		v.f = it->valuedouble;
	} else {
		return -1;
	}
	return find_choice(p, &v);
}

/* Describe a value for a message: "adam" in quotes, numbers bare. */
static void value_describe(const struct space_value *v, char *buf, size_t size)
{
	if (v->type == SPACE_V_STRING)
		snprintf(buf, size, "\"%.60s\"", v->s);
	else if (space_value_format(v, buf, size))
		snprintf(buf, size, "?");
}

/* ---- sorting for uniqueness checks ---- */

struct sorted {
	const struct space_value *v; /* value compared */
	const char *name;	     /* or a name, when v is NULL */
	int idx;		     /* position in the input */
};

static int sorted_cmp(const void *pa, const void *pb)
{
	const struct sorted *a = pa, *b = pb;
	int c = a->v ? value_cmp(a->v, b->v) : strcmp(a->name, b->name);

	return c ? c : (a->idx > b->idx) - (a->idx < b->idx);
}

/*
 * Sort n entries; if two are equal set *first and *dup to the pair with the
 * smallest later index and return 1.  Entries sort by (value, index), so
 * a run of equal values starts with its earliest entry.
 */
static int find_dup(struct sorted *s, int n, int *first, int *dup)
{
	int i, found = 0;

	qsort(s, (size_t)n, sizeof(*s), sorted_cmp);
	for (i = 1; i < n; i++) {
		int eq = s[i].v ? !value_cmp(s[i].v, s[i - 1].v)
				: !strcmp(s[i].name, s[i - 1].name);

		if (eq && (!found || s[i].idx < *dup)) {
			*first = s[i - 1].idx;
			*dup = s[i].idx;
			found = 1;
		}
	}
	return found;
}

/* ---- parsing one parameter ---- */

static int parse_float(const struct jsonfile *jf, const cJSON *o,
		       const struct dialect *d, struct space_param *p,
		       char *err)
{
	const cJSON *lo_it = cJSON_GetObjectItemCaseSensitive(o, d->lo);
	char a[40], b[40];
	int rc;

	p->type = SPACE_FLOAT;
	rc = jsonfile_get_number(jf, o, d->lo, JSONFILE_REQUIRED, -DBL_MAX,
				 DBL_MAX, &p->lo, err);
	if (!rc)
		rc = jsonfile_get_number(jf, o, d->hi, JSONFILE_REQUIRED,
					 -DBL_MAX, DBL_MAX, &p->hi, err);
	if (!rc)
		rc = jsonfile_get_bool(jf, o, "log", JSONFILE_OPTIONAL, &p->log,
				       err);
	if (rc)
		return param_ctx(jf, err, p->name, rc);
	jsonfile_fmt_double(a, sizeof(a), p->lo);
	jsonfile_fmt_double(b, sizeof(b), p->hi);
	if (!(p->lo < p->hi))
		return jsonfile_errf(jf, lo_it, err,
				     "parameter '%s': '%s' (%s) must be < '%s' "
				     "(%s)%s",
				     p->name, d->lo, a, d->hi, b,
				     p->lo == p->hi ? "; for a fixed value "
						      "use a constant"
						    : "");
	if (!isfinite(p->hi - p->lo))
		return jsonfile_errf(jf, lo_it, err,
				     "parameter '%s': range [%s, %s] is too "
				     "wide ('%s' - '%s' overflows a double)",
				     p->name, a, b, d->hi, d->lo);
	if (p->log) {
		if (!(p->lo > 0))
			return jsonfile_errf(jf, lo_it, err,
					     "parameter '%s': '%s' (%s) must "
					     "be > 0 when 'log' is true",
					     p->name, d->lo, a);
		p->a = log(p->lo);
		p->b = log(p->hi) - p->a;
	}
	if (d->defaults) {
		struct space_value *v = &p->def;

		const cJSON *it =
			cJSON_GetObjectItemCaseSensitive(o, "default");

		v->type = SPACE_V_FLOAT;
		rc = jsonfile_get_number(jf, o, "default", JSONFILE_OPTIONAL,
					 -DBL_MAX, DBL_MAX, &v->f, err);
		if (rc)
			return param_ctx(jf, err, p->name, rc);
		p->has_def = it != NULL;
		if (it && !(v->f >= p->lo && v->f <= p->hi)) {
			char c[40];

			jsonfile_fmt_double(c, sizeof(c), v->f);
			return jsonfile_errf(
				jf, it, err,
				"parameter '%s': 'default' (%s) is "
				"out of range [%s, %s]",
				p->name, c, a, b);
		}
	}
	return DEHBQ_OK;
}

static int parse_int(const struct jsonfile *jf, const cJSON *o,
		     const struct dialect *d, struct space_param *p, char *err)
{
	const cJSON *lo_it = cJSON_GetObjectItemCaseSensitive(o, d->lo);
	int64_t lim = (int64_t)INT_LIMIT;
	int rc;

	p->type = SPACE_INT;
	rc = jsonfile_get_int(jf, o, d->lo, JSONFILE_REQUIRED, -lim, lim,
			      &p->ilo, err);
	if (!rc)
		rc = jsonfile_get_int(jf, o, d->hi, JSONFILE_REQUIRED, -lim,
				      lim, &p->ihi, err);
	if (!rc)
		rc = jsonfile_get_bool(jf, o, "log", JSONFILE_OPTIONAL, &p->log,
				       err);
	if (rc)
		return param_ctx(jf, err, p->name, rc);
	if (p->ilo >= p->ihi)
		return jsonfile_errf(jf, lo_it, err,
				     "parameter '%s': '%s' (%lld) must be < "
				     "'%s' (%lld)%s",
				     p->name, d->lo, (long long)p->ilo, d->hi,
				     (long long)p->ihi,
				     p->ilo == p->ihi ? "; for a fixed value "
							"use a constant"
						      : "");
	if (p->log) {
		if (p->ilo < 1)
			return jsonfile_errf(jf, lo_it, err,
					     "parameter '%s': '%s' (%lld) must "
					     "be >= 1 when 'log' is true",
					     p->name, d->lo, (long long)p->ilo);
		p->a = log((double)p->ilo);
		p->b = log((double)p->ihi + 1.0) - p->a;
	}
	if (d->defaults) {
		struct space_value *v = &p->def;

		const cJSON *it =
			cJSON_GetObjectItemCaseSensitive(o, "default");

		v->type = SPACE_V_INT;
		rc = jsonfile_get_int(jf, o, "default", JSONFILE_OPTIONAL, -lim,
				      lim, &v->i, err);
		if (rc)
			return param_ctx(jf, err, p->name, rc);
		p->has_def = it != NULL;
		if (it && (v->i < p->ilo || v->i > p->ihi))
			return jsonfile_errf(jf, it, err,
					     "parameter '%s': 'default' (%lld) "
					     "is out of range [%lld, %lld]",
					     p->name, (long long)v->i,
					     (long long)p->ilo,
					     (long long)p->ihi);
	}
	return DEHBQ_OK;
}

/* JSON type class of a choice: 0 string, 1 number, 2 bool, -1 other. */
static int json_class(const cJSON *it)
{
	if (cJSON_IsString(it))
		return 0;
	if (cJSON_IsNumber(it))
		return 1;
	if (cJSON_IsBool(it))
		return 2;
	return -1;
}

static int parse_choices(const struct jsonfile *jf, const cJSON *o,
			 const char *key, int with_default,
			 struct space_param *p, char *err)
{
	static const char *const cls[] = {"a string", "a number", "a boolean"};
	const cJSON *arr = NULL, *it;
	struct sorted *s = NULL;
	int rc, k, n, all_int = 1, c0 = -1, f, dup;

	rc = jsonfile_get_array(jf, o, key, JSONFILE_REQUIRED, &arr, err);
	if (rc)
		return param_ctx(jf, err, p->name, rc);
	n = cJSON_GetArraySize(arr);
	if (n < 1)
		return jsonfile_errf(jf, arr, err,
				     "parameter '%s': '%s' must not be empty",
				     p->name, key);
	if (n > SPACE_MAX_CHOICES) {
		jsonfile_errf(jf, arr, err,
			      "parameter '%s': '%s' has %d entries (at most "
			      "%d)",
			      p->name, key, n, SPACE_MAX_CHOICES);
		return DEHBQ_ETOOBIG;
	}
	k = 0;
	for (it = arr->child; it; it = it->next, k++) {
		int c = json_class(it);

		if (c < 0)
			return jsonfile_errf(
				jf, it, err,
				"parameter '%s': '%s'[%d]: expected "
				"a string, number or boolean, found "
				"%s",
				p->name, key, k, jsonfile_type_name(it));
		if (c0 < 0) {
			c0 = c;
		} else if (c != c0) {
			return jsonfile_errf(
				jf, it, err,
				"parameter '%s': '%s'[%d] is %s but "
				"'%s'[0] is %s; all entries must "
				"have one JSON type",
				p->name, key, k, cls[c], key, cls[c0]);
		}
		if (c == 0 && strlen(it->valuestring) > SPACE_MAX_STRLEN)
			return jsonfile_errf(
				jf, it, err,
				"parameter '%s': '%s'[%d] is longer "
				"than %d bytes",
				p->name, key, k, SPACE_MAX_STRLEN);
		if (c == 1 && !(it->valuedouble == floor(it->valuedouble) &&
				fabs(it->valuedouble) <= INT_LIMIT))
			all_int = 0;
	}
	p->choices = calloc((size_t)n, sizeof(*p->choices));
	s = calloc((size_t)n, sizeof(*s));
	if (!p->choices || !s) {
		rc = dehbq_errf(err, DEHBQ_ENOMEM, "%s: out of memory",
				jsonfile_name(jf));
		goto fail;
	}
	p->n = n;
	k = 0;
	for (it = arr->child; it; it = it->next, k++) {
		rc = space_value_from_item(it, &p->choices[k]);
		if (rc) {
			rc = dehbq_errf(err, DEHBQ_ENOMEM, "%s: out of memory",
					jsonfile_name(jf));
			goto fail;
		}
		if (c0 == 1 && !all_int && p->choices[k].type == SPACE_V_INT) {
			p->choices[k].type = SPACE_V_FLOAT;
			p->choices[k].f = (double)p->choices[k].i;
		}
		s[k].v = &p->choices[k];
		s[k].idx = k;
	}
	if (find_dup(s, n, &f, &dup)) {
		char buf[80];

		value_describe(&p->choices[dup], buf, sizeof(buf));
		rc = jsonfile_errf(jf, cJSON_GetArrayItem(arr, dup), err,
				   "parameter '%s': '%s'[%d] (%s) duplicates "
				   "'%s'[%d]; choices must be unique",
				   p->name, key, dup, buf, key, f);
		goto fail;
	}
	p->order = malloc((size_t)n * sizeof(*p->order));
	if (!p->order) {
		rc = dehbq_errf(err, DEHBQ_ENOMEM, "%s: out of memory",
				jsonfile_name(jf));
		goto fail;
	}
	for (k = 0; k < n; k++)
		p->order[k] = s[k].idx;
	if (with_default &&
	    (it = cJSON_GetObjectItemCaseSensitive(o, "default"))) {
		int idx = find_choice_item(p, it);

		if (idx < 0 || json_class(it) != c0) {
			char *txt = cJSON_PrintUnformatted(it);

			rc = jsonfile_errf(jf, it, err,
					   "parameter '%s': 'default' (%.60s) "
					   "must be one of '%s'",
					   p->name, txt ? txt : "?", key);
			cJSON_free(txt);
			goto fail;
		}
		p->has_def = 1;
		p->def = p->choices[idx];
	}
	rc = DEHBQ_OK;
fail:
	free(s);
	return rc;
}

static int parse_constant(const struct jsonfile *jf, const cJSON *o,
			  struct space_param *p, char *err)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, "value");

	p->type = SPACE_CONSTANT;
	if (!it)
		return jsonfile_errf(jf, o, err,
				     "parameter '%s': missing required field "
				     "'value'",
				     p->name);
	if (json_class(it) < 0)
		return jsonfile_errf(jf, it, err,
				     "parameter '%s': field 'value': expected "
				     "a string, number or boolean, found %s",
				     p->name, jsonfile_type_name(it));
	if (cJSON_IsString(it) && strlen(it->valuestring) > SPACE_MAX_STRLEN)
		return jsonfile_errf(jf, it, err,
				     "parameter '%s': field 'value' is longer "
				     "than %d bytes",
				     p->name, SPACE_MAX_STRLEN);
	p->choices = calloc(1, sizeof(*p->choices));
	if (!p->choices || space_value_from_item(it, &p->choices[0]))
		return dehbq_errf(err, DEHBQ_ENOMEM, "%s: out of memory",
				  jsonfile_name(jf));
	p->n = 1;
	return DEHBQ_OK;
}

/* Map a type name to a parser; returns DEHBQ_EUNSUP/EINVAL for others. */
static int parse_param(const struct jsonfile *jf, const cJSON *o, int idx,
		       const struct dialect *d, struct space_param *p,
		       char *err)
{
	const char *name = NULL, *type = NULL;
	const cJSON *type_it;
	int rc, cs = d != &native;

	if (!cJSON_IsObject(o))
		return jsonfile_errf(jf, o, err,
				     "%s[%d]: expected an object, found %s",
				     cs ? "hyperparameters" : "parameters", idx,
				     jsonfile_type_name(o));
	rc = jsonfile_get_string(jf, o, "name", JSONFILE_REQUIRED, &name, err);
	if (rc)
		return rc == DEHBQ_ENOENT ? DEHBQ_EINVAL : rc;
	if (!name_ok(name))
		return jsonfile_errf(
			jf, cJSON_GetObjectItemCaseSensitive(o, "name"), err,
			"parameter name \"%.140s\" is invalid: use "
			"1 to %d characters from A-Z a-z 0-9 _ . "
			": -, starting with a letter or '_'",
			name, NAME_MAX_LEN);
	p->name = strdup(name);
	if (!p->name)
		return dehbq_errf(err, DEHBQ_ENOMEM, "%s: out of memory",
				  jsonfile_name(jf));
	rc = jsonfile_get_string(jf, o, "type", JSONFILE_REQUIRED, &type, err);
	if (rc)
		return param_ctx(jf, err, p->name, rc);
	type_it = cJSON_GetObjectItemCaseSensitive(o, "type");
	if (!strcmp(type, cs ? "uniform_float" : "float")) {
		rc = jsonfile_check_keys(jf, o, d->k_num, err);
		return rc ? param_ctx(jf, err, p->name, rc)
			  : parse_float(jf, o, d, p, err);
	}
	if (!strcmp(type, cs ? "uniform_int" : "int")) {
		rc = jsonfile_check_keys(jf, o, d->k_num, err);
		return rc ? param_ctx(jf, err, p->name, rc)
			  : parse_int(jf, o, d, p, err);
	}
	if (!strcmp(type, "categorical")) {
		p->type = SPACE_CATEGORICAL;
		rc = jsonfile_check_keys(jf, o, d->k_cat, err);
		return rc ? param_ctx(jf, err, p->name, rc)
			  : parse_choices(jf, o, "choices", d->defaults, p,
					  err);
	}
	if (!strcmp(type, "ordinal")) {
		p->type = SPACE_ORDINAL;
		rc = jsonfile_check_keys(jf, o, d->k_ord, err);
		return rc ? param_ctx(jf, err, p->name, rc)
			  : parse_choices(jf, o, "sequence", d->defaults, p,
					  err);
	}
	if (!strcmp(type, "constant") ||
	    (cs && !strcmp(type, "unparametrized"))) {
		rc = jsonfile_check_keys(jf, o, d->k_const, err);
		return rc ? param_ctx(jf, err, p->name, rc)
			  : parse_constant(jf, o, p, err);
	}
	if (cs &&
	    (!strcmp(type, "normal_float") || !strcmp(type, "normal_int") ||
	     !strcmp(type, "beta_float") || !strcmp(type, "beta_int"))) {
		jsonfile_errf(jf, type_it, err,
			      "parameter '%s': type '%s' is not supported yet "
			      "(dehbq 0.1); use uniform_%s (with \"log\": true "
			      "if that fits)",
			      p->name, type,
			      strstr(type, "int") ? "int" : "float");
		return DEHBQ_EUNSUP;
	}
	if (cs)
		return jsonfile_errf(jf, type_it, err,
				     "parameter '%s': unknown type '%.40s' "
				     "(expected uniform_float, uniform_int, "
				     "categorical, ordinal or constant)",
				     p->name, type);
	return jsonfile_errf(jf, type_it, err,
			     "parameter '%s': unknown type '%.40s' (expected "
			     "float, int, categorical, ordinal or constant)",
			     p->name, type);
}

/* ---- parsing a space ---- */

static int parse_params(const struct jsonfile *jf, const cJSON *arr,
			const struct dialect *d, struct space **out, char *err)
{
	struct space *sp;
	struct sorted *s = NULL;
	char *env = NULL;
	const cJSON *it;
	int rc = DEHBQ_ENOMEM, n, i, f, dup;
	const char *key = d == &native ? "parameters" : "hyperparameters";

	n = cJSON_GetArraySize(arr);
	if (n < 1)
		return jsonfile_errf(jf, arr, err,
				     "'%s' is empty; a space needs at least "
				     "one parameter",
				     key);
	if (n > SPACE_MAX_PARAMS) {
		jsonfile_errf(jf, arr, err, "'%s' has %d entries (at most %d)",
			      key, n, SPACE_MAX_PARAMS);
		return DEHBQ_ETOOBIG;
	}
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return dehbq_errf(err, rc, "%s: out of memory",
				  jsonfile_name(jf));
	sp->p = calloc((size_t)n, sizeof(*sp->p));
	sp->by_name = calloc((size_t)n, sizeof(*sp->by_name));
	s = calloc((size_t)n, sizeof(*s));
	env = malloc((size_t)n * SPACE_ENV_LEN);
	if (!sp->p || !sp->by_name || !s || !env) {
		dehbq_errf(err, rc, "%s: out of memory", jsonfile_name(jf));
		goto fail;
	}
	sp->dim = n;
	i = 0;
	for (it = arr->child; it; it = it->next, i++) {
		rc = parse_param(jf, it, i, d, &sp->p[i], err);
		if (rc)
			goto fail;
	}
	for (i = 0; i < n; i++) {
		s[i].name = sp->p[i].name;
		s[i].idx = i;
	}
	if (find_dup(s, n, &f, &dup)) {
		int line, col;

		jsonfile_where(jf, cJSON_GetArrayItem(arr, f), &line, &col);
		rc = jsonfile_errf(jf, cJSON_GetArrayItem(arr, dup), err,
				   "parameter '%s' is defined twice (first at "
				   "line %d); names must be unique",
				   sp->p[dup].name, line);
		goto fail;
	}
	for (i = 0; i < n; i++)
		sp->by_name[i] = s[i].idx;
	/* the worker exports each name as space_env_name(); no two may meet */
	for (i = 0; i < n; i++) {
		space_env_name(sp->p[i].name, env + (size_t)i * SPACE_ENV_LEN,
			       SPACE_ENV_LEN);
		s[i].name = env + (size_t)i * SPACE_ENV_LEN;
		s[i].idx = i;
	}
	if (find_dup(s, n, &f, &dup)) {
		int line, col;

		jsonfile_where(jf, cJSON_GetArrayItem(arr, f), &line, &col);
		rc = jsonfile_errf(jf, cJSON_GetArrayItem(arr, dup), err,
				   "parameters '%s' (line %d) and '%s' both "
				   "become environment variable %s for the "
				   "trainer; rename one",
				   sp->p[f].name, line, sp->p[dup].name,
				   env + (size_t)dup * SPACE_ENV_LEN);
		goto fail;
	}
	free(env);
	free(s);
	*out = sp;
	return DEHBQ_OK;
fail:
	free(env);
	free(s);
	space_free(sp);
	return rc;
}

/*
 * After the parameters (rc), obj's optional "conditions" and "forbiddens"
 * (the same in both formats); *out freed on failure.
 */
static int with_conditions(const struct jsonfile *jf, const cJSON *obj, int rc,
			   struct space **out, char *err)
{
	const cJSON *c = NULL, *fb = NULL;

	if (rc)
		return rc;
	if ((rc = jsonfile_get_array(jf, obj, "conditions", JSONFILE_OPTIONAL,
				     &c, err)) ||
	    (rc = jsonfile_get_array(jf, obj, "forbiddens", JSONFILE_OPTIONAL,
				     &fb, err)) ||
	    (rc = space_cond_parse(jf, c, *out, err)) ||
	    (rc = space_forb_parse(jf, fb, *out, err))) {
		if (rc == DEHBQ_ENOMEM)
			dehbq_errf(err, rc, "%s: out of memory",
				   jsonfile_name(jf));
		space_free(*out);
		*out = NULL;
	}
	return rc;
}

static int parse_native(const struct jsonfile *jf, const cJSON *obj,
			struct space **out, char *err)
{
	static const char *const keys[] = {"format", "parameters", "conditions",
					   "forbiddens", NULL};
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(obj, "format");
	const cJSON *arr = NULL;
	int rc;

	if (!cJSON_IsString(f) || strcmp(f->valuestring, SPACE_FORMAT))
		return jsonfile_errf(jf, f, err,
				     "field 'format': expected \"%s\", found "
				     "%s%.40s%s",
				     SPACE_FORMAT,
				     cJSON_IsString(f) ? "\"" : "",
				     cJSON_IsString(f) ? f->valuestring
						       : jsonfile_type_name(f),
				     cJSON_IsString(f) ? "\"" : "");
	rc = jsonfile_check_keys(jf, obj, keys, err);
	if (!rc)
		rc = jsonfile_get_array(jf, obj, "parameters",
					JSONFILE_REQUIRED, &arr, err);
	if (rc)
		return rc == DEHBQ_ENOENT ? DEHBQ_EINVAL : rc;
	return with_conditions(
		jf, obj, parse_params(jf, arr, &native, out, err), out, err);
}

static int parse_configspace(const struct jsonfile *jf, const cJSON *obj,
			     struct space **out, char *err)
{
	static const char *const keys[] = {"name",
					   "hyperparameters",
					   "conditions",
					   "forbiddens",
					   "python_module_version",
					   "json_format_version",
					   "format_version",
					   NULL};
	const cJSON *arr = NULL, *nm;
	int rc;

	rc = jsonfile_check_keys(jf, obj, keys, err);
	if (rc)
		return rc;
	nm = cJSON_GetObjectItemCaseSensitive(obj, "name");
	if (nm && !cJSON_IsString(nm) && !cJSON_IsNull(nm))
		return jsonfile_errf(jf, nm, err,
				     "field 'name': expected a string or null, "
				     "found %s",
				     jsonfile_type_name(nm));
	rc = jsonfile_get_array(jf, obj, "hyperparameters", JSONFILE_REQUIRED,
				&arr, err);
	if (rc)
		return rc == DEHBQ_ENOENT ? DEHBQ_EINVAL : rc;
	return with_conditions(jf, obj,
			       parse_params(jf, arr, &configspace, out, err),
			       out, err);
}

int space_from_json(const struct jsonfile *jf, const cJSON *obj,
		    struct space **out, char *err)
{
	*out = NULL;
	if (!cJSON_IsObject(obj))
		return jsonfile_errf(jf, obj, err,
				     "expected a search space object, found %s",
				     obj ? jsonfile_type_name(obj) : "nothing");
	if (cJSON_GetObjectItemCaseSensitive(obj, "format"))
		return parse_native(jf, obj, out, err);
	if (cJSON_GetObjectItemCaseSensitive(obj, "hyperparameters"))
		return parse_configspace(jf, obj, out, err);
	return jsonfile_errf(jf, obj, err,
			     "not a search space: expected \"format\": \"%s\" "
			     "or a ConfigSpace object with "
			     "\"hyperparameters\"",
			     SPACE_FORMAT);
}

int space_load(const char *path, struct space **out, char *err)
{
	struct jsonfile *jf;
	int rc;

	*out = NULL;
	rc = jsonfile_load(path, SPACE_FILE_CAP, &jf, err);
	if (rc)
		return rc;
	rc = space_from_json(jf, jsonfile_root(jf), out, err);
	jsonfile_free(jf);
	return rc;
}

/* ---- accessors ---- */

int space_dim(const struct space *sp)
{
	return sp->dim;
}

const char *space_param_name(const struct space *sp, int i)
{
	return i >= 0 && i < sp->dim ? sp->p[i].name : NULL;
}

int space_param_choices(const struct space *sp, int i)
{
	const struct space_param *p;

	if (i < 0 || i >= sp->dim)
		return 0;
	p = &sp->p[i];
	return p->type == SPACE_CATEGORICAL || p->type == SPACE_ORDINAL ? p->n
									: 0;
}

enum space_type space_param_type(const struct space *sp, int i)
{
	return i >= 0 && i < sp->dim ? sp->p[i].type : SPACE_CONSTANT;
}

int space_param_find(const struct space *sp, const char *name)
{
	int lo = 0, hi = sp->dim - 1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		int c = strcmp(name, sp->p[sp->by_name[mid]].name);

		if (!c)
			return sp->by_name[mid];
		if (c < 0)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	return -1;
}

/* Equal JSON trees (both freed); 0 also when one is NULL. */
static int same_json(cJSON *x, cJSON *y)
{
	int same = x && y && cJSON_Compare(x, y, 1);

	cJSON_Delete(x);
	cJSON_Delete(y);
	return same;
}

int space_equal(const struct space *a, const struct space *b)
{
	int i, k;

	if (a->dim != b->dim)
		return 0;
	for (i = 0; i < a->dim; i++) {
		const struct space_param *p = &a->p[i], *q = &b->p[i];

		if (strcmp(p->name, q->name) || p->type != q->type)
			return 0;
		switch (p->type) {
		case SPACE_FLOAT:
			if (p->lo != q->lo || p->hi != q->hi ||
			    !p->log != !q->log)
				return 0;
			break;
		case SPACE_INT:
			if (p->ilo != q->ilo || p->ihi != q->ihi ||
			    !p->log != !q->log)
				return 0;
			break;
		default:
			if (p->n != q->n)
				return 0;
			for (k = 0; k < p->n; k++)
				if (p->choices[k].type != q->choices[k].type ||
				    !space_value_eq(&p->choices[k],
						    &q->choices[k]))
					return 0;
		}
	}
	if (!a->cond != !b->cond || a->nforb != b->nforb)
		return 0;
	if (a->cond && !same_json(space_cond_to_json(a), space_cond_to_json(b)))
		return 0;
	return !a->nforb ||
	       same_json(space_forb_to_json(a), space_forb_to_json(b));
}

/* ---- encoding ---- */

static double clamp01(double v)
{
	if (!(v > 0)) /* also NaN */
		return 0;
	return v < 1 ? v : 1;
}

/* Index in [0, n-1] of v's bin when [0,1] is cut into n equal bins. */
static double bin_index(double v, double n)
{
	double k = floor(v * n);

	if (k > n - 1)
		k = n - 1;
	return k < 0 ? 0 : k;
}

static void decode_one(const struct space_param *p, double v,
		       struct space_value *out)
{
	memset(out, 0, sizeof(*out));
	v = clamp01(v);
	switch (p->type) {
	case SPACE_FLOAT: {
		double x;

		out->type = SPACE_V_FLOAT;
		if (v <= 0) {
			out->f = p->lo;
			return;
		}
		if (v >= 1) {
			out->f = p->hi;
			return;
		}
		x = p->log ? exp(p->a + v * p->b) : p->lo + (p->hi - p->lo) * v;
		out->f = x < p->lo ? p->lo : x > p->hi ? p->hi : x;
		return;
	}
	case SPACE_INT: {
		int64_t k;

		out->type = SPACE_V_INT;
		if (p->log) {
			double x = floor(exp(p->a + v * p->b));

			/* x may be huge or below low only by rounding */
			if (!(x >= (double)p->ilo))
				k = p->ilo;
			else if (x >= (double)p->ihi)
				k = p->ihi;
			else
				k = (int64_t)x;
		} else {
			double n = (double)(p->ihi - p->ilo) + 1.0;

			k = p->ilo + (int64_t)bin_index(v, n);
		}
		out->i = k < p->ilo ? p->ilo : k > p->ihi ? p->ihi : k;
		return;
	}
	case SPACE_CATEGORICAL:
	case SPACE_ORDINAL:
		*out = p->choices[(int)bin_index(v, (double)p->n)];
		return;
	case SPACE_CONSTANT:
		*out = p->choices[0];
		return;
	}
}

int space_decode(const struct space *sp, const double *vec,
		 struct space_value *vals)
{
	int i;

	unsigned char *on;

	for (i = 0; i < sp->dim; i++)
		decode_one(&sp->p[i], vec[i], &vals[i]);
	if (!sp->cond)
		return DEHBQ_OK;
	if (!(on = malloc((size_t)sp->dim)))
		return DEHBQ_ENOMEM;
	space_active(sp, vals, on);
	for (i = 0; i < sp->dim; i++)
		if (!on[i])
			vals[i].type = SPACE_V_INACTIVE;
	free(on);
	return DEHBQ_OK;
}

/*
 * Check v legal for p and convert it to p's own representation in *out
 * (strings borrowed from p).  EINVAL with a message otherwise.
 */
int space_check_value(const struct space_param *p, const struct space_value *v,
		      struct space_value *out, char *err)
{
	char a[64], b[40], c[40];
	int k;

	memset(out, 0, sizeof(*out));
	switch (p->type) {
	case SPACE_FLOAT:
		out->type = SPACE_V_FLOAT;
		if (v->type == SPACE_V_FLOAT)
			out->f = v->f;
		else if (v->type == SPACE_V_INT)
			out->f = (double)v->i;
		else
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "parameter '%s': expected a number",
					  p->name);
		if (!(out->f >= p->lo && out->f <= p->hi)) {
			jsonfile_fmt_double(a, sizeof(a), out->f);
			jsonfile_fmt_double(b, sizeof(b), p->lo);
			jsonfile_fmt_double(c, sizeof(c), p->hi);
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "parameter '%s': %s is out of range "
					  "[%s, %s]",
					  p->name, a, b, c);
		}
		return DEHBQ_OK;
	case SPACE_INT:
		out->type = SPACE_V_INT;
		if (v->type == SPACE_V_INT) {
			out->i = v->i;
		} else if (v->type == SPACE_V_FLOAT && v->f == floor(v->f) &&
			   fabs(v->f) <= INT_LIMIT) {
			out->i = (int64_t)v->f;
		} else {
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "parameter '%s': expected an integer",
					  p->name);
		}
		if (out->i < p->ilo || out->i > p->ihi)
			return dehbq_errf(
				err, DEHBQ_EINVAL,
				"parameter '%s': %lld is out of range "
				"[%lld, %lld]",
				p->name, (long long)out->i, (long long)p->ilo,
				(long long)p->ihi);
		return DEHBQ_OK;
	default:
		k = find_choice(p, v);
		if (k < 0) {
			if (value_class(v) >= 0)
				value_describe(v, a, sizeof(a));
			else
				snprintf(a, sizeof(a), "the value");
			if (p->type == SPACE_CONSTANT) {
				value_describe(&p->choices[0], b, sizeof(b));
				return dehbq_errf(err, DEHBQ_EINVAL,
						  "parameter '%s': %s is not "
						  "the constant %s",
						  p->name, a, b);
			}
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "parameter '%s': %s is not one of "
					  "its %d choices",
					  p->name, a, p->n);
		}
		*out = p->choices[k];
		return DEHBQ_OK;
	}
}

/* v for a legal value x of p (as returned by check_value). */
static double encode_one(const struct space_param *p,
			 const struct space_value *x)
{
	struct space_value got;
	double v, w;
	int k, s;

	switch (p->type) {
	case SPACE_FLOAT:
		if (x->f <= p->lo)
			return 0;
		if (x->f >= p->hi)
			return 1;
		v = p->log ? (log(x->f) - p->a) / p->b
			   : (x->f - p->lo) / (p->hi - p->lo);
		break;
	case SPACE_INT:
		if (p->log)
			v = (log((double)x->i + 0.5) - p->a) / p->b;
		else
			v = ((double)(x->i - p->ilo) + 0.5) /
			    ((double)(p->ihi - p->ilo) + 1.0);
		break;
	case SPACE_CONSTANT:
		return 0.5;
	default:
		k = find_choice(p, x);
		return ((double)k + 0.5) / (double)p->n;
	}
	v = clamp01(v);
	decode_one(p, v, &got);
	if (space_value_eq(&got, x))
		return v;
	/* Rounding spoilt the inverse: walk a few ulps each way. */
	for (s = -1; s <= 1; s += 2) {
		w = v;
		for (k = 0; k < NUDGE_STEPS; k++) {
			w = nextafter(w, s < 0 ? 0.0 : 1.0);
			decode_one(p, w, &got);
			if (space_value_eq(&got, x))
				return w;
		}
	}
	return v;
}

int space_encode(const struct space *sp, const struct space_value *vals,
		 double *vec, char *err)
{
	struct space_value x;
	double *tmp;
	int i, rc;

	for (i = 0; i < sp->dim; i++) {
		if (vals[i].type == SPACE_V_INACTIVE)
			continue;
		rc = space_check_value(&sp->p[i], &vals[i], &x, err);
		if (rc)
			return rc;
	}
	tmp = malloc((size_t)sp->dim * sizeof(*tmp));
	if (!tmp)
		return dehbq_errf(err, DEHBQ_ENOMEM, "out of memory");
	for (i = 0; i < sp->dim; i++) {
		if (vals[i].type == SPACE_V_INACTIVE) {
			tmp[i] = 0.5; /* any point: its value is unused */
			continue;
		}
		space_check_value(&sp->p[i], &vals[i], &x, NULL);
		tmp[i] = encode_one(&sp->p[i], &x);
	}
	memcpy(vec, tmp, (size_t)sp->dim * sizeof(*tmp));
	free(tmp);
	return DEHBQ_OK;
}

/* ---- output ---- */

cJSON *space_value_to_json(const struct space_value *v)
{
	switch (v->type) {
	case SPACE_V_FLOAT:
		return jsonfile_number(v->f);
	case SPACE_V_INT:
		return jsonfile_number((double)v->i);
	case SPACE_V_STRING:
		return cJSON_CreateString(v->s);
	case SPACE_V_BOOL:
		return cJSON_CreateBool(v->b);
	case SPACE_V_INACTIVE:
		break;
	}
	return NULL;
}

/* Add item to obj under key; deletes item and returns 0 on failure. */
static int add(cJSON *obj, const char *key, cJSON *item)
{
	if (!item)
		return 0;
	if (!cJSON_AddItemToObject(obj, key, item)) {
		cJSON_Delete(item);
		return 0;
	}
	return 1;
}

static cJSON *param_to_json(const struct space_param *p)
{
	static const char *const tname[] = {
		[SPACE_FLOAT] = "float",
		[SPACE_INT] = "int",
		[SPACE_CATEGORICAL] = "categorical",
		[SPACE_ORDINAL] = "ordinal",
		[SPACE_CONSTANT] = "constant",
	};
	cJSON *o = cJSON_CreateObject(), *arr;
	int k, ok;

	if (!o)
		return NULL;
	ok = add(o, "name", cJSON_CreateString(p->name)) &&
	     add(o, "type", cJSON_CreateString(tname[p->type]));
	switch (p->type) {
	case SPACE_FLOAT:
		ok = ok && add(o, "low", jsonfile_number(p->lo)) &&
		     add(o, "high", jsonfile_number(p->hi));
		break;
	case SPACE_INT:
		ok = ok && add(o, "low", jsonfile_number((double)p->ilo)) &&
		     add(o, "high", jsonfile_number((double)p->ihi));
		break;
	case SPACE_CATEGORICAL:
	case SPACE_ORDINAL:
		arr = cJSON_CreateArray();
		ok = ok &&
		     add(o, p->type == SPACE_ORDINAL ? "sequence" : "choices",
			 arr);
		for (k = 0; ok && k < p->n; k++) {
			cJSON *c = space_value_to_json(&p->choices[k]);

			ok = c && cJSON_AddItemToArray(arr, c);
			if (!ok)
				cJSON_Delete(c);
		}
		break;
	case SPACE_CONSTANT:
		ok = ok && add(o, "value", space_value_to_json(&p->choices[0]));
		break;
	}
	if (ok && p->log)
		ok = add(o, "log", cJSON_CreateTrue());
	if (ok && p->has_def)
		ok = add(o, "default", space_value_to_json(&p->def));
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

cJSON *space_to_json(const struct space *sp)
{
	cJSON *o = cJSON_CreateObject(), *arr = NULL, *p;
	int i;

	if (!o || !add(o, "format", cJSON_CreateString(SPACE_FORMAT)))
		goto fail;
	arr = cJSON_CreateArray();
	if (!add(o, "parameters", arr)) /* o owns arr from here on */
		goto fail;
	for (i = 0; i < sp->dim; i++) {
		p = param_to_json(&sp->p[i]);
		if (!p || !cJSON_AddItemToArray(arr, p)) {
			cJSON_Delete(p);
			goto fail;
		}
	}
	if (sp->cond && !add(o, "conditions", space_cond_to_json(sp)))
		goto fail;
	if (sp->nforb && !add(o, "forbiddens", space_forb_to_json(sp)))
		goto fail;
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

cJSON *space_config_to_json(const struct space *sp,
			    const struct space_value *vals)
{
	cJSON *o = cJSON_CreateObject();
	int i;

	if (!o)
		return NULL;
	for (i = 0; i < sp->dim; i++)
		if (vals[i].type != SPACE_V_INACTIVE &&
		    !add(o, sp->p[i].name, space_value_to_json(&vals[i]))) {
			cJSON_Delete(o);
			return NULL;
		}
	return o;
}

int space_config_from_json(const struct jsonfile *jf, const cJSON *obj,
			   const struct space *sp, struct space_value *vals,
			   char *err)
{
	struct space_value *tmp = NULL, x;
	const cJSON *it;
	char *seen = NULL, a[40], b[40], c[40];
	int rc = DEHBQ_ENOMEM, i;

	if (!cJSON_IsObject(obj))
		return jsonfile_errf(jf, obj, err,
				     "expected a configuration object, found "
				     "%s",
				     obj ? jsonfile_type_name(obj) : "nothing");
	tmp = calloc((size_t)sp->dim, sizeof(*tmp));
	seen = calloc((size_t)sp->dim, 1);
	if (!tmp || !seen) {
		dehbq_errf(err, rc, "%s: out of memory", jsonfile_name(jf));
		goto fail;
	}
	for (it = obj->child; it; it = it->next) {
		const struct space_param *p;
		int k;

		i = space_param_find(sp, it->string);
		if (i < 0) {
			rc = jsonfile_errf(jf, it, err,
					   "unknown parameter '%.130s' (not in "
					   "the search space)",
					   it->string);
			goto fail;
		}
		p = &sp->p[i];
		seen[i] = 1;
		switch (p->type) {
		case SPACE_FLOAT:
			if (!cJSON_IsNumber(it)) {
				rc = jsonfile_errf(jf, it, err,
						   "parameter '%s': expected a "
						   "number, found %s",
						   p->name,
						   jsonfile_type_name(it));
				goto fail;
			}
			x.type = SPACE_V_FLOAT;
			x.f = it->valuedouble;
			break;
		case SPACE_INT:
			if (!cJSON_IsNumber(it) ||
			    it->valuedouble != floor(it->valuedouble) ||
			    fabs(it->valuedouble) > INT_LIMIT) {
				rc = jsonfile_errf(
					jf, it, err,
					"parameter '%s': expected an "
					"integer, found %s",
					p->name,
					cJSON_IsNumber(it)
						? "a fraction"
						: jsonfile_type_name(it));
				goto fail;
			}
			x.type = SPACE_V_INT;
			x.i = (int64_t)it->valuedouble;
			break;
		default:
			k = find_choice_item(p, it);
			if (k < 0) {
				if (p->type == SPACE_CONSTANT) {
					value_describe(&p->choices[0], a,
						       sizeof(a));
					rc = jsonfile_errf(
						jf, it, err,
						"parameter '%s': value must be "
						"the constant %s",
						p->name, a);
				} else {
					rc = jsonfile_errf(
						jf, it, err,
						"parameter '%s': value is not "
						"one of its %d choices",
						p->name, p->n);
				}
				goto fail;
			}
			x = p->choices[k];
		}
		if (space_check_value(p, &x, &tmp[i], NULL)) {
			if (p->type == SPACE_FLOAT) {
				jsonfile_fmt_double(a, sizeof(a), x.f);
				jsonfile_fmt_double(b, sizeof(b), p->lo);
				jsonfile_fmt_double(c, sizeof(c), p->hi);
			} else {
				snprintf(a, sizeof(a), "%lld", (long long)x.i);
				snprintf(b, sizeof(b), "%lld",
					 (long long)p->ilo);
				snprintf(c, sizeof(c), "%lld",
					 (long long)p->ihi);
			}
			rc = jsonfile_errf(jf, it, err,
					   "parameter '%s': %s is out of range "
					   "[%s, %s]",
					   p->name, a, b, c);
			goto fail;
		}
	}
	for (i = 0; i < sp->dim; i++)
		if (!seen[i])
			tmp[i].type = SPACE_V_INACTIVE;
	space_active(sp, tmp, (unsigned char *)seen); /* seen: active now */
	for (i = 0; i < sp->dim; i++)
		if (seen[i] != (tmp[i].type != SPACE_V_INACTIVE)) {
			rc = jsonfile_errf(
				jf, obj, err,
				seen[i] ? "missing parameter '%s'; a "
					  "configuration needs every active "
					  "parameter of the space"
					: "parameter '%s' is inactive here "
					  "(its "
					  "condition does not hold): leave it "
					  "out",
				sp->p[i].name);
			goto fail;
		}
	memcpy(vals, tmp, (size_t)sp->dim * sizeof(*tmp));
	rc = DEHBQ_OK;
fail:
	free(tmp);
	free(seen);
	return rc;
}

int space_value_format(const struct space_value *v, char *buf, size_t size)
{
	int n;

	switch (v->type) {
	case SPACE_V_FLOAT: {
		char tmp[40];

		jsonfile_fmt_double(tmp, sizeof(tmp), v->f);
		n = snprintf(buf, size, "%s", tmp);
		break;
	}
	case SPACE_V_INT:
		n = snprintf(buf, size, "%lld", (long long)v->i);
		break;
	case SPACE_V_STRING:
		n = v->s ? snprintf(buf, size, "%s", v->s) : -1;
		break;
	case SPACE_V_BOOL:
		n = snprintf(buf, size, "%s", v->b ? "true" : "false");
		break;
	default:
		n = -1;
	}
	if (n < 0)
		return DEHBQ_EINVAL;
	if ((size_t)n >= size)
		return DEHBQ_ETOOBIG;
	return DEHBQ_OK;
}
