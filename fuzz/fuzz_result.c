/*
 * fuzz_result.c - libFuzzer target: arbitrary bytes as a result file and
 * as a trainer report
 *
 * A result that parses must render and parse back identically; a report
 * that parses must give a finite loss.
 */
#include "err.h"
#include "result.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[DEHBQ_ERRLEN], *text, *info, *objs;
	struct result a, b;
	double loss, cost;

	if (!result_parse_report("report", (const char *)data, size, &loss,
				 &cost, &info, &objs, err)) {
		if (!(isfinite(loss) || (isnan(loss) && objs)) || !info)
			abort();
		free(info);
		free(objs);
	}
	if (result_parse("fuzz.json", (const char *)data, size, &a, err))
		return 0;
	if (result_render(&a, &text))
		abort();
	if (result_parse("render.json", text, strlen(text), &b, err))
		abort();
	if (a.status != b.status || a.attempt != b.attempt ||
	    a.token != b.token || (result_has_loss(&a) && a.loss != b.loss) ||
	    a.fidelity != b.fidelity || a.cost != b.cost ||
	    strcmp(a.id, b.id) || strcmp(a.info, b.info) ||
	    strcmp(a.error, b.error) || !a.objectives != !b.objectives ||
	    (a.objectives && strcmp(a.objectives, b.objectives)))
		abort();
	free(text);
	result_release(&a);
	result_release(&b);
	return 0;
}
