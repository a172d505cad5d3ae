/*
 * fuzz_utf8.c - libFuzzer target: arbitrary bytes through utf8_check and
 * utf8_repair
 *
 * The repair of anything is valid UTF-8; the repair of valid text is the
 * text itself; text that checks valid parses as a JSON string's content
 * exactly when cJSON reads it back from jsonbuf_str's output unchanged.
 */
#include "jsonbuf.h"
#include "jsonfile.h"
#include "err.h"
#include "utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	char err[DEHBQ_ERRLEN], *r, *z;
	struct jsonfile *jf;
	struct jsonbuf b;
	size_t n, at = utf8_check(s, size);

	if (at > size)
		abort();
	if (!(r = utf8_repair(s, size, &n)))
		return 0;
	if (utf8_check(r, n) != n || strlen(r) > n)
		abort();
	if (at == size && (n != size || memcmp(r, s, size)))
		abort();
	free(r);
	/* as a string value (up to the first NUL): written, then read back */
	if (!(z = malloc(size + 1)))
		return 0;
	memcpy(z, s, size);
	z[size] = 0;
	jsonbuf_init(&b);
	jsonbuf_str(&b, z);
	if (!jsonbuf_failed(&b) && b.len) {
		if (jsonfile_parse("s", b.p, b.len, &jf, err))
			abort(); /* a written string must always read back */
		jsonfile_free(jf);
	}
	jsonbuf_free(&b);
	free(z);
	return 0;
}
