/*
 * optim_dehb.c - owns the optimiser that runs on the DEHB engine (dehb.h)
 * behind the optim.h interface, dehb, and the engine's optim_ops functions
 * that sh and hyperband (optim_brackets.c) share.  (The de preset of 0.4
 * ran here too; it is the de searcher under fifo now.)
 *
 * The engine keeps its own brackets, populations and in-flight jobs; this
 * file maps settings, jobs and states.  The budget is optim.c's, except
 * --brackets, which the engine's bracket manager enforces (it opens no
 * bracket beyond the limit and finishes the open ones).
 *
 * Per-trial state: {"level":L,"slot":S,"config_id":C}, the engine's part
 * of a job that the generic fields (fidelity, bracket, rung, kind, parent)
 * do not carry; a requeue hands it back to dehb_reopen().
 */
#include "optim.h"
#include "optim_dehb.h"

#include "dehb.h"
#include "err.h"
#include "jsonbuf.h"
#include "ostate.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Settings, with the reference defaults. */
struct dsettings {
	int mutation, crossover, boundary; /* dehb.h enums */
	double mutation_factor, crossover_prob;
	int max_active_brackets;
	int prior_mutants, prior_candidates, prior_steps; /* dehb+prior */
};

static const char *const dehb_keys[] = {
	"mutation",	  "crossover",
	"boundary",	  "mutation_factor",
	"crossover_prob", "max_active_brackets",
	"prior_mutants",  "prior_candidates",
	"prior_steps",	  NULL,
};
static const char *const sh_keys[] = {"max_active_brackets", NULL};

static int dsettings_read(enum dehb_optimizer which, const cJSON *in,
			  struct dsettings *s, char *err)
{
	const char *const *keys = which == DEHB_OPT_DEHB ? dehb_keys : sh_keys;
	const char *name = dehb_optimizer_name(which);
	int rc;

	memset(s, 0, sizeof(*s));
	s->mutation_factor = 0.5;
	s->crossover_prob = 0.5;
	s->prior_mutants = 8;
	s->prior_candidates = 2000;
	s->prior_steps = 1000;
	if ((rc = ostate_set_keys(in, keys, name, err)) ||
	    (rc = ostate_set_choice(in, "mutation", de_mutation_names,
				    &s->mutation, err)) ||
	    (rc = ostate_set_choice(in, "crossover", de_crossover_names,
				    &s->crossover, err)) ||
	    (rc = ostate_set_choice(in, "boundary", de_boundary_names,
				    &s->boundary, err)) ||
	    (rc = ostate_set_num(in, "mutation_factor", 1e-9, 2,
				 &s->mutation_factor, err)) ||
	    (rc = ostate_set_num(in, "crossover_prob", 0, 1, &s->crossover_prob,
				 err)) ||
	    (rc = ostate_set_int(in, "max_active_brackets", 0, 1000000,
				 &s->max_active_brackets, err)) ||
	    (rc = ostate_set_int(in, "prior_mutants", 1, DEHB_MAX_GUIDE_K,
				 &s->prior_mutants, err)) ||
	    (rc = ostate_set_int(in, "prior_candidates", 1, 100000,
				 &s->prior_candidates, err)) ||
	    (rc = ostate_set_int(in, "prior_steps", 1, 100000, &s->prior_steps,
				 err)))
		return rc;
	return DEHBQ_OK;
}

static int dsettings_write(enum dehb_optimizer which, const cJSON *in,
			   struct jsonbuf *b, char *err)
{
	struct dsettings s;
	int rc = dsettings_read(which, in, &s, err);

	if (rc)
		return rc;
	if (which == DEHB_OPT_DEHB) {
		jsonbuf_puts(b, "\"mutation\":");
		jsonbuf_str(b, de_mutation_names[s.mutation]);
		jsonbuf_puts(b, ",\"crossover\":");
		jsonbuf_str(b, de_crossover_names[s.crossover]);
		jsonbuf_puts(b, ",\"boundary\":");
		jsonbuf_str(b, de_boundary_names[s.boundary]);
		jsonbuf_puts(b, ",\"mutation_factor\":");
		jsonbuf_num(b, s.mutation_factor);
		jsonbuf_puts(b, ",\"crossover_prob\":");
		jsonbuf_num(b, s.crossover_prob);
		jsonbuf_printf(b,
			       ",\"max_active_brackets\":%d,"
			       "\"prior_mutants\":%d,"
			       "\"prior_candidates\":%d,\"prior_steps\":%d",
			       s.max_active_brackets, s.prior_mutants,
			       s.prior_candidates, s.prior_steps);
	} else {
		jsonbuf_puts(b, "\"max_active_brackets\":");
		jsonbuf_int(b, s.max_active_brackets);
	}
	return jsonbuf_failed(b);
}

int optim_dehb_open_as(enum dehb_optimizer which, const struct optim_setup *su,
		       void **st, char *err)
{
	struct dehb_params p;
	struct dsettings s;
	int rc;

	if ((rc = dsettings_read(which, su->settings, &s, err)))
		return rc;
	dehb_params_init(&p);
	p.optimizer = which;
	p.dim = su->dim;
	p.min_fidelity = su->min_fidelity;
	p.max_fidelity = su->max_fidelity;
	p.eta = su->eta;
	p.mutation = (enum de_mutation)s.mutation;
	p.crossover = (enum de_crossover)s.crossover;
	p.boundary = (enum de_boundary)s.boundary;
	p.mutation_factor = s.mutation_factor;
	p.crossover_prob = s.crossover_prob;
	p.seed = su->seed;
	p.max_brackets = su->lim.brackets;
	p.max_active_brackets = s.max_active_brackets;
	if ((rc = dehb_new(&p, (struct dehb **)st, err)))
		return rc;
	if (which == DEHB_OPT_DEHB && su->transfer && su->transfer->ntasks &&
	    (rc = optim_dehb_prior(*st, su, s.prior_mutants, s.prior_candidates,
				   s.prior_steps, 1, err))) {
		dehb_free(*st);
		*st = NULL;
	}
	return rc;
}

int optim_dehb_ask(void *st, struct optim_job *job, double *vec)
{
	struct dehb_job j;
	int rc = dehb_ask(st, &j, vec);

	if (rc)
		return rc;
	job->fidelity = j.fidelity;
	job->bracket = j.bracket;
	job->rung = j.rung;
	job->kind = (enum optim_kind)j.kind; /* both are trial_kind's */
	if (j.kind == DEHB_KIND_TRIAL && dehb_guide(st)) /* DEHB+prior */
		job->kind = OPTIM_KIND_PRIOR;
	job->parent = j.parent_job;
	snprintf(job->state, sizeof(job->state),
		 "{\"level\":%d,\"slot\":%d,\"config_id\":%" PRId64 "}",
		 j.level, j.slot, j.config_id);
	return DEHBQ_OK;
}

int optim_dehb_tell(void *st, const struct optim_job *job, const double *vec,
		    enum optim_status status, double loss, double cost)
{
	(void)vec;
	return dehb_tell(st, job->id,
			 status == OPTIM_OK ? DEHB_OK : DEHB_FAILED, loss,
			 cost);
}

int optim_dehb_reopen(void *st, const struct optim_job *job, const double *vec)
{
	cJSON *s = cJSON_Parse(job->state);
	struct dehb_job j;
	int64_t level, slot, cid;
	int rc = DEHBQ_EINVAL;

	memset(&j, 0, sizeof(j));
	if (s && ostate_get_i64(s, "level", 0, 63, &level, NULL) == DEHBQ_OK &&
	    ostate_get_i64(s, "slot", -1, INT32_MAX, &slot, NULL) == DEHBQ_OK &&
	    ostate_get_i64(s, "config_id", 0, OPTIM_MAX_ID, &cid, NULL) ==
		    DEHBQ_OK &&
	    dehb_level_fidelity(st, (int)level) == job->fidelity) {
		j.id = job->id;
		j.level = (int)level;
		j.fidelity = job->fidelity;
		j.bracket = job->bracket;
		j.rung = job->rung;
		j.kind = (enum dehb_kind)job->kind;
		j.slot = (int)slot;
		j.config_id = cid;
		j.parent_job = job->parent;
		rc = dehb_reopen(st, &j, vec);
	}
	cJSON_Delete(s);
	return rc;
}

int64_t optim_dehb_brackets(const void *st)
{
	struct dehb_counts c;

	dehb_get_counts(st, &c);
	return c.brackets;
}

int optim_dehb_done(const void *st)
{
	return dehb_exhausted(st);
}

static int d_save(const void *st, struct jsonbuf *b)
{
	return dehb_save(st, b);
}

static int d_load(const struct optim_setup *su, const cJSON *state, void **st,
		  char *err)
{
	struct dehb *d;
	const struct dehb_params *p;
	struct dsettings s;
	int rc = dehb_load(state, &d, err);

	if (rc)
		return rc;
	p = dehb_get_params(d);
	if (p->dim != su->dim || p->seed != su->seed ||
	    p->max_brackets != su->lim.brackets) {
		dehb_free(d);
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: the engine's parameters do not "
				  "match the optimizer's setup");
	}
	/* DEHB+prior: the prior again (its populations are the saved ones) */
	if (p->optimizer == DEHB_OPT_DEHB && su->transfer &&
	    su->transfer->ntasks &&
	    ((rc = dsettings_read(DEHB_OPT_DEHB, su->settings, &s, err)) ||
	     (rc = optim_dehb_prior(d, su, s.prior_mutants, s.prior_candidates,
				    s.prior_steps, 0, err)))) {
		dehb_free(d);
		return rc;
	}
	*st = d;
	return DEHBQ_OK;
}

/* The bracket limit grew (dehbq extend); the engine enforces it. */
int optim_dehb_limits(void *st, const struct optim_limits *lim)
{
	struct dehb *d = st;

	if (dehb_get_params(d)->max_brackets == lim->brackets)
		return DEHBQ_OK;
	return dehb_extend(d, lim->brackets);
}

/* Active brackets by rung, for status.json and `dehbq status`. */
int optim_dehb_describe(const void *st, struct jsonbuf *b)
{
	struct dehb_rung_info r[64];
	int64_t id;
	int i, k, nr, n = dehb_active_brackets(st);

	jsonbuf_puts(b, "\"brackets\":[");
	for (i = 0; i < n; i++) {
		if (dehb_bracket_info(st, i, &id, r, 64, &nr))
			continue;
		jsonbuf_printf(b, "%s{\"id\":%" PRId64 ",\"rungs\":[",
			       i ? "," : "", id);
		for (k = 0; k < nr; k++) {
			jsonbuf_printf(b, "%s{\"fidelity\":", k ? "," : "");
			jsonbuf_num(b, r[k].fidelity);
			jsonbuf_printf(b,
				       ",\"n\":%d,\"pending\":%d,\"done\":%d}",
				       r[k].n, r[k].pending, r[k].done);
		}
		jsonbuf_puts(b, "]}");
	}
	jsonbuf_put(b, "]", 1);
	return jsonbuf_failed(b) ? DEHBQ_ENOMEM
				 : optim_dehb_prior_describe(st, b);
}

static int d_rescore(void *st, const struct mobj *mo)
{
	return dehb_rescore(st, mo);
}

static void d_free(void *st)
{
	dehb_free(st);
}

static int dehb_settings(const cJSON *in, struct jsonbuf *b, char *err)
{
	return dsettings_write(DEHB_OPT_DEHB, in, b, err);
}

static int dehb_open(const struct optim_setup *su, void **st, char *err)
{
	return optim_dehb_open_as(DEHB_OPT_DEHB, su, st, err);
}

const struct optim_ops optim_dehb_ops = {
	.name = "dehb",
	.summary = "DEHB: differential evolution in Hyperband brackets "
		   "(default)",
	.caps = OPTIM_CAP_BRACKETS | OPTIM_CAP_TRANSFER,
	.settings = dehb_settings,
	.open = dehb_open,
	.ask = optim_dehb_ask,
	.tell = optim_dehb_tell,
	.reopen = optim_dehb_reopen,
	.brackets = optim_dehb_brackets,
	.done = optim_dehb_done,
	.limits = optim_dehb_limits,
	.save = d_save,
	.load = d_load,
	.describe = optim_dehb_describe,
	.rescore = d_rescore,
	.free = d_free,
};
