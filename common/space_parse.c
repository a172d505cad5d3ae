/*
 * space_parse.c - reading a search space: the native format and
 * ConfigSpace's JSON, each parameter checked so that a parsed space holds
 * the invariants listed in space.c; errors name the file, the line, the
 * parameter and the field
 */
#include "space.h"
#include "space_impl.h"

#include "err.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_LEN 128		/* bytes of a parameter name */
#define INT_LIMIT    9007199254740992.0 /* 2^53: exact in a double */

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

/*
 * Every entry of the choices array arr is a string, a number or a
 * boolean, all of one JSON type (*c0), strings not too long; *all_int
 * is 0 when a number is not an exact integer.
 */
static int choice_types(const struct jsonfile *jf, const cJSON *arr,
			const char *key, const char *pname, int *c0,
			int *all_int, char *err)
{
	static const char *const cls[] = {"a string", "a number", "a boolean"};
	const cJSON *it;
	int k = 0;

	*c0 = -1;
	*all_int = 1;
	for (it = arr->child; it; it = it->next, k++) {
		int c = json_class(it);

		if (c < 0)
			return jsonfile_errf(
				jf, it, err,
				"parameter '%s': '%s'[%d]: expected "
				"a string, number or boolean, found "
				"%s",
				pname, key, k, jsonfile_type_name(it));
		if (*c0 < 0) {
			*c0 = c;
		} else if (c != *c0) {
			return jsonfile_errf(
				jf, it, err,
				"parameter '%s': '%s'[%d] is %s but "
				"'%s'[0] is %s; all entries must "
				"have one JSON type",
				pname, key, k, cls[c], key, cls[*c0]);
		}
		if (c == 0 && strlen(it->valuestring) > SPACE_MAX_STRLEN)
			return jsonfile_errf(
				jf, it, err,
				"parameter '%s': '%s'[%d] is longer "
				"than %d bytes",
				pname, key, k, SPACE_MAX_STRLEN);
		if (c == 1 && !(it->valuedouble == floor(it->valuedouble) &&
				fabs(it->valuedouble) <= INT_LIMIT))
			*all_int = 0;
	}
	return DEHBQ_OK;
}

static int parse_choices(const struct jsonfile *jf, const cJSON *o,
			 const char *key, int with_default,
			 struct space_param *p, char *err)
{
	const cJSON *arr = NULL, *it;
	struct space_sorted *s = NULL;
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
	if ((rc = choice_types(jf, arr, key, p->name, &c0, &all_int, err)))
		return rc;
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
	if (space_find_dup(s, n, &f, &dup)) {
		char buf[80];

		space_value_describe(&p->choices[dup], buf, sizeof(buf));
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
		int idx = space_find_choice_item(p, it);

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
	struct space_sorted *s = NULL;
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
	if (space_find_dup(s, n, &f, &dup)) {
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
	if (space_find_dup(s, n, &f, &dup)) {
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
