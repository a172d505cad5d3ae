/*
 * search_de_prior.c - owns DEHB+prior (ours; TRANSFER_SPEC.md, "combining
 * with multi-fidelity"): the transfer prior of prior.h guiding the de
 * searcher when it fills a scheduler's rungs (dehb) and the study has
 * earlier tasks.  (Under fifo and asha de ignores earlier tasks, as 0.4's
 * de did: the dehb preset is what says it uses them, OPTIM_CAP_TRANSFER.)
 *
 *   draw:   each initial member of every level is a CTS draw (the argmin
 *           of mu(x) + sigma(x) e over prior_candidates uniform points),
 *           from the level's stream, after its uniform draws;
 *   choose: of prior_mutants DE trials, each built as DE builds one, the
 *           one of least Thompson draw mu(x) + sigma(x) e, categorical
 *           coordinates read at their cell's centre, as the prior was
 *           fitted.
 * Selection, promotions and the scheduler's decisions stay DE's.  The
 * prior is the earlier tasks' (their top fidelity) and guides every level
 * alike; it is fitted again at load (deterministic from the seed), and
 * the members are then the saved ones.
 */
#include "search_de_impl.h"

#include "err.h"
#include "jsonbuf.h"
#include "prior.h"
#include "rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct des_guide {
	struct prior *p;
	int ncand;
	int *choices; /* NULL: all continuous */
	double *cx;   /* scratch: DES_MAX_GUIDE_K * dim */
};

void des_guide_free(struct des_guide *g)
{
	if (!g)
		return;
	prior_free(g->p);
	free(g->choices);
	free(g->cx);
	free(g);
}

static int redraw(struct des *d)
{
	int k, i, rc;

	for (k = 0; k < d->L; k++) {
		struct des_level *P = &d->lv[k];

		for (i = 0; i < P->n; i++)
			if ((rc = prior_thompson(d->guide->p, &P->rng,
						 d->guide->choices, d->dim,
						 d->guide->ncand,
						 P->x + (size_t)i * d->dim)))
				return rc;
	}
	return DEHBQ_OK;
}

int des_guide_open(struct des *d, const struct search_setup *s,
		   const struct des_set *t, int draw, char *err)
{
	struct des_guide *g;
	size_t dim = (size_t)s->dim;
	int i, rc;

	if (!s->fills || !s->transfer || !s->transfer->ntasks)
		return DEHBQ_OK;
	if (!(g = calloc(1, sizeof(*g))) ||
	    !(g->cx = malloc(DES_MAX_GUIDE_K * dim * sizeof(double))) ||
	    !(d->gx = malloc((size_t)t->prior_k * dim * sizeof(double))) ||
	    (s->choices && !(g->choices = calloc(dim, sizeof(int))))) {
		des_guide_free(g);
		return dehbq_errf(err, DEHBQ_ENOMEM, "out of memory");
	}
	for (i = 0; s->choices && i < s->dim; i++)
		g->choices[i] = s->choices[i];
	g->ncand = t->prior_cand;
	if ((rc = prior_fit(s->transfer, s->dim, s->seed, t->prior_steps, &g->p,
			    err))) {
		des_guide_free(g);
		return rc;
	}
	d->guide = g;
	d->guide_k = t->prior_k;
	return draw ? redraw(d) : DEHBQ_OK;
}

int des_guide_choose(struct des *d, struct rng *r, const double *x, int k)
{
	struct des_guide *g = d->guide;
	double mu[DES_MAX_GUIDE_K], sg[DES_MAX_GUIDE_K], bz = INFINITY;
	size_t i, n = (size_t)k * (size_t)d->dim;
	int t, best = 0, fail;

	for (i = 0; i < n; i++) {
		int K = g->choices ? g->choices[i % (size_t)d->dim] : 0;

		g->cx[i] = prior_snap(x[i], K);
	}
	fail = prior_predict(g->p, g->cx, (size_t)k, mu, sg);
	for (t = 0; t < k; t++) { /* the same draws whether or not it failed */
		double e = rng_normal(r);

		if (!fail && mu[t] + sg[t] * e < bz) {
			bz = mu[t] + sg[t] * e;
			best = t;
		}
	}
	return best;
}

int des_guide_describe(const struct des *d, struct jsonbuf *b)
{
	const struct des_level *P = &d->lv[d->L - 1];
	struct prior_obs o = {0};
	int i, rc = DEHBQ_OK;

	if (!d->guide)
		return DEHBQ_OK;
	o.dim = d->dim;
	for (i = 0; !rc && i < P->n; i++)
		if (isfinite(P->fit[i]))
			rc = prior_obs_add(&o, P->x + (size_t)i * d->dim,
					   P->fit[i]);
	if (!rc) {
		jsonbuf_put(b, ",", 1);
		rc = prior_describe(d->guide->p, &o, b);
	}
	prior_obs_free(&o);
	return rc;
}
