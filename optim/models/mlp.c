/*
 * mlp.c - the transfer prior's MLP: forward, backward and Adam (mlp.h)
 *
 * Parameters live in one array: for each hidden layer l its weights
 * W_l (in_l x hidden, row-major) then its bias b_l (hidden), then the two
 * heads' weights (hidden each) and biases (one each).  A batch runs as
 * row-major matrices: A_l = H_{l-1} W_l + b_l, H_l = relu(A_l) * mask_l,
 * with inverted dropout (a kept unit is scaled by 1 / (1 - p)).
 */
#include "mlp.h"

#include "err.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MLP_MAXLAYERS 8

struct mlp {
	struct mlp_params p;
	int din;
	size_t np;			  /* parameters */
	double *theta;			  /* np parameters */
	size_t off[MLP_MAXLAYERS + 1][2]; /* W and b of each layer; heads */
	double *m, *v;			  /* Adam's moments, np each */
	long t;				  /* Adam's step count */
	struct mlp_work *w;		  /* scratch, kept: not reentrant */
};

/* Scratch for one batch of n rows. */
struct mlp_work {
	double *h[MLP_MAXLAYERS + 1]; /* h[0] = x; h[l] layer l's output */
	double *a[MLP_MAXLAYERS + 1]; /* pre-activations */
	double *mask[MLP_MAXLAYERS + 1];
	double *mu, *s, *dmu, *ds, *dh, *dh2;
	size_t cap; /* rows allocated */
};

void mlp_default_params(struct mlp_params *p)
{
	p->layers = 3;
	p->hidden = 50;
	p->dropout = 0.1;
	p->lr = 0.01;
	p->lr_div = 5;
	p->stages = 3;
	p->steps = 1000;
	p->batch = 64;
	p->sigma_floor = 1e-3;
}

static int in_of(const struct mlp *m, int l)
{
	return l ? m->p.hidden : m->din;
}

static void work_free(struct mlp_work *w, int layers);

int mlp_new(int din, const struct mlp_params *p, struct rng *r,
	    struct mlp **out)
{
	struct mlp *m;
	size_t k = 0, i;
	int l;

	*out = NULL;
	if (din < 1 || din > 100000 || p->layers < 1 ||
	    p->layers > MLP_MAXLAYERS || p->hidden < 1 || p->hidden > 4096 ||
	    !(p->dropout >= 0 && p->dropout < 1) || !(p->lr > 0) ||
	    !(p->lr_div >= 1) || p->stages < 1 || p->steps < 0 ||
	    p->batch < 1 || !(p->sigma_floor > 0))
		return DEHBQ_EINVAL;
	if (!(m = calloc(1, sizeof(*m))) ||
	    !(m->w = calloc(1, sizeof(*m->w)))) {
		free(m);
		return DEHBQ_ENOMEM;
	}
	m->p = *p;
	m->din = din;
	for (l = 0; l < p->layers; l++) {
		m->off[l][0] = k;
		k += (size_t)in_of(m, l) * (size_t)p->hidden;
		m->off[l][1] = k;
		k += (size_t)p->hidden;
	}
	m->off[p->layers][0] = k; /* w_mu, w_s, b_mu, b_s */
	k += 2 * (size_t)p->hidden + 2;
	m->np = k;
	m->theta = calloc(k, sizeof(double));
	m->m = calloc(k, sizeof(double));
	m->v = calloc(k, sizeof(double));
	if (!m->theta || !m->m || !m->v) {
		mlp_free(m);
		return DEHBQ_ENOMEM;
	}
	/* He initialisation for the ReLU layers, small heads, zero biases */
	for (l = 0; l < p->layers; l++)
		for (i = m->off[l][0]; i < m->off[l][1]; i++)
			m->theta[i] = rng_normal(r) * sqrt(2.0 / in_of(m, l));
	for (i = 0; i < 2 * (size_t)p->hidden; i++)
		m->theta[m->off[p->layers][0] + i] =
			rng_normal(r) * sqrt(1.0 / p->hidden);
	*out = m;
	return DEHBQ_OK;
}

void mlp_free(struct mlp *m)
{
	if (!m)
		return;
	if (m->w)
		work_free(m->w, m->p.layers);
	free(m->w);
	free(m->theta);
	free(m->m);
	free(m->v);
	free(m);
}

size_t mlp_nparams(const struct mlp *m)
{
	return m->np;
}

double *mlp_params_ptr(struct mlp *m)
{
	return m->theta;
}

static void work_free(struct mlp_work *w, int layers)
{
	int l;

	for (l = 1; l <= layers; l++) {
		free(w->h[l]);
		free(w->a[l]);
		free(w->mask[l]);
	}
	free(w->mu);
	free(w->s);
	free(w->dmu);
	free(w->ds);
	free(w->dh);
	free(w->dh2);
	memset(w, 0, sizeof(*w));
}

static int work_alloc(struct mlp_work *w, const struct mlp *m, size_t n)
{
	size_t nh = n * (size_t)m->p.hidden;
	int l, bad = 0;

	memset(w, 0, sizeof(*w));
	for (l = 1; l <= m->p.layers; l++) {
		bad |= !(w->h[l] = malloc(nh * sizeof(double)));
		bad |= !(w->a[l] = malloc(nh * sizeof(double)));
		bad |= !(w->mask[l] = malloc(nh * sizeof(double)));
	}
	bad |= !(w->mu = malloc(n * sizeof(double)));
	bad |= !(w->s = malloc(n * sizeof(double)));
	bad |= !(w->dmu = malloc(n * sizeof(double)));
	bad |= !(w->ds = malloc(n * sizeof(double)));
	bad |= !(w->dh = malloc(nh * sizeof(double)));
	bad |= !(w->dh2 = malloc(nh * sizeof(double)));
	if (bad) {
		work_free(w, m->p.layers);
		return DEHBQ_ENOMEM;
	}
	w->cap = n;
	return DEHBQ_OK;
}

/* The network's scratch for n rows, grown when needed: reused, so that
 * training steps and predictions do not fault in fresh pages each call. */
static int work_get(const struct mlp *m, size_t n, struct mlp_work **out)
{
	if (m->w->cap < n) {
		work_free(m->w, m->p.layers);
		if (work_alloc(m->w, m, n))
			return DEHBQ_ENOMEM;
	}
	*out = m->w;
	return DEHBQ_OK;
}

static double softplus(double s)
{
	return s > 30 ? s : log1p(exp(s));
}

/* Forward pass of n rows of x; masks from r (NULL: no dropout). */
static void forward(const struct mlp *m, struct mlp_work *w, const double *x,
		    size_t n, struct rng *r)
{
	int H = m->p.hidden, L = m->p.layers, l;
	double keep = 1 - m->p.dropout;
	const double *th = m->theta, *head = th + m->off[L][0];
	size_t i, j;

	w->h[0] = (double *)x;
	for (l = 1; l <= L; l++) {
		const double *W = th + m->off[l - 1][0],
			     *b = th + m->off[l - 1][1];
		int in = in_of(m, l - 1);

		for (i = 0; i < n; i++)
			memcpy(&w->a[l][i * (size_t)H], b,
			       (size_t)H * sizeof(double));
		cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n,
			    H, in, 1.0, w->h[l - 1], in, W, H, 1.0, w->a[l], H);
		for (j = 0; j < n * (size_t)H; j++) {
			double k = 1;

			if (r && m->p.dropout > 0)
				k = rng_uniform(r) < keep ? 1 / keep : 0;
			w->mask[l][j] = w->a[l][j] > 0 ? k : 0;
			w->h[l][j] = w->a[l][j] * w->mask[l][j];
		}
	}
	for (i = 0; i < n; i++) {
		const double *h = &w->h[L][i * (size_t)H];

		w->mu[i] = cblas_ddot(H, h, 1, head, 1) + head[2 * H];
		w->s[i] = cblas_ddot(H, h, 1, head + H, 1) + head[2 * H + 1];
	}
}

static double sig_of(const struct mlp *m, double s)
{
	return softplus(s) + m->p.sigma_floor;
}

int mlp_loss_grad(const struct mlp *m, const double *x, const double *z,
		  const double *w8, size_t n, struct rng *r, double *loss,
		  double *grad)
{
	int H = m->p.hidden, L = m->p.layers, l;
	const double *th = m->theta, *head = th + m->off[L][0];
	struct mlp_work *w;
	double sw = 0, nll = 0;
	size_t i, j;

	if (!n)
		return DEHBQ_EINVAL;
	if (work_get(m, n, &w))
		return DEHBQ_ENOMEM;
	forward(m, w, x, n, r);
	for (i = 0; i < n; i++)
		sw += w8 ? w8[i] : 1;
	for (i = 0; i < n; i++) {
		double wi = (w8 ? w8[i] : 1) / sw, sg = sig_of(m, w->s[i]);
		double e = z[i] - w->mu[i];

		nll += wi *
		       (log(sg) + e * e / (2 * sg * sg) + 0.9189385332046727);
		w->dmu[i] = -wi * e / (sg * sg);
		/* d/dsigma, times dsigma/ds = logistic(s) */
		w->ds[i] = wi * (1 / sg - e * e / (sg * sg * sg)) /
			   (1 + exp(-w->s[i]));
	}
	*loss = nll;
	if (!grad) {
		return DEHBQ_OK;
	}
	memset(grad, 0, m->np * sizeof(double));
	/* heads */
	{
		double *g = grad + m->off[L][0];

		cblas_dgemv(CblasRowMajor, CblasTrans, (int)n, H, 1.0, w->h[L],
			    H, w->dmu, 1, 0.0, g, 1);
		cblas_dgemv(CblasRowMajor, CblasTrans, (int)n, H, 1.0, w->h[L],
			    H, w->ds, 1, 0.0, g + H, 1);
		for (i = 0; i < n; i++) {
			g[2 * H] += w->dmu[i];
			g[2 * H + 1] += w->ds[i];
		}
		/* dH_L = dmu w_mu^T + ds w_s^T */
		for (i = 0; i < n; i++)
			for (j = 0; j < (size_t)H; j++)
				w->dh[i * (size_t)H + j] =
					w->dmu[i] * head[j] +
					w->ds[i] * head[H + j];
	}
	for (l = L; l >= 1; l--) {
		double *gW = grad + m->off[l - 1][0],
		       *gb = grad + m->off[l - 1][1];
		const double *W = th + m->off[l - 1][0];
		int in = in_of(m, l - 1);

		for (j = 0; j < n * (size_t)H; j++) /* through relu, mask */
			w->dh[j] *= w->mask[l][j];
		cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, in, H,
			    (int)n, 1.0, w->h[l - 1], in, w->dh, H, 0.0, gW, H);
		for (i = 0; i < n; i++)
			for (j = 0; j < (size_t)H; j++)
				gb[j] += w->dh[i * (size_t)H + j];
		if (l > 1) {
			cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans,
				    (int)n, in, H, 1.0, w->dh, H, W, H, 0.0,
				    w->dh2, in);
			memcpy(w->dh, w->dh2, n * (size_t)in * sizeof(double));
		}
	}
	return DEHBQ_OK;
}

int mlp_train(struct mlp *m, const double *x, const double *z, const double *w,
	      size_t n, struct rng *r)
{
	size_t B = (size_t)m->p.batch, i, k, d = (size_t)m->din;
	double *bx, *bz, *bw, *g, lr = m->p.lr, loss;
	int st, step, rc = DEHBQ_OK;

	if (!n)
		return DEHBQ_EINVAL;
	for (i = 0; i < n * d; i++)
		if (!isfinite(x[i]))
			return DEHBQ_EINVAL;
	for (i = 0; i < n; i++)
		if (!isfinite(z[i]) || (w && !(w[i] >= 0 && isfinite(w[i]))))
			return DEHBQ_EINVAL;
	bx = malloc(B * d * sizeof(double));
	bz = malloc(B * sizeof(double));
	bw = malloc(B * sizeof(double));
	g = malloc(m->np * sizeof(double));
	if (!bx || !bz || !bw || !g) {
		rc = DEHBQ_ENOMEM;
		goto out;
	}
	for (st = 0; st < m->p.stages; st++, lr /= m->p.lr_div)
		for (step = 0; step < m->p.steps; step++) {
			double c1, c2;

			for (i = 0; i < B; i++) {
				k = (size_t)rng_below(r, (uint64_t)n);
				memcpy(&bx[i * d], &x[k * d],
				       d * sizeof(double));
				bz[i] = z[k];
				bw[i] = w ? w[k] : 1;
			}
			if ((rc = mlp_loss_grad(m, bx, bz, bw, B, r, &loss, g)))
				goto out;
			m->t++;
			c1 = 1 - pow(0.9, (double)m->t);
			c2 = 1 - pow(0.999, (double)m->t);
			for (i = 0; i < m->np; i++) {
				m->m[i] = 0.9 * m->m[i] + 0.1 * g[i];
				m->v[i] = 0.999 * m->v[i] + 0.001 * g[i] * g[i];
				m->theta[i] -= lr * (m->m[i] / c1) /
					       (sqrt(m->v[i] / c2) + 1e-8);
			}
		}
out:
	free(bx);
	free(bz);
	free(bw);
	free(g);
	return rc;
}

/* Forward passes over n rows in chunks (the scratch stays small and in
 * cache): the heads' mu and sigma, or (mu NULL) the last layer into phi. */
static int passes(const struct mlp *m, const double *x, size_t n, double *mu,
		  double *sigma, double *phi)
{
	struct mlp_work *w;
	size_t i, k, c, H = (size_t)m->p.hidden;

	if (!n)
		return DEHBQ_OK;
	if (work_get(m, n < MLP_PASS_ROWS ? n : MLP_PASS_ROWS, &w))
		return DEHBQ_ENOMEM;
	for (k = 0; k < n; k += c) {
		c = n - k < MLP_PASS_ROWS ? n - k : MLP_PASS_ROWS;
		forward(m, w, x + k * (size_t)m->din, c, NULL);
		if (!mu) {
			memcpy(phi + k * H, w->h[m->p.layers],
			       c * H * sizeof(double));
			continue;
		}
		for (i = 0; i < c; i++) {
			mu[k + i] = w->mu[i];
			sigma[k + i] = sig_of(m, w->s[i]);
		}
	}
	return DEHBQ_OK;
}

int mlp_predict(const struct mlp *m, const double *x, size_t n, double *mu,
		double *sigma)
{
	return passes(m, x, n, mu, sigma, NULL);
}

int mlp_features(const struct mlp *m, const double *x, size_t n, double *phi)
{
	return passes(m, x, n, NULL, NULL, phi);
}

int mlp_width(const struct mlp *m)
{
	return m->p.hidden;
}
