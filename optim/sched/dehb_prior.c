/*
 * dehb_prior.c - owns DEHB+prior's guide (ours; TRANSFER_SPEC.md,
 * "combining with multi-fidelity"): the transfer prior of prior.h as the
 * engine's dehb_guide_ops.
 *
 *   draw:   each member of the initial subpopulations is a CTS draw (the
 *           argmin of mu(x) + sigma(x) e over n_candidates uniform points);
 *   choose: of k DE trials, the one of least Thompson draw
 *           mu(x) + sigma(x) e, categorical coordinates read at their
 *           cell's centre, as the prior was fitted.
 * Selection, promotions and brackets stay DEHB's.  The prior is the
 * earlier tasks' (their top fidelity) and guides every rung alike.
 */
#include "optim_dehb.h"

#include "err.h"
#include "jsonbuf.h"
#include "prior.h"
#include "rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct dprior {
	struct prior *p;
	int dim, ncand;
	int *choices; /* NULL: all continuous */
	double *cx;   /* scratch: DEHB_MAX_GUIDE_K * dim */
};

static void dp_free(void *ctx)
{
	struct dprior *c = ctx;

	if (!c)
		return;
	prior_free(c->p);
	free(c->choices);
	free(c->cx);
	free(c);
}

static int dp_draw(void *ctx, struct rng *r, double *x)
{
	struct dprior *c = ctx;

	return prior_thompson(c->p, r, c->choices, c->dim, c->ncand, x);
}

static int dp_choose(void *ctx, struct rng *r, const double *x, int k)
{
	struct dprior *c = ctx;
	double mu[DEHB_MAX_GUIDE_K], sg[DEHB_MAX_GUIDE_K], bz = INFINITY;
	size_t i, n = (size_t)k * (size_t)c->dim;
	int t, best = 0, fail;

	for (i = 0; i < n; i++) {
		int K = c->choices ? c->choices[i % (size_t)c->dim] : 0;

		c->cx[i] = prior_snap(x[i], K);
	}
	fail = prior_predict(c->p, c->cx, (size_t)k, mu, sg);
	for (t = 0; t < k; t++) { /* the same draws whether or not it failed */
		double e = rng_normal(r);

		if (!fail && mu[t] + sg[t] * e < bz) {
			bz = mu[t] + sg[t] * e;
			best = t;
		}
	}
	return best;
}

static const struct dehb_guide_ops dprior_ops = {
	.draw = dp_draw,
	.choose = dp_choose,
	.free = dp_free,
};

int optim_dehb_prior(struct dehb *d, const struct optim_setup *s, int k,
		     int ncand, int steps, int draw, char *err)
{
	struct dprior *c = calloc(1, sizeof(*c));
	int i;

	if (!c)
		return DEHBQ_ENOMEM;
	c->dim = s->dim;
	c->ncand = ncand;
	if (!(c->cx = malloc((size_t)DEHB_MAX_GUIDE_K * (size_t)s->dim *
			     sizeof(double))) ||
	    (s->choices &&
	     !(c->choices = calloc((size_t)s->dim, sizeof(int))))) {
		dp_free(c);
		return DEHBQ_ENOMEM;
	}
	for (i = 0; s->choices && i < s->dim; i++)
		c->choices[i] = s->choices[i];
	if ((i = prior_fit(s->transfer, s->dim, s->seed, steps, &c->p, err))) {
		dp_free(c);
		return i;
	}
	return dehb_set_guide(d, &dprior_ops, c, k, draw);
}

int optim_dehb_prior_describe(const struct dehb *d, struct jsonbuf *b)
{
	const struct dprior *c = dehb_guide(d);
	struct prior_obs o = {0};
	const double *x, *fit;
	int i, n, rc;

	if (!c)
		return DEHBQ_OK;
	o.dim = c->dim;
	rc = dehb_population(d, dehb_levels(d) - 1, &x, &fit, &n);
	for (i = 0; !rc && i < n; i++)
		if (isfinite(fit[i]))
			rc = prior_obs_add(&o, x + (size_t)i * (size_t)c->dim,
					   fit[i]);
	if (!rc) {
		jsonbuf_put(b, ",", 1);
		rc = prior_describe(c->p, &o, b);
	}
	prior_obs_free(&o);
	return rc;
}
