/*
 * optim_table.c - owns the table of optimisers (optim.h): the one list of
 * them, the presets (a searcher under a scheduler, preset.c), what each
 * can do (caps), the lists computed from it for messages and help, and
 * the job kinds' names (common/trial.c's)
 */
#include "optim.h"
#include "optim_impl.h"

#include "err.h"
#include "trial.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

extern const struct optim_ops optim_sh_ops, optim_hyperband_ops, optim_asha_ops,
	optim_fifo_ops, optim_asha_stop_ops, optim_hyperband_stop_ops,
	optim_median_stop_ops, optim_pbt_ops;

/* The presets: one line each. */
static const char *const dehb_under[] = {"max_active_brackets", NULL};
static const char *const dehb_set[] = {"promotion", "searcher", NULL};
static const char *const dehb_hides[] = {"population_size", NULL};
static const struct optim_ops optim_dehb_ops = {
	.name = "dehb",
	.summary = "DEHB: differential evolution in Hyperband brackets "
		   "(default)",
	.caps = OPTIM_CAP_BRACKETS | OPTIM_CAP_TRANSFER,
	.preset = "de",
	.under = "hyperband",
	.under_keys = dehb_under,
	.under_set = dehb_set,
	.hides = dehb_hides,
};
static const struct optim_ops optim_random_ops = {
	.name = "random",
	.summary = "random search at the maximum fidelity",
	.caps = OPTIM_CAP_ASHA | OPTIM_CAP_ONE_FIDELITY,
	.preset = "random",
};
static const struct optim_ops optim_tpe_ops = {
	.name = "tpe",
	.summary = "TPE (Optuna's defaults) at the maximum fidelity",
	.caps = OPTIM_CAP_ASHA | OPTIM_CAP_SEQUENTIAL | OPTIM_CAP_ONE_FIDELITY,
	.preset = "tpe",
};
static const struct optim_ops optim_cts_ops = {
	.name = "cts",
	.summary = "copula Thompson sampling from a prior fitted on earlier "
		   "studies (needs --transfer-from)",
	.caps = OPTIM_CAP_TRANSFER | OPTIM_CAP_NEEDS_TRANSFER |
		OPTIM_CAP_ONE_FIDELITY,
	.preset = "cts",
	.under = "fifo",
};
static const struct optim_ops optim_re_ops = {
	.name = "re",
	.summary = "regularized evolution at the maximum fidelity",
	.caps = OPTIM_CAP_ONE_FIDELITY,
	.preset = "re",
	.under = "fifo",
};
static const char *const de_renames[] = {"de_pop_size", "population_size",
					 NULL};
static const struct optim_ops optim_de_ops = {
	.name = "de",
	.summary = "asynchronous DE at the maximum fidelity",
	.caps = OPTIM_CAP_ONE_FIDELITY,
	.preset = "de",
	.under = "fifo",
	.renames = de_renames,
};
static const char *const bohb_under[] = {"max_active_brackets", NULL};
static const struct optim_ops optim_bohb_ops = {
	.name = "bohb",
	.summary = "BOHB: Hyperband with a KDE model per fidelity",
	.caps = OPTIM_CAP_BRACKETS,
	.preset = "kde",
	.under = "hyperband",
	.under_keys = bohb_under,
};
static const struct optim_ops optim_gp_ops = {
	.name = "gp",
	.summary = "GP-based BO (Matern-5/2 ARD, EI or Thompson sampling) "
		   "at the maximum fidelity",
	.caps = OPTIM_CAP_ASHA | OPTIM_CAP_SEQUENTIAL | OPTIM_CAP_ONE_FIDELITY,
	.preset = "gp",
};
static const struct optim_ops optim_gcp_ops = {
	.name = "gcp",
	.summary = "Gaussian copula process, with the prior of earlier studies "
		   "when given (--transfer-from)",
	.caps = OPTIM_CAP_TRANSFER | OPTIM_CAP_ASHA | OPTIM_CAP_SEQUENTIAL |
		OPTIM_CAP_ONE_FIDELITY,
	.preset = "gcp",
};

const struct optim_ops *const optim_table[] = {
	&optim_dehb_ops,	&optim_random_ops,    &optim_sh_ops,
	&optim_hyperband_ops,	&optim_de_ops,	      &optim_asha_ops,
	&optim_re_ops,		&optim_tpe_ops,	      &optim_bohb_ops,
	&optim_gp_ops,		&optim_cts_ops,	      &optim_gcp_ops,
	&optim_fifo_ops,	&optim_asha_stop_ops, &optim_hyperband_stop_ops,
	&optim_median_stop_ops, &optim_pbt_ops,	      NULL,
};

const struct optim_ops *optim_find(const char *name)
{
	int i;

	for (i = 0; name && optim_table[i]; i++)
		if (!strcmp(optim_table[i]->name, name))
			return optim_table[i];
	return NULL;
}

unsigned optim_caps(const char *name)
{
	const struct optim_ops *ops = optim_find(name);

	if (!ops)
		return 0;
	if (ops->preset)
		return ops->caps |
		       (search_multiobjective(search_find(ops->preset))
				? OPTIM_CAP_MULTIOBJECTIVE
				: 0);
	return ops->caps | (ops->rescore ? OPTIM_CAP_MULTIOBJECTIVE : 0) |
	       (ops->report ? OPTIM_CAP_STOPS : 0);
}

unsigned optim_study_caps(const char *name, const cJSON *settings)
{
	unsigned c = optim_caps(name);
	const struct search_ops *so;

	if (!(c & OPTIM_CAP_SEARCHER))
		return c;
	so = search_named(settings);
	if (so->caps & SEARCH_CAP_LEARNS)
		c |= OPTIM_CAP_SEQUENTIAL;
	if (so->caps & SEARCH_CAP_TRANSFER)
		c |= OPTIM_CAP_TRANSFER;
	if (so->caps & SEARCH_CAP_NEEDS_TRANSFER)
		c |= OPTIM_CAP_NEEDS_TRANSFER;
	if (!search_multiobjective(so))
		c &= ~(unsigned)OPTIM_CAP_MULTIOBJECTIVE;
	return c;
}

int optim_list(unsigned caps, const char *sep, char *buf, size_t size)
{
	size_t len = 0;
	int i, n;

	if (!size)
		return DEHBQ_ETOOBIG;
	buf[0] = 0;
	for (i = 0; optim_table[i]; i++) {
		if ((optim_caps(optim_table[i]->name) & caps) != caps)
			continue;
		n = snprintf(buf + len, size - len, "%s%s", len ? sep : "",
			     optim_table[i]->name);
		if (n < 0 || (size_t)n >= size - len)
			return DEHBQ_ETOOBIG;
		len += (size_t)n;
	}
	return DEHBQ_OK;
}

const char *optim_default_scheduler(void)
{
	return optim_fifo_ops.name;
}

const char *optim_default_one_fidelity(void)
{
	return optim_gp_ops.name; /* bench/README.md, "GP's hyperprior" */
}

/* A searcher's limits are the optimiser's. */
_Static_assert(SEARCH_MAX_DIM == OPTIM_MAX_DIM &&
		       SEARCH_MAX_JOB == OPTIM_MAX_ID,
	       "searcher.h's limits are optim.h's");

/* The kinds are the trial files' (one list of names: common/trial.c). */
_Static_assert((int)OPTIM_KIND_TRIAL == (int)TRIAL_KIND_TRIAL &&
		       (int)OPTIM_KIND_PROMOTION == (int)TRIAL_KIND_PROMOTION &&
		       (int)OPTIM_KIND_RANDOM == (int)TRIAL_KIND_RANDOM &&
		       (int)OPTIM_KIND_PRIOR == (int)TRIAL_KIND_PRIOR,
	       "optim_kind is trial_kind");

const char *optim_kind_name(enum optim_kind k)
{
	return trial_kind_name((enum trial_kind)k);
}

int optim_find_ops(const char *name, const struct optim_ops **ops, char *err)
{
	char names[512];

	if ((*ops = optim_find(name)))
		return DEHBQ_OK;
	optim_list(0, ", ", names, sizeof(names));
	return dehbq_errf(err, DEHBQ_EINVAL,
			  "optimizer.name: unknown optimizer '%s' (one of: %s)",
			  name ? name : "", names);
}
