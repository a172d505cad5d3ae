/*
 * optim_pbt.c - owns pbt, Population Based Training (Jaderberg et al.
 * 2017), asynchronous as in Ray Tune's PopulationBasedTraining and Syne
 * Tune's PBT, on the file queue: a member's training is a chain of trials,
 * one per segment, each continuing from the work directory of the one
 * before (job.parent, {parent_workdir}).
 *
 * The population is population_size members.  Segment s (1..S) of a
 * member ends at fidelity s * perturbation_interval (the last at the
 * maximum); the interval is the minimum fidelity unless set.  The searcher
 * (setting "searcher", searcher.h) proposes each member's first
 * configuration and the resampled ones, and observes every segment's
 * result at the segment's end.
 *
 * Ready point: when a member's segment ends, the members with a result
 * are ranked by their latest one (loss, then member number; a failure is
 * +inf).  Of N ranked, the bottom and top q = ceil(N * quantile_fraction)
 * (at most N / 2) are the quantiles.  A member in the bottom quantile
 * exploits a donor drawn uniformly from the top quantile's members whose
 * latest segment ended ok below the maximum: its next trial continues from
 * the donor's checkpoint (that segment's job), with the donor's
 * configuration explored.  Otherwise it continues from its own checkpoint
 * with its own configuration.  A member whose segment failed (after the
 * requeues of runtime.max_attempts) has no new checkpoint: it is resampled
 * by the searcher and continues from its last checkpoint, or from scratch.
 * A member is done when a segment at the maximum ends ok; the study when
 * every member is.  No member ever waits for another.
 *
 * Explore, per parameter: with resample_probability the searcher's value
 * (one proposal per explore), otherwise the value moved by a factor drawn
 * from perturbation_factors, in the parameter's own units
 * (space_move(): a float times the factor, an int or ordinal one step, a
 * categorical resampled).  A forbidden result is explored again, up to 16
 * times, then the donor's configuration is taken as it is.  With the
 * setting "explore": "pb2" an exploiting member's configuration is PB2's
 * choice instead (pb2.h: a GP bandit over the segments' improvements,
 * told every ok segment), this explore only while PB2 has too few rows or
 * its choice is forbidden.  Settings: pbt_params.h.
 *
 * Per-trial state {"member":M,"segment":S,"donor":D} (D -1: none).  The
 * members are rebuilt at load from the history (optim_ops.replay): every
 * decision at a ready point is a function of the results told so far and
 * of the seed and the job's id, so it is made again identically.  A save
 * holds only the explore stream, the member count and the searcher's
 * state.  A failed segment can be requeued (optim_reopen) until the
 * member's next trial is asked.  Multi-objective studies are refused (no
 * rescore).
 */
#include "held.h"
#include "optim.h"

#include "err.h"
#include "hb.h"
#include "jsonbuf.h"
#include "ostate.h"
#include "pb2.h"
#include "pbt_params.h"
#include "rng.h"
#include "space.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PBT_TRIES	16 /* explores of a forbidden configuration */
#define PBT_STREAM_SALT 0x9b7c2f4d1e3a5869ULL
#define PBT_DONOR_SALT	0x5e2d8c71a94f03b7ULL
#define PBT_PB2_SALT	0x27d4eb2f165667c5ULL

enum next { NEXT_NONE = 0, NEXT_CONTINUE, NEXT_EXPLOIT, NEXT_RESAMPLE };

struct member {
	double *ckx;   /* configuration of its checkpoint */
	double *dx;    /* NEXT_EXPLOIT: the donor's, at the decision */
	double dl;     /* ... and its latest result */
	double *jx;    /* configuration of its latest job */
	int64_t job;   /* its latest job */
	int inflight;  /* that job is in flight */
	int64_t ck;    /* checkpoint: its latest ok segment's job, -1 */
	int ckseg;     /* segment the checkpoint reached, 0: none */
	double last;   /* latest result (+inf failed), NaN: none */
	int next;      /* enum next: decided at its ready point */
	int donor;     /* NEXT_EXPLOIT: the donor */
	int64_t dck;   /* ... its checkpoint's job */
	int dseg;      /* ... and segment */
	int64_t ready; /* when it became ready (ask order) */
};

struct pbt {
	int dim, pop, S;
	double interval, qfrac, resample, fdown, fup;
	double fid[HB_MAX_LEVELS]; /* segment ends */
	int rung[HB_MAX_LEVELS];   /* each segment's rung: the study's ladder
				      level at or below its end */
	uint64_t seed;
	struct rng rng;		   /* explore */
	const struct space *space; /* borrowed, or NULL */
	int *choices;		   /* dim: K choices, 0 continuous (a copy) */
	int (*feasible)(void *arg, const double *vec);
	void *feasible_arg;
	int n;		     /* members made */
	int64_t tick;	     /* ready points so far */
	struct member *m;    /* [pop] */
	double *tmp;	     /* dim: a searcher's proposal */
	unsigned char *mark; /* dim: explore's resampled entries */
	int *rank;	     /* pop: ranking scratch */
	struct pb2 *pb2;     /* explore "pb2", else NULL */
	double *pend;	     /* pop x dim: pb2's segments in flight */
	struct held h;
};

static void pbt_free(void *st)
{
	struct pbt *p = st;
	int i;

	if (!p)
		return;
	for (i = 0; p->m && i < p->pop; i++) {
		free(p->m[i].ckx);
		free(p->m[i].dx);
		free(p->m[i].jx);
	}
	free(p->m);
	free(p->tmp);
	free(p->mark);
	free(p->choices);
	free(p->rank);
	free(p->pend);
	pb2_free(p->pb2);
	held_free(&p->h);
	free(p);
}

/* The segment ends of interval up to max: DEHBQ_EINVAL when too many. */
static int segments(struct pbt *p, double min_f, double max_f, char *err)
{
	double n;
	int s;

	if (p->interval < min_f || p->interval > max_f)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "optimizer.perturbation_interval: %g is "
				  "outside the study's fidelities [%g, %g]",
				  p->interval, min_f, max_f);
	n = ceil(max_f / p->interval);
	if (n > 1 && (n - 1) * p->interval >= max_f)
		n--;
	if (n > HB_MAX_LEVELS)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "optimizer.perturbation_interval: %g makes "
				  "%.0f segments up to fidelity %g; at most "
				  "%d (use a larger interval)",
				  p->interval, n, max_f, HB_MAX_LEVELS);
	p->S = (int)n;
	for (s = 0; s < p->S - 1; s++)
		p->fid[s] = (s + 1) * p->interval;
	p->fid[p->S - 1] = max_f;
	return DEHBQ_OK;
}

/* Each segment's rung on the study's ladder (trial files carry a rung
 * below the study's levels). */
static int rungs(struct pbt *p, const struct optim_setup *s)
{
	double lad[HB_MAX_LEVELS];
	int L, k, g;

	if (hb_levels(s->min_fidelity, s->max_fidelity, s->eta, &L))
		return DEHBQ_EINVAL;
	hb_fidelities(s->max_fidelity, s->eta, L, lad);
	for (g = 0; g < p->S; g++) {
		for (k = L - 1; k > 0 && lad[k] > p->fid[g]; k--)
			;
		p->rung[g] = k;
	}
	return DEHBQ_OK;
}

static int pbt_new(const struct optim_setup *s, const cJSON *state,
		   struct pbt **out, char *err)
{
	struct pbt *p;
	struct pbt_params ps;
	int i, rc;

	if ((rc = pbt_params_read(s->settings, &ps, err)))
		return rc;
	if (!(p = calloc(1, sizeof(*p))))
		return DEHBQ_ENOMEM;
	p->dim = s->dim;
	p->pop = ps.pop;
	p->qfrac = ps.qfrac;
	p->resample = ps.resample;
	p->fdown = ps.fdown;
	p->fup = ps.fup;
	p->interval = ps.interval > 0 ? ps.interval : s->min_fidelity;
	p->seed = s->seed;
	p->space = s->space;
	p->feasible = s->feasible;
	p->feasible_arg = s->feasible_arg;
	rng_seed(&p->rng, s->seed ^ PBT_STREAM_SALT);
	if ((rc = segments(p, s->min_fidelity, s->max_fidelity, err)) ||
	    (rc = rungs(p, s))) {
		free(p);
		return rc;
	}
	p->m = calloc((size_t)p->pop, sizeof(*p->m));
	p->tmp = calloc((size_t)p->dim, sizeof(double));
	p->mark = calloc((size_t)p->dim, 1);
	p->choices = calloc((size_t)p->dim, sizeof(int));
	if (p->choices && s->choices)
		memcpy(p->choices, s->choices, (size_t)p->dim * sizeof(int));
	p->rank = calloc((size_t)p->pop, sizeof(int));
	rc = p->m && p->tmp && p->mark && p->choices && p->rank ? DEHBQ_OK
								: DEHBQ_ENOMEM;
	if (!rc && ps.pb2) {
		p->pend =
			calloc((size_t)p->pop * (size_t)p->dim, sizeof(double));
		rc = p->pend ? pb2_new(p->dim, p->choices, s->max_fidelity,
				       &p->pb2)
			     : DEHBQ_ENOMEM;
	}
	for (i = 0; !rc && i < p->pop; i++) {
		struct member *m = &p->m[i];

		m->ckx = calloc((size_t)p->dim, sizeof(double));
		m->dx = calloc((size_t)p->dim, sizeof(double));
		m->jx = calloc((size_t)p->dim, sizeof(double));
		m->job = m->ck = -1;
		m->last = NAN;
		if (!m->ckx || !m->dx || !m->jx)
			rc = DEHBQ_ENOMEM;
	}
	if (rc ||
	    (rc = held_open(s, p->fid, p->S, 1, NULL, state, &p->h, err))) {
		pbt_free(p);
		return rc;
	}
	*out = p;
	return DEHBQ_OK;
}

static int pbt_open(const struct optim_setup *s, void **st, char *err)
{
	return pbt_new(s, NULL, (struct pbt **)st, err);
}

/* ---- the ready point ---- */

/* Member i before member j (qsort_r): the lower latest result, then the
 * lower number. */
static int by_last(const void *a, const void *b, void *arg)
{
	const struct member *m = arg;
	int i = *(const int *)a, j = *(const int *)b;
	double u = m[i].last, v = m[j].last;

	if (u != v)
		return u < v ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* Member k's segment ended (its result is in): what it does next. */
static void decide(struct pbt *p, int k, uint64_t job)
{
	struct member *m = &p->m[k];
	int i, n = 0, q, cand = 0, pos = -1;
	struct rng r;

	m->ready = p->tick++;
	if (!isfinite(m->last)) {
		m->next = NEXT_RESAMPLE;
		return;
	}
	if (m->ckseg == p->S) {
		m->next = NEXT_NONE; /* done */
		return;
	}
	m->next = NEXT_CONTINUE;
	for (i = 0; i < p->n; i++)
		if (!isnan(p->m[i].last))
			p->rank[n++] = i;
	qsort_r(p->rank, (size_t)n, sizeof(int), by_last, p->m);
	q = (int)ceil(n * p->qfrac);
	if (q > n / 2)
		q = n / 2;
	for (i = 0; i < n; i++)
		if (p->rank[i] == k)
			pos = i;
	if (q < 1 || pos < n - q)
		return;
	for (i = 0; i < q; i++) { /* the donors, to the front */
		const struct member *d = &p->m[p->rank[i]];

		if (isfinite(d->last) && d->ck >= 0 && d->ckseg < p->S)
			p->rank[cand++] = p->rank[i];
	}
	if (!cand)
		return;
	rng_seed(&r, p->seed ^ PBT_DONOR_SALT ^ (job * 0x9e3779b97f4a7c15ULL));
	m->donor = p->rank[rng_below(&r, (uint64_t)cand)];
	m->dck = p->m[m->donor].ck;
	m->dseg = p->m[m->donor].ckseg;
	m->dl = p->m[m->donor].last;
	memcpy(m->dx, p->m[m->donor].ckx, (size_t)p->dim * sizeof(double));
	m->next = NEXT_EXPLOIT;
}

/* ---- asking ---- */

static double move_one(const struct pbt *p, int j, double v, double factor,
		       double u)
{
	double w;

	if (p->space)
		return space_move(p->space, j, v, factor, u);
	/* no space (tests, benches): a categorical of its choices, or a
	 * float on [0, 1] */
	if (p->choices[j])
		return (floor(u * p->choices[j]) + 0.5) / p->choices[j];
	w = v * factor;
	return w < 0 ? 0 : w > 1 ? 1 : w;
}

/*
 * The donor's configuration m->dx explored into vec; fidelity: the
 * segment's, for the searcher's proposal.
 */
static int explore(struct pbt *p, const struct member *m, double fidelity,
		   double *vec)
{
	enum trial_kind tk;
	int j, t, any = 0, rc;

	for (j = 0; j < p->dim; j++)
		any |= p->mark[j] = rng_uniform(&p->rng) < p->resample;
	if (any && (rc = p->h.so->propose(p->h.ss, fidelity, p->tmp, &tk)))
		return rc;
	for (t = 0; t < PBT_TRIES; t++) {
		for (j = 0; j < p->dim; j++) {
			double f =
				rng_uniform(&p->rng) < 0.5 ? p->fdown : p->fup;
			double u = rng_uniform(&p->rng);

			vec[j] = p->mark[j] ? p->tmp[j]
					    : move_one(p, j, m->dx[j], f, u);
		}
		if (!p->feasible || p->feasible(p->feasible_arg, vec))
			return DEHBQ_OK;
	}
	memcpy(vec, m->dx, (size_t)p->dim * sizeof(double));
	return DEHBQ_OK;
}

/* PB2's choice for member m's exploit of a segment ending at t, or
 * DEHBQ_EAGAIN: explore as PBT does. */
static int choose(struct pbt *p, const struct member *m, uint64_t job, double t,
		  double *vec)
{
	size_t np = 0, D = (size_t)p->dim;
	struct rng r;
	int i;

	for (i = 0; i < p->n; i++)
		if (p->m[i].inflight)
			memcpy(p->pend + np++ * D, p->m[i].jx,
			       D * sizeof(double));
	rng_seed(&r, p->seed ^ PBT_PB2_SALT ^ (job * 0x9e3779b97f4a7c15ULL));
	return pb2_choose(p->pb2, t, m->dl, m->dx, p->pend, np, p->feasible,
			  p->feasible_arg, &r, vec);
}

static void put_state(struct optim_job *job, int member, int seg, int donor)
{
	snprintf(job->state, sizeof(job->state),
		 "{\"member\":%d,\"segment\":%d,\"donor\":%d}", member, seg,
		 donor);
}

/* The ready member that has waited longest, or -1. */
static int next_ready(const struct pbt *p)
{
	int i, best = -1;

	for (i = 0; i < p->n; i++)
		if (p->m[i].next != NEXT_NONE && !p->m[i].inflight &&
		    (best < 0 || p->m[i].ready < p->m[best].ready))
			best = i;
	return best;
}

/* The next job of member k (a new one: k == p->n) into job and vec. */
static int ask_member(struct pbt *p, int k, struct optim_job *job, double *vec)
{
	struct member *m = &p->m[k];
	enum trial_kind tk = TRIAL_KIND_TRIAL;
	int seg, donor = -1, rc;
	int64_t parent = -1;

	if (k == p->n || m->next == NEXT_RESAMPLE) {
		seg = k == p->n ? 1 : m->ckseg + 1;
		parent = k == p->n ? -1 : m->ck;
		rc = p->h.so->propose(p->h.ss, p->fid[seg - 1], vec, &tk);
		job->kind = (enum optim_kind)tk;
	} else if (m->next == NEXT_EXPLOIT) {
		seg = m->dseg + 1;
		parent = m->dck;
		donor = m->donor;
		rc = p->pb2 ? choose(p, m, job->id, p->fid[seg - 1], vec)
			    : DEHBQ_EAGAIN;
		if (rc == DEHBQ_EAGAIN)
			rc = explore(p, m, p->fid[seg - 1], vec);
		job->kind = OPTIM_KIND_TRIAL;
	} else {
		seg = m->ckseg + 1;
		parent = m->ck;
		memcpy(vec, m->ckx, (size_t)p->dim * sizeof(double));
		rc = DEHBQ_OK;
		job->kind = OPTIM_KIND_PROMOTION;
	}
	job->fidelity = p->fid[seg - 1];
	job->rung = p->rung[seg - 1];
	job->bracket = k;
	job->parent = parent;
	put_state(job, k, seg, donor);
	if (rc || (rc = held_issued(&p->h, job, vec)))
		return rc;
	if (k == p->n)
		p->n++;
	m->job = (int64_t)job->id;
	m->inflight = 1;
	m->next = NEXT_NONE;
	memcpy(m->jx, vec, (size_t)p->dim * sizeof(double));
	return DEHBQ_OK;
}

static int pbt_done(const void *st)
{
	const struct pbt *p = st;
	int i;

	if (p->n < p->pop)
		return 0;
	for (i = 0; i < p->n; i++)
		if (p->m[i].ckseg < p->S)
			return 0;
	return 1;
}

static int pbt_ask(void *st, struct optim_job *job, double *vec)
{
	struct pbt *p = st;
	struct rng keep = p->rng;
	int k = p->n < p->pop ? p->n : next_ready(p), rc;

	if (k < 0)
		return pbt_done(p) ? DEHBQ_EDONE : DEHBQ_EAGAIN;
	if ((rc = ask_member(p, k, job, vec)))
		p->rng = keep;
	return rc;
}

/* ---- results ---- */

/* The member, segment and donor a job's state names, checked. */
static int job_member(const struct pbt *p, const struct optim_job *job, int *k,
		      int *seg, int *donor)
{
	struct optim_job again;

	if (sscanf(job->state, "{\"member\":%d,\"segment\":%d,\"donor\":%d}", k,
		   seg, donor) != 3 ||
	    *k < 0 || *k >= p->pop || *seg < 1 || *seg > p->S || *donor < -1 ||
	    *donor >= p->pop || job->fidelity != p->fid[*seg - 1] ||
	    job->rung != p->rung[*seg - 1])
		return DEHBQ_EINVAL;
	put_state(&again, *k, *seg, *donor);
	return strcmp(again.state, job->state) ? DEHBQ_EINVAL : DEHBQ_OK;
}

static int pbt_tell(void *st, const struct optim_job *job, const double *vec,
		    enum optim_status status, double loss, double cost)
{
	struct pbt *p = st;
	struct member *m;
	int k, seg, donor, rc, ok = status == OPTIM_OK;

	(void)cost;
	if ((rc = job_member(p, job, &k, &seg, &donor)))
		return rc;
	m = &p->m[k];
	if (k >= p->n || m->job != (int64_t)job->id || !m->inflight)
		return DEHBQ_EINVAL;
	if ((ok && p->pb2 &&
	     (rc = pb2_observe(p->pb2, (int64_t)job->id, job->parent, vec,
			       seg > 1 ? p->fid[seg - 2] : 0, p->fid[seg - 1],
			       loss))) ||
	    (rc = held_observe(&p->h, job, vec, ok ? loss : INFINITY)))
		return rc;
	m->inflight = 0;
	m->last = ok ? loss : INFINITY;
	if (ok) {
		m->ck = (int64_t)job->id;
		m->ckseg = seg;
		memcpy(m->ckx, vec, (size_t)p->dim * sizeof(double));
	}
	decide(p, k, job->id);
	return DEHBQ_OK;
}

/* A failed segment back in flight, while its member waits at its ready
 * point (its result stays +inf until the re-run's tell). */
static int pbt_reopen(void *st, const struct optim_job *job, const double *vec)
{
	struct pbt *p = st;
	struct member *m;
	int k, seg, donor, rc;

	if ((rc = job_member(p, job, &k, &seg, &donor)))
		return rc;
	m = &p->m[k];
	if (k >= p->n || m->job != (int64_t)job->id || m->inflight ||
	    isfinite(m->last) || (rc = held_issued(&p->h, job, vec)))
		return rc ? rc : DEHBQ_EINVAL;
	m->inflight = 1;
	m->next = NEXT_NONE;
	return DEHBQ_OK;
}

/* ---- snapshot ---- */

static int pbt_save(const void *st, struct jsonbuf *b)
{
	const struct pbt *p = st;
	int rc;

	jsonbuf_printf(b, "{\"members\":%d,\"rng\":", p->n);
	ostate_put_rng(b, &p->rng);
	jsonbuf_put(b, ",", 1);
	rc = held_save(&p->h, b);
	jsonbuf_put(b, "}", 1);
	return rc ? rc : jsonbuf_failed(b);
}

static int pbt_load(const struct optim_setup *s, const cJSON *state, void **st,
		    char *err)
{
	struct pbt *p;
	int64_t n;
	int rc;

	if ((rc = pbt_new(s, state, &p, err)))
		return rc;
	if ((rc = ostate_get_i64(state, "members", 0, p->pop, &n, err)) ||
	    (rc = ostate_get_rng(state, "rng", &p->rng, err))) {
		pbt_free(p);
		return rc;
	}
	p->n = (int)n; /* the replay gives each its jobs again */
	*st = p;
	return DEHBQ_OK;
}

/*
 * A history record (told 1; 2: the re-tell of a requeued job) or a job in
 * flight (told 0) back into the members, in the order the live run told
 * them; job NULL: the end.  Each ready point is decided again as it was.
 */
static int pbt_replay(void *st, const struct optim_job *job, const double *vec,
		      int told, int reopened, enum optim_status status,
		      double loss)
{
	struct pbt *p = st;
	struct member *m;
	int k, seg, donor, rc;

	if (!job) {
		for (k = 0; k < p->n; k++)
			if (p->m[k].job < 0)
				return DEHBQ_EINVAL; /* made, yet no job */
		return held_replay(&p->h, NULL);
	}
	held_replay(&p->h, job);
	if ((rc = job_member(p, job, &k, &seg, &donor)) || k >= p->n)
		return rc ? rc : DEHBQ_EINVAL;
	m = &p->m[k];
	if (told == 2 || (!told && reopened))
		return (rc = pbt_reopen(p, job, vec)) || !told
			       ? rc
			       : pbt_tell(p, job, vec, status, loss, 0);
	m->job = (int64_t)job->id;
	m->inflight = 1;
	m->next = NEXT_NONE;
	memcpy(m->jx, vec, (size_t)p->dim * sizeof(double));
	if (!told)
		return held_issued(&p->h, job, vec);
	return pbt_tell(p, job, vec, status, loss, 0);
}

static int pbt_describe(const void *st, struct jsonbuf *b)
{
	const struct pbt *p = st;
	int i, done = 0, best = -1;

	if (held_describe(&p->h, b))
		return DEHBQ_ENOMEM;
	for (i = 0; i < p->n; i++) {
		const struct member *m = &p->m[i];

		done += m->ckseg == p->S;
		if (m->ck >= 0 && isfinite(m->last) &&
		    (best < 0 || m->last < p->m[best].last))
			best = i;
	}
	jsonbuf_printf(b,
		       ",\"population\":%d,\"members\":%d,\"segments\":%d,"
		       "\"done\":%d",
		       p->pop, p->n, p->S, done);
	if (best >= 0) {
		jsonbuf_printf(b,
			       ",\"best\":{\"member\":%d,\"segment\":%d,"
			       "\"loss\":",
			       best, p->m[best].ckseg);
		jsonbuf_num(b, p->m[best].last);
		jsonbuf_put(b, "}", 1);
	}
	return jsonbuf_failed(b);
}

const struct optim_ops optim_pbt_ops = {
	.name = "pbt",
	.summary = "population based training: members train in segments, "
		   "the worst continue from the best with explored "
		   "configurations",
	.caps = OPTIM_CAP_SEARCHER | OPTIM_CAP_SEGMENTS,
	.settings = pbt_params_settings,
	.open = pbt_open,
	.ask = pbt_ask,
	.tell = pbt_tell,
	.reopen = pbt_reopen,
	.done = pbt_done,
	.save = pbt_save,
	.load = pbt_load,
	.describe = pbt_describe,
	.replay = pbt_replay,
	.free = pbt_free,
};
