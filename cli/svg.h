/*
 * svg.h - the SVG primitives of dehbq plot and dehbq report: axes (linear
 * or log10, with nice ticks), panel frames, XML-escaped text, the colour
 * palette, and the outages of a timeline
 *
 * Everything writes to a FILE the caller owns; nothing allocates except
 * svg_outages (a scratch copy, freed before it returns).
 */
#ifndef DEHBQ_SVG_H
#define DEHBQ_SVG_H

#include <stddef.h>
#include <stdio.h>

/* An axis: data range -> pixel range, linear or log10. */
struct svg_axis {
	double lo, hi; /* data range */
	double p0, p1; /* pixels for lo and hi */
	int log;       /* log10 scale */
};

/* A plot area in pixels. */
struct svg_panel {
	double x0, y0, x1, y1;
};

/* A stretch of time, seconds. */
struct svg_gap {
	double t0, t1;
};

#define SVG_NCOLORS    10
#define SVG_OUTAGE_MIN 10.0 /* seconds: shorter gaps are not outages */
extern const char *const svg_palette[SVG_NCOLORS];

/* An inline <svg> element of w x h pixels, 12 px sans-serif; the caller
 * closes it. */
void svg_open(FILE *f, int w, int h);
double svg_map(const struct svg_axis *a, double v);
/* Widen to nice tick multiples (log: to whole decades). */
void svg_axis_nice(struct svg_axis *a);
/* Ticks, grid lines and labels (values divided by scale); vertical: the y
 * axis, drawn across other0..other1. */
void svg_axis_draw(FILE *f, const struct svg_axis *a, int vertical,
		   double other0, double other1, double scale);
/* Map ax and ay onto panel p and draw both (x values divided by xscale). */
void svg_axes(FILE *f, const struct svg_panel *p, struct svg_axis *ax,
	      struct svg_axis *ay, double xscale);
/* Frame, title above, x label below, y label rotated at the left. */
void svg_frame(FILE *f, const struct svg_panel *p, const char *title,
	       const char *xlabel, const char *ylabel);
/* s with & < > " escaped and control characters dropped. */
void svg_text(FILE *f, const char *s);

/*
 * Outages of a timeline: stretches after the first interval started in
 * which none of the n intervals iv[] (evaluations: started, finished) was
 * running, longer than SVG_OUTAGE_MIN and five times the median interval.
 * Up to cap of them into g, longest first; returns how many, or -1 when
 * out of memory.  *min gets the threshold used.
 */
int svg_outages(const struct svg_gap *iv, size_t n, struct svg_gap *g, int cap,
		double *min);
/* Shade outages g[n] in a time panel, each with its length as tooltip. */
void svg_outage_bands(FILE *f, const struct svg_gap *g, int n,
		      const struct svg_axis *at, const struct svg_panel *p);

#endif
