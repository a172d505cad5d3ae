/*
 * cli.h - the dehbq subcommands and their shared helpers
 *
 * Each subcommand is `int cli_<name>(int argc, char **argv)` and returns
 * the process exit code: 0 ok, 100 bad usage or input (permanent), 111
 * system failure (temporary).  Messages go to stderr in the STYLE.md form
 * ("dehbq init: <what>", input errors as "file:line:col: ...").
 */
#ifndef DEHBQ_CLI_H
#define DEHBQ_CLI_H

#include <stddef.h>
#include <stdint.h>

#include <stdio.h>

#include "id.h"
#include "result.h"
#include "trial.h"

struct dirent;
struct space;
struct spec;

#define CLI_OK	   0
#define CLI_EINPUT 100
#define CLI_ESYS   111

int cli_validate(int argc, char **argv);
int cli_init(int argc, char **argv);
int cli_status(int argc, char **argv);
int cli_workers(int argc, char **argv);
int cli_trials(int argc, char **argv);
int cli_show(int argc, char **argv);
int cli_export(int argc, char **argv);
int cli_best(int argc, char **argv);
int cli_plot(int argc, char **argv);
int cli_report(int argc, char **argv);
int cli_stop(int argc, char **argv);
int cli_requeue(int argc, char **argv);
int cli_extend(int argc, char **argv);
int cli_pareto(int argc, char **argv);
int cli_importance(int argc, char **argv);

/* Print "dehbq <cmd>: <msg>" to stderr; returns code. */
int cli_fail(const char *cmd, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Bad arguments: one line, "dehbq <cmd>: <msg>; usage: <the first line of
 * usage> (dehbq <cmd> --help)"; returns CLI_EINPUT.
 */
int cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Check that argv holds exactly n positional arguments after the command,
 * none an option except `option` as the last (NULL: none); else
 * cli_usage_error()
 * with "need <need>" or "unexpected argument '<it>'".  CLI_OK or
 * CLI_EINPUT.
 */
int cli_positional(const char *cmd, const char *usage, int argc, char **argv,
		   int n, const char *need, const char *option);
/* Map a DEHBQ_* error to an exit code (input vs system); reads errno for
 * DEHBQ_ESYS, so call it before anything that may change errno. */
int cli_exit_code(int dehbq_err);
/* Strict number parsing for option values; 0 ok, -1 bad. */
int cli_parse_double(const char *s, double *out);
int cli_parse_int(const char *s, int64_t min, int64_t max, int64_t *out);
/* A trial id as people type or paste it: 1 to 8 digits ("35" from a
 * pandas column, or "00000035"); out gets the 8-digit form.  0 or -1. */
int cli_parse_trial_id(const char *s, uint64_t *id, char out[ID_TRIAL_LEN]);
/* 1 when argv holds -h or --help. */
int cli_wants_help(int argc, char **argv);

/* Print "dehbq <cmd>: warning: <msg>" to stderr. */
void cli_warn(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- study.c: reading a study directory ---- */

/*
 * Load root/study.json into s (caller releases with spec_release()).
 * Prints the error and returns the exit code on failure (s zeroed).
 */
int cli_open_study(const char *cmd, const char *root, struct spec *s);
/* What to call a study in titles: its name, else its directory's last
 * component (never its UUID); into buf. */
void cli_study_label(const struct spec *s, const char *root, char *buf,
		     size_t size);
/* Filesystem "now" (see study.c); *local set when the local clock was
 * used instead. */
double cli_fs_now(const char *root, int *local);
/* lstat() mtime; 0 ok, -1 (errno) otherwise. */
int cli_lmtime(const char *path, double *mt);
/* Sorted listing without dotfiles; caller frees with cli_list_free().
 * A missing directory is an empty listing; other errors warn. */
int cli_list(const char *cmd, const char *dir, struct dirent ***out);
void cli_list_free(struct dirent **list, int n);
/* 1 when name is a 4-digit archive shard. */
int cli_is_shard(const char *name);
/*
 * A running trial's latest intermediate result: the last point of
 * root/progress/ID.aN.*.json for its attempt (the newest file when
 * several); DEHBQ_ENOENT when it reported none.
 */
int cli_progress_latest(const char *root, uint64_t id, int attempt,
			double *fidelity, double *loss);
/* Visible entries of root/dir (0 when missing). */
int cli_count_dir(const char *root, const char *dir);
/* Archived trials (ID.trial.json; earlier attempts ID.aN.trial.json are
 * ours but not counted), and names in archive/ that are not ours. */
void cli_count_archive(const char *root, long *trials, long *other);

/*
 * One trial (or one earlier attempt of it, ID.aN.*) as found on disk.
 * Borrowed by the scan callback: the scan releases t and r after fn
 * returns.
 */
struct cli_row {
	const char *state;	/* pending claimed done failed archived */
	struct trial t;		/* the trial file */
	int has_result;		/* r is valid (archived with a result) */
	struct result r;	/* its result */
	char host[ID_HOST_LEN]; /* claiming host, or the result's host */
};

enum cli_scan_flags {
	CLI_SCAN_ARCHIVE = 1 << 0,  /* archive/SSSS/ID.trial.json */
	CLI_SCAN_CLAIMED = 1 << 1,  /* claimed/ */
	CLI_SCAN_PENDING = 1 << 2,  /* pending/ */
	CLI_SCAN_NORESULT = 1 << 3, /* do not load archived results */
	CLI_SCAN_ALL = 7,
	CLI_SCAN_ATTEMPTS = 1 << 4, /* with ARCHIVE: also ID.aN.trial.json */
};

/*
 * Call fn for every readable trial (archive, then claimed, then pending);
 * unreadable files are skipped with a warning.  A trial is one call, its
 * latest state; with CLI_SCAN_ATTEMPTS, each earlier attempt the archive
 * keeps (ID.aN.trial.json and ID.aN.result.json, failed and requeued) is
 * one more call, in the archive pass, attempts ascending, before the
 * trial's ID.trial.json.  A file in claimed/ or pending/ is a trial only
 * when the newest snapshot has its id in flight with its token (docs/
 * protocol.md 6.1): a stale copy or a foreign file is skipped with a
 * warning (the orchestrator retires it), and so is a trial published after
 * that snapshot was read.  Stops at and returns the first non-zero value
 * fn returns.
 */
int cli_scan_trials(const char *cmd, const char *root, const struct spec *s,
		    unsigned flags, int (*fn)(void *arg, struct cli_row *row),
		    void *arg);

/*
 * The points of dehbq importance (importance.c), which the report's
 * importance section shares: a study's ok results as unit-cube vectors
 * (as the optimiser drew them: an inactive parameter keeps its draw) and
 * the loss, or objective obj (>= 0) of a multi-objective study.
 * Ownership: the arrays are the struct's (cli_imp_free); s is borrowed.
 */
struct cli_imp {
	const struct spec *s;
	int dim, obj;
	size_t n, cap;
	double *fid, *x, *y; /* n, n x dim, n */
};
void cli_imp_init(struct cli_imp *c, const struct spec *s, int obj);
/* Add row when it is an ok result with a finite value; -1: no memory. */
int cli_imp_add(struct cli_imp *c, const struct cli_row *row);
void cli_imp_free(struct cli_imp *c);
/* Results that are enough at a fidelity: max(10, 2 x parameters). */
size_t cli_imp_need(int dim);
/*
 * The fANOVA importances of the points at fidelity fid (forest.h: 64
 * trees of depth 64, the study's seed) into mean and sd (dim each); *m
 * points, *used trees.  DEHBQ_EINVAL with fewer than 2 points.
 */
int cli_imp_fit(const struct cli_imp *c, double fid, double *mean, double *sd,
		int *m, int *used);
/* ord: the dimensions by importance, most first (ties: space order). */
void cli_imp_order(const double *mean, int dim, int *ord);

/* ---- front.c: a multi-objective study's Pareto front ---- */

/* Results with every objective (at the maximum fidelity, or any), by
 * ascending trial id.  Owned; cli_front_free() releases. */
struct cli_front {
	int m;		   /* objectives; 0: a single-objective study */
	size_t n, cap;	   /* results */
	uint64_t *id;	   /* trial ids */
	double *fid;	   /* fidelities */
	double *raw;	   /* n * m, as the trainer reported them */
	double *y;	   /* n * m, minimised (a "max" goal negated) */
	char **cfg;	   /* printed configurations */
	unsigned char *on; /* 1: on the front */
	size_t nfront;	   /* points on it */
	double ref[16];	   /* hypervolume reference, raw units */
	int ref_spec;	   /* 1: from the spec; 0: nadir + 10 % */
	int hv_ok;	   /* hv computed (m <= 3, some point) */
	double hv;	   /* hypervolume */
};

/* Exit code; f is empty (m 0) for a single-objective study. */
int cli_front_load(const char *cmd, const char *root, const struct spec *s,
		   int any_fidelity, struct cli_front *f);
void cli_front_free(struct cli_front *f);
/* 1 on the front, 0 behind it, -1 not among the results. */
int cli_front_on(const struct cli_front *f, uint64_t id);
/* dehbq status's lines for a multi-objective study: the objectives, the
 * front's summary and where to list it. */
void cli_front_status(FILE *f, const char *root, const struct spec *s);
struct svg_panel;
/* The front of the first two objectives in panel p, titled: the
 * dominated points grey, the front red, as reported (a "max" goal stays
 * maximised). */
void cli_front_svg(FILE *out, const struct cli_front *f, const struct spec *s,
		   const struct svg_panel *p, const char *title);
/* "front: N points of M ..., hypervolume H (reference ...)" and newline. */
void cli_front_summary(FILE *out, const struct cli_front *f,
		       const struct spec *s);

/* ---- transfer.c: dehbq init --transfer-from ---- */

struct transfer;
/*
 * Import every source (a study directory or a .jsonl file) for the study
 * of spec s into t (initialised here; released on failure).  err: one
 * line naming the source, the row or trial, and the field.
 */
int cli_transfer_import(const struct spec *s, char *const *src, int nsrc,
			struct transfer *t, char *err);

/* ---- what status says about the optimiser (status_optim.c) ---- */

struct statusfile;
/* A single-objective study's incumbents at the maximum and any fidelity;
 * finished: the study ended, so "none" says why. */
void cli_status_incumbents(FILE *f, const char *root, const struct spec *s,
			   const struct statusfile *st, int finished);
/* The earlier tasks and the prior's fit, from the optimiser's summary o. */
void cli_status_transfer(FILE *f, const struct cJSON *o);
/* The optimiser's summary o: brackets, rungs, model state. */
void cli_status_optimizer(FILE *f, const struct cJSON *o);

/* ---- what init prints (init_show.c) ---- */

/* Every optimiser with its summary and its settings' defaults, to f. */
void cli_init_print_optimizers(FILE *f);
/* The fidelity ladder of s and what a bracket costs, to stdout; warns on
 * stderr when s's termination cannot reach the top fidelity. */
void cli_init_print_ladder(const struct spec *s);
/* The earlier tasks of t and their sizes, to stdout. */
void cli_init_print_transfer(const struct transfer *t);

/* ---- output helpers (util.c) ---- */

/* Write s as one RFC 4180 CSV field. */
void cli_csv_field(FILE *f, const char *s);
/*
 * Write what fn writes to f either to stdout (path "-") or atomically to
 * path (buffered in memory, then atomicfile_write).  Returns exit code.
 */
int cli_write_output(const char *cmd, const char *path,
		     int (*fn)(void *arg, FILE *f), void *arg);

#endif
