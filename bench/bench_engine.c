/*
 * bench_engine.c - cost of each optimiser's ask+tell, and memory flatness
 *
 * Runs every optimiser of optim_table[] (through optim.h, as the
 * orchestrator does) with a no-op objective at D = 64 and prints the mean
 * ask+tell time per job (goal: < 20 us for DEHB) for a sequential loop and
 * for a window of 64 jobs in flight, plus the resident set size after 10k
 * and after all jobs (it must not grow for an optimiser that keeps no
 * history; ASHA keeps every result, docs/algorithm.md 10).
 *
 * Usage: bench_engine [jobs]   (default 200000)
 * Exit codes: 0 ok, 111 engine failure.
 */
#include "err.h"
#include "optim.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define DIM    64
#define WINDOW 64

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long rss_kb(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long pages = 0, res = 0;

	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &pages, &res) != 2)
		res = -1;
	fclose(f);
	return res < 0 ? -1 : res * (sysconf(_SC_PAGESIZE) / 1024);
}

static double loss_of(const double *x)
{
	double s = 0;
	int i;

	for (i = 0; i < DIM; i++)
		s += (x[i] - 0.5) * (x[i] - 0.5);
	return s;
}

/* Run n jobs with `window` in flight; fills the timings and RSS. */
static int run(const char *name, long n, int window, double *us, long *rss10k,
	       long *rssend)
{
	struct optim_setup u = {0};
	struct optim *d;
	struct optim_job j;
	uint64_t fl[WINDOW];
	double x[DIM], t0;
	char err[DEHBQ_ERRLEN];
	long done = 0;
	int nfl = 0, rc;

	u.dim = DIM;
	u.min_fidelity = 1;
	u.max_fidelity = 27;
	u.eta = 3;
	u.seed = 1;
	rc = optim_open(name, &u, &d, err);
	if (rc != DEHBQ_OK) {
		fprintf(stderr, "bench_engine: fatal: %s\n", err);
		return rc;
	}
	t0 = now();
	while (done < n) {
		while (nfl < window) {
			rc = optim_ask(d, &j, x);
			if (rc == DEHBQ_EAGAIN)
				break;
			if (rc != DEHBQ_OK)
				goto out;
			fl[nfl++] = j.id;
			if (nfl == window)
				break;
		}
		if (!nfl)
			break;
		/* tell the oldest; loss from the stored vector */
		rc = optim_job(d, fl[0], &j, x);
		if (rc == DEHBQ_OK)
			rc = optim_tell(d, fl[0], OPTIM_OK, loss_of(x), 1);
		if (rc != DEHBQ_OK)
			goto out;
		fl[0] = fl[--nfl];
		done++;
		if (done == 10000)
			*rss10k = rss_kb();
	}
	*us = (now() - t0) * 1e6 / (double)done;
	*rssend = rss_kb();
	rc = DEHBQ_OK;
out:
	optim_free(d);
	return rc;
}

int main(int argc, char **argv)
{
	long n = 200000, r10 = 0, rend = 0;
	int i;
	int w;

	if (argc > 1) {
		char *end;

		n = strtol(argv[1], &end, 10);
		if (*end || n < 10000) {
			fprintf(stderr,
				"usage: bench_engine [jobs >= 10000]\n");
			return 100;
		}
	}
	printf("# D=%d, (1,27,3), no-op objective, %ld jobs\n", DIM, n);
	printf("%-10s %6s %12s %12s %12s\n", "optimizer", "window", "us/job",
	       "rss@10k kB", "rss@end kB");
	for (i = 0; optim_table[i]; i++) {
		for (w = 1; w <= WINDOW; w *= WINDOW) {
			double us = 0;

			if (run(optim_table[i]->name, n, w, &us, &r10, &rend) !=
			    DEHBQ_OK) {
				fprintf(stderr, "bench_engine: fatal: engine "
						"failure\n");
				return 111;
			}
			printf("%-10s %6d %12.2f %12ld %12ld\n",
			       optim_table[i]->name, w, us, r10, rend);
		}
	}
	return 0;
}
