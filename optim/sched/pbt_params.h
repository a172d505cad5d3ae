/*
 * pbt_params.h - pbt's settings (optim_pbt.c): read, checked and written
 * back with their defaults
 *
 * Defaults as Ray Tune's and Syne Tune's: population_size 8,
 * quantile_fraction 0.25, resample_probability 0.25, perturbation_factors
 * [0.8, 1.2], explore "perturb"; perturbation_interval unset (the study's
 * minimum fidelity).  The settings "searcher" and "search" are held.h's.
 *
 * Errors: DEHBQ_OK, or DEHBQ_EINVAL with err naming the field.  JSON
 * arguments are borrowed.
 */
#ifndef DEHBQ_PBT_PARAMS_H
#define DEHBQ_PBT_PARAMS_H

#include "jsonbuf.h"

struct cJSON;

struct pbt_params {
	int pop, pb2;				      /* pb2: explore "pb2" */
	double qfrac, resample, interval, fdown, fup; /* interval 0: unset */
};

/* The settings in (NULL: none) into p. */
int pbt_params_read(const struct cJSON *in, struct pbt_params *p, char *err);

/* Check in and append it, defaults filled in, to b (NULL: check only). */
int pbt_params_settings(const struct cJSON *in, struct jsonbuf *b, char *err);

#endif
