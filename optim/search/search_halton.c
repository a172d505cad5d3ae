/*
 * search_halton.c - owns the halton searcher: a scrambled Halton sequence,
 * a space-filling design that covers the unit cube more evenly than
 * uniform samples (Halton 1960; the scrambling is Matousek's random linear
 * digit scrambling, 1998).
 *
 * Point n (n = 0, 1, 2, ...) has, in dimension j of base b = the j-th
 * prime, the digits d_k of n in base b mapped to a_j d_k mod b, then the
 * whole shifted by u_j modulo 1 (a Cranley-Patterson rotation):
 *   x_j = frac(u_j + sum_k (a_j d_k mod b) b^-(k+1)),
 * with a_j in 1..b-1 and u_j in [0, 1) drawn once from the study's seed.
 * The multipliers break the correlation of the plain sequence between the
 * dimensions of nearby large primes; they map 0 to 0, so a point's
 * trailing zero digits stay zero (a shift of the digits as well, c_j in
 * Matousek's (a_j d + c_j) mod b, would pile point 0 onto a corner of the
 * cube).  The shift makes the design random.  x_j < 1 always.
 *
 * Learns nothing: the state is the next index.  No leap and no skipped
 * prefix: after the shift, point 0 is as good as any.
 */
#include "searcher.h"

#include "err.h"
#include "jsonbuf.h"
#include "ostate.h"
#include "rng.h"

#include <inttypes.h>
#include <stdlib.h>

#define HALTON_SALT 0x68616c746f6eULL /* "halton": a stream of its own */

struct halton {
	int dim;
	int64_t next;	 /* index of the next point */
	uint32_t *b, *a; /* per dimension: base, multiplier */
	double *u;	 /* per dimension: shift */
};

static void hal_free(void *st)
{
	struct halton *h = st;

	if (!h)
		return;
	free(h->b);
	free(h->a);
	free(h->u);
	free(h);
}

/* The first n primes into p. */
static void primes(uint32_t *p, int n)
{
	uint32_t c = 2, d;
	int k = 0;

	while (k < n) {
		for (d = 0; d < (uint32_t)k && p[d] * p[d] <= c && c % p[d];
		     d++)
			;
		if (d == (uint32_t)k || p[d] * p[d] > c)
			p[k++] = c;
		c++;
	}
}

static int hal_open(const struct search_setup *s, void **st, char *err)
{
	struct halton *h = calloc(1, sizeof(*h));
	struct rng r;
	size_t n = (size_t)s->dim;
	int j;

	(void)err;
	if (!h || !(h->b = malloc(n * sizeof(*h->b))) ||
	    !(h->a = malloc(n * sizeof(*h->a))) ||
	    !(h->u = malloc(n * sizeof(*h->u)))) {
		hal_free(h);
		return DEHBQ_ENOMEM;
	}
	h->dim = s->dim;
	primes(h->b, s->dim);
	rng_seed(&r, s->seed ^ HALTON_SALT);
	for (j = 0; j < s->dim; j++) {
		h->a[j] = 1 + (uint32_t)rng_below(&r, h->b[j] - 1);
		h->u[j] = rng_uniform(&r);
	}
	*st = h;
	return DEHBQ_OK;
}

static double coord(const struct halton *h, int j, uint64_t n)
{
	const uint64_t b = h->b[j];
	double f = 1.0 / (double)b, x = 0;

	while (n) {
		x += (double)(h->a[j] * (n % b) % b) * f;
		n /= b;
		f /= (double)b;
	}
	x += h->u[j];
	x -= x >= 1;
	return x < 1 ? x : 0x1.fffffffffffffp-1;
}

static int hal_propose(void *st, double fidelity, double *vec,
		       enum trial_kind *kind)
{
	struct halton *h = st;
	int j;

	(void)fidelity;
	if (h->next == INT64_MAX)
		return DEHBQ_ETOOBIG;
	for (j = 0; j < h->dim; j++)
		vec[j] = coord(h, j, (uint64_t)h->next);
	h->next++;
	*kind = TRIAL_KIND_RANDOM;
	return DEHBQ_OK;
}

static int hal_save(const void *st, struct jsonbuf *b)
{
	jsonbuf_printf(b, "{\"next\":%" PRId64 "}",
		       ((const struct halton *)st)->next);
	return jsonbuf_failed(b);
}

static int hal_load(const struct search_setup *s, const struct cJSON *state,
		    void **st, char *err)
{
	struct halton *h;
	int64_t next;
	int rc;

	if ((rc = ostate_get_i64(state, "next", 0, INT64_MAX, &next, err)) ||
	    (rc = hal_open(s, (void **)&h, err)))
		return rc;
	h->next = next;
	*st = h;
	return DEHBQ_OK;
}

static int hal_describe(const void *st, struct jsonbuf *b)
{
	jsonbuf_printf(b, "\"next\":%" PRId64,
		       ((const struct halton *)st)->next);
	return jsonbuf_failed(b);
}

const struct search_ops search_halton_ops = {
	.name = "halton",
	.summary = "scrambled Halton sequence: a space-filling design",
	.open = hal_open,
	.propose = hal_propose,
	.save = hal_save,
	.load = hal_load,
	.describe = hal_describe,
	.free = hal_free,
};
