/*
 * dehb_table.c - owns the DEHB engine's storage: the engine itself (its
 * allocation and release), its jobs in flight (an open-addressing hash
 * table by job id) and its active brackets' results
 */
#include "dehb.h"

#include "dehb_impl.h"
#include "err.h"
#include "hb.h"
#include "rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void dehb_free(struct dehb *d)
{
	size_t i;
	int k;

	if (!d)
		return;
	for (k = 0; k < d->nbr; k++)
		dehb_bracket_release(&d->br[k]);
	free(d->br);
	for (i = 0; i < d->flcap; i++)
		if (d->fl[i].used) {
			free(d->fl[i].x);
		}
	free(d->fl);
	free(d->tmpx);
	free(d);
}

int dehb_alloc(const struct dehb_params *p, struct dehb **out, char *err)
{
	struct dehb *d = NULL;
	int rc;

	*out = NULL;
	rc = dehb_params_check(p, err);
	if (rc != DEHBQ_OK)
		return rc;
	rc = DEHBQ_ENOMEM;
	d = calloc(1, sizeof(*d));
	if (!d)
		goto fail;
	d->p = *p;
	hb_levels(p->min_fidelity, p->max_fidelity, p->eta, &d->nlevels);
	hb_fidelities(p->max_fidelity, p->eta, d->nlevels, d->fid);
	d->tmpx = malloc((size_t)p->dim * sizeof(double));
	d->flcap = 16;
	d->fl = calloc(d->flcap, sizeof(*d->fl));
	if (!d->tmpx || !d->fl)
		goto fail;
	*out = d;
	return DEHBQ_OK;
fail:
	dehb_free(d);
	return dehbq_errf(err, rc, "out of memory");
}

int dehb_new(const struct dehb_params *p, struct dehb **out, char *err)
{
	int rc = dehb_alloc(p, out, err), k;

	if (rc != DEHBQ_OK)
		return rc;
	rng_seed(&(*out)->rng, p->seed);
	/* one split a level: 0.4's level streams, kept so that the engine's
	 * stream (dehb_stream, sh's and hyperband's random draws) is 0.4's */
	for (k = 0; k < (*out)->nlevels; k++)
		rng_split(&(*out)->rng);
	return DEHBQ_OK;
}

/* ---- in-flight table: linear probing, backward-shift deletion ---- */

/* ---- brackets ---- */

/* ---- sorting: stable merge sort of indices by fitness ---- */

static size_t fl_hash(uint64_t id, size_t cap)
{
	return (size_t)((id * UINT64_C(0x9e3779b97f4a7c15)) >> 20) & (cap - 1);
}

struct dehb_fl *dehb_fl_find(const struct dehb *d, uint64_t id)
{
	size_t i = fl_hash(id, d->flcap);

	while (d->fl[i].used) {
		if (d->fl[i].job.id == id)
			return &d->fl[i];
		i = (i + 1) & (d->flcap - 1);
	}
	return NULL;
}

static void fl_put(struct dehb_fl *t, size_t cap, const struct dehb_fl *e)
{
	size_t i = fl_hash(e->job.id, cap);

	while (t[i].used)
		i = (i + 1) & (cap - 1);
	t[i] = *e;
}

/* Make room for one more job; the only allocation of an insert. */
int dehb_fl_reserve(struct dehb *d)
{
	struct dehb_fl *t;
	size_t i, cap;

	if ((d->flcount + 1) * 2 <= d->flcap)
		return DEHBQ_OK;
	cap = d->flcap * 2;
	t = calloc(cap, sizeof(*t));
	if (!t)
		return DEHBQ_ENOMEM;
	for (i = 0; i < d->flcap; i++)
		if (d->fl[i].used)
			fl_put(t, cap, &d->fl[i]);
	free(d->fl);
	d->fl = t;
	d->flcap = cap;
	return DEHBQ_OK;
}

int dehb_fl_insert(struct dehb *d, const struct dehb_job *job, double *x)
{
	struct dehb_fl e;
	int rc = dehb_fl_reserve(d);

	if (rc != DEHBQ_OK)
		return rc;
	e.used = 1;
	e.job = *job;
	e.x = x;
	e.reopened = 0;
	fl_put(d->fl, d->flcap, &e);
	d->flcount++;
	return DEHBQ_OK;
}

void dehb_fl_remove(struct dehb *d, struct dehb_fl *e)
{
	size_t mask = d->flcap - 1;
	size_t i = (size_t)(e - d->fl), j = i;

	free(e->x);
	d->fl[i].used = 0;
	for (;;) {
		size_t h;

		j = (j + 1) & mask;
		if (!d->fl[j].used)
			break;
		h = fl_hash(d->fl[j].job.id, d->flcap);
		/* move j back to i unless h lies cyclically in (i, j] */
		if ((i <= j) ? (i < h && h <= j) : (i < h || h <= j))
			continue;
		d->fl[i] = d->fl[j];
		d->fl[j].used = 0;
		i = j;
	}
	d->flcount--;
}

int dehb_bracket_alloc(const struct dehb *d, struct dehb_bracket *b)
{
	int r;
	size_t dim = (size_t)d->p.dim;

	for (r = 0; r < HB_MAX_LEVELS; r++) {
		b->rloss[r] = NULL;
		b->rcid[r] = NULL;
		b->rjob[r] = NULL;
		b->rx[r] = NULL;
	}
	if (dehb_uses_brackets(d) != 2)
		return DEHBQ_OK;
	for (r = 0; r + 1 < b->hb.nrungs; r++) {
		size_t n = (size_t)b->hb.n[r];

		b->rloss[r] = malloc(n * sizeof(double));
		b->rcid[r] = malloc(n * sizeof(int64_t));
		b->rjob[r] = malloc(n * sizeof(int64_t));
		b->rx[r] = malloc(n * dim * sizeof(double));
		if (!b->rloss[r] || !b->rcid[r] || !b->rjob[r] || !b->rx[r]) {
			dehb_bracket_release(b);
			return DEHBQ_ENOMEM;
		}
	}
	return DEHBQ_OK;
}

void dehb_bracket_release(struct dehb_bracket *b)
{
	int r;

	for (r = 0; r < HB_MAX_LEVELS; r++) {
		free(b->rloss[r]);
		free(b->rcid[r]);
		free(b->rjob[r]);
		free(b->rx[r]);
		b->rloss[r] = NULL;
		b->rcid[r] = NULL;
		b->rjob[r] = NULL;
		b->rx[r] = NULL;
	}
}

struct dehb_bracket *dehb_bracket_find(struct dehb *d, int64_t id)
{
	int lo = 0, hi = d->nbr;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (d->br[mid].hb.id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nbr && d->br[lo].hb.id == id ? &d->br[lo] : NULL;
}
