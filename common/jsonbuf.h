/*
 * jsonbuf.h - JSON text appended piece by piece, for the hot files
 *
 * The orchestrator writes a trial file per trial and its snapshot at
 * every batch, and most of the snapshot is text it already has: each
 * in-flight job, each population's vectors.  Building cJSON trees of those
 * and printing them was most of its CPU time, so these two are appended
 * here as text instead, in cJSON's own layouts (tests compare the bytes).
 * Every file is still parsed and checked by cJSON (jsonfile.h), and the
 * other files are printed by cJSON.
 *
 * The caller writes the punctuation and layout; the helpers write values:
 *   struct jsonbuf b;
 *   jsonbuf_init(&b);
 *   jsonbuf_puts(&b, "{\"n\":");
 *   jsonbuf_num(&b, 1.5);
 *   jsonbuf_puts(&b, ",\"s\":");
 *   jsonbuf_str(&b, name);
 *   jsonbuf_puts(&b, "}");
 *   if (jsonbuf_failed(&b)) ...;
 *   text = jsonbuf_take(&b);
 *
 * Strings: jsonbuf_str() copies printable ASCII other than '"' and '\\'
 * as is; any other string is escaped by cJSON's own printer.
 * Numbers: jsonbuf_num() writes jsonfile_fmt_exact()'s text (the exact
 * %.17g or a plain integer), and null for infinities and NaN.
 *
 * Error handling: an allocation failure makes the buffer failed (sticky);
 * later appends do nothing, and jsonbuf_failed() returns DEHBQ_ENOMEM.
 * Ownership: the buffer owns its text until jsonbuf_take() hands it to the
 * caller (free()); jsonbuf_free() frees it otherwise.  Arguments are
 * borrowed.
 */
#ifndef DEHBQ_JSONBUF_H
#define DEHBQ_JSONBUF_H

#include <stddef.h>
#include <stdint.h>

struct jsonbuf {
	char *p;    /* text, NUL-terminated when len > 0; owned */
	size_t len; /* bytes used */
	size_t cap; /* bytes allocated */
	int failed; /* an allocation failed: the text is incomplete */
};

void jsonbuf_init(struct jsonbuf *b);
void jsonbuf_free(struct jsonbuf *b);
void jsonbuf_put(struct jsonbuf *b, const char *s, size_t n);
void jsonbuf_puts(struct jsonbuf *b, const char *s);
void jsonbuf_printf(struct jsonbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void jsonbuf_num(struct jsonbuf *b, double d);
/* An integer in decimal: what jsonbuf_num writes for it, without printf. */
void jsonbuf_int(struct jsonbuf *b, int64_t v);
/* s as a JSON string, quotes included. */
void jsonbuf_str(struct jsonbuf *b, const char *s);
/*
 * Room for n more bytes, so the appends that fit cannot fail: DEHBQ_ENOMEM
 * leaves b as it was (not failed).
 */
int jsonbuf_reserve(struct jsonbuf *b, size_t n);
/* DEHBQ_OK, or DEHBQ_ENOMEM when an append failed. */
int jsonbuf_failed(const struct jsonbuf *b);
/* The text (caller frees; "" for an empty buffer), or NULL when failed
 * or out of memory; the buffer is empty after. */
char *jsonbuf_take(struct jsonbuf *b);

#endif
