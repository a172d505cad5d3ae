/*
 * trials.c - `dehbq trials STUDY` and `dehbq show STUDY ID`
 *
 * trials streams one row per trial found in the directory (archive, then
 * claimed/, then pending/; see study.c), holding one trial at a time.  A
 * requeued trial is one row, its latest attempt: the earlier attempts the
 * archive keeps (ID.aN.*) are left to show and export.
 * show gathers everything about one trial: where it is, the trial file,
 * the result, duplicates and notes in the archive, and the log tails.
 */
#include "cli.h"

#include "err.h"
#include "jsonbuf.h"
#include "jsonfile.h"
#include "optim.h"
#include "fsutil.h"
#include "progress.h"
#include "result.h"
#include "space.h"
#include "spec.h"
#include "study.h"
#include "timeutil.h"
#include "trial.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char trials_usage[] =
	"usage: dehbq trials STUDY [--state pending|claimed|done|failed|all]\n"
	"                    [--format table|csv|jsonl]\n"
	"\n"
	"One row per trial in the study directory: id, state, bracket, rung,\n"
	"fidelity, kind, parent (the trial whose work directory it continued,\n"
	"or -: none), attempt, loss, status, host, and for a failed trial its\n"
	"error; under a scheduler of segments (pbt) also member, segment and\n"
	"donor (-1: none) after parent.\n"
	"'done' means an ok or stopped result; 'failed' any other\n"
	"result.  A running trial that reports intermediate results shows\n"
	"its latest loss and, as status, 'at F', the fidelity it reached.\n"
	"A requeued trial is one row, its latest attempt (dehbq export lists\n"
	"every attempt).  Default: --state all --format table.\n";

static const char show_usage[] =
	"usage: dehbq show STUDY ID\n"
	"\n"
	"Show trial ID (42 or 00000042): where it is, the trial file, the\n"
	"result, its intermediate results (progress files: its curve) and\n"
	"stop file, duplicates and notes, and the last 20 lines of each\n"
	"attempt's stdout and stderr logs.\n";

enum fmt { FMT_TABLE, FMT_CSV, FMT_JSONL };

struct trials_ctx {
	const char *want; /* state filter, NULL = all */
	int lineage;	  /* member, segment and donor columns */
	enum fmt fmt;	  /* output format */
	long rows;	  /* rows written */
	const char *root; /* the study directory */
};

/* s as a JSON string on stdout, or null */
static void json_string(const char *s)
{
	struct jsonbuf b;

	if (!s) {
		fputs("null", stdout);
		return;
	}
	jsonbuf_init(&b);
	jsonbuf_str(&b, s);
	fputs(jsonbuf_failed(&b) || !b.p ? "null" : b.p, stdout);
	jsonbuf_free(&b);
}

/* The trial's parent (its id; none: "-", empty in csv), and with
 * x->lineage its member,
 * segment and donor from its optimizer state ("?" where it lacks one)
 * as " M S D" (table) or ",M,S,D" (csv) or JSON members. */
static void lineage(const struct trials_ctx *x, const struct trial *t,
		    char *parent, size_t psize, char *out, size_t size)
{
	static const char *const key[3] = {"member", "segment", "donor"};
	char v[3][16];
	cJSON *st = x->lineage ? cJSON_Parse(t->optimizer) : NULL;
	int i;

	if (t->parent >= 0)
		snprintf(parent, psize,
			 x->fmt == FMT_JSONL ? "\"%08lld\"" : "%08lld",
			 (long long)t->parent);
	else
		snprintf(parent, psize, "%s",
			 x->fmt == FMT_JSONL ? "null"
			 : x->fmt == FMT_CSV ? ""
					     : "-");
	out[0] = 0;
	if (!x->lineage)
		return;
	for (i = 0; i < 3; i++) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(st, key[i]);

		if (cJSON_IsNumber(n) && n->valuedouble == (int)n->valuedouble)
			snprintf(v[i], sizeof(v[i]), "%d", (int)n->valuedouble);
		else
			snprintf(v[i], sizeof(v[i]), "%s",
				 x->fmt == FMT_JSONL ? "null" : "?");
	}
	cJSON_Delete(st);
	if (x->fmt == FMT_TABLE)
		snprintf(out, size, " %6s %7s %5s", v[0], v[1], v[2]);
	else if (x->fmt == FMT_CSV)
		snprintf(out, size, ",%s,%s,%s", v[0], v[1], v[2]);
	else
		snprintf(out, size,
			 ", \"member\": %s, \"segment\": %s, \"donor\": %s",
			 v[0], v[1], v[2]);
}

static int trials_row(void *arg, struct cli_row *row)
{
	struct trials_ctx *x = arg;
	char loss[40] = "", fid[40], id[ID_TRIAL_LEN], error[256] = "", at[48];
	char parent[24], lin[160];
	double pf, pl;
	const char *status =
		row->has_result ? result_status_name(row->r.status) : "";
	const char *kind = trial_kind_name(row->t.kind);

	if (x->want && strcmp(x->want, row->state))
		return 0;
	id_trial_format(row->t.id, id);
	if (row->has_result && result_has_loss(&row->r))
		jsonfile_fmt_double(loss, sizeof(loss), row->r.loss);
	jsonfile_fmt_double(fid, sizeof(fid), row->t.fidelity);
	if (row->has_result && row->r.status != RESULT_OK && row->r.error)
		fsutil_printable(row->r.error, error, sizeof(error));
	/* a running trial: its latest intermediate result, "at F" */
	if (!strcmp(row->state, "claimed") &&
	    !cli_progress_latest(x->root, row->t.id, row->t.attempt, &pf,
				 &pl)) {
		jsonfile_fmt_double(loss, sizeof(loss), pl);
		jsonfile_fmt_double(at + 3, sizeof(at) - 3, pf);
		memcpy(at, "at ", 3);
		status = at;
	}
	lineage(x, &row->t, parent, sizeof(parent), lin, sizeof(lin));
	x->rows++;
	switch (x->fmt) {
	case FMT_TABLE:
		printf("%-8s %-8s %7lld %4d %10s %-9s %8s%s %7d %14s %-7s "
		       "%-12s %.80s\n",
		       id, row->state, (long long)row->t.bracket, row->t.rung,
		       fid, kind, parent, lin, row->t.attempt, loss, status,
		       row->host, error);
		break;
	case FMT_CSV:
		printf("%s,%s,%lld,%d,%s,%s,%s%s,%d,%s,%s,", id, row->state,
		       (long long)row->t.bracket, row->t.rung, fid, kind,
		       parent, lin, row->t.attempt, loss, status);
		cli_csv_field(stdout, row->host);
		putchar(',');
		cli_csv_field(stdout, error);
		putchar('\n');
		break;
	case FMT_JSONL:
		printf("{\"id\": \"%s\", \"state\": \"%s\", \"bracket\": %lld, "
		       "\"rung\": %d, \"fidelity\": %s, \"kind\": \"%s\", "
		       "\"parent\": %s%s, \"attempt\": %d, \"loss\": %s, "
		       "\"status\": ",
		       id, row->state, (long long)row->t.bracket, row->t.rung,
		       fid, kind, parent, lin, row->t.attempt,
		       loss[0] ? loss : "null");
		if (status[0])
			printf("\"%s\"", status);
		else
			fputs("null", stdout);
		/* host names are [A-Za-z0-9-]: no escaping needed */
		if (row->host[0])
			printf(", \"host\": \"%s\"", row->host);
		else
			fputs(", \"host\": null", stdout);
		fputs(", \"error\": ", stdout);
		json_string(error[0] ? error : NULL);
		fputs("}\n", stdout);
		break;
	}
	return ferror(stdout) ? -1 : 0;
}

static int usage_fail(const char *cmd, const char *usage, const char *fmt,
		      const char *arg)
{
	return cli_usage_error(cmd, usage, fmt, arg);
}

int cli_trials(int argc, char **argv)
{
	static const struct option opts[] = {
		{"state", required_argument, NULL, 's'},
		{"format", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct trials_ctx x;
	struct spec s;
	int c, rc;

	memset(&x, 0, sizeof(x));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(trials_usage, stdout);
			return CLI_OK;
		} else if (c == 's') {
			if (!strcmp(optarg, "all"))
				x.want = NULL;
			else if (!strcmp(optarg, "pending") ||
				 !strcmp(optarg, "claimed") ||
				 !strcmp(optarg, "done") ||
				 !strcmp(optarg, "failed"))
				x.want = optarg;
			else
				return usage_fail("trials", trials_usage,
						  "--state: '%s' is not one of "
						  "pending, claimed, done, "
						  "failed, all",
						  optarg);
		} else if (c == 'f') {
			if (!strcmp(optarg, "table"))
				x.fmt = FMT_TABLE;
			else if (!strcmp(optarg, "csv"))
				x.fmt = FMT_CSV;
			else if (!strcmp(optarg, "jsonl"))
				x.fmt = FMT_JSONL;
			else
				return usage_fail("trials", trials_usage,
						  "--format: '%s' is not one "
						  "of table, csv, jsonl",
						  optarg);
		} else {
			return usage_fail("trials", trials_usage,
					  "unknown or incomplete option '%s'",
					  argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return usage_fail("trials", trials_usage, "%s",
				  "need exactly one STUDY");
	if ((rc = cli_open_study("trials", argv[optind], &s)))
		return rc;
	x.root = argv[optind];
	x.lineage = (optim_caps(s.optimizer) & OPTIM_CAP_SEGMENTS) != 0;
	if (x.fmt == FMT_TABLE)
		printf("%-8s %-8s %7s %4s %10s %-9s %8s%s %7s %14s %-7s %-12s "
		       "%s\n",
		       "id", "state", "bracket", "rung", "fidelity", "kind",
		       "parent", x.lineage ? " member segment donor" : "",
		       "attempt", "loss", "status", "host", "error");
	else if (x.fmt == FMT_CSV)
		printf("id,state,bracket,rung,fidelity,kind,parent%s,attempt,"
		       "loss,status,host,error\n",
		       x.lineage ? ",member,segment,donor" : "");
	rc = cli_scan_trials(
		"trials", argv[optind], &s,
		x.want && !strcmp(x.want, "pending")   ? CLI_SCAN_PENDING
		: x.want && !strcmp(x.want, "claimed") ? CLI_SCAN_CLAIMED
		: x.want			       ? CLI_SCAN_ARCHIVE
						       : CLI_SCAN_ALL,
		trials_row, &x);
	spec_release(&s);
	if (fflush(stdout) == EOF || rc)
		return cli_fail("trials", CLI_ESYS,
				"fatal: unable to write to standard output: %s",
				strerror(errno));
	return CLI_OK;
}

/* ---- show ---- */

/* Print a file (regular, not a symlink) of at most cap bytes. */
static void cat_file(const char *path, size_t cap)
{
	char *text;
	size_t len;
	int rc;

	if ((rc = fsutil_read_file(path, cap, &text, &len))) {
		cli_warn("show", "unable to read '%s': %s", path,
			 rc == DEHBQ_ETOOBIG ? "file too large"
					     : strerror(errno));
		return;
	}
	fwrite(text, 1, len, stdout);
	if (len && text[len - 1] != '\n')
		putchar('\n');
	free(text);
}

/* Print the last n lines of a log (reads at most the last 64 KiB). */
static void tail_file(const char *path, int n)
{
	char buf[65536];
	struct stat st;
	size_t got = 0;
	off_t off;
	int fd, lines = 0;
	ssize_t i;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT)
			cli_warn("show", "unable to open '%s': %s", path,
				 strerror(errno));
		return;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		cli_warn("show", "skipping '%s': not a regular file", path);
		close(fd);
		return;
	}
	off = st.st_size > (off_t)sizeof(buf) ? st.st_size - (off_t)sizeof(buf)
					      : 0;
	if (lseek(fd, off, SEEK_SET) < 0 ||
	    fsutil_read_all(fd, buf, sizeof(buf), &got)) {
		cli_warn("show", "unable to read '%s': %s", path,
			 strerror(errno));
		close(fd);
		return;
	}
	close(fd);
	printf("--- %s (last %d lines)\n", path, n);
	if (!got)
		return;
	i = (ssize_t)got - 1;
	if (buf[i] == '\n')
		i--;
	for (; i >= 0; i--)
		if (buf[i] == '\n' && ++lines == n)
			break;
	fwrite(buf + i + 1, 1, got - (size_t)(i + 1), stdout);
	if (buf[got - 1] != '\n')
		putchar('\n');
}

/* A progress file as its curve, one point per line; its JSON when it
 * does not load (the orchestrator quarantines such a file). */
static void show_curve(const char *path)
{
	char err[DEHBQ_ERRLEN];
	struct progress pr;
	size_t i;

	if (progress_load(path, &pr, err)) {
		cli_warn("show", "%s", err);
		cat_file(path, 4u << 20);
		return;
	}
	printf("curve of attempt %d (worker %s): %zu point%s%s\n"
	       "fidelity loss cost\n",
	       pr.attempt, pr.worker, pr.n, pr.n == 1 ? "" : "s",
	       pr.thinned ? ", thinned" : "");
	for (i = 0; i < pr.n; i++) {
		printf("%.10g %.10g ", pr.pt[i].fidelity, pr.pt[i].loss);
		if (pr.pt[i].cost < 0)
			printf("-\n");
		else
			printf("%.10g\n", pr.pt[i].cost);
	}
	progress_release(&pr);
}

/* 1 for a progress file: progress/ID.aN.WID.json, or archived as
 * ID.aN.progress.json */
static int is_progress(const char *dir, const char *name)
{
	size_t n = strlen(name), k = strlen(".progress.json");

	return !strcmp(dir, "progress") ||
	       (n > k && !strcmp(name + n - k, ".progress.json"));
}

/* 1 when name belongs to trial id: ID..., PP-ID..., and the archive's
 * stale names claimed.ID@... and pending.PP-ID... */
static int has_id(const char *name, const char *id)
{
	static const size_t at[] = {0, 3, 8, 11};
	size_t n = strlen(name), i;

	for (i = 0; i < 4; i++)
		if (n >= at[i] + 9 && !strncmp(name + at[i], id, 8) &&
		    (name[at[i] + 8] == '.' || name[at[i] + 8] == '@') &&
		    (at[i] != 3 || name[2] == '-') &&
		    (at[i] != 8 || !strncmp(name, "claimed.", 8)) &&
		    (at[i] != 11 || !strncmp(name, "pending.", 8)))
			return 1;
	return 0;
}

/* Print files of dir whose names contain the trial id; returns count. */
static int show_dir(const char *root, const char *dir, const char *id,
		    const char *state, int content)
{
	char p[STUDY_PATH_MAX];
	struct dirent **names;
	int n, i, k = 0;

	if (study_path(p, sizeof(p), root, "%s", dir))
		return 0;
	n = cli_list("show", p, &names);
	for (i = 0; i < n; i++) {
		const char *name = names[i]->d_name;

		if (!has_id(name, id))
			continue;
		if (study_path(p, sizeof(p), root, "%s/%s", dir, name))
			continue;
		k++;
		if (state)
			printf("state: %s (%s/%s)\n", state, dir, name);
		else if (content)
			printf("=== %s/%s\n", dir, name);
		if (content && is_progress(dir, name))
			show_curve(p);
		else if (content)
			cat_file(p, 4u << 20);
	}
	cli_list_free(names, n);
	return k;
}

int cli_show(int argc, char **argv)
{
	char p[STUDY_PATH_MAX], err[DEHBQ_ERRLEN], sh[8], dir[32];
	char idtxt[ID_TRIAL_LEN];
	const char *root;
	struct result r;
	struct spec s;
	uint64_t id;
	int rc, found, a, maxa = 0;

	if (cli_wants_help(argc, argv)) {
		fputs(show_usage, stdout);
		return CLI_OK;
	}
	if ((rc = cli_positional("show", show_usage, argc, argv, 2,
				 "STUDY and ID", NULL)))
		return rc;
	root = argv[1];
	if (cli_parse_trial_id(argv[2], &id, idtxt))
		return cli_fail("show", CLI_EINPUT,
				"'%s': not a trial id (up to 8 digits, e.g. "
				"42 or 00000042)",
				argv[2]);
	if ((rc = cli_open_study("show", root, &s)))
		return rc;
	snprintf(sh, sizeof(sh), "%04u", study_shard(id));
	snprintf(dir, sizeof(dir), "archive/%s", sh);
	found = show_dir(root, dir, idtxt, NULL, 0) +
		show_dir(root, "staging", idtxt, NULL, 0) +
		show_dir(root, "pending", idtxt, NULL, 0) +
		show_dir(root, "claimed", idtxt, NULL, 0) +
		show_dir(root, "results", idtxt, NULL, 0);
	if (!found) {
		spec_release(&s);
		return cli_fail("show", CLI_EINPUT,
				"trial %s: no such trial in "
				"%s",
				idtxt, root);
	}
	printf("trial %s of study %s\n", idtxt, root);
	show_dir(root, "staging", idtxt, "issued, not yet public", 0);
	show_dir(root, "pending", idtxt, "pending", 0);
	show_dir(root, "claimed", idtxt, "claimed", 0);
	show_dir(root, "results", idtxt, "result waiting", 0);
	if (!study_path(p, sizeof(p), root, "%s/%s.result.json", dir, idtxt)) {
		if (!result_load(p, &r, err)) {
			printf("state: %s (%s/%s.result.json)\n",
			       result_has_loss(&r) ? "done" : "failed", dir,
			       idtxt);
			maxa = r.attempt;
			result_release(&r);
		} else if (access(p, F_OK) == 0 || errno != ENOENT) {
			cli_warn("show", "%s", err);
		}
	}
	show_dir(root, dir, idtxt, NULL, 1);
	show_dir(root, "staging", idtxt, NULL, 1);
	show_dir(root, "pending", idtxt, NULL, 1);
	show_dir(root, "claimed", idtxt, NULL, 1);
	show_dir(root, "results", idtxt, NULL, 1);
	show_dir(root, "progress", idtxt, NULL, 1); /* a running curve */
	show_dir(root, "stop", idtxt, NULL, 1);
	/* logs of every attempt: ID.aN.out/.err */
	if (!study_path(p, sizeof(p), root, "logs/%s", sh)) {
		struct dirent **names;
		int n = cli_list("show", p, &names), i;

		for (i = 0; i < n; i++) {
			const char *nm = names[i]->d_name;
			char *end;
			long v;

			if (strncmp(nm, idtxt, 8) || strncmp(nm + 8, ".a", 2))
				continue;
			errno = 0;
			v = strtol(nm + 10, &end, 10);
			if (!errno && v > maxa && v < 1000000 &&
			    (!strcmp(end, ".out") || !strcmp(end, ".err")))
				maxa = (int)v;
		}
		cli_list_free(names, n);
	}
	for (a = 1; a <= maxa; a++) {
		static const char *const ext[] = {"out", "err"};
		int j;

		for (j = 0; j < 2; j++)
			if (!study_log_path(p, sizeof(p), root, id, a, ext[j]))
				tail_file(p, 20);
	}
	spec_release(&s);
	fflush(stdout);
	return CLI_OK;
}
