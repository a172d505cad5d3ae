/*
 * jsonfile.h - size-capped JSON documents with compiler-style errors
 *
 * Every JSON file dehbq reads from outside (spec, space, trial, result,
 * snapshot, registry) goes through here.  A jsonfile keeps the source text
 * next to the cJSON tree, so any item can be reported as `name:line:col:`.
 *
 * On top of cJSON's grammar it refuses, with a position:
 *   - numbers that are not finite doubles (1e400; NaN/Infinity are
 *     already not JSON),
 *   - duplicate keys in one object,
 *   - a \u0000 escape in any string or key (cJSON would decode it to a
 *     NUL byte and the C string would silently end there),
 *   - nesting deeper than cJSON's limit (1000), and files over the cap.
 *
 * Calling sequence:
 *   struct jsonfile *jf;
 *   if (jsonfile_load(path, cap, &jf, err)) ... report err ...
 *   root = jsonfile_root(jf);  ... jsonfile_get_*(jf, obj, ...) ...
 *   jsonfile_free(jf);
 *
 * Error handling: functions return DEHBQ_OK or a code and write one line
 * into err, always starting with the file's display name.  The getters
 * return DEHBQ_ENOENT (message written) for a missing required key and
 * DEHBQ_OK with the output untouched for a missing optional key.
 *
 * Ownership: the jsonfile owns its text and tree; items and strings from
 * jsonfile_root()/getters are borrowed, valid until jsonfile_free().
 * The cJSON tree is only handed to the format modules of common/ (space,
 * spec, trial, result, snapshot); programs see typed structs.
 */
#ifndef DEHBQ_JSONFILE_H
#define DEHBQ_JSONFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

struct jsonfile;

#define JSONFILE_CAP (1u << 20) /* default cap for small files: 1 MiB */

/*
 * Read and parse path (regular files only, no symlinks, at most cap
 * bytes).  The display name in messages is the path as given.
 */
int jsonfile_load(const char *path, size_t cap, struct jsonfile **out,
		  char *err);
/* The same through another open(2) (fsutil_read_file_with); on
 * DEHBQ_ESYS, errno is the read's. */
int jsonfile_load_with(const char *path, size_t cap,
		       int (*op)(const char *path, int flags, mode_t mode),
		       struct jsonfile **out, char *err);
/* Parse len bytes of text (copied); name is used in messages. */
int jsonfile_parse(const char *name, const char *text, size_t len,
		   struct jsonfile **out, char *err);
void jsonfile_free(struct jsonfile *jf);

const cJSON *jsonfile_root(const struct jsonfile *jf);
const char *jsonfile_name(const struct jsonfile *jf);

/*
 * Write "name:line:col: <message>" for item (an object member is located
 * at its key) into err; returns DEHBQ_EINVAL.  item NULL means the whole
 * file ("name: <message>").
 */
int jsonfile_errf(const struct jsonfile *jf, const cJSON *item, char *err,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Line and column (1-based) of item; 0, 0 if not found. */
void jsonfile_where(const struct jsonfile *jf, const cJSON *item, int *line,
		    int *col);

/* Require root to be an object whose "format" is exactly want. */
int jsonfile_check_format(const struct jsonfile *jf, const char *want,
			  char *err);
/* Refuse members of obj not listed in allowed (NULL-terminated). */
int jsonfile_check_keys(const struct jsonfile *jf, const cJSON *obj,
			const char *const *allowed, char *err);

enum jsonfile_need {
	JSONFILE_OPTIONAL = 0, /* missing: DEHBQ_OK, output untouched */
	JSONFILE_REQUIRED = 1, /* missing: DEHBQ_ENOENT with a message */
};

/* String member; *out borrowed.  Empty strings are allowed. */
int jsonfile_get_string(const struct jsonfile *jf, const cJSON *obj,
			const char *key, enum jsonfile_need need,
			const char **out, char *err);
/* Finite number member within [min, max]. */
int jsonfile_get_number(const struct jsonfile *jf, const cJSON *obj,
			const char *key, enum jsonfile_need need, double min,
			double max, double *out, char *err);
/* Integral number member within [min, max] (|v| <= 2^53). */
int jsonfile_get_int(const struct jsonfile *jf, const cJSON *obj,
		     const char *key, enum jsonfile_need need, int64_t min,
		     int64_t max, int64_t *out, char *err);
/* true/false member. */
int jsonfile_get_bool(const struct jsonfile *jf, const cJSON *obj,
		      const char *key, enum jsonfile_need need, int *out,
		      char *err);
/* Member that must be an object / an array; *out borrowed. */
int jsonfile_get_object(const struct jsonfile *jf, const cJSON *obj,
			const char *key, enum jsonfile_need need,
			const cJSON **out, char *err);
int jsonfile_get_array(const struct jsonfile *jf, const cJSON *obj,
		       const char *key, enum jsonfile_need need,
		       const cJSON **out, char *err);

/*
 * The shortest text of d that reads back as d, into buf (size >= 32): an
 * integer below 2^53 in plain digits, -0.0 as "-0.0", else the shortest of
 * %.15g, %.16g and %.17g (but see jsonfile.c for a rare d written with 17
 * digits).  A non-finite d prints as printf prints it.
 */
void jsonfile_fmt_double(char *buf, size_t size, double d);
/*
 * A number item that prints exactly: a raw item holding
 * jsonfile_fmt_double's text, with valuedouble and valueint set.  (cJSON's
 * own printer accepts a one-ulp difference, which would break exact resume
 * and exact fidelities.)  NULL for a non-finite value or out of memory.
 */
cJSON *jsonfile_number(double d);
/*
 * The text of a finite d as jsonfile_fmt_double's, but always %.17g for a
 * non-integer: exact and about three times cheaper, not the shortest.  For
 * machine data (the snapshot, a trial's vector).  buf: size >= 32.
 */
void jsonfile_fmt_exact(char *buf, size_t size, double d);
/*
 * item printed unformatted with every number exact (as jsonfile_number's),
 * where cJSON_PrintUnformatted() may move a number by one ulp.  Returns
 * malloc'ed text (free with cJSON_free) or NULL when out of memory.
 */
char *jsonfile_print_exact(const cJSON *item);
/* The same in place: every number item under item (itself included)
 * becomes a raw item with its exact text, for a tree printed with
 * others.  0 ok, -1 out of memory (then some are converted). */
int jsonfile_exact_numbers(cJSON *item);
/* Add jsonfile_number(d) to obj under key; 0 ok, -1 on failure. */
int jsonfile_add_number(cJSON *obj, const char *key, double d);

/*
 * Pretty-print o with a trailing newline into *out (malloc'ed, caller
 * frees).  Takes ownership of o and deletes it.  built == 0 means building
 * o failed part-way: nothing is printed and DEHBQ_ENOMEM is returned.
 */
int jsonfile_render(cJSON *o, int built, char **out);

/* Name of a cJSON item's type for messages: "string", "number", ... */
const char *jsonfile_type_name(const cJSON *item);

#endif
