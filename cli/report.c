/*
 * report.c - `dehbq report STUDY -o FILE.html`: one self-contained HTML
 * page about a study
 *
 * Owns the collection of a study's evaluations (every archived result,
 * earlier attempts of requeued trials too) into struct rep, and the page:
 * a summary with the best configurations, then one <section> per view,
 * each with a fixed id (summary, progress, evaluations, parameters,
 * importance, parallel, workers, failures, brackets; and objectives for
 * a multi-objective study, transfer for one with earlier tasks,
 * report_study.c).  Charts are inline SVG
 * drawn by report_charts.c; hovering a point shows its <title>.  No script, no
 * style sheet and no font come from anywhere else: the file opens offline.
 *
 * Memory: one struct rep_eval and dim doubles per evaluation, plus each
 * failure's error text.
 */
#include "cli.h"

#include "err.h"
#include "jsonfile.h"
#include "report.h"
#include "space.h"
#include "spec.h"
#include "svg.h"
#include "timeutil.h"
#include "version.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char report_usage[] =
	"usage: dehbq report STUDY -o FILE.html\n"
	"\n"
	"Write one self-contained HTML page about the study: the best\n"
	"configurations, the incumbent over wall time and over cost per\n"
	"fidelity, every evaluation, each parameter against the loss, which\n"
	"parameters mattered (dehbq importance), parallel coordinates, the\n"
	"worker timeline with its outages, the failures and the brackets;\n"
	"the learning curves of trials that reported as they trained (and\n"
	"what stopping saved), a multi-objective study's fronts and\n"
	"hypervolume, a transfer study's earlier tasks and prior.  No\n"
	"network access is needed to\n"
	"view it.\n"
	"FILE '-' is standard output; a FILE is replaced atomically.\n";

void rep_free(struct rep *r)
{
	size_t i;
	int k;

	for (i = 0; i < r->n; i++)
		free(r->ev[i].error);
	for (k = 0; k < r->nworkers; k++)
		free(r->workers[k]);
	free(r->workers);
	free(r->ev);
	free(r->vec);
	free(r->best_cfg[0]);
	free(r->best_cfg[1]);
	cli_imp_free(&r->imp);
}

const char *rep_fid_color(const struct rep *r, double fid)
{
	int i;

	for (i = 0; i < r->nfid && i < SVG_NCOLORS; i++)
		if (r->fids[i] == fid)
			return svg_palette[i];
	return "#000000";
}

static int worker_index(struct rep *r, const char *host, const char *wid)
{
	char key[160];
	int i;

	snprintf(key, sizeof(key), "%s/%s", host[0] ? host : "?",
		 wid[0] ? wid : "?");
	for (i = r->nworkers - 1; i >= 0; i--)
		if (!strcmp(r->workers[i], key))
			return i;
	if (r->nworkers == r->capw) {
		int cap = r->capw ? 2 * r->capw : 16;
		char **v = realloc(r->workers, (size_t)cap * sizeof(*v));

		if (!v)
			return -1;
		r->workers = v;
		r->capw = cap;
	}
	if (!(r->workers[r->nworkers] = strdup(key)))
		return -1;
	return r->nworkers++;
}

static int grow(struct rep *r)
{
	size_t cap = r->cap ? 2 * r->cap : 256;
	struct rep_eval *e = realloc(r->ev, cap * sizeof(*e));
	double *v;

	if (!e)
		return -1;
	r->ev = e;
	if (!(v = realloc(r->vec, cap * (size_t)r->dim * sizeof(*v))))
		return -1;
	r->vec = v;
	r->cap = cap;
	return 0;
}

static void add_fid(struct rep *r, double fid)
{
	int i, j;

	for (i = 0; i < r->nfid; i++)
		if (r->fids[i] == fid)
			return;
	if (r->nfid == REP_MAXFID)
		return;
	for (i = 0; i < r->nfid && r->fids[i] < fid; i++)
		;
	for (j = r->nfid; j > i; j--)
		r->fids[j] = r->fids[j - 1];
	r->fids[i] = fid;
	r->nfid++;
}

/* Keep the configuration of a new best (which: 0 max fidelity, 1 any). */
static int keep_best(struct rep *r, int which, const struct cli_row *row)
{
	cJSON *c = space_config_to_json(r->spec->space, row->t.config);
	char *t = c ? cJSON_PrintUnformatted(c) : NULL;

	cJSON_Delete(c);
	if (!t)
		return -1;
	free(r->best_cfg[which]);
	r->best_cfg[which] = t;
	r->best_i[which] = (long)r->n;
	return 0;
}

static int collect(void *arg, struct cli_row *row)
{
	struct rep *r = arg;
	struct rep_eval *e;
	double created = r->spec->created, maxf = r->spec->max_fidelity;
	int w, k;

	if (!row->has_result)
		return 0;
	if (cli_imp_add(&r->imp, row) || (r->n == r->cap && grow(r)) ||
	    (w = worker_index(r, row->r.host, row->r.worker)) < 0)
		goto oom;
	e = &r->ev[r->n];
	memset(e, 0, sizeof(*e));
	e->id = row->t.id;
	e->attempt = row->r.attempt;
	e->bracket = row->t.bracket;
	e->parent = row->t.parent;
	e->rung = row->t.rung;
	e->kind = (int)row->t.kind;
	e->fid = row->t.fidelity;
	e->ok = row->r.status == RESULT_OK;
	e->stopped = row->r.status == RESULT_STOPPED;
	e->loss = e->ok ? row->r.loss : NAN;
	e->reached = e->ok ? e->fid : e->stopped ? row->r.fidelity : NAN;
	e->cost = row->r.cost;
	e->t1 = row->r.finished - created;
	e->t0 = row->r.started - created;
	if (e->t1 < 0)
		e->t1 = 0;
	if (!(e->t0 >= 0 && e->t0 <= e->t1))
		e->t0 = e->t1;
	e->worker = w;
	e->status = result_status_name(row->r.status);
	if (!e->ok && !e->stopped &&
	    !(e->error = strdup(row->r.error ? row->r.error : "")))
		goto oom;
	for (k = 0; k < r->dim; k++) /* NAN: inactive, nothing to draw */
		r->vec[r->n * (size_t)r->dim + k] =
			row->t.config[k].type == SPACE_V_INACTIVE
				? NAN
				: row->t.vec[k];
	add_fid(r, e->fid);
	for (k = 0; e->ok && k < 2; k++)
		if ((k == 1 || e->fid >= maxf * (1 - 1e-9)) &&
		    (r->best_i[k] < 0 || e->loss < r->ev[r->best_i[k]].loss) &&
		    keep_best(r, k, row)) {
			free(e->error);
			goto oom;
		}
	r->n++;
	return 0;
oom:
	r->oom = 1;
	return -1;
}

static int ev_cmp(const void *a, const void *b)
{
	double x = ((const struct rep_eval *)a)->t1,
	       y = ((const struct rep_eval *)b)->t1;

	return x < y ? -1 : x > y;
}

/* Sort by finish time, keeping each vector with its evaluation. */
static int sort_evals(struct rep *r)
{
	size_t i, d = (size_t)r->dim;
	long old[2] = {r->best_i[0], r->best_i[1]};
	double *v;
	struct {
		struct rep_eval e;
		size_t at;
	} * tmp;

	if (r->n < 2)
		return 0;
	if (!(tmp = malloc(r->n * sizeof(*tmp))) ||
	    !(v = malloc(r->n * d * sizeof(*v)))) {
		free(tmp);
		return -1;
	}
	for (i = 0; i < r->n; i++) {
		tmp[i].e = r->ev[i];
		tmp[i].at = i;
	}
	qsort(tmp, r->n, sizeof(*tmp), ev_cmp); /* e is the first member */
	for (i = 0; i < r->n; i++) {
		r->ev[i] = tmp[i].e;
		memcpy(&v[i * d], &r->vec[tmp[i].at * d], d * sizeof(*v));
		if ((long)tmp[i].at == old[0])
			r->best_i[0] = (long)i;
		if ((long)tmp[i].at == old[1])
			r->best_i[1] = (long)i;
	}
	free(r->vec);
	r->vec = v;
	free(tmp);
	return 0;
}

static void best_block(FILE *f, const struct rep *r, int which,
		       const char *label)
{
	char num[40];
	const struct rep_eval *e;
	cJSON *cfg, *it;

	fprintf(f, "<h3>%s</h3>\n", label);
	if (r->best_i[which] < 0) {
		fputs(which ? "<p class=\"none\">none: no trial succeeded</p>\n"
			    : "<p class=\"none\">none: no trial reached the "
			      "maximum fidelity</p>\n",
		      f);
		return;
	}
	e = &r->ev[r->best_i[which]];
	jsonfile_fmt_double(num, sizeof(num), e->loss);
	fprintf(f, "<p>loss <b>%s</b>, trial %08llu, fidelity ", num,
		(unsigned long long)e->id);
	fprintf(f, "%.6g, attempt %d</p>\n<table class=\"config\">", e->fid,
		e->attempt);
	cfg = cJSON_Parse(r->best_cfg[which]);
	for (it = cfg ? cfg->child : NULL; it; it = it->next) {
		char *v = cJSON_PrintUnformatted(it);

		fputs("<tr><th>", f);
		svg_text(f, it->string ? it->string : "");
		fputs("</th><td>", f);
		svg_text(f, v ? v : "?");
		fputs("</td></tr>\n", f);
		free(v);
	}
	cJSON_Delete(cfg);
	fputs("</table>\n", f);
}

static void summary(FILE *f, const struct rep *r, const char *root)
{
	const struct spec *s = r->spec;
	size_t i, nok = 0, nst = 0;
	char created[TIMEUTIL_ISO_LEN];

	for (i = 0; i < r->n; i++) {
		nok += r->ev[i].ok;
		nst += r->ev[i].stopped;
	}
	timeutil_iso(s->created, created);
	fputs("<section id=\"summary\"><h2>Summary</h2>\n<table>", f);
	fputs("<tr><th>study</th><td>", f);
	svg_text(f, root);
	fprintf(f, " (%s)</td></tr>\n<tr><th>created</th><td>%s</td></tr>\n",
		s->study, created);
	fprintf(f, "<tr><th>optimizer</th><td>%s</td></tr>\n", s->optimizer);
	fprintf(f,
		"<tr><th>fidelity</th><td>%g to %g, eta %g</td></tr>\n"
		"<tr><th>evaluations</th><td>%zu (%zu ok, %zu stopped early, "
		"%zu failed) by %d workers</td></tr>\n</table>\n",
		s->min_fidelity, s->max_fidelity, s->eta, r->n, nok, nst,
		r->n - nok - nst, r->nworkers);
	best_block(f, r, 0, "Best at the maximum fidelity");
	best_block(f, r, 1, "Best at any fidelity");
	fputs("</section>\n", f);
}

static void failures(FILE *f, const struct rep *r)
{
	size_t i, nf = 0, shown = 0;

	for (i = 0; i < r->n; i++)
		nf += !r->ev[i].ok && !r->ev[i].stopped;
	fprintf(f, "<section id=\"failures\"><h2>Failures (%zu)</h2>\n", nf);
	if (!nf) {
		fputs("<p class=\"none\">none</p></section>\n", f);
		return;
	}
	fputs("<table><tr><th>trial</th><th>attempt</th><th>fidelity</th>"
	      "<th>status</th><th>error</th></tr>\n",
	      f);
	for (i = r->n; i-- > 0 && shown < 200;) {
		const struct rep_eval *e = &r->ev[i];

		if (e->ok || e->stopped)
			continue;
		fprintf(f,
			"<tr><td>%08llu</td><td>%d</td><td>%g</td><td>%s</td>"
			"<td>",
			(unsigned long long)e->id, e->attempt, e->fid,
			e->status);
		svg_text(f, e->error ? e->error : "");
		fputs("</td></tr>\n", f);
		shown++;
	}
	fputs("</table>\n", f);
	if (nf > shown)
		fprintf(f,
			"<p>the latest %zu of %zu (dehbq trials --state "
			"failed lists them all)</p>\n",
			shown, nf);
	fputs("</section>\n", f);
}

/* Brackets and rungs: evaluations, fidelity and best loss per rung. */
static void brackets(FILE *f, const struct rep *r)
{
	size_t i, j, rows = 0;
	int64_t b, last = -1;

	fputs("<section id=\"brackets\"><h2>Brackets and rungs</h2>\n"
	      "<table><tr><th>bracket</th><th>rung</th><th>fidelity</th>"
	      "<th>evaluations</th><th>best loss</th></tr>\n",
	      f);
	for (;;) { /* brackets in ascending order, one pass each */
		int64_t next = INT64_MAX;

		for (i = 0; i < r->n; i++)
			if (r->ev[i].bracket > last && r->ev[i].bracket < next)
				next = r->ev[i].bracket;
		if (next == INT64_MAX || rows >= 300)
			break;
		b = last = next;
		for (j = 0; j < 64; j++) {
			double fid = 0, best = INFINITY;
			size_t cnt = 0;

			for (i = 0; i < r->n; i++)
				if (r->ev[i].bracket == b &&
				    r->ev[i].rung == (int)j) {
					cnt++;
					fid = r->ev[i].fid;
					if (r->ev[i].ok && r->ev[i].loss < best)
						best = r->ev[i].loss;
				}
			if (!cnt)
				continue;
			fprintf(f,
				"<tr><td>%lld</td><td>%zu</td><td>%g</td>"
				"<td>%zu</td><td>",
				(long long)b, j, fid, cnt);
			if (isfinite(best))
				fprintf(f, "%.6g", best);
			fputs("</td></tr>\n", f);
			rows++;
		}
	}
	fputs("</table>\n", f);
	if (rows >= 300)
		fputs("<p>the first 300 rows</p>\n", f);
	fputs("</section>\n", f);
}

static const char page_style[] =
	"body{font-family:sans-serif;margin:2em;max-width:1100px;color:#222}"
	"h1{font-size:1.5em}h2{border-bottom:1px solid #ccc;margin-top:2em}"
	"table{border-collapse:collapse}td,th{border:1px solid #ddd;"
	"padding:2px 8px;text-align:left;font-size:13px;vertical-align:top}"
	"pre{background:#f6f6f6;padding:8px}.none{color:#777}"
	"svg{display:block;margin:1em 0}.frame{fill:none;stroke:#333}"
	".grid{stroke:#ddd;stroke-width:1}"
	".title{font-size:14px;font-weight:bold}";

static void page_head(FILE *f, const struct rep *r, const char *root)
{
	char now[TIMEUTIL_ISO_LEN], name[256];

	cli_study_label(r->spec, root, name, sizeof(name));
	timeutil_iso(timeutil_now(), now);
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
	      "charset=\"utf-8\">\n<title>dehbq report: ",
	      f);
	svg_text(f, name);
	fprintf(f, "</title>\n<style>%s</style></head>\n<body>\n", page_style);
	fputs("<h1>dehbq report: ", f);
	svg_text(f, name);
	fprintf(f, "</h1>\n<p>written %s by dehbq %s</p>\n", now,
		dehbq_version);
}

struct page {
	struct rep *r;
	const char *root;
};

static int write_all(void *arg, FILE *f)
{
	struct page *p = arg;
	struct rep *r = p->r;

	page_head(f, r, p->root);
	summary(f, r, p->root);
	fputs("<section id=\"progress\"><h2>Incumbent over time and cost"
	      "</h2>\n",
	      f);
	rep_chart_progress(f, r);
	fputs("</section>\n<section id=\"evaluations\"><h2>Every evaluation"
	      "</h2>\n",
	      f);
	rep_chart_evals(f, r);
	fputs("</section>\n<section id=\"parameters\"><h2>Each parameter "
	      "against the loss</h2>\n",
	      f);
	rep_chart_params(f, r);
	fputs("</section>\n<section id=\"importance\"><h2>Which "
	      "parameters mattered</h2>\n",
	      f);
	if (rep_chart_importance(f, r)) {
		r->oom = 1;
		return cli_fail("report", CLI_ESYS, "fatal: out of memory");
	}
	fputs("</section>\n", f);
	if (rep_section_curves(f, r, p->root) || rep_section_population(f, r) ||
	    rep_section_objectives(f, r, p->root) ||
	    rep_section_transfer(f, r, p->root)) {
		r->oom = 1;
		return cli_fail("report", CLI_ESYS, "fatal: out of memory");
	}
	fputs("<section id=\"parallel\"><h2>Parallel coordinates</h2>\n", f);
	rep_chart_parallel(f, r);
	fputs("</section>\n<section id=\"workers\"><h2>Workers</h2>\n", f);
	if (rep_chart_workers(f, r)) {
		r->oom = 1;
		return cli_fail("report", CLI_ESYS, "fatal: out of memory");
	}
	fputs("</section>\n", f);
	failures(f, r);
	brackets(f, r);
	fputs("</body></html>\n", f);
	return ferror(f) ? cli_fail("report", CLI_ESYS, "fatal: write failed")
			 : CLI_OK;
}

int cli_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *out = NULL;
	struct spec s;
	struct rep r;
	struct page p;
	int c, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(report_usage, stdout);
			return CLI_OK;
		} else if (c == 'o') {
			out = optarg;
		} else {
			return cli_usage_error("report", report_usage,
					       "unknown or incomplete option "
					       "'%s'",
					       argv[optind - 1]);
		}
	}
	if (optind != argc - 1 || !out)
		return cli_usage_error("report", report_usage, "%s",
				       "need STUDY and -o FILE.html");
	if ((rc = cli_open_study("report", argv[optind], &s)))
		return rc;
	memset(&r, 0, sizeof(r));
	r.spec = &s;
	r.dim = space_dim(s.space);
	r.best_i[0] = r.best_i[1] = -1;
	cli_imp_init(&r.imp, &s, s.obj.n ? 0 : -1);
	if (cli_scan_trials("report", argv[optind], &s,
			    CLI_SCAN_ARCHIVE | CLI_SCAN_ATTEMPTS, collect,
			    &r) ||
	    r.oom || sort_evals(&r)) {
		rep_free(&r);
		spec_release(&s);
		return cli_fail("report", CLI_ESYS, "fatal: out of memory");
	}
	p.r = &r;
	p.root = argv[optind];
	rc = cli_write_output("report", out, write_all, &p);
	if (rc == CLI_OK && strcmp(out, "-"))
		printf("wrote %s (%zu evaluations)\n", out, r.n);
	rep_free(&r);
	spec_release(&s);
	return rc;
}
