/*
 * fuzz_statusfile.c - libFuzzer target: arbitrary bytes as status.json or
 * FINISHED
 *
 * statusfile_parse must refuse anything malformed without crashing; a
 * summary that parses renders and parses again to the same text.
 */
#include "err.h"
#include "statusfile.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[DEHBQ_ERRLEN], *t1, *t2;
	struct statusfile a, b;

	if (statusfile_parse("fuzz.json", (const char *)data, size, &a, err))
		return 0;
	if (statusfile_render(&a, &t1))
		abort();
	if (statusfile_parse("r.json", t1, strlen(t1), &b, err) ||
	    statusfile_render(&b, &t2))
		abort();
	if (strcmp(t1, t2))
		abort();
	free(t1);
	free(t2);
	statusfile_release(&a);
	statusfile_release(&b);
	return 0;
}
