/*
 * bench_trainer.c - the C benchmark problems as a dehbq trainer
 *
 * Evaluates one configuration of a multi-fidelity benchmark from
 * common/benchfn.h at one budget, optionally sleeping in proportion to the
 * budget so that it behaves like a real training run, and prints the
 * trainer report on its last stdout line:
 *
 *   {"loss": L, "cost": C, "info": {"true_loss": T, "regret": R,
 *    "problem": "branin", "budget": B, "sleep": S}}
 *
 * cost is the budget (the simulated training cost, in fidelity units);
 * loss is the noisy loss at that fidelity, true_loss the noise-free loss
 * at full fidelity, regret true_loss - optimum (normalised by dim for
 * counting ones).  Noise is drawn from a generator seeded with --seed, or
 * $DEHBQ_SEED, or 0, so a trial re-run with the same seed reports the same
 * loss.
 *
 * Expected search spaces (native domains; examples/space_*.json):
 *   branin        x1 float [-5, 10], x2 float [0, 15]; budget in [1, 100]
 *   hartmann6     X_0 .. X_5 float [0, 1]; budget in [1, 100]
 *   countingones  cat_0 .. cat_{N-1} categorical {0, 1} (numbers, booleans
 *                 or the strings "0"/"1"), float_0 .. float_{N-1} float
 *                 [0, 1]; N from --n, from the problem name (countingones8)
 *                 or from the config (half its number of keys);
 *                 budget in [576/2N, 93312/2N]
 *   levyN         x_0 .. x_{N-1} float [-10, 10]; budget in [1, 100]
 *   rosenbrockN   x_0 .. x_{N-1} float [-5, 10]; budget in [1, 100]
 *   mixed4        lr float [1e-5, 1] (log), layers integer [1, 8], act
 *                 categorical {0, 1, 2}, dropout float [0, 0.8]; budget
 *                 in [1, 100]
 * Every parameter must be present and in range; extra keys are refused,
 * so a space that does not match the problem fails at the first trial.
 * Budgets outside the problem's range are clipped by benchfn.
 *
 * Usage: bench_trainer PROBLEM CONFIG BUDGET [--sleep-per-unit SECS]
 *                      [--seed S] [--n N]
 * Exit codes: 0 ok; 100 bad arguments or configuration (one line on
 * stderr); 111 system failure.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchfn.h"
#include "err.h"
#include "jsonfile.h"
#include "rng.h"

#define BT_USAGE                                                               \
	"usage: bench_trainer PROBLEM CONFIG BUDGET [--sleep-per-unit SECS] "  \
	"[--seed S] [--n N]\n"                                                 \
	"PROBLEM: branin, hartmann6, countingones, countingonesN, levyN, "     \
	"rosenbrockN or mixed4\n"

#define BT_EXIT_USAGE 100 /* bad arguments or configuration */
#define BT_EXIT_SYS   111 /* out of memory, write error */

struct bt_opts {
	const char *problem; /* as given on the command line */
	const char *config;  /* path of the config JSON file */
	double budget;	     /* fidelity to evaluate at, > 0 */
	double sleep_unit;   /* seconds slept per budget unit, >= 0 */
	uint64_t seed;	     /* noise seed */
	long n;		     /* counting ones N from --n; 0 = not given */
};

static void bt_die(int code, const char *fmt, const char *a, const char *b)
{
	fputs("bench_trainer: ", stderr);
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	exit(code);
}

/* Parse a finite double; 0 on success. */
static int bt_parse_double(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno != 0 || end == s || *end != '\0' || !isfinite(*out);
}

static int bt_parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (*s < '0' || *s > '9')
		return 1;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno != 0 || *end != '\0';
}

static void bt_parse_args(int argc, char **argv, struct bt_opts *o)
{
	const char *pos[3];
	const char *env;
	int npos = 0, i;
	uint64_t u;

	memset(o, 0, sizeof(*o));
	env = getenv("DEHBQ_SEED");
	if (env && *env && bt_parse_u64(env, &o->seed))
		bt_die(BT_EXIT_USAGE,
		       "DEHBQ_SEED '%s': not an unsigned integer%s", env, "");
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(BT_USAGE, stdout);
			exit(0);
		}
		if (!strcmp(a, "--sleep-per-unit") || !strcmp(a, "--seed") ||
		    !strcmp(a, "--n")) {
			const char *v = i + 1 < argc ? argv[i + 1] : NULL;

			if (!v)
				bt_die(BT_EXIT_USAGE, "%s needs a value%s", a,
				       "");
			i++;
			if (!strcmp(a, "--sleep-per-unit")) {
				if (bt_parse_double(v, &o->sleep_unit) ||
				    o->sleep_unit < 0 || o->sleep_unit > 3600)
					bt_die(BT_EXIT_USAGE,
					       "--sleep-per-unit '%s': want "
					       "seconds in [0, 3600]%s",
					       v, "");
			} else if (!strcmp(a, "--seed")) {
				if (bt_parse_u64(v, &o->seed))
					bt_die(BT_EXIT_USAGE,
					       "--seed '%s': not an unsigned "
					       "integer%s",
					       v, "");
			} else {
				if (bt_parse_u64(v, &u) || u < 1 || u > 256)
					bt_die(BT_EXIT_USAGE,
					       "--n '%s': want an integer in "
					       "[1, 256]%s",
					       v, "");
				o->n = (long)u;
			}
			continue;
		}
		if (a[0] == '-' && a[1] != '\0')
			bt_die(BT_EXIT_USAGE,
			       "unknown option '%s' (try --help)%s", a, "");
		if (npos == 3)
			bt_die(BT_EXIT_USAGE,
			       "unexpected argument '%s' (try "
			       "--help)%s",
			       a, "");
		pos[npos++] = a;
	}
	if (npos < 3) {
		fputs(BT_USAGE, stderr);
		exit(BT_EXIT_USAGE);
	}
	o->problem = pos[0];
	o->config = pos[1];
	if (bt_parse_double(pos[2], &o->budget) || o->budget <= 0)
		bt_die(BT_EXIT_USAGE, "budget '%s': want a positive number%s",
		       pos[2], "");
}

/* A float parameter in [low, high]; the unit value is written to *u. */
static void bt_get_float(const struct jsonfile *jf, const char *key, double low,
			 double high, double *u)
{
	char err[DEHBQ_ERRLEN];
	double v;

	if (jsonfile_get_number(jf, jsonfile_root(jf), key, JSONFILE_REQUIRED,
				low, high, &v, err))
		bt_die(BT_EXIT_USAGE, "%s%s", err, "");
	*u = (v - low) / (high - low);
}

/* A {0, 1} categorical: number 0/1, false/true or "0"/"1". */
static void bt_get_bit(const struct jsonfile *jf, const char *key, double *u)
{
	char err[DEHBQ_ERRLEN];
	const cJSON *it =
		cJSON_GetObjectItemCaseSensitive(jsonfile_root(jf), key);

	if (!it) {
		jsonfile_errf(jf, NULL, err, "missing parameter '%s'", key);
		bt_die(BT_EXIT_USAGE, "%s%s", err, "");
	}
	if (cJSON_IsBool(it))
		*u = cJSON_IsTrue(it) ? 1 : 0;
	else if (cJSON_IsNumber(it) &&
		 (it->valuedouble == 0 || it->valuedouble == 1))
		*u = it->valuedouble;
	else if (cJSON_IsString(it) && (!strcmp(it->valuestring, "0") ||
					!strcmp(it->valuestring, "1")))
		*u = it->valuestring[0] == '1';
	else {
		jsonfile_errf(jf, it, err, "'%s' must be 0 or 1", key);
		bt_die(BT_EXIT_USAGE, "%s%s", err, "");
	}
}

/*
 * Map the config to a unit vector for f; u has room for f->dim entries.
 * Refuses missing, out-of-range and unknown keys.
 */
static void bt_config_to_unit(const struct jsonfile *jf,
			      const struct benchfn *f, double *u)
{
	char err[DEHBQ_ERRLEN], key[32];
	int i, nkeys;

	nkeys = cJSON_GetArraySize(jsonfile_root(jf));
	switch (f->kind) {
	case BENCHFN_BRANIN:
		bt_get_float(jf, "x1", -5, 10, &u[0]);
		bt_get_float(jf, "x2", 0, 15, &u[1]);
		break;
	case BENCHFN_HARTMANN6:
		for (i = 0; i < 6; i++) {
			snprintf(key, sizeof(key), "X_%d", i);
			bt_get_float(jf, key, 0, 1, &u[i]);
		}
		break;
	case BENCHFN_LEVY:
	case BENCHFN_ROSENBROCK:
		for (i = 0; i < f->n; i++) {
			snprintf(key, sizeof(key), "x_%d", i);
			bt_get_float(jf, key,
				     f->kind == BENCHFN_LEVY ? -10 : -5, 10,
				     &u[i]);
		}
		break;
	case BENCHFN_MIXED: /* each value to the middle of its cell */
		bt_get_float(jf, "lr", 1e-5, 1, &u[0]);
		u[0] = (log10(fmax(u[0] * (1 - 1e-5) + 1e-5, 1e-5)) + 5) / 5;
		bt_get_float(jf, "layers", 1, 8, &u[1]);
		u[1] = (floor(u[1] * 7 + 0.5) + 0.5) / 8;
		bt_get_float(jf, "act", 0, 2, &u[2]);
		u[2] = (floor(u[2] * 2 + 0.5) + 0.5) / 3;
		bt_get_float(jf, "dropout", 0, 0.8, &u[3]);
		break;
	case BENCHFN_COUNTINGONES:
		for (i = 0; i < f->n; i++) {
			snprintf(key, sizeof(key), "cat_%d", i);
			bt_get_bit(jf, key, &u[i]);
			snprintf(key, sizeof(key), "float_%d", i);
			bt_get_float(jf, key, 0, 1, &u[f->n + i]);
		}
		break;
	}
	if (nkeys != f->dim) {
		jsonfile_errf(jf, NULL, err,
			      "%d parameters, but this problem takes %d "
			      "(see the spaces at the top of "
			      "examples/bench_trainer.c)",
			      nkeys, f->dim);
		bt_die(BT_EXIT_USAGE, "%s%s", err, "");
	}
}

/* Sleep secs seconds, resuming after signals that do not kill us. */
static void bt_sleep(double secs)
{
	struct timespec ts;

	if (secs <= 0)
		return;
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

int main(int argc, char **argv)
{
	char err[DEHBQ_ERRLEN], name[32];
	struct bt_opts o;
	struct jsonfile *jf = NULL;
	struct benchfn f;
	struct rng r;
	double u[512], loss, true_loss, regret;
	cJSON *rep = NULL, *info;
	char *txt = NULL;
	int rc = BT_EXIT_SYS;

	bt_parse_args(argc, argv, &o);
	if (jsonfile_load(o.config, JSONFILE_CAP, &jf, err))
		bt_die(BT_EXIT_USAGE, "%s%s", err, "");
	if (!cJSON_IsObject(jsonfile_root(jf)))
		bt_die(BT_EXIT_USAGE, "%s: the config must be a JSON object%s",
		       o.config, "");

	/* countingones without N: --n, else half the config's keys. */
	if (!strcmp(o.problem, "countingones")) {
		long n = o.n ? o.n : cJSON_GetArraySize(jsonfile_root(jf)) / 2;

		snprintf(name, sizeof(name), "countingones%ld", n < 1 ? 1 : n);
	} else {
		if (strlen(o.problem) >= sizeof(name))
			bt_die(BT_EXIT_USAGE, "problem '%s': unknown%s",
			       o.problem, "");
		snprintf(name, sizeof(name), "%s", o.problem);
	}
	if (benchfn_init(&f, name, err))
		bt_die(BT_EXIT_USAGE, "%s%s", err, "");
	if (o.n && f.n != o.n)
		bt_die(BT_EXIT_USAGE, "--n disagrees with problem '%s'%s",
		       o.problem, "");
	bt_config_to_unit(jf, &f, u);

	bt_sleep(o.budget * o.sleep_unit);
	rng_seed(&r, o.seed);
	loss = benchfn_loss(&f, u, o.budget, &r);
	true_loss = benchfn_true_loss(&f, u);
	regret = benchfn_regret(&f, u);

	if (!(rep = cJSON_CreateObject()) ||
	    jsonfile_add_number(rep, "loss", loss) ||
	    jsonfile_add_number(rep, "cost", o.budget) ||
	    !(info = cJSON_AddObjectToObject(rep, "info")) ||
	    jsonfile_add_number(info, "true_loss", true_loss) ||
	    jsonfile_add_number(info, "regret", regret) ||
	    !cJSON_AddStringToObject(info, "problem", name) ||
	    jsonfile_add_number(info, "budget", o.budget) ||
	    jsonfile_add_number(info, "sleep", o.budget * o.sleep_unit) ||
	    !(txt = cJSON_PrintUnformatted(rep))) {
		fputs("bench_trainer: out of memory\n", stderr);
		goto fail;
	}
	if (printf("%s\n", txt) < 0 || fflush(stdout) == EOF) {
		fprintf(stderr, "bench_trainer: write(stdout): %s\n",
			strerror(errno));
		goto fail;
	}
	rc = 0;
fail:
	free(txt);
	cJSON_Delete(rep);
	jsonfile_free(jf);
	return rc;
}
