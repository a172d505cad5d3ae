/*
 * fuzz_transfer.c - libFuzzer target: arbitrary bytes as a study's
 * state/transfer.jsonl (transfer_parse), for a space of 1 to 8 parameters
 * chosen by the first byte
 *
 * transfer_parse must refuse anything malformed without crashing; a file
 * that parses must render to text that parses back to the same data.
 */
#include "err.h"
#include "transfer.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[DEHBQ_ERRLEN], *text;
	struct transfer a, b;
	int dim;

	if (!size)
		return 0;
	dim = 1 + data[0] % 8;
	if (transfer_parse("fuzz.jsonl", (const char *)data + 1, size - 1, dim,
			   &a, err))
		return 0;
	if (transfer_render(&a, &text) ||
	    transfer_parse("render.jsonl", text, strlen(text), dim, &b, err))
		abort();
	if (a.ntasks != b.ntasks || a.total != b.total ||
	    memcmp(a.n, b.n, (size_t)a.ntasks * sizeof(*a.n)) ||
	    memcmp(a.x, b.x, a.total * (size_t)dim * sizeof(double)) ||
	    memcmp(a.y, b.y, a.total * sizeof(double)))
		abort();
	free(text);
	transfer_release(&a);
	transfer_release(&b);
	return 0;
}
