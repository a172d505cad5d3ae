/*
 * request.c - `dehbq stop STUDY`, `dehbq requeue STUDY ID|--failed` and
 * `dehbq extend STUDY --fevals N ...`
 *
 * The CLI never changes a study itself: it writes one request file,
 * state/requests/<action>-<unixtime-ms>-<pid>.json, atomically (tmp +
 * rename, so the orchestrator never sees half a request), and the
 * orchestrator acts on it at its next batch and removes it:
 *   {"format": "dehbq-request/1", "action": "stop"}
 *   {"format": "dehbq-request/1", "action": "requeue", "trial": "ID"}
 *   {"format": "dehbq-request/1", "action": "requeue-failed"}
 *   {"format": "dehbq-request/1", "action": "extend",
 *    "add": {"fevals": N, "brackets": N, "walltime": S, "total_cost": C}}
 *
 * requeue ID first checks what it can see, advisory only (the orchestrator
 * decides, orchestrator/sched.c requeue_now): a trial with no file in the
 * study is unknown, and a trial whose archived ID.result.json is ok is
 * never re-run, so both are refused here (exit 100) rather than written as
 * a request the orchestrator would only log as refused.
 */
#include "cli.h"

#include "atomicfile.h"
#include "err.h"
#include "id.h"
#include "result.h"
#include "spec.h"
#include "statusfile.h"
#include "study.h"
#include "timeutil.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char stop_usage[] =
	"usage: dehbq stop STUDY\n"
	"\n"
	"Ask the orchestrator to stop: it issues no new trials, lets the\n"
	"trials in flight finish (unless runtime.drain is false), writes\n"
	"FINISHED and exits.  Writes a request file into state/requests/;\n"
	"the orchestrator acts on it at its next batch.\n";

static const char extend_usage[] =
	"usage: dehbq extend STUDY [--fevals N] [--brackets N] [--walltime S]\n"
	"                    [--total-cost C]\n"
	"\n"
	"Give a study more budget: each option adds to the limit of that name\n"
	"(--fevals 50: fifty more evaluations).  Only limits the study has "
	"can\n"
	"grow.  A running study goes on; a stopped or finished one runs again\n"
	"when its orchestrator starts (dehbq-orchestrator STUDY), continuing\n"
	"where it ended.  Writes a request file into state/requests/; the\n"
	"orchestrator acts on it at its next batch.\n";

static const char requeue_usage[] =
	"usage: dehbq requeue STUDY ID\n"
	"   or: dehbq requeue STUDY --failed\n"
	"\n"
	"Ask the orchestrator to run trial ID again (with attempt + 1), or\n"
	"every failed trial.  Only failed or in-flight trials can be\n"
	"requeued: a trial with an ok result is refused (exit 100).  Writes a\n"
	"request file into state/requests/; the orchestrator acts on it at\n"
	"its next batch.\n";

/* members: more JSON members (`"k": v, ...`) or NULL; ours, never user
 * text */
static int write_request(const char *cmd, const char *root, const char *action,
			 const char *members)
{
	char p[STUDY_PATH_MAX], text[512];
	long long ms = (long long)(timeutil_now() * 1000.0);

	snprintf(text, sizeof(text),
		 "{\"format\": \"dehbq-request/1\", \"action\": \"%s\"%s%s}\n",
		 action, members ? ", " : "", members ? members : "");
	if (study_path(p, sizeof(p), root, "state/requests/%s-%lld-%ld.json",
		       action, ms, (long)getpid()))
		return cli_fail(cmd, CLI_EINPUT, "'%s': path too long", root);
	if (atomicfile_write(p, text, strlen(text), 0666, 0))
		return cli_fail(cmd, CLI_ESYS,
				"fatal: unable to write '%s': %s", p,
				strerror(errno));
	return CLI_OK;
}

static int study_finished(const char *root)
{
	char p[STUDY_PATH_MAX];

	return !study_path(p, sizeof(p), root, "FINISHED") &&
	       access(p, F_OK) == 0;
}

int cli_stop(int argc, char **argv)
{
	struct spec s;
	int rc;

	if (cli_wants_help(argc, argv)) {
		fputs(stop_usage, stdout);
		return CLI_OK;
	}
	if ((rc = cli_positional("stop", stop_usage, argc, argv, 1, "STUDY",
				 NULL)))
		return rc;
	if ((rc = cli_open_study("stop", argv[1], &s)))
		return rc;
	spec_release(&s);
	if (study_finished(argv[1])) {
		printf("study %s is already finished; nothing to stop\n",
		       argv[1]);
		return CLI_OK;
	}
	if ((rc = write_request("stop", argv[1], "stop", NULL)))
		return rc;
	printf("requested stop of %s; the orchestrator will act on it at its "
	       "next batch\n",
	       argv[1]);
	return CLI_OK;
}

/* 1 when trial id has a file anywhere in the study. */
static int trial_exists(const char *root, uint64_t id)
{
	static const char *const dirs[] = {"pending", "claimed", "staging",
					   NULL};
	char p[STUDY_PATH_MAX], idtxt[ID_TRIAL_LEN];
	struct dirent **names;
	int i, j, n, found = 0;

	id_trial_format(id, idtxt);
	if (!study_path(p, sizeof(p), root, "archive/%04u/%s.trial.json",
			study_shard(id), idtxt) &&
	    access(p, F_OK) == 0)
		return 1;
	for (i = 0; dirs[i] && !found; i++) {
		if (study_path(p, sizeof(p), root, "%s", dirs[i]))
			continue;
		n = cli_list("requeue", p, &names);
		for (j = 0; j < n && !found; j++)
			found = strstr(names[j]->d_name, idtxt) != NULL;
		cli_list_free(names, n);
	}
	return found;
}

/*
 * 1 when trial id's archived result (archive/SSSS/ID.result.json) has
 * status ok: the orchestrator refuses to re-run it ("not requeued ...: it
 * has a valid result").  Such a trial is not in flight: a result is
 * archived when the trial leaves the in-flight table, and reopening a
 * failed one moves its result to ID.aN.result.json first.  A missing or
 * unreadable result is left for the orchestrator to judge.
 */
static int has_ok_result(const char *root, uint64_t id)
{
	char p[STUDY_PATH_MAX], err[DEHBQ_ERRLEN];
	struct result r;
	int ok;

	if (study_archive_file(p, sizeof(p), root, id, 0, "result") ||
	    result_load(p, &r, err))
		return 0;
	ok = result_has_loss(&r); /* ok or stopped: done, never requeued */
	result_release(&r);
	return ok;
}

int cli_requeue(int argc, char **argv)
{
	char idtxt[ID_TRIAL_LEN] = "", members[64];
	struct spec s;
	uint64_t id;
	int rc;

	if (cli_wants_help(argc, argv)) {
		fputs(requeue_usage, stdout);
		return CLI_OK;
	}
	if ((rc = cli_positional("requeue", requeue_usage, argc, argv, 2,
				 "STUDY and ID or --failed", "--failed")))
		return rc;
	if ((rc = cli_open_study("requeue", argv[1], &s)))
		return rc;
	spec_release(&s);
	if (strcmp(argv[2], "--failed")) {
		if (cli_parse_trial_id(argv[2], &id, idtxt))
			return cli_fail("requeue", CLI_EINPUT,
					"'%s': not a trial id (up to 8 digits, "
					"e.g. 42 or 00000042)",
					argv[2]);
		if (!trial_exists(argv[1], id))
			return cli_fail("requeue", CLI_EINPUT,
					"trial %s: no such trial in %s", idtxt,
					argv[1]);
		if (has_ok_result(argv[1], id))
			return cli_fail("requeue", CLI_EINPUT,
					"trial %s: not requeued: it has a "
					"valid result (status ok); only failed "
					"or in-flight trials can be requeued",
					idtxt);
	}
	if (study_finished(argv[1]))
		cli_warn("requeue",
			 "study %s is finished; the request waits "
			 "until an orchestrator runs it again",
			 argv[1]);
	if (!strcmp(argv[2], "--failed")) {
		if ((rc = write_request("requeue", argv[1], "requeue-failed",
					NULL)))
			return rc;
		printf("requested requeue of every failed trial of %s; the "
		       "orchestrator will act on it at its next batch\n",
		       argv[1]);
		return CLI_OK;
	}
	snprintf(members, sizeof(members), "\"trial\": \"%s\"", idtxt);
	if ((rc = write_request("requeue", argv[1], "requeue", members)))
		return rc;
	printf("requested requeue of trial %s; the orchestrator will act on "
	       "it at its next batch\n",
	       idtxt);
	return CLI_OK;
}

/* One option of extend: its amount into *v (> 0), and the limit's member.
 * Returns CLI_OK, or the exit code after the message. */
static int extend_opt(const char *opt, const char *arg, double have,
		      int integer, double *v, const char *member, char *buf,
		      size_t size)
{
	int64_t n;
	size_t len = strlen(buf);

	if (integer ? cli_parse_int(arg, 1, INT64_C(9007199254740992), &n)
		    : cli_parse_double(arg, v))
		return cli_usage_error("extend", extend_usage,
				       "--%s: '%s' is not a %s number", opt,
				       arg, integer ? "positive whole" : "");
	if (integer)
		*v = (double)n;
	if (!(*v > 0) || *v > 9007199254740992.0)
		return cli_usage_error("extend", extend_usage,
				       "--%s: '%s' must be > 0", opt, arg);
	if (have == 0)
		return cli_fail("extend", CLI_EINPUT,
				"--%s: the study has no %s limit to extend "
				"(study.json, termination); extend one it has",
				opt, member);
	snprintf(buf + len, size - len, "%s\"%s\": %.17g", len ? ", " : "",
		 member, *v);
	return CLI_OK;
}

/* The limits now, as the orchestrator last wrote them (an earlier extend
 * raised them); have[] keeps study.json's when nothing says otherwise. */
static void current_limits(const char *root, double have[4])
{
	static const char *const files[] = {"FINISHED", "state/status.json"};
	char p[STUDY_PATH_MAX], err[DEHBQ_ERRLEN];
	struct statusfile st;
	int i;

	for (i = 0; i < 2; i++) {
		if (study_path(p, sizeof(p), root, "%s", files[i]) ||
		    access(p, F_OK) || statusfile_load(p, &st, err))
			continue;
		if (st.limits.valid) {
			have[0] = (double)st.limits.fevals;
			have[1] = (double)st.limits.brackets;
			have[2] = st.limits.walltime;
			have[3] = st.limits.total_cost;
		}
		statusfile_release(&st);
		return;
	}
}

int cli_extend(int argc, char **argv)
{
	static const struct option opts[] = {
		{"fevals", required_argument, NULL, 0},
		{"brackets", required_argument, NULL, 1},
		{"walltime", required_argument, NULL, 2},
		{"total-cost", required_argument, NULL, 3},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static const char *const member[] = {"fevals", "brackets", "walltime",
					     "total_cost"};
	const char *arg[4] = {NULL, NULL, NULL, NULL}, *root;
	char add[256] = "", members[300], said[256];
	double have[4], v;
	size_t n = 0;
	struct spec s;
	int c, i, rc = CLI_OK, any = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(extend_usage, stdout);
			return CLI_OK;
		}
		if (c < 0 || c > 3)
			return cli_usage_error("extend", extend_usage,
					       "unknown or incomplete option "
					       "'%s'",
					       argv[optind - 1]);
		arg[c] = optarg;
		any = 1;
	}
	if (optind != argc - 1)
		return cli_usage_error("extend", extend_usage, "%s",
				       "need exactly one STUDY");
	if (!any)
		return cli_usage_error("extend", extend_usage, "%s",
				       "nothing to add (--fevals, --brackets, "
				       "--walltime or --total-cost)");
	root = argv[optind];
	if ((rc = cli_open_study("extend", root, &s)))
		return rc;
	have[0] = (double)s.fevals;
	have[1] = (double)s.brackets;
	have[2] = s.walltime;
	have[3] = s.total_cost;
	spec_release(&s);
	current_limits(root, have);
	for (i = 0; !rc && i < 4; i++)
		if (arg[i]) {
			rc = extend_opt(opts[i].name, arg[i], have[i], i < 2,
					&v, member[i], add, sizeof(add));
			n += snprintf(said + n, sizeof(said) - n,
				      "%s%s %g -> %g", n ? ", " : "", member[i],
				      have[i], have[i] + v);
		}
	if (rc)
		return rc;
	snprintf(members, sizeof(members), "\"add\": {%s}", add);
	if ((rc = write_request("extend", root, "extend", members)))
		return rc;
	printf("requested for %s: %s; the orchestrator acts on it at its "
	       "next batch\n",
	       root, said);
	if (study_finished(root))
		printf("the study is finished: start its orchestrator "
		       "(dehbq-orchestrator %s), then workers, to continue\n",
		       root);
	return CLI_OK;
}
