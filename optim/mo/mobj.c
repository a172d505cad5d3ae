/*
 * mobj.c - a multi-objective study's results and their scores (mobj.h)
 */
#include "mobj.h"

#include "copula.h"
#include "err.h"
#include "normal.h"
#include "rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CHEB_RHO 0.05 /* ParEGO's augmentation */

enum { S_NONE = 0, S_OK, S_FAILED };

struct mobj {
	int m, mode;
	double w[MOBJ_MAX];
	uint64_t seed;
	size_t cap;	       /* ids with room */
	double *y;	       /* cap * m */
	double *fid;	       /* cap */
	double *score;	       /* cap */
	unsigned char *st;     /* cap: S_* */
	uint64_t version;      /* bumped by every put and drop */
	uint64_t done_version; /* of the last mobj_score_all */
	uint64_t done_epoch;   /* of the last mobj_score_all */
	int done;	       /* 1: the two above are valid */
};

static const char *const mode_names[] = {
	"copula", "linear", "random-weights", "pareto", "hypervolume", NULL};

const char *mobj_mode_name(int mode)
{
	return mode >= 0 && mode <= MOBJ_HYPERVOLUME ? mode_names[mode] : NULL;
}

int mobj_mode_parse(const char *name, int *mode)
{
	int i;

	for (i = 0; mode_names[i]; i++)
		if (!strcmp(name, mode_names[i])) {
			*mode = i;
			return DEHBQ_OK;
		}
	return DEHBQ_EINVAL;
}

int mobj_new(int m, const double *w, int mode, uint64_t seed, struct mobj **out)
{
	struct mobj *mo;
	double sum = 0;
	int l;

	*out = NULL;
	if (m < 2 || m > MOBJ_MAX || !mobj_mode_name(mode) ||
	    (mode == MOBJ_HYPERVOLUME && m > MOBJ_HSSP_MAX_OBJ))
		return DEHBQ_EINVAL;
	for (l = 0; w && l < m; l++)
		if (!(isfinite(w[l]) && w[l] > 0))
			return DEHBQ_EINVAL;
	if (!(mo = calloc(1, sizeof(*mo))))
		return DEHBQ_ENOMEM;
	mo->m = m;
	mo->mode = mode;
	mo->seed = seed;
	for (l = 0; l < m; l++)
		sum += w ? w[l] : 1;
	for (l = 0; l < m; l++)
		mo->w[l] = (w ? w[l] : 1) / sum;
	*out = mo;
	return DEHBQ_OK;
}

void mobj_free(struct mobj *mo)
{
	if (!mo)
		return;
	free(mo->y);
	free(mo->fid);
	free(mo->score);
	free(mo->st);
	free(mo);
}

int mobj_count(const struct mobj *mo)
{
	return mo->m;
}

int mobj_mode(const struct mobj *mo)
{
	return mo->mode;
}

const double *mobj_weights(const struct mobj *mo)
{
	return mo->w;
}

int mobj_reserve(struct mobj *mo, int64_t id)
{
	size_t cap = mo->cap ? mo->cap : 64, m = (size_t)mo->m;
	void *p;

	if (id < 0)
		return DEHBQ_EINVAL;
	if ((size_t)id < mo->cap)
		return DEHBQ_OK;
	while (cap <= (size_t)id)
		cap *= 2;
	if (!(p = realloc(mo->y, cap * m * sizeof(double))))
		return DEHBQ_ENOMEM;
	mo->y = p;
	if (!(p = realloc(mo->fid, cap * sizeof(double))))
		return DEHBQ_ENOMEM;
	mo->fid = p;
	if (!(p = realloc(mo->score, cap * sizeof(double))))
		return DEHBQ_ENOMEM;
	mo->score = p;
	if (!(p = realloc(mo->st, cap)))
		return DEHBQ_ENOMEM;
	mo->st = p;
	memset(mo->st + mo->cap, S_NONE, cap - mo->cap);
	mo->cap = cap;
	return DEHBQ_OK;
}

int mobj_put(struct mobj *mo, int64_t id, double fidelity, const double *y)
{
	int l, rc;

	for (l = 0; y && l < mo->m; l++)
		if (isnan(y[l]))
			return DEHBQ_EINVAL;
	if ((rc = mobj_reserve(mo, id)))
		return rc;
	mo->st[id] = y ? S_OK : S_FAILED;
	mo->fid[id] = fidelity;
	mo->score[id] = NAN;
	for (l = 0; l < mo->m; l++)
		mo->y[(size_t)id * (size_t)mo->m + (size_t)l] =
			y ? y[l] : INFINITY;
	mo->version++;
	return DEHBQ_OK;
}

void mobj_drop(struct mobj *mo, int64_t id)
{
	if (id >= 0 && (size_t)id < mo->cap) {
		mo->st[id] = S_NONE;
		mo->version++;
	}
}

void mobj_epoch_weights(const struct mobj *mo, uint64_t epoch, double *v)
{
	struct rng r;
	double sum = 0;
	int l;

	rng_seed(&r, mo->seed ^ (0x9e3779b97f4a7c15ull * (epoch + 1)));
	for (l = 0; l < mo->m; l++) { /* Dirichlet(1): exponentials */
		v[l] = -log1p(-rng_uniform(&r)) * mo->w[l];
		sum += v[l];
	}
	for (l = 0; l < mo->m; l++)
		v[l] = sum > 0 ? v[l] / sum : mo->w[l];
}

/* Copula and random-weights: per objective, psi over every result. */
static int score_ecdf(struct mobj *mo, const size_t *ids, size_t n,
		      uint64_t epoch, double *col, double *z)
{
	double v[MOBJ_MAX];
	size_t i, m = (size_t)mo->m;
	int l, rc;

	mobj_epoch_weights(mo, epoch, v);
	for (i = 0; i < n; i++)
		mo->score[ids[i]] = 0;
	for (l = 0; l < mo->m; l++) {
		for (i = 0; i < n; i++)
			col[i] = mo->y[ids[i] * m + (size_t)l];
		if ((rc = copula_psi(col, n, z)))
			return rc;
		for (i = 0; i < n; i++) {
			double *s = &mo->score[ids[i]];

			if (mo->mode == MOBJ_COPULA) {
				*s += mo->w[l] * z[i];
			} else { /* col keeps max_l v_l F_l */
				double F = normal_cdf(z[i]) * v[l];

				*s += CHEB_RHO * F;
				if (!l || F > col[n + i])
					col[n + i] = F;
			}
		}
	}
	for (i = 0; i < n; i++)
		if (mo->mode == MOBJ_RANDOM_WEIGHTS)
			mo->score[ids[i]] += col[n + i];
	return DEHBQ_OK;
}

static int by_fid(const void *a, const void *b, void *ctx)
{
	const double *fid = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (fid[i] != fid[j])
		return fid[i] < fid[j] ? -1 : 1;
	return i < j ? -1 : i > j;
}

/*
 * Hypervolume: the front's k points (buf rows f[0..k-1]) in greedy
 * subset-selection order against MOTPE's reference (pareto_worst_reference);
 * order gets k entries.
 */
static int front_hssp(struct mobj *mo, const size_t *ids, const double *buf,
		      const size_t *f, size_t k, size_t r, size_t *order)
{
	double ref[MOBJ_MAX];
	size_t i;
	int rc;

	pareto_worst_reference(buf, f, k, mo->m, ref);
	if ((rc = pareto_hssp(buf, f, k, mo->m, ref, MOBJ_HSSP_GREEDY, order)))
		return rc;
	for (i = 0; i < k; i++)
		mo->score[ids[f[order[i]]]] = (double)r + (double)i / (double)k;
	return DEHBQ_OK;
}

/*
 * Pareto: the NSGA-II order among the results of one fidelity.  front
 * gets the indices grouped by rank (a counting sort), so each front is
 * a slice; start[] (n + 1 entries) marks the slices.  Hypervolume: the
 * same fronts, each in front_hssp's order.
 */
static int score_group(struct mobj *mo, const size_t *ids, size_t n,
		       double *buf, int *rank, size_t *front, double *dist,
		       size_t *start, size_t *order)
{
	size_t i, m = (size_t)mo->m, nr = 0, r;
	int rc;

	for (i = 0; i < n; i++)
		memcpy(&buf[i * m], &mo->y[ids[i] * m], m * sizeof(double));
	if ((rc = pareto_rank(buf, n, mo->m, rank)))
		return rc;
	memset(start, 0, (n + 1) * sizeof(*start));
	for (i = 0; i < n; i++) {
		start[rank[i] + 1]++;
		if ((size_t)rank[i] + 1 > nr)
			nr = (size_t)rank[i] + 1;
	}
	for (r = 0; r < nr; r++)
		start[r + 1] += start[r];
	for (i = 0; i < n; i++)
		front[start[rank[i]]++] = i; /* start[r] moves to r + 1's */
	for (r = nr; r > 0; r--)
		start[r] = start[r - 1];
	start[0] = 0;
	for (r = 0; r < nr; r++) {
		size_t *f = front + start[r], k = start[r + 1] - start[r];

		if (mo->mode == MOBJ_HYPERVOLUME) {
			if ((rc = front_hssp(mo, ids, buf, f, k, r, order)))
				return rc;
			continue;
		}
		if ((rc = pareto_crowding(buf, f, k, mo->m, dist)))
			return rc;
		for (i = 0; i < k; i++)
			mo->score[ids[f[i]]] = (double)r + 0.5 / (1 + dist[i]);
	}
	return DEHBQ_OK;
}

static int score_pareto(struct mobj *mo, size_t *ids, size_t n)
{
	size_t i, j, k, m = (size_t)mo->m;
	double *buf = malloc((n * m + n + 1) * sizeof(double));
	int *rank = malloc((n + 1) * sizeof(int));
	size_t *front = malloc((n + 1) * sizeof(size_t));
	size_t *ok = malloc((n + 1) * sizeof(size_t));
	size_t *start = malloc((n + 1) * sizeof(size_t));
	size_t *order = malloc((n + 1) * sizeof(size_t));
	int rc = buf && rank && front && ok && start && order ? DEHBQ_OK
							      : DEHBQ_ENOMEM;

	if (!rc)
		qsort_r(ids, n, sizeof(size_t), by_fid, mo->fid);
	for (i = 0; !rc && i < n; i = j) {
		for (j = i, k = 0; j < n && mo->fid[ids[j]] == mo->fid[ids[i]];
		     j++) {
			if (mo->st[ids[j]] == S_OK)
				ok[k++] = ids[j];
			else
				mo->score[ids[j]] = INFINITY;
		}
		rc = score_group(mo, ok, k, buf, rank, front, buf + n * m,
				 start, order);
	}
	free(buf);
	free(rank);
	free(front);
	free(ok);
	free(start);
	free(order);
	return rc;
}

int mobj_score_all(struct mobj *mo, uint64_t epoch, int *changed)
{
	size_t *ids, n = 0, i, m = (size_t)mo->m;
	double *col = NULL, *z = NULL;
	int l, rc = DEHBQ_OK;

	*changed = 0;
	if (mo->done && mo->done_version == mo->version &&
	    (mo->mode != MOBJ_RANDOM_WEIGHTS || mo->done_epoch == epoch))
		return DEHBQ_OK;
	if (!(ids = malloc((mo->cap + 1) * sizeof(size_t))))
		return DEHBQ_ENOMEM;
	for (i = 0; i < mo->cap; i++)
		if (mo->st[i] != S_NONE)
			ids[n++] = i;
	switch (mo->mode) {
	case MOBJ_LINEAR:
		for (i = 0; i < n; i++) {
			double s = 0;

			for (l = 0; l < mo->m; l++)
				s += mo->w[l] * mo->y[ids[i] * m + (size_t)l];
			mo->score[ids[i]] = s;
		}
		break;
	case MOBJ_PARETO:
	case MOBJ_HYPERVOLUME:
		rc = score_pareto(mo, ids, n);
		break;
	default:
		col = malloc((2 * n + 1) * sizeof(double));
		z = malloc((n + 1) * sizeof(double));
		rc = col && z ? (n ? score_ecdf(mo, ids, n, epoch, col, z) : 0)
			      : DEHBQ_ENOMEM;
	}
	for (i = 0; !rc && i < n; i++)
		if (mo->st[ids[i]] == S_FAILED)
			mo->score[ids[i]] = INFINITY;
	free(ids);
	free(col);
	free(z);
	if (!rc) {
		*changed = 1;
		mo->done = 1;
		mo->done_version = mo->version;
		mo->done_epoch = epoch;
	}
	return rc;
}

double mobj_score(const struct mobj *mo, int64_t id)
{
	if (id < 0 || (size_t)id >= mo->cap || mo->st[id] == S_NONE)
		return NAN;
	return mo->score[id];
}

const double *mobj_values(const struct mobj *mo, int64_t id)
{
	if (id < 0 || (size_t)id >= mo->cap || mo->st[id] != S_OK)
		return NULL;
	return &mo->y[(size_t)id * (size_t)mo->m];
}

int mobj_motpe_weights(const struct mobj *mo, const int64_t *jobs, size_t k,
		       double *w)
{
	size_t *idx = malloc((k + 1) * sizeof(size_t)), i, n = 0;
	double *c = malloc((k + 1) * sizeof(double)), ref[MOBJ_MAX], top = 0;
	int rc = idx && c ? DEHBQ_OK : DEHBQ_ENOMEM;

	if (!rc && mo->m > MOBJ_HSSP_MAX_OBJ)
		rc = DEHBQ_EINVAL;
	for (i = 0; !rc && i < k; i++) {
		w[i] = 1e-12;
		if (mobj_values(mo, jobs[i]))
			idx[n++] = (size_t)jobs[i];
	}
	if (!rc && n == 1)
		c[0] = 1;
	else if (!rc && n > 1) {
		pareto_worst_reference(mo->y, idx, n, mo->m, ref);
		rc = pareto_contributions(mo->y, idx, n, mo->m, ref, c);
	}
	for (i = 0; !rc && i < n; i++)
		top = fmax(top, c[i] += n > 1 ? 1e-12 : 0);
	for (i = n = 0; !rc && i < k; i++)
		if (mobj_values(mo, jobs[i]))
			w[i] = fmin(fmax(c[n++] / top, 0), 1);
	free(idx);
	free(c);
	return rc;
}
