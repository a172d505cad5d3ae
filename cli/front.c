/*
 * front.c - a multi-objective study's Pareto front, as the CLI reports it
 * (status, pareto, export, plot): the non-dominated results at the
 * maximum fidelity, their hypervolume, and the reference point used
 */
#include "cli.h"

#include "err.h"
#include "id.h"
#include "jsonfile.h"
#include "objectives.h"
#include "pareto.h"
#include "space.h"
#include "spec.h"
#include "svg.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct front_ctx {
	struct cli_front *f;
	const struct spec *s;
	int any; /* every fidelity, not only the maximum */
	int oom;
};

static int grow(struct cli_front *f)
{
	size_t cap = f->cap ? 2 * f->cap : 64, m = (size_t)f->m;
	void *p;

	if (!(p = realloc(f->id, cap * sizeof(*f->id))))
		return -1;
	f->id = p;
	if (!(p = realloc(f->fid, cap * sizeof(*f->fid))))
		return -1;
	f->fid = p;
	if (!(p = realloc(f->raw, cap * m * sizeof(double))))
		return -1;
	f->raw = p;
	if (!(p = realloc(f->y, cap * m * sizeof(double))))
		return -1;
	f->y = p;
	if (!(p = realloc(f->cfg, cap * sizeof(*f->cfg))))
		return -1;
	f->cfg = p;
	f->cap = cap;
	return 0;
}

static int take(void *arg, struct cli_row *row)
{
	struct front_ctx *c = arg;
	struct cli_front *f = c->f;
	char why[DEHBQ_ERRLEN];
	size_t m = (size_t)f->m;

	if (!row->has_result || row->r.status != RESULT_OK ||
	    (!c->any && row->t.fidelity != c->s->max_fidelity))
		return 0;
	if (f->n == f->cap && grow(f)) {
		c->oom = 1;
		return -1;
	}
	if (objectives_read(&c->s->obj, row->r.objectives, &f->y[f->n * m],
			    &f->raw[f->n * m], why, sizeof(why)))
		return 0; /* counted as failed: no point */
	{
		cJSON *cfg = space_config_to_json(c->s->space, row->t.config);

		f->cfg[f->n] = cfg ? cJSON_PrintUnformatted(cfg) : NULL;
		cJSON_Delete(cfg);
		if (!f->cfg[f->n]) {
			c->oom = 1;
			return -1;
		}
	}
	f->id[f->n] = row->t.id;
	f->fid[f->n] = row->t.fidelity;
	f->n++;
	return 0;
}

static void reference(struct cli_front *f, const struct objectives *ob)
{
	double yref[OBJECTIVES_MAX];
	int l;

	f->ref_spec = ob->has_ref;
	if (ob->has_ref) {
		for (l = 0; l < f->m; l++)
			yref[l] = ob->maximise[l] ? -ob->ref[l] : ob->ref[l];
	} else if (pareto_reference(f->y, f->n, f->m, yref)) {
		return; /* no point: no reference, no hypervolume */
	}
	for (l = 0; l < f->m; l++)
		f->ref[l] = ob->maximise[l] ? -yref[l] : yref[l];
	f->hv_ok = !pareto_hypervolume(f->y, f->n, f->m, yref, &f->hv);
}

int cli_front_load(const char *cmd, const char *root, const struct spec *s,
		   int any_fidelity, struct cli_front *f)
{
	struct front_ctx c = {f, s, any_fidelity, 0};
	int *rank = NULL;
	size_t i;

	memset(f, 0, sizeof(*f));
	f->m = s->obj.n;
	if (!f->m)
		return CLI_OK;
	if (cli_scan_trials(cmd, root, s, CLI_SCAN_ARCHIVE, take, &c) && c.oom)
		return cli_fail(cmd, CLI_ESYS, "fatal: out of memory");
	if (!(f->on = calloc(f->n + 1, 1)) ||
	    !(rank = malloc((f->n + 1) * sizeof(int))) ||
	    pareto_rank(f->y, f->n, f->m, rank)) {
		free(rank);
		cli_front_free(f);
		return cli_fail(cmd, CLI_ESYS, "fatal: out of memory");
	}
	for (i = 0; i < f->n; i++)
		if ((f->on[i] = rank[i] == 0))
			f->nfront++;
	free(rank);
	reference(f, &s->obj);
	return CLI_OK;
}

void cli_front_free(struct cli_front *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		cJSON_free(f->cfg[i]);
	free(f->cfg);
	free(f->id);
	free(f->fid);
	free(f->raw);
	free(f->y);
	free(f->on);
	memset(f, 0, sizeof(*f));
}

int cli_front_on(const struct cli_front *f, uint64_t id)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) { /* the scan gives ids ascending */
		size_t mid = (lo + hi) / 2;

		if (f->id[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->n && f->id[lo] == id ? f->on[lo] : -1;
}

void cli_front_summary(FILE *out, const struct cli_front *f,
		       const struct spec *s)
{
	int l;

	fprintf(out, "front:     %zu point%s of %zu at the maximum fidelity",
		f->nfront, f->nfront == 1 ? "" : "s", f->n);
	if (f->hv_ok) {
		fprintf(out, ", hypervolume %.6g (reference ", f->hv);
		for (l = 0; l < f->m; l++)
			fprintf(out, "%s%s=%.6g", l ? ", " : "", s->obj.name[l],
				f->ref[l]);
		fprintf(out, "; %s)",
			f->ref_spec ? "from the spec" : "the nadir + 10 %");
	} else if (f->m > 3) {
		fputs(", hypervolume not computed (more than 3 objectives)",
		      out);
	}
	fputc('\n', out);
}

/* Sort order of front points by their first objective. */
static int by_first(const void *a, const void *b, void *arg)
{
	const struct cli_front *f = arg;
	double u = f->y[*(const size_t *)a * (size_t)f->m],
	       v = f->y[*(const size_t *)b * (size_t)f->m];

	return u < v ? -1 : u > v;
}

void cli_front_svg(FILE *out, const struct cli_front *f, const struct spec *s,
		   const struct svg_panel *p, const char *title)
{
	struct svg_axis ax = {INFINITY, -INFINITY, 0, 0, 0},
			ay = {INFINITY, -INFINITY, 0, 0, 0};
	char xl[96], yl[96];
	size_t i, k = 0, *ord = malloc((f->nfront + 1) * sizeof(size_t));
	size_t m = (size_t)f->m;

	for (i = 0; i < f->n; i++) {
		ax.lo = fmin(ax.lo, f->raw[i * m]);
		ax.hi = fmax(ax.hi, f->raw[i * m]);
		ay.lo = fmin(ay.lo, f->raw[i * m + 1]);
		ay.hi = fmax(ay.hi, f->raw[i * m + 1]);
	}
	if (!f->n)
		ax.lo = ay.lo = 0, ax.hi = ay.hi = 1;
	svg_axis_nice(&ax);
	svg_axis_nice(&ay);
	svg_axes(out, p, &ax, &ay, 1);
	snprintf(xl, sizeof(xl), "%s (%s)", s->obj.name[0],
		 s->obj.maximise[0] ? "max" : "min");
	snprintf(yl, sizeof(yl), "%s (%s)", s->obj.name[1],
		 s->obj.maximise[1] ? "max" : "min");
	svg_frame(out, p, title, xl, yl);
	fputs("<g fill=\"#bbb\">\n", out); /* dominated: grey */
	for (i = 0; i < f->n; i++)
		if (!f->on[i])
			fprintf(out,
				"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\"/>\n",
				svg_map(&ax, f->raw[i * m]),
				svg_map(&ay, f->raw[i * m + 1]));
	fputs("</g>\n", out);
	for (i = 0; ord && i < f->n; i++)
		if (f->on[i])
			ord[k++] = i;
	if (ord) { /* the front joined up, in minimised order */
		qsort_r(ord, k, sizeof(size_t), by_first, (void *)f);
		fputs("<path fill=\"none\" stroke=\"#d62728\" d=\"", out);
		for (i = 0; i < k; i++)
			fprintf(out, "%s%.1f %.1f", i ? " L" : "M",
				svg_map(&ax, f->raw[ord[i] * m]),
				svg_map(&ay, f->raw[ord[i] * m + 1]));
		fputs("\"/>\n<g fill=\"#d62728\">\n", out);
		for (i = 0; i < k; i++) {
			char id[ID_TRIAL_LEN];

			id_trial_format(f->id[ord[i]], id);
			fprintf(out,
				"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\">"
				"<title>trial %s: %s %.6g, %s %.6g</title>"
				"</circle>\n",
				svg_map(&ax, f->raw[ord[i] * m]),
				svg_map(&ay, f->raw[ord[i] * m + 1]), id,
				s->obj.name[0], f->raw[ord[i] * m],
				s->obj.name[1], f->raw[ord[i] * m + 1]);
		}
		fputs("</g>\n", out);
	}
	fprintf(out,
		"<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
		"fill=\"#d62728\">front: %zu</text><text x=\"%.1f\" "
		"y=\"%.1f\" font-size=\"11\" fill=\"#888\">dominated: %zu"
		"</text>\n",
		p->x1 - 110, p->y0 + 16, f->nfront, p->x1 - 110, p->y0 + 30,
		f->n - f->nfront);
	free(ord);
}

void cli_front_status(FILE *f, const char *root, const struct spec *s)
{
	struct cli_front fr;
	int l;

	fprintf(f, "objectives: ");
	for (l = 0; l < s->obj.n; l++)
		fprintf(f, "%s%s (%s, weight %g)", l ? ", " : "",
			s->obj.name[l], s->obj.maximise[l] ? "max" : "min",
			s->obj.weight[l]);
	if (s->obj.pareto)
		fprintf(f, "; %s selection\n",
			objectives_selection_name(&s->obj));
	else
		fprintf(f, "; %s\n", s->obj.scalarise);
	if (cli_front_load("status", root, s, 0, &fr))
		return;
	cli_front_summary(f, &fr, s);
	if (fr.nfront)
		fprintf(f, "           dehbq pareto %s lists it\n", root);
	cli_front_free(&fr);
}

static const char pareto_usage[] =
	"usage: dehbq pareto STUDY [--format table|csv|jsonl] "
	"[--any-fidelity]\n"
	"\n"
	"Print a multi-objective study's Pareto front: the results, at the\n"
	"maximum fidelity, that no other result beats in every objective.\n"
	"Objectives are as the trainer reported them (a \"max\" goal stays\n"
	"maximised).  The hypervolume and its reference point go to stderr.\n"
	"\n"
	"  --format F      table (default), csv or jsonl\n"
	"  --any-fidelity  results at every fidelity, not only the maximum\n";

static void print_point(FILE *out, const struct cli_front *f,
			const struct spec *s, size_t i, int fmt)
{
	char num[40], id[ID_TRIAL_LEN];
	int l;

	id_trial_format(f->id[i], id);
	if (fmt == 2) {
		fprintf(out, "{\"id\":\"%s\",\"fidelity\":", id);
		jsonfile_fmt_double(num, sizeof(num), f->fid[i]);
		fputs(num, out);
		for (l = 0; l < f->m; l++) {
			jsonfile_fmt_double(num, sizeof(num),
					    f->raw[i * (size_t)f->m + l]);
			fprintf(out, ",\"%s\":%s", s->obj.name[l], num);
		}
		fprintf(out, ",\"config\":%s}\n", f->cfg[i]);
		return;
	}
	if (!fmt) { /* for people: 6 digits */
		fprintf(out, "%-9s %-9g", id, f->fid[i]);
		for (l = 0; l < f->m; l++)
			fprintf(out, " %-14.6g", f->raw[i * (size_t)f->m + l]);
		fprintf(out, " %s\n", f->cfg[i]);
		return;
	}
	jsonfile_fmt_double(num, sizeof(num), f->fid[i]);
	fprintf(out, "%s,%s", id, num);
	for (l = 0; l < f->m; l++) {
		jsonfile_fmt_double(num, sizeof(num),
				    f->raw[i * (size_t)f->m + l]);
		fprintf(out, ",%s", num);
	}
	fputc(',', out);
	cli_csv_field(out, f->cfg[i]);
	fputc('\n', out);
}

static void print_front(const struct cli_front *f, const struct spec *s,
			int fmt)
{
	size_t i;
	int l;

	if (fmt != 2) {
		fputs(fmt ? "id,fidelity" : "id        fidelity ", stdout);
		for (l = 0; l < f->m; l++)
			fprintf(stdout, fmt ? ",%s" : " %-14s", s->obj.name[l]);
		fputs(fmt ? ",config\n" : " config\n", stdout);
	}
	for (i = 0; i < f->n; i++)
		if (f->on[i])
			print_point(stdout, f, s, i, fmt);
}

int cli_pareto(int argc, char **argv)
{
	static const struct option opts[] = {
		{"format", required_argument, NULL, 'f'},
		{"any-fidelity", no_argument, NULL, 'a'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct cli_front f;
	struct spec s;
	int c, fmt = 0, any = 0, rc;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(pareto_usage, stdout);
			return CLI_OK;
		} else if (c == 'a') {
			any = 1;
		} else if (c == 'f' && !strcmp(optarg, "table")) {
			fmt = 0;
		} else if (c == 'f' && !strcmp(optarg, "csv")) {
			fmt = 1;
		} else if (c == 'f' && !strcmp(optarg, "jsonl")) {
			fmt = 2;
		} else {
			return cli_usage_error(
				"pareto", pareto_usage, "%s",
				c == 'f' ? "--format: need table, csv or jsonl"
					 : "unknown option");
		}
	}
	if (argc - optind != 1)
		return cli_usage_error("pareto", pareto_usage, "need STUDY");
	if ((rc = cli_open_study("pareto", argv[optind], &s)))
		return rc;
	if (!s.obj.n) {
		spec_release(&s);
		return cli_fail("pareto", CLI_EINPUT,
				"%s declares no objectives: it has one loss "
				"(dehbq best shows its best)",
				argv[optind]);
	}
	if ((rc = cli_front_load("pareto", argv[optind], &s, any, &f))) {
		spec_release(&s);
		return rc;
	}
	print_front(&f, &s, fmt);
	cli_front_summary(stderr, &f, &s);
	cli_front_free(&f);
	spec_release(&s);
	return fflush(stdout) == EOF
		       ? cli_fail("pareto", CLI_ESYS, "fatal: write failed")
		       : CLI_OK;
}
