/*
 * init_opt.c - owns what `dehbq init`'s options say about the optimiser:
 * --optimizer, the schedulers and searchers (--scheduler, --searcher), the
 * compositions' older spellings (--multi-fidelity, --sampler: aliases that
 * the help no longer shows), the
 * settings every optimiser fills in, and which optimisers a
 * multi-objective or transfer study may use.  Every name and list comes
 * from the tables (optim_table, search_table), never from a list here.
 */
#include "cli.h"
#include "init_impl.h"

#include "err.h"
#include "optim.h"
#include "spec.h"
#include "transfer.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

/* The optimiser's setting key set to the string v; -1: out of memory. */
static int set_setting(struct spec *s, const char *key, const char *v)
{
	cJSON *set = s->settings ? cJSON_Duplicate(s->settings, 1)
				 : cJSON_CreateObject();
	int rc;

	if (!set)
		return -1;
	cJSON_DeleteItemFromObjectCaseSensitive(set, key);
	rc = !cJSON_AddStringToObject(set, key, v) || spec_set_settings(s, set);
	cJSON_Delete(set);
	return rc ? -1 : 0;
}

/*
 * --multi-fidelity V, 0.3's spelling: the setting multi_fidelity of a
 * preset that takes it (OPTIM_CAP_ASHA; its settings check V), "none"
 * for any other.  -1: not possible.
 */
static int multi_fidelity(struct spec *s, const char *v)
{
	if (!(optim_caps(s->optimizer) & OPTIM_CAP_ASHA))
		return strcmp(v, "none") ? -1 : 0;
	return set_setting(s, "multi_fidelity", v);
}

/*
 * --searcher S: the scheduler takes searcher S (its setting "searcher").
 * The scheduler is --scheduler's, else --optimizer's, else the spec's if
 * it takes a searcher, else the default one (optim_default_scheduler).
 * -1: out of memory.
 */
static int searcher(struct spec *s, const struct init_over *o, const char *v)
{
	if (!o->opt[OPT_SCHEDULER] && !o->opt[OPT_OPTIMIZER] &&
	    !(optim_caps(s->optimizer) & OPTIM_CAP_SEARCHER))
		snprintf(s->optimizer, sizeof(s->optimizer), "%s",
			 optim_default_scheduler());
	return set_setting(s, "searcher", v);
}

/* lead, the optimisers with caps (optim_list), then tail, into buf */
static const char *names_of(char *buf, size_t size, const char *lead,
			    unsigned caps, const char *tail)
{
	size_t n = (size_t)snprintf(buf, size, "%s", lead);

	if (n < size && !optim_list(caps, ", ", buf + n, size - n))
		n += strlen(buf + n);
	if (n < size)
		snprintf(buf + n, size - n, "%s", tail);
	return buf;
}

int cli_init_optimizer_opt(struct spec *s, const struct init_over *o,
			   const struct option *op, const char *v)
{
	char one[512];

	switch (op->val) {
	case OPT_OPTIMIZER:
		if (!optim_find(v))
			return cli_init_bad_opt(
				op->name, v,
				names_of(one, sizeof(one), "one of ", 0, ""));
		snprintf(s->optimizer, sizeof(s->optimizer), "%s", v);
		break;
	case OPT_MF:
		if (multi_fidelity(s, v))
			return cli_init_bad_opt(
				op->name, v,
				names_of(one, sizeof(one),
					 "'none' for this optimizer (the "
					 "presets that take it: ",
					 OPTIM_CAP_ASHA, ")"));
		break;
	case OPT_SCHEDULER:
		if (o->opt[OPT_OPTIMIZER])
			return cli_usage_error(
				"init", cli_init_usage,
				"--scheduler and --optimizer both "
				"name the optimizer: give one");
		if (!(optim_caps(v) & OPTIM_CAP_SEARCHER))
			return cli_init_bad_opt(
				op->name, v,
				names_of(one, sizeof(one), "one of ",
					 OPTIM_CAP_SEARCHER, ""));
		snprintf(s->optimizer, sizeof(s->optimizer), "%s", v);
		break;
	case OPT_SAMPLER: /* 0.3's spelling of --searcher, for asha */
		if (!(optim_caps(s->optimizer) & OPTIM_CAP_SEARCHER))
			return cli_usage_error(
				"init", cli_init_usage,
				"--sampler needs a scheduler that takes a "
				"searcher: %s",
				names_of(one, sizeof(one), "",
					 OPTIM_CAP_SEARCHER, ""));
		/* fall through */
	case OPT_SEARCHER:
		if (!search_find(v)) {
			search_list(0, ", ", one, sizeof(one));
			return cli_usage_error(
				"init", cli_init_usage,
				"option '--%s': '%s' is not one of %s",
				op->name, v, one);
		}
		if (o->opt[OPT_OPTIMIZER] &&
		    !(optim_caps(s->optimizer) & OPTIM_CAP_SEARCHER)) {
			optim_list(OPTIM_CAP_SEARCHER, ", ", one, sizeof(one));
			return cli_usage_error(
				"init", cli_init_usage,
				"--searcher %s: --optimizer %s takes "
				"no searcher (the schedulers that do: "
				"%s)",
				v, s->optimizer, one);
		}
		if (searcher(s, o, v))
			return cli_fail("init", CLI_ESYS,
					"fatal: out of memory");
		break;
	}
	return CLI_OK;
}

/* The optimiser validates its own settings and fills in their defaults, so
 * study.json records every value the study runs with. */
int cli_init_optimizer_settings(struct spec *s, const char *file, char *err)
{
	char e[DEHBQ_ERRLEN];
	cJSON *full;
	int rc;

	if ((rc = optim_settings(s->optimizer, s->settings, &full, e)))
		return dehbq_errf(err, rc, "%s: %s", file, e);
	rc = spec_set_settings(s, full);
	cJSON_Delete(full);
	return rc ? dehbq_errf(err, rc, "out of memory") : DEHBQ_OK;
}

void cli_init_one_fidelity_default(struct spec *s, const struct init_over *o)
{
	if (s->min_fidelity == s->max_fidelity && !s->optimizer_named &&
	    !o->opt[OPT_OPTIMIZER] && !o->opt[OPT_SCHEDULER] &&
	    !o->opt[OPT_SEARCHER] && !o->opt[OPT_SAMPLER] && !o->opt[OPT_MF])
		snprintf(s->optimizer, sizeof(s->optimizer), "%s",
			 optim_default_one_fidelity());
}

int cli_init_check_fidelity(const struct spec *s, const char *file, char *err)
{
	char e[DEHBQ_ERRLEN];
	int rc;

	if ((rc = optim_check_fidelity(s->optimizer, s->settings,
				       s->min_fidelity, s->max_fidelity, e)))
		return dehbq_errf(err, rc, "%s: %s", file, e);
	return DEHBQ_OK;
}

/* The study's searcher setting, or NULL. */
static const char *searcher_of(const struct spec *s)
{
	return cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(s->settings, "searcher"));
}

int cli_init_check_objectives(const struct spec *s)
{
	char names[512];

	if (!s->obj.n || !optim_find(s->optimizer) ||
	    (optim_study_caps(s->optimizer, s->settings) &
	     OPTIM_CAP_MULTIOBJECTIVE))
		return CLI_OK;
	optim_list(OPTIM_CAP_MULTIOBJECTIVE, ", ", names, sizeof(names));
	if (optim_caps(s->optimizer) & OPTIM_CAP_MULTIOBJECTIVE) {
		size_t n = 0;
		int i;

		names[0] = 0;
		for (i = 0; search_table[i]; i++)
			if (search_multiobjective(search_table[i]) &&
			    n + strlen(search_table[i]->name) + 3 <
				    sizeof(names))
				n += (size_t)sprintf(names + n, "%s%s",
						     n ? ", " : "",
						     search_table[i]->name);
		return cli_fail("init", CLI_EINPUT,
				"--searcher %s cannot run a multi-objective "
				"study (use %s)",
				searcher_of(s), names);
	}
	return cli_fail("init", CLI_EINPUT,
			"--optimizer %s cannot run a multi-objective study "
			"(use %s)",
			s->optimizer, names);
}

int cli_init_check_transfer(const struct spec *s, const struct transfer *tr)
{
	unsigned caps = optim_study_caps(s->optimizer, s->settings);
	char names[512];

	optim_list(OPTIM_CAP_TRANSFER, ", ", names, sizeof(names));
	if (tr->ntasks && !(caps & OPTIM_CAP_TRANSFER))
		return cli_fail("init", CLI_EINPUT,
				"--transfer-from: --optimizer %s does not use "
				"earlier results (%s do)",
				s->optimizer, names);
	if ((caps & OPTIM_CAP_NEEDS_TRANSFER) && !tr->ntasks)
		return cli_fail("init", CLI_EINPUT,
				"%s%s%s needs earlier results: "
				"--transfer-from STUDY, FILE.jsonl or "
				"FILE.csv",
				s->optimizer,
				searcher_of(s) ? " with searcher " : "",
				searcher_of(s) ? searcher_of(s) : "");
	return CLI_OK;
}

void cli_init_prefetch_default(struct spec *s, const struct init_over *o)
{
	if (s->prefetch_given || o->opt[OPT_PREFETCH] ||
	    !(optim_study_caps(s->optimizer, s->settings) &
	      OPTIM_CAP_SEQUENTIAL))
		return;
	s->prefetch = 0;
	printf("prefetch 0: %s%s%s proposes from every result, so each "
	       "proposal waits for a worker to ask (a worker idles while the "
	       "model fits; --prefetch 1 keeps workers busy instead)\n",
	       s->optimizer, searcher_of(s) ? " with searcher " : "",
	       searcher_of(s) ? searcher_of(s) : "");
}
