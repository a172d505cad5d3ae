/*
 * space_codec.c - a configuration's forms: the unit-cube vector the
 * optimisers work on, the parameter values, and their JSON and text
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

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INT_LIMIT   9007199254740992.0 /* 2^53: exact in a double */
#define NUDGE_STEPS 64		       /* ulps encode may walk each way */

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
		k = space_find_choice(p, v);
		if (k < 0) {
			if (space_value_class(v) >= 0)
				space_value_describe(v, a, sizeof(a));
			else
				snprintf(a, sizeof(a), "the value");
			if (p->type == SPACE_CONSTANT) {
				space_value_describe(&p->choices[0], b,
						     sizeof(b));
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
		k = space_find_choice(p, x);
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

double space_move(const struct space *sp, int i, double v, double factor,
		  double u)
{
	const struct space_param *p = &sp->p[i];
	struct space_value x;
	int k, up = factor > 1;

	decode_one(p, v, &x);
	switch (p->type) {
	case SPACE_FLOAT:
		x.f *= factor;
		x.f = x.f < p->lo ? p->lo : x.f > p->hi ? p->hi : x.f;
		return encode_one(p, &x);
	case SPACE_INT:
		if (up ? x.i < p->ihi : x.i > p->ilo)
			x.i += up ? 1 : -1;
		return encode_one(p, &x);
	case SPACE_ORDINAL:
		k = (int)bin_index(clamp01(v), (double)p->n);
		k += up ? k < p->n - 1 : -(k > 0);
		return ((double)k + 0.5) / (double)p->n;
	case SPACE_CATEGORICAL:
		k = (int)bin_index(u, (double)p->n);
		return ((double)k + 0.5) / (double)p->n;
	default:
		return 0.5;
	}
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

/* Out-of-range message for x, which p's type and choices accept. */
static int out_of_range(const struct jsonfile *jf, const cJSON *it,
			const struct space_param *p,
			const struct space_value *x, char *err)
{
	char a[40], b[40], c[40];

	if (p->type == SPACE_FLOAT) {
		jsonfile_fmt_double(a, sizeof(a), x->f);
		jsonfile_fmt_double(b, sizeof(b), p->lo);
		jsonfile_fmt_double(c, sizeof(c), p->hi);
	} else {
		snprintf(a, sizeof(a), "%lld", (long long)x->i);
		snprintf(b, sizeof(b), "%lld", (long long)p->ilo);
		snprintf(c, sizeof(c), "%lld", (long long)p->ihi);
	}
	return jsonfile_errf(jf, it, err,
			     "parameter '%s': %s is out of range [%s, %s]",
			     p->name, a, b, c);
}

/* The value of parameter p given as JSON it, checked; strings borrowed. */
static int item_value(const struct jsonfile *jf, const cJSON *it,
		      const struct space_param *p, struct space_value *out,
		      char *err)
{
	struct space_value x;
	char a[40];
	int k;

	switch (p->type) {
	case SPACE_FLOAT:
		if (!cJSON_IsNumber(it))
			return jsonfile_errf(jf, it, err,
					     "parameter '%s': expected a "
					     "number, found %s",
					     p->name, jsonfile_type_name(it));
		x.type = SPACE_V_FLOAT;
		x.f = it->valuedouble;
		break;
	case SPACE_INT:
		if (!cJSON_IsNumber(it) ||
		    it->valuedouble != floor(it->valuedouble) ||
		    fabs(it->valuedouble) > INT_LIMIT)
			return jsonfile_errf(jf, it, err,
					     "parameter '%s': expected an "
					     "integer, found %s",
					     p->name,
					     cJSON_IsNumber(it)
						     ? "a fraction"
						     : jsonfile_type_name(it));
		x.type = SPACE_V_INT;
		x.i = (int64_t)it->valuedouble;
		break;
	default:
		k = space_find_choice_item(p, it);
		if (k < 0 && p->type == SPACE_CONSTANT) {
			space_value_describe(&p->choices[0], a, sizeof(a));
			return jsonfile_errf(jf, it, err,
					     "parameter '%s': value must be "
					     "the constant %s",
					     p->name, a);
		}
		if (k < 0)
			return jsonfile_errf(jf, it, err,
					     "parameter '%s': value is not "
					     "one of its %d choices",
					     p->name, p->n);
		x = p->choices[k];
	}
	if (space_check_value(p, &x, out, NULL))
		return out_of_range(jf, it, p, &x, err);
	return DEHBQ_OK;
}

int space_config_from_json(const struct jsonfile *jf, const cJSON *obj,
			   const struct space *sp, struct space_value *vals,
			   char *err)
{
	struct space_value *tmp = NULL;
	const cJSON *it;
	char *seen = NULL;
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
		i = space_param_find(sp, it->string);
		if (i < 0) {
			rc = jsonfile_errf(jf, it, err,
					   "unknown parameter '%.130s' (not in "
					   "the search space)",
					   it->string);
			goto fail;
		}
		seen[i] = 1;
		if ((rc = item_value(jf, it, &sp->p[i], &tmp[i], err)))
			goto fail;
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
