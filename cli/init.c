/*
 * init.c - `dehbq validate FILE` and `dehbq init STUDY ...`
 *
 * init is where bad specs are caught: it validates the spec (or builds one
 * from a space plus options), creates the study directory, and publishes
 * study.json with link(2), which refuses to replace an existing file, so
 * an existing study is never overwritten, not even by a racing init.
 */
#include "cli.h"

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

static int optimizer_settings(struct spec *s, const char *file, char *err);

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
		    (rc = optimizer_settings(&s, argv[1], err))) {
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

static const char init_usage[] =
	"usage: dehbq init STUDY --spec FILE\n"
	"   or: dehbq init STUDY --space FILE --min-budget X --max-budget Y\n"
	"                  [--eta E] [--fevals N] [--brackets N]\n"
	"                  [--walltime SECS] [--total-cost C] [--seed S]\n"
	"                  [--optimizer NAME] [--scheduler NAME --searcher "
	"NAME]\n"
	"                  [--multi-fidelity none|asha]\n"
	"                  [--sampler NAME] (with --optimizer asha)\n"
	"                  [--name NAME] [--lease SECS] [--poll SECS]\n"
	"                  [--max-attempts N] [--max-failures-in-a-row N]\n"
	"                  [--objective NAME[:max][:WEIGHT] ...]\n"
	"                  [--scalarise copula|linear|random-weights]\n"
	"                  [--selection scalar|pareto]\n"
	"                  [--transfer-from STUDY|FILE.jsonl|FILE.csv ...]\n"
	"\n"
	"Two or more --objective make a multi-objective study: the trainer\n"
	"reports {\"objectives\": {\"NAME\": value, ...}} (the names are in\n"
	"$DEHBQ_OBJECTIVES), and dehbq pareto STUDY prints the front.\n"
	"--transfer-from (repeatable) copies earlier studies' results, or a\n"
	"JSON-lines file of evaluations, into STUDY/state/transfer.jsonl for\n"
	"the optimisers that use them (below).\n"
	"\n"
	"Create the study directory STUDY.  Options given with --spec "
	"override\n"
	"the spec's values.  At least one termination option is required.\n"
	"An existing study is never overwritten.\n";

enum {
	OPT_SPEC = 256,
	OPT_SPACE,
	OPT_MIN,
	OPT_MAX,
	OPT_ETA,
	OPT_FEVALS,
	OPT_BRACKETS,
	OPT_WALLTIME,
	OPT_COST,
	OPT_SEED,
	OPT_OPTIMIZER,
	OPT_MF,
	OPT_SAMPLER,
	OPT_SCHEDULER,
	OPT_SEARCHER,
	OPT_NAME,
	OPT_LEASE,
	OPT_POLL,
	OPT_ATTEMPTS,
	OPT_FAILURES,
	OPT_OBJECTIVE,
	OPT_SCALARISE,
	OPT_SELECTION,
	OPT_TRANSFER,
};

static const struct option init_opts[] = {
	{"spec", required_argument, NULL, OPT_SPEC},
	{"space", required_argument, NULL, OPT_SPACE},
	{"min-budget", required_argument, NULL, OPT_MIN},
	{"max-budget", required_argument, NULL, OPT_MAX},
	{"eta", required_argument, NULL, OPT_ETA},
	{"fevals", required_argument, NULL, OPT_FEVALS},
	{"brackets", required_argument, NULL, OPT_BRACKETS},
	{"walltime", required_argument, NULL, OPT_WALLTIME},
	{"total-cost", required_argument, NULL, OPT_COST},
	{"seed", required_argument, NULL, OPT_SEED},
	{"optimizer", required_argument, NULL, OPT_OPTIMIZER},
	{"multi-fidelity", required_argument, NULL, OPT_MF},
	{"sampler", required_argument, NULL, OPT_SAMPLER},
	{"scheduler", required_argument, NULL, OPT_SCHEDULER},
	{"searcher", required_argument, NULL, OPT_SEARCHER},
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

#define INIT_MAX_TRANSFER 256 /* --transfer-from sources */

/* Option values, applied over the spec after it is loaded. */
struct init_over {
	const char *opt[OPT_TRANSFER + 1]; /* raw value per option, or NULL */
	const char *objv[OBJECTIVES_MAX + 1]; /* every --objective */
	int nobj;
	char *trv[INIT_MAX_TRANSFER + 1]; /* every --transfer-from */
	int ntr;
};

/* --objective (replacing the spec's), --scalarise, --selection. */
static int apply_objectives(struct spec *s, const struct init_over *o)
{
	char err[DEHBQ_ERRLEN];
	int i;

	if (o->nobj > OBJECTIVES_MAX)
		return cli_usage_error("init", init_usage,
				       "at most %d --objective options",
				       OBJECTIVES_MAX);
	if (o->nobj) {
		objectives_defaults(&s->obj);
		for (i = 0; i < o->nobj; i++)
			if (objectives_add_flag(&s->obj, o->objv[i], err))
				return cli_usage_error("init", init_usage, "%s",
						       err);
	}
	if ((o->opt[OPT_SCALARISE] &&
	     objectives_set_scalarise(&s->obj, o->opt[OPT_SCALARISE], err)) ||
	    (o->opt[OPT_SELECTION] &&
	     objectives_set_selection(&s->obj, o->opt[OPT_SELECTION], err)))
		return cli_usage_error("init", init_usage, "%s", err);
	if (s->obj.n && optim_find(s->optimizer) &&
	    !optim_find(s->optimizer)->rescore)
		return cli_fail("init", CLI_EINPUT,
				"--optimizer %s cannot run a multi-objective "
				"study (use dehb, sh, hyperband, de, asha, re, "
				"random or tpe)",
				s->optimizer);
	return CLI_OK;
}

static int bad_opt(const char *name, const char *val, const char *want)
{
	return cli_usage_error("init", init_usage,
			       "option '--%s': '%s' is not %s", name, val,
			       want);
}

/*
 * --multi-fidelity: "asha" makes ASHA schedule the proposals of tpe, gp or
 * gcp (their setting multi_fidelity), and turns random into asha, which
 * is random search scheduled by ASHA.  -1: not possible.
 * (--optimizer asha --sampler S is --optimizer S --multi-fidelity asha.)
 */
static int multi_fidelity(struct spec *s, const char *v)
{
	cJSON *set;
	int rc;

	if (strcmp(v, "none") && strcmp(v, "asha"))
		return -1;
	if (!strcmp(s->optimizer, "random")) {
		if (!strcmp(v, "asha"))
			snprintf(s->optimizer, sizeof(s->optimizer), "asha");
		return 0;
	}
	if (!(optim_caps(s->optimizer) & OPTIM_CAP_ASHA))
		return strcmp(v, "none") ? -1 : 0;
	set = s->settings ? cJSON_Duplicate(s->settings, 1)
			  : cJSON_CreateObject();
	if (!set)
		return -1;
	cJSON_DeleteItemFromObjectCaseSensitive(set, "multi_fidelity");
	rc = !cJSON_AddStringToObject(set, "multi_fidelity", v) ||
	     spec_set_settings(s, set);
	cJSON_Delete(set);
	return rc ? -1 : 0;
}

/*
 * --searcher S: the scheduler takes searcher S (its setting "searcher").
 * The scheduler is --scheduler's, else --optimizer's, else the spec's if
 * it takes a searcher, else the default one (optim_default_scheduler).
 * -1: out of memory.
 */
static int searcher(struct spec *s, const struct init_over *o, const char *v)
{
	cJSON *set;
	int rc;

	if (!o->opt[OPT_SCHEDULER] && !o->opt[OPT_OPTIMIZER] &&
	    !(optim_caps(s->optimizer) & OPTIM_CAP_SEARCHER))
		snprintf(s->optimizer, sizeof(s->optimizer), "%s",
			 optim_default_scheduler());
	set = s->settings ? cJSON_Duplicate(s->settings, 1)
			  : cJSON_CreateObject();
	if (!set)
		return -1;
	cJSON_DeleteItemFromObjectCaseSensitive(set, "searcher");
	rc = !cJSON_AddStringToObject(set, "searcher", v) ||
	     spec_set_settings(s, set);
	cJSON_Delete(set);
	return rc ? -1 : 0;
}

/* lead, the optimisers with caps (optim_list), then tail, into buf */
static const char *names_of(char *buf, size_t size, const char *lead,
			    unsigned caps, const char *tail)
{
	size_t n = (size_t)snprintf(buf, size, "%s", lead);

	if (n < size && !optim_list(caps, ", ", buf + n, size - n))
		n += strlen(buf + n);
	if (n < size)
		snprintf(buf + n, size - n, "%s", tail);
	return buf;
}

static int apply(struct spec *s, const struct init_over *o)
{
	const struct option *op;
	int64_t iv;
	double dv;
	char one[512];

	for (op = init_opts; op->name; op++) {
		const char *v = op->val > 255 ? o->opt[op->val] : NULL;

		if (!v)
			continue;
		switch (op->val) {
		case OPT_MIN:
		case OPT_MAX:
		case OPT_ETA:
		case OPT_WALLTIME:
		case OPT_COST:
		case OPT_LEASE:
		case OPT_POLL:
			if (cli_parse_double(v, &dv) || dv < 0)
				return bad_opt(op->name, v,
					       "a non-negative number");
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
				return bad_opt(
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
			if (!optim_find(v))
				return bad_opt(op->name, v,
					       names_of(one, sizeof(one),
							"one of ", 0, ""));
			snprintf(s->optimizer, sizeof(s->optimizer), "%s", v);
			break;
		case OPT_MF:
			if (multi_fidelity(s, v))
				return bad_opt(
					op->name, v,
					names_of(one, sizeof(one),
						 "'none' or 'asha' (with "
						 "--optimizer random, ",
						 OPTIM_CAP_ASHA, ")"));
			break;
		case OPT_SAMPLER: /* as --optimizer V --multi-fidelity asha */
			if (strcmp(s->optimizer, "asha"))
				return cli_usage_error("init", init_usage,
						       "--sampler needs "
						       "--optimizer asha");
			if (!strcmp(v, "random"))
				break;
			if (strlen(v) < sizeof(s->optimizer)) {
				snprintf(s->optimizer, sizeof(s->optimizer),
					 "%s", v);
				if (!multi_fidelity(s, "asha"))
					break;
			}
			return bad_opt(op->name, v,
				       names_of(one, sizeof(one), "random, ",
						OPTIM_CAP_ASHA, ""));
		case OPT_SCHEDULER:
			if (o->opt[OPT_OPTIMIZER])
				return cli_usage_error(
					"init", init_usage,
					"--scheduler and --optimizer both "
					"name the optimizer: give one");
			if (!(optim_caps(v) & OPTIM_CAP_SEARCHER))
				return bad_opt(
					op->name, v,
					names_of(one, sizeof(one), "one of ",
						 OPTIM_CAP_SEARCHER, ""));
			snprintf(s->optimizer, sizeof(s->optimizer), "%s", v);
			break;
		case OPT_SEARCHER:
			if (!search_find(v)) {
				search_list(0, ", ", one, sizeof(one));
				return cli_usage_error(
					"init", init_usage,
					"option '--searcher': '%s' is not one "
					"of %s",
					v, one);
			}
			if (o->opt[OPT_OPTIMIZER] &&
			    !(optim_caps(s->optimizer) & OPTIM_CAP_SEARCHER)) {
				optim_list(OPTIM_CAP_SEARCHER, ", ", one,
					   sizeof(one));
				return cli_usage_error(
					"init", init_usage,
					"--searcher %s: --optimizer %s takes "
					"no searcher (the schedulers that do: "
					"%s)",
					v, s->optimizer, one);
			}
			if (searcher(s, o, v))
				return cli_fail("init", CLI_ESYS,
						"fatal: out of memory");
			break;
		case OPT_NAME:
			if (strlen(v) >= sizeof(s->name))
				return bad_opt(op->name, v,
					       "at most 127 bytes long");
			snprintf(s->name, sizeof(s->name), "%s", v);
			break;
		}
	}
	return CLI_OK;
}

/*
 * The optimiser validates its own settings and fills in their defaults, so
 * study.json records every value the study runs with.
 */
static int optimizer_settings(struct spec *s, const char *file, char *err)
{
	char e[DEHBQ_ERRLEN];
	cJSON *full;
	int rc;

	if ((rc = optim_settings(s->optimizer, s->settings, &full, e)))
		return dehbq_errf(err, rc, "%s: %s", file, e);
	rc = spec_set_settings(s, full);
	cJSON_Delete(full);
	return rc ? dehbq_errf(err, rc, "out of memory") : DEHBQ_OK;
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
			fputs(init_usage, stdout);
			cli_init_print_optimizers(stdout);
			return -1;
		}
		if (c == '?' || c == ':')
			return cli_usage_error("init", init_usage,
					       "unknown or incomplete option "
					       "'%s'",
					       argv[optind - 1]);
		if (c == OPT_SPEC)
			*specf = optarg;
		else if (c == OPT_OBJECTIVE && o->nobj <= OBJECTIVES_MAX)
			o->objv[o->nobj++] = optarg;
		else if (c == OPT_TRANSFER && o->ntr == INIT_MAX_TRANSFER)
			return cli_usage_error("init", init_usage,
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
			"init", init_usage,
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
	if (!o->opt[OPT_MIN] || !o->opt[OPT_MAX])
		return cli_usage_error("init", init_usage,
				       "--space needs --min-budget and "
				       "--max-budget");
	if ((rc = space_load(spacef, &s->space, err)))
		return cli_fail("init", cli_exit_code(rc), "%s", err);
	return CLI_OK;
}

/* Earlier tasks only for an optimiser that uses them; some need them. */
static int check_transfer(const struct spec *s, const struct transfer *tr)
{
	unsigned caps = optim_caps(s->optimizer);
	char names[512];

	optim_list(OPTIM_CAP_TRANSFER, ", ", names, sizeof(names));
	if (tr->ntasks && !(caps & OPTIM_CAP_TRANSFER))
		return cli_fail("init", CLI_EINPUT,
				"--transfer-from: --optimizer %s does not use "
				"earlier results (%s do)",
				s->optimizer, names);
	if ((caps & OPTIM_CAP_NEEDS_TRANSFER) && !tr->ntasks)
		return cli_fail("init", CLI_EINPUT,
				"--optimizer %s needs earlier results: "
				"--transfer-from STUDY, FILE.jsonl or "
				"FILE.csv",
				s->optimizer);
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
	if ((rc = spec_check(&s, what, err)) ||
	    (rc = optimizer_settings(&s, what, err)) ||
	    (over.ntr &&
	     (rc = cli_transfer_import(&s, over.trv, over.ntr, &tr, err)))) {
		rc = cli_fail("init", cli_exit_code(rc), "%s", err);
		goto out;
	}
	if ((rc = check_transfer(&s, &tr)) || (rc = check_target(root)) ||
	    (rc = create(root, &s, &tr)))
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
