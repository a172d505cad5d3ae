/*
 * enginebook.c - the bracket engine with the books optim.c keeps, for
 * check_dehb.c (enginebook.h)
 */
#include "enginebook.h"

#include "err.h"
#include "jsonbuf.h"
#include "searcher.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct ebjob {
	struct dehb_job j;
	double x[EB_MAXD];
};

struct pair {
	struct dehb *d;
	void *ss;	  /* its de searcher, under DEHB */
	cJSON *set;	  /* the searcher's settings */
	struct ebjob *fl; /* the books: jobs in flight */
	size_t n, cap;
	int64_t told, failed;
};
static struct pair pairs[8];

static const struct search_ops *de_ops(void)
{
	return search_find("de");
}

static struct pair *pair_of(const struct dehb *d)
{
	size_t i;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		if (pairs[i].d == d)
			return &pairs[i];
	ck_abort_msg("no such engine");
	return NULL;
}

double eb_toy_loss(const double *x, int dim, double fid)
{
	double s = 0;
	int i;

	for (i = 0; i < dim; i++)
		s += (x[i] - 0.3) * (x[i] - 0.3);
	return s + 1.0 / fid;
}

/* d with its books (and a de searcher with settings set, owned from here
 * on, when it runs DEHB; loaded from state when not NULL). */
static struct pair *attach(struct dehb *d, cJSON *set, const cJSON *state)
{
	const struct dehb_params *p = dehb_get_params(d);
	struct search_setup u;
	double ladder[16];
	char err[DEHBQ_ERRLEN];
	struct pair *q = pair_of(NULL);
	int l;

	ck_assert_int_le(p->dim, EB_MAXD);
	memset(q, 0, sizeof(*q));
	q->d = d;
	q->set = set;
	if (p->optimizer != DEHB_OPT_DEHB)
		return q;
	memset(&u, 0, sizeof(u));
	for (l = 0; l < dehb_levels(d); l++)
		ladder[l] = dehb_level_fidelity(d, l);
	u.dim = p->dim;
	u.seed = p->seed;
	u.min_fidelity = p->min_fidelity;
	u.max_fidelity = p->max_fidelity;
	u.eta = p->eta;
	u.settings = set;
	u.ladder = ladder;
	u.levels = dehb_levels(d);
	u.rungs = 1;
	u.fills = 1;
	ck_assert_msg((state ? de_ops()->load(&u, state, &q->ss, err)
			     : de_ops()->open(&u, &q->ss, err)) == DEHBQ_OK,
		      "%s", err);
	dehb_set_searcher(d, de_ops(), q->ss);
	return q;
}

struct dehb *eb_mkp_with(const struct dehb_params *p, const char *set)
{
	struct dehb *d = NULL;
	char err[DEHBQ_ERRLEN];

	ck_assert_msg(dehb_new(p, &d, err) == DEHBQ_OK, "%s", err);
	attach(d, set ? cJSON_Parse(set) : NULL, NULL);
	return d;
}

struct dehb *eb_mkp(const struct dehb_params *p)
{
	return eb_mkp_with(p, NULL);
}

struct dehb *eb_mk(enum dehb_optimizer o, double min, double max, int dim,
		   uint64_t seed)
{
	struct dehb_params p;

	dehb_params_init(&p);
	p.optimizer = o;
	p.min_fidelity = min;
	p.max_fidelity = max;
	p.dim = dim;
	p.seed = seed;
	return eb_mkp(&p);
}

void eb_free(struct dehb *d)
{
	struct pair *q = pair_of(d);

	if (q->ss)
		de_ops()->free(q->ss);
	cJSON_Delete(q->set);
	free(q->fl);
	memset(q, 0, sizeof(*q));
	dehb_free(d);
}

static struct ebjob *find(struct pair *q, uint64_t id)
{
	size_t i;

	for (i = 0; i < q->n; i++)
		if (q->fl[i].j.id == id)
			return &q->fl[i];
	return NULL;
}

static void book(struct pair *q, const struct dehb_job *j, const double *x)
{
	int dim = dehb_get_params(q->d)->dim;

	if (q->n == q->cap) {
		q->cap = q->cap ? 2 * q->cap : 64;
		ck_assert_ptr_nonnull(
			q->fl = realloc(q->fl, q->cap * sizeof(*q->fl)));
	}
	q->fl[q->n].j = *j;
	memcpy(q->fl[q->n++].x, x, (size_t)dim * sizeof(double));
}

int eb_ask(struct dehb *d, struct dehb_job *j, double *x)
{
	int rc = dehb_ask(d, j, x);

	if (rc == DEHBQ_OK)
		book(pair_of(d), j, x);
	return rc;
}

int eb_tell(struct dehb *d, uint64_t id, enum dehb_status st, double loss,
	    double cost)
{
	struct pair *q = pair_of(d);
	struct ebjob *e = find(q, id);
	struct dehb_counts c;
	int rc;

	dehb_get_counts(d, &c);
	if (!e)
		return (int64_t)id < c.asked ? DEHBQ_ESTATE : DEHBQ_ENOENT;
	if ((rc = dehb_tell(d, &e->j, e->x, st, loss, cost)))
		return rc;
	if (q->ss)
		ck_assert_int_eq(
			de_ops()->observe(q->ss, (int64_t)id, e->x,
					  e->j.fidelity,
					  st == DEHB_FAILED ? INFINITY : loss),
			DEHBQ_OK);
	q->told++;
	q->failed += st == DEHB_FAILED || isnan(loss);
	*e = q->fl[--q->n];
	return DEHBQ_OK;
}

int eb_reopen(struct dehb *d, const struct dehb_job *j, const double *x)
{
	struct pair *q = pair_of(d);
	struct dehb_counts c;
	struct dehb_job r = *j;
	int rc;

	dehb_get_counts(d, &c);
	if ((int64_t)j->id >= c.asked)
		return DEHBQ_ENOENT;
	if (find(q, j->id) || q->failed < 1)
		return DEHBQ_ESTATE;
	if ((rc = dehb_reopen(d, j, x)))
		return rc;
	r.reopened = 1;
	book(q, &r, x);
	q->told--;
	q->failed--;
	return DEHBQ_OK;
}

int eb_get(struct dehb *d, uint64_t id, struct dehb_job *j, double *x)
{
	struct ebjob *e = find(pair_of(d), id);

	if (!e)
		return DEHBQ_ENOENT;
	*j = e->j;
	if (x)
		memcpy(x, e->x, (size_t)dehb_get_params(d)->dim * sizeof(*x));
	return DEHBQ_OK;
}

int64_t eb_inflight(struct dehb *d)
{
	return (int64_t)pair_of(d)->n;
}

int64_t eb_told(struct dehb *d)
{
	return pair_of(d)->told;
}

int64_t eb_failed(struct dehb *d)
{
	return pair_of(d)->failed;
}

int eb_step(struct dehb *d, struct dehb_job *j, double *x)
{
	int rc = eb_ask(d, j, x);

	if (rc == DEHBQ_OK)
		ck_assert_int_eq(eb_tell(d, j->id, DEHB_OK,
					 eb_toy_loss(x, dehb_get_params(d)->dim,
						     j->fidelity),
					 j->fidelity),
				 DEHBQ_OK);
	return rc;
}

char *eb_save_text(struct dehb *d)
{
	struct pair *q = pair_of(d);
	struct jsonbuf b;
	char *s;

	jsonbuf_init(&b);
	ck_assert_int_eq(dehb_save(d, &b), DEHBQ_OK);
	if (q->ss) {
		jsonbuf_put(&b, "\n", 1);
		ck_assert_int_eq(de_ops()->save(q->ss, &b), DEHBQ_OK);
	}
	s = jsonbuf_take(&b);
	ck_assert_ptr_nonnull(s);
	return s;
}

struct dehb *eb_reload(struct dehb *d)
{
	struct pair *q = pair_of(d), *r;
	char *s = eb_save_text(d), err[DEHBQ_ERRLEN], *nl = strchr(s, '\n');
	cJSON *j, *ss = NULL;
	struct dehb *e = NULL;
	size_t i;

	if (nl)
		*nl = 0;
	j = cJSON_Parse(s);
	ck_assert_ptr_nonnull(j);
	ck_assert_msg(dehb_load(j, &e, err) == DEHBQ_OK, "%s", err);
	if (nl)
		ck_assert_ptr_nonnull(ss = cJSON_Parse(nl + 1));
	r = attach(e, q->set ? cJSON_Duplicate(q->set, 1) : NULL, ss);
	for (i = 0; i < q->n; i++) {
		book(r, &q->fl[i].j, q->fl[i].x);
		ck_assert_int_eq(dehb_replayed(e, &q->fl[i].j, q->fl[i].x),
				 DEHBQ_OK);
	}
	ck_assert_int_eq(dehb_replayed(e, NULL, NULL), DEHBQ_OK);
	r->told = q->told;
	r->failed = q->failed;
	cJSON_Delete(ss);
	cJSON_Delete(j);
	free(s);
	return e;
}
