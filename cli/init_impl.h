/*
 * init_impl.h - what init.c (the command) and init_opt.c (what its options
 * say about the optimiser) share: the options, their values, the usage
 *
 * Internal to cli/.  Every function returns a CLI_* exit code and prints
 * its own message (cli_usage_error, cli_fail).
 */
#ifndef DEHBQ_INIT_IMPL_H
#define DEHBQ_INIT_IMPL_H

#include <getopt.h>

#include "objectives.h"

struct spec;
struct transfer;

extern const char cli_init_usage[];

enum {
	OPT_SPEC = 256,
	OPT_SPACE,
	OPT_MIN,
	OPT_MAX,
	OPT_BUDGET,
	OPT_ETA,
	OPT_FEVALS,
	OPT_BRACKETS,
	OPT_WALLTIME,
	OPT_COST,
	OPT_SEED,
	OPT_OPTIMIZER,
	OPT_MF,
	OPT_SAMPLER,
	OPT_SCHEDULER,
	OPT_SEARCHER,
	OPT_PREFETCH,
	OPT_INFLIGHT,
	OPT_NAME,
	OPT_LEASE,
	OPT_POLL,
	OPT_ATTEMPTS,
	OPT_FAILURES,
	OPT_OBJECTIVE,
	OPT_SCALARISE,
	OPT_SELECTION,
	OPT_TRANSFER,
};

#define INIT_MAX_TRANSFER 256 /* --transfer-from sources */

/* Option values, applied over the spec after it is loaded. */
struct init_over {
	const char *opt[OPT_TRANSFER + 1]; /* raw value per option, or NULL */
	const char *objv[OBJECTIVES_MAX + 1]; /* every --objective */
	int nobj;
	char *trv[INIT_MAX_TRANSFER + 1]; /* every --transfer-from */
	int ntr;
};

/* option --name's value val is not want: the usage error. */
int cli_init_bad_opt(const char *name, const char *val, const char *want);
/* --optimizer, --multi-fidelity, --sampler, --scheduler, --searcher. */
int cli_init_optimizer_opt(struct spec *s, const struct init_over *o,
			   const struct option *op, const char *v);
/* The optimiser's settings checked, with every default, into s; err says
 * why not (prefixed with file). */
/* A study of one fidelity needs an optimiser that can run one; err
 * names file and the optimisers that can. */
/* A study of one fidelity whose spec and options name no optimiser runs
 * the default for one (optim_default_one_fidelity). */
void cli_init_one_fidelity_default(struct spec *s, const struct init_over *o);
int cli_init_check_fidelity(const struct spec *s, const char *file, char *err);
int cli_init_optimizer_settings(struct spec *s, const char *file, char *err);
/*
 * runtime.prefetch when neither the spec nor --prefetch gives it: 0 for
 * an optimiser that proposes from a model of every result
 * (OPTIM_CAP_SEQUENTIAL: its next proposal waits for the last result), 1
 * for the rest.  Says so when it chooses 0.
 */
void cli_init_prefetch_default(struct spec *s, const struct init_over *o);
/* A multi-objective study needs an optimiser that can run one. */
int cli_init_check_objectives(const struct spec *s);
/* Earlier tasks only for an optimiser that uses them; some need them. */
int cli_init_check_transfer(const struct spec *s, const struct transfer *tr);

#endif
