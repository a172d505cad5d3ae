/*
 * init_show.c - what `dehbq init` prints besides errors: the optimiser
 * list of --help, the fidelity ladder of a new study (with its warnings
 * about a termination that cannot reach the top fidelity) and the earlier
 * tasks a study was given.
 */
#include "cli.h"

#include "err.h"
#include "hb.h"
#include "optim.h"
#include "spec.h"
#include "transfer.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

/*
 * Every optimiser of optim_table with its one-line summary and its
 * settings with their defaults (what init writes into study.json).
 */
void cli_init_print_optimizers(FILE *f)
{
	char err[DEHBQ_ERRLEN];
	int i;

	char names[512];

	optim_list(0, "|", names, sizeof(names));
	fprintf(f, "\n--optimizer %s\n", names);
	optim_list(OPTIM_CAP_SEARCHER, "|", names, sizeof(names));
	fprintf(f, "--scheduler %s", names);
	search_list(0, "|", names, sizeof(names));
	fprintf(f, " --searcher %s\n", names);
	optim_list(OPTIM_CAP_TRANSFER, ", ", names, sizeof(names));
	fprintf(f, "--transfer-from: used by %s", names);
	optim_list(OPTIM_CAP_NEEDS_TRANSFER, ", ", names, sizeof(names));
	fprintf(f, " (needed by %s)\n", names);
	optim_list(OPTIM_CAP_MULTIOBJECTIVE, ", ", names, sizeof(names));
	fprintf(f, "two or more --objective: %s\n", names);
	fputs("\nOptimizers (--optimizer NAME).  Their settings go in the "
	      "spec's \"optimizer\"\nobject (docs/protocol.md 4.1); shown "
	      "with their defaults:\n",
	      f);
	for (i = 0; optim_table[i]; i++) {
		cJSON *full = NULL;
		char *txt = NULL;

		fprintf(f, "  %-10s %s\n", optim_table[i]->name,
			optim_table[i]->summary);
		if (!optim_settings(optim_table[i]->name, NULL, &full, err) &&
		    cJSON_GetArraySize(full) > 0 &&
		    (txt = cJSON_PrintUnformatted(full)))
			fprintf(f, "  %-10s %s\n", "", txt);
		cJSON_free(txt);
		cJSON_Delete(full);
	}
	fputs("\nSearchers (--searcher NAME, the setting \"searcher\" of a "
	      "scheduler that takes one):\n",
	      f);
	for (i = 0; search_table[i]; i++)
		fprintf(f, "  %-10s %s\n", search_table[i]->name,
			search_table[i]->summary);
}

void cli_init_print_transfer(const struct transfer *t)
{
	int k;

	printf("transfer: %d earlier task%s (", t->ntasks,
	       t->ntasks == 1 ? "" : "s");
	for (k = 0; k < t->ntasks; k++)
		printf("%s%s: %zu", k ? ", " : "", t->label[k], t->n[k]);
	printf(" results), frozen in state/transfer.jsonl\n");
}

/*
 * The fidelity ladder and what a bracket costs, and a warning when the
 * termination cannot reach the top fidelity (a small --fevals on a tall
 * ladder ends with no result at the maximum fidelity).
 */
void cli_init_print_ladder(const struct spec *s)
{
	double fid[HB_MAX_LEVELS];
	int n[HB_MAX_LEVELS], L, k, sb, first = 0, round = 0;
	const cJSON *mf =
		cJSON_GetObjectItemCaseSensitive(s->settings, "multi_fidelity");
	const cJSON *sr =
		cJSON_GetObjectItemCaseSensitive(s->settings, "searcher");
	unsigned caps = optim_caps(s->optimizer);

	if (hb_levels(s->min_fidelity, s->max_fidelity, s->eta, &L))
		return;
	if (L == 1) {
		printf("one fidelity: every trial runs at fidelity %g "
		       "(optimizer %s%s%s)\n",
		       s->max_fidelity, s->optimizer,
		       cJSON_IsString(sr) ? ", searcher " : "",
		       cJSON_IsString(sr) ? sr->valuestring : "");
		return;
	}
	hb_fidelities(s->max_fidelity, s->eta, L, fid);
	printf("fidelity ladder (eta %g):", s->eta);
	for (k = 0; k < L; k++)
		printf("%s %g", k ? "," : "", fid[k]);
	printf(" (%d level%s)\n", L, L == 1 ? "" : "s");
	if ((caps & OPTIM_CAP_RUNGS) ||
	    (cJSON_IsString(mf) &&
	     (optim_caps(mf->valuestring) & OPTIM_CAP_RUNGS))) {
		printf("%s: new configurations (%s%s) start at fidelity %g; "
		       "the best 1/%g of each rung are promoted to the next\n",
		       caps & OPTIM_CAP_RUNGS ? s->optimizer : mf->valuestring,
		       cJSON_IsString(sr) ? "searcher " : "",
		       cJSON_IsString(sr) ? sr->valuestring : s->optimizer,
		       fid[0], s->eta);
		return;
	}
	if (caps & OPTIM_CAP_SEGMENTS) {
		const cJSON *pop = cJSON_GetObjectItemCaseSensitive(
			s->settings, "population_size");
		const cJSON *iv = cJSON_GetObjectItemCaseSensitive(
			s->settings, "perturbation_interval");

		printf("%s: %d members train in segments of %g up to fidelity "
		       "%g, each segment a trial that continues from the one "
		       "before ({parent_workdir})\n",
		       s->optimizer, cJSON_IsNumber(pop) ? pop->valueint : 8,
		       cJSON_IsNumber(iv) ? iv->valuedouble : s->min_fidelity,
		       s->max_fidelity);
		return;
	}
	if (!(caps & OPTIM_CAP_BRACKETS)) {
		printf("every trial runs at fidelity %g (optimizer %s%s%s)\n",
		       s->max_fidelity, s->optimizer,
		       cJSON_IsString(sr) ? ", searcher " : "",
		       cJSON_IsString(sr) ? sr->valuestring : "");
		return;
	}
	for (sb = L - 1; sb >= 0; sb--) {
		int tot = 0;

		if (hb_rung_sizes(L, s->eta, sb, n))
			return;
		for (k = 0; k <= sb; k++)
			tot += n[k];
		if (sb == L - 1)
			first = tot;
		round += tot;
		if (caps & OPTIM_CAP_ONE_BRACKET)
			break;
	}
	if (caps & OPTIM_CAP_ONE_BRACKET)
		printf("one bracket: %d evaluations, the last at fidelity %g\n",
		       first, s->max_fidelity);
	else
		printf("one round of %d brackets: %d evaluations; the first "
		       "bracket, %d, ends at fidelity %g\n",
		       L, round, first, s->max_fidelity);
	if (s->fevals > 0 && s->fevals < first)
		fprintf(stderr,
			"dehbq init: warning: --fevals %lld is less than the "
			"%d evaluations of the first bracket: no trial will "
			"reach fidelity %g (use --fevals %d or more, or a "
			"larger --min-budget)\n",
			(long long)s->fevals, first, s->max_fidelity, round);
	else if (s->fevals > 0 && s->fevals < round)
		fprintf(stderr,
			"dehbq init: warning: --fevals %lld is less than one "
			"round of brackets (%d): with several workers the "
			"brackets run side by side, and the study may end "
			"before any trial reaches fidelity %g (use --fevals "
			"%d or more)\n",
			(long long)s->fevals, round, s->max_fidelity, round);
}
