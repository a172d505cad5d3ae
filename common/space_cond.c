/*
 * space_cond.c - owns a search space's conditions: when a parameter is
 * active (docs/space.md, "Conditions")
 *
 * The JSON is ConfigSpace's, in both spaces: a list of conditions, each
 * {"type": "EQ"|"NEQ"|"LT"|"GT", "child", "parent", "value"},
 * {"type": "IN", "child", "parent", "values": [...]}, or
 * {"type": "AND"|"OR", "conditions": [...]} over leaves of one child
 * (ConfigSpace 1.x also writes that "child" at the top).  A child has one
 * condition; parents must not depend on their children (no cycles).
 * Values are the parent's own: one of its choices, or in its range.
 *
 * Evaluation follows a topological order computed at parse time, so a
 * parameter's parents are settled first; an inactive parent makes every
 * leaf on it false.  Ownership: struct space owns cond[] and topo[];
 * condition values' strings are borrowed from the parent's choices.
 */
#include "space_impl.h"

#include "err.h"
#include "jsonfile.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

enum cond_op {
	COND_EQ,
	COND_NEQ,
	COND_LT,
	COND_GT,
	COND_IN,
	COND_AND,
	COND_OR
};

static const char *const op_names[] = {"EQ", "NEQ", "LT", "GT",
				       "IN", "AND", "OR"};

struct space_cond {
	enum cond_op op;
	int parent;	       /* leaves: the parent's index */
	int nv;		       /* leaves: values (IN: any number) */
	struct space_value *v; /* owned [nv] */
	int nk;		       /* AND/OR: components */
	struct space_cond *k;  /* owned [nk] */
};

static void cond_release(struct space_cond *c)
{
	int i;

	for (i = 0; i < c->nk; i++)
		cond_release(&c->k[i]);
	free(c->k);
	free(c->v);
}

void space_cond_free(struct space *sp)
{
	int i;

	for (i = 0; sp->cond && i < sp->dim; i++)
		if (sp->cond[i]) {
			cond_release(sp->cond[i]);
			free(sp->cond[i]);
		}
	free(sp->cond);
	free(sp->topo);
	sp->cond = NULL;
	sp->topo = NULL;
}

int space_has_conditions(const struct space *sp)
{
	return sp->cond != NULL;
}

/* A parameter named by member key of o; its index, or -1 (err set). */
int space_param_of(const struct jsonfile *jf, const cJSON *o, const char *key,
		   const struct space *sp, char *err)
{
	const char *name = NULL;
	int i;

	if (jsonfile_get_string(jf, o, key, JSONFILE_REQUIRED, &name, err))
		return -1;
	if ((i = space_param_find(sp, name)) < 0)
		jsonfile_errf(jf, cJSON_GetObjectItemCaseSensitive(o, key), err,
			      "condition: '%s' %.100s is not a parameter of "
			      "the space",
			      key, name);
	return i;
}

/* One value for parent p, legal for it, into *out. */
int space_item_value(const struct jsonfile *jf, const cJSON *it,
		     const struct space_param *p, struct space_value *out,
		     char *err)
{
	struct space_value v;
	char e[DEHBQ_ERRLEN];
	int rc = space_value_from_item(it, &v);

	if (rc == DEHBQ_ENOMEM)
		return rc;
	if (rc)
		return jsonfile_errf(jf, it, err,
				     "condition on '%s': a value must be a "
				     "string, number or boolean",
				     p->name);
	rc = space_check_value(p, &v, out, e);
	space_value_release(&v);
	if (rc)
		return jsonfile_errf(jf, it, err, "condition: %s", e);
	return DEHBQ_OK;
}

static int parse_cond(const struct jsonfile *jf, const cJSON *o,
		      const struct space *sp, int depth, int *child,
		      struct space_cond *c, char *err);

static int parse_leaf_values(const struct jsonfile *jf, const cJSON *o,
			     const struct space *sp, struct space_cond *c,
			     char *err)
{
	const struct space_param *p = &sp->p[c->parent];
	const cJSON *arr = NULL, *it;
	int rc;

	if (c->op == COND_IN) {
		if ((rc = jsonfile_get_array(jf, o, "values", JSONFILE_REQUIRED,
					     &arr, err)))
			return rc == DEHBQ_ENOENT ? DEHBQ_EINVAL : rc;
		c->nv = cJSON_GetArraySize(arr);
		if (c->nv < 1)
			return jsonfile_errf(jf, arr, err,
					     "condition IN: 'values' is "
					     "empty");
	} else {
		if (!(it = cJSON_GetObjectItemCaseSensitive(o, "value")))
			return jsonfile_errf(jf, o, err,
					     "condition %s: 'value' is "
					     "missing",
					     op_names[c->op]);
		c->nv = 1;
	}
	if (!(c->v = calloc((size_t)c->nv, sizeof(*c->v))))
		return DEHBQ_ENOMEM;
	if (c->op != COND_IN)
		return space_item_value(
			jf, cJSON_GetObjectItemCaseSensitive(o, "value"), p,
			&c->v[0], err);
	c->nv = 0;
	cJSON_ArrayForEach(it, arr)
	{
		if ((rc = space_item_value(jf, it, p, &c->v[c->nv], err)))
			return rc;
		c->nv++;
	}
	return DEHBQ_OK;
}

static int parse_leaf(const struct jsonfile *jf, const cJSON *o,
		      const struct space *sp, int *child, struct space_cond *c,
		      char *err)
{
	static const char *const keys[] = {"type",  "child",  "parent",
					   "value", "values", NULL};
	int ch, rc;

	if ((rc = jsonfile_check_keys(jf, o, keys, err)))
		return rc;
	if ((ch = space_param_of(jf, o, "child", sp, err)) < 0 ||
	    (c->parent = space_param_of(jf, o, "parent", sp, err)) < 0)
		return DEHBQ_EINVAL;
	if (*child >= 0 && ch != *child)
		return jsonfile_errf(jf, o, err,
				     "condition: a conjunction's conditions "
				     "must all have the same child ('%s', not "
				     "'%s')",
				     sp->p[*child].name, sp->p[ch].name);
	*child = ch;
	if (ch == c->parent)
		return jsonfile_errf(jf, o, err,
				     "condition: '%s' cannot be its own parent",
				     sp->p[ch].name);
	if ((c->op == COND_LT || c->op == COND_GT) &&
	    sp->p[c->parent].type == SPACE_CATEGORICAL)
		return jsonfile_errf(jf, o, err,
				     "condition %s on '%s': a categorical has "
				     "no order (use IN, or make it ordinal)",
				     op_names[c->op], sp->p[c->parent].name);
	return parse_leaf_values(jf, o, sp, c, err);
}

static int parse_cond(const struct jsonfile *jf, const cJSON *o,
		      const struct space *sp, int depth, int *child,
		      struct space_cond *c, char *err)
{
	static const char *const keys[] = {"type", "child", "conditions", NULL};
	const char *type = NULL;
	const cJSON *arr = NULL, *it;
	int rc, i;

	memset(c, 0, sizeof(*c));
	if (!cJSON_IsObject(o))
		return jsonfile_errf(jf, o, err,
				     "condition: expected an object, found %s",
				     jsonfile_type_name(o));
	if ((rc = jsonfile_get_string(jf, o, "type", JSONFILE_REQUIRED, &type,
				      err)))
		return rc == DEHBQ_ENOENT ? DEHBQ_EINVAL : rc;
	for (i = 0; i < (int)(sizeof(op_names) / sizeof(op_names[0])); i++)
		if (!strcmp(type, op_names[i]))
			break;
	if (i == (int)(sizeof(op_names) / sizeof(op_names[0])))
		return jsonfile_errf(
			jf, cJSON_GetObjectItemCaseSensitive(o, "type"), err,
			"condition: type '%.40s' is not one of "
			"EQ, NEQ, LT, GT, IN, AND, OR",
			type);
	c->op = (enum cond_op)i;
	if (c->op != COND_AND && c->op != COND_OR)
		return parse_leaf(jf, o, sp, child, c, err);
	if (depth >= SPACE_MAX_NESTING)
		return jsonfile_errf(jf, o, err,
				     "condition: nested deeper than %d",
				     SPACE_MAX_NESTING);
	if ((rc = jsonfile_check_keys(jf, o, keys, err)) ||
	    (rc = jsonfile_get_array(jf, o, "conditions", JSONFILE_REQUIRED,
				     &arr, err)))
		return rc == DEHBQ_ENOENT ? DEHBQ_EINVAL : rc;
	if (cJSON_GetObjectItemCaseSensitive(o, "child") &&
	    (*child = space_param_of(jf, o, "child", sp, err)) < 0)
		return DEHBQ_EINVAL;
	if ((c->nk = cJSON_GetArraySize(arr)) < 1)
		return jsonfile_errf(jf, arr, err,
				     "condition %s: 'conditions' is empty",
				     type);
	if (!(c->k = calloc((size_t)c->nk, sizeof(*c->k))))
		return DEHBQ_ENOMEM;
	c->nk = 0;
	cJSON_ArrayForEach(it, arr)
	{
		rc = parse_cond(jf, it, sp, depth + 1, child, &c->k[c->nk],
				err);
		c->nk++; /* released with its siblings, also when partial */
		if (rc)
			return rc;
	}
	return DEHBQ_OK;
}

/* Every parent of c's leaves into deps (a bit per parameter). */
static void cond_parents(const struct space_cond *c, unsigned char *deps)
{
	int i;

	if (c->op != COND_AND && c->op != COND_OR) {
		deps[c->parent] = 1;
		return;
	}
	for (i = 0; i < c->nk; i++)
		cond_parents(&c->k[i], deps);
}

/* Kahn's order over the parent -> child edges; EINVAL on a cycle. */
static int order(const struct jsonfile *jf, const cJSON *arr, struct space *sp,
		 char *err)
{
	int n = sp->dim, i, j, done = 0, progress = 1;
	unsigned char *placed = calloc((size_t)n, 1),
		      *deps = malloc((size_t)n * (size_t)n);
	int rc = DEHBQ_OK;

	if (!placed || !deps || !(sp->topo = malloc((size_t)n * sizeof(int)))) {
		free(placed);
		free(deps);
		return DEHBQ_ENOMEM;
	}
	memset(deps, 0, (size_t)n * (size_t)n);
	for (i = 0; i < n; i++)
		if (sp->cond[i])
			cond_parents(sp->cond[i], deps + (size_t)i * n);
	while (done < n && progress)
		for (progress = 0, i = 0; i < n; i++) {
			if (placed[i])
				continue;
			for (j = 0;
			     j < n && (!deps[(size_t)i * n + j] || placed[j]);
			     j++)
				;
			if (j < n)
				continue;
			placed[i] = 1;
			sp->topo[done++] = i;
			progress = 1;
		}
	for (i = 0; done < n && i < n; i++)
		if (!placed[i]) {
			rc = jsonfile_errf(jf, arr, err,
					   "conditions form a cycle through "
					   "'%s'",
					   sp->p[i].name);
			break;
		}
	free(placed);
	free(deps);
	return rc;
}

int space_cond_parse(const struct jsonfile *jf, const cJSON *arr,
		     struct space *sp, char *err)
{
	const cJSON *it;
	int rc = DEHBQ_OK;

	if (!arr || !arr->child)
		return DEHBQ_OK;
	if (!(sp->cond = calloc((size_t)sp->dim, sizeof(*sp->cond))))
		return DEHBQ_ENOMEM;
	cJSON_ArrayForEach(it, arr)
	{
		struct space_cond *c = calloc(1, sizeof(*c));
		int child = -1;

		if (!c) {
			rc = DEHBQ_ENOMEM;
			break;
		}
		rc = parse_cond(jf, it, sp, 0, &child, c, err);
		if (!rc && child >= 0 && sp->cond[child])
			rc = jsonfile_errf(jf, it, err,
					   "'%s' has a second condition; "
					   "combine them with AND or OR",
					   sp->p[child].name);
		if (rc) {
			cond_release(c);
			free(c);
			break;
		}
		sp->cond[child] = c;
	}
	if (!rc)
		rc = order(jf, arr, sp, err);
	if (rc)
		space_cond_free(sp);
	return rc;
}

/* Order of two values of one numeric or ordinal parameter. */
static int cmp(const struct space_param *p, const struct space_value *x,
	       const struct space_value *y)
{
	double a, b;
	int i, ia = -1, ib = -1;

	if (p->type == SPACE_ORDINAL) {
		for (i = 0; i < p->n; i++) {
			if (space_value_eq(&p->choices[i], x))
				ia = i;
			if (space_value_eq(&p->choices[i], y))
				ib = i;
		}
		return (ia > ib) - (ia < ib);
	}
	a = x->type == SPACE_V_INT ? (double)x->i : x->f;
	b = y->type == SPACE_V_INT ? (double)y->i : y->f;
	return (a > b) - (a < b);
}

static int holds(const struct space *sp, const struct space_cond *c,
		 const struct space_value *vals, const unsigned char *active)
{
	const struct space_value *pv;
	int i;

	switch (c->op) {
	case COND_AND:
		for (i = 0; i < c->nk; i++)
			if (!holds(sp, &c->k[i], vals, active))
				return 0;
		return 1;
	case COND_OR:
		for (i = 0; i < c->nk; i++)
			if (holds(sp, &c->k[i], vals, active))
				return 1;
		return 0;
	default:
		break;
	}
	pv = &vals[c->parent];
	if (!active[c->parent] || pv->type == SPACE_V_INACTIVE)
		return 0;
	switch (c->op) {
	case COND_EQ:
		return space_value_eq(pv, &c->v[0]);
	case COND_NEQ:
		return !space_value_eq(pv, &c->v[0]);
	case COND_LT:
		return cmp(&sp->p[c->parent], pv, &c->v[0]) < 0;
	case COND_GT:
		return cmp(&sp->p[c->parent], pv, &c->v[0]) > 0;
	default: /* IN */
		for (i = 0; i < c->nv; i++)
			if (space_value_eq(pv, &c->v[i]))
				return 1;
		return 0;
	}
}

void space_active(const struct space *sp, const struct space_value *vals,
		  unsigned char *active)
{
	int i, k;

	for (i = 0; i < sp->dim; i++)
		active[i] = 1;
	if (!sp->cond)
		return;
	for (k = 0; k < sp->dim; k++) {
		i = sp->topo[k];
		if (sp->cond[i])
			active[i] = holds(sp, sp->cond[i], vals, active);
	}
}

static cJSON *cond_json(const struct space *sp, int child,
			const struct space_cond *c)
{
	cJSON *o = cJSON_CreateObject(), *arr = NULL, *v;
	int i, bad = !o;

	bad |= !cJSON_AddStringToObject(o, "type", op_names[c->op]);
	bad |= !cJSON_AddStringToObject(o, "child", sp->p[child].name);
	if (c->op == COND_AND || c->op == COND_OR) {
		bad |= !(arr = cJSON_AddArrayToObject(o, "conditions"));
		for (i = 0; !bad && i < c->nk; i++)
			bad |= !cJSON_AddItemToArray(
				       arr,
				       v = cond_json(sp, child, &c->k[i])) ||
			       !v;
	} else {
		bad |= !cJSON_AddStringToObject(o, "parent",
						sp->p[c->parent].name);
		if (c->op == COND_IN) {
			bad |= !(arr = cJSON_AddArrayToObject(o, "values"));
			for (i = 0; !bad && i < c->nv; i++)
				bad |= !(v = space_value_to_json(&c->v[i])) ||
				       !cJSON_AddItemToArray(arr, v);
		} else {
			bad |= !(v = space_value_to_json(&c->v[0])) ||
			       !cJSON_AddItemToObject(o, "value", v);
		}
	}
	if (bad) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

cJSON *space_cond_to_json(const struct space *sp)
{
	cJSON *arr = cJSON_CreateArray(), *c;
	int i;

	for (i = 0; arr && i < sp->dim; i++)
		if (sp->cond[i] && (!(c = cond_json(sp, i, sp->cond[i])) ||
				    !cJSON_AddItemToArray(arr, c))) {
			cJSON_Delete(arr);
			return NULL;
		}
	return arr;
}
