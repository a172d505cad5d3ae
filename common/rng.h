/*
 * rng.h - seeded pseudo-random generator with exactly serialisable state
 *
 * xoshiro256** (Blackman and Vigna), seeded through splitmix64.  The whole
 * state is four 64-bit words, so it round-trips exactly through
 * rng_format()/rng_parse() and a resumed study continues the very same
 * stream.  Never use rand(): its state cannot be saved.
 *
 * Calling sequence:
 *   struct rng r;  rng_seed(&r, seed);  x = rng_uniform(&r); ...
 *
 * struct rng is a value type kept in the caller's storage; its members are
 * private.  No function allocates.  Identical seeds and identical call
 * sequences give identical streams on every platform (integer arithmetic
 * only; doubles are built from the top 53 bits).
 */
#ifndef DEHBQ_RNG_H
#define DEHBQ_RNG_H

#include <stddef.h>
#include <stdint.h>

struct rng {
	uint64_t s[4]; /* members private: xoshiro256** state, never all 0 */
};

/* Length of the text form with its NUL: "x256" + 4 * (":" + 16 hex) + 1. */
#define RNG_STRLEN 73

/* Seed deterministically from one 64-bit value. */
void rng_seed(struct rng *r, uint64_t seed);

/* Next raw 64-bit output. */
uint64_t rng_u64(struct rng *r);

/* Uniform double in [0, 1), 53 random bits. */
double rng_uniform(struct rng *r);

/* Uniform integer in [0, n), without modulo bias; n must be > 0. */
uint64_t rng_below(struct rng *r, uint64_t n);

/* Standard normal deviate (Box-Muller, one uniform pair per call). */
double rng_normal(struct rng *r);

/* Derive an independent child seed (used for per-subpopulation streams). */
uint64_t rng_split(struct rng *r);

/* Write the state as "x256:hhhh...:hhhh...:hhhh...:hhhh..." into buf. */
void rng_format(const struct rng *r, char buf[RNG_STRLEN]);

/*
 * Parse rng_format() output.  Returns DEHBQ_OK, or DEHBQ_EINVAL when the
 * text is not exactly in that form or is the all-zero state; *r is left
 * unchanged on failure.
 */
int rng_parse(struct rng *r, const char *text);

#endif
