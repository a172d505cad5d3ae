/*
 * report_charts.c - the inline SVG charts of `dehbq report` (report.h)
 *
 * Owns the drawing of struct rep: the incumbent per fidelity over wall
 * time and over cost, every evaluation, each parameter against the loss,
 * parallel coordinates of the best evaluations at the highest fidelity,
 * and the worker timeline with utilisation and outages.  Every point and
 * bar carries a <title>, which a browser shows on hover.
 */
#include "err.h"
#include "report.h"

#include "space.h"
#include "spec.h"
#include "svg.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REP_MAXPARAMS 32  /* parameter panels drawn */
#define REP_MAXLINES  300 /* parallel-coordinate lines: the best ones */
#define REP_MAXLANES  64  /* worker lanes drawn */
#define REP_MAXGAPS   16  /* outages shaded */

/* The loss axis over the ok evaluations: log10 when they are positive
 * and span more than two decades.  0 when there is none. */
static int loss_axis(const struct rep *r, struct svg_axis *a)
{
	double lo = INFINITY, hi = -INFINITY;
	size_t i, nok = 0, npos = 0;

	for (i = 0; i < r->n; i++) {
		if (!r->ev[i].ok)
			continue;
		nok++;
		npos += r->ev[i].loss > 0;
		lo = fmin(lo, r->ev[i].loss);
		hi = fmax(hi, r->ev[i].loss);
	}
	memset(a, 0, sizeof(*a));
	if (!nok)
		return 0;
	a->lo = lo;
	a->hi = hi;
	a->log = npos == nok && lo > 0 && hi / lo > 100;
	svg_axis_nice(a);
	return 1;
}

/* Time axis in seconds, labelled in the unit that suits the span. */
static double time_axis(const struct rep *r, struct svg_axis *a,
			const char **unit)
{
	double tmax = r->n ? r->ev[r->n - 1].t1 : 1, scale = 1;

	*unit = "seconds";
	if (tmax > 2 * 3600) {
		scale = 3600;
		*unit = "hours";
	} else if (tmax > 180) {
		scale = 60;
		*unit = "minutes";
	}
	memset(a, 0, sizeof(*a));
	a->hi = tmax > 0 ? tmax / scale : 1;
	svg_axis_nice(a);
	a->lo *= scale;
	a->hi *= scale;
	return scale;
}

static void none(FILE *f, const char *why)
{
	fprintf(f, "<p class=\"none\">%s</p>\n", why);
}

/* One step line: the running best of the ok evaluations at fidelity fid
 * (NAN: any), against time (cost NULL) or cumulative cost. */
static void best_line(FILE *f, const struct rep *r, double fid,
		      const double *cost, const struct svg_axis *ax,
		      const struct svg_axis *ay, const char *color)
{
	double best = INFINITY, px = 0, py = 0;
	size_t i;
	int started = 0;

	for (i = 0; i < r->n; i++) {
		const struct rep_eval *e = &r->ev[i];
		double x = cost ? cost[i] : e->t1;

		if (!e->ok || (!isnan(fid) && e->fid != fid) ||
		    !(e->loss < best))
			continue;
		best = e->loss;
		if (!started)
			fprintf(f,
				"<path fill=\"none\" stroke=\"%s\" "
				"stroke-width=\"%s\" d=\"M%.1f %.1f",
				color, isnan(fid) ? "2.5" : "1.5",
				svg_map(ax, x), svg_map(ay, best));
		else
			fprintf(f, " H%.1f V%.1f", svg_map(ax, x),
				svg_map(ay, best));
		started = 1;
		px = svg_map(ax, x);
		py = svg_map(ay, best);
	}
	if (started)
		fprintf(f, " H%.1f\"/>\n", fmax(px, ax->p1));
	(void)py;
}

void rep_chart_progress(FILE *f, const struct rep *r)
{
	struct svg_panel pa = {70, 40, 500, 320}, pb = {600, 40, 1030, 320};
	struct svg_axis ay, at, ac;
	const char *unit;
	double scale, *cum;
	char lab[64];
	size_t i;
	int k;

	if (!loss_axis(r, &ay)) {
		none(f, "no successful evaluation yet");
		return;
	}
	if (!(cum = malloc(r->n * sizeof(*cum)))) {
		none(f, "out of memory");
		return;
	}
	for (i = 0; i < r->n; i++)
		cum[i] = (i ? cum[i - 1] : 0) + r->ev[i].cost;
	scale = time_axis(r, &at, &unit);
	memset(&ac, 0, sizeof(ac));
	ac.hi = cum[r->n - 1] > 0 ? cum[r->n - 1] : 1;
	svg_axis_nice(&ac);
	svg_open(f, 1100, 420);
	svg_axes(f, &pa, &at, &ay, scale);
	snprintf(lab, sizeof(lab), "wall time since creation (%s)", unit);
	svg_frame(f, &pa, "best loss over wall time", lab,
		  ay.log ? "loss (log scale)" : "loss");
	for (k = 0; k < r->nfid; k++)
		best_line(f, r, r->fids[k], NULL, &at, &ay,
			  rep_fid_color(r, r->fids[k]));
	best_line(f, r, NAN, NULL, &at, &ay, "#000000");
	svg_axes(f, &pb, &ac, &ay, 1);
	svg_frame(f, &pb, "best loss over cost",
		  "cumulative cost (sum of reported costs)",
		  ay.log ? "loss (log scale)" : "loss");
	for (k = 0; k < r->nfid; k++)
		best_line(f, r, r->fids[k], cum, &ac, &ay,
			  rep_fid_color(r, r->fids[k]));
	best_line(f, r, NAN, cum, &ac, &ay, "#000000");
	/* legend */
	fprintf(f, "<text x=\"70\" y=\"385\">black: best at any fidelity; "
		   "colours: best at each fidelity (");
	for (k = 0; k < r->nfid && k < SVG_NCOLORS; k++)
		fprintf(f, "%s<tspan fill=\"%s\">%g</tspan>", k ? ", " : "",
			rep_fid_color(r, r->fids[k]), r->fids[k]);
	fputs(")</text>\n</svg>\n", f);
	free(cum);
}

void rep_chart_evals(FILE *f, const struct rep *r)
{
	struct svg_panel p = {70, 30, 1000, 380};
	struct svg_axis ay, at;
	const char *unit;
	double scale;
	char lab[64];
	size_t i;

	if (!loss_axis(r, &ay)) {
		none(f, "no successful evaluation yet");
		return;
	}
	scale = time_axis(r, &at, &unit);
	svg_open(f, 1100, 440);
	svg_axes(f, &p, &at, &ay, scale);
	snprintf(lab, sizeof(lab), "finish time since creation (%s)", unit);
	svg_frame(f, &p, "", lab, ay.log ? "loss (log scale)" : "loss");
	fputs("<g fill-opacity=\"0.7\">\n", f);
	for (i = 0; i < r->n; i++) {
		const struct rep_eval *e = &r->ev[i];

		if (!e->ok)
			continue;
		fprintf(f,
			"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\">"
			"<title>trial %08llu attempt %d: loss %.6g at "
			"fidelity %g</title></circle>\n",
			svg_map(&at, e->t1), svg_map(&ay, e->loss),
			rep_fid_color(r, e->fid), (unsigned long long)e->id,
			e->attempt, e->loss, e->fid);
	}
	fputs("</g>\n</svg>\n", f);
}

void rep_chart_params(FILE *f, const struct rep *r)
{
	int d = r->dim < REP_MAXPARAMS ? r->dim : REP_MAXPARAMS, k, cols = 3;
	int rows = (d + cols - 1) / cols;
	struct svg_axis ay, ax;
	size_t i;

	if (!loss_axis(r, &ay)) {
		none(f, "no successful evaluation yet");
		return;
	}
	fputs("<p>x: the parameter on the search space's unit scale (0 = "
	      "low, 1 = high; log-scaled parameters are log-spaced; a "
	      "category is its bin; a conditional parameter only where it is "
	      "active); colour: fidelity.</p>\n",
	      f);
	svg_open(f, 1100, rows * 260 + 10);
	for (k = 0; k < d; k++) {
		struct svg_panel p;

		p.x0 = 70 + (k % cols) * 360;
		p.x1 = p.x0 + 270;
		p.y0 = 30 + (k / cols) * 260;
		p.y1 = p.y0 + 180;
		memset(&ax, 0, sizeof(ax));
		ax.hi = 1;
		svg_axes(f, &p, &ax, &ay, 1);
		svg_frame(f, &p, space_param_name(r->spec->space, k), "",
			  "loss");
		for (i = 0; i < r->n; i++) {
			const struct rep_eval *e = &r->ev[i];

			if (e->ok && !isnan(r->vec[i * (size_t)r->dim + k]))
				fprintf(f,
					"<circle cx=\"%.1f\" cy=\"%.1f\" "
					"r=\"2.5\" fill=\"%s\" "
					"fill-opacity=\"0.6\"/>\n",
					svg_map(&ax,
						r->vec[i * (size_t)r->dim + k]),
					svg_map(&ay, e->loss),
					rep_fid_color(r, e->fid));
		}
	}
	fputs("</svg>\n", f);
	if (r->dim > d)
		fprintf(f, "<p>the first %d of %d parameters</p>\n", d, r->dim);
}

static int loss_cmp(const void *a, const void *b)
{
	double x = **(const double *const *)a, y = **(const double *const *)b;

	return x < y ? -1 : x > y;
}

void rep_chart_parallel(FILE *f, const struct rep *r)
{
	int d = r->dim < REP_MAXPARAMS ? r->dim : REP_MAXPARAMS, k, m = 0;
	double top = -INFINITY, gap = d > 1 ? 960.0 / (d - 1) : 0;
	const double **sel;
	size_t i, n = 0;

	for (i = 0; i < r->n; i++)
		if (r->ev[i].ok && r->ev[i].fid > top)
			top = r->ev[i].fid;
	if (!isfinite(top) || !(sel = malloc(r->n * sizeof(*sel)))) {
		none(f, "no successful evaluation yet");
		return;
	}
	for (i = 0; i < r->n; i++)
		if (r->ev[i].ok && r->ev[i].fid == top)
			sel[n++] = &r->ev[i].loss;
	qsort(sel, n, sizeof(*sel), loss_cmp);
	if (n > REP_MAXLINES)
		n = REP_MAXLINES;
	fprintf(f,
		"<p>The best %zu evaluations at fidelity %g, one line each "
		"over the parameters' unit scales; dark blue is the best, "
		"light the worst of them.</p>\n",
		n, top);
	svg_open(f, 1100, 420);
	for (k = 0; k < d; k++) {
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"40\" x2=\"%.1f\" y2=\"360\" "
			"stroke=\"#999\"/><text x=\"%.1f\" y=\"385\" "
			"text-anchor=\"middle\">",
			60 + k * gap, 60 + k * gap, 60 + k * gap);
		svg_text(f, space_param_name(r->spec->space, k));
		fputs("</text>\n", f);
	}
	for (i = n; i-- > 0;) { /* the best drawn last, on top */
		const struct rep_eval *e =
			(const struct rep_eval *)((const char *)sel[i] -
						  offsetof(struct rep_eval,
							   loss));
		const double *x = &r->vec[(size_t)(e - r->ev) * (size_t)r->dim];
		double t = n > 1 ? (double)i / (double)(n - 1) : 0;

		fprintf(f,
			"<polyline fill=\"none\" "
			"stroke=\"hsl(215,70%%,%.0f%%)\" "
			"stroke-opacity=\"0.7\" points=\"",
			25 + 55 * t);
		for (k = 0, m = 0; k < d; k++) /* through the active axes */
			if (!isnan(x[k]))
				fprintf(f, "%s%.1f,%.1f", m++ ? " " : "",
					60 + k * gap, 360 - 320 * x[k]);
		fprintf(f,
			"\"><title>trial %08llu: loss %.6g</title>"
			"</polyline>\n",
			(unsigned long long)e->id, e->loss);
	}
	fputs("</svg>\n", f);
	free(sel);
}

int rep_chart_workers(FILE *f, const struct rep *r)
{
	struct svg_gap gaps[REP_MAXGAPS], *iv;
	struct svg_panel p = {200, 30, 1060, 0};
	int lanes = r->nworkers < REP_MAXLANES ? r->nworkers : REP_MAXLANES;
	double busy = 0, t0 = INFINITY, t1 = 0, scale, gapmin;
	struct svg_axis at;
	const char *unit;
	char lab[64];
	size_t i;
	int k, ngaps;

	if (!r->n) {
		none(f, "no evaluation yet");
		return 0;
	}
	if (!(iv = malloc(r->n * sizeof(*iv))))
		return -1;
	for (i = 0; i < r->n; i++) {
		iv[i].t0 = r->ev[i].t0;
		iv[i].t1 = r->ev[i].t1;
		busy += r->ev[i].t1 - r->ev[i].t0;
		t0 = fmin(t0, r->ev[i].t0);
		t1 = fmax(t1, r->ev[i].t1);
	}
	ngaps = svg_outages(iv, r->n, gaps, REP_MAXGAPS, &gapmin);
	free(iv);
	if (ngaps < 0)
		return -1;
	fprintf(f,
		"<p>%d workers; utilisation %.1f%% (time spent in trials over "
		"workers &times; %.0f s from the first start to the last "
		"finish); %d outage%s (no trial running for more than %.0f s), "
		"shaded.</p>\n",
		r->nworkers,
		t1 > t0 ? 100 * busy / (r->nworkers * (t1 - t0)) : 0, t1 - t0,
		ngaps, ngaps == 1 ? "" : "s", gapmin);
	p.y1 = p.y0 + 18.0 * lanes;
	scale = time_axis(r, &at, &unit);
	at.p0 = p.x0;
	at.p1 = p.x1;
	svg_open(f, 1100, (int)p.y1 + 60);
	svg_axis_draw(f, &at, 0, p.y1, p.y0, scale);
	snprintf(lab, sizeof(lab), "time since creation (%s)", unit);
	svg_frame(f, &p, "", lab, "");
	svg_outage_bands(f, gaps, ngaps, &at, &p);
	for (k = 0; k < lanes; k++) {
		fprintf(f,
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
			"font-size=\"10\">",
			p.x0 - 6, p.y0 + 18.0 * k + 13);
		svg_text(f, r->workers[k]);
		fputs("</text>\n", f);
	}
	for (i = 0; i < r->n; i++) {
		const struct rep_eval *e = &r->ev[i];
		double a = svg_map(&at, e->t0), b = svg_map(&at, e->t1);

		if (e->worker >= lanes)
			continue;
		fprintf(f,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"14\" fill=\"%s\"><title>trial %08llu "
			"attempt %d, fidelity %g, %s, %.1f s</title></rect>\n",
			a, p.y0 + 18.0 * e->worker + 2, fmax(b - a, 0.5),
			e->ok ? "#2ca02c" : "#d62728",
			(unsigned long long)e->id, e->attempt, e->fid,
			e->status, e->t1 - e->t0);
	}
	fputs("</svg>\n", f);
	if (r->nworkers > lanes)
		fprintf(f, "<p>the first %d of %d workers</p>\n", lanes,
			r->nworkers);
	return 0;
}

/* One panel of bars: the importances at one fidelity, most first. */
static void importance_panel(FILE *f, const struct rep *r,
			     const struct svg_panel *p, const double *mean,
			     const double *sd, const int *ord, double fid,
			     int m)
{
	char title[96];
	int k;

	snprintf(title, sizeof(title), "fidelity %g (%d results)", fid, m);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-weight=\"bold\">", p->x0,
		p->y0 - 8);
	svg_text(f, title);
	fputs("</text>\n", f);
	for (k = 0; k < r->dim; k++) {
		int j = ord[k];
		double y = p->y0 + 22 * k, w = (p->x1 - p->x0) * mean[j];
		double lo = mean[j] - sd[j] < 0 ? 0 : mean[j] - sd[j];
		double hi = mean[j] + sd[j] > 1 ? 1 : mean[j] + sd[j];

		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
			p->x0 - 6, y + 13);
		svg_text(f, space_param_name(r->spec->space, j));
		fprintf(f,
			"</text>\n<rect class=\"imp\" x=\"%.1f\" y=\"%.1f\" "
			"width=\"%.1f\" height=\"16\" fill=\"%s\"><title>",
			p->x0, y + 2, w, rep_fid_color(r, fid));
		svg_text(f, space_param_name(r->spec->space, j));
		fprintf(f,
			": %.4f &#177; %.4f</title></rect>\n<line x1=\"%.1f\" "
			"y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"#333\"/>\n"
			"<text x=\"%.1f\" y=\"%.1f\">%.3f</text>\n",
			mean[j], sd[j], p->x0 + (p->x1 - p->x0) * lo, y + 10,
			p->x0 + (p->x1 - p->x0) * hi, y + 10,
			p->x0 + (p->x1 - p->x0) * hi + 4, y + 14, mean[j]);
	}
}

int rep_chart_importance(FILE *f, const struct rep *r)
{
	const struct cli_imp *c = &r->imp;
	size_t need = cli_imp_need(r->dim), cnt;
	double *mean = malloc((size_t)r->dim * sizeof(double));
	double *sd = malloc((size_t)r->dim * sizeof(double));
	int *ord = malloc((size_t)r->dim * sizeof(int));
	int i, k, panels = 0, m, used, rc = -1;
	size_t j;

	if (!mean || !sd || !ord)
		goto out;
	fprintf(f,
		"<p>fANOVA: the fraction of the loss's variance each parameter "
		"explains on its own, from a random forest (64 trees, the "
		"study's seed) fitted to the ok results at each fidelity with "
		"at least %zu of them; the line is one standard deviation over "
		"the trees; the rest of the variance is interactions.  The "
		"numbers are <code>dehbq importance --fidelity all</code>'s."
		"</p>\n",
		need);
	for (i = 0; i < r->nfid; i++) {
		for (j = cnt = 0; j < c->n; j++)
			cnt += c->fid[j] == r->fids[i];
		panels += cnt >= need;
	}
	if (!panels) {
		none(f, "not enough ok results at any fidelity yet");
		rc = 0;
		goto out;
	}
	svg_open(f, 1100, ((panels + 1) / 2) * (22 * r->dim + 50) + 10);
	for (i = r->nfid - 1, k = 0; i >= 0; i--) {
		struct svg_panel p;

		for (j = cnt = 0; j < c->n; j++)
			cnt += c->fid[j] == r->fids[i];
		if (cnt < need)
			continue;
		if (cli_imp_fit(c, r->fids[i], mean, sd, &m, &used) ==
		    DEHBQ_ENOMEM)
			goto out;
		cli_imp_order(mean, r->dim, ord);
		p.x0 = 170 + (k % 2) * 550;
		p.x1 = p.x0 + 320;
		p.y0 = 30 + (k / 2) * (22 * r->dim + 50);
		p.y1 = p.y0 + 22 * r->dim;
		importance_panel(f, r, &p, mean, sd, ord, r->fids[i], m);
		k++;
	}
	fputs("</svg>\n", f);
	rc = 0;
out:
	free(mean);
	free(sd);
	free(ord);
	return rc;
}
