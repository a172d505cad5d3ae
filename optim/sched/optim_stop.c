/*
 * optim_stop.c - owns the stopping schedulers: every proposal of the
 * searcher runs as one trial to the maximum fidelity, reports as it
 * trains (optim_report), and is stopped early when its reports are poor.
 *
 *   asha-stop    asynchronous successive halving, stopping type (Li et
 *                al. 2020; Ray Tune's ASHAScheduler, Syne Tune's stopping
 *                Hyperband with one bracket): rungs at min * eta^k below
 *                the maximum.  The first report at or above a rung records
 *                the trial's value there; the trial goes on while that
 *                value is among the best ceil(n / eta) of the n values
 *                the rung has recorded, itself included (ties go on).
 *   hyperband-stop  stopping-type Hyperband (Li et al. 2018; Syne Tune's
 *                stopping Hyperband): brackets b = 0..S over the S rungs;
 *                a trial of bracket b is judged as by asha-stop at rungs b
 *                and above only (bracket S runs to the maximum), each
 *                bracket with its own rung records.  A trial's bracket
 *                is drawn from the seed and its id alone, with
 *                Hyperband's weights (S+1)/(S-b+1) * eta^(S-b).
 *   median-stop  the median stopping rule (Golovin et al. 2017), as
 *                Optuna's MedianPruner: once startup_trials trials have
 *                completed, a report at fidelity f (above warmup) stops
 *                the trial when its best value so far is worse than the
 *                median of the completed trials' values at exactly f (none
 *                reported there: it goes on).
 *
 * What the searcher learns (BOHB's rule, searcher.h): the ladder is the
 * rungs min * eta^k below the maximum, then the maximum.  A trial is, for
 * the searcher, one job per level it reaches, keyed id * 64 + level: the
 * level's job is issued when the trial starts or passes the level below,
 * and observed with the first report at or above it (the maximum's with
 * the final result; a failure's with +inf; a median-stop between levels
 * with its last value).  So every searcher models each level as it does
 * under asha, with no change of its own.
 *
 * Per-trial state "".  Both keep their books in memory, rebuilt at load
 * from the history (every report and result, optim_ops.replay), and save
 * only their searcher's state.  median-stop keeps each trial's curve (at
 * most STOP_CURVE_MAX points); asha-stop one value per trial and rung.
 * Multi-objective studies are refused (no rescore).
 */
#include "held.h"
#include "optim.h"

#include "err.h"
#include "hb.h"
#include "rng.h"
#include "jsonbuf.h"
#include "ostate.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define STOP_LEVELS    HB_MAX_LEVELS	 /* key = id * STOP_LEVELS + level */
#define STOP_CURVE_MAX OPTIM_MAX_REPORTS /* points of a trial's curve */

enum sj_state { SJ_RUNNING = 0, SJ_STOPPED, SJ_DONE, SJ_FAILED };

/* One trial. */
struct sj {
	int next;      /* the level whose searcher job is pending */
	int bracket;   /* hyperband-stop: judged from this rung on */
	int issued;    /* ... and it is (a load's replay issues it once) */
	int st;	       /* enum sj_state */
	double best;   /* best value reported (median-stop) */
	double *f, *v; /* its curve (median-stop), fidelity ascending */
	size_t n, cap; /* points in it */
};

/* The values a rung recorded, ascending. */
struct srung {
	double *v;
	size_t n, cap;
};

enum stop_rule { STOP_ASHA, STOP_HYPERBAND, STOP_MEDIAN };

struct stop {
	int median;    /* 1: median-stop */
	int nb;	       /* brackets: 1, or S + 1 (hyperband-stop) */
	uint64_t seed; /* the study's, for the brackets */
	double eta;    /* the study's */
	int startup;   /* median-stop's settings */
	double warmup;
	int L; /* levels: L - 1 rungs, then the maximum */
	double lad[STOP_LEVELS];
	struct srung *rung; /* nb * L: bracket b's rung k at b * L + k */
	struct sj *j;	    /* by job id */
	size_t nj, capj;
	int64_t completed; /* trials told ok, for median-stop */
	int64_t stopped;   /* trials stopped */
	struct held h;	   /* the searcher */
};

static const char *const asha_keys[] = {"searcher", "search", NULL};
static const char *const median_keys[] = {"searcher", "search",
					  "startup_trials", "warmup", NULL};

static const char *const rule_names[] = {"asha-stop", "hyperband-stop",
					 "median-stop"};

static int stop_settings_of(const cJSON *in, struct jsonbuf *b, int rule,
			    char *err)
{
	int startup = 5, median = rule == STOP_MEDIAN, rc;
	double warmup = 0;

	if ((rc = ostate_set_keys(in, median ? median_keys : asha_keys,
				  rule_names[rule], err)))
		return rc;
	if (median &&
	    ((rc = ostate_set_int(in, "startup_trials", 0, 1000000, &startup,
				  err)) ||
	     (rc = ostate_set_num(in, "warmup", 0, 1e300, &warmup, err))))
		return rc;
	if ((rc = held_settings(in, b, err)) || !b || !median)
		return rc;
	jsonbuf_printf(b, ",\"startup_trials\":%d,\"warmup\":", startup);
	jsonbuf_num(b, warmup);
	return jsonbuf_failed(b);
}

static int asha_stop_settings(const cJSON *in, struct jsonbuf *b, char *err)
{
	return stop_settings_of(in, b, STOP_ASHA, err);
}

static int hb_stop_settings(const cJSON *in, struct jsonbuf *b, char *err)
{
	return stop_settings_of(in, b, STOP_HYPERBAND, err);
}

static int median_stop_settings(const cJSON *in, struct jsonbuf *b, char *err)
{
	return stop_settings_of(in, b, STOP_MEDIAN, err);
}

static void sj_free(struct sj *j)
{
	free(j->f);
	free(j->v);
	j->f = j->v = NULL;
	j->n = j->cap = 0;
}

static void stop_free(void *st)
{
	struct stop *s = st;
	size_t i;
	int k;

	if (!s)
		return;
	for (i = 0; i < s->nj; i++)
		sj_free(&s->j[i]);
	free(s->j);
	for (k = 0; s->rung && k < s->nb * s->L; k++)
		free(s->rung[k].v);
	free(s->rung);
	held_free(&s->h);
	free(s);
}

/* The ladder: min * eta^k below the maximum, then the maximum. */
static void stop_ladder(struct stop *s, const struct optim_setup *u)
{
	double f = u->min_fidelity;

	s->L = 0;
	while (s->L < STOP_LEVELS - 1 && f < u->max_fidelity * (1 - 1e-12)) {
		s->lad[s->L++] = f;
		f *= u->eta;
	}
	s->lad[s->L++] = u->max_fidelity;
}

static int stop_new(const struct optim_setup *u, const cJSON *state, int rule,
		    void **st, char *err)
{
	const cJSON *m;
	struct stop *s;
	int rc;

	if ((rc = stop_settings_of(u->settings, NULL, rule, err)))
		return rc;
	if (!(s = calloc(1, sizeof(*s))))
		return DEHBQ_ENOMEM;
	s->median = rule == STOP_MEDIAN;
	s->seed = u->seed;
	s->eta = u->eta;
	s->startup = 5;
	if ((m = cJSON_GetObjectItemCaseSensitive(u->settings,
						  "startup_trials")))
		s->startup = m->valueint;
	if ((m = cJSON_GetObjectItemCaseSensitive(u->settings, "warmup")))
		s->warmup = m->valuedouble;
	stop_ladder(s, u);
	s->nb = rule == STOP_HYPERBAND ? s->L : 1;
	if (!(s->rung = calloc((size_t)(s->nb * s->L), sizeof(*s->rung)))) {
		free(s);
		return DEHBQ_ENOMEM;
	}
	if ((rc = held_open(u, s->lad, s->L, 1, NULL, state, &s->h, err))) {
		free(s->rung);
		free(s);
		return rc;
	}
	*st = s;
	return DEHBQ_OK;
}

static int asha_stop_open(const struct optim_setup *u, void **st, char *err)
{
	return stop_new(u, NULL, STOP_ASHA, st, err);
}

static int hb_stop_open(const struct optim_setup *u, void **st, char *err)
{
	return stop_new(u, NULL, STOP_HYPERBAND, st, err);
}

static int median_stop_open(const struct optim_setup *u, void **st, char *err)
{
	return stop_new(u, NULL, STOP_MEDIAN, st, err);
}

static int asha_stop_load(const struct optim_setup *u, const cJSON *state,
			  void **st, char *err)
{
	return stop_new(u, state, STOP_ASHA, st, err);
}

static int hb_stop_load(const struct optim_setup *u, const cJSON *state,
			void **st, char *err)
{
	return stop_new(u, state, STOP_HYPERBAND, st, err);
}

static int median_stop_load(const struct optim_setup *u, const cJSON *state,
			    void **st, char *err)
{
	return stop_new(u, state, STOP_MEDIAN, st, err);
}

/*
 * Trial id's bracket (hyperband-stop): from the seed and the id alone, so
 * a load gives every trial its bracket back.  Bracket b (judged from rung
 * b on) has Hyperband's weight (S+1)/(S-b+1) * eta^(S-b), S the rungs.
 */
static int bracket_of(const struct stop *s, uint64_t id)
{
	int S = s->L - 1, b;
	double w[STOP_LEVELS], tot = 0, u;
	struct rng r;

	if (s->nb == 1)
		return 0;
	for (b = 0; b <= S; b++)
		tot += w[b] = (S + 1.0) / (S - b + 1.0) * pow(s->eta, S - b);
	rng_seed(&r, s->seed ^ (0x9e3779b97f4a7c15ULL * (id + 1)));
	u = rng_uniform(&r) * tot;
	for (b = 0; b < S && u >= w[b]; b++)
		u -= w[b];
	return b;
}

/* The trial of job id, the table grown to hold it; NULL: no memory. */
static struct sj *sj_get(struct stop *s, uint64_t id)
{
	size_t i;

	if (id >= s->nj) {
		size_t cap = s->capj ? s->capj : 64;
		struct sj *n;

		while (cap <= id)
			cap *= 2;
		if (cap > s->capj) {
			if (!(n = realloc(s->j, cap * sizeof(*n))))
				return NULL;
			s->j = n;
			s->capj = cap;
		}
		memset(s->j + s->nj, 0, (id + 1 - s->nj) * sizeof(*s->j));
		for (i = s->nj; i <= id; i++) {
			s->j[i].best = INFINITY;
			s->j[i].bracket = bracket_of(s, i);
		}
		s->nj = id + 1;
	}
	return &s->j[id];
}

/* The searcher's job for trial id at level k. */
static struct optim_job level_job(const struct stop *s, uint64_t id, int k,
				  double fidelity)
{
	struct optim_job j;

	memset(&j, 0, sizeof(j));
	j.id = id * STOP_LEVELS + (uint64_t)k;
	j.fidelity = fidelity;
	j.rung = k;
	j.parent = -1;
	(void)s;
	return j;
}

static int issue_level(struct stop *s, uint64_t id, const double *vec)
{
	struct optim_job j =
		level_job(s, id, s->j[id].next, s->lad[s->j[id].next]);
	int rc = held_issued(&s->h, &j, vec);

	s->j[id].issued = !rc;
	return rc;
}

static int observe_level(struct stop *s, uint64_t id, const double *vec,
			 double fidelity, double loss)
{
	struct optim_job j = level_job(s, id, s->j[id].next, fidelity);

	s->j[id].issued = 0;
	return held_observe(&s->h, &j, vec, loss);
}

static int stop_ask(void *st, struct optim_job *job, double *vec)
{
	struct stop *s = st;
	enum trial_kind tk;
	struct sj *t;
	int rc;

	if (job->id >= (uint64_t)(SEARCH_MAX_JOB / STOP_LEVELS))
		return DEHBQ_EDONE;
	if (!(t = sj_get(s, job->id)))
		return DEHBQ_ENOMEM;
	job->fidelity = s->lad[s->L - 1];
	t->next = 0;
	t->st = SJ_RUNNING;
	if ((rc = s->h.so->propose(s->h.ss, s->lad[0], vec, &tk)) ||
	    (rc = issue_level(s, job->id, vec)))
		return rc;
	job->bracket = (int64_t)job->id;
	job->kind = (enum optim_kind)tk;
	return DEHBQ_OK;
}

/* Insert v into rung r; its rank (values strictly below it) into *rank. */
static int rung_add(struct srung *r, double v, size_t *rank)
{
	size_t lo = 0, hi = r->n;

	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		double *n = realloc(r->v, cap * sizeof(*n));

		if (!n)
			return DEHBQ_ENOMEM;
		r->v = n;
		r->cap = cap;
	}
	while (lo < hi) { /* the first value >= v */
		size_t mid = lo + (hi - lo) / 2;

		if (r->v[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(r->v + lo + 1, r->v + lo, (r->n - lo) * sizeof(*r->v));
	r->v[lo] = v;
	r->n++;
	*rank = lo;
	return DEHBQ_OK;
}

/* asha-stop at rung record r: go on while among the best ceil(n / eta). */
static int asha_goes_on(const struct stop *s, const struct srung *r,
			size_t rank)
{
	double keep = ceil((double)r->n / s->eta - 1e-9);

	return (double)rank < keep;
}

/* Completed trial t's value at exactly fidelity f, or NaN. */
static double curve_at(const struct sj *t, double f)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->f[mid] < f)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->n && t->f[lo] == f ? t->v[lo] : NAN;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* median-stop: 1 when trial t, best value best, should stop at f. */
static int median_stops(const struct stop *s, double f, double best, int *stop)
{
	double *v, med;
	size_t i, n = 0;

	*stop = 0;
	if (s->completed < s->startup || f < s->warmup || !s->completed)
		return DEHBQ_OK;
	if (!(v = malloc((size_t)s->completed * sizeof(*v))))
		return DEHBQ_ENOMEM;
	for (i = 0; i < s->nj; i++) {
		double x;

		if (s->j[i].st == SJ_DONE && !isnan(x = curve_at(&s->j[i], f)))
			v[n++] = x;
	}
	if (n) {
		qsort(v, n, sizeof(*v), cmp_dbl);
		med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
		*stop = best > med;
	}
	free(v);
	return DEHBQ_OK;
}

/* Keep a point of t's curve (median-stop), while there is room. */
static int curve_add(struct sj *t, double f, double v)
{
	if (t->n == STOP_CURVE_MAX)
		return DEHBQ_OK;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		double *nf = realloc(t->f, cap * sizeof(*nf)), *nv;

		if (!nf)
			return DEHBQ_ENOMEM;
		t->f = nf;
		if (!(nv = realloc(t->v, cap * sizeof(*nv))))
			return DEHBQ_ENOMEM;
		t->v = nv;
		t->cap = cap;
	}
	t->f[t->n] = f;
	t->v[t->n++] = v;
	return DEHBQ_OK;
}

/*
 * A report of trial id, loss at f: record the rungs it passed (and, for
 * asha-stop, decide at each), then the median rule.  On a stop the
 * searcher's pending job is observed with the last value.
 */
static int stop_report(void *st, const struct optim_job *job, const double *vec,
		       double f, double loss, int *stop)
{
	struct stop *s = st;
	struct sj *t;
	size_t rank;
	int rc;

	*stop = 0;
	if (job->id >= s->nj || s->j[job->id].st != SJ_RUNNING)
		return DEHBQ_EINVAL;
	t = &s->j[job->id];
	if (s->median && (rc = curve_add(t, f, loss)))
		return rc;
	if (loss < t->best)
		t->best = loss;
	while (!*stop && t->next < s->L - 1 && f >= s->lad[t->next]) {
		struct srung *r = &s->rung[t->bracket * s->L + t->next];
		int judged = !s->median && t->next >= t->bracket;

		if ((rc = observe_level(s, job->id, vec, s->lad[t->next],
					loss)) ||
		    (judged && (rc = rung_add(r, loss, &rank))))
			return rc;
		if (judged && !asha_goes_on(s, r, rank))
			*stop = 1;
		else if (t->next++, (rc = issue_level(s, job->id, vec)))
			return rc;
	}
	if (!*stop && s->median) {
		if ((rc = median_stops(s, f, t->best, stop)))
			return rc;
		if (*stop && (rc = observe_level(s, job->id, vec,
						 s->lad[t->next], loss)))
			return rc;
	}
	if (*stop) {
		t->st = SJ_STOPPED;
		s->stopped++;
	}
	return DEHBQ_OK;
}

static int stop_tell(void *st, const struct optim_job *job, const double *vec,
		     enum optim_status status, double loss, double cost)
{
	struct stop *s = st;
	struct sj *t;
	int rc = DEHBQ_OK;

	(void)cost;
	if (job->id >= s->nj)
		return DEHBQ_EINVAL;
	t = &s->j[job->id];
	if (status == OPTIM_STOPPED) {
		if (t->st != SJ_STOPPED)
			return DEHBQ_EINVAL;
		sj_free(t);
		return DEHBQ_OK;
	}
	if (t->st == SJ_RUNNING)
		rc = observe_level(s, job->id, vec,
				   status == OPTIM_OK ? s->lad[s->L - 1]
						      : s->lad[t->next],
				   status == OPTIM_OK ? loss : INFINITY);
	if (rc)
		return rc;
	if (status == OPTIM_OK) {
		t->st = SJ_DONE;
		s->completed++;
		if (!s->median)
			sj_free(t);
	} else {
		t->st = SJ_FAILED;
		sj_free(t);
	}
	return DEHBQ_OK;
}

/* A job of these schedulers: at the maximum fidelity, with no state. */
static int stop_fits(const struct stop *s, const struct optim_job *job)
{
	return job->fidelity == s->lad[s->L - 1] && !job->state[0] &&
	       job->id < s->nj;
}

static int stop_reopen(void *st, const struct optim_job *job, const double *vec)
{
	struct stop *s = st;

	if (!stop_fits(s, job) || s->j[job->id].st != SJ_FAILED)
		return DEHBQ_EINVAL;
	s->j[job->id].st = SJ_RUNNING;
	return issue_level(s, job->id, vec);
}

static int stop_save(const void *st, struct jsonbuf *b)
{
	const struct stop *s = st;
	int rc;

	jsonbuf_put(b, "{", 1);
	rc = held_save(&s->h, b);
	jsonbuf_put(b, "}", 1);
	return rc ? rc : jsonbuf_failed(b);
}

/* The history back: reports (told 3) and results in their order, then
 * the jobs in flight. */
static int stop_replay(void *st, const struct optim_job *job, const double *vec,
		       int told, int reopened, enum optim_status status,
		       double loss)
{
	struct stop *s = st;
	struct sj *t;
	int stop;

	if (!job)
		return held_replay(&s->h, NULL);
	held_replay(&s->h, job);
	if (!(t = sj_get(s, job->id)))
		return DEHBQ_ENOMEM;
	/* a failed job that reports again, is told again or is in flight
	 * was put back by a requeue (which makes no record) */
	if ((told == 3 || told == 2 || (!told && reopened)) &&
	    t->st == SJ_FAILED)
		t->st = SJ_RUNNING;
	if (told == 3) /* a report: job->fidelity is the reported one */
		return stop_report(st, job, vec, job->fidelity, loss, &stop);
	if (job->fidelity != s->lad[s->L - 1] || job->state[0])
		return DEHBQ_EINVAL;
	if (told)
		return stop_tell(st, job, vec, status, loss, 0);
	return t->st == SJ_RUNNING && !t->issued ? issue_level(s, job->id, vec)
						 : DEHBQ_OK;
}

static int stop_describe(const void *st, struct jsonbuf *b)
{
	const struct stop *s = st;

	jsonbuf_printf(b, "\"rungs\":%d,\"stopped\":%lld,", s->L - 1,
		       (long long)s->stopped);
	return held_describe(&s->h, b);
}

const struct optim_ops optim_asha_stop_ops = {
	.name = "asha-stop",
	.summary = "ASHA, stopping type: one trial per configuration, "
		   "stopped at a rung unless in the top 1/eta",
	.caps = OPTIM_CAP_SEARCHER,
	.settings = asha_stop_settings,
	.open = asha_stop_open,
	.ask = stop_ask,
	.tell = stop_tell,
	.reopen = stop_reopen,
	.save = stop_save,
	.load = asha_stop_load,
	.describe = stop_describe,
	.replay = stop_replay,
	.report = stop_report,
	.free = stop_free,
};

const struct optim_ops optim_hyperband_stop_ops = {
	.name = "hyperband-stop",
	.summary = "Hyperband, stopping type: asha-stop in brackets of "
		   "growing grace, drawn per trial",
	.caps = OPTIM_CAP_SEARCHER,
	.settings = hb_stop_settings,
	.open = hb_stop_open,
	.ask = stop_ask,
	.tell = stop_tell,
	.reopen = stop_reopen,
	.save = stop_save,
	.load = hb_stop_load,
	.describe = stop_describe,
	.replay = stop_replay,
	.report = stop_report,
	.free = stop_free,
};

const struct optim_ops optim_median_stop_ops = {
	.name = "median-stop",
	.summary = "the median stopping rule (Optuna's MedianPruner): stop "
		   "a trial worse than the median of completed ones",
	.caps = OPTIM_CAP_SEARCHER | OPTIM_CAP_ONE_FIDELITY,
	.settings = median_stop_settings,
	.open = median_stop_open,
	.ask = stop_ask,
	.tell = stop_tell,
	.reopen = stop_reopen,
	.save = stop_save,
	.load = median_stop_load,
	.describe = stop_describe,
	.replay = stop_replay,
	.report = stop_report,
	.free = stop_free,
};
