/*
 * ostate.c - the codec of optimiser state in snapshots (ostate.h)
 */
#include "ostate.h"

#include "err.h"
#include "jsonbuf.h"
#include "rng.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void ostate_put_dbls(struct jsonbuf *b, const double *v, size_t n)
{
	size_t i;

	jsonbuf_put(b, "[", 1);
	for (i = 0; i < n; i++) {
		if (i)
			jsonbuf_put(b, ",", 1);
		jsonbuf_num(b, v[i]);
	}
	jsonbuf_put(b, "]", 1);
}

void ostate_put_i64s(struct jsonbuf *b, const int64_t *v, size_t n)
{
	size_t i;

	jsonbuf_put(b, "[", 1);
	for (i = 0; i < n; i++) {
		if (i)
			jsonbuf_put(b, ",", 1);
		jsonbuf_int(b, v[i]);
	}
	jsonbuf_put(b, "]", 1);
}

void ostate_put_rng(struct jsonbuf *b, const struct rng *r)
{
	char buf[RNG_STRLEN];

	rng_format(r, buf);
	jsonbuf_str(b, buf);
}

const cJSON *ostate_get(const cJSON *o, const char *k, char *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	if (!v)
		dehbq_errf(err, DEHBQ_EINVAL, "snapshot: missing '%s'", k);
	return v;
}

int ostate_get_obj(const cJSON *o, const char *k, const cJSON **v, char *err)
{
	*v = ostate_get(o, k, err);
	if (!*v)
		return DEHBQ_EINVAL;
	if (!cJSON_IsObject(*v))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: '%s' must be an object", k);
	return DEHBQ_OK;
}

int ostate_get_arr(const cJSON *o, const char *k, int len, const cJSON **v,
		   char *err)
{
	*v = ostate_get(o, k, err);
	if (!*v)
		return DEHBQ_EINVAL;
	if (!cJSON_IsArray(*v))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: '%s' must be an array", k);
	if (len >= 0 && cJSON_GetArraySize(*v) != len)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: '%s' must have %d entries", k,
				  len);
	return DEHBQ_OK;
}

int ostate_num(const cJSON *v, double *out)
{
	if (!cJSON_IsNumber(v))
		return 0;
	*out = v->valuedouble;
	return isfinite(*out);
}

int ostate_get_dbl(const cJSON *o, const char *k, double *out, char *err)
{
	const cJSON *v = ostate_get(o, k, err);

	if (!v)
		return DEHBQ_EINVAL;
	if (!ostate_num(v, out))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: '%s' must be a finite number", k);
	return DEHBQ_OK;
}

int ostate_int(const cJSON *v, int64_t lo, int64_t hi, int64_t *out)
{
	double x;

	if (!ostate_num(v, &x) || x != floor(x) || x < (double)lo ||
	    x > (double)hi)
		return 0;
	*out = (int64_t)x;
	return 1;
}

int ostate_get_i64(const cJSON *o, const char *k, int64_t lo, int64_t hi,
		   int64_t *out, char *err)
{
	const cJSON *v = ostate_get(o, k, err);

	if (!v)
		return DEHBQ_EINVAL;
	if (!ostate_int(v, lo, hi, out))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: '%s' must be an integer in "
				  "%" PRId64 "..%" PRId64,
				  k, lo, hi);
	return DEHBQ_OK;
}

int ostate_get_int(const cJSON *o, const char *k, int lo, int hi, int *out,
		   char *err)
{
	int64_t v;
	int rc = ostate_get_i64(o, k, lo, hi, &v, err);

	if (rc == DEHBQ_OK)
		*out = (int)v;
	return rc;
}

int ostate_get_str(const cJSON *o, const char *k, const char **out, char *err)
{
	const cJSON *v = ostate_get(o, k, err);

	if (!v)
		return DEHBQ_EINVAL;
	if (!cJSON_IsString(v))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: '%s' must be a string", k);
	*out = v->valuestring;
	return DEHBQ_OK;
}

int ostate_get_rng(const cJSON *o, const char *k, struct rng *r, char *err)
{
	const char *s;
	int rc = ostate_get_str(o, k, &s, err);

	if (rc != DEHBQ_OK)
		return rc;
	if (rng_parse(r, s) != DEHBQ_OK)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: '%s' is not an rng state", k);
	return DEHBQ_OK;
}

/*
 * Array k of exactly n doubles into v.  inf_ok: null means +inf.  unit:
 * values must lie in [0, 1].
 */
int ostate_get_dbls(const cJSON *o, const char *k, size_t n, double *v,
		    int inf_ok, int unit, char *err)
{
	const cJSON *a, *e;
	size_t i = 0;
	int rc = ostate_get_arr(o, k, -1, &a, err);

	if (rc != DEHBQ_OK)
		return rc;
	if ((size_t)cJSON_GetArraySize(a) != n)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: '%s' must have %zu entries", k, n);
	cJSON_ArrayForEach(e, a)
	{
		if (inf_ok && cJSON_IsNull(e)) {
			v[i++] = INFINITY;
			continue;
		}
		if (!ostate_num(e, &v[i]) ||
		    (unit && !(v[i] >= 0 && v[i] <= 1)))
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "snapshot: '%s'[%zu] is not a valid "
					  "number",
					  k, i);
		i++;
	}
	return DEHBQ_OK;
}

int ostate_get_i64s(const cJSON *o, const char *k, size_t n, int64_t *v,
		    int64_t lo, int64_t hi, char *err)
{
	const cJSON *a, *e;
	size_t i = 0;
	int rc = ostate_get_arr(o, k, -1, &a, err);

	if (rc != DEHBQ_OK)
		return rc;
	if ((size_t)cJSON_GetArraySize(a) != n)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: '%s' must have %zu entries", k, n);
	cJSON_ArrayForEach(e, a)
	{
		if (!ostate_int(e, lo, hi, &v[i]))
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "snapshot: '%s'[%zu] must be an "
					  "integer in %" PRId64 "..%" PRId64,
					  k, i, lo, hi);
		i++;
	}
	return DEHBQ_OK;
}

int ostate_set_keys(const cJSON *in, const char *const keys[],
		    const char *optimizer, char *err)
{
	const cJSON *it;
	int i;

	cJSON_ArrayForEach(it, in)
	{
		for (i = 0; keys[i] && strcmp(keys[i], it->string); i++)
			;
		if (!keys[i])
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "optimizer.%.60s: not a setting of "
					  "%s; remove it",
					  it->string, optimizer);
	}
	return DEHBQ_OK;
}

int ostate_set_choice(const cJSON *in, const char *k, const char *const names[],
		      int *idx, char *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(in, k);
	char list[256];
	size_t len = 0;
	int i;

	if (!v)
		return DEHBQ_OK;
	for (i = 0; cJSON_IsString(v) && names[i]; i++)
		if (!strcmp(names[i], v->valuestring)) {
			*idx = i;
			return DEHBQ_OK;
		}
	list[0] = 0;
	for (i = 0; names[i] && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
					i ? ", " : "", names[i]);
	return dehbq_errf(err, DEHBQ_EINVAL, "optimizer.%s: must be one of %s",
			  k, list);
}

int ostate_set_num(const cJSON *in, const char *k, double lo, double hi,
		   double *v, char *err)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(in, k);

	if (!it)
		return DEHBQ_OK;
	if (!cJSON_IsNumber(it) || !(it->valuedouble >= lo) ||
	    !(it->valuedouble <= hi))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "optimizer.%s: must be a number in [%g, %g]",
				  k, lo, hi);
	*v = it->valuedouble;
	return DEHBQ_OK;
}

int ostate_set_int(const cJSON *in, const char *k, int lo, int hi, int *v,
		   char *err)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(in, k);

	if (!it)
		return DEHBQ_OK;
	if (!cJSON_IsNumber(it) || it->valuedouble != floor(it->valuedouble) ||
	    !(it->valuedouble >= lo) || !(it->valuedouble <= hi))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "optimizer.%s: must be an integer in %d..%d",
				  k, lo, hi);
	*v = (int)it->valuedouble;
	return DEHBQ_OK;
}

int ostate_set_bool(const cJSON *in, const char *k, int *v, char *err)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(in, k);

	if (!it)
		return DEHBQ_OK;
	if (!cJSON_IsBool(it))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "optimizer.%s: must be true or false", k);
	*v = cJSON_IsTrue(it) ? 1 : 0;
	return DEHBQ_OK;
}
