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
 * Ties go to the lower id (the earlier trial).  It reads the archive, not
 * status.json, so it is exact after a crash.  Python's dehbq.best() runs
 * it.
 */
#include "cli.h"

#include "err.h"
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
	"--any-fidelity; ties go to the earlier trial.  Exit 100 when there "
	"is\n"
	"none yet.\n";

struct best_ctx {
	const struct spec *spec; /* borrowed */
	double min_fid;		 /* results below this fidelity are ignored */
	double loss;		 /* best so far; INFINITY: none */
	cJSON *out;		 /* the best row's object, owned */
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

static int best_row(void *arg, struct cli_row *row)
{
	struct best_ctx *x = arg;
	cJSON *o;

	if (!row->has_result || row->r.status != RESULT_OK ||
	    row->t.fidelity < x->min_fid || !(row->r.loss < x->loss))
		return 0;
	if (!(o = best_object(x->spec, row)))
		return -1;
	cJSON_Delete(x->out);
	x->out = o;
	x->loss = row->r.loss;
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
	rc = cli_scan_trials("best", argv[optind], &s, CLI_SCAN_ARCHIVE,
			     best_row, &x);
	spec_release(&s);
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
