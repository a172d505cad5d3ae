/*
 * held.c - owns a scheduler's searcher (held.h): its settings, its
 * opening and loading, its part of a snapshot and of status.json
 */
#include "held.h"

#include "err.h"
#include "jsonbuf.h"
#include "ostate.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

/*
 * A searcher names its fields as a preset's (optimizer.K); under a
 * scheduler they are optimizer.search.K.
 */
static int in_search(char *err, int rc)
{
	static const char pre[] = "optimizer.";
	char tmp[DEHBQ_ERRLEN];

	if (!strncmp(err, pre, sizeof(pre) - 1) &&
	    strncmp(err, "optimizer.search.", 17) &&
	    strncmp(err, "optimizer.search:", 17)) {
		snprintf(tmp, sizeof(tmp), "optimizer.search.%s",
			 err + sizeof(pre) - 1);
		memcpy(err, tmp, sizeof(tmp));
	}
	return rc;
}

int held_settings(const cJSON *in, struct jsonbuf *out, char *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(in, "searcher");
	const struct search_ops *so = search_table[0];
	char list[256];
	int rc;

	if (v && !(cJSON_IsString(v) && (so = search_find(v->valuestring)))) {
		search_list(0, ", ", list, sizeof(list));
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "optimizer.searcher: must be one of %s",
				  list);
	}
	v = cJSON_GetObjectItemCaseSensitive(in, "search");
	if (out)
		jsonbuf_printf(out, "\"searcher\":\"%s\"", so->name);
	if (out && so->settings)
		jsonbuf_puts(out, ",\"search\":{");
	if ((rc = search_settings(so, v, so->settings ? out : NULL, err)))
		return in_search(err, rc);
	if (out && so->settings)
		jsonbuf_put(out, "}", 1);
	return out ? jsonbuf_failed(out) : DEHBQ_OK;
}

int held_open(const struct optim_setup *s, const double *ladder, int levels,
	      int rungs, const struct rng *stream, const cJSON *state,
	      struct held *h, char *err)
{
	const struct search_ops *so = search_named(s->settings);
	const cJSON *ss = state;
	struct search_setup u;
	const char *name;
	char list[128];
	int rc;

	h->so = NULL;
	h->ss = NULL;
	h->replaying = 0;
	if (s->nobj && !search_multiobjective(so))
		return dehbq_errf(err, DEHBQ_EUNSUP,
				  "objectives: the %s searcher cannot run a "
				  "multi-objective study",
				  so->name);
	if (rungs == 2 && !so->propose_at) {
		search_list(SEARCH_CAP_FILLS, ", ", list, sizeof(list));
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "optimizer.searcher: %s cannot fill every "
				  "rung (promotion 'searcher'); use %s, or "
				  "promotion 'rank'",
				  so->name, list);
	}
	if (state && cJSON_GetObjectItemCaseSensitive(state, "search")) {
		if ((rc = ostate_get_str(state, "searcher", &name, err)) ||
		    (rc = ostate_get_obj(state, "search", &ss, err)))
			return rc;
		if (strcmp(name, so->name))
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "snapshot: its searcher '%.40s' is "
					  "not the study's ('%s')",
					  name, so->name);
	}
	u.dim = s->dim;
	u.choices = s->choices;
	u.seed = s->seed;
	u.min_fidelity = s->min_fidelity;
	u.max_fidelity = s->max_fidelity;
	u.eta = s->eta;
	u.settings = cJSON_GetObjectItemCaseSensitive(s->settings, "search");
	u.ladder = ladder;
	u.levels = levels;
	u.rungs = rungs > 0;
	u.fills = rungs == 2;
	u.transfer = s->transfer;
	u.stream = stream;
	if ((rc = search_settings(so, u.settings, NULL, err)) ||
	    (rc = state ? so->load(&u, ss, &h->ss, err)
			: so->open(&u, &h->ss, err)))
		return rc;
	h->so = so;
	return DEHBQ_OK;
}

int held_save(const struct held *h, struct jsonbuf *b)
{
	int rc;

	jsonbuf_printf(b, "\"searcher\":\"%s\",\"search\":", h->so->name);
	rc = h->so->save(h->ss, b);
	return rc ? rc : jsonbuf_failed(b);
}

int held_describe(const struct held *h, struct jsonbuf *b)
{
	jsonbuf_printf(b, "\"searcher\":\"%s\",\"search\":{", h->so->name);
	if (h->so->describe(h->ss, b))
		return DEHBQ_ENOMEM;
	jsonbuf_put(b, "}", 1);
	return jsonbuf_failed(b);
}

int held_rescore(struct held *h, const struct mobj *mo)
{
	if (h->so->rescore)
		return h->so->rescore(h->ss, mo);
	return h->so->caps & SEARCH_CAP_LEARNS ? DEHBQ_EUNSUP : DEHBQ_OK;
}

int held_issued(struct held *h, const struct optim_job *job, const double *vec)
{
	if (!h->so || !h->so->issued ||
	    (h->replaying && (h->so->caps & SEARCH_CAP_KEEPS)))
		return DEHBQ_OK;
	return h->so->issued(h->ss, (int64_t)job->id, vec, job->fidelity);
}

int held_observe(struct held *h, const struct optim_job *job, const double *vec,
		 double loss)
{
	if (!h->so->observe ||
	    (h->replaying && (h->so->caps & SEARCH_CAP_KEEPS)))
		return DEHBQ_OK;
	return h->so->observe(h->ss, (int64_t)job->id, vec, job->fidelity,
			      loss);
}

int held_history(const cJSON *settings)
{
	const struct search_ops *so = search_named(settings);

	/* one that keeps its state saved its jobs in flight too */
	return so->loaded ||
	       (!(so->caps & SEARCH_CAP_KEEPS) && (so->observe || so->issued));
}

int held_replay(struct held *h, const struct optim_job *job)
{
	h->replaying = job != NULL;
	if (job || !h->so || !h->so->loaded)
		return DEHBQ_OK;
	return h->so->loaded(h->ss);
}

void held_free(struct held *h)
{
	if (h->so)
		h->so->free(h->ss);
	h->so = NULL;
	h->ss = NULL;
}
