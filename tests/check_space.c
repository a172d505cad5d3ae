/*
 * check_space.c - search spaces: parsing, messages, limits, encoding
 *
 * The ConfigSpace files space_configspace_real_*.json were written by
 * ConfigSpace's own JSON writer (origins in docs/space.md); the other
 * space_configspace_*.json files are hand-made in the shape of its 0.6
 * and 1.x writers.  Encoding tests check the fixes to the reference
 * implementation's binning bugs (DEHB_SPEC 7.2 and 9.8).
 */
#include "err.h"
#include "jsonfile.h"
#include "rng.h"
#include "space.h"
#include "testutil.h"

#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Check records every passing assertion through a file, which makes the
 * exhaustive loops below slow; call it only when the condition fails.
 */
#define QUICK_ASSERT(c, ...)                                                   \
	do {                                                                   \
		if (!(c))                                                      \
			ck_assert_msg(c, __VA_ARGS__);                         \
	} while (0)

static struct space *load_ok(const char *file)
{
	char err[DEHBQ_ERRLEN] = "", path[4096];
	struct space *sp;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", tu_datadir(), file);
	rc = space_load(path, &sp, err);
	ck_assert_msg(rc == DEHBQ_OK, "%s: rc %d: %s", file, rc, err);
	return sp;
}

/* Parse text as a space; returns the code, message in err. */
static int parse_text(const char *text, struct space **out, char *err)
{
	struct jsonfile *jf;
	int rc;

	*out = NULL;
	rc = jsonfile_parse("t.json", text, strlen(text), &jf, err);
	if (rc)
		return rc;
	rc = space_from_json(jf, jsonfile_root(jf), out, err);
	jsonfile_free(jf);
	return rc;
}

static struct space *parse_ok(const char *text)
{
	char err[DEHBQ_ERRLEN] = "";
	struct space *sp;
	int rc = parse_text(text, &sp, err);

	QUICK_ASSERT(rc == DEHBQ_OK, "rc %d: %s", rc, err);
	return sp;
}

static int values_same(const struct space_value *a, const struct space_value *b)
{
	if (a->type != b->type)
		return 0;
	switch (a->type) {
	case SPACE_V_FLOAT:
		return a->f == b->f;
	case SPACE_V_INT:
		return a->i == b->i;
	case SPACE_V_STRING:
		return !strcmp(a->s, b->s);
	case SPACE_V_BOOL:
		return a->b == b->b;
	case SPACE_V_INACTIVE:
		return 1;
	}
	return 0;
}

/* decode(v) -> x, encode(x) -> w, decode(w) must be x again. */
static void check_round_trips(const struct space *sp, int n, uint64_t seed)
{
	struct space_value *x, *y;
	double *v, *w;
	char err[DEHBQ_ERRLEN];
	struct rng r;
	int d = space_dim(sp), i, t;

	x = calloc((size_t)d, sizeof(*x));
	y = calloc((size_t)d, sizeof(*y));
	v = calloc((size_t)d, sizeof(*v));
	w = calloc((size_t)d, sizeof(*w));
	ck_assert(x && y && v && w);
	rng_seed(&r, seed);
	for (t = 0; t < n; t++) {
		for (i = 0; i < d; i++)
			v[i] = t == 0 ? 0.0 : t == 1 ? 1.0 : rng_uniform(&r);
		QUICK_ASSERT(space_decode(sp, v, x) == DEHBQ_OK, "decode");
		QUICK_ASSERT(space_encode(sp, x, w, err) == DEHBQ_OK, "%s",
			     err);
		for (i = 0; i < d; i++)
			QUICK_ASSERT(w[i] >= 0.0 && w[i] <= 1.0, "w=%.17g",
				     w[i]);
		space_decode(sp, w, y);
		for (i = 0; i < d; i++)
			QUICK_ASSERT(values_same(&x[i], &y[i]),
				     "param %s, v=%.17g w=%.17g",
				     space_param_name(sp, i), v[i], w[i]);
	}
	free(x);
	free(y);
	free(v);
	free(w);
}

/* ---- core ---- */

START_TEST(test_space_native_parses_all_types)
{
	struct space *sp = load_ok("space_native.json");

	ck_assert_int_eq(space_dim(sp), 10);
	ck_assert_str_eq(space_param_name(sp, 0), "lr");
	ck_assert_int_eq(space_param_type(sp, 0), SPACE_FLOAT);
	ck_assert_int_eq(space_param_type(sp, 2), SPACE_INT);
	ck_assert_int_eq(space_param_type(sp, 4), SPACE_CATEGORICAL);
	ck_assert_int_eq(space_param_type(sp, 6), SPACE_ORDINAL);
	ck_assert_int_eq(space_param_type(sp, 8), SPACE_CONSTANT);
	ck_assert_str_eq(space_param_name(sp, 9), "data:set");
	ck_assert_ptr_null(space_param_name(sp, 10));
	ck_assert_int_eq(space_param_find(sp, "bs"), 6);
	ck_assert_int_eq(space_param_find(sp, "data:set"), 9);
	ck_assert_int_eq(space_param_find(sp, "nope"), -1);
	space_free(sp);
	space_free(NULL);
}
END_TEST

START_TEST(test_space_decode_endpoints_stay_in_range)
{
	struct space *sp = load_ok("space_native.json");
	struct space_value x[10];
	double v[10];
	int i;

	for (i = 0; i < 10; i++)
		v[i] = 0.0;
	space_decode(sp, v, x);
	ck_assert(x[0].type == SPACE_V_FLOAT && x[0].f == 1e-5);
	ck_assert(x[1].f == 0.0);
	ck_assert(x[2].type == SPACE_V_INT && x[2].i == 1);
	ck_assert(x[3].i == 16);
	ck_assert(x[4].type == SPACE_V_STRING && !strcmp(x[4].s, "adam"));
	ck_assert(x[5].type == SPACE_V_BOOL && x[5].b == 1);
	ck_assert(x[6].type == SPACE_V_INT && x[6].i == 16);
	ck_assert(x[7].type == SPACE_V_FLOAT && x[7].f == 0.0);
	ck_assert(x[8].type == SPACE_V_INT && x[8].i == 3);
	ck_assert_str_eq(x[9].s, "cifar-10");
	for (i = 0; i < 10; i++)
		v[i] = 1.0;
	space_decode(sp, v, x);
	ck_assert(x[0].f == 0.1); /* the reference gives 0.10000000000000006 */
	ck_assert(x[1].f == 0.99);
	ck_assert(x[2].i == 8);
	ck_assert(x[3].i == 512);
	ck_assert_str_eq(x[4].s, "sgd");
	ck_assert(x[5].b == 0);
	ck_assert(x[6].i == 64);
	ck_assert(x[7].f == 0.5);
	/* out of [0,1] and NaN are clamped */
	v[0] = -3;
	v[2] = 7;
	v[3] = NAN;
	space_decode(sp, v, x);
	ck_assert(x[0].f == 1e-5 && x[2].i == 8 && x[3].i == 16);
	space_free(sp);
}
END_TEST

START_TEST(test_space_float_log_decode_never_leaves_bounds)
{
	struct space *sp = parse_ok(
		"{\"format\":\"dehbq-space/1\",\"parameters\":["
		"{\"name\":\"a\",\"type\":\"float\",\"low\":1e-5,\"high\":0.1,"
		"\"log\":true},"
		"{\"name\":\"b\",\"type\":\"float\",\"low\":0.3,\"high\":0.7}]"
		"}");
	struct space_value x[2];
	double v[2];
	int k;

	for (k = 0; k <= 100000; k++) {
		v[0] = v[1] = k / 100000.0;
		space_decode(sp, v, x);
		QUICK_ASSERT(x[0].f >= 1e-5 && x[0].f <= 0.1, "%.17g", x[0].f);
		QUICK_ASSERT(x[1].f >= 0.3 && x[1].f <= 0.7, "%.17g", x[1].f);
	}
	v[0] = v[1] = nextafter(1.0, 0.0);
	space_decode(sp, v, x);
	ck_assert(x[0].f <= 0.1 && x[1].f <= 0.7);
	v[0] = v[1] = 4.9e-324;
	space_decode(sp, v, x);
	ck_assert(x[0].f >= 1e-5 && x[1].f >= 0.3);
	space_free(sp);
}
END_TEST

START_TEST(test_space_round_trip_all_types)
{
	struct space *sp = load_ok("space_native.json");

	check_round_trips(sp, 20000, 11);
	space_free(sp);
}
END_TEST

/* Every integer of [lo, hi] (or every step-th) must round-trip. */
static void int_round_trip(long long lo, long long hi, int log_scale,
			   long long step)
{
	char text[256], err[DEHBQ_ERRLEN];
	struct space *sp;
	struct space_value x, y;
	double v;
	long long i;

	snprintf(text, sizeof(text),
		 "{\"format\":\"dehbq-space/1\",\"parameters\":[{\"name\":"
		 "\"n\",\"type\":\"int\",\"low\":%lld,\"high\":%lld,\"log\":%s}"
		 "]}",
		 lo, hi, log_scale ? "true" : "false");
	sp = parse_ok(text);
	for (i = lo;; i = hi - i > step ? i + step : hi) {
		x.type = SPACE_V_INT;
		x.i = i;
		QUICK_ASSERT(space_encode(sp, &x, &v, err) == DEHBQ_OK, "%s",
			     err);
		space_decode(sp, &v, &y);
		QUICK_ASSERT(y.i == i,
			     "[%lld,%lld] log=%d: %lld -> %.17g -> "
			     "%lld",
			     lo, hi, log_scale, i, v, (long long)y.i);
		if (i == hi)
			break;
	}
	space_free(sp);
}

START_TEST(test_space_int_round_trip_every_value)
{
	int_round_trip(1, 10, 0, 1);
	int_round_trip(-5, 5, 0, 1);
	int_round_trip(0, 1, 0, 1);
	int_round_trip(-1000000, 1000000, 0, 1);
	int_round_trip(-1000000000000000LL, 1000000000000000LL, 0,
		       1000000000000LL);
	int_round_trip(1, 512, 1, 1);
	int_round_trip(16, 512, 1, 1);
	int_round_trip(1, 2, 1, 1);
	int_round_trip(1, 1000000, 1, 1);
	int_round_trip(1, 1000000000000LL, 1, 999999999LL);
	int_round_trip(1000, 1000000000000LL, 1, 999999999LL);
}
END_TEST

START_TEST(test_space_int_linear_gives_endpoints_equal_mass)
{
	/* The reference rounds, so 1 and 10 get half the mass of 2..9. */
	struct space *sp = parse_ok(
		"{\"format\":\"dehbq-space/1\",\"parameters\":[{\"name\":\"n\","
		"\"type\":\"int\",\"low\":1,\"high\":10}]}");
	struct space_value x;
	int count[11] = {0}, k, N = 100000;
	double v;

	for (k = 0; k < N; k++) {
		v = (k + 0.5) / N;
		space_decode(sp, &v, &x);
		QUICK_ASSERT(x.i >= 1 && x.i <= 10, "%lld", (long long)x.i);
		count[x.i]++;
	}
	for (k = 1; k <= 10; k++)
		ck_assert_int_eq(count[k], N / 10);
	space_free(sp);
}
END_TEST

START_TEST(test_space_int_log_mass_is_log_uniform)
{
	/* [1,3] on log scale: value i gets ln((i+1)/i)/ln 4 of the mass. */
	struct space *sp = parse_ok(
		"{\"format\":\"dehbq-space/1\",\"parameters\":[{\"name\":\"n\","
		"\"type\":\"int\",\"low\":1,\"high\":3,\"log\":true}]}");
	struct space_value x;
	int count[4] = {0}, k, N = 100000;
	double v;

	for (k = 0; k < N; k++) {
		v = (k + 0.5) / N;
		space_decode(sp, &v, &x);
		count[x.i]++;
	}
	ck_assert(fabs(count[1] / (double)N - 0.5) < 1e-3);
	ck_assert(fabs(count[2] / (double)N - log(1.5) / log(4)) < 1e-3);
	ck_assert(fabs(count[3] / (double)N - log(4.0 / 3) / log(4)) < 1e-3);
	space_free(sp);
}
END_TEST

/* An ordinal 0..K-1 as JSON text. */
static char *ordinal_text(int K)
{
	size_t size = 128 + (size_t)K * 8, len;
	char *t = malloc(size);
	int k;

	ck_assert_ptr_nonnull(t);
	len = (size_t)snprintf(t, size,
			       "{\"format\":\"dehbq-space/1\",\"parameters\":"
			       "[{\"name\":\"o\",\"type\":\"ordinal\","
			       "\"sequence\":[");
	for (k = 0; k < K; k++)
		len += (size_t)snprintf(t + len, size - len, "%s%d",
					k ? "," : "", k);
	snprintf(t + len, size - len, "]}]}");
	return t;
}

START_TEST(test_space_choices_round_trip_every_k_up_to_2000)
{
	char err[DEHBQ_ERRLEN];
	struct space_value x, y;
	struct space *sp;
	double v;
	int K, k;

	for (K = 1; K <= 2000; K++) {
		char *t = ordinal_text(K);

		sp = parse_ok(t);
		free(t);
		for (k = 0; k < K; k++) {
			x.type = SPACE_V_INT;
			x.i = k;
			QUICK_ASSERT(space_encode(sp, &x, &v, err) == DEHBQ_OK,
				     "%s", err);
			space_decode(sp, &v, &y);
			QUICK_ASSERT(y.i == k, "K=%d k=%d v=%.17g -> %lld", K,
				     k, v, (long long)y.i);
		}
		v = 1.0; /* the reference indexes past the end for some K */
		space_decode(sp, &v, &y);
		QUICK_ASSERT(y.i == K - 1, "K=%d", K);
		v = nextafter(1.0, 0.0);
		space_decode(sp, &v, &y);
		QUICK_ASSERT(y.i == K - 1, "K=%d", K);
		v = 0.0;
		space_decode(sp, &v, &y);
		QUICK_ASSERT(y.i == 0, "K=%d", K);
		space_free(sp);
	}
}
END_TEST

START_TEST(test_space_reference_failing_cases_now_work)
{
	char err[DEHBQ_ERRLEN], *t;
	struct space_value x, y;
	struct space *sp;
	double v;

	/* K=5: the reference encodes category 3 as 0.6, decodes 2. */
	t = ordinal_text(5);
	sp = parse_ok(t);
	free(t);
	x.type = SPACE_V_INT;
	x.i = 3;
	ck_assert_int_eq(space_encode(sp, &x, &v, err), DEHBQ_OK);
	ck_assert(v == 0.7);
	space_decode(sp, &v, &y);
	ck_assert_int_eq(y.i, 3);
	v = 3.0 / 5.0; /* the reference's own encoding decodes right too */
	space_decode(sp, &v, &y);
	ck_assert_int_eq(y.i, 3);
	space_free(sp);
	/* K=49: v in [0.9999999999999999, 1] crashed the reference. */
	t = ordinal_text(49);
	sp = parse_ok(t);
	free(t);
	v = 1.0;
	space_decode(sp, &v, &y);
	ck_assert_int_eq(y.i, 48);
	v = 0.9999999999999999;
	space_decode(sp, &v, &y);
	ck_assert_int_eq(y.i, 48);
	space_free(sp);
}
END_TEST

START_TEST(test_space_float_round_trip_is_exact)
{
	struct space *sp = parse_ok(
		"{\"format\":\"dehbq-space/1\",\"parameters\":["
		"{\"name\":\"a\",\"type\":\"float\",\"low\":1e-5,\"high\":0.1,"
		"\"log\":true},"
		"{\"name\":\"b\",\"type\":\"float\",\"low\":-3.5,\"high\":1e6},"
		"{\"name\":\"c\",\"type\":\"float\",\"low\":1e-300,"
		"\"high\":1e300,\"log\":true},"
		"{\"name\":\"d\",\"type\":\"float\",\"low\":0.1,\"high\":0.3}]"
		"}");

	check_round_trips(sp, 50000, 5);
	space_free(sp);
}
END_TEST

START_TEST(test_space_encode_accepts_int_for_float_and_back)
{
	struct space *sp = load_ok("space_native.json");
	struct space_value x[10];
	double v[10] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
	double w[10];
	char err[DEHBQ_ERRLEN];

	space_decode(sp, v, x);
	x[1].type = SPACE_V_INT; /* momentum 0 as an int */
	x[1].i = 0;
	x[2].type = SPACE_V_FLOAT; /* layers 3 as 3.0 */
	x[2].f = 3.0;
	x[2].i = 0;
	ck_assert_msg(space_encode(sp, x, w, err) == DEHBQ_OK, "%s", err);
	ck_assert(w[1] == 0.0);
	ck_assert(w[8] == 0.5); /* constants encode as 0.5 */
	space_decode(sp, w, x);
	ck_assert(x[2].type == SPACE_V_INT && x[2].i == 3);
	space_free(sp);
}
END_TEST

START_TEST(test_space_to_json_and_back_is_equal)
{
	const char *files[] = {"space_native.json",
			       "space_configspace_0.6.json",
			       "space_configspace_1x.json",
			       "space_configspace_real_0.6.1.json",
			       "space_configspace_real_1.2.0.json"};
	char err[DEHBQ_ERRLEN];
	size_t f;

	for (f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		struct space *a = load_ok(files[f]), *b;
		cJSON *o = space_to_json(a);
		char *text;
		int rc;

		ck_assert_ptr_nonnull(o);
		text = cJSON_Print(o);
		ck_assert_ptr_nonnull(text);
		rc = parse_text(text, &b, err);
		ck_assert_msg(rc == DEHBQ_OK, "%s: %s\n%s", files[f], err,
			      text);
		ck_assert_msg(space_equal(a, b), "%s", files[f]);
		cJSON_free(text);
		cJSON_Delete(o);
		space_free(b);
		space_free(a);
	}
}
END_TEST

START_TEST(test_space_json_numbers_are_exact)
{
	/* cJSON alone would print these with 15 digits, off by an ulp. */
	struct space *a = parse_ok(
			     "{\"format\":\"dehbq-space/1\",\"parameters\":["
			     "{\"name\":\"f\",\"type\":\"float\","
			     "\"low\":0.30000000000000004,\"high\":0."
			     "9000000000000001},"
			     "{\"name\":\"n\",\"type\":\"int\",\"low\":-"
			     "9007199254740991,"
			     "\"high\":9007199254740991}]}"),
		     *b;
	struct space_value x[2], y[2];
	double v[2] = {0.123456789, 0.987654321};
	char err[DEHBQ_ERRLEN], *text;
	struct jsonfile *jf;
	cJSON *o = space_to_json(a);

	text = cJSON_PrintUnformatted(o);
	ck_assert_ptr_nonnull(strstr(text, "0.30000000000000004"));
	ck_assert_ptr_nonnull(strstr(text, "-9007199254740991"));
	ck_assert_int_eq(parse_text(text, &b, err), DEHBQ_OK);
	ck_assert(space_equal(a, b));
	cJSON_free(text);
	cJSON_Delete(o);
	space_decode(a, v, x);
	o = space_config_to_json(a, x);
	ck_assert(cJSON_GetObjectItem(o, "f")->valuedouble == x[0].f);
	text = cJSON_PrintUnformatted(o);
	ck_assert_int_eq(jsonfile_parse("c.json", text, strlen(text), &jf, err),
			 DEHBQ_OK);
	ck_assert_int_eq(
		space_config_from_json(jf, jsonfile_root(jf), a, y, err),
		DEHBQ_OK);
	ck_assert(y[0].f == x[0].f && y[1].i == x[1].i);
	jsonfile_free(jf);
	cJSON_free(text);
	cJSON_Delete(o);
	space_free(a);
	space_free(b);
}
END_TEST

START_TEST(test_space_native_json_keeps_defaults_and_log)
{
	struct space *sp = load_ok("space_native.json");
	cJSON *o = space_to_json(sp), *p0, *p2;

	ck_assert_str_eq(cJSON_GetObjectItem(o, "format")->valuestring,
			 "dehbq-space/1");
	p0 = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "parameters"), 0);
	p2 = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "parameters"), 2);
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(p0, "log")));
	ck_assert(cJSON_GetObjectItem(p0, "default")->valuedouble == 0.001);
	ck_assert(cJSON_GetObjectItem(p2, "default")->valuedouble == 2);
	ck_assert_ptr_null(cJSON_GetObjectItem(p2, "log"));
	cJSON_Delete(o);
	space_free(sp);
}
END_TEST

START_TEST(test_space_configspace_real_0_6_1_loads)
{
	struct space *sp = load_ok("space_configspace_real_0.6.1.json");
	struct space_value x[16];
	double v[16];
	int i;

	ck_assert_int_eq(space_dim(sp), 16);
	ck_assert_str_eq(space_param_name(sp, 0),
			 "batch_size"); /* file order */
	ck_assert_int_eq(space_param_type(sp, 0), SPACE_INT);
	ck_assert_int_eq(space_param_type(sp, 1), SPACE_CONSTANT);
	ck_assert_int_eq(space_param_type(sp, 7), SPACE_CATEGORICAL);
	ck_assert_int_eq(space_param_type(sp, 9), SPACE_FLOAT);
	for (i = 0; i < 16; i++)
		v[i] = 1.0;
	space_decode(sp, v, x);
	ck_assert(x[0].i == 60);
	ck_assert_str_eq(x[1].s, "epochs");
	ck_assert(x[2].type == SPACE_V_INT && x[2].i == 2);
	ck_assert(x[6].type == SPACE_V_FLOAT && x[6].f == 0.2);
	ck_assert(x[7].type == SPACE_V_BOOL && x[7].b == 0);
	ck_assert(x[9].f == 0.01);
	check_round_trips(sp, 2000, 3);
	space_free(sp);
}
END_TEST

START_TEST(test_space_configspace_real_1_2_0_loads)
{
	struct space *sp = load_ok("space_configspace_real_1.2.0.json");
	struct space_value x[4];
	double v[4] = {0, 0, 0, 0};

	ck_assert_int_eq(space_dim(sp), 4);
	ck_assert_str_eq(space_param_name(sp, 3), "opt_momentum");
	space_decode(sp, v, x);
	ck_assert(x[1].f == 1e-05 && x[3].f == 5.9e-05);
	check_round_trips(sp, 2000, 4);
	space_free(sp);
}
END_TEST

START_TEST(test_space_configspace_shapes_0_6_and_1x_load)
{
	struct space *a = load_ok("space_configspace_0.6.json");
	struct space *b = load_ok("space_configspace_1x.json");
	struct space_value x[6];
	double v[6] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5};

	ck_assert_int_eq(space_dim(a), 5);
	ck_assert_int_eq(space_param_type(a, 3), SPACE_ORDINAL);
	ck_assert_int_eq(space_param_type(a, 4), SPACE_CONSTANT);
	space_decode(a, v, x);
	ck_assert_str_eq(x[3].s, "medium");
	ck_assert(x[4].type == SPACE_V_BOOL && x[4].b == 0);
	ck_assert_int_eq(space_dim(b), 6);
	ck_assert_int_eq(space_param_type(b, 1), SPACE_INT);
	ck_assert_int_eq(space_param_type(b, 3), SPACE_CATEGORICAL);
	space_decode(b, v, x);
	ck_assert_str_eq(x[2].s, "sgd"); /* weights are ignored */
	ck_assert(x[4].type == SPACE_V_INT && x[4].i == 32);
	check_round_trips(a, 2000, 1);
	check_round_trips(b, 2000, 2);
	space_free(a);
	space_free(b);
}
END_TEST

START_TEST(test_space_config_json_round_trip)
{
	struct space *sp = load_ok("space_native.json");
	struct space_value x[10], y[10];
	double v[10] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};
	char err[DEHBQ_ERRLEN], *text;
	struct jsonfile *jf;
	cJSON *o;
	int i;

	space_decode(sp, v, x);
	o = space_config_to_json(sp, x);
	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(o->child->string, "lr"); /* parameter order */
	text = cJSON_PrintUnformatted(o);
	ck_assert_int_eq(jsonfile_parse("c.json", text, strlen(text), &jf, err),
			 DEHBQ_OK);
	ck_assert_msg(space_config_from_json(jf, jsonfile_root(jf), sp, y,
					     err) == DEHBQ_OK,
		      "%s", err);
	for (i = 0; i < 10; i++)
		ck_assert_msg(values_same(&x[i], &y[i]), "%d in %s", i, text);
	ck_assert_ptr_eq(y[4].s, x[4].s); /* borrowed from the space */
	jsonfile_free(jf);
	cJSON_free(text);
	cJSON_Delete(o);
	space_free(sp);
}
END_TEST

START_TEST(test_space_value_format_shortest_exact)
{
	struct space_value v = {SPACE_V_FLOAT, 0.1, 0, NULL, 0};
	char buf[64];

	ck_assert_int_eq(space_value_format(&v, buf, sizeof(buf)), DEHBQ_OK);
	ck_assert_str_eq(buf, "0.1");
	v.f = 1.0 / 3.0;
	space_value_format(&v, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0.3333333333333333");
	ck_assert(strtod(buf, NULL) == 1.0 / 3.0);
	v.f = 0.1 + 0.2;
	space_value_format(&v, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0.30000000000000004");
	v.f = 1e-5;
	space_value_format(&v, buf, sizeof(buf));
	ck_assert_str_eq(buf, "1e-05");
	v.type = SPACE_V_INT;
	v.i = -9007199254740992LL;
	space_value_format(&v, buf, sizeof(buf));
	ck_assert_str_eq(buf, "-9007199254740992");
	v.type = SPACE_V_STRING;
	v.s = "adam w";
	space_value_format(&v, buf, sizeof(buf));
	ck_assert_str_eq(buf, "adam w");
	v.type = SPACE_V_BOOL;
	v.b = 1;
	space_value_format(&v, buf, sizeof(buf));
	ck_assert_str_eq(buf, "true");
	v.b = 0;
	space_value_format(&v, buf, sizeof(buf));
	ck_assert_str_eq(buf, "false");
}
END_TEST

/* ---- errors ---- */

struct bad_case {
	const char *file; /* tests/data/space_bad_<file>.json */
	int rc;		  /* expected code */
	const char *msg;  /* expected message (substring) */
};

static const struct bad_case bad_cases[] = {
	{"format", DEHBQ_EINVAL,
	 "space_bad_format.json:1:2: field 'format': expected "
	 "\"dehbq-space/1\", found \"dehbq-space/2\""},
	{"low_high", DEHBQ_EINVAL,
	 "space_bad_low_high.json:4:37: parameter 'lr': 'low' (0.1) must be "
	 "< 'high' (0.01)"},
	{"int_equal", DEHBQ_EINVAL,
	 "space_bad_int_equal.json:4:34: parameter 'n': 'low' (3) must be < "
	 "'high' (3); for a fixed value use a constant"},
	{"log_zero", DEHBQ_EINVAL,
	 "space_bad_log_zero.json:4:37: parameter 'wd': 'low' (0) must be > 0 "
	 "when 'log' is true"},
	{"int_log_zero", DEHBQ_EINVAL,
	 "space_bad_int_log_zero.json:4:38: parameter 'units': 'low' (0) must "
	 "be >= 1 when 'log' is true"},
	{"int_fraction", DEHBQ_EINVAL,
	 "space_bad_int_fraction.json:4:34: parameter 'n': field 'low': "
	 "expected an integer, found 1.5"},
	{"int_huge", DEHBQ_EINVAL,
	 "space_bad_int_huge.json:4:44: parameter 'n': field 'high': expected "
	 "an integer, found 1e+17"},
	{"name_chars", DEHBQ_EINVAL,
	 "space_bad_name_chars.json:4:6: parameter name \"learning rate\" is "
	 "invalid: use 1 to 128 characters from A-Z a-z 0-9 _ . : -"},
	{"name_dup", DEHBQ_EINVAL,
	 "space_bad_name_dup.json:6:5: parameter 'lr' is defined twice "
	 "(first at line 4); names must be unique"},
	{"name_env", DEHBQ_EINVAL,
	 "space_bad_name_env.json:6:5: parameters 'lr' (line 4) and 'LR' both "
	 "become environment variable DEHBQ_P_LR for the trainer; rename "
	 "one"},
	{"unknown_field", DEHBQ_EINVAL,
	 "space_bad_unknown_field.json:4:37: parameter 'lr': unknown field "
	 "'lo' (typo?)"},
	{"unknown_type", DEHBQ_EINVAL,
	 "space_bad_unknown_type.json:4:19: parameter 'x': unknown type "
	 "'double' (expected float, int, categorical, ordinal or constant)"},
	{"choices_empty", DEHBQ_EINVAL,
	 "space_bad_choices_empty.json:4:44: parameter 'opt': 'choices' must "
	 "not be empty"},
	{"choices_dup", DEHBQ_EINVAL,
	 "space_bad_choices_dup.json:5:33: parameter 'opt': 'choices'[2] "
	 "(\"adam\") duplicates 'choices'[0]; choices must be unique"},
	{"choices_mixed", DEHBQ_EINVAL,
	 "space_bad_choices_mixed.json:4:58: parameter 'bs': 'sequence'[1] is "
	 "a number but 'sequence'[0] is a string; all entries must have one "
	 "JSON type"},
	{"choice_null", DEHBQ_EINVAL,
	 "space_bad_choice_null.json:4:64: parameter 'opt': 'choices'[1]: "
	 "expected a string, number or boolean, found null"},
	{"missing_high", DEHBQ_EINVAL,
	 "space_bad_missing_high.json:4:5: parameter 'lr': missing required "
	 "field 'high'"},
	{"default_range", DEHBQ_EINVAL,
	 "space_bad_default_range.json:4:60: parameter 'lr': 'default' (0.5) "
	 "is out of range [0, 0.1]"},
	{"default_choice", DEHBQ_EINVAL,
	 "space_bad_default_choice.json:5:6: parameter 'bs': 'default' (64) "
	 "must be one of 'sequence'"},
	{"empty", DEHBQ_EINVAL,
	 "space_bad_empty.json:1:29: 'parameters' is empty; a space needs at "
	 "least one parameter"},
	{"not_space", DEHBQ_EINVAL,
	 "space_bad_not_space.json:1:1: not a search space: expected "
	 "\"format\": \"dehbq-space/1\" or a ConfigSpace object with "
	 "\"hyperparameters\""},
	{"json", DEHBQ_EINVAL,
	 "space_bad_json.json:5:3: invalid JSON near ']'"},
	{"too_wide", DEHBQ_EINVAL,
	 "space_bad_too_wide.json:4:36: parameter 'x': range [-1e+308, "
	 "1e+308] is too wide ('high' - 'low' overflows a double)"},
	{"param_not_object", DEHBQ_EINVAL,
	 "space_bad_param_not_object.json:5:5: parameters[1]: expected an "
	 "object, found string"},
	{"constant_value", DEHBQ_EINVAL,
	 "space_bad_constant_value.json:4:39: parameter 'c': field 'value': "
	 "expected a string, number or boolean, found array"},
	{"top_field", DEHBQ_EINVAL,
	 "space_bad_top_field.json:3:3: unknown field 'params' (typo?)"},
	{"cs_condition_value", DEHBQ_EINVAL,
	 "space_bad_cs_condition_value.json:9:59: condition: parameter "
	 "'kernel': \"linear\" is not one of its 2 choices"},
	{"cs_forbidden_relation", DEHBQ_EUNSUP,
	 "space_bad_cs_forbidden_relation.json:11:5: forbidden relations "
	 "(RELATION_LT) are not supported yet; use EQUALS, IN and AND "
	 "clauses"},
	{"cs_normal", DEHBQ_EUNSUP,
	 "space_bad_cs_normal.json:4:6: parameter 'p': type 'normal_float' is "
	 "not supported yet (dehbq 0.1); use uniform_float"},
	{"cs_lower_upper", DEHBQ_EINVAL,
	 "space_bad_cs_lower_upper.json:3:58: parameter 'x': 'lower' (1) must "
	 "be < 'upper' (0)"},
	{"cs_unknown_type", DEHBQ_EINVAL,
	 "space_bad_cs_unknown_type.json:3:19: parameter 'x': unknown type "
	 "'uniform_double' (expected uniform_float, uniform_int, "
	 "categorical, ordinal or constant)"},
};
#define N_BAD ((int)(sizeof(bad_cases) / sizeof(bad_cases[0])))

START_TEST(test_space_bad_file_gives_precise_message)
{
	const struct bad_case *c = &bad_cases[_i];
	char err[DEHBQ_ERRLEN] = "", path[4096];
	struct space *sp = (struct space *)1;
	int rc;

	snprintf(path, sizeof(path), "%s/space_bad_%s.json", tu_datadir(),
		 c->file);
	rc = space_load(path, &sp, err);
	ck_assert_msg(rc == c->rc, "%s: rc %d, want %d: %s", c->file, rc, c->rc,
		      err);
	ck_assert_ptr_null(sp);
	ck_assert_msg(strstr(err, c->msg), "%s:\n got  %s\n want %s", c->file,
		      err, c->msg);
}
END_TEST

START_TEST(test_space_every_bad_file_is_in_the_table)
{
	/* A new tests/data/space_bad_*.json must get an expected message. */
	DIR *d = opendir(tu_datadir());
	struct dirent *de;
	int n = 0, i, found;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		char name[256];
		size_t len;

		if (sscanf(de->d_name, "space_bad_%200s", name) != 1)
			continue;
		len = strlen(name);
		if (len < 6 || strcmp(name + len - 5, ".json"))
			continue;
		name[len - 5] = 0;
		n++;
		for (found = 0, i = 0; i < N_BAD; i++)
			found |= !strcmp(bad_cases[i].file, name);
		ck_assert_msg(found, "%s has no entry in bad_cases", name);
	}
	closedir(d);
	ck_assert_int_eq(n, N_BAD);
	ck_assert_int_ge(n, 14);
}
END_TEST

START_TEST(test_space_load_missing_file_is_esys)
{
	char err[DEHBQ_ERRLEN];
	struct space *sp;

	ck_assert_int_eq(space_load("/nonexistent/space.json", &sp, err),
			 DEHBQ_ESYS);
	ck_assert_ptr_null(sp);
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/space.json"));
}
END_TEST

/*
 * The worker exports each parameter as space_env_name(); two names that
 * give one variable would leave the trainer only the later value.
 */
START_TEST(test_space_names_with_one_env_variable_refused)
{
	static const struct {
		const char *a, *b, *var; /* two names, their variable */
	} clash[] = {
		{"lr", "LR", "DEHBQ_P_LR"},
		{"a.b", "a-b", "DEHBQ_P_A_B"},
		{"data:set", "data_set", "DEHBQ_P_DATA_SET"},
		{"_x", "_X", "DEHBQ_P__X"},
	};
	char text[512], want[256], err[DEHBQ_ERRLEN];
	struct space *sp;
	size_t i;

	for (i = 0; i < sizeof(clash) / sizeof(clash[0]); i++) {
		snprintf(text, sizeof(text),
			 "{\"format\": \"dehbq-space/1\", \"parameters\": [\n"
			 " {\"name\": \"%s\", \"type\": \"constant\", "
			 "\"value\": 1},\n"
			 " {\"name\": \"%s\", \"type\": \"constant\", "
			 "\"value\": 2}]}",
			 clash[i].a, clash[i].b);
		ck_assert_int_eq(parse_text(text, &sp, err), DEHBQ_EINVAL);
		ck_assert_ptr_null(sp);
		snprintf(want, sizeof(want),
			 "t.json:3:2: parameters '%s' (line 2) and '%s' both "
			 "become environment variable %s for the trainer; "
			 "rename one",
			 clash[i].a, clash[i].b, clash[i].var);
		ck_assert_str_eq(err, want);
	}
	/* names that differ after the mapping are fine */
	sp = parse_ok("{\"format\": \"dehbq-space/1\", \"parameters\": ["
		      "{\"name\": \"lr\", \"type\": \"constant\", "
		      "\"value\": 1},"
		      "{\"name\": \"lr_\", \"type\": \"constant\", "
		      "\"value\": 1},"
		      "{\"name\": \"l_r\", \"type\": \"constant\", "
		      "\"value\": 1}]}");
	ck_assert_int_eq(space_dim(sp), 3);
	space_free(sp);
}
END_TEST

START_TEST(test_space_env_name_maps_like_the_worker)
{
	char buf[SPACE_ENV_LEN], name[129];

	ck_assert_int_eq(space_env_name("lr", buf, sizeof(buf)), DEHBQ_OK);
	ck_assert_str_eq(buf, "DEHBQ_P_LR");
	ck_assert_int_eq(space_env_name("data.set-v2:x", buf, sizeof(buf)),
			 DEHBQ_OK);
	ck_assert_str_eq(buf, "DEHBQ_P_DATA_SET_V2_X");
	memset(name, 'z', 128);
	name[128] = 0;
	ck_assert_int_eq(space_env_name(name, buf, sizeof(buf)), DEHBQ_OK);
	ck_assert_uint_eq(strlen(buf), 136);
	ck_assert_int_eq(space_env_name("lr", buf, 10), DEHBQ_ETOOBIG);
	ck_assert_int_eq(space_env_name("lr", buf, 11), DEHBQ_OK);
}
END_TEST

START_TEST(test_space_embedded_object_reports_spec_positions)
{
	const char *text = "{\"study\": \"x\",\n \"space\": {\"format\": "
			   "\"dehbq-space/1\", \"parameters\": [\n"
			   "  {\"name\": \"a\", \"type\": \"int\", \"low\": 5, "
			   "\"high\": 1}]}}";
	char err[DEHBQ_ERRLEN];
	struct jsonfile *jf;
	struct space *sp;

	ck_assert_int_eq(
		jsonfile_parse("spec.json", text, strlen(text), &jf, err),
		DEHBQ_OK);
	ck_assert_int_eq(
		space_from_json(jf,
				cJSON_GetObjectItem(jsonfile_root(jf), "space"),
				&sp, err),
		DEHBQ_EINVAL);
	ck_assert_str_eq(err, "spec.json:3:32: parameter 'a': 'low' (5) must "
			      "be < 'high' (1)");
	ck_assert_int_eq(space_from_json(jf, NULL, &sp, err), DEHBQ_EINVAL);
	jsonfile_free(jf);
}
END_TEST

START_TEST(test_space_encode_rejects_illegal_values)
{
	struct space *sp = load_ok("space_native.json");
	struct space_value x[10];
	double v[10] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
	double w[10] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
	char err[DEHBQ_ERRLEN];

	space_decode(sp, v, x);
	x[0].f = 0.2;
	ck_assert_int_eq(space_encode(sp, x, w, err), DEHBQ_EINVAL);
	ck_assert_str_eq(err, "parameter 'lr': 0.2 is out of range [1e-05, "
			      "0.1]");
	ck_assert(w[1] == -1); /* untouched */
	space_decode(sp, v, x);
	x[2].i = 9;
	ck_assert_int_eq(space_encode(sp, x, w, err), DEHBQ_EINVAL);
	ck_assert_str_eq(err, "parameter 'layers': 9 is out of range [1, 8]");
	space_decode(sp, v, x);
	x[2].type = SPACE_V_FLOAT;
	x[2].f = 2.5;
	ck_assert_int_eq(space_encode(sp, x, w, err), DEHBQ_EINVAL);
	ck_assert_str_eq(err, "parameter 'layers': expected an integer");
	space_decode(sp, v, x);
	x[4].s = "rmsprop";
	ck_assert_int_eq(space_encode(sp, x, w, err), DEHBQ_EINVAL);
	ck_assert_str_eq(err, "parameter 'opt': \"rmsprop\" is not one of its "
			      "2 choices");
	space_decode(sp, v, x);
	x[8].i = 4;
	ck_assert_int_eq(space_encode(sp, x, w, err), DEHBQ_EINVAL);
	ck_assert_str_eq(err, "parameter 'seed': 4 is not the constant 3");
	space_decode(sp, v, x);
	x[6].type = SPACE_V_STRING; /* "32" is not 32 */
	x[6].s = "32";
	ck_assert_int_eq(space_encode(sp, x, w, err), DEHBQ_EINVAL);
	space_free(sp);
}
END_TEST

static int config_rc(const struct space *sp, const char *text, char *err)
{
	struct space_value vals[10];
	struct jsonfile *jf;
	int rc;

	rc = jsonfile_parse("cfg.json", text, strlen(text), &jf, err);
	ck_assert_int_eq(rc, DEHBQ_OK);
	rc = space_config_from_json(jf, jsonfile_root(jf), sp, vals, err);
	jsonfile_free(jf);
	return rc;
}

START_TEST(test_space_config_from_json_is_strict)
{
	static const struct {
		const char *text; /* configuration */
		const char *msg;  /* expected message */
	} cases[] = {
		{"{\"lr\":0.2,\"momentum\":0,\"layers\":1,\"units\":16,"
		 "\"opt\":\"sgd\",\"bn\":true,\"bs\":16,\"drop\":0,\"seed\":3,"
		 "\"data:set\":\"cifar-10\"}",
		 "cfg.json:1:2: parameter 'lr': 0.2 is out of range [1e-05, "
		 "0.1]"},
		{"{\"lr\":0.01,\"momentum\":0,\"layers\":1.5,\"units\":16,"
		 "\"opt\":\"sgd\",\"bn\":true,\"bs\":16,\"drop\":0,\"seed\":3,"
		 "\"data:set\":\"cifar-10\"}",
		 "cfg.json:1:25: parameter 'layers': expected an integer, "
		 "found a fraction"},
		{"{\"lr\":0.01,\"momentum\":0,\"layers\":1,\"units\":16,"
		 "\"opt\":\"adamw\",\"bn\":true,\"bs\":16,\"drop\":0,\"seed\":"
		 "3,"
		 "\"data:set\":\"cifar-10\"}",
		 "cfg.json:1:47: parameter 'opt': value is not one of its 2 "
		 "choices"},
		{"{\"lr\":0.01,\"momentum\":0,\"layers\":1,\"units\":16,"
		 "\"opt\":\"sgd\",\"bn\":true,\"bs\":\"16\",\"drop\":0,"
		 "\"seed\":3,\"data:set\":\"cifar-10\"}",
		 "parameter 'bs': value is not one of its 3 choices"},
		{"{\"lr\":0.01,\"momentum\":0,\"layers\":1,\"units\":16,"
		 "\"opt\":\"sgd\",\"bn\":true,\"bs\":16,\"drop\":0,\"seed\":4,"
		 "\"data:set\":\"cifar-10\"}",
		 "parameter 'seed': value must be the constant 3"},
		{"{\"lr\":0.01,\"momentum\":0,\"layers\":1,\"units\":16,"
		 "\"opt\":\"sgd\",\"bn\":true,\"bs\":16,\"drop\":0,\"seed\":3}",
		 "cfg.json:1:1: missing parameter 'data:set'; a configuration "
		 "needs every active parameter of the space"},
		{"{\"lr\":0.01,\"momentum\":0,\"layers\":1,\"units\":16,"
		 "\"opt\":\"sgd\",\"bn\":true,\"bs\":16,\"drop\":0,\"seed\":3,"
		 "\"data:set\":\"cifar-10\",\"extra\":1}",
		 "unknown parameter 'extra' (not in the search space)"},
		{"{\"lr\":\"0.01\"}",
		 "parameter 'lr': expected a number, found string"},
		{"[1]", "cfg.json:1:1: expected a configuration object, found "
			"array"},
	};
	struct space *sp = load_ok("space_native.json");
	char err[DEHBQ_ERRLEN];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_eq(config_rc(sp, cases[i].text, err),
				 DEHBQ_EINVAL);
		ck_assert_msg(strstr(err, cases[i].msg), "got %s\nwant %s", err,
			      cases[i].msg);
	}
	ck_assert_int_eq(
		config_rc(sp,
			  "{\"lr\":0.01,\"momentum\":0,\"layers\":1,\"units\":"
			  "16,\"opt\":\"sgd\",\"bn\":true,\"bs\":16,\"drop\":0,"
			  "\"seed\":3,\"data:set\":\"cifar-10\"}",
			  err),
		DEHBQ_OK);
	space_free(sp);
}
END_TEST

/* ---- limits ---- */

/* A native space of n float parameters named p0, p1, ... */
static char *many_params_text(int n)
{
	size_t size = 64 + (size_t)n * 64, len;
	char *t = malloc(size);
	int i;

	ck_assert_ptr_nonnull(t);
	len = (size_t)snprintf(t, size,
			       "{\"format\":\"dehbq-space/1\","
			       "\"parameters\":[");
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(
			t + len, size - len,
			"%s{\"name\":\"p%d\",\"type\":\"float\","
			"\"low\":0,\"high\":1}",
			i ? "," : "", i);
	snprintf(t + len, size - len, "]}");
	return t;
}

START_TEST(test_space_max_params_accepted_one_more_refused)
{
	char err[DEHBQ_ERRLEN], *t;
	struct space *sp;

	t = many_params_text(SPACE_MAX_PARAMS);
	sp = parse_ok(t);
	free(t);
	ck_assert_int_eq(space_dim(sp), SPACE_MAX_PARAMS);
	ck_assert_int_eq(space_param_find(sp, "p4095"), 4095);
	ck_assert_int_eq(space_param_find(sp, "p0"), 0);
	check_round_trips(sp, 3, 9);
	space_free(sp);
	t = many_params_text(SPACE_MAX_PARAMS + 1);
	ck_assert_int_eq(parse_text(t, &sp, err), DEHBQ_ETOOBIG);
	free(t);
	ck_assert_ptr_nonnull(strstr(err, "'parameters' has 4097 entries "
					  "(at most 4096)"));
}
END_TEST

/* A categorical of n string choices. */
static char *many_choices_text(int n)
{
	size_t size = 128 + (size_t)n * 16, len;
	char *t = malloc(size);
	int i;

	ck_assert_ptr_nonnull(t);
	len = (size_t)snprintf(t, size,
			       "{\"format\":\"dehbq-space/1\",\"parameters\":"
			       "[{\"name\":\"c\",\"type\":\"categorical\","
			       "\"choices\":[");
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(t + len, size - len, "%s\"c%d\"",
					i ? "," : "", i);
	snprintf(t + len, size - len, "]}]}");
	return t;
}

START_TEST(test_space_max_choices_accepted_one_more_refused)
{
	char err[DEHBQ_ERRLEN], *t;
	struct space *sp;

	t = many_choices_text(SPACE_MAX_CHOICES);
	sp = parse_ok(t);
	free(t);
	check_round_trips(sp, 1000, 8);
	space_free(sp);
	t = many_choices_text(SPACE_MAX_CHOICES + 1);
	ck_assert_int_eq(parse_text(t, &sp, err), DEHBQ_ETOOBIG);
	free(t);
	ck_assert_ptr_nonnull(strstr(err, "parameter 'c': 'choices' has 10001 "
					  "entries (at most 10000)"));
}
END_TEST

START_TEST(test_space_name_length_limit)
{
	char text[512], name[200], err[DEHBQ_ERRLEN];
	struct space *sp;

	memset(name, 'x', 128);
	name[128] = 0;
	snprintf(text, sizeof(text),
		 "{\"format\":\"dehbq-space/1\",\"parameters\":[{\"name\":"
		 "\"%s\",\"type\":\"int\",\"low\":0,\"high\":1}]}",
		 name);
	sp = parse_ok(text);
	space_free(sp);
	name[128] = 'x';
	name[129] = 0;
	snprintf(text, sizeof(text),
		 "{\"format\":\"dehbq-space/1\",\"parameters\":[{\"name\":"
		 "\"%s\",\"type\":\"int\",\"low\":0,\"high\":1}]}",
		 name);
	ck_assert_int_eq(parse_text(text, &sp, err), DEHBQ_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "is invalid: use 1 to 128"));
	ck_assert_int_eq(parse_text("{\"format\":\"dehbq-space/1\","
				    "\"parameters\":[{\"name\":\"\",\"type\":"
				    "\"int\",\"low\":0,\"high\":1}]}",
				    &sp, err),
			 DEHBQ_EINVAL);
	ck_assert_int_eq(parse_text("{\"format\":\"dehbq-space/1\","
				    "\"parameters\":[{\"name\":\"1x\",\"type\":"
				    "\"int\",\"low\":0,\"high\":1}]}",
				    &sp, err),
			 DEHBQ_EINVAL);
}
END_TEST

START_TEST(test_space_int_bounds_limit_2_pow_53)
{
	char err[DEHBQ_ERRLEN];
	struct space *sp;

	sp = parse_ok("{\"format\":\"dehbq-space/1\",\"parameters\":[{"
		      "\"name\":\"n\",\"type\":\"int\",\"low\":"
		      "-9007199254740992,\"high\":9007199254740992}]}");
	check_round_trips(sp, 10000, 6);
	space_free(sp);
	ck_assert_int_eq(parse_text("{\"format\":\"dehbq-space/1\","
				    "\"parameters\":[{\"name\":\"n\",\"type\":"
				    "\"int\",\"low\":0,\"high\":"
				    "9007199254740994}]}",
				    &sp, err),
			 DEHBQ_EINVAL);
}
END_TEST

START_TEST(test_space_file_over_4mib_refused)
{
	char err[DEHBQ_ERRLEN];
	const char *path = tu_path("big.json");
	struct space *sp;
	FILE *f = fopen(path, "w");
	size_t i;

	ck_assert_ptr_nonnull(f);
	fputs("{\"format\":\"dehbq-space/1\",\"parameters\":[", f);
	for (i = 0; i < SPACE_FILE_CAP; i += 8)
		fputs("        ", f);
	fputs("]}", f);
	fclose(f);
	ck_assert_int_eq(space_load(path, &sp, err), DEHBQ_ETOOBIG);
	ck_assert_ptr_nonnull(strstr(err, "larger than 4194304 bytes"));
}
END_TEST

START_TEST(test_space_value_format_too_small_is_etoobig)
{
	struct space_value v = {SPACE_V_STRING, 0, 0, "sgd", 0};
	char buf[4];

	ck_assert_int_eq(space_value_format(&v, buf, 4), DEHBQ_OK);
	ck_assert_int_eq(space_value_format(&v, buf, 3), DEHBQ_ETOOBIG);
	v.type = SPACE_V_FLOAT;
	v.f = 1.0 / 3.0;
	ck_assert_int_eq(space_value_format(&v, buf, 4), DEHBQ_ETOOBIG);
	v.f = 0.5;
	ck_assert_int_eq(space_value_format(&v, buf, 4), DEHBQ_OK);
	ck_assert_str_eq(buf, "0.5");
	v.type = (enum space_vtype)42;
	ck_assert_int_eq(space_value_format(&v, buf, 4), DEHBQ_EINVAL);
}
END_TEST

/*
 * space_move (PBT's explore): a float times the factor (log scale alike),
 * clamped; an int and an ordinal one step, clamped at the ends; a
 * categorical the choice u picks; a constant unchanged.
 */
START_TEST(test_space_move_in_own_units)
{
	struct space *sp = parse_ok(
		"{\"format\":\"dehbq-space/1\",\"parameters\":["
		"{\"name\":\"a\",\"type\":\"float\",\"low\":0,\"high\":10},"
		"{\"name\":\"lr\",\"type\":\"float\",\"low\":0.001,"
		"\"high\":1,\"log\":true},"
		"{\"name\":\"n\",\"type\":\"int\",\"low\":1,\"high\":5},"
		"{\"name\":\"o\",\"type\":\"ordinal\",\"sequence\":[1,2,4]},"
		"{\"name\":\"c\",\"type\":\"categorical\",\"choices\":"
		"[\"x\",\"y\",\"z\",\"w\"]},"
		"{\"name\":\"k\",\"type\":\"constant\",\"value\":3}]}");
	struct space_value in[6], out[6];
	double v[6], w[6];
	char err[DEHBQ_ERRLEN];

	in[0] = (struct space_value){.type = SPACE_V_FLOAT, .f = 5};
	in[1] = (struct space_value){.type = SPACE_V_FLOAT, .f = 0.01};
	in[2] = (struct space_value){.type = SPACE_V_INT, .i = 5};
	in[3] = (struct space_value){.type = SPACE_V_INT, .i = 2};
	in[4] = (struct space_value){.type = SPACE_V_STRING, .s = "y"};
	in[5] = (struct space_value){.type = SPACE_V_INT, .i = 3};
	ck_assert_int_eq(space_encode(sp, in, v, err), DEHBQ_OK);
	memcpy(w, v, sizeof(w));
	w[0] = space_move(sp, 0, v[0], 1.2, 0);
	w[1] = space_move(sp, 1, v[1], 0.8, 0);
	w[2] = space_move(sp, 2, v[2], 1.2, 0); /* at its top: stays */
	w[3] = space_move(sp, 3, v[3], 1.2, 0);
	w[4] = space_move(sp, 4, v[4], 1.2, 0.9);
	w[5] = space_move(sp, 5, v[5], 0.8, 0.5);
	ck_assert_int_eq(space_decode(sp, w, out), DEHBQ_OK);
	ck_assert_double_eq_tol(out[0].f, 6, 1e-12);
	ck_assert_double_eq_tol(out[1].f, 0.008, 1e-15);
	ck_assert_int_eq(out[2].i, 5);
	ck_assert_int_eq(out[3].i, 4);
	ck_assert_str_eq(out[4].s, "w");
	ck_assert_int_eq(out[5].i, 3);
	/* down: the int one step, the ordinal one step, a float clamped */
	w[0] = space_move(sp, 0, 1.0, 1.2, 0);
	w[2] = space_move(sp, 2, v[2], 0.8, 0);
	w[3] = space_move(sp, 3, space_move(sp, 3, v[3], 0.8, 0), 0.8, 0);
	ck_assert_int_eq(space_decode(sp, w, out), DEHBQ_OK);
	ck_assert(out[0].f == 10);
	ck_assert_int_eq(out[2].i, 4);
	ck_assert_int_eq(out[3].i, 1);
	space_free(sp);
}
END_TEST

Suite *space_suite(void)
{
	Suite *s = suite_create("space");
	TCase *core = tcase_create("core");
	TCase *errors = tcase_create("errors");
	TCase *limits = tcase_create("limits");

	tcase_set_timeout(core, 60);
	tcase_set_timeout(limits, 60);
	tcase_add_test(core, test_space_native_parses_all_types);
	tcase_add_test(core, test_space_move_in_own_units);
	tcase_add_test(core, test_space_decode_endpoints_stay_in_range);
	tcase_add_test(core, test_space_float_log_decode_never_leaves_bounds);
	tcase_add_test(core, test_space_round_trip_all_types);
	tcase_add_test(core, test_space_int_round_trip_every_value);
	tcase_add_test(core, test_space_int_linear_gives_endpoints_equal_mass);
	tcase_add_test(core, test_space_int_log_mass_is_log_uniform);
	tcase_add_test(core, test_space_choices_round_trip_every_k_up_to_2000);
	tcase_add_test(core, test_space_reference_failing_cases_now_work);
	tcase_add_test(core, test_space_float_round_trip_is_exact);
	tcase_add_test(core, test_space_encode_accepts_int_for_float_and_back);
	tcase_add_test(core, test_space_to_json_and_back_is_equal);
	tcase_add_test(core, test_space_json_numbers_are_exact);
	tcase_add_test(core, test_space_native_json_keeps_defaults_and_log);
	tcase_add_test(core, test_space_configspace_real_0_6_1_loads);
	tcase_add_test(core, test_space_configspace_real_1_2_0_loads);
	tcase_add_test(core, test_space_configspace_shapes_0_6_and_1x_load);
	tcase_add_test(core, test_space_config_json_round_trip);
	tcase_add_test(core, test_space_value_format_shortest_exact);
	tcase_add_loop_test(errors, test_space_bad_file_gives_precise_message,
			    0, N_BAD);
	tcase_add_test(errors, test_space_every_bad_file_is_in_the_table);
	tcase_add_test(errors, test_space_load_missing_file_is_esys);
	tcase_add_test(errors, test_space_names_with_one_env_variable_refused);
	tcase_add_test(core, test_space_env_name_maps_like_the_worker);
	tcase_add_test(errors,
		       test_space_embedded_object_reports_spec_positions);
	tcase_add_test(errors, test_space_encode_rejects_illegal_values);
	tcase_add_test(errors, test_space_config_from_json_is_strict);
	tcase_add_checked_fixture(limits, tu_setup, tu_teardown);
	tcase_add_test(limits, test_space_max_params_accepted_one_more_refused);
	tcase_add_test(limits,
		       test_space_max_choices_accepted_one_more_refused);
	tcase_add_test(limits, test_space_name_length_limit);
	tcase_add_test(limits, test_space_int_bounds_limit_2_pow_53);
	tcase_add_test(limits, test_space_file_over_4mib_refused);
	tcase_add_test(limits, test_space_value_format_too_small_is_etoobig);
	suite_add_tcase(s, core);
	suite_add_tcase(s, errors);
	suite_add_tcase(s, limits);
	return s;
}
