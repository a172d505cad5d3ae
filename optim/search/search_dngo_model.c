/*
 * search_dngo_model.c - owns one ask's model of the dngo searcher
 * (search_dngo.c): the results gathered, the network trained on its
 * schedule or kept, the last layer's outputs of full blocks of results
 * kept with it, the Bayesian linear regression fitted from their
 * statistics, and the believers for jobs in flight (docs/algorithm.md
 * 14.1)
 */
#include "search_dngo_impl.h"

#include "blr.h"
#include "err.h"
#include "mlp.h"
#include "rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void search_dngo_fit_free(struct fit *f)
{
	blr_free(f->reg);
	free(f->X);
	free(f->z);
	free(f->raw);
	free(f->phi);
	free(f->G);
	free(f->c);
}

/* The basis at n rows of x into phi (n * k): the last layer and 1. */
int search_dngo_basis(const struct fit *f, const double *x, size_t n,
		      double *phi)
{
	size_t i, H = (size_t)f->k - 1;
	int rc = mlp_features(f->net, x, n, phi);

	for (i = n; !rc && i-- > 0;) { /* spread rows of H into rows of k */
		memmove(phi + i * (size_t)f->k, phi + i * H,
			H * sizeof(double));
		phi[i * (size_t)f->k + H] = 1;
	}
	return rc;
}

/* z (n) standardised into out. */
static void standardise(const double *z, size_t n, double *out)
{
	double mean = 0, sd = 0;
	size_t i;

	for (i = 0; i < n; i++)
		mean += z[i] / (double)n;
	for (i = 0; i < n; i++)
		sd += (z[i] - mean) * (z[i] - mean) / (double)n;
	sd = sd > 0 ? sqrt(sd) : 1;
	for (i = 0; i < n; i++)
		out[i] = (z[i] - mean) / sd;
}

/* The results at level into f (standardised), best few noted. */
int search_dngo_gather(const struct dngo *d, double level, struct fit *f)
{
	size_t i, j, D = (size_t)d->dim, rows = d->n + DNGO_MAX_PENDING;

	f->X = malloc(rows * D * sizeof(double));
	f->z = malloc(rows * sizeof(double));
	f->raw = malloc((d->n + 1) * sizeof(double));
	if (!f->X || !f->z || !f->raw)
		return DEHBQ_ENOMEM;
	for (i = 0; i < d->n; i++)
		if (d->fid[i] == level && isfinite(d->loss[i])) {
			memcpy(f->X + f->m * D, d->x + i * D,
			       D * sizeof(double));
			f->raw[f->m++] = d->loss[i];
		}
	standardise(f->raw, f->m, f->z);
	f->zmin = INFINITY;
	for (i = 0; i < f->m; i++) {
		f->zmin = fmin(f->zmin, f->z[i]);
		if (f->nbest < DNGO_CENTRES)
			j = f->nbest++;
		else if (f->z[i] < f->z[f->best[DNGO_CENTRES - 1]])
			j = DNGO_CENTRES - 1;
		else
			continue;
		for (; j > 0 && f->z[i] < f->z[f->best[j - 1]]; j--)
			f->best[j] = f->best[j - 1];
		f->best[j] = i;
	}
	return DEHBQ_OK;
}

/*
 * How many of m results the network is trained on: the last point of 2,
 * ..., s + max(1, floor(g s)), ... that is at most m (g = 0.01: every
 * result up to 200, then every 1 %).  With g = 0, all m.
 */
static size_t train_point(size_t m, double g)
{
	size_t s = 2, next;

	if (m < 2)
		return m;
	for (;;) {
		size_t step = (size_t)floor(g * (double)s);

		next = s + (step ? step : 1);
		if (next > m)
			return s;
		s = next;
	}
}

/*
 * The network for f's results at level: trained on the first s of them
 * (train_point), standardised among themselves, from weights and batches
 * of a stream seeded by the seed and s.  So it is a function of those s
 * results alone: kept while they stay (compared bit for bit, since a
 * rescore changes losses), trained again when they change.
 */
static int network(struct dngo *d, double level, struct fit *f)
{
	size_t s = train_point(f->m, d->growth), D = (size_t)d->dim;
	struct mlp_params p;
	struct mlp *net = NULL;
	double *tx = NULL, *tz = NULL, *z = NULL;
	struct rng r;
	int rc = DEHBQ_ENOMEM;

	if (d->net && d->ts == s && d->tlevel == level &&
	    !memcmp(d->tx, f->X, s * D * sizeof(double)) &&
	    !memcmp(d->tz, f->raw, s * sizeof(double)))
		return DEHBQ_OK;
	mlp_default_params(&p);
	p.hidden = d->hidden;
	p.dropout = 0;
	p.stages = 1;
	p.steps = d->steps;
	p.batch = s < 64 ? (int)s : 64;
	rng_seed(&r, d->seed ^ (UINT64_C(0x9e3779b97f4a7c15) * (s + 1)));
	if (!(tx = malloc(s * D * sizeof(double))) ||
	    !(tz = malloc(s * sizeof(double))) ||
	    !(z = malloc(s * sizeof(double))))
		goto out;
	memcpy(tx, f->X, s * D * sizeof(double));
	memcpy(tz, f->raw, s * sizeof(double));
	standardise(tz, s, z);
	if ((rc = mlp_new(d->dim, &p, &r, &net)) ||
	    (rc = mlp_train(net, tx, z, NULL, s, &r)))
		goto out;
	mlp_free(d->net);
	free(d->tx);
	free(d->tz);
	d->net = net;
	d->tx = tx;
	d->tz = tz;
	d->ts = s;
	d->tlevel = level;
	d->fits++;
	d->nblk = 0; /* the blocks' rows were the old network's */
	net = NULL;
	tx = tz = NULL;
out:
	mlp_free(net);
	free(tx);
	free(tz);
	free(z);
	return rc;
}

/* Room for n blocks. */
static int grow_blocks(struct dngo *d, size_t n, size_t k)
{
	size_t B = DNGO_BLOCK, D = (size_t)d->dim, c = 2 * n;
	void *p;

	if (n <= d->capblk)
		return DEHBQ_OK;
	if (!(p = realloc(d->bx, c * B * D * sizeof(double))))
		return DEHBQ_ENOMEM;
	d->bx = p;
	if (!(p = realloc(d->bphi, c * B * k * sizeof(double))))
		return DEHBQ_ENOMEM;
	d->bphi = p;
	if (!(p = realloc(d->bg, c * k * k * sizeof(double))))
		return DEHBQ_ENOMEM;
	d->bg = p;
	d->capblk = c;
	return DEHBQ_OK;
}

/*
 * f's basis rows and their Phi'Phi, the full blocks of DNGO_BLOCK rows
 * from the searcher's (passed once while the network is kept, each
 * block's Phi'Phi summed in block order), the rest passed now.  mlp.c
 * passes rows in chunks of MLP_PASS_ROWS from the first, so a block's
 * rows have the bits a pass of all m rows gives (as after a load).
 */
static int features(struct dngo *d, struct fit *f)
{
	size_t B = DNGO_BLOCK, D = (size_t)d->dim, k = (size_t)f->k, kk = k * k,
	       full = f->m / B, tail = f->m - full * B, j, i;
	int rc;

	for (j = 0; j < d->nblk && j < full; j++)
		if (memcmp(d->bx + j * B * D, f->X + j * B * D,
			   B * D * sizeof(double)))
			break;
	d->nblk = j;
	if ((rc = grow_blocks(d, full, k)))
		return rc;
	for (; j < full; j++) {
		memcpy(d->bx + j * B * D, f->X + j * B * D,
		       B * D * sizeof(double));
		if ((rc = search_dngo_basis(f, d->bx + j * B * D, B,
					    d->bphi + j * B * k)))
			return rc;
		blr_stats(f->k, d->bphi + j * B * k, NULL, B, d->bg + j * kk,
			  NULL, NULL);
		d->nblk = j + 1;
	}
	if (full) /* d->bphi may be NULL otherwise */
		memcpy(f->phi, d->bphi, full * B * k * sizeof(double));
	memset(f->G, 0, kk * sizeof(double));
	for (j = 0; j < full; j++)
		for (i = 0; i < kk; i++)
			f->G[i] += d->bg[j * kk + i];
	if (tail) {
		double *g = f->G + kk; /* room after G */

		if ((rc = search_dngo_basis(f, f->X + full * B * D, tail,
					    f->phi + full * B * k)))
			return rc;
		blr_stats(f->k, f->phi + full * B * k, NULL, tail, g, NULL,
			  NULL);
		for (i = 0; i < kk; i++)
			f->G[i] += g[i];
	}
	blr_stats(f->k, f->phi, f->z, f->m, NULL, f->c, &f->zz);
	return DEHBQ_OK;
}

/* The network (trained or kept) and the regression on f's m results. */
int search_dngo_train(struct dngo *d, double level, struct fit *f)
{
	size_t rows = f->m + DNGO_MAX_PENDING, k;
	int rc;

	if ((rc = network(d, level, f)))
		return rc;
	f->net = d->net;
	f->k = d->hidden + 1;
	k = (size_t)f->k;
	if (!(f->phi = malloc(rows * k * sizeof(double))) ||
	    !(f->G = malloc(2 * k * k * sizeof(double))) ||
	    !(f->c = malloc(2 * k * sizeof(double))))
		return DEHBQ_ENOMEM;
	if ((rc = blr_new(f->k, &f->reg)) || (rc = features(d, f)))
		return rc;
	if (!(rc = blr_fit_stats(f->reg, f->G, f->c, f->zz, f->m)))
		blr_hyper(f->reg, &d->la, &d->lb);
	return rc;
}

/* The jobs in flight at level (the newest DNGO_MAX_PENDING) at the
 * regression's mean, floored at the best output: kriging believers. */
int search_dngo_believe(const struct dngo *d, double level, struct fit *f)
{
	size_t i, nb = 0, D = (size_t)d->dim, k = (size_t)f->k;
	double var, bz;
	int rc = DEHBQ_OK;

	for (i = d->np; i-- > 0 && nb < DNGO_MAX_PENDING;) {
		double *row = f->X + (f->m + nb) * D;

		if (d->pfid[i] != level)
			continue;
		memcpy(row, d->px + i * D, D * sizeof(double));
		if ((rc = search_dngo_basis(f, row, 1,
					    f->phi + (f->m + nb) * k)) ||
		    (rc = blr_predict(f->reg, f->phi + (f->m + nb) * k, 1,
				      f->z + f->m + nb, &var)))
			return rc;
		f->z[f->m + nb] = fmax(f->z[f->m + nb], f->zmin);
		nb++;
	}
	if (!nb)
		return rc;
	/* the results' statistics and the believers' */
	blr_stats(f->k, f->phi + f->m * k, f->z + f->m, nb, f->G + k * k,
		  f->c + k, &bz);
	for (i = 0; i < k * k; i++)
		f->G[i] += f->G[k * k + i];
	for (i = 0; i < k; i++)
		f->c[i] += f->c[k + i];
	return blr_condition_stats(f->reg, f->G, f->c, f->zz + bz, f->m + nb);
}
