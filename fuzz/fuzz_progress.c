/*
 * fuzz_progress.c - libFuzzer target: arbitrary bytes as a trainer's
 * progress line, as a progress file and as the trainer's whole stdout
 *
 * A line that parses gives a finite loss at a fidelity above 0; a file
 * that parses renders and parses back identically; fed line by line, a
 * progress keeps at most PROGRESS_MAX_POINTS points, fidelities going up.
 */
#include "err.h"
#include "progress.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every line of the input through progress_line and progress_add. */
static void as_stdout(const char *p, size_t n)
{
	struct progress pr;
	struct progress_point pt;
	char err[DEHBQ_ERRLEN];
	size_t i;

	progress_init(&pr, "00000001", 1, "0123456789ab");
	while (n) {
		const char *nl = memchr(p, '\n', n);
		size_t k = nl ? (size_t)(nl - p) : n;

		if (!progress_line(p, k, &pt, err)) {
			if (!(pt.fidelity > 0) || !isfinite(pt.loss))
				abort();
			progress_add(&pr, &pt);
		}
		p += k + (nl != NULL);
		n -= k + (nl != NULL);
	}
	if (pr.n > PROGRESS_MAX_POINTS)
		abort();
	for (i = 1; i < pr.n; i++)
		if (!(pr.pt[i].fidelity > pr.pt[i - 1].fidelity))
			abort();
	progress_release(&pr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[DEHBQ_ERRLEN], *text;
	struct progress a, b;
	size_t i;

	as_stdout((const char *)data, size);
	if (progress_parse("fuzz.json", (const char *)data, size, &a, err))
		return 0;
	if (progress_render(&a, &text))
		abort();
	if (progress_parse("render.json", text, strlen(text), &b, err))
		abort();
	if (a.n != b.n || a.thinned != b.thinned || a.attempt != b.attempt ||
	    strcmp(a.id, b.id) || strcmp(a.worker, b.worker))
		abort();
	for (i = 0; i < a.n; i++)
		if (a.pt[i].fidelity != b.pt[i].fidelity ||
		    a.pt[i].loss != b.pt[i].loss ||
		    a.pt[i].cost != b.pt[i].cost)
			abort();
	free(text);
	progress_release(&a);
	progress_release(&b);
	return 0;
}
