/*
 * report_study.c - owns the sections of `dehbq report` that only some
 * studies have: "objectives" for a multi-objective study (its front per
 * fidelity, the hypervolume as results came in, each objective against
 * each parameter) and "transfer" for a study that learns from earlier
 * ones (the earlier tasks and their sizes, the prior's RMSE with its
 * warning, the trials the prior proposed)
 *
 * The front is dehbq pareto's (front.c), the transfer lines dehbq
 * status's (status_optim.c): the page says what those commands say.
 */
#include "cli.h"

#include "err.h"
#include "objectives.h"
#include "pareto.h"
#include "report.h"
#include "space.h"
#include "spec.h"
#include "statusfile.h"
#include "study.h"
#include "svg.h"
#include "transfer.h"
#include "trial.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RS_PANELS_OBJ	3 /* objectives drawn against the parameters */
#define RS_PANELS_PARAM 6 /* ... and parameters */
#define RS_HV_POINTS	100

/* The points of all at fidelity fid as a front of their own (cfg not
 * copied); -1 when out of memory. */
static int sub_front(const struct cli_front *all, double fid,
		     struct cli_front *sub)
{
	size_t i, m = (size_t)all->m, k = 0;
	int *rank;

	memset(sub, 0, sizeof(*sub));
	sub->m = all->m;
	sub->id = malloc((all->n + 1) * sizeof(*sub->id));
	sub->fid = malloc((all->n + 1) * sizeof(double));
	sub->raw = calloc((all->n + 1) * m, sizeof(double));
	sub->y = calloc((all->n + 1) * m, sizeof(double));
	sub->cfg = calloc(all->n + 1, sizeof(char *));
	sub->on = calloc(all->n + 1, 1);
	rank = calloc(all->n + 1, sizeof(int));
	if (!sub->id || !sub->fid || !sub->raw || !sub->y || !sub->cfg ||
	    !sub->on || !rank) {
		free(rank);
		cli_front_free(sub);
		return -1;
	}
	for (i = 0; i < all->n; i++)
		if (all->fid[i] == fid) {
			sub->id[k] = all->id[i];
			sub->fid[k] = fid;
			memcpy(sub->raw + k * m, all->raw + i * m,
			       m * sizeof(double));
			memcpy(sub->y + k * m, all->y + i * m,
			       m * sizeof(double));
			k++;
		}
	sub->n = k;
	if (pareto_rank(sub->y, k, sub->m, rank)) {
		free(rank);
		cli_front_free(sub);
		return -1;
	}
	for (i = 0; i < k; i++)
		if ((sub->on[i] = rank[i] == 0))
			sub->nfront++;
	free(rank);
	memcpy(sub->ref, all->ref, sizeof(sub->ref));
	return 0;
}

/* The hypervolume of the first k results of top (the maximum fidelity,
 * by trial id), for k up to n, against its reference. */
static void hv_chart(FILE *f, const struct cli_front *top, const struct spec *s,
		     const struct svg_panel *p)
{
	double yref[OBJECTIVES_MAX], hv[RS_HV_POINTS + 1];
	size_t at[RS_HV_POINTS + 1], i, k, nf = 0, m = (size_t)top->m;
	struct svg_axis ax = {0, 1, 0, 0, 0}, ay = {0, 0, 0, 0, 0};
	double *fr = malloc((top->n + 1) * m * sizeof(double));
	int l, n = 0;

	if (!fr)
		return;
	for (l = 0; l < top->m; l++)
		yref[l] = s->obj.maximise[l] ? -top->ref[l] : top->ref[l];
	/* the prefix's non-dominated points, kept as results come in: the
	 * hypervolume is theirs, and only they are summed */
	for (i = 0; i < top->n && n <= RS_HV_POINTS; i++) {
		const double *y = top->y + i * m;
		int dominated = 0;

		for (k = 0; k < nf && !dominated; k++)
			dominated = pareto_dominates(fr + k * m, y, top->m);
		if (!dominated) {
			for (k = 0; k < nf;)
				if (pareto_dominates(y, fr + k * m, top->m))
					memcpy(fr + k * m, fr + --nf * m,
					       m * sizeof(double));
				else
					k++;
			memcpy(fr + nf++ * m, y, m * sizeof(double));
		}
		if (top->n > RS_HV_POINTS &&
		    i + 1 < (top->n * (size_t)(n + 1)) / RS_HV_POINTS)
			continue; /* draw about RS_HV_POINTS points */
		if (pareto_hypervolume(fr, nf, top->m, yref, &hv[n])) {
			free(fr);
			return;
		}
		at[n++] = i + 1;
	}
	free(fr);
	if (!n)
		return;
	ax.hi = (double)at[n - 1];
	ay.hi = hv[n - 1] > 0 ? hv[n - 1] : 1;
	svg_axis_nice(&ax);
	svg_axis_nice(&ay);
	svg_axes(f, p, &ax, &ay, 1);
	svg_frame(f, p, "hypervolume at the maximum fidelity",
		  "results at the maximum fidelity, in trial order",
		  "hypervolume");
	fputs("<path class=\"hv\" fill=\"none\" stroke=\"#1f77b4\" d=\"", f);
	for (l = 0; l < n; l++)
		fprintf(f, "%s%.1f %.1f", l ? " L" : "M",
			svg_map(&ax, (double)at[l]), svg_map(&ay, hv[l]));
	fputs("\"/>\n", f);
}

static int by_id(const void *a, const void *b)
{
	const uint64_t *u = a, *v = b;

	return u[0] < v[0] ? -1 : u[0] > v[0];
}

/* Each of the first objectives against each of the first parameters:
 * the points of top (all fidelities), x from the report's vectors. */
static int scatter(FILE *f, const struct rep *r, const struct cli_front *all)
{
	int mo = all->m < RS_PANELS_OBJ ? all->m : RS_PANELS_OBJ;
	int d = r->dim < RS_PANELS_PARAM ? r->dim : RS_PANELS_PARAM, l, k;
	uint64_t(*idx)[2] = malloc((r->n + 1) * sizeof(*idx));
	size_t i, n = 0;

	if (!idx)
		return -1;
	for (i = 0; i < r->n; i++) /* ok evaluations, by trial id */
		if (r->ev[i].ok) {
			idx[n][0] = r->ev[i].id;
			idx[n++][1] = i;
		}
	qsort(idx, n, sizeof(*idx), by_id);
	svg_open(f, 1100, mo * 200 + 20);
	for (l = 0; l < mo; l++)
		for (k = 0; k < d; k++) {
			struct svg_panel p = {70 + k * 175, 30 + l * 200,
					      70 + k * 175 + 130,
					      30 + l * 200 + 140};
			struct svg_axis ax = {0, 1, 0, 0, 0},
					ay = {INFINITY, -INFINITY, 0, 0, 0};

			for (i = 0; i < all->n; i++) {
				ay.lo = fmin(ay.lo, all->raw[i * all->m + l]);
				ay.hi = fmax(ay.hi, all->raw[i * all->m + l]);
			}
			if (!(ay.lo < ay.hi))
				ay.lo -= 1, ay.hi += 1;
			svg_axis_nice(&ay);
			svg_axes(f, &p, &ax, &ay, 1);
			svg_frame(f, &p, space_param_name(r->spec->space, k),
				  "", k == 0 ? r->spec->obj.name[l] : "");
			for (i = 0; i < all->n; i++) {
				uint64_t key[2] = {all->id[i], 0};
				const uint64_t(*e)[2] = bsearch(
					key, idx, n, sizeof(*idx), by_id);
				double v;

				if (!e)
					continue;
				v = r->vec[(*e)[1] * (size_t)r->dim + k];
				if (isnan(v))
					continue;
				fprintf(f,
					"<circle class=\"obj\" cx=\"%.1f\" "
					"cy=\"%.1f\" r=\"2.5\" fill=\"%s\" "
					"fill-opacity=\"0.6\"/>\n",
					svg_map(&ax, v),
					svg_map(&ay, all->raw[i * all->m + l]),
					rep_fid_color(r, all->fid[i]));
			}
		}
	fputs("</svg>\n", f);
	free(idx);
	return 0;
}

int rep_section_objectives(FILE *f, const struct rep *r, const char *root)
{
	struct cli_front all, top, sub;
	int i, k = 0, drawn = 0, rc = -1;

	if (!r->spec->obj.n)
		return 0;
	fputs("<section id=\"objectives\"><h2>Objectives and the Pareto "
	      "front</h2>\n<p>",
	      f);
	/* top: the maximum fidelity, as dehbq pareto; all: every fidelity */
	if (cli_front_load("report", root, r->spec, 0, &top))
		return -1;
	if (cli_front_load("report", root, r->spec, 1, &all)) {
		cli_front_free(&top);
		return -1;
	}
	cli_front_summary(f, &top, r->spec);
	fputs("</p>\n<p>The front per fidelity (the first two objectives, as "
	      "reported; red: on the front of that fidelity's results, grey: "
	      "dominated), then the hypervolume of the results at the "
	      "maximum fidelity as they came in (trial order, against the "
	      "reference above), then each objective against the parameters "
	      "(colour: fidelity).</p>\n",
	      f);
	svg_open(f, 1100, ((r->nfid + 2) / 3) * 300 + 20);
	for (i = r->nfid - 1; i >= 0; i--) {
		struct svg_panel p = {70 + (k % 3) * 360, 30 + (k / 3) * 300,
				      70 + (k % 3) * 360 + 270,
				      30 + (k / 3) * 300 + 210};
		char title[96];

		if (sub_front(&all, r->fids[i], &sub))
			goto out;
		if (sub.n) {
			snprintf(title, sizeof(title),
				 "fidelity %g: front %zu of %zu", r->fids[i],
				 sub.nfront, sub.n);
			cli_front_svg(f, &sub, r->spec, &p, title);
			k++;
			drawn++;
		}
		cli_front_free(&sub);
	}
	fputs("</svg>\n", f);
	if (!drawn)
		fputs("<p class=\"none\">no result with every objective "
		      "yet</p>\n",
		      f);
	if (top.hv_ok) {
		struct svg_panel p = {90, 30, 700, 250};

		svg_open(f, 760, 300);
		hv_chart(f, &top, r->spec, &p);
		fputs("</svg>\n", f);
	}
	rc = all.n ? scatter(f, r, &all) : 0;
out:
	fputs("</section>\n", f);
	cli_front_free(&all);
	cli_front_free(&top);
	return rc;
}

/* The trials the prior proposed: how many, the best of them and of the
 * rest, at the maximum fidelity. */
static void prior_trials(FILE *f, const struct rep *r)
{
	double best[2] = {INFINITY, INFINITY};
	size_t i, n[2] = {0, 0};
	char b[2][32];
	int k;

	for (i = 0; i < r->n; i++) {
		k = r->ev[i].kind == TRIAL_KIND_PRIOR;

		n[k]++;
		if (r->ev[i].ok && r->ev[i].fid == r->spec->max_fidelity &&
		    r->ev[i].loss < best[k])
			best[k] = r->ev[i].loss;
	}
	for (k = 0; k < 2; k++)
		if (isfinite(best[k]))
			snprintf(b[k], sizeof(b[k]), "%.6g", best[k]);
		else
			snprintf(b[k], sizeof(b[k]), "none yet");
	fprintf(f,
		"<table><tr><th>proposed</th><th>evaluations</th><th>best "
		"loss at the maximum fidelity</th></tr>\n<tr><td>from the "
		"prior (kind <code>prior</code>)</td><td class=\"prior\">%zu"
		"</td><td>%s</td></tr>\n<tr><td>otherwise</td><td>%zu</td>"
		"<td>%s</td></tr></table>\n",
		n[1], b[1], n[0], b[0]);
}

int rep_section_transfer(FILE *f, const struct rep *r, const char *root)
{
	char err[DEHBQ_ERRLEN], p[STUDY_PATH_MAX];
	struct statusfile st;
	struct transfer t;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	int k;

	transfer_init(&t, r->dim);
	if (transfer_load(root, r->dim, &t, err)) {
		transfer_release(&t);
		return 0; /* no earlier tasks: no section */
	}
	fprintf(f,
		"<section id=\"transfer\"><h2>Earlier tasks</h2>\n<p>%d "
		"earlier task%s, frozen in <code>state/transfer.jsonl</code> "
		"at <code>dehbq init</code>:</p>\n<table><tr><th>task</th>"
		"<th>results</th></tr>\n",
		t.ntasks, t.ntasks == 1 ? "" : "s");
	for (k = 0; k < t.ntasks; k++) {
		fputs("<tr><td>", f);
		svg_text(f, t.label[k]);
		fprintf(f, "</td><td>%zu</td></tr>\n", t.n[k]);
	}
	fputs("</table>\n", f);
	transfer_release(&t);
	/* the prior's RMSE and its warning, as dehbq status says them */
	if (!study_path(p, sizeof(p), root, "state/status.json") &&
	    !statusfile_load(p, &st, err)) {
		if ((mem = open_memstream(&text, &len))) {
			cli_status_transfer(mem, st.optimizer);
			fclose(mem);
		}
		if (text && *text) { /* line by line: svg_text drops '\n' */
			char *line, *save = NULL;

			fputs("<pre class=\"prior\">", f);
			for (line = strtok_r(text, "\n", &save); line;
			     line = strtok_r(NULL, "\n", &save)) {
				svg_text(f, line);
				fputc('\n', f);
			}
			fputs("</pre>\n", f);
		}
		free(text);
		statusfile_release(&st);
	}
	prior_trials(f, r);
	fputs("</section>\n", f);
	return 0;
}
