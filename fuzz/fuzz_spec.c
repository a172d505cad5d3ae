/*
 * fuzz_spec.c - libFuzzer target: arbitrary bytes as a study spec
 *
 * A spec that parses must render, and the rendering must parse back to
 * the same values (space paths are not followed: allow_space_path = 0).
 */
#include "err.h"
#include "space.h"
#include "spec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[DEHBQ_ERRLEN];
	struct spec a, b;
	char *text;

	if (spec_parse("fuzz.json", (const char *)data, size, 0, &a, err))
		return 0;
	if (spec_render(&a, &text))
		abort();
	if (spec_parse("render.json", text, strlen(text), 0, &b, err))
		abort();
	if (a.min_fidelity != b.min_fidelity ||
	    a.max_fidelity != b.max_fidelity || a.eta != b.eta ||
	    a.seed != b.seed || a.fevals != b.fevals || a.lease != b.lease ||
	    a.poll != b.poll || strcmp(a.optimizer, b.optimizer) ||
	    !space_equal(a.space, b.space))
		abort();
	free(text);
	spec_release(&a);
	spec_release(&b);
	return 0;
}
