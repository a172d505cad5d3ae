/*
 * preset.c - owns the presets: an entry of optim_table that names a
 * searcher (optim_ops.preset) and runs it under a scheduler.
 *
 * A preset's settings are its searcher's, plus "multi_fidelity": "none"
 * runs the searcher under the default scheduler (fifo: every proposal at
 * the maximum fidelity), "asha" under asha.  So {"name":"tpe",
 * "multi_fidelity":"asha","n_startup_trials":5} runs as {"name":"asha",
 * "searcher":"tpe","search":{"n_startup_trials":5}}, and the study.json
 * and snapshots of 0.3, which named tpe or gp, open unchanged.
 */
#include "optim.h"
#include "optim_impl.h"

#include "err.h"
#include "jsonbuf.h"
#include "ostate.h"

#include <cjson/cJSON.h>
#include <string.h>

/* multi_fidelity's choices, and the scheduler each runs under */
static const char *const mf_names[] = {"none", "asha", NULL};

/* The searcher's settings: a copy of in without "multi_fidelity". */
static int search_part(const cJSON *in, cJSON **out)
{
	if (!(*out = in ? cJSON_Duplicate(in, 1) : cJSON_CreateObject()))
		return DEHBQ_ENOMEM;
	cJSON_DeleteItemFromObjectCaseSensitive(*out, "multi_fidelity");
	return DEHBQ_OK;
}

/* A preset's searcher, and multi_fidelity's index into mf. */
static int preset_read(const struct optim_ops *ops, const cJSON *in,
		       const struct search_ops **so, cJSON **ss, int *mf,
		       char *err)
{
	int rc;

	*mf = 0;
	*ss = NULL;
	if (!(*so = search_find(ops->preset)))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "optimizer: the preset %s names no "
				  "searcher",
				  ops->name);
	if ((rc = ostate_set_choice(in, "multi_fidelity", mf_names, mf, err)))
		return rc;
	if ((rc = search_part(in, ss)))
		return dehbq_errf(err, rc, "out of memory");
	if ((rc = search_settings(*so, *ss, NULL, err))) {
		cJSON_Delete(*ss);
		*ss = NULL;
	}
	return rc;
}

int optim_preset_settings(const struct optim_ops *ops, const cJSON *in,
			  struct jsonbuf *out, char *err)
{
	const struct search_ops *so;
	cJSON *ss;
	int rc, mf;

	if ((rc = preset_read(ops, in, &so, &ss, &mf, err)))
		return rc;
	rc = search_settings(so, ss, out, err);
	cJSON_Delete(ss);
	if (rc)
		return rc;
	jsonbuf_printf(out, "%s\"multi_fidelity\":\"%s\"",
		       so->settings ? "," : "", mf_names[mf]);
	return jsonbuf_failed(out);
}

int optim_preset_resolve(const struct optim_ops *ops, const cJSON *in,
			 const struct optim_ops **run, cJSON **composed,
			 char *err)
{
	const struct search_ops *so;
	cJSON *ss, *c;
	int rc, mf;

	*run = ops;
	*composed = NULL;
	if (!ops->preset)
		return DEHBQ_OK;
	if ((rc = preset_read(ops, in, &so, &ss, &mf, err)))
		return rc;
	*run = optim_find(mf ? mf_names[mf] : optim_default_scheduler());
	if (!(c = cJSON_CreateObject()) ||
	    !cJSON_AddStringToObject(c, "searcher", so->name) ||
	    !cJSON_AddItemToObject(c, "search", ss)) {
		cJSON_Delete(ss);
		cJSON_Delete(c);
		return dehbq_errf(err, DEHBQ_ENOMEM, "out of memory");
	}
	*composed = c;
	return DEHBQ_OK;
}
