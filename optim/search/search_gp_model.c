/*
 * search_gp_model.c - owns the GP searcher's proposals (search_gp.c owns
 * the rest): the window of results the model sees, its outputs, the
 * refit schedule, the kriging believers for jobs in flight, the
 * candidates (uniform and local) and the acquisition's choice among them
 */
#include "search_gp_impl.h"

#include "acq.h"
#include "slice.h"
#include "copula.h"
#include "err.h"
#include "gp.h"
#include "rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the model's data: window, outputs, believers ---- */

static int by_loss(const void *a, const void *b, void *ctx)
{
	const double *loss = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (loss[i] != loss[j])
		return loss[i] < loss[j] ? -1 : 1;
	return i < j ? -1 : i > j;
}

static int by_index(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	return i < j ? -1 : i > j;
}

/*
 * Result i is in the model at level: a result at that fidelity, or a
 * failure at any.  Failures count at the worst loss (outputs()), so that
 * a failing or forbidden region is learnt, not proposed again; a
 * configuration that fails fails at every fidelity (under asha or a
 * stopping scheduler a forbidden proposal fails at the lowest rung, and
 * a model of the top one that did not see it proposed it again, without
 * end).
 */
static int at(const struct gpo *g, size_t i, double level)
{
	return g->fid[i] == level || !isfinite(g->loss[i]);
}

/*
 * The window into g->win (observation indices, ascending): every result
 * at fidelity level, or beyond max_points the best half and the most
 * recent rest.  Returns its size; *nf the results at the level.
 */
static size_t window(struct gpo *g, double level, size_t *nf)
{
	size_t i, f = 0, h, w;

	for (i = 0; i < g->n; i++)
		if (at(g, i, level))
			g->win[f++] = i;
	*nf = f;
	if (f <= (size_t)g->maxp)
		return f;
	qsort_r(g->win, f, sizeof(size_t), by_loss, g->loss);
	h = (size_t)g->maxp / 2;
	qsort(g->win, h, sizeof(size_t), by_index);
	w = h;
	for (i = g->n; i-- > 0 && w < (size_t)g->maxp;)
		if (at(g, i, level) &&
		    !bsearch(&i, g->win, h, sizeof(size_t), by_index))
			g->win[w++] = i;
	qsort(g->win, w, sizeof(size_t), by_index);
	return w;
}

/* The window's outputs into g->fy, standardised or through psi. */
static int outputs(struct gpo *g, double level, size_t w, size_t nf)
{
	size_t i, k;
	double m = 0, v = 0, sd, worst = -INFINITY;
	int rc;

	if (g->out == OUT_COPULA) { /* psi puts a failure at the top */
		double *fl = malloc(nf * sizeof(double));
		size_t *fi = malloc(nf * sizeof(size_t));

		rc = DEHBQ_ENOMEM;
		if (fl && fi) {
			for (i = k = 0; i < g->n; i++)
				if (at(g, i, level)) {
					fi[k] = i;
					fl[k++] = g->loss[i];
				}
			if (!(rc = copula_psi(fl, nf, g->z)))
				/* the window is a subsequence of fi */
				for (i = k = 0; i < w; i++) {
					while (fi[k] != g->win[i])
						k++;
					g->fy[i] = g->z[k];
				}
		}
		free(fl);
		free(fi);
		return rc;
	}
	for (i = 0; i < w; i++) /* a failure counts as the worst result */
		worst = fmax(worst, isfinite(g->loss[g->win[i]])
					    ? g->loss[g->win[i]]
					    : -INFINITY);
	if (!isfinite(worst))
		worst = 0; /* nothing succeeded: all equal */
	for (i = 0; i < w; i++)
		g->fy[i] = isfinite(g->loss[g->win[i]]) ? g->loss[g->win[i]]
							: worst;
	for (i = 0; i < w; i++)
		m += g->fy[i];
	m /= (double)w;
	for (i = 0; i < w; i++)
		v += (g->fy[i] - m) * (g->fy[i] - m);
	sd = w > 1 ? sqrt(v / (double)(w - 1)) : 0;
	if (!(sd > 1e-12) || !isfinite(sd))
		sd = 1;
	for (i = 0; i < w; i++)
		g->fy[i] = (g->fy[i] - m) / sd;
	return DEHBQ_OK;
}

/* EI-MCMC's density over theta: the marginal likelihood of the real
 * results (w of them), under a uniform prior over gp.h's box, or the
 * hyperprior within the box when the setting asks for it. */
struct mcctx {
	struct gpo *g;
	size_t w;
};

static double mc_logp(const double *th, int n, void *ctx)
{
	struct mcctx *c = ctx;
	struct gp *s = c->g->mc[c->g->nmc];

	(void)n;
	if (gp_set_theta(s, th) || gp_condition(s, c->g->fx, c->g->fy, c->w))
		return -INFINITY;
	return -gp_nll(s) -
	       (c->g->prior ? gp_prior_nll(c->g->dim, th, NULL) : 0);
}

/*
 * EI-MCMC (Snoek et al. 2012): nmc hyperparameter samples by slice
 * sampling from the fitted theta (GPO_MCMC_BURN sweeps first, then one
 * sweep a sample), each model conditioned on the m = w + believers
 * points the fitted one is.  DEHBQ_EINVAL when the fitted theta itself
 * cannot be factored (acquire() then takes the fitted model alone).
 */
static int sample_models(struct gpo *g, size_t w, size_t m)
{
	int n = g->dim + 2, i, k;
	double th[SEARCH_MAX_DIM + 2], lo[SEARCH_MAX_DIM + 2],
		hi[SEARCH_MAX_DIM + 2], wd[SEARCH_MAX_DIM + 2], lp;
	struct slice_box box = {n, lo, hi, wd};
	struct mcctx c = {g, w};
	long evals = 0;
	int rc = DEHBQ_OK;

	if (!g->mc && !(g->mc = calloc((size_t)g->nmc + 1, sizeof(*g->mc))))
		return DEHBQ_ENOMEM;
	for (k = 0; k <= g->nmc; k++)
		if (!g->mc[k] && (rc = gp_new(g->dim, g->choices, &g->mc[k])))
			return rc;
	gp_theta_box(g->dim, lo, hi);
	for (i = 0; i < n; i++)
		wd[i] = 1; /* natural-log units */
	gp_get_theta(g->gp, th);
	lp = mc_logp(th, n, &c);
	for (k = 0; !rc && k < GPO_MCMC_BURN; k++)
		rc = slice_sweep(&box, mc_logp, &c, &g->rng, th, &lp, &evals);
	for (k = 0; !rc && k < g->nmc; k++)
		if (!(rc = slice_sweep(&box, mc_logp, &c, &g->rng, th, &lp,
				       &evals)) &&
		    !(rc = gp_set_theta(g->mc[k], th)))
			rc = gp_condition(g->mc[k], g->fx, g->fy, m);
	return rc;
}

/* The fitted model conditioned (rc its outcome), then EI-MCMC's samples
 * when asked for: g->mcok says whether they hold. */
static int mcmc(struct gpo *g, size_t w, size_t m, int rc)
{
	g->mcok = 0;
	if (rc || g->hyp != HYP_MCMC)
		return rc;
	if ((rc = sample_models(g, w, m)) == DEHBQ_ENOMEM)
		return rc;
	g->mcok = !rc;
	return DEHBQ_OK;
}

/* Fit (on schedule) and condition the model on the window w. */
static int model(struct gpo *g, double level, size_t nf, size_t w)
{
	struct gp_fit_params fp = {GPO_RESTARTS, 500, 1e-6, g->prior};
	size_t i, nl = g->npend, lim = (size_t)g->maxp / 4, D = (size_t)g->dim;
	double ymin = INFINITY;
	int rc;

	for (i = 0; i < w; i++)
		memcpy(g->fx + i * D, g->x + g->win[i] * D, D * sizeof(double));
	if ((rc = outputs(g, level, w, nf)))
		return rc;
	if (nf >= g->next_fit || level != g->fit_level) {
		size_t c = nf < (size_t)g->maxp ? nf : (size_t)g->maxp;

		if (g->nfits % GPO_FULL_EVERY)
			fp.restarts = 1; /* from the last fit's theta */
		rc = gp_fit(g->gp, g->fx, g->fy, w, &g->rng, &fp);
		g->next_fit = nf + (c / 10 > 1 ? c / 10 : 1);
		g->fit_level = level;
		g->nfits++;
		if (rc)
			return rc;
	}
	if (nl > lim)
		nl = lim;
	g->npen = 0;
	if (!nl)
		return mcmc(g, w, w, gp_condition(g->gp, g->fx, g->fy, w));
	/* the pending points' means and variances given the real data */
	for (i = 0; i < nl; i++)
		memcpy(g->fx + (w + i) * D, g->pend[g->npend - nl + i].x,
		       D * sizeof(double));
	if ((rc = gp_condition(g->gp, g->fx, g->fy, w)) ||
	    (rc = gp_predict(g->gp, g->fx + w * D, nl, g->fy + w, g->var)))
		return rc;
	for (i = 0; i < w; i++)
		ymin = fmin(ymin, g->fy[i]);
	if (g->batch == BATCH_PENALISE) { /* radii and widths, acquire()'s */
		for (i = 0; i < nl; i++) {
			g->fy[w + i] = fmax(g->fy[w + i] - ymin, 0);
			g->var[i] = sqrt(fmax(g->var[i], 1e-12));
		}
		g->npen = nl;
		return acq_lipschitz(g->gp, g->cand, (size_t)g->ncand, g->dim,
				     &g->lip);
	}
	/* the kriging believer: each pending point at the real data's mean */
	for (i = 0; i < nl; i++) /* never below the best: EI there is 0 */
		g->fy[w + i] = fmax(g->fy[w + i], ymin);
	return mcmc(g, w, w + nl, gp_condition(g->gp, g->fx, g->fy, w + nl));
}

static void uniform(struct gpo *g, double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n * (size_t)g->dim; i++)
		v[i] = rng_uniform(&g->rng);
}

/*
 * The first nlocal candidates around the best GPO_LOCAL_CENTRES finite
 * results of the window w (acq_local): local search, where uniform
 * candidates thin out with the dimension.
 */
static void local(struct gpo *g, size_t w)
{
	struct acq_space sp = {g->dim, g->cont, g->ncont};
	const double *ctr[GPO_LOCAL_CENTRES];
	size_t top[GPO_LOCAL_CENTRES], nt = 0, i, k;

	for (i = 0; i < w; i++) { /* the best few, best first */
		double l = g->loss[g->win[i]];

		if (!isfinite(l))
			continue;
		k = nt < GPO_LOCAL_CENTRES ? nt++ : GPO_LOCAL_CENTRES;
		if (k == GPO_LOCAL_CENTRES &&
		    !(l < g->loss[g->win[top[k - 1]]]))
			continue;
		if (k == GPO_LOCAL_CENTRES)
			k--;
		for (; k > 0 && l < g->loss[g->win[top[k - 1]]]; k--)
			top[k] = top[k - 1];
		top[k] = i;
	}
	for (i = 0; i < nt; i++)
		ctr[i] = g->x + g->win[top[i]] * (size_t)g->dim;
	acq_local(ctr, nt, &sp, &g->rng, g->cand, (size_t)g->nlocal);
}

/* The acquisition's choice among fresh candidates (acq.c). */
static int acquire(struct gpo *g, size_t w, double *vec)
{
	struct acq_space sp = {g->dim, g->cont, g->ncont};
	double ymin = INFINITY;
	size_t i;

	if (g->acq == ACQ_TS)
		return acq_ts(g->gp, g->cand, (size_t)g->ncand, &sp, &g->rng,
			      vec);
	if (g->acq == ACQ_UCB) /* the window's results are t - 1 */
		return acq_lcb(g->gp, g->cand, (size_t)g->ncand, &sp,
			       acq_ucb_kappa((size_t)g->ncand, w + 1), vec);
	for (i = 0; i < w; i++)
		ymin = fmin(ymin, g->fy[i]);
	if (g->npen) {
		struct acq_pen pen = {g->fx + w * (size_t)g->dim, g->fy + w,
				      g->var, g->npen, g->lip};

		return acq_ei_pen(g->gp, g->cand, (size_t)g->ncand, &sp, ymin,
				  &pen, vec);
	}
	if (g->mcok)
		return acq_ei_mean(g->mc, (size_t)g->nmc, g->cand,
				   (size_t)g->ncand, &sp, ymin, vec);
	return acq_ei(g->gp, g->cand, (size_t)g->ncand, &sp, ymin, vec);
}

int search_gp_propose_at(struct gpo *g, double level, double *vec,
			 enum trial_kind *kind)
{
	size_t nf, na = 0, i, w = 0;
	int rc = DEHBQ_EINVAL;

	*kind = TRIAL_KIND_TRIAL;
	for (i = 0; i < g->n; i++)
		na += g->fid[i] == level;
	if (na >= (size_t)g->nstart)
		w = window(g, level, &nf);
	if (w >= 2) {
		uniform(g, g->cand, (size_t)g->ncand);
		local(g, w);
		if (!(rc = model(g, level, nf, w)))
			rc = acquire(g, w, vec);
		if (rc == DEHBQ_ENOMEM)
			return rc;
	}
	if (rc) { /* start-up, or a model that could not be factored */
		uniform(g, vec, 1);
		*kind = TRIAL_KIND_RANDOM;
	}
	return DEHBQ_OK;
}
