/*
 * jsonbuf.c - compact JSON text appended piece by piece (see jsonbuf.h)
 *
 * Owns nothing but the buffer's text.  Escaping of unusual strings is
 * cJSON's: a string item printed unformatted.
 */
#include "jsonbuf.h"

#include "err.h"
#include "jsonfile.h"
#include "utf8.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void jsonbuf_init(struct jsonbuf *b)
{
	memset(b, 0, sizeof(*b));
}

void jsonbuf_free(struct jsonbuf *b)
{
	free(b->p);
	jsonbuf_init(b);
}

/* Room for n more bytes and a NUL; 0 when the buffer is failed. */
static int grow(struct jsonbuf *b, size_t n)
{
	size_t cap;
	char *p;

	if (b->failed)
		return 0;
	if (b->len + n < b->cap)
		return 1;
	if (n > ((size_t)-1) / 4 - b->len) {
		b->failed = 1;
		return 0;
	}
	cap = b->cap ? b->cap : 256;
	while (cap <= b->len + n)
		cap *= 2;
	if (!(p = realloc(b->p, cap))) {
		b->failed = 1;
		return 0;
	}
	b->p = p;
	b->cap = cap;
	return 1;
}

int jsonbuf_reserve(struct jsonbuf *b, size_t n)
{
	if (b->failed)
		return DEHBQ_ENOMEM;
	if (!grow(b, n + 1)) {
		b->failed = 0; /* nothing was appended: b is as it was */
		return DEHBQ_ENOMEM;
	}
	return DEHBQ_OK;
}

void jsonbuf_put(struct jsonbuf *b, const char *s, size_t n)
{
	if (!grow(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

void jsonbuf_puts(struct jsonbuf *b, const char *s)
{
	jsonbuf_put(b, s, strlen(s));
}

void jsonbuf_printf(struct jsonbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!grow(b, 64))
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = 1;
		return;
	}
	if ((size_t)n >= b->cap - b->len) {
		if (!grow(b, (size_t)n))
			return;
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

void jsonbuf_num(struct jsonbuf *b, double d)
{
	char t[40];

	if (!isfinite(d)) {
		jsonbuf_put(b, "null", 4);
		return;
	}
	jsonfile_fmt_exact(t, sizeof(t), d);
	jsonbuf_puts(b, t);
}

void jsonbuf_int(struct jsonbuf *b, int64_t v)
{
	jsonbuf_printf(b, "%" PRId64, v);
}

void jsonbuf_str(struct jsonbuf *b, const char *s)
{
	const unsigned char *q;
	char *t, *fixed;
	cJSON *it;
	size_t n;

	for (q = (const unsigned char *)s; *q; q++)
		if (*q < 0x20 || *q >= 0x7f || *q == '"' || *q == '\\')
			break;
	if (!*q) {
		n = (size_t)(q - (const unsigned char *)s);
		if (grow(b, n + 2)) {
			b->p[b->len++] = '"';
			memcpy(b->p + b->len, s, n);
			b->len += n;
			b->p[b->len++] = '"';
			b->p[b->len] = 0;
		}
		return;
	}
	n = strlen(s);
	fixed = utf8_check(s, n) == n ? NULL : utf8_repair(s, n, NULL);
	it = cJSON_CreateString(fixed ? fixed : s);
	free(fixed);
	t = it ? cJSON_PrintUnformatted(it) : NULL;
	cJSON_Delete(it);
	if (!t) {
		b->failed = 1;
		return;
	}
	jsonbuf_puts(b, t);
	cJSON_free(t);
}

int jsonbuf_failed(const struct jsonbuf *b)
{
	return b->failed ? DEHBQ_ENOMEM : DEHBQ_OK;
}

char *jsonbuf_take(struct jsonbuf *b)
{
	char *t = b->p;

	if (b->failed) {
		jsonbuf_free(b);
		return NULL;
	}
	if (!t)
		t = strdup("");
	jsonbuf_init(b);
	return t;
}
