/*
 * fuzz_space.c - libFuzzer target: arbitrary bytes as a search space
 *
 * Parses the input as JSON (jsonfile_parse) and then as a space, native or
 * ConfigSpace (space_from_json).  When it parses, exercises everything a
 * space offers on vectors derived from the input: decode, encode (which
 * must accept every decoded value and round-trip it), value formatting,
 * the configuration's JSON read back (exactly the active parameters of a
 * conditional space), both JSON writers and a reparse of the native form,
 * which must give an equal space.  Any violated invariant aborts; everything is
 * freed, so LeakSanitizer catches leaks.
 */
#include "err.h"
#include "jsonfile.h"
#include "space.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reparse the native JSON of sp; it must describe the same space. */
static void check_native_round_trip(const struct space *sp)
{
	char err[DEHBQ_ERRLEN];
	struct jsonfile *jf;
	struct space *back;
	cJSON *o = space_to_json(sp);
	char *text;

	if (!o)
		abort();
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!text)
		abort();
	if (jsonfile_parse("native", text, strlen(text), &jf, err))
		abort();
	if (space_from_json(jf, jsonfile_root(jf), &back, err))
		abort();
	if (!space_equal(sp, back))
		abort();
	space_free(back);
	jsonfile_free(jf);
	cJSON_free(text);
}

/* A configuration written for a trial file reads back: exactly its active
 * parameters (conditions), every value legal. */
static void check_config_reads_back(const struct space *sp, const cJSON *cfg,
				    struct space_value *tmp)
{
	char err[DEHBQ_ERRLEN], *text = cJSON_PrintUnformatted(cfg);
	struct jsonfile *jf;

	if (!text)
		abort();
	if (jsonfile_parse("cfg", text, strlen(text), &jf, err))
		abort();
	if (space_config_from_json(jf, jsonfile_root(jf), sp, tmp, err))
		abort();
	jsonfile_free(jf);
	cJSON_free(text);
}

static void exercise(const struct space *sp, const uint8_t *data, size_t size)
{
	int d = space_dim(sp), i, round;
	struct space_value *x = calloc((size_t)d, sizeof(*x));
	struct space_value *y = calloc((size_t)d, sizeof(*y));
	double *v = calloc((size_t)d, sizeof(*v));
	double *w = calloc((size_t)d, sizeof(*w));
	char err[DEHBQ_ERRLEN], buf[64];
	cJSON *cfg;

	if (!x || !y || !v || !w)
		abort();
	for (round = 0; round < 3; round++) {
		for (i = 0; i < d; i++) {
			uint8_t b =
				size ? data[((size_t)i * 7 + round) % size] : 0;

			v[i] = round == 0 ? 0.0 : round == 1 ? 1.0 : b / 255.0;
		}
		space_decode(sp, v, x);
		if (space_encode(sp, x, w, err))
			abort();
		space_decode(sp, w, y);
		for (i = 0; i < d; i++) {
			if (!(w[i] >= 0.0 && w[i] <= 1.0))
				abort();
			if (x[i].type != y[i].type)
				abort();
			if (space_param_find(sp, space_param_name(sp, i)) != i)
				abort();
			space_value_format(&x[i], buf, sizeof(buf));
		}
		(void)space_forbidden(sp, x);
		cfg = space_config_to_json(sp, x);
		if (!cfg)
			abort();
		check_config_reads_back(sp, cfg, y);
		cJSON_Delete(cfg);
	}
	check_native_round_trip(sp);
	free(x);
	free(y);
	free(v);
	free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[DEHBQ_ERRLEN];
	struct jsonfile *jf;
	struct space *sp;

	if (size > SPACE_FILE_CAP)
		return 0;
	if (jsonfile_parse("fuzz.json", (const char *)data, size, &jf, err))
		return 0;
	if (!space_from_json(jf, jsonfile_root(jf), &sp, err)) {
		exercise(sp, data, size);
		space_free(sp);
	}
	jsonfile_free(jf);
	return 0;
}
