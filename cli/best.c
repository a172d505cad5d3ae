/*
 * best.c - `dehbq best STUDY [--any-fidelity]`
 *
 * Owns the answer to "which configuration should I use": the archived
 * evaluation with the lowest loss among the ok results at the maximum
 * fidelity (or at any fidelity), as one JSON object on stdout:
 *
 *   {"id": "00000035", "fidelity": 27, "loss": 0.0412, "cost": 3.2,
 *    "attempt": 1, "config": {"lr": 0.001, ...}}
 *
 * Ties go to the lower id (the earlier trial).  When the best trial
 * continued another's work directory (its parent: a promotion, a pbt
 * segment), "schedule" lists the chain, first trial first, each as
 * {"id", "fidelity", "config"}, the best last: under pbt the winning
 * member's configuration per segment.  It reads the archive, not
 * status.json, so it is exact after a crash; two passes, the second only
 * when there is a chain.  Python's dehbq.best() runs it.
 */
#include "cli.h"

#include "err.h"
#include "id.h"
#include "jsonfile.h"
#include "space.h"
#include "spec.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char best_usage[] =
	"usage: dehbq best STUDY [--any-fidelity]\n"
	"\n"
	"Print the best evaluation as one JSON object: id, fidelity, loss,\n"
	"cost, attempt and config.  Best means the lowest loss among the ok\n"
	"results at the maximum fidelity, or at any fidelity with\n"
	"--any-fidelity; ties go to the earlier trial.  When the best\n"
	"trial continued another's work (a promotion, a pbt segment),\n"
	"\"schedule\" lists that chain of trials, first first, each with its\n"
	"fidelity and config.  Exit 100 when there is none yet.\n";

#define BEST_CHAIN_MAX 4096 /* trials in a schedule */

/* A trial and the one whose work it continued. */
struct link {
	uint64_t id;
	int64_t parent; /* -1: none */
};

struct best_ctx {
	const struct spec *spec; /* borrowed */
	double min_fid;		 /* results below this fidelity are ignored */
	double loss;		 /* best so far; INFINITY: none */
	cJSON *out;		 /* the best row's object, owned */
	int64_t parent;		 /* the best row's parent, -1 none */
	struct link *lk;	 /* every archived trial's, in scan order */
	size_t nlk, caplk;
	uint64_t chain[BEST_CHAIN_MAX]; /* the schedule's ids, best last */
	cJSON *steps[BEST_CHAIN_MAX];	/* ... their objects, owned */
	int nchain;
};

static cJSON *best_object(const struct spec *s, const struct cli_row *row)
{
	char id[ID_TRIAL_LEN];
	cJSON *o = cJSON_CreateObject(), *cfg;

	id_trial_format(row->t.id, id);
	cfg = space_config_to_json(s->space, row->t.config);
	if (!o || !cfg || !cJSON_AddStringToObject(o, "id", id) ||
	    jsonfile_add_number(o, "fidelity", row->t.fidelity) ||
	    jsonfile_add_number(o, "loss", row->r.loss) ||
	    jsonfile_add_number(o, "cost", row->r.cost) ||
	    jsonfile_add_number(o, "attempt", row->t.attempt) ||
	    !cJSON_AddItemToObject(o, "config", cfg)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static int add_link(struct best_ctx *x, const struct trial *t)
{
	if (x->nlk == x->caplk) {
		size_t c = x->caplk ? 2 * x->caplk : 1024;
		struct link *n = realloc(x->lk, c * sizeof(*n));

		if (!n)
			return -1;
		x->lk = n;
		x->caplk = c;
	}
	x->lk[x->nlk].id = t->id;
	x->lk[x->nlk++].parent = t->parent;
	return 0;
}

static int link_cmp(const void *a, const void *b)
{
	uint64_t u = ((const struct link *)a)->id,
		 v = ((const struct link *)b)->id;

	return u < v ? -1 : u > v;
}

/* The chain of parents from the best row's up: x->chain, first first,
 * the best's own id last (best: its id). */
static void make_chain(struct best_ctx *x, uint64_t best)
{
	int64_t p = x->parent;
	uint64_t up[BEST_CHAIN_MAX];
	int n = 0, k;

	qsort(x->lk, x->nlk, sizeof(*x->lk), link_cmp);
	up[n++] = best;
	while (p >= 0 && n < BEST_CHAIN_MAX) {
		struct link key = {(uint64_t)p, -1}, *l;

		up[n++] = (uint64_t)p;
		l = bsearch(&key, x->lk, x->nlk, sizeof(*x->lk), link_cmp);
		/* an id below its child's: a damaged file cannot loop */
		p = l && l->parent < p ? l->parent : -1;
	}
	for (k = 0; k < n; k++)
		x->chain[k] = up[n - 1 - k];
	x->nchain = n;
}

/* Second pass: each trial of the chain as a step of the schedule. */
static int step_row(void *arg, struct cli_row *row)
{
	struct best_ctx *x = arg;
	cJSON *o, *cfg;
	char id[ID_TRIAL_LEN];
	int k;

	for (k = 0; k < x->nchain && x->chain[k] != row->t.id; k++)
		;
	if (k == x->nchain || x->steps[k])
		return 0;
	id_trial_format(row->t.id, id);
	o = cJSON_CreateObject();
	cfg = space_config_to_json(x->spec->space, row->t.config);
	if (!o || !cfg || !cJSON_AddStringToObject(o, "id", id) ||
	    jsonfile_add_number(o, "fidelity", row->t.fidelity) ||
	    !cJSON_AddItemToObject(o, "config", cfg)) {
		cJSON_Delete(o);
		cJSON_Delete(cfg);
		return -1;
	}
	x->steps[k] = o;
	return 0;
}

/* "schedule": the steps found, in chain order, onto the best object. */
static int add_schedule(struct best_ctx *x)
{
	cJSON *a = cJSON_CreateArray();
	int k;

	if (!a || !cJSON_AddItemToObject(x->out, "schedule", a)) {
		cJSON_Delete(a);
		return -1;
	}
	for (k = 0; k < x->nchain; k++)
		if (x->steps[k]) {
			cJSON_AddItemToArray(a, x->steps[k]);
			x->steps[k] = NULL;
		}
	return 0;
}

static int best_row(void *arg, struct cli_row *row)
{
	struct best_ctx *x = arg;
	cJSON *o;

	if (add_link(x, &row->t))
		return -1;
	if (!row->has_result || row->r.status != RESULT_OK ||
	    row->t.fidelity < x->min_fid || !(row->r.loss < x->loss))
		return 0;
	if (!(o = best_object(x->spec, row)))
		return -1;
	cJSON_Delete(x->out);
	x->out = o;
	x->loss = row->r.loss;
	x->parent = row->t.parent;
	return 0;
}

int cli_best(int argc, char **argv)
{
	static const struct option opts[] = {
		{"any-fidelity", no_argument, NULL, 'a'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct best_ctx x;
	struct spec s;
	char *text;
	int c, rc, any = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(best_usage, stdout);
			return CLI_OK;
		} else if (c == 'a') {
			any = 1;
		} else {
			return cli_usage_error("best", best_usage,
					       "unknown option '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("best", best_usage, "%s",
				       "need exactly one STUDY");
	if ((rc = cli_open_study("best", argv[optind], &s)))
		return rc;
	if (s.obj.n) {
		spec_release(&s);
		return cli_fail("best", CLI_EINPUT,
				"%s has %d objectives and no single best: "
				"dehbq pareto %s lists the front",
				argv[optind], s.obj.n, argv[optind]);
	}
	memset(&x, 0, sizeof(x));
	x.spec = &s;
	x.min_fid = any ? -INFINITY : s.max_fidelity * (1 - 1e-9);
	x.loss = INFINITY;
	x.parent = -1;
	rc = cli_scan_trials("best", argv[optind], &s, CLI_SCAN_ARCHIVE,
			     best_row, &x);
	if (!rc && x.out && x.parent >= 0) {
		make_chain(&x, (uint64_t)strtoull(
				       cJSON_GetStringValue(cJSON_GetObjectItem(
					       x.out, "id")),
				       NULL, 10));
		rc = cli_scan_trials("best", argv[optind], &s,
				     CLI_SCAN_ARCHIVE | CLI_SCAN_NORESULT,
				     step_row, &x) ||
		     add_schedule(&x);
	}
	spec_release(&s);
	free(x.lk);
	for (c = 0; c < x.nchain; c++)
		cJSON_Delete(x.steps[c]);
	if (rc) {
		cJSON_Delete(x.out);
		return cli_fail("best", CLI_ESYS, "out of memory");
	}
	if (!x.out)
		return cli_fail("best", CLI_EINPUT, "%s: no ok result %s yet%s",
				argv[optind],
				any ? "at any fidelity"
				    : "at the maximum "
				      "fidelity",
				any ? ""
				    : " (--any-fidelity for the best "
				      "at a lower one)");
	text = cJSON_PrintUnformatted(x.out);
	cJSON_Delete(x.out);
	if (!text)
		return cli_fail("best", CLI_ESYS, "out of memory");
	puts(text);
	free(text);
	return fflush(stdout) ? CLI_ESYS : CLI_OK;
}
