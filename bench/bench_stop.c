/*
 * bench_stop.c - live trials on a learning-curve table with a simulated
 * clock: quality at equal total epochs, time to quality with W workers,
 * and the scheduler's cost per decision (issue #35)
 *
 * The table (bench/data/make_lctab.py) holds, per task, a fixed design of
 * configurations (a unit-cube vector u each), the validation loss after
 * every epoch 1..E and the seconds the E epochs took.  A proposal is
 * looked up at the nearest design point (squared Euclidean distance in
 * the unit cube; ties to the lower index), as bench_transfer does.
 *
 * The clock: W simulated workers each run one job; epoch e of
 * configuration c ends time_E(c) / E after the one before.  When an epoch
 * ends, a job of a stopping scheduler (optim_stops) reports its loss
 * (optim_report) and is told OPTIM_STOPPED at once when the scheduler
 * says stop; a job that reaches its fidelity is told its loss there.  A
 * free worker asks at once; an ask that finds nothing to run (EAGAIN)
 * leaves it idle until the next tell.  A promotion scheduler's job at
 * fidelity f trains f epochs from scratch (a trainer without checkpoints,
 * the case live trials are for).  Decisions take no simulated time: their
 * real CPU time is measured instead and reported as the orchestrator's
 * load (CPU seconds per simulated second).  Events at one instant go in
 * the order they were scheduled, so a run is deterministic from its seed.
 *
 * Quality: the regret of the best job that trained all E epochs,
 * (loss_E - min) / (max - min), min and max over the task's design; 1
 * before one has.  A row is written when the total epochs trained first
 * reach k * E (k = 1..B; "evals" k is the cost in full trainings), so
 * methods compare at equal total epochs.
 *
 * A METHOD is LABEL=OPTIMISER[:SETTINGS] as in bench_seq (settings filled
 * as dehbq init fills them).  An optimiser that runs a study of one
 * fidelity and does not stop trials (fifo, random, tpe, ...) gets one of
 * E epochs; the others run fidelities 1..E with eta 3.
 *
 * Usage: bench_stop [--seeds N] [--budget B] [--workers W] [--tasks A,B]
 *                   [--target R] [--runs FILE] TABLE.csv METHOD...
 * Output (stdout): problem,method,seed,jobs,evals,regret (jobs = W), the
 * rows bench/seqcompare.py and bench/stopcompare.py read.  --runs FILE:
 * one row per run, problem,method,seed,workers,epochs,simtime,trials,
 * stopped,reports,decisions,cpu_mean_us,cpu_max_us,load,idle,sat_epoch_s,
 * t_target: load the decisions' CPU time over the simulated time, idle
 * the share of worker time spent idle (asks that found nothing to run),
 * sat_epoch_s W times the decisions' CPU per epoch trained (the epoch
 * length below which one core of decisions could not keep W workers fed:
 * times scale, the CPU does not), t_target the simulated seconds until
 * the regret first reached R (--target, default 0.02; empty when it never
 * did).
 * Exit codes: 0 ok, 100 usage or bad table, 111 optimiser failure.
 */
#include "benchopt.h"
#include "err.h"
#include "gp.h"
#include "optim.h"

#include <csv.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LC_DIM	   5
#define LC_EPOCHS  27
#define LC_NCFG	   1000
#define LC_MAXT	   16
#define LC_MAXW	   4096
#define LC_MAXCOL  64
#define LC_MAXMETH 32

struct lc_task {
	char name[32];
	int n;
	double u[LC_NCFG][LC_DIM];
	double loss[LC_NCFG][LC_EPOCHS];
	double dt[LC_NCFG]; /* seconds per epoch */
	double lo, hi;	    /* min and max of loss_E */
};

static struct lc_task tasks[LC_MAXT];
static int ntask;

/* The table's reader: libcsv callbacks fill one record, then store it. */
struct lc_reader {
	int col[3 + LC_DIM + LC_EPOCHS]; /* task, config, time, u.., loss.. */
	char field[LC_MAXCOL][64];
	int nf, row, bad;
};

enum { COL_TASK, COL_CONFIG, COL_TIME, COL_U, COL_LOSS = COL_U + LC_DIM };

static void lc_field(void *s, size_t len, void *ctx)
{
	struct lc_reader *r = ctx;

	if (r->nf < LC_MAXCOL)
		snprintf(r->field[r->nf], sizeof(r->field[0]), "%.*s",
			 (int)(len < 63 ? len : 63), (const char *)s);
	r->nf++;
}

static int lc_header(struct lc_reader *r)
{
	char name[16];
	int i, k;

	for (k = 0; k < COL_LOSS + LC_EPOCHS; k++) {
		if (k == COL_TASK)
			snprintf(name, sizeof(name), "task");
		else if (k == COL_CONFIG)
			snprintf(name, sizeof(name), "config");
		else if (k == COL_TIME)
			snprintf(name, sizeof(name), "time_%d", LC_EPOCHS);
		else if (k < COL_LOSS)
			snprintf(name, sizeof(name), "u%d", k - COL_U);
		else
			snprintf(name, sizeof(name), "loss_%d",
				 k - COL_LOSS + 1);
		for (i = 0; i < r->nf && i < LC_MAXCOL; i++)
			if (!strcmp(r->field[i], name))
				break;
		if (i == r->nf || i == LC_MAXCOL)
			return -1;
		r->col[k] = i;
	}
	return 0;
}

static int lc_num(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return errno || end == s || *end || !isfinite(*v);
}

static int lc_store(struct lc_reader *r)
{
	const char *name = r->field[r->col[COL_TASK]];
	double v[COL_LOSS + LC_EPOCHS];
	struct lc_task *t;
	int k, c;

	for (k = COL_CONFIG; k < COL_LOSS + LC_EPOCHS; k++)
		if (lc_num(r->field[r->col[k]], &v[k]))
			return -1;
	c = (int)v[COL_CONFIG];
	if (c < 0 || c >= LC_NCFG || c != v[COL_CONFIG] || v[COL_TIME] < 0)
		return -1;
	for (k = 0; k < ntask && strcmp(tasks[k].name, name); k++)
		;
	if (k == ntask) {
		if (ntask == LC_MAXT || !*name)
			return -1;
		snprintf(tasks[ntask++].name, sizeof(tasks[0].name), "%s",
			 name);
	}
	t = &tasks[k];
	if (c != t->n) /* configurations in order, 0, 1, ... */
		return -1;
	memcpy(t->u[c], &v[COL_U], sizeof(t->u[c]));
	memcpy(t->loss[c], &v[COL_LOSS], sizeof(t->loss[c]));
	t->dt[c] = v[COL_TIME] / LC_EPOCHS;
	t->n++;
	return 0;
}

static void lc_record(int term, void *ctx)
{
	struct lc_reader *r = ctx;

	(void)term;
	r->row++;
	if (r->nf > LC_MAXCOL || (r->row == 1 ? lc_header(r) : lc_store(r))) {
		if (!r->bad)
			r->bad = r->row;
	}
	r->nf = 0;
}

static int lc_load(const char *path)
{
	struct lc_reader r = {0};
	struct csv_parser p;
	char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n;
	int rc = 0;

	if (!f || csv_init(&p, CSV_STRICT | CSV_APPEND_NULL)) {
		fprintf(stderr, "bench_stop: %s: cannot read\n", path);
		if (f)
			fclose(f);
		return -1;
	}
	while (!rc && (n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (csv_parse(&p, buf, n, lc_field, lc_record, &r) != n)
			rc = -1;
	if (ferror(f) || csv_fini(&p, lc_field, lc_record, &r))
		rc = -1;
	csv_free(&p);
	fclose(f);
	if (rc || r.bad || !ntask) {
		fprintf(stderr,
			"bench_stop: %s: not a learning-curve table (row %d): "
			"regenerate it with bench/data/make_lctab.py\n",
			path, r.bad);
		return -1;
	}
	for (int k = 0; k < ntask; k++) {
		struct lc_task *t = &tasks[k];

		t->lo = INFINITY;
		t->hi = -INFINITY;
		for (int c = 0; c < t->n; c++) {
			t->lo = fmin(t->lo, t->loss[c][LC_EPOCHS - 1]);
			t->hi = fmax(t->hi, t->loss[c][LC_EPOCHS - 1]);
		}
		if (!(t->hi > t->lo))
			t->hi = t->lo + 1;
	}
	return 0;
}

/* A job in flight on one simulated worker. */
struct lc_job {
	uint64_t id;
	int cfg, target, epoch; /* epochs to train, epochs trained */
	double t;		/* when its next epoch ends */
	uint64_t seq;		/* order of scheduling: ties */
};

/* What one run measured. */
struct lc_stats {
	long epochs, trials, stopped, reports, decisions;
	double cpu, cpu_max, idle, t_target;
};

/* A binary heap of the jobs in flight, earliest (t, seq) on top. */
static int lc_before(const struct lc_job *a, const struct lc_job *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void lc_push(struct lc_job *h, int *n, struct lc_job j)
{
	int i = (*n)++;

	while (i && lc_before(&j, &h[(i - 1) / 2])) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = j;
}

static struct lc_job lc_pop(struct lc_job *h, int *n)
{
	struct lc_job top = h[0], last = h[--*n];
	int i = 0, c;

	while ((c = 2 * i + 1) < *n) {
		if (c + 1 < *n && lc_before(&h[c + 1], &h[c]))
			c++;
		if (!lc_before(&h[c], &last))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = last;
	return top;
}

static double lc_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Time one decision into st. */
#define LC_TIMED(st, call)                                                     \
	do {                                                                   \
		double t0_ = lc_cpu();                                         \
		rc = (call);                                                   \
		t0_ = lc_cpu() - t0_;                                          \
		(st)->cpu += t0_;                                              \
		(st)->cpu_max = fmax((st)->cpu_max, t0_);                      \
		(st)->decisions++;                                             \
	} while (0)

struct lc_sim {
	const struct lc_task *t;
	struct optim *o;
	struct lc_job heap[LC_MAXW];
	int n, idle, done, stops;
	uint64_t seq;
	double now, best, target;
	struct lc_stats st;
};

/* Free workers ask while there is work. */
static int lc_fill(struct lc_sim *s)
{
	struct optim_job j;
	double x[LC_DIM];
	int rc;

	while (s->idle && !s->done) {
		struct lc_job r = {0};
		double f;

		LC_TIMED(&s->st, optim_ask(s->o, &j, x));
		if (rc == DEHBQ_EAGAIN)
			return 0;
		if (rc == DEHBQ_EDONE) {
			s->done = 1;
			return 0;
		}
		if (rc)
			return rc;
		f = nearbyint(j.fidelity);
		if (f < 1 || f > LC_EPOCHS || fabs(f - j.fidelity) > 1e-6)
			return DEHBQ_ESTATE; /* not a whole epoch */
		r.id = j.id;
		r.cfg = bench_nearest(&s->t->u[0][0], s->t->n, LC_DIM, x);
		r.target = (int)f;
		r.t = s->now + s->t->dt[r.cfg];
		r.seq = s->seq++;
		lc_push(s->heap, &s->n, r);
		s->idle--;
		s->st.trials++;
	}
	return 0;
}

/* The epoch that ends first: report, stop, finish or go on. */
static int lc_step(struct lc_sim *s)
{
	struct lc_job r = lc_pop(s->heap, &s->n);
	double loss;
	int rc = 0, stop = 0;

	s->st.idle += s->idle * (r.t - s->now);
	s->now = r.t;
	r.epoch++;
	s->st.epochs++;
	loss = s->t->loss[r.cfg][r.epoch - 1];
	if (r.epoch == r.target) {
		LC_TIMED(&s->st, optim_tell(s->o, r.id, OPTIM_OK, loss,
					    s->t->dt[r.cfg] * r.target));
		if (!rc && r.target == LC_EPOCHS) {
			s->best = fmin(s->best, (loss - s->t->lo) /
							(s->t->hi - s->t->lo));
			if (s->best <= s->target && isnan(s->st.t_target))
				s->st.t_target = s->now;
		}
		s->idle++;
	} else if (s->stops) {
		LC_TIMED(&s->st,
			 optim_report(s->o, r.id, r.epoch, loss, &stop));
		s->st.reports++;
		if (!rc && stop) {
			LC_TIMED(&s->st,
				 optim_tell(s->o, r.id, OPTIM_STOPPED, NAN,
					    s->t->dt[r.cfg] * r.epoch));
			s->st.stopped++;
			s->idle++;
		}
	}
	if (!rc && r.epoch < r.target && !stop) {
		r.t = s->now + s->t->dt[r.cfg];
		r.seq = s->seq++;
		lc_push(s->heap, &s->n, r);
	}
	return rc ? rc : lc_fill(s);
}

static int lc_open(const struct bench_method *m, uint64_t seed,
		   struct optim **o)
{
	unsigned caps = optim_caps(m->opt);
	struct optim_setup u = {0};

	u.dim = LC_DIM;
	u.max_fidelity = LC_EPOCHS;
	u.min_fidelity =
		(caps & OPTIM_CAP_ONE_FIDELITY) && !(caps & OPTIM_CAP_STOPS)
			? LC_EPOCHS
			: 1;
	u.eta = 3;
	u.seed = seed;
	return bench_method_open("bench_stop", m, &u, o);
}

static void lc_row(const struct lc_sim *s, const struct bench_method *m,
		   uint64_t seed, int workers, int row)
{
	printf("%s,%s,%llu,%d,%d,%.10g\n", s->t->name, m->label,
	       (unsigned long long)seed, workers, row, s->best);
}

/* One run: B rows on stdout, one on runs. */
static int lc_run(int k, const struct bench_method *m, uint64_t seed,
		  int workers, int budget, double target, FILE *runs)
{
	static struct lc_sim s;
	int rc, row = 1;

	memset(&s, 0, sizeof(s));
	s.t = &tasks[k];
	s.best = 1;
	s.target = target;
	s.idle = workers;
	s.st.t_target = NAN;
	if (lc_open(m, seed, &s.o))
		return DEHBQ_EINVAL;
	s.stops = optim_stops(s.o);
	rc = lc_fill(&s);
	while (!rc && row <= budget) {
		if (!s.n) {
			rc = s.done ? 0 : DEHBQ_ESTATE;
			break;
		}
		rc = lc_step(&s);
		if (rc || s.st.epochs < (long)row * LC_EPOCHS)
			continue;
		lc_row(&s, m, seed, workers, row++);
	}
	while (!rc && row <= budget) /* the optimiser ended early */
		lc_row(&s, m, seed, workers, row++);
	if (!rc && runs)
		fprintf(runs,
			"%s,%s,%llu,%d,%ld,%.6g,%ld,%ld,%ld,%ld,%.4g,%.4g,"
			"%.4g,%.4g,%.4g,",
			s.t->name, m->label, (unsigned long long)seed, workers,
			s.st.epochs, s.now, s.st.trials, s.st.stopped,
			s.st.reports, s.st.decisions,
			1e6 * s.st.cpu / (double)s.st.decisions,
			1e6 * s.st.cpu_max, s.now > 0 ? s.st.cpu / s.now : 0,
			s.now > 0 ? s.st.idle / (s.now * workers) : 0,
			workers * s.st.cpu / (double)s.st.epochs);
	if (!rc && runs)
		fprintf(runs, isnan(s.st.t_target) ? "\n" : "%.6g\n",
			s.st.t_target);
	if (rc)
		fprintf(stderr, "bench_stop: fatal: %s seed %llu: %s\n",
			m->label, (unsigned long long)seed, dehbq_strerror(rc));
	optim_free(s.o);
	return rc;
}

/* --tasks: 1 when task k is named in list (NULL: every task). */
static int lc_chosen(const char *list, int k)
{
	size_t n = strlen(tasks[k].name);
	const char *p = list;

	if (!list)
		return 1;
	while ((p = strstr(p, tasks[k].name))) {
		if ((p == list || p[-1] == ',') && (!p[n] || p[n] == ','))
			return 1;
		p += n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct bench_method ms[LC_MAXMETH];
	const char *table = NULL, *only = NULL, *runpath = NULL;
	long seeds = 20, budget = 30, workers = 1;
	double target = 0.02;
	FILE *runs = NULL;
	int nm = 0, ai, i, k, rc = 0;
	long s;

	gp_blas_single_thread();
	for (ai = 1; ai < argc; ai++) {
		const char *a = argv[ai], *v = ai + 1 < argc ? argv[ai + 1] : 0;

		if (!strcmp(a, "--seeds") && v) {
			if (bench_long(argv[++ai], 1, 10000, &seeds))
				goto usage;
		} else if (!strcmp(a, "--budget") && v) {
			if (bench_long(argv[++ai], 1, 1000000, &budget))
				goto usage;
		} else if (!strcmp(a, "--workers") && v) {
			if (bench_long(argv[++ai], 1, LC_MAXW, &workers))
				goto usage;
		} else if (!strcmp(a, "--tasks") && v) {
			only = argv[++ai];
		} else if (!strcmp(a, "--runs") && v) {
			runpath = argv[++ai];
		} else if (!strcmp(a, "--target") && v) {
			char *end;

			target = strtod(argv[++ai], &end);
			if (*end || !(target >= 0 && target <= 1))
				goto usage;
		} else if (!table && a[0] != '-') {
			table = a;
		} else if (nm < LC_MAXMETH && a[0] != '-') {
			if (bench_method_parse(a, &ms[nm++]))
				goto usage;
		} else {
			goto usage;
		}
	}
	if (!table || !nm)
		goto usage;
	if (lc_load(table))
		return 100;
	if (runpath && !(runs = fopen(runpath, "w"))) {
		fprintf(stderr, "bench_stop: %s: %s\n", runpath,
			strerror(errno));
		return 100;
	}
	if (runs)
		fprintf(runs, "problem,method,seed,workers,epochs,simtime,"
			      "trials,stopped,reports,decisions,cpu_mean_us,"
			      "cpu_max_us,load,idle,sat_epoch_s,t_target\n");
	printf("problem,method,seed,jobs,evals,regret\n");
	for (k = 0; k < ntask && !rc; k++)
		for (i = 0; i < nm && !rc && lc_chosen(only, k); i++)
			for (s = 0; s < seeds && !rc; s++)
				rc = lc_run(k, &ms[i], (uint64_t)s,
					    (int)workers, (int)budget, target,
					    runs);
	for (i = 0; i < nm; i++)
		bench_method_release(&ms[i]);
	if (runs && fclose(runs))
		rc = DEHBQ_ESYS;
	return rc ? 111 : 0;
usage:
	fprintf(stderr,
		"usage: bench_stop [--seeds N] [--budget B] [--workers W] "
		"[--tasks A,B] [--target R] [--runs FILE] TABLE.csv "
		"LABEL=OPTIMISER[:SETTINGS]...\n");
	return 100;
}
