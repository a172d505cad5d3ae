/*
 * status_optim.c - what `dehbq status` says about the optimiser: the
 * incumbents, DEHB's brackets, ASHA's rungs, the optimiser's own summary
 * and the earlier tasks of a transfer study, all read from the
 * orchestrator's state/status.json (orchestrator/sched_status.c)
 */
#include "cli.h"

#include "spec.h"
#include "statusfile.h"
#include "study.h"

#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

/* Number member of obj, or dflt. */
static double num(const cJSON *obj, const char *key, double dflt)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsNumber(it) ? it->valuedouble : dflt;
}

/* none: what to say when there is none ("none yet" while running) */
static void incumbent(FILE *f, const char *label,
		      const struct statusfile_best *inc, const char *none)
{
	const cJSON *cfg = inc->config, *it;
	char *txt;

	if (!inc->valid) {
		fprintf(f, "  %-22s %s\n", label, none);
		return;
	}
	fprintf(f, "  %-22s loss %.6g at fidelity %g (trial %s)\n", label,
		inc->loss, inc->fidelity, inc->trial[0] ? inc->trial : "?");
	if (!cJSON_IsObject(cfg))
		return;
	fprintf(f, "  %-22s", "");
	cJSON_ArrayForEach(it, cfg)
	{
		txt = cJSON_IsString(it) ? NULL : cJSON_PrintUnformatted(it);
		fprintf(f, " %s=%s", it->string ? it->string : "?",
			txt ? txt : (it->valuestring ? it->valuestring : "?"));
		cJSON_free(txt);
	}
	fputc('\n', f);
}

static void brackets(FILE *f, const cJSON *br)
{
	const cJSON *b, *r;
	int nb = 0;

	if (!cJSON_IsArray(br))
		return;
	cJSON_ArrayForEach(b, br)
	{
		const cJSON *rungs =
			cJSON_GetObjectItemCaseSensitive(b, "rungs");
		int j = 0;

		if (!cJSON_IsArray(rungs))
			continue;
		if (!nb++)
			fprintf(f, "active brackets\n");
		if (nb > 20) {
			fprintf(f, "  ... %d more\n",
				cJSON_GetArraySize(br) - 20);
			break;
		}
		fprintf(f, "  bracket %.0f:", num(b, "id", -1));
		cJSON_ArrayForEach(r, rungs)
		{
			/* "pending": not yet handed out by the optimiser */
			double n = num(r, "n", 0), d = num(r, "done", 0);
			double p = num(r, "pending", 0), run = n - d - p;

			fprintf(f, "%s rung%d %.0f/%.0f done", j ? "," : "", j,
				d, n);
			if (run > 0 && p > 0)
				fprintf(f, " (%.0f running, %.0f to issue)",
					run, p);
			else if (run > 0 || p > 0)
				fprintf(f, " (%.0f %s)", run > 0 ? run : p,
					run > 0 ? "running" : "to issue");
			j++;
		}
		fputc('\n', f);
	}
}

/* ASHA's rungs: results so far and how many went up. */
static void rungs(FILE *f, const cJSON *rs)
{
	const cJSON *r;
	int k = 0;

	if (!cJSON_IsArray(rs))
		return;
	fprintf(f, "rungs\n");
	cJSON_ArrayForEach(r, rs)
	{
		fprintf(f,
			"  rung%d at fidelity %g: %.0f results, %.0f "
			"promoted\n",
			k++, num(r, "fidelity", 0), num(r, "results", 0),
			num(r, "promoted", 0));
	}
}

/* What the optimiser reports of itself (status.json's "optimizer"). */
void cli_status_optimizer(FILE *f, const cJSON *o)
{
	const cJSON *br = cJSON_GetObjectItemCaseSensitive(o, "brackets");
	const cJSON *rs = cJSON_GetObjectItemCaseSensitive(o, "rungs");

	if (br)
		brackets(f, br);
	if (rs)
		rungs(f, rs);
	if (cJSON_GetObjectItemCaseSensitive(o, "population_size"))
		fprintf(f, "population %.0f of %.0f\n", num(o, "population", 0),
			num(o, "population_size", 0));
}

/* A transfer optimiser's earlier tasks and its prior's RMSE here (or
 * its searcher's, under a scheduler: "search"). */
void cli_status_transfer(FILE *f, const cJSON *o)
{
	const cJSON *r;

	if (!cJSON_GetObjectItemCaseSensitive(o, "transfer_tasks"))
		o = cJSON_GetObjectItemCaseSensitive(o, "search");
	if (!cJSON_GetObjectItemCaseSensitive(o, "transfer_tasks"))
		return;
	r = cJSON_GetObjectItemCaseSensitive(o, "prior_rmse");
	fprintf(f,
		"transfer: %.0f earlier tasks, %.0f results (state/"
		"transfer.jsonl)\n",
		num(o, "transfer_tasks", 0), num(o, "transfer_results", 0));
	if (!cJSON_IsNumber(r)) {
		fprintf(f, "          prior RMSE: none yet (no result at the "
			   "maximum fidelity)\n");
		return;
	}
	fprintf(f, "          prior RMSE on this study's results: %.3f\n",
		r->valuedouble);
	if (r->valuedouble > 1)
		fprintf(f,
			"          warning: above 1, the prior predicts this "
			"study no better than knowing nothing; its earlier "
			"tasks may be unlike this one\n");
}

/* A single-objective study: the incumbents at the maximum and any
 * fidelity. */
void cli_status_incumbents(FILE *f, const char *root, const struct spec *s,
			   const struct statusfile *st, int finished)
{
	char none_max[160];

	fprintf(f, "incumbents\n");
	if (finished)
		snprintf(none_max, sizeof(none_max),
			 "none: no trial reached fidelity %g before the study "
			 "ended (dehbq extend %s --fevals N gives it more)",
			 s->max_fidelity, root);
	else
		snprintf(none_max, sizeof(none_max), "none yet");
	incumbent(f, "at max fidelity:", &st->best_max, none_max);
	incumbent(f, "at any fidelity:", &st->best_any,
		  finished ? "none: no trial succeeded" : "none yet");
}
