/*
 * jsonfile.c - size-capped JSON documents with compiler-style errors
 *
 * cJSON keeps no source positions.  To report `name:line:col`, jsonfile
 * walks the (already validated) text in step with the tree: cJSON keeps
 * members and elements in text order, so the n-th value in the text is the
 * n-th child.  The walk only runs when a message is being written.
 *
 * Invariant: a jsonfile exists only for text that cJSON accepted and that
 * passed the extra checks (finite numbers, unique keys, no \u0000 in any
 * string or key), so every string in the tree is its whole JSON value.
 * Writing numbers and rendering documents is jsonfile_num.c's.
 */
#include "jsonfile.h"

#include "err.h"
#include "fsutil.h"
#include "utf8.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct jsonfile {
	char *name;  /* display name for messages */
	char *text;  /* source text, NUL-terminated */
	size_t len;  /* text length without the NUL */
	cJSON *root; /* parsed tree, owned */
};

/* ---- locating items in the source text ---- */

struct locate {
	const char *t;	     /* text */
	size_t len;	     /* its length */
	size_t pos;	     /* cursor */
	const cJSON *target; /* item looked for */
	size_t found;	     /* its offset, SIZE_MAX if not yet found */
};

static void loc_ws(struct locate *l)
{
	while (l->pos < l->len && strchr(" \t\r\n", l->t[l->pos]) &&
	       l->t[l->pos])
		l->pos++;
}

static void loc_string(struct locate *l)
{
	l->pos++; /* opening quote */
	while (l->pos < l->len && l->t[l->pos] != '"') {
		if (l->t[l->pos] == '\\')
			l->pos++;
		l->pos++;
	}
	l->pos++; /* closing quote */
}

static void loc_value(struct locate *l, const cJSON *item, size_t at)
{
	const cJSON *c;

	if (item == l->target && l->found == SIZE_MAX)
		l->found = at;
	loc_ws(l);
	if (l->pos >= l->len)
		return;
	switch (l->t[l->pos]) {
	case '"':
		loc_string(l);
		return;
	case '{':
		l->pos++;
		for (c = item ? item->child : NULL; c; c = c->next) {
			size_t key;

			loc_ws(l);
			key = l->pos;
			loc_string(l);
			loc_ws(l);
			l->pos++; /* ':' */
			loc_ws(l);
			loc_value(l, c, key);
			loc_ws(l);
			if (l->pos < l->len && l->t[l->pos] == ',')
				l->pos++;
		}
		loc_ws(l);
		l->pos++; /* '}' */
		return;
	case '[':
		l->pos++;
		for (c = item ? item->child : NULL; c; c = c->next) {
			loc_ws(l);
			loc_value(l, c, l->pos);
			loc_ws(l);
			if (l->pos < l->len && l->t[l->pos] == ',')
				l->pos++;
		}
		loc_ws(l);
		l->pos++; /* ']' */
		return;
	default: /* number, true, false, null */
		while (l->pos < l->len && !strchr(",]} \t\r\n", l->t[l->pos]))
			l->pos++;
	}
}

static void offset_to_linecol(const char *t, size_t off, int *line, int *col)
{
	size_t i;
	int ln = 1, cl = 1;

	for (i = 0; i < off && t[i]; i++) {
		if (t[i] == '\n') {
			ln++;
			cl = 1;
		} else {
			cl++;
		}
	}
	*line = ln;
	*col = cl;
}

void jsonfile_where(const struct jsonfile *jf, const cJSON *item, int *line,
		    int *col)
{
	struct locate l = {jf->text, jf->len, 0, item, SIZE_MAX};

	*line = *col = 0;
	loc_ws(&l);
	loc_value(&l, jf->root, l.pos);
	if (l.found != SIZE_MAX)
		offset_to_linecol(jf->text, l.found, line, col);
}

int jsonfile_errf(const struct jsonfile *jf, const cJSON *item, char *err,
		  const char *fmt, ...)
{
	char msg[DEHBQ_ERRLEN];
	va_list ap;
	int line = 0, col = 0;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (item)
		jsonfile_where(jf, item, &line, &col);
	if (line)
		return dehbq_errf(err, DEHBQ_EINVAL, "%s:%d:%d: %s", jf->name,
				  line, col, msg);
	return dehbq_errf(err, DEHBQ_EINVAL, "%s: %s", jf->name, msg);
}

/* ---- parsing ---- */

/* Finite numbers and unique keys everywhere; depth is cJSON's job. */
static const cJSON *check_tree(const cJSON *item, const char **why)
{
	const cJSON *c, *d, *bad;

	if (cJSON_IsNumber(item) && !isfinite(item->valuedouble)) {
		*why = "number out of range (must be a finite double)";
		return item;
	}
	for (c = item->child; c; c = c->next) {
		if (cJSON_IsObject(item))
			for (d = item->child; d != c; d = d->next)
				if (d->string[0] == c->string[0] &&
				    !strcmp(d->string, c->string)) {
					*why = "duplicate key";
					return c;
				}
		if ((bad = check_tree(c, why)))
			return bad;
	}
	return NULL;
}

/*
 * Offset of the first \u0000 escape inside a string of text (valid JSON),
 * SIZE_MAX if none.  cJSON decodes it to a NUL byte, which would end the C
 * string early: "x\u0000y" would read as "x".  The scan follows JSON's
 * escapes exactly, so "\\u0000" (an escaped backslash, then the text
 * u0000) is not one.
 */
static size_t find_nul_escape(const char *text, size_t len)
{
	size_t i;
	int in_string = 0;

	if (!memmem(text, len, "u0000", 5)) /* the usual case, fast */
		return SIZE_MAX;
	for (i = 0; i < len; i++) {
		if (text[i] == '"') {
			in_string = !in_string;
		} else if (in_string && text[i] == '\\') {
			if (len - i >= 6 && !memcmp(text + i + 1, "u0000", 5))
				return i;
			i++; /* skip the escaped character */
		}
	}
	return SIZE_MAX;
}

static int parse_error(const char *name, const char *text, size_t len,
		       const char *end, char *err)
{
	size_t off = end && end >= text ? (size_t)(end - text) : 0;
	int line, col;

	if (off > len)
		off = len;
	offset_to_linecol(text, off, &line, &col);
	if (off >= len)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "%s:%d:%d: invalid JSON: unexpected end of "
				  "input (truncated file or trailing comma?)",
				  name, line, col);
	if ((unsigned char)text[off] < 0x20 || (unsigned char)text[off] > 0x7e)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "%s:%d:%d: invalid JSON near byte 0x%02x",
				  name, line, col, (unsigned char)text[off]);
	return dehbq_errf(err, DEHBQ_EINVAL,
			  "%s:%d:%d: invalid JSON near '%c' (NaN, Infinity, "
			  "comments and trailing commas are not JSON)",
			  name, line, col, text[off]);
}

/* jsonfile_parse() of text, a malloc'd NUL-terminated buffer it takes. */
static int parse_owned(const char *name, char *text, size_t len,
		       struct jsonfile **out, char *err)
{
	struct jsonfile *jf;
	const char *end = NULL, *why = NULL;
	const cJSON *bad;
	size_t off;
	int rc = DEHBQ_ENOMEM, line, col;

	*out = NULL;
	jf = calloc(1, sizeof(*jf));
	if (!jf) {
		free(text);
		return dehbq_errf(err, DEHBQ_ENOMEM, "%s: out of memory", name);
	}
	jf->text = text;
	jf->len = len;
	if (!(jf->name = strdup(name))) {
		dehbq_errf(err, rc, "%s: out of memory", name);
		goto fail;
	}
	if (memchr(text, 0, len)) {
		rc = dehbq_errf(err, DEHBQ_EINVAL, "%s: NUL byte in JSON text",
				name);
		goto fail;
	}
	if ((off = utf8_check(text, len)) != len) {
		offset_to_linecol(text, off, &line, &col);
		rc = dehbq_errf(err, DEHBQ_EINVAL,
				"%s:%d:%d: not UTF-8 (byte 0x%02x); save the "
				"file as UTF-8",
				name, line, col, (unsigned char)text[off]);
		goto fail;
	}
	jf->root = cJSON_ParseWithLengthOpts(jf->text, len + 1, &end, 1);
	if (!jf->root) {
		rc = parse_error(name, jf->text, len, end, err);
		goto fail;
	}
	if ((off = find_nul_escape(jf->text, len)) != SIZE_MAX) {
		offset_to_linecol(jf->text, off, &line, &col);
		rc = dehbq_errf(err, DEHBQ_EINVAL,
				"%s:%d:%d: string contains \\u0000 (a NUL "
				"character); remove it",
				name, line, col);
		goto fail;
	}
	if ((bad = check_tree(jf->root, &why))) {
		rc = jsonfile_errf(jf, bad, err, "%s", why);
		goto fail;
	}
	*out = jf;
	return DEHBQ_OK;
fail:
	jsonfile_free(jf);
	return rc;
}

int jsonfile_parse(const char *name, const char *text, size_t len,
		   struct jsonfile **out, char *err)
{
	char *copy = malloc(len + 1);

	*out = NULL;
	if (!copy)
		return dehbq_errf(err, DEHBQ_ENOMEM, "%s: out of memory", name);
	memcpy(copy, text, len);
	copy[len] = 0;
	return parse_owned(name, copy, len, out, err);
}

int jsonfile_load(const char *path, size_t cap, struct jsonfile **out,
		  char *err)
{
	return jsonfile_load_with(path, cap, NULL, out, err);
}

int jsonfile_load_with(const char *path, size_t cap,
		       int (*op)(const char *path, int flags, mode_t mode),
		       struct jsonfile **out, char *err)
{
	char *text;
	size_t len;
	int rc, e;

	*out = NULL;
	rc = fsutil_read_file_with(path, cap, &text, &len, op);
	if (rc == DEHBQ_ETOOBIG)
		return dehbq_errf(err, rc, "%s: file larger than %zu bytes",
				  path, cap);
	if (rc == DEHBQ_EINVAL)
		return dehbq_errf(err, rc, "%s: not a regular file", path);
	if (rc == DEHBQ_ESYS && errno == ELOOP)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "%s: is a symbolic link (refused)", path);
	if (rc) {
		e = errno;
		dehbq_errf(err, rc, "%s: %s", path, strerror(e));
		errno = e;
		return rc;
	}
	return parse_owned(path, text, len, out, err);
}

void jsonfile_free(struct jsonfile *jf)
{
	if (!jf)
		return;
	cJSON_Delete(jf->root);
	free(jf->text);
	free(jf->name);
	free(jf);
}

const cJSON *jsonfile_root(const struct jsonfile *jf)
{
	return jf->root;
}

const char *jsonfile_name(const struct jsonfile *jf)
{
	return jf->name;
}

const char *jsonfile_type_name(const cJSON *item)
{
	if (cJSON_IsString(item))
		return "string";
	if (cJSON_IsNumber(item))
		return "number";
	if (cJSON_IsBool(item))
		return "boolean";
	if (cJSON_IsNull(item))
		return "null";
	if (cJSON_IsArray(item))
		return "array";
	if (cJSON_IsObject(item))
		return "object";
	return "invalid";
}

/* ---- typed access ---- */

int jsonfile_check_format(const struct jsonfile *jf, const char *want,
			  char *err)
{
	const cJSON *f;

	if (!cJSON_IsObject(jf->root))
		return jsonfile_errf(jf, jf->root, err,
				     "expected a JSON object, found %s",
				     jsonfile_type_name(jf->root));
	f = cJSON_GetObjectItemCaseSensitive(jf->root, "format");
	if (!f)
		return jsonfile_errf(jf, NULL, err,
				     "missing field 'format' (expected \"%s\")",
				     want);
	if (!cJSON_IsString(f) || strcmp(f->valuestring, want))
		return jsonfile_errf(jf, f, err,
				     "field 'format': expected \"%s\"", want);
	return DEHBQ_OK;
}

int jsonfile_check_keys(const struct jsonfile *jf, const cJSON *obj,
			const char *const *allowed, char *err)
{
	const cJSON *c;
	const char *const *a;

	for (c = obj->child; c; c = c->next) {
		for (a = allowed; *a; a++)
			if ((*a)[0] == c->string[0] && !strcmp(*a, c->string))
				break;
		if (!*a)
			return jsonfile_errf(jf, c, err,
					     "unknown field '%s' (typo?)",
					     c->string);
	}
	return DEHBQ_OK;
}

/*
 * cJSON_GetObjectItemCaseSensitive() with the first byte compared before
 * strcmp(): a result file's twenty lookups among twenty keys cost a
 * quarter as much.  Keys are unique (jsonfile_parse refuses duplicates).
 */
static const cJSON *member(const cJSON *obj, const char *key)
{
	const cJSON *c;

	if (!cJSON_IsObject(obj))
		return NULL;
	for (c = obj->child; c; c = c->next)
		if (c->string && c->string[0] == key[0] &&
		    !strcmp(c->string, key))
			return c;
	return NULL;
}

static int get_member(const struct jsonfile *jf, const cJSON *obj,
		      const char *key, enum jsonfile_need need,
		      const cJSON **item, char *err)
{
	*item = member(obj, key);
	if (*item)
		return DEHBQ_OK;
	if (need == JSONFILE_REQUIRED) {
		jsonfile_errf(jf, obj, err, "missing required field '%s'", key);
		return DEHBQ_ENOENT;
	}
	return DEHBQ_OK;
}

static int wrong_type(const struct jsonfile *jf, const cJSON *item,
		      const char *key, const char *want, char *err)
{
	return jsonfile_errf(jf, item, err, "field '%s': expected %s, found %s",
			     key, want, jsonfile_type_name(item));
}

int jsonfile_get_string(const struct jsonfile *jf, const cJSON *obj,
			const char *key, enum jsonfile_need need,
			const char **out, char *err)
{
	const cJSON *it;
	int rc = get_member(jf, obj, key, need, &it, err);

	if (rc || !it)
		return rc;
	if (!cJSON_IsString(it))
		return wrong_type(jf, it, key, "a string", err);
	*out = it->valuestring;
	return DEHBQ_OK;
}

int jsonfile_get_number(const struct jsonfile *jf, const cJSON *obj,
			const char *key, enum jsonfile_need need, double min,
			double max, double *out, char *err)
{
	const cJSON *it;
	int rc = get_member(jf, obj, key, need, &it, err);

	if (rc || !it)
		return rc;
	if (!cJSON_IsNumber(it))
		return wrong_type(jf, it, key, "a number", err);
	if (it->valuedouble < min || it->valuedouble > max)
		return jsonfile_errf(jf, it, err,
				     "field '%s': %.17g is out of range "
				     "[%.17g, %.17g]",
				     key, it->valuedouble, min, max);
	*out = it->valuedouble;
	return DEHBQ_OK;
}

int jsonfile_get_int(const struct jsonfile *jf, const cJSON *obj,
		     const char *key, enum jsonfile_need need, int64_t min,
		     int64_t max, int64_t *out, char *err)
{
	const cJSON *it;
	double v;
	int rc = get_member(jf, obj, key, need, &it, err);

	if (rc || !it)
		return rc;
	if (!cJSON_IsNumber(it))
		return wrong_type(jf, it, key, "an integer", err);
	v = it->valuedouble;
	if (v != floor(v) || fabs(v) > 9007199254740992.0)
		return jsonfile_errf(jf, it, err,
				     "field '%s': expected an integer, found "
				     "%.17g",
				     key, v);
	if (v < (double)min || v > (double)max)
		return jsonfile_errf(jf, it, err,
				     "field '%s': %.0f is out of range "
				     "[%lld, %lld]",
				     key, v, (long long)min, (long long)max);
	*out = (int64_t)v;
	return DEHBQ_OK;
}

int jsonfile_get_bool(const struct jsonfile *jf, const cJSON *obj,
		      const char *key, enum jsonfile_need need, int *out,
		      char *err)
{
	const cJSON *it;
	int rc = get_member(jf, obj, key, need, &it, err);

	if (rc || !it)
		return rc;
	if (!cJSON_IsBool(it))
		return wrong_type(jf, it, key, "true or false", err);
	*out = cJSON_IsTrue(it);
	return DEHBQ_OK;
}

/* A member of one container type: cJSON_IsObject or cJSON_IsArray. */
static int get_container(const struct jsonfile *jf, const cJSON *obj,
			 const char *key, enum jsonfile_need need,
			 cJSON_bool (*is)(const cJSON *), const char *want,
			 const cJSON **out, char *err)
{
	const cJSON *it;
	int rc = get_member(jf, obj, key, need, &it, err);

	if (rc || !it)
		return rc;
	if (!is(it))
		return wrong_type(jf, it, key, want, err);
	*out = it;
	return DEHBQ_OK;
}

int jsonfile_get_object(const struct jsonfile *jf, const cJSON *obj,
			const char *key, enum jsonfile_need need,
			const cJSON **out, char *err)
{
	return get_container(jf, obj, key, need, cJSON_IsObject, "an object",
			     out, err);
}

int jsonfile_get_array(const struct jsonfile *jf, const cJSON *obj,
		       const char *key, enum jsonfile_need need,
		       const cJSON **out, char *err)
{
	return get_container(jf, obj, key, need, cJSON_IsArray, "an array", out,
			     err);
}
