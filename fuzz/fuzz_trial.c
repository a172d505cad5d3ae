/*
 * fuzz_trial.c - libFuzzer target: arbitrary bytes as a trial file
 *
 * Parsed against a fixed space with every parameter type.  A trial that
 * parses must render and parse back identically.
 */
#include "err.h"
#include "jsonfile.h"
#include "space.h"
#include "trial.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char space_text[] =
	"{\"format\": \"dehbq-space/1\", \"parameters\": ["
	"{\"name\": \"x\", \"type\": \"float\", \"low\": 0, \"high\": 1},"
	"{\"name\": \"lr\", \"type\": \"float\", \"low\": 1e-5, \"high\": 1,"
	" \"log\": true},"
	"{\"name\": \"n\", \"type\": \"int\", \"low\": 1, \"high\": 8},"
	"{\"name\": \"opt\", \"type\": \"categorical\","
	" \"choices\": [\"adam\", \"sgd\"]},"
	"{\"name\": \"bs\", \"type\": \"ordinal\", \"sequence\": [16, 32]},"
	"{\"name\": \"c\", \"type\": \"constant\", \"value\": true}]}";

static struct space *fixed_space(void)
{
	static struct space *sp;
	char err[DEHBQ_ERRLEN];
	struct jsonfile *jf;

	if (sp)
		return sp;
	if (jsonfile_parse("space", space_text, strlen(space_text), &jf, err) ||
	    space_from_json(jf, jsonfile_root(jf), &sp, err))
		abort();
	jsonfile_free(jf);
	return sp;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[DEHBQ_ERRLEN];
	struct space *sp = fixed_space();
	struct trial a, b;
	char *text;
	int i;

	if (trial_parse("fuzz.json", (const char *)data, size, sp, &a, err))
		return 0;
	if (trial_render(&a, sp, &text))
		abort();
	if (trial_parse("render.json", text, strlen(text), sp, &b, err))
		abort();
	if (a.id != b.id || a.attempt != b.attempt || a.token != b.token ||
	    a.rung != b.rung || a.fidelity != b.fidelity ||
	    a.parent != b.parent || a.kind != b.kind ||
	    strcmp(a.study, b.study))
		abort();
	for (i = 0; i < a.dim; i++)
		if (a.vec[i] != b.vec[i])
			abort();
	free(text);
	trial_release(&a);
	trial_release(&b);
	return 0;
}
