/*
 * export.c - `dehbq export STUDY --csv FILE | --jsonl FILE`
 *
 * One row per evaluation: every archived result, failed ones included:
 * ID.result.json, and ID.aN.result.json for each earlier attempt N that
 * failed and was requeued (its attempt column shows N; rows of one trial
 * come in attempt order).  Duplicates are not evaluations the optimiser
 * saw and are left out.  Columns: id, bracket, rung, fidelity, kind,
 * parent (the trial whose work directory it continued, or empty), one
 * column per parameter in space order, loss, cost, status, attempt,
 * worker, host, started, finished, wall_time, max_rss_kb, reached (the
 * fidelity the evaluation reached: a stopped trial's last intermediate
 * one, else the trial's when ok), then the trainer's info flattened to
 * info.<key> (nested objects joined with dots; arrays kept as JSON text)
 * and the optimiser's state of the trial to state.<key> (pbt's member,
 * segment and donor; asha's config; sh's and hyperband's level, slot and
 * config_id, dehb's level),
 * read as data, never interpreted.
 *
 * CSV needs the union of info keys up front, so it makes two passes over
 * the archive: the first collects the keys (sorted), the second writes
 * rows.  Only one trial is in memory at a time; the output for a FILE is
 * built in memory and published with atomicfile_write(), for "-" it is
 * streamed to stdout.
 */
#include "cli.h"

#include "err.h"
#include "jsonfile.h"
#include "objectives.h"
#include "space.h"
#include "spec.h"
#include "timeutil.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char export_usage[] =
	"usage: dehbq export STUDY --csv FILE\n"
	"   or: dehbq export STUDY --jsonl FILE\n"
	"\n"
	"Write one row per evaluation (every archived result, failed ones\n"
	"included, also the earlier attempts of a requeued trial): id,\n"
	"bracket, rung, fidelity, kind, parent (the trial it continued), each\n"
	"parameter, loss, cost, status, attempt, worker, host, started,\n"
	"finished, wall_time, max_rss_kb, reached (the fidelity it reached:\n"
	"less than its fidelity when the optimizer stopped it), the trainer's\n"
	"info as info.<key> columns and the optimizer's state of the trial as\n"
	"state.<key> columns (pbt: state.member, state.segment, state.donor).  "
	"FILE '-'\n"
	"is standard output; a FILE is replaced atomically.  Loads with\n"
	"pandas.read_csv(FILE) or pandas.read_json(FILE, lines=True).\n";

/* A flattened info leaf: key and its text (CSV) or item (JSONL). */
struct leaf {
	char *key;	   /* "info.a.b", owned */
	const cJSON *item; /* borrowed from the parsed info */
};

struct leaves {
	struct leaf *v; /* entries */
	size_t n, cap;	/* used, allocated */
};

static int leaves_add(struct leaves *l, const char *key, const cJSON *item)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct leaf *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	if (!(l->v[l->n].key = strdup(key)))
		return -1;
	l->v[l->n++].item = item;
	return 0;
}

static void leaves_clear(struct leaves *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].key);
	l->n = 0;
}

static int flatten(struct leaves *l, const char *prefix, const cJSON *o)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, o)
	{
		size_t n = strlen(prefix) +
			   strlen(it->string ? it->string : "") + 2;
		char *k = malloc(n);
		int rc;

		if (!k)
			return -1;
		snprintf(k, n, "%s.%s", prefix, it->string ? it->string : "");
		rc = cJSON_IsObject(it) ? flatten(l, k, it)
					: leaves_add(l, k, it);
		free(k);
		if (rc)
			return -1;
	}
	return 0;
}

static int leaf_cmp(const void *a, const void *b)
{
	return strcmp(((const struct leaf *)a)->key,
		      ((const struct leaf *)b)->key);
}

/* Sorted, unique set of info column names. */
struct keyset {
	char **v;      /* sorted keys, owned */
	size_t n, cap; /* used, allocated */
};

static int keyset_add(struct keyset *ks, const char *k)
{
	size_t lo = 0, hi = ks->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(ks->v[mid], k);

		if (!c)
			return 0;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (ks->n == ks->cap) {
		size_t cap = ks->cap ? 2 * ks->cap : 16;
		char **v = realloc(ks->v, cap * sizeof(*v));

		if (!v)
			return -1;
		ks->v = v;
		ks->cap = cap;
	}
	memmove(ks->v + lo + 1, ks->v + lo, (ks->n - lo) * sizeof(*ks->v));
	if (!(ks->v[lo] = strdup(k)))
		return -1;
	ks->n++;
	return 0;
}

struct export_ctx {
	const char *root;	 /* study directory */
	const struct spec *spec; /* study spec */
	int jsonl;		 /* 0 csv, 1 jsonl */
	FILE *f;		 /* output */
	struct keyset keys;	 /* info columns (csv) */
	struct leaves lv;	 /* current row's info and state leaves */
	struct jsonfile *sjf;	 /* current row's optimiser state, or NULL */
	int oom;		 /* out of memory seen */
	long rows;		 /* rows written */
	struct cli_front front;	 /* a multi-objective study's front */
};

/*
 * A multi-objective row's objectives as reported (NaN when missing) and
 * its pareto flag: 1 on the front, 0 behind, -1 not at the maximum
 * fidelity or not a complete result.
 */
static int row_objectives(const struct export_ctx *x, const struct cli_row *row,
			  double *raw)
{
	double y[OBJECTIVES_MAX];
	char why[DEHBQ_ERRLEN];
	const struct objectives *ob = &x->spec->obj;
	int l;

	if (row->r.status != RESULT_OK ||
	    objectives_read(ob, row->r.objectives, y, raw, why, sizeof(why))) {
		for (l = 0; l < ob->n; l++)
			raw[l] = NAN;
		return -1;
	}
	return cli_front_on(&x->front, row->t.id); /* earlier attempts failed */
}

/* Parse row's info and flatten it into x->lv (sorted).  The returned
 * jsonfile owns the items; NULL when there is nothing to flatten. */
/* The trial's optimiser state (an object of the scheduler's, opaque here)
 * as state.<key> leaves; x->sjf holds it until row_done. */
static void row_state(struct export_ctx *x, const struct cli_row *row)
{
	char err[DEHBQ_ERRLEN], name[64];
	const char *st = row->t.optimizer;

	x->sjf = NULL;
	if (!st[0])
		return;
	snprintf(name, sizeof(name), "trial %08llu: optimizer state",
		 (unsigned long long)row->t.id);
	if (jsonfile_parse(name, st, strlen(st), &x->sjf, err)) {
		cli_warn("export", "%s", err);
		x->sjf = NULL;
		return;
	}
	if (cJSON_IsObject(jsonfile_root(x->sjf)) &&
	    flatten(&x->lv, "state", jsonfile_root(x->sjf)))
		x->oom = 1;
}

/* A row's parsed info and state freed. */
static void row_done(struct export_ctx *x, struct jsonfile *jf)
{
	jsonfile_free(jf);
	jsonfile_free(x->sjf);
	x->sjf = NULL;
}

static struct jsonfile *row_info(struct export_ctx *x, struct cli_row *row)
{
	char err[DEHBQ_ERRLEN], name[64];
	struct jsonfile *jf;

	leaves_clear(&x->lv);
	snprintf(name, sizeof(name), "trial %08llu: info",
		 (unsigned long long)row->t.id);
	if (jsonfile_parse(name, row->r.info, strlen(row->r.info), &jf, err)) {
		cli_warn("export", "%s", err);
		return NULL;
	}
	if (!cJSON_IsObject(jsonfile_root(jf))) {
		jsonfile_free(jf);
		return NULL;
	}
	if (flatten(&x->lv, "info", jsonfile_root(jf)))
		x->oom = 1;
	row_state(x, row);
	if (x->lv.n > 1)
		qsort(x->lv.v, x->lv.n, sizeof(*x->lv.v), leaf_cmp);
	return jf;
}

static int pass_keys(void *arg, struct cli_row *row)
{
	struct export_ctx *x = arg;
	struct jsonfile *jf;
	size_t i;

	if (!row->has_result)
		return 0;
	if (!(jf = row_info(x, row)))
		return x->oom ? -1 : 0;
	for (i = 0; i < x->lv.n && !x->oom; i++)
		if (keyset_add(&x->keys, x->lv.v[i].key))
			x->oom = 1;
	row_done(x, jf);
	return x->oom ? -1 : 0;
}

static void csv_leaf(FILE *f, const cJSON *it)
{
	char num[40], *txt;

	if (cJSON_IsString(it)) {
		cli_csv_field(f, it->valuestring);
	} else if (cJSON_IsNumber(it)) {
		jsonfile_fmt_double(num, sizeof(num), it->valuedouble);
		fputs(num, f);
	} else if (cJSON_IsBool(it)) {
		fputs(cJSON_IsTrue(it) ? "true" : "false", f);
	} else if (!cJSON_IsNull(it) && (txt = cJSON_PrintUnformatted(it))) {
		cli_csv_field(f, txt);
		cJSON_free(txt);
	}
}

static void csv_num(FILE *f, double d)
{
	char num[40];

	jsonfile_fmt_double(num, sizeof(num), d);
	fprintf(f, ",%s", num);
}

/* The fidelity row's evaluation reached: a stopped trial's last
 * intermediate one, an ok trial's own; NaN: not known (failed). */
static double reached(const struct cli_row *row)
{
	if (row->r.fidelity > 0)
		return row->r.fidelity;
	return row->r.status == RESULT_OK ? row->t.fidelity : NAN;
}

static int row_csv(struct export_ctx *x, struct cli_row *row)
{
	const struct result *r = &row->r;
	char buf[2 * SPACE_MAX_STRLEN + 64], t0[TIMEUTIL_ISO_LEN],
		t1[TIMEUTIL_ISO_LEN];
	struct jsonfile *jf = row_info(x, row);
	FILE *f = x->f;
	size_t i, j = 0;
	int k;

	if (x->oom) {
		row_done(x, jf);
		return -1;
	}
	fprintf(f, "%08llu,%lld,%d", (unsigned long long)row->t.id,
		(long long)row->t.bracket, row->t.rung);
	csv_num(f, row->t.fidelity);
	fprintf(f, ",%s,", trial_kind_name(row->t.kind));
	if (row->t.parent >= 0)
		fprintf(f, "%08lld", (long long)row->t.parent);
	for (k = 0; k < row->t.dim; k++) {
		fputc(',', f);
		if (!space_value_format(&row->t.config[k], buf, sizeof(buf)))
			cli_csv_field(f, buf);
	}
	if (result_has_loss(r))
		csv_num(f, r->loss);
	else
		fputc(',', f);
	if (x->spec->obj.n) {
		double raw[OBJECTIVES_MAX];
		int on = row_objectives(x, row, raw), l;

		for (l = 0; l < x->spec->obj.n; l++)
			if (isnan(raw[l]))
				fputc(',', f);
			else
				csv_num(f, raw[l]);
		fprintf(f, on < 0 ? "," : ",%d", on);
	}
	csv_num(f, r->cost);
	timeutil_iso(r->started, t0);
	timeutil_iso(r->finished, t1);
	fprintf(f, ",%s,%d,%s,%s,%s,%s", result_status_name(r->status),
		r->attempt, r->worker, r->host, t0, t1);
	csv_num(f, r->wall_time);
	fprintf(f, ",%ld", r->max_rss_kb);
	if (isnan(reached(row)))
		fputc(',', f);
	else
		csv_num(f, reached(row));
	for (i = 0; i < x->keys.n; i++) {
		fputc(',', f);
		while (j < x->lv.n && strcmp(x->lv.v[j].key, x->keys.v[i]) < 0)
			j++;
		if (j < x->lv.n && !strcmp(x->lv.v[j].key, x->keys.v[i]))
			csv_leaf(f, x->lv.v[j++].item);
	}
	fputc('\n', f);
	row_done(x, jf);
	return 0;
}

static int add_num(cJSON *o, const char *k, double d)
{
	return jsonfile_add_number(o, k, d);
}

static int row_jsonl(struct export_ctx *x, struct cli_row *row)
{
	const struct result *r = &row->r;
	char t0[TIMEUTIL_ISO_LEN], t1[TIMEUTIL_ISO_LEN], id[ID_TRIAL_LEN];
	struct jsonfile *jf = row_info(x, row);
	cJSON *o = cJSON_CreateObject(), *cfg, *it;
	char *txt = NULL;
	size_t i;
	int bad = !o;

	id_trial_format(row->t.id, id);
	timeutil_iso(r->started, t0);
	timeutil_iso(r->finished, t1);
	if (!bad) {
		bad |= !cJSON_AddStringToObject(o, "id", id);
		bad |= add_num(o, "bracket", (double)row->t.bracket);
		bad |= add_num(o, "rung", row->t.rung);
		bad |= add_num(o, "fidelity", row->t.fidelity);
		bad |= !cJSON_AddStringToObject(o, "kind",
						trial_kind_name(row->t.kind));
		if (row->t.parent >= 0) {
			char pid[ID_TRIAL_LEN];

			id_trial_format((uint64_t)row->t.parent, pid);
			bad |= !cJSON_AddStringToObject(o, "parent", pid);
		} else {
			bad |= !cJSON_AddNullToObject(o, "parent");
		}
		cfg = space_config_to_json(x->spec->space, row->t.config);
		bad |= !cfg;
		while (cfg && (it = cfg->child)) {
			cJSON_DetachItemViaPointer(cfg, it);
			cJSON_AddItemToObject(o, it->string, it);
		}
		cJSON_Delete(cfg);
		if (result_has_loss(r))
			bad |= add_num(o, "loss", r->loss);
		else
			bad |= !cJSON_AddNullToObject(o, "loss");
		if (x->spec->obj.n) {
			double raw[OBJECTIVES_MAX];
			int on = row_objectives(x, row, raw), l;

			for (l = 0; l < x->spec->obj.n; l++)
				bad |= isnan(raw[l])
					       ? !cJSON_AddNullToObject(
							 o,
							 x->spec->obj.name[l])
					       : add_num(o,
							 x->spec->obj.name[l],
							 raw[l]);
			bad |= on < 0 ? !cJSON_AddNullToObject(o, "pareto")
				      : !cJSON_AddBoolToObject(o, "pareto", on);
		}
		bad |= add_num(o, "cost", r->cost);
		bad |= !cJSON_AddStringToObject(o, "status",
						result_status_name(r->status));
		bad |= add_num(o, "attempt", r->attempt);
		bad |= !cJSON_AddStringToObject(o, "worker", r->worker);
		bad |= !cJSON_AddStringToObject(o, "host", r->host);
		bad |= !cJSON_AddStringToObject(o, "started", t0);
		bad |= !cJSON_AddStringToObject(o, "finished", t1);
		bad |= add_num(o, "wall_time", r->wall_time);
		bad |= add_num(o, "max_rss_kb", (double)r->max_rss_kb);
		bad |= isnan(reached(row))
			       ? !cJSON_AddNullToObject(o, "reached")
			       : add_num(o, "reached", reached(row));
		for (i = 0; !bad && i < x->lv.n; i++) {
			cJSON *d = cJSON_Duplicate(x->lv.v[i].item, 1);

			bad |= !d;
			if (d)
				cJSON_AddItemToObject(o, x->lv.v[i].key, d);
		}
	}
	if (!bad && !x->oom)
		txt = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	row_done(x, jf);
	if (!txt) {
		x->oom = 1;
		return -1;
	}
	fprintf(x->f, "%s\n", txt);
	cJSON_free(txt);
	return 0;
}

static int pass_rows(void *arg, struct cli_row *row)
{
	struct export_ctx *x = arg;

	if (!row->has_result)
		return 0;
	x->rows++;
	if (x->jsonl ? row_jsonl(x, row) : row_csv(x, row))
		return -1;
	return ferror(x->f) ? -1 : 0;
}

static int write_export(void *arg, FILE *f)
{
	struct export_ctx *x = arg;
	int i;
	size_t k;

	x->f = f;
	if (!x->jsonl) {
		fputs("id,bracket,rung,fidelity,kind,parent", f);
		for (i = 0; i < space_dim(x->spec->space); i++) {
			fputc(',', f);
			cli_csv_field(f, space_param_name(x->spec->space, i));
		}
		fputs(",loss", f);
		for (i = 0; i < x->spec->obj.n; i++)
			fprintf(f, ",%s", x->spec->obj.name[i]);
		if (x->spec->obj.n)
			fputs(",pareto", f);
		fputs(",cost,status,attempt,worker,host,started,finished,"
		      "wall_time,max_rss_kb,reached",
		      f);
		for (k = 0; k < x->keys.n; k++) {
			fputc(',', f);
			cli_csv_field(f, x->keys.v[k]);
		}
		fputc('\n', f);
	}
	if (cli_scan_trials("export", x->root, x->spec,
			    CLI_SCAN_ARCHIVE | CLI_SCAN_ATTEMPTS, pass_rows,
			    x)) {
		if (x->oom)
			return cli_fail("export", CLI_ESYS,
					"fatal: out of memory");
		return cli_fail("export", CLI_ESYS, "fatal: write failed: %s",
				strerror(errno));
	}
	return CLI_OK;
}

int cli_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{"csv", required_argument, NULL, 'c'},
		{"jsonl", required_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *out = NULL;
	struct export_ctx x;
	struct spec s;
	int c, rc, nout = 0;
	size_t k;

	memset(&x, 0, sizeof(x));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(export_usage, stdout);
			return CLI_OK;
		}
		if (c == 'c' || c == 'j') {
			out = optarg;
			x.jsonl = c == 'j';
			nout++;
			continue;
		}
		return cli_usage_error("export", export_usage,
				       "unknown or incomplete option '%s'",
				       argv[optind - 1]);
	}
	if (optind != argc - 1 || nout != 1 || !*out) {
		return cli_usage_error("export", export_usage,
				       "need STUDY and exactly one of --csv "
				       "FILE or --jsonl FILE");
		return CLI_EINPUT;
	}
	if ((rc = cli_open_study("export", argv[optind], &s)))
		return rc;
	x.root = argv[optind];
	x.spec = &s;
	if ((rc = cli_front_load("export", x.root, &s, 0, &x.front)))
		goto out;
	if (!x.jsonl && cli_scan_trials("export", x.root, &s,
					CLI_SCAN_ARCHIVE | CLI_SCAN_ATTEMPTS,
					pass_keys, &x)) {
		rc = cli_fail("export", CLI_ESYS, "fatal: out of memory");
		goto out;
	}
	rc = cli_write_output("export", out, write_export, &x);
	if (!rc && strcmp(out, "-"))
		fprintf(stderr, "dehbq export: wrote %ld rows to %s\n", x.rows,
			out);
out:
	cli_front_free(&x.front);
	leaves_clear(&x.lv);
	free(x.lv.v);
	for (k = 0; k < x.keys.n; k++)
		free(x.keys.v[k]);
	free(x.keys.v);
	spec_release(&s);
	return rc;
}
