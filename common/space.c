/*
 * space.c - search spaces: their parameters and values, accessors,
 * equality and release.  Parsing is space_parse.c's, the unit-cube
 * encoding and the JSON output space_codec.c's, conditions space_cond.c's
 * and forbidden clauses space_forb.c's.
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
 */
#include "space.h"
#include "space_impl.h"

#include "err.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_LEN 128		/* bytes of a parameter name */
#define INT_LIMIT    9007199254740992.0 /* 2^53: exact in a double */

/* ---- small helpers ---- */

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
int space_value_cmp(const struct space_value *x, const struct space_value *y)
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
int space_value_class(const struct space_value *v)
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
int space_find_choice(const struct space_param *p, const struct space_value *v)
{
	int lo = 0, hi = p->n - 1;

	if (space_value_class(v) < 0 ||
	    space_value_class(v) != space_value_class(p->choices))
		return -1;
	if (!p->order) /* a constant */
		return space_value_eq(&p->choices[0], v) ? 0 : -1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		int c = space_value_cmp(v, &p->choices[p->order[mid]]);

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
int space_find_choice_item(const struct space_param *p, const cJSON *it)
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
	return space_find_choice(p, &v);
}

/* Describe a value for a message: "adam" in quotes, numbers bare. */
void space_value_describe(const struct space_value *v, char *buf, size_t size)
{
	if (v->type == SPACE_V_STRING)
		snprintf(buf, size, "\"%.60s\"", v->s);
	else if (space_value_format(v, buf, size))
		snprintf(buf, size, "?");
}

/* ---- uniqueness checks ---- */

static int sorted_cmp(const void *pa, const void *pb)
{
	const struct space_sorted *a = pa, *b = pb;
	int c = a->v ? space_value_cmp(a->v, b->v) : strcmp(a->name, b->name);

	return c ? c : (a->idx > b->idx) - (a->idx < b->idx);
}

int space_find_dup(struct space_sorted *s, int n, int *first, int *dup)
{
	int i, found = 0;

	qsort(s, (size_t)n, sizeof(*s), sorted_cmp);
	for (i = 1; i < n; i++) {
		int eq = s[i].v ? !space_value_cmp(s[i].v, s[i - 1].v)
				: !strcmp(s[i].name, s[i - 1].name);

		if (eq && (!found || s[i].idx < *dup)) {
			*first = s[i - 1].idx;
			*dup = s[i].idx;
			found = 1;
		}
	}
	return found;
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
