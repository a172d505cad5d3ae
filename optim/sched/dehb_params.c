/*
 * dehb_params.c - owns the DEHB engine's parameters: defaults, validation,
 * the fidelity ladder and the largest rung they imply
 */
#include "dehb.h"

#include "dehb_impl.h"
#include "err.h"
#include "hb.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
int dehb_extend(struct dehb *d, int64_t max_brackets)
{
	if (d->p.max_brackets == 0 || max_brackets < d->p.max_brackets ||
	    max_brackets > DEHB_MAX_ID)
		return DEHBQ_EINVAL;
	d->p.max_brackets = max_brackets;
	return DEHBQ_OK;
}

void dehb_params_init(struct dehb_params *p)
{
	memset(p, 0, sizeof(*p));
	p->optimizer = DEHB_OPT_DEHB;
	p->dim = 1;
	p->min_fidelity = 1;
	p->max_fidelity = 27;
	p->eta = 3;
}

int dehb_max_rung(const struct dehb_params *p, int nlevels, int *maxrung)
{
	int hbpop[HB_MAX_LEVELS];
	int k, rc;

	rc = hb_pop_sizes(nlevels, p->eta, hbpop);
	if (rc != DEHBQ_OK)
		return rc;
	*maxrung = 0;
	for (k = 0; k < nlevels; k++)
		if (hbpop[k] > *maxrung)
			*maxrung = hbpop[k];
	return DEHBQ_OK;
}

int dehb_params_check(const struct dehb_params *p, char *err)
{
	int nlevels, maxrung, rc;

	if ((unsigned)p->optimizer > DEHB_OPT_HYPERBAND)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "optimizer: unknown value %d",
				  (int)p->optimizer);
	if (p->dim < 1 || p->dim > DEHB_MAX_DIM)
		return dehbq_errf(err, DEHBQ_EINVAL, "dim: %d not in 1..%d",
				  p->dim, DEHB_MAX_DIM);
	if (!isfinite(p->min_fidelity) || p->min_fidelity <= 0)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "min_fidelity: must be finite and > 0");
	if (!isfinite(p->max_fidelity) || p->max_fidelity <= p->min_fidelity)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "max_fidelity: must be finite and > "
				  "min_fidelity");
	if (!isfinite(p->eta) || p->eta <= 1)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "eta: must be finite and > 1");
	if (p->max_brackets < 0 || p->max_brackets > DEHB_MAX_ID)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "max_brackets: must be in 0..2^53");
	if (p->max_active_brackets < 0)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "max_active_brackets: must be >= 0");
	rc = hb_levels(p->min_fidelity, p->max_fidelity, p->eta, &nlevels);
	if (rc != DEHBQ_OK)
		return dehbq_errf(err, rc,
				  "max_fidelity/min_fidelity: more "
				  "than %d levels for this eta",
				  HB_MAX_LEVELS);
	rc = dehb_max_rung(p, nlevels, &maxrung);
	if (rc != DEHBQ_OK)
		return dehbq_errf(err, rc, "eta: rung sizes exceed %d jobs",
				  HB_MAX_RUNG);
	if ((long)maxrung * p->dim > DEHB_MAX_CELLS)
		return dehbq_errf(err, DEHBQ_ETOOBIG,
				  "dim: rungs of %d x %d doubles are too "
				  "large",
				  maxrung, p->dim);
	return DEHBQ_OK;
}

int dehb_fidelities(double min_f, double max_f, double eta, double *fid,
		    int cap, int *n)
{
	double all[HB_MAX_LEVELS];
	int nlevels, k, rc;

	*n = 0;
	rc = hb_levels(min_f, max_f, eta, &nlevels);
	if (rc != DEHBQ_OK)
		return rc;
	hb_fidelities(max_f, eta, nlevels, all);
	for (k = 0; k < nlevels && k < cap; k++)
		fid[k] = all[k];
	*n = nlevels;
	return nlevels > cap ? DEHBQ_ETOOBIG : DEHBQ_OK;
}

int dehb_uses_brackets(const struct dehb *d)
{
	return d->p.optimizer == DEHB_OPT_DEHB ? 1 : 2;
}
