/*
 * hb.h - Hyperband arithmetic and the successive-halving bracket manager
 *
 * Pure arithmetic on (min, max, eta) plus a small value type that tracks
 * one SH bracket's rungs.  Levels are keyed by INDEX (0 = lowest
 * fidelity), never by comparing doubles.
 *
 * Calling sequence:
 *   hb_levels(min, max, eta, &L);          L = s_max + 1
 *   hb_fidelities(max, eta, L, fid);       fid[0..L-1], ascending
 *   hb_rung_sizes(L, eta, s, n);           n[0..s], s = bracket's s
 *   hb_pop_sizes(L, eta, pop);             DEHB subpopulation sizes
 *   hb_bracket_init(&b, id, s, L, eta);
 *   r = hb_bracket_next_rung(&b);  (-1: blocked or nothing pending)
 *   hb_bracket_register(&b, r);  ...  hb_bracket_complete(&b, r);
 *
 * Error handling: functions return DEHBQ_OK, DEHBQ_EINVAL for arguments
 * out of range, or DEHBQ_ETOOBIG when a count exceeds the limits below.
 * On failure the outputs are unspecified but nothing else is touched.
 *
 * Ownership: no allocation; struct hb_bracket is a plain value.
 */
#ifndef DEHBQ_HB_H
#define DEHBQ_HB_H

#include <stdint.h>

#define HB_MAX_LEVELS 64      /* most fidelity levels supported */
#define HB_MAX_RUNG   1000000 /* most jobs in one rung */

/*
 * Number of levels L = s_max + 1, with the robust convention: s_max is the
 * largest s such that max * eta^-s >= min * (1 - 1e-9).  Requires
 * 0 < min <= max and eta > 1 (all finite); min = max (a study of one
 * fidelity) is one level.
 */
int hb_levels(double min_f, double max_f, double eta, int *nlevels);

/* fid[k] = max * pow(eta, -(double)(L-1-k)) for k in 0..L-1. */
void hb_fidelities(double max_f, double eta, int nlevels, double *fid);

/*
 * Rung sizes of a bracket with parameter s (0 <= s < L), BOHB style:
 * n0 = (long)(floor((double)L / (s+1)) * eta^s),
 * n[j] = max((long)(n0 * pow(eta, -j)), 1) for j = 0..s.
 */
int hb_rung_sizes(int nlevels, double eta, int s, int *n);

/* s of bracket id under the Hyperband cycle: s_max - (id mod L). */
int hb_bracket_s(int nlevels, int64_t bracket_id);

/*
 * Subpopulation size per level: the largest rung size of any bracket
 * whose rung runs at that level (spec 2.3).
 */
int hb_pop_sizes(int nlevels, double eta, int *pop);

/*
 * One SH bracket.  Invariants per rung r: 0 <= pending[r] <= n[r],
 * 0 <= done[r] <= n[r] - pending[r].  A rung is released (may hand out
 * jobs) only when every lower rung has all of its results in.
 */
struct hb_bracket {
	int64_t id;		    /* bracket id */
	int s;			    /* rungs - 1 */
	int nrungs;		    /* s + 1 */
	int base;		    /* level of rung 0: L - 1 - s */
	int n[HB_MAX_LEVELS];	    /* jobs per rung */
	int pending[HB_MAX_LEVELS]; /* not yet handed out, per rung */
	int done[HB_MAX_LEVELS];    /* results received, per rung */
};

int hb_bracket_init(struct hb_bracket *b, int64_t id, int s, int nlevels,
		    double eta);
/* The rung the next job comes from, or -1 if none can be handed out now. */
int hb_bracket_next_rung(const struct hb_bracket *b);
/* A job of rung r was handed out / its result came back. */
int hb_bracket_register(struct hb_bracket *b, int r);
int hb_bracket_complete(struct hb_bracket *b, int r);
/* 1 if some job is not yet handed out. */
int hb_bracket_is_pending(const struct hb_bracket *b);
/* 1 when every job was handed out and every result is in. */
int hb_bracket_done(const struct hb_bracket *b);
/* Jobs of the whole bracket. */
long hb_bracket_jobs(const struct hb_bracket *b);

#endif
