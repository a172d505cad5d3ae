/*
 * importance.c - `dehbq importance STUDY`: which hyperparameters mattered
 *
 * Owns the command: it reads the archive's ok results at one fidelity
 * (or each), and prints each parameter's fANOVA importance, the fraction
 * of the loss's variance it explains on its own in a random forest fitted
 * to the unit-cube vectors (optim/models/forest.h: 64 trees of depth at
 * most 64, as Optuna's FanovaImportanceEvaluator), with its standard
 * deviation over the trees.  The forest's seed is the study's, so a study
 * gives the same numbers on every call.
 *
 * Only ok results count (failed, timed-out and running trials do not).
 * Conditional parameters are imputed: an inactive parameter keeps the
 * vector entry the optimiser drew for it, which the trainer never saw, so
 * it explains no variance but by chance.  A multi-objective study is read
 * one objective at a time (--objective, default the first declared).
 */
#include "cli.h"

#include "err.h"
#include "forest.h"
#include "objectives.h"
#include "result.h"
#include "space.h"
#include "spec.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IMP_MIN_RESULTS 10 /* fewer at a fidelity: not enough */

static const char imp_usage[] =
	"usage: dehbq importance STUDY [--fidelity F|all] [--format "
	"table|csv|jsonl]\n"
	"                         [--objective NAME]\n"
	"\n"
	"Each parameter's fANOVA importance: the fraction of the loss's\n"
	"variance it explains on its own, from a random forest (64 trees, the\n"
	"study's seed) fitted to the ok results at one fidelity; std is its\n"
	"spread over the trees.  The fractions sum to at most 1 (the rest is\n"
	"interactions).  --fidelity F: that fidelity; all: every fidelity "
	"with\n"
	"enough results; default: the highest with at least max(10, 2 x\n"
	"parameters) ok results.  --objective: which objective of a\n"
	"multi-objective study (default the first declared).  Inactive\n"
	"conditional parameters are imputed with the optimiser's draw.\n";

size_t cli_imp_need(int dim)
{
	return 2 * (size_t)dim > IMP_MIN_RESULTS ? 2 * (size_t)dim
						 : IMP_MIN_RESULTS;
}

void cli_imp_init(struct cli_imp *c, const struct spec *s, int obj)
{
	memset(c, 0, sizeof(*c));
	c->s = s;
	c->obj = obj;
	c->dim = space_dim(s->space);
}

void cli_imp_free(struct cli_imp *c)
{
	free(c->fid);
	free(c->x);
	free(c->y);
	memset(c, 0, sizeof(*c));
}

int cli_imp_add(struct cli_imp *c, const struct cli_row *row)
{
	double y[OBJECTIVES_MAX], v = row->r.loss;
	char why[256];

	if (!row->has_result || row->r.status != RESULT_OK)
		return 0;
	if (c->obj >= 0 && (!row->r.objectives ||
			    objectives_read(&c->s->obj, row->r.objectives, y,
					    NULL, why, sizeof(why))))
		return 0;
	if (c->obj >= 0)
		v = y[c->obj];
	if (!isfinite(v) || row->t.dim != c->dim)
		return 0;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 256;
		double *f = realloc(c->fid, cap * sizeof(double));
		double *x =
			f ? realloc(c->x, cap * (size_t)c->dim * sizeof(double))
			  : NULL;
		double *yy = x ? realloc(c->y, cap * sizeof(double)) : NULL;

		if (f)
			c->fid = f;
		if (x)
			c->x = x;
		if (!yy)
			return -1;
		c->y = yy;
		c->cap = cap;
	}
	c->fid[c->n] = row->t.fidelity;
	memcpy(c->x + c->n * (size_t)c->dim, row->t.vec,
	       (size_t)c->dim * sizeof(double));
	c->y[c->n++] = v;
	return 0;
}

int cli_imp_fit(const struct cli_imp *c, double fid, double *mean, double *sd,
		int *m, int *used)
{
	double *x = malloc((c->n + 1) * (size_t)c->dim * sizeof(double));
	double *y = malloc((c->n + 1) * sizeof(double));
	struct forest_opts fo = {64, 64, c->s->seed};
	size_t i;
	int rc = DEHBQ_ENOMEM;

	*m = *used = 0;
	if (x && y) {
		for (i = 0; i < c->n; i++)
			if (c->fid[i] == fid) {
				memcpy(x + (size_t)*m * c->dim,
				       c->x + i * (size_t)c->dim,
				       (size_t)c->dim * sizeof(double));
				y[(*m)++] = c->y[i];
			}
		rc = forest_importance(x, y, *m, c->dim, &fo, mean, sd, used);
	}
	free(x);
	free(y);
	return rc;
}

static int imp_row(void *arg, struct cli_row *row)
{
	return cli_imp_add(arg, row);
}

struct imp_out {
	int format; /* 0 table, 1 csv, 2 jsonl */
	const struct spec *s;
	int rows; /* printed so far */
};

/* The importances at fidelity f, printed. */
static int imp_at(struct cli_imp *c, struct imp_out *o, double f)
{
	double *mean = malloc((size_t)c->dim * sizeof(double));
	double *sd = malloc((size_t)c->dim * sizeof(double));
	int *ord = malloc((size_t)c->dim * sizeof(int));
	int j, k, m = 0, used = 0, rc = DEHBQ_ENOMEM;

	if (!mean || !sd || !ord ||
	    (rc = cli_imp_fit(c, f, mean, sd, &m, &used)))
		goto out;
	cli_imp_order(mean, c->dim, ord);
	if (!used)
		cli_warn("importance",
			 "the loss is the same for all %d results at fidelity "
			 "%g: no parameter explains anything (every importance "
			 "is 0)",
			 m, f);
	if (o->format == 0 && !o->rows++)
		printf("%-24s %10s %8s %10s %8s\n", "parameter", "importance",
		       "std", "fidelity", "results");
	if (o->format == 1 && !o->rows++)
		puts("parameter,importance,std,fidelity,results,trees");
	for (k = 0; k < c->dim; k++) {
		const char *name = space_param_name(o->s->space, ord[k]);

		j = ord[k];
		if (o->format == 0) {
			printf("%-24s %10.4f %8.4f %10.6g %8d\n", name, mean[j],
			       sd[j], f, m);
		} else if (o->format == 1) {
			cli_csv_field(stdout, name);
			printf(",%.6f,%.6f,%.17g,%d,%d\n", mean[j], sd[j], f, m,
			       used);
		} else {
			printf("{\"parameter\":\"%s\",\"importance\":%.6f,"
			       "\"std\":%.6f,\"fidelity\":%.17g,\"results\":"
			       "%d,\"trees\":%d}\n",
			       name, mean[j], sd[j], f, m, used);
		}
	}
out:
	free(mean);
	free(sd);
	free(ord);
	return rc;
}

void cli_imp_order(const double *mean, int dim, int *ord)
{
	int j, k;

	for (j = 0; j < dim; j++) { /* by importance, then space order */
		for (k = j; k > 0 && mean[ord[k - 1]] < mean[j]; k--)
			ord[k] = ord[k - 1];
		ord[k] = j;
	}
}

static int cmp_fid_desc(const void *a, const void *b)
{
	double u = *(const double *)a, v = *(const double *)b;

	return u > v ? -1 : u < v;
}

/*
 * The fidelities to report into fids (*nf): want (>= 0: that one, NaN:
 * all with enough results; -1: the highest with enough), highest first.
 * need: results that are enough.
 */
static int imp_pick(const struct cli_imp *c, double want, size_t need,
		    double *fids, size_t *nf)
{
	size_t i, j, k = 0;

	memcpy(fids, c->fid, c->n * sizeof(double));
	qsort(fids, c->n, sizeof(double), cmp_fid_desc);
	for (i = 0; i < c->n; i = j) {
		for (j = i; j < c->n && fids[j] == fids[i]; j++)
			;
		if (want >= 0 ? fabs(fids[i] - want) <= 1e-9 * want
			      : j - i >= need) /* as printed, %g: near */
			fids[k++] = fids[i];
		if (k && want < 0 && !isnan(want))
			break;
	}
	*nf = k;
	return k ? DEHBQ_OK : DEHBQ_ENOENT;
}

/* --objective NAME: its index, -1 for a single-objective study. */
static int imp_objective(const struct spec *s, const char *name, int *obj)
{
	*obj = s->obj.n ? 0 : -1;
	if (name && (*obj = objectives_find(&s->obj, name)) < 0)
		return DEHBQ_EINVAL;
	return DEHBQ_OK;
}

int cli_importance(int argc, char **argv)
{
	static const struct option opts[] = {
		{"fidelity", required_argument, NULL, 'f'},
		{"format", required_argument, NULL, 'F'},
		{"objective", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct cli_imp c;
	struct imp_out o = {0, NULL, 0};
	const char *objname = NULL;
	double want = -1, *fids = NULL;
	struct spec s;
	size_t nf = 0, i, need;
	int ch, rc;

	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (ch == 'h') {
			fputs(imp_usage, stdout);
			return CLI_OK;
		} else if (ch == 'f' && !strcmp(optarg, "all")) {
			want = NAN;
		} else if (ch == 'f') {
			if (cli_parse_double(optarg, &want) || !(want > 0))
				return cli_usage_error(
					"importance", imp_usage,
					"--fidelity '%s': give a fidelity of "
					"the study, or all",
					optarg);
		} else if (ch == 'F') {
			o.format = !strcmp(optarg, "table")   ? 0
				   : !strcmp(optarg, "csv")   ? 1
				   : !strcmp(optarg, "jsonl") ? 2
							      : -1;
			if (o.format < 0)
				return cli_usage_error(
					"importance", imp_usage,
					"--format '%s': one of table, csv, "
					"jsonl",
					optarg);
		} else if (ch == 'o') {
			objname = optarg;
		} else {
			return cli_usage_error("importance", imp_usage,
					       "unknown or incomplete option "
					       "'%s'",
					       argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("importance", imp_usage, "%s",
				       "need exactly one STUDY");
	if ((rc = cli_open_study("importance", argv[optind], &s)))
		return rc;
	o.s = &s;
	cli_imp_init(&c, &s, -1);
	need = cli_imp_need(c.dim);
	if (imp_objective(&s, objname, &c.obj)) {
		rc = cli_fail("importance", CLI_EINPUT,
			      "--objective '%s': not an objective of %s "
			      "(dehbq status lists them)",
			      objname, argv[optind]);
		goto out;
	}
	if ((rc = cli_scan_trials("importance", argv[optind], &s,
				  CLI_SCAN_ARCHIVE, imp_row, &c)) ||
	    !(fids = malloc((c.n + 1) * sizeof(double)))) {
		rc = cli_fail("importance", CLI_ESYS, "out of memory");
		goto out;
	}
	if (imp_pick(&c, want, need, fids, &nf)) {
		rc = cli_fail("importance", CLI_EINPUT,
			      "%s: %s (it has %zu ok results in all)",
			      argv[optind],
			      want > 0 ? "no ok result at that fidelity"
				       : "no fidelity has enough ok results "
					 "yet",
			      c.n);
		goto out;
	}
	for (i = 0; i < nf && !rc; i++)
		rc = imp_at(&c, &o, fids[i]);
	if (rc == DEHBQ_EINVAL)
		rc = cli_fail("importance", CLI_EINPUT,
			      "%s: fewer than 2 ok results at fidelity %g",
			      argv[optind], fids[i - 1]);
	else if (rc)
		rc = cli_fail("importance", CLI_ESYS, "out of memory");
out:
	free(fids);
	cli_imp_free(&c);
	spec_release(&s);
	return rc;
}
