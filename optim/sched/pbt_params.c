/*
 * pbt_params.c - owns pbt's settings: their names, defaults and bounds
 * (pbt_params.h)
 */
#include "pbt_params.h"

#include "err.h"
#include "held.h"
#include "ostate.h"

#include <cjson/cJSON.h>
#include <string.h>

#define PBT_MAX_POP 1024

static const char *const pbt_keys[] = {"searcher",
				       "search",
				       "population_size",
				       "quantile_fraction",
				       "resample_probability",
				       "perturbation_interval",
				       "perturbation_factors",
				       "explore",
				       NULL};

static int factors(const cJSON *in, struct pbt_params *p, char *err)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(in, "perturbation_"
							      "factors");
	double a, b;

	if (!f)
		return DEHBQ_OK;
	if (!cJSON_IsArray(f) || cJSON_GetArraySize(f) != 2 ||
	    !ostate_num(cJSON_GetArrayItem(f, 0), &a) ||
	    !ostate_num(cJSON_GetArrayItem(f, 1), &b) || !(a > 0 && a < 1) ||
	    !(b > 1 && b <= 100))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "optimizer.perturbation_factors: expected "
				  "[DOWN, UP] with 0 < DOWN < 1 < UP <= 100, "
				  "like [0.8, 1.2]");
	p->fdown = a;
	p->fup = b;
	return DEHBQ_OK;
}

static int explore_kind(const cJSON *in, struct pbt_params *p, char *err)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(in, "explore");

	p->pb2 = 0;
	if (!e)
		return DEHBQ_OK;
	if (cJSON_IsString(e) && !strcmp(e->valuestring, "pb2"))
		p->pb2 = 1;
	else if (!cJSON_IsString(e) || strcmp(e->valuestring, "perturb"))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "optimizer.explore: expected \"perturb\" "
				  "(PBT's random perturbation) or \"pb2\" "
				  "(PB2's GP bandit)");
	return DEHBQ_OK;
}

int pbt_params_read(const cJSON *in, struct pbt_params *p, char *err)
{
	int rc;

	p->pop = 8;
	p->qfrac = 0.25;
	p->resample = 0.25;
	p->interval = 0;
	p->fdown = 0.8;
	p->fup = 1.2;
	if ((rc = ostate_set_keys(in, pbt_keys, "pbt", err)) ||
	    (rc = ostate_set_int(in, "population_size", 2, PBT_MAX_POP, &p->pop,
				 err)) ||
	    (rc = ostate_set_num(in, "quantile_fraction", 0, 0.5, &p->qfrac,
				 err)) ||
	    (rc = ostate_set_num(in, "resample_probability", 0, 1, &p->resample,
				 err)) ||
	    (rc = ostate_set_num(in, "perturbation_interval", 1e-300, 1e300,
				 &p->interval, err)) ||
	    (rc = factors(in, p, err)) || (rc = explore_kind(in, p, err)))
		return rc;
	return DEHBQ_OK;
}

int pbt_params_settings(const cJSON *in, struct jsonbuf *b, char *err)
{
	struct pbt_params p;
	int rc;

	if ((rc = pbt_params_read(in, &p, err)) ||
	    (rc = held_settings(in, b, err)) || !b)
		return rc;
	jsonbuf_printf(b,
		       ",\"population_size\":%d,\"quantile_fraction\":", p.pop);
	jsonbuf_num(b, p.qfrac);
	jsonbuf_puts(b, ",\"resample_probability\":");
	jsonbuf_num(b, p.resample);
	if (p.interval > 0) { /* absent: the study's minimum fidelity */
		jsonbuf_puts(b, ",\"perturbation_interval\":");
		jsonbuf_num(b, p.interval);
	}
	jsonbuf_puts(b, ",\"perturbation_factors\":[");
	jsonbuf_num(b, p.fdown);
	jsonbuf_puts(b, ",");
	jsonbuf_num(b, p.fup);
	jsonbuf_printf(b, "],\"explore\":\"%s\"", p.pb2 ? "pb2" : "perturb");
	return jsonbuf_failed(b);
}
