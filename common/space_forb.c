/*
 * space_forb.c - owns a search space's forbidden clauses: configurations
 * that must never run (docs/space.md, "Forbidden clauses")
 *
 * ConfigSpace's JSON, in a "forbiddens" array: {"type": "EQUALS", "name",
 * "value"}, {"type": "IN", "name", "values"} and {"type": "AND",
 * "clauses": [...]}.  A configuration is forbidden when one of them
 * holds; a clause on an inactive parameter never does.  Relations between
 * two parameters (RELATION_*) are refused with DEHBQ_EUNSUP.  Ownership:
 * struct space owns forb[]; values' strings are borrowed from the space.
 */
#include "space_impl.h"

#include "err.h"
#include "jsonfile.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

enum forb_op { FORB_EQUALS, FORB_IN, FORB_AND };

struct space_forb {
	enum forb_op op;
	int param;	       /* EQUALS, IN */
	int nv;		       /* values */
	struct space_value *v; /* owned [nv]; strings borrowed */
	int nk;		       /* AND: clauses */
	struct space_forb *k;  /* owned [nk] */
};

static void forb_release(struct space_forb *f)
{
	int i;

	for (i = 0; i < f->nk; i++)
		forb_release(&f->k[i]);
	free(f->k);
	free(f->v);
}

void space_forb_free(struct space *sp)
{
	int i;

	for (i = 0; i < sp->nforb; i++)
		forb_release(&sp->forb[i]);
	free(sp->forb);
	sp->forb = NULL;
	sp->nforb = 0;
}

static int parse_forb(const struct jsonfile *jf, const cJSON *o,
		      const struct space *sp, int depth, struct space_forb *f,
		      char *err)
{
	static const char *const keys[] = {"type",   "name",	"value",
					   "values", "clauses", NULL};
	const char *type = NULL;
	const cJSON *arr = NULL, *it;
	int rc;

	memset(f, 0, sizeof(*f));
	if (!cJSON_IsObject(o))
		return jsonfile_errf(jf, o, err,
				     "forbidden clause: expected an object, "
				     "found %s",
				     jsonfile_type_name(o));
	if ((rc = jsonfile_get_string(jf, o, "type", JSONFILE_REQUIRED, &type,
				      err)))
		return rc == DEHBQ_ENOENT ? DEHBQ_EINVAL : rc;
	if (!strncmp(type, "RELATION", 8)) {
		jsonfile_errf(jf, o, err,
			      "forbidden relations (%.20s) are not supported "
			      "yet; use EQUALS, IN and AND clauses",
			      type);
		return DEHBQ_EUNSUP;
	}
	if ((rc = jsonfile_check_keys(jf, o, keys, err)))
		return rc;
	if (!strcmp(type, "AND")) {
		if (depth >= SPACE_MAX_NESTING)
			return jsonfile_errf(jf, o, err,
					     "forbidden clause: nested deeper "
					     "than %d",
					     SPACE_MAX_NESTING);
		f->op = FORB_AND;
		if ((rc = jsonfile_get_array(jf, o, "clauses",
					     JSONFILE_REQUIRED, &arr, err)))
			return rc == DEHBQ_ENOENT ? DEHBQ_EINVAL : rc;
		if ((f->nk = cJSON_GetArraySize(arr)) < 1)
			return jsonfile_errf(jf, arr, err,
					     "forbidden AND: 'clauses' is "
					     "empty");
		if (!(f->k = calloc((size_t)f->nk, sizeof(*f->k))))
			return DEHBQ_ENOMEM;
		f->nk = 0;
		cJSON_ArrayForEach(it, arr)
		{
			rc = parse_forb(jf, it, sp, depth + 1, &f->k[f->nk],
					err);
			f->nk++;
			if (rc)
				return rc;
		}
		return DEHBQ_OK;
	}
	if (strcmp(type, "EQUALS") && strcmp(type, "IN"))
		return jsonfile_errf(
			jf, cJSON_GetObjectItemCaseSensitive(o, "type"), err,
			"forbidden clause: type '%.40s' is not one "
			"of EQUALS, IN, AND",
			type);
	f->op = strcmp(type, "IN") ? FORB_EQUALS : FORB_IN;
	if ((f->param = space_param_of(jf, o, "name", sp, err)) < 0)
		return DEHBQ_EINVAL;
	if (f->op == FORB_EQUALS) {
		if (!(it = cJSON_GetObjectItemCaseSensitive(o, "value")))
			return jsonfile_errf(jf, o, err,
					     "forbidden EQUALS: 'value' is "
					     "missing");
		f->nv = 1;
		if (!(f->v = calloc(1, sizeof(*f->v))))
			return DEHBQ_ENOMEM;
		return space_item_value(jf, it, &sp->p[f->param], &f->v[0],
					err);
	}
	if ((rc = jsonfile_get_array(jf, o, "values", JSONFILE_REQUIRED, &arr,
				     err)))
		return rc == DEHBQ_ENOENT ? DEHBQ_EINVAL : rc;
	if (cJSON_GetArraySize(arr) < 1)
		return jsonfile_errf(jf, arr, err,
				     "forbidden IN: 'values' is empty");
	if (!(f->v = calloc((size_t)cJSON_GetArraySize(arr), sizeof(*f->v))))
		return DEHBQ_ENOMEM;
	cJSON_ArrayForEach(it, arr)
	{
		if ((rc = space_item_value(jf, it, &sp->p[f->param],
					   &f->v[f->nv], err)))
			return rc;
		f->nv++;
	}
	return DEHBQ_OK;
}

int space_forb_parse(const struct jsonfile *jf, const cJSON *arr,
		     struct space *sp, char *err)
{
	const cJSON *it;
	int n = arr ? cJSON_GetArraySize(arr) : 0, rc = DEHBQ_OK;

	if (!n)
		return DEHBQ_OK;
	if (!(sp->forb = calloc((size_t)n, sizeof(*sp->forb))))
		return DEHBQ_ENOMEM;
	cJSON_ArrayForEach(it, arr)
	{
		rc = parse_forb(jf, it, sp, 0, &sp->forb[sp->nforb], err);
		sp->nforb++;
		if (rc)
			break;
	}
	if (rc)
		space_forb_free(sp);
	return rc;
}

static int forb_holds(const struct space_forb *f,
		      const struct space_value *vals)
{
	const struct space_value *v;
	int i;

	if (f->op == FORB_AND) {
		for (i = 0; i < f->nk; i++)
			if (!forb_holds(&f->k[i], vals))
				return 0;
		return 1;
	}
	v = &vals[f->param];
	if (v->type == SPACE_V_INACTIVE)
		return 0;
	for (i = 0; i < f->nv; i++)
		if (space_value_eq(v, &f->v[i]))
			return 1;
	return 0;
}

int space_forbidden(const struct space *sp, const struct space_value *vals)
{
	int i;

	for (i = 0; i < sp->nforb; i++)
		if (forb_holds(&sp->forb[i], vals))
			return 1;
	return 0;
}

int space_has_forbidden(const struct space *sp)
{
	return sp->nforb > 0;
}

static cJSON *forb_json(const struct space *sp, const struct space_forb *f)
{
	cJSON *o = cJSON_CreateObject(), *arr, *v;
	int i, bad = !o;

	if (f->op == FORB_AND) {
		bad |= !cJSON_AddStringToObject(o, "type", "AND");
		bad |= !(arr = cJSON_AddArrayToObject(o, "clauses"));
		for (i = 0; !bad && i < f->nk; i++)
			bad |= !(v = forb_json(sp, &f->k[i])) ||
			       !cJSON_AddItemToArray(arr, v);
	} else {
		bad |= !cJSON_AddStringToObject(
			o, "type", f->op == FORB_IN ? "IN" : "EQUALS");
		bad |= !cJSON_AddStringToObject(o, "name",
						sp->p[f->param].name);
		if (f->op == FORB_IN) {
			bad |= !(arr = cJSON_AddArrayToObject(o, "values"));
			for (i = 0; !bad && i < f->nv; i++)
				bad |= !(v = space_value_to_json(&f->v[i])) ||
				       !cJSON_AddItemToArray(arr, v);
		} else {
			bad |= !(v = space_value_to_json(&f->v[0])) ||
			       !cJSON_AddItemToObject(o, "value", v);
		}
	}
	if (bad) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

cJSON *space_forb_to_json(const struct space *sp)
{
	cJSON *arr = cJSON_CreateArray(), *f;
	int i;

	for (i = 0; arr && i < sp->nforb; i++)
		if (!(f = forb_json(sp, &sp->forb[i])) ||
		    !cJSON_AddItemToArray(arr, f)) {
			cJSON_Delete(arr);
			return NULL;
		}
	return arr;
}
