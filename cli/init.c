/*
 * init.c - `dehbq validate FILE` and `dehbq init STUDY ...`
 *
 * init is where bad specs are caught: it validates the spec (or builds one
 * from a space plus options), creates the study directory, and publishes
 * study.json with link(2), which refuses to replace an existing file, so
 * an existing study is never overwritten, not even by a racing init.
 */
#include "cli.h"
#include "init_impl.h"

#include "atomicfile.h"
#include "err.h"
#include "fsutil.h"
#include "id.h"
#include "jsonfile.h"
#include "optim.h"
#include "space.h"
#include "spec.h"
#include "study.h"
#include "timeutil.h"
#include "transfer.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char validate_usage[] =
	"usage: dehbq validate FILE\n"
	"\n"
	"Check a search space (dehbq-space/1 or ConfigSpace JSON) or a study\n"
	"spec (dehbq-study/1).  Prints a summary and exits 0 when valid; "
	"prints\n"
	"one error line (file:line:col: ...) and exits 100 when not.\n";

int cli_validate(int argc, char **argv)
{
	char err[DEHBQ_ERRLEN];
	struct jsonfile *jf;
	const cJSON *fmt;
	int rc;

	if (cli_wants_help(argc, argv)) {
		fputs(validate_usage, stdout);
		return CLI_OK;
	}
	if ((rc = cli_positional("validate", validate_usage, argc, argv, 1,
				 "FILE", NULL)))
		return rc;
	if ((rc = jsonfile_load(argv[1], SPEC_CAP, &jf, err)))
		return cli_fail("validate", cli_exit_code(rc), "%s", err);
	fmt = cJSON_GetObjectItemCaseSensitive(jsonfile_root(jf), "format");
	if (cJSON_IsString(fmt) && !strcmp(fmt->valuestring, SPEC_FORMAT)) {
		struct spec s;

		jsonfile_free(jf);
		if ((rc = spec_load(argv[1], 1, &s, err)) ||
		    (cli_init_one_fidelity_default(&s, &(struct init_over){0}),
		     (rc = cli_init_optimizer_settings(&s, argv[1], err))) ||
		    (rc = cli_init_check_fidelity(&s, argv[1], err))) {
			spec_release(&s);
			return cli_fail("validate", cli_exit_code(rc), "%s",
					err);
		}
		printf("%s: valid study spec: %d parameters, fidelity %g..%g, "
		       "eta %g, optimizer %s\n",
		       argv[1], space_dim(s.space), s.min_fidelity,
		       s.max_fidelity, s.eta, s.optimizer);
		spec_release(&s);
		return CLI_OK;
	}
	{
		struct space *sp;

		rc = space_from_json(jf, jsonfile_root(jf), &sp, err);
		jsonfile_free(jf);
		if (rc)
			return cli_fail("validate", cli_exit_code(rc), "%s",
					err);
		printf("%s: valid search space: %d parameters\n", argv[1],
		       space_dim(sp));
		space_free(sp);
	}
	return CLI_OK;
}

const char cli_init_usage[] =
	"usage: dehbq init STUDY --spec FILE\n"
	"   or: dehbq init STUDY --space FILE [--min-budget X --max-budget Y"
	" | --budget V]\n"
	"                  [--eta E] [--fevals N] [--brackets N]\n"
	"                  [--walltime SECS] [--total-cost C] [--seed S]\n"
	"                  [--optimizer NAME] [--scheduler NAME --searcher "
	"NAME]\n"
	"                  [--name NAME] [--lease SECS] [--poll SECS]\n"
	"                  [--max-attempts N] [--max-failures-in-a-row N]\n"
	"                  [--prefetch N] [--max-inflight N]\n"
	"                  [--objective NAME[:max][:WEIGHT] ...]\n"
	"                  [--scalarise copula|linear|random-weights]\n"
	"                  [--selection scalar|pareto|hypervolume]\n"
	"                  [--transfer-from STUDY|FILE.jsonl|FILE.csv ...]\n"
	"\n"
	"Two or more --objective make a multi-objective study: the trainer\n"
	"reports {\"objectives\": {\"NAME\": value, ...}} (the names are in\n"
	"$DEHBQ_OBJECTIVES), and dehbq pareto STUDY prints the front.\n"
	"--transfer-from (repeatable) copies earlier studies' results, or a\n"
	"JSON-lines file of evaluations, into STUDY/state/transfer.jsonl for\n"
	"the optimisers that use them (below).\n"
	"\n"
	"Without --min-budget and --max-budget the study has one fidelity\n"
	"(--budget V, default 1: {budget} is V), and its optimiser defaults\n"
	"to one for such studies; the multi-fidelity ones refuse it.\n"
	"\n"
	"Create the study directory STUDY.  Options given with --spec "
	"override\n"
	"the spec's values.  At least one termination option is required,\n"
	"but for pbt, which ends when every member is done.\n"
	"An existing study is never overwritten.\n";

static const struct option init_opts[] = {
	{"spec", required_argument, NULL, OPT_SPEC},
	{"space", required_argument, NULL, OPT_SPACE},
	{"min-budget", required_argument, NULL, OPT_MIN},
	{"max-budget", required_argument, NULL, OPT_MAX},
	{"budget", required_argument, NULL, OPT_BUDGET},
	{"eta", required_argument, NULL, OPT_ETA},
	{"fevals", required_argument, NULL, OPT_FEVALS},
	{"brackets", required_argument, NULL, OPT_BRACKETS},
	{"walltime", required_argument, NULL, OPT_WALLTIME},
	{"total-cost", required_argument, NULL, OPT_COST},
	{"seed", required_argument, NULL, OPT_SEED},
	{"optimizer", required_argument, NULL, OPT_OPTIMIZER},
	{"multi-fidelity", required_argument, NULL, OPT_MF},
	{"scheduler", required_argument, NULL, OPT_SCHEDULER},
	{"searcher", required_argument, NULL, OPT_SEARCHER},
	/* applied in this order: --sampler after the scheduler */
	{"sampler", required_argument, NULL, OPT_SAMPLER},
	{"prefetch", required_argument, NULL, OPT_PREFETCH},
	{"max-inflight", required_argument, NULL, OPT_INFLIGHT},
	{"name", required_argument, NULL, OPT_NAME},
	{"lease", required_argument, NULL, OPT_LEASE},
	{"poll", required_argument, NULL, OPT_POLL},
	{"max-attempts", required_argument, NULL, OPT_ATTEMPTS},
	{"max-failures-in-a-row", required_argument, NULL, OPT_FAILURES},
	{"objective", required_argument, NULL, OPT_OBJECTIVE},
	{"scalarise", required_argument, NULL, OPT_SCALARISE},
	{"selection", required_argument, NULL, OPT_SELECTION},
	{"transfer-from", required_argument, NULL, OPT_TRANSFER},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* --objective (replacing the spec's), --scalarise, --selection. */
static int apply_objectives(struct spec *s, const struct init_over *o)
{
	char err[DEHBQ_ERRLEN];
	int i;

	if (o->nobj > OBJECTIVES_MAX)
		return cli_usage_error("init", cli_init_usage,
				       "at most %d --objective options",
				       OBJECTIVES_MAX);
	if (o->nobj) {
		objectives_defaults(&s->obj);
		for (i = 0; i < o->nobj; i++)
			if (objectives_add_flag(&s->obj, o->objv[i], err))
				return cli_usage_error("init", cli_init_usage,
						       "%s", err);
	}
	if ((o->opt[OPT_SCALARISE] &&
	     objectives_set_scalarise(&s->obj, o->opt[OPT_SCALARISE], err)) ||
	    (o->opt[OPT_SELECTION] &&
	     objectives_set_selection(&s->obj, o->opt[OPT_SELECTION], err)))
		return cli_usage_error("init", cli_init_usage, "%s", err);
	return cli_init_check_objectives(s);
}

int cli_init_bad_opt(const char *name, const char *val, const char *want)
{
	return cli_usage_error("init", cli_init_usage,
			       "option '--%s': '%s' is not %s", name, val,
			       want);
}

static int apply(struct spec *s, const struct init_over *o)
{
	const struct option *op;
	int64_t iv;
	double dv;
	int rc;

	for (op = init_opts; op->name; op++) {
		const char *v = op->val > 255 ? o->opt[op->val] : NULL;

		if (!v)
			continue;
		switch (op->val) {
		case OPT_BUDGET:
			if (cli_parse_double(v, &dv) || !(dv > 0))
				return cli_init_bad_opt(op->name, v,
							"a number > 0");
			s->min_fidelity = s->max_fidelity = dv;
			break;
		case OPT_MIN:
		case OPT_MAX:
		case OPT_ETA:
		case OPT_WALLTIME:
		case OPT_COST:
		case OPT_LEASE:
		case OPT_POLL:
			if (cli_parse_double(v, &dv) || dv < 0)
				return cli_init_bad_opt(
					op->name, v, "a non-negative number");
			if (op->val == OPT_MIN)
				s->min_fidelity = dv;
			else if (op->val == OPT_MAX)
				s->max_fidelity = dv;
			else if (op->val == OPT_ETA)
				s->eta = dv;
			else if (op->val == OPT_WALLTIME)
				s->walltime = dv;
			else if (op->val == OPT_COST)
				s->total_cost = dv;
			else if (op->val == OPT_LEASE)
				s->lease = dv;
			else
				s->poll = dv;
			break;
		case OPT_PREFETCH:
		case OPT_INFLIGHT:
			if (cli_parse_int(v, 0,
					  op->val == OPT_PREFETCH ? 100000
								  : 1000000,
					  &iv))
				return cli_init_bad_opt(
					op->name, v,
					op->val == OPT_PREFETCH
						? "an integer in 0..100000"
						: "an integer in 0..1000000");
			if (op->val == OPT_PREFETCH)
				s->prefetch = (int)iv;
			else
				s->max_inflight = (int)iv;
			break;
		case OPT_FEVALS:
		case OPT_BRACKETS:
		case OPT_SEED:
		case OPT_ATTEMPTS:
		case OPT_FAILURES:
			if (cli_parse_int(v, op->val == OPT_ATTEMPTS ? 1 : 0,
					  op->val == OPT_SEED
						  ? INT64_C(9007199254740992)
						  : (int64_t)ID_TRIAL_MAX,
					  &iv))
				return cli_init_bad_opt(
					op->name, v,
					op->val == OPT_ATTEMPTS
						? "a positive integer"
						: "a non-negative integer");
			if (op->val == OPT_FEVALS)
				s->fevals = iv;
			else if (op->val == OPT_BRACKETS)
				s->brackets = iv;
			else if (op->val == OPT_SEED)
				s->seed = (uint64_t)iv;
			else if (op->val == OPT_FAILURES)
				s->max_failures_in_a_row = (int)iv;
			else
				s->max_attempts = (int)iv;
			break;
		case OPT_OPTIMIZER:
		case OPT_MF:
		case OPT_SAMPLER:
		case OPT_SCHEDULER:
		case OPT_SEARCHER:
			if ((rc = cli_init_optimizer_opt(s, o, op, v)))
				return rc;
			break;
		case OPT_NAME:
			if (strlen(v) >= sizeof(s->name))
				return cli_init_bad_opt(
					op->name, v, "at most 127 bytes long");
			snprintf(s->name, sizeof(s->name), "%s", v);
			break;
		}
	}
	return CLI_OK;
}

/* The imported results, frozen before study.json exists (a crash in
 * between leaves no study; init again replaces the file). */
static int write_transfer(const char *root, const struct transfer *t)
{
	char path[STUDY_PATH_MAX], *text = NULL;
	int rc;

	if (study_path(path, sizeof(path), root, "state/transfer.jsonl"))
		return cli_fail("init", CLI_EINPUT, "'%s': path too long",
				root);
	if ((rc = transfer_render(t, &text)))
		return cli_fail("init", CLI_ESYS, "fatal: out of memory");
	rc = atomicfile_write(path, text, strlen(text), 0666, 0);
	free(text);
	return rc ? cli_fail("init", CLI_ESYS,
			     "fatal: unable to write '%s': %s", path,
			     strerror(errno))
		  : CLI_OK;
}

/* Publish text as root/study.json without ever replacing one. */
static int publish_study(const char *root, const char *text)
{
	char tmp[STUDY_PATH_MAX], dst[STUDY_PATH_MAX];
	int rc;

	if (study_path(tmp, sizeof(tmp), root, "state/study.json.new.%ld",
		       (long)getpid()) ||
	    study_path(dst, sizeof(dst), root, "study.json"))
		return cli_fail("init", CLI_EINPUT, "'%s': path too long",
				root);
	if ((rc = atomicfile_write(tmp, text, strlen(text), 0666, 0)))
		return cli_fail("init", CLI_ESYS,
				"fatal: unable to write '%s': %s", tmp,
				strerror(errno));
	if (link(tmp, dst) < 0) {
		int e = errno;

		unlink(tmp);
		if (e == EEXIST || access(dst, F_OK) == 0)
			return cli_fail("init", CLI_EINPUT,
					"'%s' already holds a study; nothing "
					"was changed (use another directory)",
					root);
		return cli_fail("init", CLI_ESYS,
				"fatal: unable to link '%s': %s", dst,
				strerror(e));
	}
	unlink(tmp);
	fsutil_fsync_dir(root);
	return CLI_OK;
}

/* The first entry of root that is not one of a study's directories (an
 * init that crashed may have made those), malloc'ed; NULL if none. */
static char *foreign_entry(const char *root)
{
	struct dirent *e;
	char *name = NULL;
	DIR *d = opendir(root);
	int i;

	if (!d)
		return NULL;
	while (!name && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		for (i = 0; study_dirs[i]; i++)
			if (!strcmp(e->d_name, study_dirs[i]))
				break;
		if (!study_dirs[i])
			name = strdup(e->d_name);
	}
	closedir(d);
	return name;
}

/* The command line, into o; *specf or *spacef and *root.  -1: --help. */
static int parse_cmdline(int argc, char **argv, struct init_over *o,
			 const char **specf, const char **spacef,
			 const char **root)
{
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", init_opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(cli_init_usage, stdout);
			cli_init_print_optimizers(stdout);
			return -1;
		}
		if (c == '?' || c == ':')
			return cli_usage_error("init", cli_init_usage,
					       "unknown or incomplete option "
					       "'%s'",
					       argv[optind - 1]);
		if (c == OPT_SPEC)
			*specf = optarg;
		else if (c == OPT_OBJECTIVE && o->nobj <= OBJECTIVES_MAX)
			o->objv[o->nobj++] = optarg;
		else if (c == OPT_TRANSFER && o->ntr == INIT_MAX_TRANSFER)
			return cli_usage_error("init", cli_init_usage,
					       "at most %d --transfer-from",
					       INIT_MAX_TRANSFER);
		else if (c == OPT_TRANSFER)
			o->trv[o->ntr++] = optarg;
		else if (c == OPT_SPACE)
			*spacef = optarg;
		else
			o->opt[c] = optarg;
	}
	if (optind != argc - 1 || (!*specf && !*spacef) || (*specf && *spacef))
		return cli_usage_error(
			"init", cli_init_usage,
			optind < argc - 1 ? "unexpected argument '%s'"
					  : "need STUDY and exactly one of "
					    "--spec or --space",
			argv[optind < argc - 1 ? optind + 1 : 0]);
	*root = argv[optind];
	return CLI_OK;
}

/* The spec file, or the defaults with the space file; s needs release. */
static int load_spec(const char *specf, const char *spacef,
		     const struct init_over *o, struct spec *s)
{
	char err[DEHBQ_ERRLEN];
	int rc;

	if (!o->opt[OPT_MIN] != !o->opt[OPT_MAX])
		return cli_usage_error("init", cli_init_usage,
				       "give both --min-budget and "
				       "--max-budget, or --budget V (or "
				       "neither) for a study of one fidelity");
	if (o->opt[OPT_BUDGET] && o->opt[OPT_MIN])
		return cli_usage_error("init", cli_init_usage,
				       "--budget is a study of one fidelity: "
				       "give it or --min-budget and "
				       "--max-budget, not both");
	if (specf) {
		if ((rc = spec_load(specf, 1, s, err)))
			return cli_fail("init", cli_exit_code(rc), "%s", err);
		if (s->study[0]) {
			spec_release(s);
			return cli_fail("init", CLI_EINPUT,
					"%s: field 'study' is set; to copy a "
					"study's settings, remove 'study' and "
					"'created' first",
					specf);
		}
		return CLI_OK;
	}
	spec_defaults(s);
	s->min_fidelity = s->max_fidelity = 1; /* one fidelity, unless */
	if ((rc = space_load(spacef, &s->space, err)))
		return cli_fail("init", cli_exit_code(rc), "%s", err);
	return CLI_OK;
}

/* root holds no study and nothing else (a crashed init's dirs aside). */
static int check_target(const char *root)
{
	char probe[STUDY_PATH_MAX], *other;
	int rc;

	if (study_path(probe, sizeof(probe), root, "study.json"))
		return cli_fail("init", CLI_EINPUT, "'%s': path too long",
				root);
	if (access(probe, F_OK) == 0)
		return cli_fail("init", CLI_EINPUT,
				"'%s' already holds a study; nothing was "
				"changed (use another directory)",
				root);
	if (!(other = foreign_entry(root)))
		return CLI_OK;
	rc = cli_fail("init", CLI_EINPUT,
		      "'%s' is not empty and holds no study (it has '%s'); "
		      "nothing was changed (use a new or empty directory)",
		      root, other);
	free(other);
	return rc;
}

/* Create the directories, freeze the earlier tasks, publish study.json. */
static int create(const char *root, struct spec *s, const struct transfer *tr)
{
	char *text = NULL;
	int rc;

	id_study_new(s->study);
	s->created = timeutil_now();
	if (spec_render(s, &text))
		return cli_fail("init", CLI_ESYS, "fatal: out of memory");
	rc = CLI_OK;
	if (study_create_dirs(root))
		rc = cli_fail(
			"init", cli_exit_code(DEHBQ_ESYS),
			"fatal: unable to create study directory '%s': %s",
			root, strerror(errno));
	if (!rc && tr->ntasks)
		rc = write_transfer(root, tr);
	if (!rc)
		rc = publish_study(root, text);
	free(text);
	return rc;
}

int cli_init(int argc, char **argv)
{
	char err[DEHBQ_ERRLEN];
	struct init_over over;
	struct transfer tr;
	const char *root = NULL, *specf = NULL, *spacef = NULL;
	const char *what;
	struct spec s;
	int rc;

	memset(&over, 0, sizeof(over));
	if ((rc = parse_cmdline(argc, argv, &over, &specf, &spacef, &root)))
		return rc < 0 ? CLI_OK : rc;
	if ((rc = load_spec(specf, spacef, &over, &s)))
		return rc;
	what = specf ? specf : "options";
	transfer_init(&tr, 0);
	if ((rc = apply(&s, &over)) || (rc = apply_objectives(&s, &over)))
		goto out;
	cli_init_one_fidelity_default(&s, &over);
	if ((rc = spec_check(&s, what, err)) ||
	    (rc = spec_check_limits(
		     &s, (optim_caps(s.optimizer) & OPTIM_CAP_SEGMENTS) != 0,
		     what, err)) ||
	    (rc = cli_init_optimizer_settings(&s, what, err)) ||
	    (rc = cli_init_check_fidelity(&s, what, err)) ||
	    (over.ntr &&
	     (rc = cli_transfer_import(&s, over.trv, over.ntr, &tr, err)))) {
		rc = cli_fail("init", cli_exit_code(rc), "%s", err);
		goto out;
	}
	cli_init_prefetch_default(&s, &over);
	if ((rc = cli_init_check_transfer(&s, &tr)) ||
	    (rc = check_target(root)) || (rc = create(root, &s, &tr)))
		goto out;
	printf("created study %s in %s (%d parameters, optimizer %s)\n",
	       s.study, root, space_dim(s.space), s.optimizer);
	cli_init_print_ladder(&s);
	if (tr.ntasks)
		cli_init_print_transfer(&tr);
	printf("next: dehbq-orchestrator %s &\n"
	       "      dehbq-worker --study %s -- YOUR-TRAINER {config} "
	       "{budget}\n",
	       root, root);
out:
	transfer_release(&tr);
	spec_release(&s);
	return rc;
}
