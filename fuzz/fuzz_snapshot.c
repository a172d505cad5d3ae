/*
 * fuzz_snapshot.c - libFuzzer target: arbitrary bytes as engine state
 *
 * dehb_load must refuse anything malformed without crashing; a state that
 * loads must save and load again to the same text.
 */
#include "dehb.h"
#include "err.h"
#include "jsonbuf.h"
#include "jsonfile.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[DEHBQ_ERRLEN], *t1, *t2;
	struct jsonfile *jf;
	struct dehb *d, *d2;
	struct jsonbuf b;

	if (jsonfile_parse("fuzz.json", (const char *)data, size, &jf, err))
		return 0;
	if (dehb_load(jsonfile_root(jf), &d, err)) {
		jsonfile_free(jf);
		return 0;
	}
	jsonfile_free(jf);
	jsonbuf_init(&b);
	if (dehb_save(d, &b) || !(t1 = jsonbuf_take(&b)))
		abort();
	if (jsonfile_parse("save.json", t1, strlen(t1), &jf, err) ||
	    dehb_load(jsonfile_root(jf), &d2, err))
		abort();
	jsonfile_free(jf);
	jsonbuf_init(&b);
	if (dehb_save(d2, &b) || !(t2 = jsonbuf_take(&b)))
		abort();
	if (strcmp(t1, t2))
		abort();
	free(t1);
	free(t2);
	dehb_free(d);
	dehb_free(d2);
	return 0;
}
