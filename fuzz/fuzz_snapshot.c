/*
 * fuzz_snapshot.c - libFuzzer target: arbitrary bytes as the optimiser
 * state of a snapshot (optim_load, every backend's load)
 *
 * optim_load must refuse anything malformed without crashing; a state that
 * loads must save and load again to the same text, and must then take
 * asks and tells.  The setup is read from the input's own "setup" (the
 * study's, in a real snapshot), with the dimension bounded; the history
 * file's text, for an optimiser that keeps one, from its "fuzz_history"
 * string.
 */
#include "err.h"
#include "jsonbuf.h"
#include "jsonfile.h"
#include "mobj.h"
#include "optim.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static char *save(const struct optim *o)
{
	struct jsonbuf b;
	char *t;

	jsonbuf_init(&b);
	if (optim_save(o, &b) || !(t = jsonbuf_take(&b)))
		abort();
	return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int choices[64] = {0, 3};
	char err[DEHBQ_ERRLEN], *t1, *t2;
	struct jsonfile *jf;
	struct optim *o, *o2;
	struct optim_setup u;
	struct optim_job job;
	const cJSON *su, *hi;
	const char *h = NULL;
	size_t hl = 0;
	double x[64];
	int i;

	if (jsonfile_parse("fuzz.json", (const char *)data, size, &jf, err))
		return 0;
	su = cJSON_GetObjectItemCaseSensitive(jsonfile_root(jf), "setup");
	memset(&u, 0, sizeof(u));
	u.dim = num(su, "dim") >= 1 && num(su, "dim") <= 64
			? (int)num(su, "dim")
			: 0;
	u.min_fidelity = num(su, "min_fidelity");
	u.max_fidelity = num(su, "max_fidelity");
	u.eta = num(su, "eta");
	u.seed = num(su, "seed") >= 0 ? (uint64_t)num(su, "seed") : 0;
	u.choices = choices;
	if (num(su, "objectives") >= 2 && num(su, "objectives") <= 16) {
		const char *m = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(su, "scalarise"));

		u.nobj = (int)num(su, "objectives");
		if (!m || mobj_mode_parse(m, &u.scalarise))
			u.scalarise = -1;
	}
	hi = cJSON_GetObjectItemCaseSensitive(jsonfile_root(jf),
					      "fuzz_history");
	if (cJSON_IsString(hi)) {
		h = hi->valuestring;
		hl = strlen(h);
	}
	if (u.dim < 1 || u.dim > 64 ||
	    optim_load(jsonfile_root(jf), &u, h, hl, &o, err)) {
		jsonfile_free(jf);
		return 0;
	}
	t1 = save(o);
	{
		struct jsonfile *j2;

		if (jsonfile_parse("save.json", t1, strlen(t1), &j2, err) ||
		    optim_load(jsonfile_root(j2), &u, h, hl, &o2, err))
			abort();
		jsonfile_free(j2);
	}
	jsonfile_free(jf); /* h points into it */
	t2 = save(o2);
	if (strcmp(t1, t2))
		abort();
	/* a loaded optimiser works: a few asks and tells */
	for (i = 0; i < 8; i++) {
		double y[16] = {(double)i, 8.0 - i};

		if (optim_ask(o2, &job, x) == DEHBQ_OK &&
		    (u.nobj ? optim_tell_obj(o2, job.id,
					     i % 3 ? OPTIM_OK : OPTIM_FAILED, y,
					     job.fidelity)
			    : optim_tell(o2, job.id,
					 i % 3 ? OPTIM_OK : OPTIM_FAILED,
					 (double)i, job.fidelity)))
			abort();
	}
	free(t1);
	free(t2);
	optim_free(o);
	optim_free(o2);
	return 0;
}
