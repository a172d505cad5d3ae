/*
 * rng.c - xoshiro256** with splitmix64 seeding and an exact text form
 *
 * Invariant: the state is never all zero (xoshiro would then emit zeros
 * forever); rng_seed() cannot produce it and rng_parse() refuses it.
 */
#include "rng.h"

#include "err.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void rng_seed(struct rng *r, uint64_t seed)
{
	uint64_t x = seed;
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
	if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3]))
		r->s[0] = 1; /* unreachable in practice; keeps the invariant */
}

uint64_t rng_u64(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

double rng_uniform(struct rng *r)
{
	return (double)(rng_u64(r) >> 11) * 0x1.0p-53;
}

uint64_t rng_below(struct rng *r, uint64_t n)
{
	/* Lemire's nearly-divisionless method with rejection. */
	unsigned __int128 m = (unsigned __int128)rng_u64(r) * n;
	uint64_t lo = (uint64_t)m;

	if (lo < n) {
		uint64_t thresh = -n % n;

		while (lo < thresh) {
			m = (unsigned __int128)rng_u64(r) * n;
			lo = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

double rng_normal(struct rng *r)
{
	double u1 = 1.0 - rng_uniform(r); /* (0, 1]: log() stays finite */
	double u2 = rng_uniform(r);

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

uint64_t rng_split(struct rng *r)
{
	return rng_u64(r) ^ UINT64_C(0x6a09e667f3bcc909);
}

void rng_format(const struct rng *r, char buf[RNG_STRLEN])
{
	snprintf(buf, RNG_STRLEN,
		 "x256:%016" PRIx64 ":%016" PRIx64 ":%016" PRIx64
		 ":%016" PRIx64,
		 r->s[0], r->s[1], r->s[2], r->s[3]);
}

static int parse_hex16(const char *p, uint64_t *out)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 16; i++) {
		char c = p[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else
			return -1;
		v = (v << 4) | d;
	}
	*out = v;
	return 0;
}

int rng_parse(struct rng *r, const char *text)
{
	uint64_t s[4];
	const char *p = text;
	int i;

	if (!text || strlen(text) != RNG_STRLEN - 1 || strncmp(p, "x256", 4))
		return DEHBQ_EINVAL;
	p += 4;
	for (i = 0; i < 4; i++) {
		if (*p++ != ':' || parse_hex16(p, &s[i]))
			return DEHBQ_EINVAL;
		p += 16;
	}
	if (!(s[0] | s[1] | s[2] | s[3]))
		return DEHBQ_EINVAL;
	memcpy(r->s, s, sizeof(s));
	return DEHBQ_OK;
}
