/*
 * utf8.c - owns the definition of valid UTF-8 and its repair (utf8.h)
 */
#include "utf8.h"

#include <stdlib.h>
#include <string.h>

/*
 * Length of the valid sequence at s (at most n bytes), or 0 when it is
 * invalid; then *bad is the length of its maximal subpart (>= 1).
 */
static size_t seq_len(const unsigned char *s, size_t n, size_t *bad)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t need, i;

	*bad = 1;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		need = 2;
	else if (c >= 0xe0 && c <= 0xef)
		need = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		need = 4;
	else
		return 0;
	if (c == 0xe0) /* overlong */
		lo = 0xa0;
	else if (c == 0xed) /* surrogates */
		hi = 0x9f;
	else if (c == 0xf0) /* overlong */
		lo = 0x90;
	else if (c == 0xf4) /* above U+10FFFF */
		hi = 0x8f;
	for (i = 1; i < need; i++) {
		if (i >= n || s[i] < lo || s[i] > hi) {
			*bad = i;
			return 0;
		}
		lo = 0x80;
		hi = 0xbf;
	}
	return need;
}

size_t utf8_check(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, k, bad;

	while (i < n) {
		if (u[i] < 0x80) {
			i++;
			continue;
		}
		if (!(k = seq_len(u + i, n - i, &bad)))
			return i;
		i += k;
	}
	return n;
}

char *utf8_repair(const char *s, size_t n, size_t *outlen)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, o = 0, k, bad;
	char *out;

	/* each invalid byte grows to at most 3 */
	if (n > ((size_t)-1 - 1) / 3 || !(out = malloc(3 * n + 1)))
		return NULL;
	while (i < n) {
		if ((k = seq_len(u + i, n - i, &bad))) {
			memcpy(out + o, s + i, k);
			o += k;
			i += k;
			continue;
		}
		memcpy(out + o, "\xef\xbf\xbd", 3);
		o += 3;
		i += bad;
	}
	out[o] = 0;
	if (outlen)
		*outlen = o;
	return out;
}
