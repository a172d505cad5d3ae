/*
 * report.h - the data behind `dehbq report` (report.c collects it,
 * report_charts.c draws it)
 *
 * One struct rep_eval per evaluation (every archived result, earlier
 * attempts of requeued trials too), in finish order.  Ownership: struct
 * rep owns every array and string below; rep_free() releases them.
 */
#ifndef DEHBQ_REPORT_H
#define DEHBQ_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h" /* struct cli_imp */

#define REP_MAXFID 64 /* distinct fidelities kept apart; more share black */

struct spec;

struct rep_eval {
	uint64_t id;
	int attempt, rung, ok; /* ok: status ok (loss valid) */
	int stopped;	       /* stopped early (not a failure) */
	double reached;	       /* fidelity reached: fid when ok, the last
				  reported one when stopped, NAN else */
	int kind;	       /* enum trial_kind: how it was proposed */
	int64_t bracket;
	int64_t parent;		/* the trial it continued, -1: none */
	double fid, loss, cost; /* loss: NAN unless ok */
	double t0, t1;		/* started, finished: seconds since creation */
	int worker;		/* index into rep.workers */
	const char *status;	/* static name */
	char *error;		/* a failure's error, owned; NULL when ok */
};

struct rep {
	const struct spec *spec; /* borrowed */
	int dim;
	struct rep_eval *ev; /* n evaluations, by finish time */
	double *vec;	     /* n * dim unit-cube vectors, row per eval */
	size_t n, cap;
	char **workers; /* "host/worker id", owned */
	int nworkers, capw;
	double fids[REP_MAXFID]; /* distinct fidelities, ascending */
	int nfid;
	char *best_cfg[2];  /* config JSON of the best at max / any, owned */
	long best_i[2];	    /* their index in ev, -1: none */
	struct cli_imp imp; /* the ok results, as dehbq importance reads
			       them (its own order) */
	int oom;
};

void rep_free(struct rep *r);
/* Colour of a fidelity: the palette by rank, black beyond it. */
const char *rep_fid_color(const struct rep *r, double fid);

/* The charts, each an inline <svg> (report_charts.c). */
void rep_chart_progress(FILE *f, const struct rep *r);
void rep_chart_evals(FILE *f, const struct rep *r);
void rep_chart_params(FILE *f, const struct rep *r);
void rep_chart_parallel(FILE *f, const struct rep *r);
/* Returns -1 when out of memory. */
int rep_chart_workers(FILE *f, const struct rep *r);
/* The sections of some studies only (report_study.c): a multi-objective
 * study's "objectives", a transfer study's "transfer"; nothing for the
 * others.  -1 when out of memory. */
int rep_section_objectives(FILE *f, const struct rep *r, const char *root);
int rep_section_transfer(FILE *f, const struct rep *r, const char *root);
/* Live trials (report_curves.c): the learning curves of the trials
 * that reported as they trained, stopped ones marked, and the training
 * stopping saved; nothing when none reported.  -1 when out of memory. */
int rep_section_curves(FILE *f, const struct rep *r, const char *root);
/* A scheduler of segments (pbt; report_pbt.c): the population over
 * training, exploits marked, and the best member's schedule; nothing for
 * other studies.  -1 when out of memory. */
int rep_section_population(FILE *f, const struct rep *r);
/* A bar chart of the fANOVA importances per fidelity with enough
 * results, as dehbq importance --fidelity all; -1 when out of memory. */
int rep_chart_importance(FILE *f, const struct rep *r);

#endif
