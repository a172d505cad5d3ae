/*
 * study.c - reading a study directory for the dehbq subcommands
 *
 * The CLI only reads a study (docs/protocol.md), except request files in
 * state/requests/.  Everything here is defensive: a file that does not
 * parse, a name outside the grammar, a symlink or a FIFO is skipped with
 * one warning line on stderr naming it; nothing is ever followed, opened
 * for writing or deleted.
 *
 * Trials are visited in this order: the archive (shards ascending, ids
 * ascending within a shard), then claimed/, then pending/.  One trial is
 * held in memory at a time, so 100k archived trials cost no more memory
 * than one (plus one shard's name list).
 *
 * Archive names that are ours (docs/protocol.md 4.5; anything else is
 * warned about):
 *   ID.trial.json, ID.result.json         a trial's latest attempt
 *   ID.aN.trial.json, ID.aN.result.json   attempt N, which failed and was
 *                                         requeued by `dehbq requeue`
 *   *.duplicate.json, *.note, *.stale.json
 * An earlier attempt is visited only with CLI_SCAN_ATTEMPTS (export and
 * plot: one row per evaluation), attempts ascending, before the trial's
 * ID.trial.json; without it a trial is one row, its latest state (trials).
 *
 * Clock: ages (heartbeats, claims, the lease) are server time against
 * server time, like the orchestrator's.  "Now" is the mtime of a dotfile
 * created in state/requests/ and removed at once (every scanner skips
 * dotfiles, and requests/ is the one directory the CLI may write).  When
 * that fails (read-only study) the local clock is used and said so.
 */
#include "cli.h"

#include "err.h"
#include "fsutil.h"
#include "progress.h"
#include "result.h"
#include "snapshot.h"
#include "space.h"
#include "spec.h"
#include "study.h"
#include "timeutil.h"
#include "trial.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cli_open_study(const char *cmd, const char *root, struct spec *s)
{
	char p[STUDY_PATH_MAX], err[DEHBQ_ERRLEN];
	struct stat st;
	int rc;

	memset(s, 0, sizeof(*s));
	if (study_path(p, sizeof(p), root, "study.json"))
		return cli_fail(cmd, CLI_EINPUT, "'%s': path too long", root);
	if (lstat(p, &st) < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return cli_fail(cmd, CLI_EINPUT,
					"'%s': not a study directory (no "
					"study.json)",
					root);
		return cli_fail(cmd, CLI_ESYS, "fatal: unable to stat '%s': %s",
				p, strerror(errno));
	}
	if ((rc = spec_load_study(root, s, err))) {
		rc = cli_exit_code(rc);
		memset(s, 0, sizeof(*s));
		return cli_fail(cmd, rc, "%s", err);
	}
	return CLI_OK;
}

void cli_study_label(const struct spec *s, const char *root, char *buf,
		     size_t size)
{
	size_t n = strlen(root);
	const char *b;

	if (s->name[0]) {
		snprintf(buf, size, "%s", s->name);
		return;
	}
	while (n > 1 && root[n - 1] == '/')
		n--;
	for (b = root + n; b > root && b[-1] != '/'; b--)
		;
	snprintf(buf, size, "%.*s", (int)(root + n - b), b);
}

double cli_fs_now(const char *root, int *local)
{
	char p[STUDY_PATH_MAX];
	double now;

	*local = 1;
	if (study_path(p, sizeof(p), root, "state/requests/.clock.%ld",
		       (long)getpid()))
		return timeutil_now();
	if (timeutil_fs_now(p, &now)) {
		unlink(p);
		return timeutil_now();
	}
	unlink(p);
	*local = 0;
	return now;
}

int cli_lmtime(const char *path, double *mt)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return -1;
	*mt = timeutil_secs(&st.st_mtim);
	return 0;
}

/* scandir() filter: everything but dotfiles. */
static int visible(const struct dirent *d)
{
	return !fsutil_skip_name(d->d_name);
}

int cli_list(const char *cmd, const char *dir, struct dirent ***out)
{
	int n = scandir(dir, out, visible, alphasort);

	if (n < 0) {
		*out = NULL;
		if (errno != ENOENT)
			cli_warn(cmd, "unable to list '%s': %s", dir,
				 strerror(errno));
		return 0;
	}
	return n;
}

void cli_list_free(struct dirent **list, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

int cli_is_shard(const char *name)
{
	int i;

	for (i = 0; i < 4; i++)
		if (name[i] < '0' || name[i] > '9')
			return 0;
	return name[4] == 0;
}

/* Archive names that are ours but not a trial: results (ID.result.json,
 * ID.aN.result.json), duplicates, notes, stale claims; 1 when name is one
 * of them. */
static int archive_other(const char *name)
{
	size_t n = strlen(name);
	static const char *const sfx[] = {
		".result.json",	  ".duplicate.json", ".note", ".stale.json",
		".progress.json", ".stop.json",	     NULL};
	int i;

	for (i = 0; sfx[i]; i++) {
		size_t k = strlen(sfx[i]);

		if (n > k && !strcmp(name + n - k, sfx[i]))
			return 1;
	}
	return 0;
}

/*
 * "IIIIIIII.trial.json" -> id, *attempt 0 (the latest attempt);
 * "IIIIIIII.aN.trial.json" -> id, *attempt N (an earlier attempt, N >= 1
 * without leading zeros, as the orchestrator writes it); 0 ok.
 */
static int archive_trial_name(const char *name, uint64_t *id, int *attempt)
{
	char buf[ID_TRIAL_LEN], *end;
	const char *rest = name + 8;
	long n = 0;

	*attempt = 0;
	if (strlen(name) < 19)
		return -1;
	memcpy(buf, name, 8);
	buf[8] = 0;
	if (id_trial_parse(buf, id))
		return -1;
	if (!strncmp(rest, ".a", 2)) {
		if (rest[2] < '1' || rest[2] > '9')
			return -1;
		errno = 0;
		n = strtol(rest + 2, &end, 10);
		if (errno || n > 999999)
			return -1;
		rest = end;
	}
	if (strcmp(rest, ".trial.json"))
		return -1;
	*attempt = (int)n;
	return 0;
}

/*
 * qsort() order of a shard's names: by the first 8 characters (the id),
 * then other names, then ID.aN.trial.json by N, then ID.trial.json; ties
 * by name.  A total order, so earlier attempts come before the latest.
 */
static int archive_rank(const char *name)
{
	uint64_t id;
	int attempt;

	if (archive_trial_name(name, &id, &attempt))
		return -1;
	return attempt ? attempt : 1000000;
}

static int archive_cmp(const void *a, const void *b)
{
	const char *x = (*(const struct dirent *const *)a)->d_name;
	const char *y = (*(const struct dirent *const *)b)->d_name;
	int c = strncmp(x, y, 8), rx, ry;

	if (c)
		return c;
	rx = archive_rank(x);
	ry = archive_rank(y);
	if (rx != ry)
		return rx < ry ? -1 : 1;
	return strcmp(x, y);
}

static void row_reset(struct cli_row *row)
{
	trial_release(&row->t);
	if (row->has_result)
		result_release(&row->r);
	memset(row, 0, sizeof(*row));
}

/* Load one archived trial + result into row: the latest attempt's
 * (attempt 0) or attempt N's (ID.aN.*); 0 ok, -1 skipped. */
static int load_archived(const char *cmd, const char *root,
			 const struct space *sp, const char *shard, uint64_t id,
			 int attempt, unsigned flags, struct cli_row *row)
{
	char p[STUDY_PATH_MAX], err[DEHBQ_ERRLEN], stem[32];

	if (attempt)
		snprintf(stem, sizeof(stem), "%08llu.a%d",
			 (unsigned long long)id, attempt);
	else
		snprintf(stem, sizeof(stem), "%08llu", (unsigned long long)id);
	if (study_path(p, sizeof(p), root, "archive/%s/%s.trial.json", shard,
		       stem))
		return -1;
	if (trial_load(p, sp, &row->t, err)) {
		cli_warn(cmd, "skipping %s", err);
		memset(&row->t, 0, sizeof(row->t));
		return -1;
	}
	if (row->t.id != id) {
		cli_warn(cmd,
			 "skipping '%s': id %08llu does not match the "
			 "file name",
			 p, (unsigned long long)row->t.id);
		trial_release(&row->t);
		return -1;
	}
	row->state = "archived";
	if (flags & CLI_SCAN_NORESULT)
		return 0;
	if (study_path(p, sizeof(p), root, "archive/%s/%s.result.json", shard,
		       stem))
		return 0;
	if (result_load(p, &row->r, err)) {
		/* no result yet: the batch that told it moves the trial file
		 * into the archive first, the result an instant later */
		if (!attempt && access(p, F_OK) < 0 && errno == ENOENT)
			row->state = "claimed";
		else
			cli_warn(cmd, "skipping %s", err);
		memset(&row->r, 0, sizeof(row->r));
		return 0;
	}
	row->has_result = 1;
	row->state = result_has_loss(&row->r) ? "done" : "failed";
	snprintf(row->host, sizeof(row->host), "%s", row->r.host);
	return 0;
}

static int scan_archive(const char *cmd, const char *root,
			const struct space *sp, unsigned flags,
			int (*fn)(void *arg, struct cli_row *row), void *arg)
{
	char p[STUDY_PATH_MAX];
	struct dirent **shards, **names;
	int ns, nn, i, j, rc = 0;

	if (study_path(p, sizeof(p), root, "archive"))
		return 0;
	ns = cli_list(cmd, p, &shards);
	for (i = 0; i < ns && !rc; i++) {
		const char *sh = shards[i]->d_name;

		if (!cli_is_shard(sh)) {
			cli_warn(cmd,
				 "skipping '%s/archive/%s': not a shard "
				 "directory",
				 root, sh);
			continue;
		}
		if (study_path(p, sizeof(p), root, "archive/%s", sh))
			continue;
		nn = cli_list(cmd, p, &names);
		if (nn > 1)
			qsort(names, (size_t)nn, sizeof(*names), archive_cmp);
		for (j = 0; j < nn && !rc; j++) {
			struct cli_row row;
			uint64_t id;
			int attempt;

			if (archive_trial_name(names[j]->d_name, &id,
					       &attempt)) {
				if (!archive_other(names[j]->d_name))
					cli_warn(cmd,
						 "skipping '%s/%s': "
						 "unexpected name",
						 p, names[j]->d_name);
				continue;
			}
			if (attempt && !(flags & CLI_SCAN_ATTEMPTS))
				continue;
			memset(&row, 0, sizeof(row));
			if (load_archived(cmd, root, sp, sh, id, attempt, flags,
					  &row))
				continue;
			rc = fn(arg, &row);
			row_reset(&row);
		}
		cli_list_free(names, nn);
	}
	cli_list_free(shards, ns);
	return rc;
}

/* The trials in flight, by id, from the newest snapshot. */
struct live_filter {
	struct snapshot_inflight *v; /* sorted by id; NULL: no snapshot */
	size_t n;		     /* entries */
};

static int cmp_inflight(const void *a, const void *b)
{
	uint64_t x = ((const struct snapshot_inflight *)a)->id;
	uint64_t y = ((const struct snapshot_inflight *)b)->id;

	return x < y ? -1 : x > y;
}

/* NULL when t is a trial in flight (or there is no snapshot to tell). */
static const char *not_in_flight(const struct live_filter *lf,
				 const struct trial *t)
{
	struct snapshot_inflight key, *e;

	if (!lf->v)
		return NULL;
	key.id = t->id;
	e = lf->n ? bsearch(&key, lf->v, lf->n, sizeof(*lf->v), cmp_inflight)
		  : NULL;
	if (!e)
		return "no trial in flight has its id (a stale copy of a told "
		       "trial, or a foreign file; the orchestrator retires it)";
	if (e->token != t->token)
		return "its token is not the one its trial was issued with "
		       "(a foreign file; the orchestrator quarantines it)";
	return NULL;
}

static int scan_live(const char *cmd, const char *root, const struct space *sp,
		     const struct live_filter *lf, const char *dir,
		     int (*fn)(void *arg, struct cli_row *row), void *arg)
{
	char p[STUDY_PATH_MAX], err[DEHBQ_ERRLEN];
	struct dirent **names;
	const char *why;
	int n, j, rc = 0;

	if (study_path(p, sizeof(p), root, "%s", dir))
		return 0;
	n = cli_list(cmd, p, &names);
	for (j = 0; j < n && !rc; j++) {
		const char *name = names[j]->d_name;
		struct study_claim c;
		struct cli_row row;
		uint64_t id;
		int rung;

		memset(&row, 0, sizeof(row));
		if (!strcmp(dir, "claimed")) {
			if (study_parse_claim(name, &c)) {
				cli_warn(cmd,
					 "skipping '%s/%s': unexpected name", p,
					 name);
				continue;
			}
			id = c.id;
			snprintf(row.host, sizeof(row.host), "%s", c.host);
			row.state = "claimed";
		} else {
			if (study_parse_pending(name, &rung, &id)) {
				cli_warn(cmd,
					 "skipping '%s/%s': unexpected name", p,
					 name);
				continue;
			}
			row.state = "pending";
		}
		if (study_path(p, sizeof(p), root, "%s/%s", dir, name))
			continue;
		if (trial_load(p, sp, &row.t, err)) {
			/* a worker may have moved it meanwhile: not damage */
			if (access(p, F_OK) == 0 || errno != ENOENT)
				cli_warn(cmd, "skipping %s", err);
		} else if (row.t.id != id) {
			cli_warn(cmd,
				 "skipping '%s': id %08llu does not match "
				 "the name",
				 p, (unsigned long long)row.t.id);
			row_reset(&row);
		} else if ((why = not_in_flight(lf, &row.t))) {
			cli_warn(cmd, "skipping '%s': %s", p, why);
			row_reset(&row);
		} else {
			rc = fn(arg, &row);
			row_reset(&row);
		}
		if (study_path(p, sizeof(p), root, "%s", dir))
			break;
	}
	cli_list_free(names, n);
	return rc;
}

int cli_scan_trials(const char *cmd, const char *root, const struct spec *s,
		    unsigned flags, int (*fn)(void *arg, struct cli_row *row),
		    void *arg)
{
	struct live_filter lf = {NULL, 0};
	int rc = 0;

	if (flags & CLI_SCAN_ARCHIVE)
		rc = scan_archive(cmd, root, s->space, flags, fn, arg);
	if (rc || !(flags & (CLI_SCAN_CLAIMED | CLI_SCAN_PENDING)))
		return rc;
	if (snapshot_read_inflight(root, s->study, &lf.v, &lf.n) == DEHBQ_OK) {
		if (lf.n > 1)
			qsort(lf.v, lf.n, sizeof(*lf.v), cmp_inflight);
	} else {
		free(lf.v);
		lf.v = NULL;
	}
	if (flags & CLI_SCAN_CLAIMED)
		rc = scan_live(cmd, root, s->space, &lf, "claimed", fn, arg);
	if (!rc && (flags & CLI_SCAN_PENDING))
		rc = scan_live(cmd, root, s->space, &lf, "pending", fn, arg);
	free(lf.v);
	return rc;
}

int cli_count_dir(const char *root, const char *dir)
{
	char p[STUDY_PATH_MAX];
	struct dirent *d;
	DIR *dp;
	int n = 0;

	if (study_path(p, sizeof(p), root, "%s", dir) || !(dp = opendir(p)))
		return 0;
	while ((d = readdir(dp)))
		if (!fsutil_skip_name(d->d_name))
			n++;
	closedir(dp);
	return n;
}

int cli_progress_latest(const char *root, uint64_t id, int attempt,
			double *fidelity, double *loss)
{
	char dir[STUDY_PATH_MAX], p[STUDY_PATH_MAX], pre[40], err[DEHBQ_ERRLEN];
	const struct progress_point *last;
	struct progress pr;
	struct dirent *e;
	double best_mt = -1, mt;
	int rc = DEHBQ_ENOENT;
	DIR *d;

	snprintf(pre, sizeof(pre), "%08llu.a%d.", (unsigned long long)id,
		 attempt);
	if (study_path(dir, sizeof(dir), root, "progress") ||
	    !(d = opendir(dir)))
		return DEHBQ_ENOENT;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, pre, strlen(pre)) ||
		    study_path(p, sizeof(p), root, "progress/%s", e->d_name) ||
		    cli_lmtime(p, &mt) || mt < best_mt ||
		    progress_load(p, &pr, err))
			continue;
		if ((last = progress_last(&pr))) {
			*fidelity = last->fidelity;
			*loss = last->loss;
			best_mt = mt;
			rc = DEHBQ_OK;
		}
		progress_release(&pr);
	}
	closedir(d);
	return rc;
}

void cli_count_archive(const char *root, long *trials, long *other)
{
	char p[STUDY_PATH_MAX];
	struct dirent *d, *e;
	DIR *dp, *sp;

	*trials = *other = 0;
	if (study_path(p, sizeof(p), root, "archive") || !(dp = opendir(p)))
		return;
	while ((d = readdir(dp))) {
		if (!cli_is_shard(d->d_name) ||
		    study_path(p, sizeof(p), root, "archive/%s", d->d_name) ||
		    !(sp = opendir(p)))
			continue;
		while ((e = readdir(sp))) {
			uint64_t id;
			int attempt;

			if (fsutil_skip_name(e->d_name))
				continue;
			if (!archive_trial_name(e->d_name, &id, &attempt))
				*trials += !attempt;
			else if (!archive_other(e->d_name))
				(*other)++;
		}
		closedir(sp);
	}
	closedir(dp);
}
