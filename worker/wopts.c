/*
 * wopts.c - dehbq-worker's command line: its options, their defaults and
 * checks, and the usage text (wopts.h)
 */
#include "wopts.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claim.h"
#include "run.h"
#include "slots.h"
#include "spec.h"
#include "version.h"

static const char usage[] =
	"usage: dehbq-worker --study DIR [options] -- CMD [ARGS...]\n"
	"\n"
	"Claim pending trials of the study DIR one at a time and run CMD for\n"
	"each.  Placeholders in ARGS: {config} {budget} {id} {attempt}\n"
	"{workdir} {result} {seed} {parent_workdir}.  CMD runs in the\n"
	"trial's work directory: give scripts by absolute path.\n"
	"\n"
	"options:\n"
	"  --study DIR          the study directory (required)\n"
	"  --trial-timeout S    kill a trial after S seconds (default: none)\n"
	"  --grace S            seconds between SIGTERM and SIGKILL "
	"(default 10)\n"
	"  --log-cap BYTES      cap of each trial log, suffix K/M/G allowed\n"
	"                       (default 10M)\n"
	"  --max-poll S         longest idle rescan period (default 5)\n"
	"  --max-trials N       exit after N trials (default: no limit)\n"
	"  --idle-exit S        exit after S seconds with nothing to claim\n"
	"  --time-limit S       claim no trial that would end after S seconds\n"
	"                       (default: SLURM_JOB_END_TIME if set)\n"
	"  --heartbeat S        heartbeat period, at most lease / 2\n"
	"                       (default: lease / 4)\n"
	"  --pick K             choose among the first K best trials "
	"(default 8)\n"
	"  --max-failures-in-a-row N\n"
	"                       exit (100) after N failed trials in a row; "
	"0 never\n"
	"                       (default: the study's "
	"runtime.max_failures_in_a_row)\n"
	"  --slots N            run up to N trials at once, each slot a "
	"worker\n"
	"                       of its own (default: the GPUs / K, else the\n"
	"                       cores / C, else 1)\n"
	"  --gpus LIST|auto     GPUs to share out, e.g. 0,1,2,3; auto: the\n"
	"                       inherited CUDA_VISIBLE_DEVICES (SLURM's),\n"
	"                       else what nvidia-smi -L lists\n"
	"  --gpus-per-trial K   GPUs of each slot (default 1)\n"
	"  --cpus-per-trial C   pin each slot to C cores of its own\n"
	"  --mem-per-trial SIZE RLIMIT_AS of each trainer, suffix K/M/G\n"
	"  -v, --verbose        log debug records too\n"
	"  -h, --help           show this help\n"
	"      --version        print the release and exit\n"
	"\n"
	"Exit codes: 0 done (FINISHED, --max-trials, --idle-exit,\n"
	"--time-limit, SIGTERM), 100 bad usage or study or\n"
	"--max-failures-in-a-row reached, 111 system failure.\n";

static int num(const char *opt, const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0) {
		fprintf(stderr,
			"dehbq-worker: option '--%s': '%s' is not a number "
			">= 0\n",
			opt, s);
		return -1;
	}
	*out = v;
	return 0;
}

static int bytes(const char *opt, const char *s, size_t *out)
{
	char *end;
	double v, m = 1;

	errno = 0;
	v = strtod(s, &end);
	if (*end == 'K' || *end == 'k')
		m = 1024, end++;
	else if (*end == 'M' || *end == 'm')
		m = 1024.0 * 1024, end++;
	else if (*end == 'G' || *end == 'g')
		m = 1024.0 * 1024 * 1024, end++;
	if (errno || end == s || *end || !(v >= 0) || v * m > 1e15) {
		fprintf(stderr,
			"dehbq-worker: option '--%s': '%s' is not a size "
			"(bytes, suffix K/M/G allowed)\n",
			opt, s);
		return -1;
	}
	*out = (size_t)(v * m);
	return 0;
}

/* An integer option in 1 ... max. */
static int count(const char *opt, const char *s, int max, int *out)
{
	double v;

	if (num(opt, s, &v))
		return -1;
	if (v != floor(v) || v < 1 || v > max) {
		fprintf(stderr,
			"dehbq-worker: option '--%s': '%s' is not an integer "
			"in 1 ... %d\n",
			opt, s, max);
		return -1;
	}
	*out = (int)v;
	return 0;
}

int wopts_parse(int argc, char **argv, struct wopts *o)
{
	static const struct option longs[] = {
		{"study", required_argument, NULL, 's'},
		{"trial-timeout", required_argument, NULL, 't'},
		{"grace", required_argument, NULL, 'g'},
		{"log-cap", required_argument, NULL, 'l'},
		{"max-poll", required_argument, NULL, 'p'},
		{"max-trials", required_argument, NULL, 'n'},
		{"idle-exit", required_argument, NULL, 'i'},
		{"time-limit", required_argument, NULL, 'T'},
		{"heartbeat", required_argument, NULL, 'b'},
		{"pick", required_argument, NULL, 'k'},
		{"max-failures-in-a-row", required_argument, NULL, 'F'},
		{"slots", required_argument, NULL, 'S'},
		{"gpus", required_argument, NULL, 'G'},
		{"gpus-per-trial", required_argument, NULL, 'K'},
		{"cpus-per-trial", required_argument, NULL, 'C'},
		{"mem-per-trial", required_argument, NULL, 'M'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	double d;
	size_t sz;
	int c, idx;

	memset(o, 0, sizeof(*o));
	o->grace = 10;
	o->log_cap = RUN_LOG_CAP;
	o->max_poll = 5;
	o->pick = CLAIM_PICK_K;
	o->max_fail = -1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+vh", longs, &idx)) != -1) {
		switch (c) {
		case 's':
			o->study = optarg;
			break;
		case 't':
			if (num("trial-timeout", optarg, &o->trial_timeout))
				return -1;
			break;
		case 'g':
			if (num("grace", optarg, &o->grace))
				return -1;
			break;
		case 'l':
			if (bytes("log-cap", optarg, &o->log_cap))
				return -1;
			break;
		case 'p':
			if (num("max-poll", optarg, &o->max_poll))
				return -1;
			break;
		case 'n':
			if (num("max-trials", optarg, &d))
				return -1;
			o->max_trials =
				d > LONG_MAX / 2 ? LONG_MAX / 2 : (long)d;
			break;
		case 'i':
			if (num("idle-exit", optarg, &o->idle_exit))
				return -1;
			break;
		case 'T':
			if (num("time-limit", optarg, &o->time_limit))
				return -1;
			break;
		case 'b':
			if (num("heartbeat", optarg, &o->heartbeat))
				return -1;
			break;
		case 'k':
			if (num("pick", optarg, &d))
				return -1;
			o->pick = d < 1 ? 1 : d > 1000 ? 1000 : (int)d;
			break;
		case 'F':
			if (num("max-failures-in-a-row", optarg, &d))
				return -1;
			if (d != floor(d) || d > SPEC_FAILURES_MAX) {
				fprintf(stderr,
					"dehbq-worker: option "
					"'--max-failures-in-a-row': '%s' is "
					"not an integer in 0 ... %d\n",
					optarg, SPEC_FAILURES_MAX);
				return -1;
			}
			o->max_fail = (long)d;
			break;
		case 'S':
			if (count("slots", optarg, SLOTS_MAX, &o->slots))
				return -1;
			break;
		case 'G':
			o->gpus = optarg;
			break;
		case 'K':
			if (count("gpus-per-trial", optarg, SLOTS_GPUS_PER_MAX,
				  &o->gpus_per))
				return -1;
			break;
		case 'C':
			if (count("cpus-per-trial", optarg, SLOTS_CPU_MAX,
				  &o->cpus_per))
				return -1;
			break;
		case 'M':
			if (bytes("mem-per-trial", optarg, &sz))
				return -1;
			if (sz < (16u << 20)) {
				fprintf(stderr,
					"dehbq-worker: option "
					"'--mem-per-trial': '%s' is below 16M, "
					"too little to start a trainer\n",
					optarg);
				return -1;
			}
			o->mem_per = sz;
			break;
		case 'v':
			o->verbose = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		case 'V':
			printf("dehbq-worker %s\n", dehbq_version);
			return 1;
		default:
			fprintf(stderr,
				"dehbq-worker: unknown or incomplete "
				"option '%s'\n",
				argv[optind - 1]);
			return -1;
		}
	}
	if (!o->study) {
		fputs("dehbq-worker: need --study DIR\n", stderr);
		return -1;
	}
	if (optind < argc && !strcmp(argv[optind - 1], "--"))
		o->cmd = argv + optind;
	else if (optind < argc) {
		fprintf(stderr,
			"dehbq-worker: put '--' before the command "
			"('%s')\n",
			argv[optind]);
		return -1;
	}
	if (!o->cmd || !o->cmd[0] || !o->cmd[0][0]) {
		fputs("dehbq-worker: need a command after '--'\n", stderr);
		return -1;
	}
	if (o->max_poll < 0.2)
		o->max_poll = 0.2;
	return 0;
}
