/*
 * bench_guard.c - the seam's guard (issue 34): what an optimiser asks,
 * fingerprinted, so that two builds can be compared bit for bit
 *
 * For an optimiser and each of its SETTINGS (JSON objects), on 5 ladders
 * (min..max by eta: 1..2 by 3, 1..27 by 3, 1..81 by 3, 3..100 by 2,
 * 1..1000 by 10) and 1, 4 and 16 jobs in flight, three seeds each: a
 * driver asks while fewer than w jobs are out, else tells one it picks
 * from its own stream (one in ten failed), in 4 dimensions, 150
 * evaluations.  A line per (settings, ladder, w): the FNV-1a hash of every
 * job asked (id, fidelity, bracket, rung, kind, parent, vector bits; not
 * the per-trial state, which a refactoring may rename).
 *
 * --save DIR writes the snapshot after 5, 45, 85 and 125 operations of
 * the first seed (DIR/g_S_L_W_P.json); --load DIR runs the same prefix,
 * loads that file (written by another build) instead of going on, and
 * hashes the next 300 operations: a build that reads an older one's
 * snapshots as it would have gone on prints the older one's --save lines.
 *
 * Usage: bench_guard [--save DIR | --load DIR] OPTIMISER SETTINGS...
 * Exit codes: 0 ok, 100 usage, 111 an optimiser or file failure.
 */
#include "err.h"
#include "jsonbuf.h"
#include "optim.h"
#include "rng.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define G_DIM 4
#define G_W   16

static const double ladders[][3] = {
	{1, 2, 3}, {1, 27, 3}, {1, 81, 3}, {3, 100, 2}, {1, 1000, 10}};
static const int workers[] = {1, 4, 16};

struct drv {
	struct rng r;
	uint64_t id[G_W];
	double x[G_W][G_DIM];
	int n, w;
	uint64_t h; /* FNV-1a of the jobs asked while hashing */
};

static void fnv(uint64_t *h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--) {
		*h ^= *c++;
		*h *= UINT64_C(1099511628211);
	}
}

static void die(const char *what, const char *err)
{
	fprintf(stderr, "bench_guard: %s: %s\n", what, err);
	exit(111);
}

/* k operations of d on o; the asks hashed when hash. */
static void run(struct optim *o, struct drv *d, int k, int hash)
{
	while (k-- > 0) {
		struct optim_job j;
		double x[G_DIM], loss = 0;
		int t, i, bad;

		if (d->n < d->w && optim_ask(o, &j, x) == DEHBQ_OK) {
			if (hash) {
				fnv(&d->h, &j.id, sizeof(j.id));
				fnv(&d->h, &j.fidelity, sizeof(j.fidelity));
				fnv(&d->h, &j.bracket, sizeof(j.bracket));
				fnv(&d->h, &j.rung, sizeof(j.rung));
				fnv(&d->h, &j.kind, sizeof(j.kind));
				fnv(&d->h, &j.parent, sizeof(j.parent));
				fnv(&d->h, x, sizeof(x));
			}
			d->id[d->n] = j.id;
			memcpy(d->x[d->n++], x, sizeof(x));
			continue;
		}
		if (!d->n)
			return;
		t = (int)(rng_uniform(&d->r) * d->n);
		for (i = 0; i < G_DIM; i++)
			loss += (d->x[t][i] - 0.3) * (d->x[t][i] - 0.3);
		bad = rng_uniform(&d->r) < 0.1;
		if (optim_tell(o, d->id[t], bad ? OPTIM_FAILED : OPTIM_OK, loss,
			       1))
			die("tell", "refused");
		d->id[t] = d->id[d->n - 1];
		memcpy(d->x[t], d->x[d->n - 1], sizeof(d->x[t]));
		d->n--;
	}
}

static struct optim *open_one(const char *name, struct optim_setup *u)
{
	char err[DEHBQ_ERRLEN];
	struct optim *o;

	if (optim_open(name, u, &o, err))
		die(name, err);
	return o;
}

/* The snapshot after the prefix, written (save) or read back (load). */
static struct optim *snapshot(const char *dir, int save, struct optim *o,
			      struct optim_setup *u, int s, int l, int w,
			      int pre)
{
	char path[4096], err[DEHBQ_ERRLEN], *text;
	struct jsonbuf b;
	struct optim *back;
	cJSON *js;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/g_%d_%d_%d_%d.json", dir, s, l, w,
		 pre);
	if (save) {
		jsonbuf_init(&b);
		if (optim_save(o, &b) || !(f = fopen(path, "w")) ||
		    fwrite(b.p, 1, b.len, f) != b.len || fclose(f))
			die(path, "cannot write");
		jsonbuf_free(&b);
		return o;
	}
	if (!(f = fopen(path, "r")) || fseek(f, 0, SEEK_END) ||
	    (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
	    !(text = calloc((size_t)n + 1, 1)) ||
	    fread(text, 1, (size_t)n, f) != (size_t)n)
		die(path, "cannot read");
	fclose(f);
	if (!(js = cJSON_Parse(text)))
		die(path, "not JSON");
	if (optim_load(js, u, NULL, 0, &back, err))
		die(path, err);
	cJSON_Delete(js);
	free(text);
	optim_free(o);
	return back;
}

int main(int argc, char **argv)
{
	const char *dir = NULL, *name;
	int mode = 0, a = 1, s, l, w, seed, pre;

	if (argc > 2 &&
	    (!strcmp(argv[1], "--save") || !strcmp(argv[1], "--load"))) {
		mode = argv[1][2] == 's' ? 1 : 2;
		dir = argv[2];
		a = 3;
	}
	if (argc - a < 2) {
		fprintf(stderr, "usage: bench_guard [--save DIR | --load DIR] "
				"OPTIMISER SETTINGS...\n");
		return 100;
	}
	name = argv[a++];
	for (s = a; s < argc; s++)
		for (l = 0; l < 5; l++)
			for (w = 0; w < 3; w++) {
				struct optim_setup u;
				cJSON *set = cJSON_Parse(argv[s]);
				struct drv d;

				if (!set)
					die(argv[s], "not JSON");
				memset(&u, 0, sizeof(u));
				u.dim = G_DIM;
				u.min_fidelity = ladders[l][0];
				u.max_fidelity = ladders[l][1];
				u.eta = ladders[l][2];
				u.lim.fevals = 150;
				u.settings = set;
				memset(&d, 0, sizeof(d));
				d.h = UINT64_C(1469598103934665603);
				d.w = workers[w];
				for (seed = 1; !mode && seed <= 3; seed++) {
					struct optim *o;

					u.seed = (uint64_t)(seed * 7 + s);
					o = open_one(name, &u);
					rng_seed(&d.r, (uint64_t)seed);
					d.n = 0;
					run(o, &d, 400, 1);
					optim_free(o);
				}
				for (pre = 5; mode && pre <= 125; pre += 40) {
					struct optim *o;

					u.seed = (uint64_t)(7 + s);
					o = open_one(name, &u);
					rng_seed(&d.r, (uint64_t)(w * 7 + pre));
					d.n = 0;
					run(o, &d, pre, 0);
					o = snapshot(dir, mode == 1, o, &u,
						     s - a, l, w, pre);
					run(o, &d, 300, 1);
					optim_free(o);
				}
				printf("%s %d %d %016llx\n", argv[s], l,
				       workers[w], (unsigned long long)d.h);
				cJSON_Delete(set);
			}
	return 0;
}
