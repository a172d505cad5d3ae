/*
 * csvrows.h - a CSV file of evaluations as JSON objects, one per record
 * (libcsv), typed by a search space: what `dehbq init --transfer-from
 * FILE.csv` reads (cli/transfer.c), through the same checks as JSON lines
 *
 * The first record is the header: the column names, non-empty and
 * distinct.  Each later record becomes {"column": value, ...}:
 *   - an empty field is left out (an inactive parameter, no fidelity);
 *   - "task" is a string; "loss" and "fidelity" are numbers when they read
 *     as finite numbers, else strings (which the caller refuses);
 *   - a float or integer parameter's field is a number when it reads as a
 *     finite one; a categorical, ordinal or constant parameter's is the
 *     choice whose text it is (a string choice by its text, a number by
 *     its value, a boolean as true/false in any case), else a string;
 *   - any other column is a string (the caller refuses it by name).
 * Rows are numbered as records, the header being row 1.
 *
 * Errors: DEHBQ_EINVAL with one line in err naming the file and the row
 * (malformed CSV, a record whose field count differs from the header's, a
 * NUL byte, a bad header); the callback's code stops the parse and is
 * returned.  DEHBQ_ENOMEM.
 *
 * Ownership: obj is the parser's, valid during the callback only.
 */
#ifndef DEHBQ_CSVROWS_H
#define DEHBQ_CSVROWS_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "space.h"

typedef int (*csvrows_fn)(void *ctx, long row, const cJSON *obj);

int csvrows_parse(const char *name, const char *text, size_t len,
		  const struct space *sp, csvrows_fn fn, void *ctx, char *err);

#endif
