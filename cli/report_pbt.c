/*
 * report_pbt.c - owns the "population" section of `dehbq report` for a
 * scheduler of segments (pbt, docs/algorithm.md 20): the population over
 * training, each member's segments joined to the checkpoint they continued
 * (an exploit dashed, from the donor's point), and the best member's
 * schedule, its configuration per segment
 *
 * A segment's member is its trial's bracket; its parent is the trial whose
 * work directory it continued.  Only ok evaluations are drawn (a failed
 * segment left no checkpoint).
 */
#include "cli.h"

#include "optim.h"
#include "report.h"
#include "space.h"
#include "spec.h"
#include "svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pop {
	size_t *ok; /* indices into r->ev of the ok evaluations, by id */
	size_t n;
	double llo, lhi;
};

static int by_id(const void *a, const void *b, void *arg)
{
	const struct rep *r = arg;
	uint64_t x = r->ev[*(const size_t *)a].id,
		 y = r->ev[*(const size_t *)b].id;

	return x < y ? -1 : x > y;
}

/* The ok evaluation of trial id, or -1. */
static long find(const struct rep *r, const struct pop *p, int64_t id)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->ev[p->ok[mid]].id < (uint64_t)id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->n && r->ev[p->ok[lo]].id == (uint64_t)id
		       ? (long)p->ok[lo]
		       : -1;
}

static int gather(const struct rep *r, struct pop *p)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	p->llo = INFINITY;
	p->lhi = -INFINITY;
	if (r->n && !(p->ok = malloc(r->n * sizeof(*p->ok))))
		return -1;
	for (i = 0; i < r->n; i++)
		if (r->ev[i].ok && isfinite(r->ev[i].loss)) {
			p->ok[p->n++] = i;
			p->llo = fmin(p->llo, r->ev[i].loss);
			p->lhi = fmax(p->lhi, r->ev[i].loss);
		}
	qsort_r(p->ok, p->n, sizeof(*p->ok), by_id, (void *)r);
	return 0;
}

static void draw(FILE *f, const struct rep *r, const struct pop *p)
{
	struct svg_panel pn = {70, 30, 1000, 380};
	struct svg_axis ax, ay;
	size_t i;

	memset(&ax, 0, sizeof(ax));
	memset(&ay, 0, sizeof(ay));
	ax.hi = r->spec->max_fidelity;
	ay.lo = p->llo;
	ay.hi = p->lhi > p->llo ? p->lhi : p->llo + 1;
	ay.log = p->llo > 0 && p->lhi / p->llo > 100;
	svg_axis_nice(&ax);
	svg_axis_nice(&ay);
	svg_open(f, 1100, 440);
	svg_axes(f, &pn, &ax, &ay, 1);
	svg_frame(f, &pn, "", "fidelity (training done)",
		  ay.log ? "loss (log scale)" : "loss");
	fputs("<g stroke-width=\"1.2\">\n", f);
	for (i = 0; i < p->n; i++) {
		const struct rep_eval *e = &r->ev[p->ok[i]];
		const char *col = svg_palette[e->bracket % SVG_NCOLORS];
		double x = svg_map(&ax, e->fid), y = svg_map(&ay, e->loss);
		long k = e->parent >= 0 ? find(r, p, e->parent) : -1;

		if (k >= 0)
			fprintf(f,
				"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				"y2=\"%.1f\" stroke=\"%s\"%s/>\n",
				svg_map(&ax, r->ev[k].fid),
				svg_map(&ay, r->ev[k].loss), x, y, col,
				r->ev[k].bracket != e->bracket
					? " stroke-dasharray=\"4 3\""
					: "");
		fprintf(f,
			"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\">"
			"<title>trial %08llu: member %lld, loss %.6g at "
			"fidelity %g</title></circle>\n",
			x, y, col, (unsigned long long)e->id,
			(long long)e->bracket, e->loss, e->fid);
	}
	fputs("</g>\n<text x=\"70\" y=\"425\">one colour per member (by "
	      "number, mod 10); a line joins a segment to the checkpoint it "
	      "continued, dashed where it exploited another member's</text>\n"
	      "</svg>\n",
	      f);
}

/* Evaluation i's configuration as name=value pairs. */
static void config(FILE *f, const struct rep *r, size_t i)
{
	struct space_value v[64];
	const double *x = &r->vec[i * (size_t)r->dim];
	char buf[96];
	int k;

	if (r->dim > 64) {
		fputs("(more than 64 parameters)", f);
		return;
	}
	space_decode(r->spec->space, x, v);
	for (k = 0; k < r->dim; k++) {
		fprintf(f, "%s", k ? ", " : "");
		svg_text(f, space_param_name(r->spec->space, k));
		if (isnan(x[k]) || space_value_format(&v[k], buf, sizeof(buf)))
			snprintf(buf, sizeof(buf), "%s",
				 isnan(x[k]) ? "inactive" : "?");
		fputc('=', f);
		svg_text(f, buf);
	}
}

/* The best member's schedule: its chain of segments, first first. */
static int schedule(FILE *f, const struct rep *r, const struct pop *p)
{
	long *chain, k = r->best_i[0];
	size_t n = 0, i;

	if (k < 0) {
		fputs("<p>No member has trained to the maximum fidelity yet."
		      "</p>\n",
		      f);
		return 0;
	}
	if (!(chain = malloc((p->n + 1) * sizeof(*chain))))
		return -1;
	for (; k >= 0 && n <= p->n; n++) {
		chain[n] = k;
		k = r->ev[k].parent >= 0 ? find(r, p, r->ev[k].parent) : -1;
	}
	fprintf(f,
		"<h3>The best member's schedule</h3>\n<p>Trial %08llu ended "
		"with loss %.6g; its configuration per segment, from its first "
		"(the checkpoints it continued, whoever trained them):</p>\n"
		"<table><tr><th>fidelity</th><th>trial</th><th>member</th>"
		"<th>loss</th><th>configuration</th></tr>\n",
		(unsigned long long)r->ev[chain[0]].id, r->ev[chain[0]].loss);
	for (i = n; i-- > 0;) {
		const struct rep_eval *e = &r->ev[chain[i]];

		fprintf(f,
			"<tr><td>%g</td><td>%08llu</td><td>%lld</td>"
			"<td>%.6g</td><td>",
			e->fid, (unsigned long long)e->id,
			(long long)e->bracket, e->loss);
		config(f, r, (size_t)chain[i]);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	free(chain);
	return 0;
}

int rep_section_population(FILE *f, const struct rep *r)
{
	struct pop p;
	int rc = 0;

	if (!(optim_caps(r->spec->optimizer) & OPTIM_CAP_SEGMENTS))
		return 0;
	if (gather(r, &p)) {
		free(p.ok);
		return -1;
	}
	fputs("<section id=\"population\"><h2>The population</h2>\n", f);
	if (p.n) {
		draw(f, r, &p);
		rc = schedule(f, r, &p);
	} else {
		fputs("<p>No segment has ended ok yet.</p>\n", f);
	}
	fputs("</section>\n", f);
	free(p.ok);
	return rc;
}
