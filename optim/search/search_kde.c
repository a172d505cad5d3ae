/*
 * search_kde.c - owns the kde searcher: BOHB's model (Falkner et al., ICML
 * 2018; kde.h), a kernel density estimator of good and of bad
 * configurations per fidelity of the scheduler's ladder, proposing where
 * their ratio is largest.  Under hyperband it is BOHB (the preset bohb).
 *
 * Settings: top_n_percent (15), num_samples (64), random_fraction (1/3),
 * bandwidth_factor (3), min_bandwidth (1e-3).  The model keeps every
 * result, and the job of each, so that a multi-objective study can
 * rescore them (a re-run's first, failed result out of reach, as gp's);
 * the state saved is its random stream alone.  Every proposal is
 * reported as a trial, random ones included (kde_propose does not say
 * which it made), as BOHB's were in 0.3.
 */
#include "searcher.h"

#include "err.h"
#include "hb.h"
#include "jsonbuf.h"
#include "kde.h"
#include "mobj.h"
#include "ostate.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>

#define KDE_SALT UINT64_C(0x9e3779b97f4a7c15) /* BOHB's model stream */

struct kdes {
	struct kde *k;
	int levels;
	double ladder[HB_MAX_LEVELS];
	int64_t *job[HB_MAX_LEVELS]; /* each result's job, as the model's */
	size_t n[HB_MAX_LEVELS], cap[HB_MAX_LEVELS];
};

static const char *const kde_keys[] = {
	"top_n_percent",    "num_samples",   "random_fraction",
	"bandwidth_factor", "min_bandwidth", NULL,
};

static int read_settings(const cJSON *in, struct kde_params *p, char *err)
{
	int rc;

	kde_params_init(p);
	if ((rc = ostate_set_keys(in, kde_keys, "kde", err)) ||
	    (rc = ostate_set_num(in, "top_n_percent", 1, 99, &p->top_n_percent,
				 err)) ||
	    (rc = ostate_set_int(in, "num_samples", 1, 100000, &p->num_samples,
				 err)) ||
	    (rc = ostate_set_num(in, "random_fraction", 0, 1,
				 &p->random_fraction, err)) ||
	    (rc = ostate_set_num(in, "bandwidth_factor", 1e-3, 1e3,
				 &p->bandwidth_factor, err)) ||
	    (rc = ostate_set_num(in, "min_bandwidth", 1e-9, 1,
				 &p->min_bandwidth, err)))
		return rc;
	return DEHBQ_OK;
}

static int kdes_settings(const cJSON *in, struct jsonbuf *b, char *err)
{
	struct kde_params p;
	int rc = read_settings(in, &p, err);

	if (rc || !b)
		return rc;
	jsonbuf_puts(b, "\"top_n_percent\":");
	jsonbuf_num(b, p.top_n_percent);
	jsonbuf_printf(
		b, ",\"num_samples\":%d,\"random_fraction\":", p.num_samples);
	jsonbuf_num(b, p.random_fraction);
	jsonbuf_puts(b, ",\"bandwidth_factor\":");
	jsonbuf_num(b, p.bandwidth_factor);
	jsonbuf_puts(b, ",\"min_bandwidth\":");
	jsonbuf_num(b, p.min_bandwidth);
	return jsonbuf_failed(b);
}

static void kdes_free(void *st)
{
	struct kdes *o = st;
	int l;

	if (!o)
		return;
	for (l = 0; l < HB_MAX_LEVELS; l++)
		free(o->job[l]);
	kde_free(o->k);
	free(o);
}

static int kdes_open(const struct search_setup *s, void **st, char *err)
{
	struct kde_params p;
	struct kdes *o;
	int rc, l;

	if ((rc = read_settings(s->settings, &p, err)))
		return rc;
	if (s->levels < 1 || s->levels > HB_MAX_LEVELS)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "kde: a ladder of 1 to %d fidelities",
				  HB_MAX_LEVELS);
	if (!(o = calloc(1, sizeof(*o))))
		return DEHBQ_ENOMEM;
	o->levels = s->levels;
	for (l = 0; l < s->levels; l++)
		o->ladder[l] = s->ladder[l];
	if ((rc = kde_new(s->dim, s->choices, s->levels, &p, s->seed ^ KDE_SALT,
			  &o->k))) {
		free(o);
		return rc;
	}
	*st = o;
	return DEHBQ_OK;
}

static int kdes_propose(void *st, double fidelity, double *vec,
			enum trial_kind *kind)
{
	(void)fidelity;
	*kind = TRIAL_KIND_TRIAL;
	return kde_propose(((struct kdes *)st)->k, vec);
}

/* A result at a fidelity of the ladder (by its exact value). */
static int kdes_observe(void *st, int64_t job, const double *vec,
			double fidelity, double loss)
{
	struct kdes *o = st;
	size_t i;
	int l, rc;

	for (l = 0; l < o->levels && o->ladder[l] != fidelity; l++)
		;
	if (l == o->levels)
		return DEHBQ_EINVAL;
	if (o->n[l] == o->cap[l]) {
		size_t c = o->cap[l] ? 2 * o->cap[l] : 32;
		int64_t *j = realloc(o->job[l], c * sizeof(*j));

		if (!j)
			return DEHBQ_ENOMEM;
		o->job[l] = j;
		o->cap[l] = c;
	}
	if ((rc = kde_observe(o->k, l, vec, loss)))
		return rc;
	for (i = o->n[l]; i-- > 0;) /* a re-run: its failure, as search_gp's */
		if (o->job[l][i] == job) {
			o->job[l][i] = -1;
			kde_set_loss(o->k, l, (int64_t)i, INFINITY);
			break;
		}
	o->job[l][o->n[l]++] = job;
	return DEHBQ_OK;
}

/* A multi-objective study's scores moved: every result's loss. */
static int kdes_rescore(void *st, const struct mobj *mo)
{
	struct kdes *o = st;
	size_t i;
	double v;
	int l;

	for (l = 0; l < o->levels; l++)
		for (i = 0; i < o->n[l]; i++)
			if (o->job[l][i] >= 0 &&
			    !isnan(v = mobj_score(mo, o->job[l][i])))
				kde_set_loss(o->k, l, (int64_t)i, v);
	return DEHBQ_OK;
}

static int kdes_save(const void *st, struct jsonbuf *b)
{
	jsonbuf_puts(b, "{\"rng\":");
	ostate_put_rng(b, kde_rng(((const struct kdes *)st)->k));
	jsonbuf_put(b, "}", 1);
	return jsonbuf_failed(b);
}

static int kdes_load(const struct search_setup *s, const cJSON *state,
		     void **st, char *err)
{
	struct kdes *o;
	int rc;

	if ((rc = kdes_open(s, (void **)&o, err)))
		return rc;
	if ((rc = ostate_get_rng(state, "rng", kde_rng(o->k), err))) {
		kdes_free(o);
		return rc;
	}
	*st = o;
	return DEHBQ_OK;
}

static int kdes_describe(const void *st, struct jsonbuf *b)
{
	const struct kdes *o = st;
	int l;

	jsonbuf_puts(b, "\"results\":[");
	for (l = 0; l < o->levels; l++)
		jsonbuf_printf(b, "%s%lld", l ? "," : "",
			       (long long)kde_count(o->k, l));
	jsonbuf_put(b, "]", 1);
	return jsonbuf_failed(b);
}

const struct search_ops search_kde_ops = {
	.name = "kde",
	.summary = "BOHB's kernel density estimators of good and bad "
		   "configurations, per fidelity",
	.caps = SEARCH_CAP_LEARNS,
	.open = kdes_open,
	.propose = kdes_propose,
	.observe = kdes_observe,
	.save = kdes_save,
	.load = kdes_load,
	.describe = kdes_describe,
	.free = kdes_free,
	.settings = kdes_settings,
	.rescore = kdes_rescore,
};
