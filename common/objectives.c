/*
 * objectives.c - a study's declared objectives and a result's values for
 * them (objectives.h)
 */
#include "objectives.h"

#include "err.h"
#include "jsonfile.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const scalarise_names[] = {"copula", "linear",
					      "random-weights", NULL};

void objectives_defaults(struct objectives *ob)
{
	memset(ob, 0, sizeof(*ob));
	strcpy(ob->scalarise, "copula");
}

int objectives_name_ok(const char *name)
{
	size_t n = strlen(name), i;

	if (!n || n >= OBJECTIVES_NAME_MAX ||
	    !strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_",
		    name[0]))
		return 0;
	for (i = 1; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVW"
			    "XYZ0123456789_.-",
			    name[i]))
			return 0;
	return 1;
}

int objectives_find(const struct objectives *ob, const char *name)
{
	int l;

	for (l = 0; l < ob->n; l++)
		if (!strcmp(ob->name[l], name))
			return l;
	return -1;
}

static int add(struct objectives *ob, const char *name, double w, int max,
	       char *err)
{
	if (ob->n >= OBJECTIVES_MAX)
		return dehbq_errf(err, DEHBQ_EINVAL, "objectives: at most %d",
				  OBJECTIVES_MAX);
	if (!objectives_name_ok(name))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "objective '%.80s': a name is a letter or _ "
				  "then letters, digits, _ . -, at most %d "
				  "bytes",
				  name, OBJECTIVES_NAME_MAX - 1);
	if (objectives_find(ob, name) >= 0)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "objective '%s': declared twice", name);
	if (!(isfinite(w) && w > 0))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "objective '%s': the weight must be a finite "
				  "number > 0",
				  name);
	strcpy(ob->name[ob->n], name);
	ob->weight[ob->n] = w;
	ob->maximise[ob->n] = max;
	ob->n++;
	return DEHBQ_OK;
}

int objectives_add_flag(struct objectives *ob, const char *arg, char *err)
{
	char buf[3 * OBJECTIVES_NAME_MAX], *p, *name;
	double w = 1;
	int max = 0;

	if (strlen(arg) >= sizeof(buf))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "--objective: too long; use NAME[:max][:W]");
	strcpy(buf, arg);
	name = strtok_r(buf, ":", &p);
	if (!name)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "--objective: expected NAME[:max][:W]");
	for (char *f; (f = strtok_r(NULL, ":", &p));) {
		char *end;

		if (!strcmp(f, "max") || !strcmp(f, "min")) {
			max = f[1] == 'a';
			continue;
		}
		w = strtod(f, &end);
		if (end == f || *end)
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "--objective %.80s: '%.20s' is "
					  "neither min, max nor a weight",
					  arg, f);
	}
	return add(ob, name, w, max, err);
}

static int set_choice(char *dst, size_t len, const char *const names[],
		      const char *v, const char *field, char *err)
{
	int i;

	for (i = 0; names[i]; i++)
		if (!strcmp(v, names[i])) {
			snprintf(dst, len, "%s", v);
			return DEHBQ_OK;
		}
	return dehbq_errf(err, DEHBQ_EINVAL,
			  "%s: '%.40s' is not one of %s, %s%s%s", field, v,
			  names[0], names[1], names[2] ? ", " : "",
			  names[2] ? names[2] : "");
}

int objectives_set_scalarise(struct objectives *ob, const char *v, char *err)
{
	return set_choice(ob->scalarise, sizeof(ob->scalarise), scalarise_names,
			  v, "multiobjective.scalarise", err);
}

static const char *const selection_names[] = {"scalar", "pareto", "hypervolume",
					      NULL};

int objectives_set_selection(struct objectives *ob, const char *v, char *err)
{
	char tmp[16];
	int rc = set_choice(tmp, sizeof(tmp), selection_names, v,
			    "multiobjective.selection", err);

	for (ob->pareto = 0; !rc && strcmp(tmp, selection_names[ob->pareto]);)
		ob->pareto++;
	return rc;
}

const char *objectives_selection_name(const struct objectives *ob)
{
	return selection_names[ob->pareto];
}

int objectives_check(const struct objectives *ob, char *err)
{
	if (ob->n == 1)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "objectives: declare two or more (a single "
				  "objective is the study's 'loss')");
	if (ob->pareto == 2 && ob->n > 3)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "multiobjective.selection: 'hypervolume' "
				  "ranks within a front by exact hypervolume, "
				  "for 2 or 3 objectives (this study has %d); "
				  "use 'pareto'",
				  ob->n);
	if (ob->has_ref && !ob->n)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "multiobjective.reference: the study "
				  "declares no objectives");
	return DEHBQ_OK;
}

static int parse_one(const struct jsonfile *jf, const cJSON *e, int i,
		     struct objectives *ob, char *err)
{
	static const char *const keys[] = {"name", "weight", "goal", NULL};
	const char *name = NULL, *goal = "min";
	char msg[DEHBQ_ERRLEN];
	double w = 1;
	int rc;

	if (!cJSON_IsObject(e))
		return jsonfile_errf(jf, e, err,
				     "field 'objectives[%d]': expected an "
				     "object like {\"name\": \"error\"}",
				     i);
	if ((rc = jsonfile_check_keys(jf, e, keys, err)) ||
	    (rc = jsonfile_get_string(jf, e, "name", JSONFILE_REQUIRED, &name,
				      err)) ||
	    (rc = jsonfile_get_number(jf, e, "weight", JSONFILE_OPTIONAL,
				      1e-300, 1e300, &w, err)) ||
	    (rc = jsonfile_get_string(jf, e, "goal", JSONFILE_OPTIONAL, &goal,
				      err)))
		return rc == DEHBQ_ENOENT ? DEHBQ_EINVAL : rc;
	if (strcmp(goal, "min") && strcmp(goal, "max"))
		return jsonfile_errf(
			jf, cJSON_GetObjectItemCaseSensitive(e, "goal"), err,
			"field 'objectives[%d].goal': expected "
			"\"min\" or \"max\"",
			i);
	if (add(ob, name, w, goal[1] == 'a', msg))
		return jsonfile_errf(jf, e, err, "field 'objectives[%d]': %s",
				     i, msg);
	return DEHBQ_OK;
}

static int parse_ref(const struct jsonfile *jf, const cJSON *r,
		     struct objectives *ob, char *err)
{
	const cJSON *it;
	int l;

	cJSON_ArrayForEach(it, r)
	{
		if (objectives_find(ob, it->string) < 0)
			return jsonfile_errf(jf, it, err,
					     "field 'multiobjective.reference."
					     "%.64s': not a declared objective",
					     it->string);
	}
	for (l = 0; l < ob->n; l++)
		if (jsonfile_get_number(jf, r, ob->name[l], JSONFILE_REQUIRED,
					-1e300, 1e300, &ob->ref[l], err))
			return jsonfile_errf(
				jf, r, err,
				"field 'multiobjective.reference': needs a "
				"finite number for every objective ('%s')",
				ob->name[l]);
	ob->has_ref = 1;
	return DEHBQ_OK;
}

int objectives_parse(const struct jsonfile *jf, const cJSON *root,
		     struct objectives *ob, char *err)
{
	static const char *const keys[] = {"scalarise", "selection",
					   "reference", NULL};
	const cJSON *a = NULL, *m = NULL, *e, *r = NULL;
	const char *v;
	char msg[DEHBQ_ERRLEN];
	int i = 0, rc;

	objectives_defaults(ob);
	if ((rc = jsonfile_get_array(jf, root, "objectives", JSONFILE_OPTIONAL,
				     &a, err)) ||
	    (rc = jsonfile_get_object(jf, root, "multiobjective",
				      JSONFILE_OPTIONAL, &m, err)))
		return rc;
	cJSON_ArrayForEach(e, a)
	{
		if ((rc = parse_one(jf, e, i++, ob, err)))
			return rc;
	}
	if (m) {
		if ((rc = jsonfile_check_keys(jf, m, keys, err)) ||
		    (rc = jsonfile_get_object(jf, m, "reference",
					      JSONFILE_OPTIONAL, &r, err)))
			return rc;
		v = NULL;
		if ((rc = jsonfile_get_string(jf, m, "scalarise",
					      JSONFILE_OPTIONAL, &v, err)))
			return rc;
		if (v && objectives_set_scalarise(ob, v, msg))
			return jsonfile_errf(jf, m, err, "%s", msg);
		v = NULL;
		if ((rc = jsonfile_get_string(jf, m, "selection",
					      JSONFILE_OPTIONAL, &v, err)))
			return rc;
		if (v && objectives_set_selection(ob, v, msg))
			return jsonfile_errf(jf, m, err, "%s", msg);
		if (r && (rc = parse_ref(jf, r, ob, err)))
			return rc;
	}
	if (objectives_check(ob, msg))
		return jsonfile_errf(jf, a ? a : m, err, "%s", msg);
	return DEHBQ_OK;
}

int objectives_render(const struct objectives *ob, cJSON *root)
{
	cJSON *a, *m, *e, *r;
	int l, bad = 0;

	if (!ob->n)
		return DEHBQ_OK;
	if (!(a = cJSON_AddArrayToObject(root, "objectives")) ||
	    !(m = cJSON_AddObjectToObject(root, "multiobjective")))
		return DEHBQ_ENOMEM;
	for (l = 0; l < ob->n && !bad; l++) {
		if (!(e = cJSON_CreateObject()) ||
		    !cJSON_AddItemToArray(a, e)) {
			cJSON_Delete(e);
			return DEHBQ_ENOMEM;
		}
		bad |= !cJSON_AddStringToObject(e, "name", ob->name[l]);
		bad |= jsonfile_add_number(e, "weight", ob->weight[l]) != 0;
		bad |= !cJSON_AddStringToObject(
			e, "goal", ob->maximise[l] ? "max" : "min");
	}
	bad |= !cJSON_AddStringToObject(m, "scalarise", ob->scalarise) |
	       !cJSON_AddStringToObject(m, "selection",
					objectives_selection_name(ob));
	if (!bad && ob->has_ref) {
		bad |= !(r = cJSON_AddObjectToObject(m, "reference"));
		for (l = 0; l < ob->n && !bad; l++)
			bad |= jsonfile_add_number(r, ob->name[l], ob->ref[l]);
	}
	return bad ? DEHBQ_ENOMEM : DEHBQ_OK;
}

void objectives_env(const struct objectives *ob, char *buf, size_t len)
{
	size_t at = 0;
	int l;

	if (len)
		buf[0] = 0;
	for (l = 0; l < ob->n && at < len; l++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", l ? "," : "",
				       ob->name[l]);
}

int objectives_read(const struct objectives *ob, const char *printed, double *y,
		    double *raw, char *why, size_t whylen)
{
	cJSON *o = printed ? cJSON_Parse(printed) : NULL;
	int l;

	for (l = 0; l < ob->n; l++) {
		const cJSON *v =
			cJSON_GetObjectItemCaseSensitive(o, ob->name[l]);

		if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
			snprintf(why, whylen,
				 "the result has no finite value for objective "
				 "'%s' (under \"objectives\")",
				 ob->name[l]);
			cJSON_Delete(o);
			return DEHBQ_ENOENT;
		}
		y[l] = ob->maximise[l] ? -v->valuedouble : v->valuedouble;
		if (raw)
			raw[l] = v->valuedouble;
	}
	cJSON_Delete(o);
	return DEHBQ_OK;
}
