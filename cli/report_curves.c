/*
 * report_curves.c - owns the "curves" section of `dehbq report` (live
 * trials, docs/protocol.md 4.6): the learning curve of every told trial
 * that reported as it trained (its archived ID.aN.progress.json), the
 * stopped ones marked, and how much training stopping saved
 *
 * Saved training is counted in fidelity units: every ok or stopped
 * evaluation would have trained to its trial's fidelity; a stopped one
 * trained to the fidelity it reached.
 */
#include "cli.h"

#include "err.h"
#include "progress.h"
#include "report.h"
#include "spec.h"
#include "study.h"
#include "svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RC_MAXCURVES 400 /* curves drawn: the latest ones */

struct curves {
	struct progress *pr; /* per evaluation drawn (n 0: none) */
	size_t n, with;	     /* evaluations, those with a curve */
	double flo, fhi, llo, lhi;
	size_t npos, npts;
};

/* Evaluation e's curve, from the archive; an empty progress when none. */
static int load_curve(const char *root, const struct rep_eval *e,
		      struct progress *pr)
{
	char p[STUDY_PATH_MAX], err[DEHBQ_ERRLEN];
	int rc;

	memset(pr, 0, sizeof(*pr));
	if (study_archive_file(p, sizeof(p), root, e->id, e->attempt,
			       "progress"))
		return DEHBQ_OK;
	rc = progress_load(p, pr, err);
	return rc == DEHBQ_ENOMEM ? rc : DEHBQ_OK;
}

static int gather(struct curves *c, const struct rep *r, const char *root)
{
	size_t i, k, first = r->n > RC_MAXCURVES ? r->n - RC_MAXCURVES : 0;

	memset(c, 0, sizeof(*c));
	c->flo = c->llo = INFINITY;
	c->fhi = c->lhi = -INFINITY;
	c->n = r->n - first;
	if (c->n && !(c->pr = calloc(c->n, sizeof(*c->pr))))
		return -1;
	for (i = 0; i < c->n; i++) {
		struct progress *pr = &c->pr[i];

		if (load_curve(root, &r->ev[first + i], pr))
			return -1;
		c->with += pr->n > 0;
		for (k = 0; k < pr->n; k++) {
			c->flo = fmin(c->flo, pr->pt[k].fidelity);
			c->fhi = fmax(c->fhi, pr->pt[k].fidelity);
			c->llo = fmin(c->llo, pr->pt[k].loss);
			c->lhi = fmax(c->lhi, pr->pt[k].loss);
			c->npos += pr->pt[k].loss > 0;
			c->npts++;
		}
	}
	return 0;
}

static void curves_free(struct curves *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		progress_release(&c->pr[i]);
	free(c->pr);
}

/* Training used and what every trial to its fidelity would have used. */
static void savings(FILE *f, const struct rep *r)
{
	double used = 0, full = 0;
	size_t i, nst = 0, n = 0;

	for (i = 0; i < r->n; i++) {
		const struct rep_eval *e = &r->ev[i];

		if (!(e->ok || e->stopped) || !(e->reached >= 0))
			continue;
		n++;
		nst += e->stopped;
		used += e->reached < e->fid ? e->reached : e->fid;
		full += e->fid;
	}
	fprintf(f,
		"<p>%zu of %zu evaluations stopped early. Training used %g "
		"of the %g fidelity units that running each to its "
		"fidelity would have: stopping saved %.1f%%.</p>\n",
		nst, n, used, full, full > 0 ? 100 * (full - used) / full : 0);
}

static void draw(FILE *f, const struct rep *r, const struct curves *c)
{
	struct svg_panel p = {70, 30, 1000, 380};
	struct svg_axis ax, ay;
	size_t i, k;

	memset(&ax, 0, sizeof(ax));
	memset(&ay, 0, sizeof(ay));
	ax.lo = 0;
	ax.hi = fmax(c->fhi, r->spec->max_fidelity);
	ay.lo = c->llo;
	ay.hi = c->lhi > c->llo ? c->lhi : c->llo + 1;
	ay.log = c->npos == c->npts && c->llo > 0 && c->lhi / c->llo > 100;
	svg_axis_nice(&ax);
	svg_axis_nice(&ay);
	svg_open(f, 1100, 440);
	svg_axes(f, &p, &ax, &ay, 1);
	svg_frame(f, &p, "", "fidelity (training done)",
		  ay.log ? "loss (log scale)" : "loss");
	fputs("<g fill=\"none\" stroke-width=\"1.2\">\n", f);
	for (i = 0; i < c->n; i++) {
		const struct rep_eval *e = &r->ev[r->n - c->n + i];
		const struct progress *pr = &c->pr[i];
		const struct progress_point *last = progress_last(pr);

		if (!last)
			continue;
		fprintf(f,
			"<polyline stroke=\"%s\" stroke-opacity=\"0.6\" "
			"points=\"",
			e->stopped ? "#d62728" : "#1f77b4");
		for (k = 0; k < pr->n; k++)
			fprintf(f, "%s%.1f,%.1f", k ? " " : "",
				svg_map(&ax, pr->pt[k].fidelity),
				svg_map(&ay, pr->pt[k].loss));
		fprintf(f,
			"\"><title>trial %08llu attempt %d: %s, loss %.6g at "
			"fidelity %g</title></polyline>\n",
			(unsigned long long)e->id, e->attempt, e->status,
			last->loss, last->fidelity);
		if (e->stopped) /* the stop: a cross at the curve's end */
			fprintf(f,
				"<path stroke=\"#d62728\" d=\"M%.1f %.1fl6 "
				"6m0 -6l-6 6\"/>\n",
				svg_map(&ax, last->fidelity) - 3,
				svg_map(&ay, last->loss) - 3);
	}
	fputs("</g>\n<text x=\"70\" y=\"425\">blue: ran to its fidelity; "
	      "red, ending in a cross: stopped early",
	      f);
	if (r->n > c->n)
		fprintf(f, " (the latest %zu evaluations)", c->n);
	fputs("</text>\n</svg>\n", f);
}

int rep_section_curves(FILE *f, const struct rep *r, const char *root)
{
	struct curves c;

	if (gather(&c, r, root)) {
		curves_free(&c);
		return -1;
	}
	if (c.with) {
		fputs("<section id=\"curves\"><h2>Learning curves</h2>\n", f);
		savings(f, r);
		draw(f, r, &c);
		fputs("</section>\n", f);
	}
	curves_free(&c);
	return 0;
}
