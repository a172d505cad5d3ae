/*
 * svg.c - SVG primitives shared by dehbq plot and dehbq report (svg.h)
 */
#include "svg.h"

#include <math.h>
#include <stdlib.h>

const char *const svg_palette[SVG_NCOLORS] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};

void svg_open(FILE *f, int w, int h)
{
	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" "
		"font-family=\"sans-serif\" font-size=\"12\">\n",
		w, h, w, h);
}

double svg_map(const struct svg_axis *a, double v)
{
	double f;

	if (a->log)
		f = (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
	else
		f = (v - a->lo) / (a->hi - a->lo);
	return a->p0 + f * (a->p1 - a->p0);
}

static double nice_step(double range)
{
	double m = pow(10, floor(log10(range / 5))), r = range / 5 / m;

	return (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * m;
}

void svg_axis_nice(struct svg_axis *a)
{
	double st;

	if (!(a->hi > a->lo)) {
		double d = fabs(a->lo) > 0 ? fabs(a->lo) * 0.1 : 1;

		a->lo -= d;
		a->hi += d;
	}
	if (a->log) {
		a->lo = pow(10, floor(log10(a->lo)));
		a->hi = pow(10, ceil(log10(a->hi)));
		if (a->hi <= a->lo)
			a->hi = a->lo * 10;
		return;
	}
	st = nice_step(a->hi - a->lo);
	a->lo = floor(a->lo / st) * st;
	a->hi = ceil(a->hi / st) * st;
}

static void tick_label(char *buf, size_t size, double v)
{
	if (fabs(v) < 1e-12)
		v = 0;
	snprintf(buf, size, "%g", v);
}

void svg_axis_draw(FILE *f, const struct svg_axis *a, int vertical,
		   double other0, double other1, double scale)
{
	char lab[40];
	double v, st;
	int i = 0;

	if (a->log) {
		v = a->lo;
		st = 10;
	} else {
		st = nice_step(a->hi - a->lo);
		v = a->lo;
	}
	for (; v <= a->hi * (1 + 1e-9) + (a->log ? 0 : st * 1e-9) && i < 50;
	     i++, v = a->log ? v * st : a->lo + i * st) {
		double p = svg_map(a, v);

		tick_label(lab, sizeof(lab), v / scale);
		if (vertical)
			fprintf(f,
				"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				"y2=\"%.1f\" class=\"grid\"/>\n"
				"<text x=\"%.1f\" y=\"%.1f\" "
				"text-anchor=\"end\">%s</text>\n",
				other0, p, other1, p, other0 - 6, p + 4, lab);
		else
			fprintf(f,
				"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				"y2=\"%.1f\" class=\"grid\"/>\n"
				"<text x=\"%.1f\" y=\"%.1f\" "
				"text-anchor=\"middle\">%s</text>\n",
				p, other0, p, other1, p, other0 + 16, lab);
	}
}

void svg_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else if ((unsigned char)*s >= 0x20 || *s == '\t')
			fputc(*s, f);
	}
}

void svg_axes(FILE *f, const struct svg_panel *p, struct svg_axis *ax,
	      struct svg_axis *ay, double xscale)
{
	ay->p0 = p->y1;
	ay->p1 = p->y0;
	ax->p0 = p->x0;
	ax->p1 = p->x1;
	svg_axis_draw(f, ay, 1, p->x0, p->x1, 1);
	svg_axis_draw(f, ax, 0, p->y1, p->y0, xscale);
}

void svg_frame(FILE *f, const struct svg_panel *p, const char *title,
	       const char *xlabel, const char *ylabel)
{
	fprintf(f,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		"class=\"frame\"/>\n",
		p->x0, p->y0, p->x1 - p->x0, p->y1 - p->y0);
	fprintf(f,
		"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
		"class=\"title\">%s</text>\n",
		(p->x0 + p->x1) / 2, p->y0 - 10, title);
	fprintf(f,
		"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s"
		"</text>\n",
		(p->x0 + p->x1) / 2, p->y1 + 36, xlabel);
	fprintf(f,
		"<text transform=\"translate(%.1f,%.1f) rotate(-90)\" "
		"text-anchor=\"middle\">%s</text>\n",
		p->x0 - 58, (p->y0 + p->y1) / 2, ylabel);
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int start_cmp(const void *a, const void *b)
{
	double x = ((const struct svg_gap *)a)->t0,
	       y = ((const struct svg_gap *)b)->t0;

	return x < y ? -1 : x > y;
}

static int gap_cmp(const void *a, const void *b)
{
	double x = ((const struct svg_gap *)a)->t1 -
		   ((const struct svg_gap *)a)->t0,
	       y = ((const struct svg_gap *)b)->t1 -
		   ((const struct svg_gap *)b)->t0;

	return x > y ? -1 : x < y; /* longest first */
}

int svg_outages(const struct svg_gap *ivs, size_t n, struct svg_gap *g, int cap,
		double *min)
{
	struct svg_gap *iv = n ? malloc(n * sizeof(*iv)) : NULL;
	double *w = n ? malloc(n * sizeof(*w)) : NULL, end;
	size_t i;
	int k = 0;

	*min = SVG_OUTAGE_MIN;
	if (!n || !iv || !w) {
		free(iv);
		free(w);
		return n ? -1 : 0;
	}
	for (i = 0; i < n; i++) {
		iv[i] = ivs[i];
		w[i] = ivs[i].t1 - ivs[i].t0;
	}
	qsort(w, n, sizeof(*w), dbl_cmp);
	if (5 * w[n / 2] > *min)
		*min = 5 * w[n / 2];
	qsort(iv, n, sizeof(*iv), start_cmp);
	for (end = iv[0].t1, i = 1; i < n; i++) {
		if (iv[i].t0 - end > *min) {
			struct svg_gap o = {end, iv[i].t0};

			if (k < cap)
				g[k++] = o;
			else if (o.t1 - o.t0 > g[cap - 1].t1 - g[cap - 1].t0)
				g[cap - 1] = o;
			qsort(g, (size_t)k, sizeof(*g), gap_cmp);
		}
		if (iv[i].t1 > end)
			end = iv[i].t1;
	}
	free(iv);
	free(w);
	return k;
}

void svg_outage_bands(FILE *f, const struct svg_gap *g, int n,
		      const struct svg_axis *at, const struct svg_panel *p)
{
	int i;

	for (i = 0; i < n; i++) {
		double a = svg_map(at, g[i].t0), b = svg_map(at, g[i].t1);

		a = a < p->x0 ? p->x0 : a;
		b = b > p->x1 ? p->x1 : b;
		if (b <= a)
			continue;
		fprintf(f,
			"<rect class=\"outage\" x=\"%.1f\" y=\"%.1f\" "
			"width=\"%.1f\" height=\"%.1f\" fill=\"#d62728\" "
			"fill-opacity=\"0.15\"><title>outage: no trial "
			"running for %.0f s</title></rect>\n",
			a, p->y0, b - a, p->y1 - p->y0, g[i].t1 - g[i].t0);
	}
}
