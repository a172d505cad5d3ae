/*
 * utf8.h - checking and repairing UTF-8 text
 *
 * Every file dehbq writes is UTF-8 (docs/protocol.md section 4): strings
 * that come from outside (a trainer's stderr, a host name, an error) are
 * repaired on the way out, each invalid sequence becoming U+FFFD, and a
 * trainer's report that is not UTF-8 is refused.  Valid means RFC 3629:
 * no overlong forms, no surrogates, nothing above U+10FFFF.
 *
 * Ownership: utf8_repair() returns malloc'ed text the caller frees.
 */
#ifndef DEHBQ_UTF8_H
#define DEHBQ_UTF8_H

#include <stddef.h>

/* Offset of the first byte of the first invalid sequence; n if valid. */
size_t utf8_check(const char *s, size_t n);

/*
 * A copy of s[0..n) with each invalid sequence (a maximal subpart, as
 * Unicode's "U+FFFD substitution of maximal subparts" counts them)
 * replaced by U+FFFD, NUL-terminated, its length in *outlen when not
 * NULL.  NULL: out of memory.
 */
char *utf8_repair(const char *s, size_t n, size_t *outlen);

#endif
