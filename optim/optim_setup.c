/*
 * optim_setup.c - owns checking what an optimiser is opened with: its
 * settings with every default filled in, the setup (dimensions,
 * fidelities, limits, objectives) and whether the optimiser can run the
 * study's fidelities.  optim.c opens; this file only says yes or why not.
 */
#include "optim.h"
#include "optim_impl.h"

#include "err.h"
#include "hb.h"
#include "jsonbuf.h"
#include "mobj.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

int optim_settings(const char *name, const cJSON *in, cJSON **out, char *err)
{
	const struct optim_ops *ops;
	struct jsonbuf b;
	int rc;

	*out = NULL;
	if ((rc = optim_find_ops(name, &ops, err)))
		return rc;
	if (in && !cJSON_IsObject(in))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "optimizer: must be an object");
	jsonbuf_init(&b);
	jsonbuf_put(&b, "{", 1);
	if ((rc = ops->preset ? optim_preset_settings(ops, in, &b, err)
			      : ops->settings(in, &b, err))) {
		jsonbuf_free(&b);
		return rc;
	}
	jsonbuf_put(&b, "}", 1);
	if (jsonbuf_failed(&b) || !(*out = cJSON_Parse(b.p)))
		rc = dehbq_errf(err, DEHBQ_ENOMEM, "out of memory");
	jsonbuf_free(&b);
	return rc;
}

int optim_fidelities(double min_f, double max_f, double eta, double *fid,
		     int cap, int *n)
{
	double all[HB_MAX_LEVELS];
	int L, i, rc;

	if ((rc = hb_levels(min_f, max_f, eta, &L)))
		return rc;
	hb_fidelities(max_f, eta, L, all);
	for (i = 0; i < L && i < cap; i++)
		fid[i] = all[i];
	*n = L;
	return DEHBQ_OK;
}

int optim_setup_check(const struct optim_setup *s, char *err)
{
	const struct optim_limits *l = &s->lim;
	int L, i;

	if (s->dim < 1 || s->dim > OPTIM_MAX_DIM)
		return dehbq_errf(err, DEHBQ_EINVAL, "dim: must be in 1..%d",
				  OPTIM_MAX_DIM);
	if (!(isfinite(s->min_fidelity) && s->min_fidelity > 0 &&
	      isfinite(s->max_fidelity) && s->max_fidelity >= s->min_fidelity))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "fidelity: need 0 < min <= max, finite");
	if (!(isfinite(s->eta) && s->eta > 1))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "eta: must be finite and > 1");
	if (hb_levels(s->min_fidelity, s->max_fidelity, s->eta, &L))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "fidelity: more than %d levels from min to "
				  "max with this eta",
				  HB_MAX_LEVELS);
	if (s->seed > (uint64_t)OPTIM_MAX_ID)
		return dehbq_errf(err, DEHBQ_EINVAL, "seed: must be < 2^53");
	if (l->fevals < 0 || l->fevals > OPTIM_MAX_ID || l->brackets < 0 ||
	    l->brackets > OPTIM_MAX_ID || !isfinite(l->cost) || l->cost < 0 ||
	    !isfinite(l->walltime) || l->walltime < 0)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "termination: limits must be finite, >= 0 "
				  "and below 2^53");
	for (i = 0; s->choices && i < s->dim; i++)
		if (s->choices[i] < 0)
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "choices[%d]: must be >= 0", i);
	if (s->nobj && (s->nobj < 2 || s->nobj > MOBJ_MAX))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "objectives: need 0 or 2..%d", MOBJ_MAX);
	for (i = 0; s->nobj && s->obj_weights && i < s->nobj; i++)
		if (!(isfinite(s->obj_weights[i]) && s->obj_weights[i] > 0))
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "objectives[%d].weight: must be "
					  "finite and > 0",
					  i);
	if (s->nobj && !mobj_mode_name(s->scalarise))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "objectives: unknown scalarisation");
	return DEHBQ_OK;
}

int optim_fidelity_check(const struct optim_ops *entry,
			 const struct optim_ops *ops,
			 const struct optim_setup *s, char *err)
{
	char names[256];

	if (s->min_fidelity < s->max_fidelity ||
	    (ops->caps & OPTIM_CAP_ONE_FIDELITY))
		return DEHBQ_OK;
	optim_list(OPTIM_CAP_ONE_FIDELITY, ", ", names, sizeof(names));
	return dehbq_errf(err, DEHBQ_EINVAL,
			  "fidelity: the %s optimizer%s%s needs a range of "
			  "fidelities (min < max), and this study has one "
			  "(%g); with one fidelity use one of: %s",
			  entry->name, ops != entry ? " under " : "",
			  ops != entry ? ops->name : "", s->max_fidelity,
			  names);
}

int optim_check_fidelity(const char *name, const cJSON *settings, double min_f,
			 double max_f, char *err)
{
	const struct optim_ops *entry, *ops;
	struct optim_setup su;
	cJSON *composed = NULL;
	int rc;

	memset(&su, 0, sizeof(su));
	su.min_fidelity = min_f;
	su.max_fidelity = max_f;
	if ((rc = optim_find_ops(name, &entry, err)) ||
	    (rc = optim_preset_resolve(entry, settings, &ops, &composed, err)))
		return rc;
	cJSON_Delete(composed);
	return optim_fidelity_check(entry, ops, &su, err);
}
