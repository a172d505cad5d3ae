/*
 * jscratch.c - a scratch block for cJSON's allocations (see jscratch.h)
 *
 * Owns the block and cJSON's allocation hooks, installed at the first
 * jscratch_begin() and kept: outside scopes they are malloc and free.
 */
#include "jscratch.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
#define JSCRATCH_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define JSCRATCH_ASAN 1
#endif
#endif
#ifdef JSCRATCH_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n)   ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n)   ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define JSCRATCH_MIN   (64u << 10)  /* first block */
#define JSCRATCH_MAX   (64u << 20)  /* never grow past this; malloc beyond */
#define JSCRATCH_ALIGN ((size_t)16) /* malloc's alignment on x86-64 */

static struct {
	char *base;  /* the block, or NULL */
	size_t cap;  /* its size */
	size_t used; /* bytes handed out in the current scope */
	size_t need; /* bytes the current scope asked for in all */
	int depth;   /* open scopes */
	int hooked;  /* cJSON's hooks point here */
} js;

static void *js_malloc(size_t n)
{
	size_t a = (n + JSCRATCH_ALIGN - 1) & ~(JSCRATCH_ALIGN - 1);
	void *p;

	if (!js.depth || a < n)
		return malloc(n);
	js.need += a;
	if (!js.base || js.cap - js.used < a)
		return malloc(n);
	p = js.base + js.used;
	js.used += a;
	UNPOISON(p, n);
	return p;
}

static void js_free(void *p)
{
	uintptr_t u = (uintptr_t)p, b = (uintptr_t)js.base;

	if (p && js.base && u >= b && u < b + js.cap)
		return; /* released with the scope */
	free(p);
}

/* A block of at least need bytes (doubling, up to JSCRATCH_MAX). */
static void js_grow(size_t need)
{
	size_t cap = js.cap ? js.cap : JSCRATCH_MIN;
	char *b;

	while (cap < need && cap < JSCRATCH_MAX)
		cap *= 2;
	if (cap == js.cap && js.base)
		return;
	b = malloc(cap);
	if (!b) /* keep the old block; the scopes fall back to malloc */
		return;
	if (js.base) {
		UNPOISON(js.base, js.cap);
		free(js.base);
	}
	js.base = b;
	js.cap = cap;
	POISON(js.base, js.cap);
}

void jscratch_begin(void)
{
	if (!js.hooked) {
		cJSON_Hooks h = {js_malloc, js_free};

		cJSON_InitHooks(&h);
		js.hooked = 1;
	}
	if (js.depth++)
		return;
	if (!js.base)
		js_grow(JSCRATCH_MIN);
	js.used = 0;
	js.need = 0;
}

void jscratch_end(void)
{
	if (js.depth <= 0 || --js.depth)
		return;
	if (js.base)
		POISON(js.base, js.cap);
	if (!js.base || js.need > js.cap)
		js_grow(js.need);
	js.used = 0;
}

void jscratch_release(void)
{
	if (js.depth || !js.base)
		return;
	UNPOISON(js.base, js.cap);
	free(js.base);
	js.base = NULL;
	js.cap = 0;
}
