/*
 * dehb.c - the bracket engine: brackets, ask/tell, promotions by rank
 * (sh, hyperband) or by the searcher (dehb)
 *
 * Invariants:
 * - Job ids are 0, 1, 2, ... in ask order; ids below `asked` that are not
 *   in the in-flight table were told (a second tell is refused).
 * - NaN never enters a rung's results: failures and NaN losses count as
 *   +inf.
 * - Active brackets are kept in ascending id order; a bracket is dropped
 *   as soon as its last result is told, so every tell finds its bracket.
 * - No history: memory depends on active brackets and jobs in flight
 *   only.
 * - Every random draw comes from d->rng or the searcher, in an order
 *   fixed by the call sequence, so runs are reproducible bit for bit.
 * docs/algorithm.md lists every deviation from the reference.
 */
#include "dehb.h"

#include "dehb_impl.h"
#include "err.h"
#include "hb.h"
#include "rng.h"
#include "searcher.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Sort a rung's results by (loss, job id) unless already sorted. */
static void rung_sort(struct dehb *d, struct dehb_bracket *b, int r)
{
	int n = b->hb.done[r], i, j, dim = d->p.dim;

	for (i = 1; i < n; i++) {
		/* insertion sort: rungs are small and sorted only once */
		double l = b->rloss[r][i];
		int64_t c = b->rcid[r][i], jb = b->rjob[r][i];

		for (j = i; j > 0; j--) {
			double pl = b->rloss[r][j - 1];

			if (pl < l || (pl == l && b->rjob[r][j - 1] < jb))
				break;
		}
		if (j == i)
			continue;
		memcpy(d->tmpx, b->rx[r] + (size_t)i * dim,
		       (size_t)dim * sizeof(double));
		memmove(b->rloss[r] + j + 1, b->rloss[r] + j,
			(size_t)(i - j) * sizeof(double));
		memmove(b->rcid[r] + j + 1, b->rcid[r] + j,
			(size_t)(i - j) * sizeof(int64_t));
		memmove(b->rjob[r] + j + 1, b->rjob[r] + j,
			(size_t)(i - j) * sizeof(int64_t));
		memmove(b->rx[r] + (size_t)(j + 1) * dim,
			b->rx[r] + (size_t)j * dim,
			(size_t)(i - j) * dim * sizeof(double));
		b->rloss[r][j] = l;
		b->rcid[r][j] = c;
		b->rjob[r][j] = jb;
		memcpy(b->rx[r] + (size_t)j * dim, d->tmpx,
		       (size_t)dim * sizeof(double));
	}
}

/* ---- job production ---- */

static void random_vec(struct rng *r, int dim, double *x)
{
	int i;

	for (i = 0; i < dim; i++)
		x[i] = rng_uniform(r);
}

static int bracket_limit_hit(const struct dehb *d)
{
	return d->p.max_brackets > 0 && d->next_bracket >= d->p.max_brackets;
}

static int any_pending(const struct dehb *d)
{
	int i;

	for (i = 0; i < d->nbr; i++)
		if (hb_bracket_is_pending(&d->br[i].hb))
			return 1;
	return 0;
}

int dehb_exhausted(const struct dehb *d)
{
	const struct dehb_params *p = &d->p;

	if (p->max_brackets > 0) {
		if (bracket_limit_hit(d) && !any_pending(d))
			return 1;
	}
	return 0;
}

/*
 * Choose the bracket and rung of the next job: an active one (*bi), or a
 * new one prepared in *nb (*bi -1) that open_bracket adds once the job is
 * committed, so that a failed ask changes nothing.
 */
static int pick_bracket(struct dehb *d, int *bi, int *rung,
			struct dehb_bracket *nb)
{
	int i, s, rc;

	for (i = 0; i < d->nbr; i++) {
		int r = hb_bracket_next_rung(&d->br[i].hb);

		if (r >= 0) {
			*bi = i;
			*rung = r;
			return DEHBQ_OK;
		}
	}
	if (bracket_limit_hit(d))
		return any_pending(d) ? DEHBQ_EAGAIN : DEHBQ_EDONE;
	if (d->p.max_active_brackets > 0 && d->nbr >= d->p.max_active_brackets)
		return DEHBQ_EAGAIN;
	if (d->nbr == d->capbr) {
		int cap = d->capbr ? 2 * d->capbr : 4;
		struct dehb_bracket *t =
			realloc(d->br, (size_t)cap * sizeof(*t));

		if (!t)
			return DEHBQ_ENOMEM;
		d->br = t;
		d->capbr = cap;
	}
	s = d->p.optimizer == DEHB_OPT_SH
		    ? d->nlevels - 1
		    : hb_bracket_s(d->nlevels, d->next_bracket);
	rc = hb_bracket_init(&nb->hb, d->next_bracket, s, d->nlevels, d->p.eta);
	if (rc != DEHBQ_OK)
		return rc;
	rc = dehb_bracket_alloc(d, nb);
	if (rc != DEHBQ_OK)
		return rc;
	*bi = -1;
	*rung = 0;
	return DEHBQ_OK;
}

/* The bracket pick_bracket prepared becomes active (room was made). */
static int open_bracket(struct dehb *d, const struct dehb_bracket *nb)
{
	d->br[d->nbr] = *nb;
	d->next_bracket++;
	return d->nbr++;
}

/* SH and Hyperband: a searcher's proposal (or a random sample) at the base
 * rung, else the next of the rung below's results, best first.  Only the
 * searcher can fail, and then nothing changed. */
static int propose_sh(struct dehb *d, struct dehb_bracket *b, int r,
		      struct dehb_job *j, double *x)
{
	int dim = d->p.dim, q = b->hb.n[r] - b->hb.pending[r];

	j->slot = q;
	if (r == 0) {
		j->kind = DEHB_KIND_RANDOM;
		if (d->so) {
			enum trial_kind tk;
			int rc = d->so->propose(d->ss, j->fidelity, x, &tk);

			if (rc != DEHBQ_OK)
				return rc;
			j->kind = (enum dehb_kind)tk; /* the same values */
		} else {
			random_vec(&d->rng, dim, x);
		}
		j->config_id = d->next_cid++;
		return DEHBQ_OK;
	}
	if (q == 0)
		rung_sort(d, b, r - 1); /* a total order: sorting again is a
					   no-op */
	j->kind = DEHB_KIND_PROMOTION;
	j->config_id = b->rcid[r - 1][q];
	j->parent_job = b->rjob[r - 1][q];
	memcpy(x, b->rx[r - 1] + (size_t)q * dim, (size_t)dim * sizeof(double));
	return DEHBQ_OK;
}

/* DEHB: the searcher fills every rung (searcher.h's propose_at): it
 * knows the job's bracket, rung and the rung's size, and names the
 * parent of a promotion it makes. */
static int propose_fill(struct dehb *d, struct dehb_bracket *b, int r,
			struct dehb_job *j, double *x)
{
	struct search_at at;
	enum trial_kind tk;
	int rc;

	if (!d->so || !d->so->propose_at)
		return DEHBQ_EINVAL;
	at.fidelity = j->fidelity;
	at.bracket = b->hb.id;
	at.rung = r;
	at.n = b->hb.n[r];
	if ((rc = d->so->propose_at(d->ss, &at, x, &tk, &j->parent_job)))
		return rc;
	j->kind = (enum dehb_kind)tk; /* the same values */
	j->config_id = -1;	      /* the searcher's, as the slot */
	if (j->kind != DEHB_KIND_PROMOTION)
		j->parent_job = -1;
	else if (j->parent_job < 0 || j->parent_job >= d->asked)
		return DEHBQ_EINVAL;
	return DEHBQ_OK;
}

void dehb_set_searcher(struct dehb *d, const struct search_ops *so, void *ss)
{
	d->so = so;
	d->ss = ss;
}

const struct rng *dehb_stream(const struct dehb *d)
{
	return &d->rng;
}

int dehb_ask(struct dehb *d, struct dehb_job *job, double *vec)
{
	struct dehb_job j;
	struct dehb_bracket nb, *b = NULL;
	int rc, bi = 0, r = 0;

	memset(job, 0, sizeof(*job));
	if (dehb_exhausted(d))
		return DEHBQ_EDONE;
	if (d->asked >= DEHB_MAX_ID)
		return DEHBQ_EDONE;
	memset(&j, 0, sizeof(j));
	j.id = (uint64_t)d->asked;
	j.parent_job = -1;
	j.slot = -1;
	rc = pick_bracket(d, &bi, &r, &nb);
	if (rc != DEHBQ_OK)
		return rc;
	b = bi < 0 ? &nb : &d->br[bi];
	j.bracket = b->hb.id;
	j.rung = r;
	j.level = b->hb.base + r;
	j.fidelity = d->fid[j.level];
	if (d->p.optimizer == DEHB_OPT_DEHB)
		rc = propose_fill(d, b, r, &j, vec);
	else
		rc = propose_sh(d, b, r, &j, vec);
	/* the searcher learns of every job before it commits (after its own
	 * proposal, issued cannot fail) */
	if (rc == DEHBQ_OK && d->so && d->so->issued)
		rc = d->so->issued(d->ss, (int64_t)j.id, vec, j.fidelity);
	if (rc != DEHBQ_OK) {
		if (bi < 0)
			dehb_bracket_release(&nb);
		return rc;
	}
	if (bi < 0)
		b = &d->br[open_bracket(d, &nb)];
	hb_bracket_register(&b->hb, r);
	d->asked++;
	*job = j;
	return DEHBQ_OK;
}

/* job's level, fidelity, kind and ids fit this engine. */
static int job_fits(const struct dehb *d, const struct dehb_job *job,
		    const double *vec)
{
	int i;

	if (job->id >= (uint64_t)d->asked || job->level < 0 ||
	    job->level >= d->nlevels || job->fidelity != d->fid[job->level] ||
	    (unsigned)job->kind > DEHB_KIND_PRIOR ||
	    job->config_id < (d->p.optimizer == DEHB_OPT_DEHB ? -1 : 0) ||
	    job->config_id >= d->next_cid || job->parent_job >= d->asked)
		return 0;
	for (i = 0; i < d->p.dim; i++)
		if (!(vec[i] >= 0 && vec[i] <= 1))
			return 0;
	return 1;
}

/* The active bracket of job, if the job is in flight at one of its
 * rungs; else NULL. */
static struct dehb_bracket *bracket_of(struct dehb *d,
				       const struct dehb_job *job)
{
	struct dehb_bracket *b = dehb_bracket_find(d, job->bracket);

	if (!b || job->rung < 0 || job->rung >= b->hb.nrungs ||
	    job->level != b->hb.base + job->rung ||
	    b->hb.n[job->rung] - b->hb.pending[job->rung] -
			    b->hb.done[job->rung] <
		    1)
		return NULL;
	return b;
}

int dehb_tell(struct dehb *d, const struct dehb_job *j, const double *vec,
	      enum dehb_status status, double loss, double cost)
{
	struct dehb_bracket *b = NULL;
	int dim = d->p.dim;
	double fit;

	if ((unsigned)status > DEHB_FAILED || !isfinite(cost) || cost < 0 ||
	    (status == DEHB_OK && loss == -INFINITY) || !job_fits(d, j, vec))
		return DEHBQ_EINVAL;
	fit = (status == DEHB_FAILED || isnan(loss)) ? INFINITY : loss;
	if (j->reopened) /* its bracket counted its failure */
		return DEHBQ_OK;
	if (!(b = bracket_of(d, j)))
		return DEHBQ_ESTATE;
	if (dehb_uses_brackets(d) == 2 && j->rung + 1 < b->hb.nrungs) {
		int q = b->hb.done[j->rung];

		b->rloss[j->rung][q] = fit;
		b->rcid[j->rung][q] = j->config_id;
		b->rjob[j->rung][q] = (int64_t)j->id;
		memcpy(b->rx[j->rung] + (size_t)q * dim, vec,
		       (size_t)dim * sizeof(double));
	}
	hb_bracket_complete(&b->hb, j->rung);
	if (hb_bracket_done(&b->hb)) {
		int i = (int)(b - d->br);

		dehb_bracket_release(b);
		memmove(d->br + i, d->br + i + 1,
			(size_t)(d->nbr - i - 1) * sizeof(*d->br));
		d->nbr--;
	}
	return DEHBQ_OK;
}

int dehb_reopen(struct dehb *d, const struct dehb_job *job, const double *vec)
{
	if (job->id >= (uint64_t)d->asked)
		return DEHBQ_ENOENT;
	if (!job_fits(d, job, vec))
		return DEHBQ_EINVAL;
	/* the searcher learns of it: that is all that changes */
	if (d->so && d->so->issued)
		return d->so->issued(d->ss, (int64_t)job->id, vec,
				     job->fidelity);
	return DEHBQ_OK;
}

int dehb_replayed(struct dehb *d, const struct dehb_job *job, const double *vec)
{
	struct dehb_bracket *b;

	if (!job) { /* every rung's jobs in flight came back */
		int i, r;

		for (i = 0; i < d->nbr; i++)
			for (r = 0; r < d->br[i].hb.nrungs; r++)
				if (d->br[i].seen[r] !=
				    d->br[i].hb.n[r] - d->br[i].hb.pending[r] -
					    d->br[i].hb.done[r])
					return DEHBQ_EINVAL;
		for (i = 0; i < d->nbr; i++)
			memset(d->br[i].seen, 0, sizeof(d->br[i].seen));
		return DEHBQ_OK;
	}
	if (!job_fits(d, job, vec))
		return DEHBQ_EINVAL;
	if (job->reopened)
		return DEHBQ_OK;
	if (!(b = bracket_of(d, job)) ||
	    b->seen[job->rung] >= b->hb.n[job->rung] -
					  b->hb.pending[job->rung] -
					  b->hb.done[job->rung])
		return DEHBQ_EINVAL;
	b->seen[job->rung]++;
	return DEHBQ_OK;
}
