/*
 * optvar.h - the optimiser variants every contract suite runs over, and a
 * driver that asks and tells as a scheduler would
 *
 * A variant is an entry of optim_table[] (its models kept small) or a
 * composition (settings that change how an optimiser schedules, a
 * multi-objective scalarisation, or no earlier tasks).  Variant i is
 * 0 .. ov_count() - 1; ov_name(i) selects it for ov_setup()/ov_open()
 * until ov_done() (the checked fixture's teardown).
 *
 * The driver keeps up to w jobs in flight and tells them in an order its
 * own rng picks, one in ten as failed; every ask is logged (id, fidelity,
 * bracket, rung, kind, parent, state, vector bits) to log.
 *
 * Test code only: failures abort the test (ck_assert).  Ownership: the
 * driver borrows its optimiser and owns its log (jsonbuf_free it);
 * ov_save_text() returns malloc'ed text.
 */
#ifndef DEHBQ_OPTVAR_H
#define DEHBQ_OPTVAR_H

#include "jsonbuf.h"
#include "optim.h"
#include "rng.h"

#include <stdint.h>

#define DIM  3
#define MAXW 16

struct cJSON;

extern const int ov_choices[DIM];
extern int ov_mode;	  /* the variant's scalarisation, -1: one objective */
extern int ov_notransfer; /* 1: no earlier tasks in its setup */

int ov_count(void);	   /* variants: the table's, then compositions */
int ov_table_len(void);	   /* entries of optim_table */
int ov_composed_len(void); /* compositions */
int ov_pairs_len(void);	   /* scheduler x searcher pairs, after them */
/*
 * The pairs the heaviest suites (reload, crash) run: every pair, but a
 * stopping scheduler other than the first (OPTIM_CAP_STOPS), and pbt
 * (OPTIM_CAP_SEGMENTS), only with the searchers random and tpe: each
 * scheduler is swept, and each searcher under one stopping scheduler (the
 * contract suites run them all).  ov_sampled_len() of them; the k-th is pair
 * ov_sampled(k).
 */
int ov_sampled_len(void);
int ov_sampled(int k);
/* Pair k's scheduler, and its searcher into *searcher. */
const char *ov_pair(int k, const char **searcher);
const char *ov_name(int i);
/* Variant i's name, settings and objectives as one line (malloc'ed):
 * what identifies it across versions of this file. */
char *ov_label(int i);
/* FNV-1a of n bytes: a short fingerprint of a driver's log. */
uint64_t ov_hash(const char *p, size_t n);
void ov_done(void);
void ov_setup(struct optim_setup *u, uint64_t seed, int64_t fevals);
struct optim *ov_open(int i, uint64_t seed, int64_t fevals);

int ov_tell_x(struct optim *o, uint64_t id, enum optim_status st, double loss,
	      const double *x, double cost);
int ov_tell(struct optim *o, uint64_t id, enum optim_status st, double loss,
	    double cost);
double ov_loss(const double *x, double fid);

struct drv {
	struct optim *o;
	struct rng r;
	struct optim_job jb[MAXW]; /* in flight, as asked */
	double x[MAXW][DIM];
	double rep[MAXW];  /* last intermediate fidelity reported (drv_op) */
	int stopped[MAXW]; /* the optimiser stopped it */
	int64_t reports, stops; /* reports made, stops decided */
	int n, w;
	int blocked; /* the last ask said wait (drv_op) */
	struct jsonbuf log;
	int64_t fails;		 /* failures told */
	int64_t requeues;	 /* failed jobs put back (drv_op) */
	struct optim_job failed; /* the last failure told, for a requeue */
	double fx[DIM];
	int has_failed;
};

void drv_init(struct drv *d, struct optim *o, int w, uint64_t seed);
/* Fill up to w in flight, then tell one.  0 when finished. */
int drv_step(struct drv *d);
/* One call: now and then a requeue of the last failed job; for an
 * optimiser that stops trials (optim_stops), one time in two an
 * intermediate result of a job in flight; else an ask while fewer than w
 * are in flight and the optimiser has a job; else one tell (a stopped
 * job's as OPTIM_STOPPED).  0 when finished. */
int drv_op(struct drv *d);

/* Append the optimiser's new history records to h, as the scheduler. */
void ov_take_history(struct optim *o, struct jsonbuf *h);
char *ov_save_text(const struct optim *o);

#endif
