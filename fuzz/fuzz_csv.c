/*
 * fuzz_csv.c - libFuzzer target: arbitrary bytes as a CSV file of
 * evaluations (csvrows_parse), typed by a space with a float, an integer
 * and categoricals of string, number and boolean choices
 *
 * csvrows_parse must refuse anything malformed with a message and never
 * crash; every record it hands over is an object whose members are
 * columns of its header.
 */
#include "csvrows.h"
#include "err.h"
#include "jsonfile.h"
#include "space.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char space_text[] =
	"{\"format\": \"dehbq-space/1\", \"parameters\": ["
	"{\"name\": \"x\", \"type\": \"float\", \"low\": 0, \"high\": 1},"
	"{\"name\": \"n\", \"type\": \"int\", \"low\": 1, \"high\": 9},"
	"{\"name\": \"c\", \"type\": \"categorical\", \"choices\": [\"a\", "
	"\"b\"]},"
	"{\"name\": \"k\", \"type\": \"ordinal\", \"sequence\": [2, 4.5]},"
	"{\"name\": \"t\", \"type\": \"categorical\", \"choices\": [true, "
	"false]}]}";

static struct space *sp;

static int row(void *ctx, long r, const cJSON *obj)
{
	(void)ctx;
	if (r < 2 || !cJSON_IsObject(obj))
		abort();
	return r > 1000 ? DEHBQ_EINVAL : DEHBQ_OK; /* a caller that stops */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[DEHBQ_ERRLEN];

	if (!sp) {
		struct jsonfile *jf;

		if (jsonfile_parse("space.json", space_text,
				   sizeof(space_text) - 1, &jf, err) ||
		    space_from_json(jf, jsonfile_root(jf), &sp, err))
			abort();
		jsonfile_free(jf);
	}
	err[0] = 0;
	if (csvrows_parse("fuzz.csv", (const char *)data, size, sp, row, NULL,
			  err) &&
	    !err[0])
		abort();
	return 0;
}
