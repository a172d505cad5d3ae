/*
 * bench_model.c - what a model-based optimiser's fit costs the
 * orchestrator: ask latency and refit time at n results, and whether 1,000
 * workers on 30-second trials are kept fed
 *
 * For each optimiser named (default tpe, bohb, gp, cts, gcp, dngo; a
 * searcher's name, such as dngo, runs it under fifo) and each
 * history size n (default 100, 1,000, 10,000), on Hartmann-6 at the
 * maximum fidelity (cts and gcp with 3 earlier tasks of 500 results each,
 * Hartmann-6 shifted by 0, 0.5 and 1, their prior fitted at open):
 *   1. n results are told (TPE and GP are given n_startup_trials = n, so
 *      these asks are uniform and cheap);
 *   2. latency: K asks, each told before the next, timed one by one; an
 *      ask during which the model refitted its hyperparameters (the
 *      optimiser's "fits" count in optim_describe went up) is a refit;
 *      p50 and p99 of the others, and the mean of the refits;
 *   3. sustained: 1,000 simulated workers, trials of U(15, 45) s.  The
 *      orchestrator is one server in virtual time: each tell and each ask
 *      advances its clock by the real time the call took, and a worker
 *      whose trial ended waits until its result is told and its next ask
 *      answered.  Printed: the server's capacity (asks/s = 1 / mean
 *      tell + ask time), the workers' idle share and their longest wait.
 *      The need is 1,000 / 30 = 33 asks/s.
 *
 * Usage: bench_model [--only OPT,...] [--sizes N,...] [--asks K]
 *                    [--trials T]
 * Exit codes: 0 ok, 100 usage, 111 optimiser failure.
 */
#include "benchfn.h"
#include "benchstat.h"
#include "err.h"
#include "gp.h"
#include "jsonbuf.h"
#include "optim.h"
#include "rng.h"
#include "searcher.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BM_WORKERS 1000
#define BM_MAXN	   16

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static struct benchfn fn;

/* The optimiser's "fits" from optim_describe (its searcher's, under a
 * scheduler), or 0. */
static double fits(const struct optim *o)
{
	struct jsonbuf b;
	cJSON *j;
	double v = 0;

	char *t;

	jsonbuf_init(&b);
	jsonbuf_put(&b, "{", 1);
	optim_describe(o, &b);
	jsonbuf_put(&b, "}", 1);
	if (!(t = jsonbuf_take(&b)))
		return 0;
	if ((j = cJSON_Parse(t))) {
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(j, "fits");

		if (!f)
			f = cJSON_GetObjectItemCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(j, "search"),
				"fits");

		if (cJSON_IsNumber(f))
			v = f->valuedouble;
		cJSON_Delete(j);
	}
	free(t);
	return v;
}

/* The earlier tasks of cts and gcp. */
#define BM_TASKS 3
#define BM_TASKN 500
static double tr_x[BM_TASKS * BM_TASKN * 6], tr_y[BM_TASKS * BM_TASKN];
static const size_t tr_n[BM_TASKS] = {BM_TASKN, BM_TASKN, BM_TASKN};
static const struct prior_tasks tr = {BM_TASKS, tr_n, tr_x, tr_y};

static void transfer_init(void)
{
	struct rng r;
	size_t i, d = (size_t)fn.dim;

	rng_seed(&r, 77);
	for (i = 0; i < BM_TASKS * BM_TASKN * d; i++)
		tr_x[i] = rng_uniform(&r);
	for (i = 0; i < BM_TASKS * BM_TASKN; i++)
		tr_y[i] = benchfn_loss(&fn, &tr_x[i * d], fn.max_budget, &r) +
			  0.5 * (double)(i / BM_TASKN);
}

static int open_with(const char *name, long n, struct optim **o)
{
	struct optim_setup u = {0};
	char err[DEHBQ_ERRLEN], set[128];
	cJSON *s = NULL;
	int rc;

	u.dim = fn.dim;
	u.min_fidelity = fn.min_budget;
	u.max_fidelity = fn.max_budget;
	u.eta = 3;
	u.seed = 1;
	if (!strcmp(name, "cts") || !strcmp(name, "gcp"))
		u.transfer = &tr;
	if (!optim_find(name) && search_find(name)) {
		/* a searcher (dngo): under fifo, with the start-up as above */
		snprintf(set, sizeof(set),
			 "{\"searcher\":\"%.16s\",\"search\":"
			 "{\"n_startup_trials\":%ld}}",
			 name, n > 2 ? n : 2);
		s = cJSON_Parse(set);
		name = "fifo";
	} else if (strcmp(name, "bohb") && strcmp(name, "cts")) {
		snprintf(set, sizeof(set), "{\"n_startup_trials\":%ld}",
			 n > 2 ? n : 2);
		s = cJSON_Parse(set);
	}
	u.settings = s;
	rc = optim_open(name, &u, o, err);
	cJSON_Delete(s);
	if (rc)
		fprintf(stderr, "bench_model: fatal: %s: %s\n", name, err);
	return rc;
}

/* Ask one job and tell it at once; dt: the ask's time. */
static int step(struct optim *o, struct rng *r, double *dt)
{
	struct optim_job j;
	double x[64], t0 = now(), loss;
	int rc = optim_ask(o, &j, x);

	*dt = now() - t0;
	if (rc)
		return rc;
	loss = benchfn_loss(&fn, x, j.fidelity, r);
	return optim_tell(o, j.id, OPTIM_OK, loss, j.fidelity);
}

static int latency(const char *name, long n, int K)
{
	double *lat = calloc((size_t)K, sizeof(double)), rsum = 0, dt;
	struct optim *o = NULL;
	struct rng r;
	int k, nl = 0, nr = 0, rc = 111;
	long i;

	rng_seed(&r, 2);
	if (!lat || open_with(name, n, &o))
		goto out;
	for (i = 0; i < n; i++)
		if (step(o, &r, &dt))
			goto out;
	for (k = 0; k < K; k++) {
		double f0 = fits(o);

		if (step(o, &r, &dt))
			goto out;
		if (fits(o) > f0) {
			rsum += dt;
			nr++;
		} else {
			lat[nl++] = dt;
		}
	}
	printf("%-6s %7ld %10.3f %10.3f %8d %12.3f\n", name, n,
	       nl ? benchstat_quantile(lat, nl, 0.5) * 1e3 : 0,
	       nl ? benchstat_quantile(lat, nl, 0.99) * 1e3 : 0, nr,
	       nr ? rsum / nr * 1e3 : 0);
	rc = 0;
out:
	optim_free(o);
	free(lat);
	return rc;
}

struct wk {
	uint64_t id;
	double end;
};

/* The worker whose trial ends first. */
static int first(const struct wk *w, int n)
{
	int i, b = 0;

	for (i = 1; i < n; i++)
		if (w[i].end < w[b].end)
			b = i;
	return b;
}

static int sustained(const char *name, long n, long T)
{
	static struct wk w[BM_WORKERS];
	double srv = 0, busy = 0, idle = 0, maxw = 0, x[64], dt;
	struct optim *o = NULL;
	struct optim_job j;
	struct rng r;
	long t;
	int i, rc = 111;

	rng_seed(&r, 3);
	if (open_with(name, n, &o))
		goto out;
	for (t = 0; t < n; t++)
		if (step(o, &r, &dt))
			goto out;
	for (i = 0; i < BM_WORKERS; i++) { /* everyone starts busy */
		if (optim_ask(o, &j, x))
			goto out;
		w[i].id = j.id;
		w[i].end = 15 + 30 * rng_uniform(&r);
	}
	for (t = 0; t < T; t++) {
		double t0, wait, len;

		i = first(w, BM_WORKERS);
		if (srv < w[i].end)
			srv = w[i].end;
		t0 = now();
		if (optim_job(o, w[i].id, &j, x) ||
		    optim_tell(o, w[i].id, OPTIM_OK,
			       benchfn_loss(&fn, x, j.fidelity, &r),
			       j.fidelity) ||
		    optim_ask(o, &j, x))
			goto out;
		dt = now() - t0;
		srv += dt;
		busy += dt;
		wait = srv - w[i].end;
		idle += wait;
		maxw = fmax(maxw, wait);
		len = 15 + 30 * rng_uniform(&r);
		w[i].id = j.id;
		w[i].end = srv + len;
	}
	printf("%-6s %7ld %12.1f %12.5f %12.3f\n", name, n, (double)T / busy,
	       idle / (idle + 30.0 * (double)T), maxw);
	rc = 0;
out:
	optim_free(o);
	return rc;
}

static int parse_list(char *s, long *v, int cap)
{
	int n = 0;
	char *tok, *end;

	for (tok = strtok(s, ","); tok && n < cap; tok = strtok(NULL, ",")) {
		v[n] = strtol(tok, &end, 10);
		if (*end || v[n] < 0 || v[n] > 1000000)
			return -1;
		n++;
	}
	return n;
}

int main(int argc, char **argv)
{
	static char defsizes[] = "100,1000,10000",
		    defonly[] = "tpe,bohb,gp,cts,gcp,dngo";
	char *only = defonly, *sizes = defsizes, err[DEHBQ_ERRLEN], *name;
	long ns[BM_MAXN], K = 200, T = 2000;
	const char *names[BM_MAXN];
	int nn, i, a, no = 0;

	gp_blas_single_thread();

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--only") && a + 1 < argc)
			only = argv[++a];
		else if (!strcmp(argv[a], "--sizes") && a + 1 < argc)
			sizes = argv[++a];
		else if (!strcmp(argv[a], "--asks") && a + 1 < argc)
			K = strtol(argv[++a], NULL, 10);
		else if (!strcmp(argv[a], "--trials") && a + 1 < argc)
			T = strtol(argv[++a], NULL, 10);
		else
			goto usage;
	}
	if ((nn = parse_list(sizes, ns, BM_MAXN)) < 1 || K < 10 || K > 100000 ||
	    T < 10 || T > 10000000)
		goto usage;
	for (name = strtok(only, ","); name && no < BM_MAXN;
	     name = strtok(NULL, ","))
		names[no++] = name;
	if (benchfn_init(&fn, "hartmann6", err) || fn.dim > 6)
		return 111;
	transfer_init();
	printf("# ask latency, Hartmann-6 at the maximum fidelity, %ld asks "
	       "after n results (ms)\n",
	       K);
	printf("%-6s %7s %10s %10s %8s %12s\n", "model", "n", "ask_p50",
	       "ask_p99", "refits", "refit_mean");
	for (a = 0; a < no; a++)
		for (i = 0; i < nn; i++)
			if (latency(names[a], ns[i], (int)K))
				return 111;
	printf("\n# sustained: %d workers, trials U(15, 45) s, %ld trials "
	       "after n results; need 33 asks/s\n",
	       BM_WORKERS, T);
	printf("%-6s %7s %12s %12s %12s\n", "model", "n", "asks_per_s",
	       "idle_share", "max_wait_s");
	for (a = 0; a < no; a++)
		for (i = 0; i < nn; i++)
			if (sustained(names[a], ns[i], T))
				return 111;
	return 0;
usage:
	fputs("usage: bench_model [--only OPT,...] [--sizes N,...] "
	      "[--asks K] [--trials T]\n",
	      stderr);
	return 100;
}
