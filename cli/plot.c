/*
 * plot.c - `dehbq plot STUDY -o FILE.svg`: an SVG written by hand
 *
 * Three panels over the archived results (every evaluation: the earlier
 * attempts of a requeued trial too): the incumbent loss (best at any
 * fidelity, and best at the maximum fidelity) against wall time since the
 * study was created, the same against the cumulative budget (sum of the
 * fidelities of all evaluations in finish order, failed ones included),
 * and a scatter of every ok evaluation (loss against finish time)
 * coloured by fidelity, with a legend.  The loss axis is logarithmic when
 * the positive losses span more than two decades and none is <= 0.
 * Outages are shaded in the two time panels: stretches, after the first
 * evaluation started, in which no evaluation was running, longer than
 * PLOT_OUTAGE_MIN seconds and five times the median wall time of an
 * evaluation (no workers, or the orchestrator down with nothing queued).
 *
 * Memory: four doubles per evaluation (sorted by finish time), and two
 * more while outages are found.
 */
#include "cli.h"

#include "err.h"
#include "jsonfile.h"
#include "space.h"
#include "spec.h"
#include "svg.h"

#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char plot_usage[] =
	"usage: dehbq plot STUDY -o FILE.svg\n"
	"\n"
	"Write an SVG with the incumbent loss against wall time and against\n"
	"cumulative budget, and every evaluation's loss against its finish\n"
	"time coloured by fidelity.  Outages (no trial running for more than\n"
	"10 s and five times the median evaluation) are shaded.  In a\n"
	"multi-objective study the loss is the first objective, and the\n"
	"second panel is the Pareto front of the first two objectives at the\n"
	"maximum fidelity (dominated points grey).  FILE '-' is standard\n"
	"output; a FILE is replaced atomically.\n";

#define PLOT_MAXGAPS 16 /* outages drawn, the longest */

struct ev {
	double t;    /* finished - study created, seconds */
	double t0;   /* started - study created, seconds */
	double fid;  /* fidelity */
	double loss; /* loss, NAN when not ok */
};

struct plot_ctx {
	const struct spec *spec; /* study spec */
	const char *root;	 /* study directory */
	struct ev *ev;		 /* evaluations */
	size_t n, cap;		 /* used, allocated */
	double fids[64];	 /* distinct fidelities, sorted */
	int nfid;		 /* used entries of fids */
	int oom;		 /* out of memory seen */
	struct cli_front front;	 /* a multi-objective study's front */
};

static int collect(void *arg, struct cli_row *row)
{
	struct plot_ctx *x = arg;
	struct ev *e;

	if (!row->has_result)
		return 0;
	if (x->n == x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 256;
		struct ev *v = realloc(x->ev, cap * sizeof(*v));

		if (!v) {
			x->oom = 1;
			return -1;
		}
		x->ev = v;
		x->cap = cap;
	}
	e = &x->ev[x->n++];
	e->t = row->r.finished - x->spec->created;
	e->t0 = row->r.started - x->spec->created;
	if (e->t < 0)
		e->t = 0;
	if (!(e->t0 >= 0 && e->t0 <= e->t)) /* a clock step: no interval */
		e->t0 = e->t;
	e->fid = row->t.fidelity;
	e->loss = row->r.status == RESULT_OK ? row->r.loss : NAN;
	return 0;
}

/* The evaluations' outages (svg_outages), or -1 when out of memory. */
static int outages(const struct plot_ctx *x, struct svg_gap *g, double *min)
{
	struct svg_gap *iv = malloc((x->n ? x->n : 1) * sizeof(*iv));
	size_t i;
	int n;

	if (!iv)
		return -1;
	for (i = 0; i < x->n; i++) {
		iv[i].t0 = x->ev[i].t0;
		iv[i].t1 = x->ev[i].t;
	}
	n = svg_outages(iv, x->n, g, PLOT_MAXGAPS, min);
	free(iv);
	return n;
}

static int ev_cmp(const void *a, const void *b)
{
	double x = ((const struct ev *)a)->t, y = ((const struct ev *)b)->t;

	return x < y ? -1 : x > y;
}

static const char *fid_color(const struct plot_ctx *x, double fid)
{
	int i;

	for (i = 0; i < x->nfid; i++)
		if (x->fids[i] == fid)
			return svg_palette[i % 10];
	return "#000000";
}

/* Step line of the running minimum of losses (filter: fidelity >= minf)
 * against xs[i] (NULL: time). */
static void incumbent_line(FILE *f, const struct plot_ctx *x,
			   const struct svg_axis *ax, const struct svg_axis *ay,
			   const double *xs, double minf, const char *color,
			   const char *dash)
{
	double best = INFINITY, px = 0, py = 0;
	size_t i;
	int started = 0;

	for (i = 0; i < x->n; i++) {
		const struct ev *e = &x->ev[i];
		double xv = xs ? xs[i] : e->t;

		if (isnan(e->loss) || e->fid < minf || !(e->loss < best))
			continue;
		best = e->loss;
		if (!started) {
			fprintf(f,
				"<path fill=\"none\" stroke=\"%s\" "
				"stroke-width=\"2\"%s d=\"M%.1f,%.1f",
				color, dash, svg_map(ax, xv),
				svg_map(ay, best));
			started = 1;
		} else {
			fprintf(f, " H%.1f V%.1f", svg_map(ax, xv),
				svg_map(ay, best));
		}
		px = svg_map(ax, xv);
		py = svg_map(ay, best);
	}
	if (started)
		fprintf(f,
			" H%.1f\"/>\n<circle cx=\"%.1f\" cy=\"%.1f\" "
			"r=\"3\" fill=\"%s\"/>\n",
			svg_map(ax, ax->hi), px, py, color);
}

/* top_n: ok evaluations at the maximum fidelity; none says why the
 * dashed line is missing instead of leaving an empty legend entry */
static void legend_incumbent(FILE *f, const struct svg_panel *p, size_t top_n,
			     double maxf)
{
	fprintf(f,
		"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"#1f77b4\" stroke-width=\"2\"/>"
		"<text x=\"%.1f\" y=\"%.1f\">best, any fidelity</text>\n",
		p->x1 - 170, p->y0 + 16, p->x1 - 145, p->y0 + 16, p->x1 - 140,
		p->y0 + 20);
	fprintf(f,
		"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"#d62728\" stroke-width=\"2\" "
		"stroke-dasharray=\"6,3\"/>"
		"<text x=\"%.1f\" y=\"%.1f\">best, max fidelity</text>\n",
		p->x1 - 170, p->y0 + 34, p->x1 - 145, p->y0 + 34, p->x1 - 140,
		p->y0 + 38);
	if (!top_n)
		fprintf(f,
			"<text x=\"%.1f\" y=\"%.1f\" fill=\"#d62728\">(no "
			"trial reached fidelity %g)</text>\n",
			p->x1 - 170, p->y0 + 56, maxf);
}

/* What the evaluations span. */
struct span {
	double lmin, lmax; /* losses of the ok ones */
	double tmax;	   /* the last finish time */
	size_t nok;	   /* ok evaluations */
	size_t npos;	   /* ... with a positive loss */
	size_t ntop;	   /* ... at the maximum fidelity */
};

static void span_of(const struct plot_ctx *x, struct span *sp)
{
	double maxf = x->spec->max_fidelity;
	size_t i;

	*sp = (struct span){INFINITY, -INFINITY, 0, 0, 0, 0};
	for (i = 0; i < x->n; i++) {
		const struct ev *e = &x->ev[i];

		if (e->t > sp->tmax)
			sp->tmax = e->t;
		if (isnan(e->loss))
			continue;
		sp->nok++;
		sp->npos += e->loss > 0;
		sp->ntop += e->fid >= maxf * (1 - 1e-9);
		if (e->loss < sp->lmin)
			sp->lmin = e->loss;
		if (e->loss > sp->lmax)
			sp->lmax = e->loss;
	}
}

/* The document's head and its title line. */
static void svg_head(FILE *f, const struct plot_ctx *x, const struct span *sp)
{
	char title[256];

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1000\" "
		   "height=\"800\" viewBox=\"0 0 1000 800\" "
		   "font-family=\"sans-serif\" font-size=\"12\">\n"
		   "<style>.frame{fill:none;stroke:#333}"
		   ".grid{stroke:#ddd;stroke-width:1}"
		   ".title{font-size:14px;font-weight:bold}</style>\n"
		   "<rect width=\"1000\" height=\"800\" fill=\"white\"/>\n");
	fputs("<text x=\"500\" y=\"24\" text-anchor=\"middle\" "
	      "font-size=\"16\">",
	      f);
	svg_text(f, "dehbq study ");
	cli_study_label(x->spec, x->root, title, sizeof(title));
	svg_text(f, title);
	snprintf(title, sizeof(title), " - %zu evaluations, %zu failed", x->n,
		 x->n - sp->nok);
	svg_text(f, title);
	fputs("</text>\n", f);
}

/* The outages found in the run, shaded on a time axis. */
struct outage_set {
	struct svg_gap gap[PLOT_MAXGAPS];
	int n;	    /* gaps found */
	double min; /* seconds without a running trial that count */
};

/* Panel C: every evaluation by finish time, coloured by fidelity. */
static void scatter_panel(FILE *f, const struct plot_ctx *x,
			  const struct svg_panel *pc, struct svg_axis at,
			  struct svg_axis ay, double scale, const char *unit,
			  const struct outage_set *o)
{
	char title[128];
	size_t i;

	svg_axes(f, pc, &at, &ay, scale);
	snprintf(title, sizeof(title), "finish time since creation (%s)", unit);
	svg_frame(f, pc, "all evaluations", title,
		  ay.log ? "loss (log scale)" : "loss");
	svg_outage_bands(f, o->gap, o->n, &at, pc);
	if (o->n)
		fprintf(f,
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">"
			"shaded: outage</text><text x=\"%.1f\" y=\"%.1f\" "
			"font-size=\"11\">(no trial running</text><text "
			"x=\"%.1f\" y=\"%.1f\" font-size=\"11\">for &gt; "
			"%.0f s)</text>\n",
			pc->x1 + 20, pc->y1 - 36, pc->x1 + 20, pc->y1 - 22,
			pc->x1 + 20, pc->y1 - 8, o->min);
	fputs("<g fill-opacity=\"0.7\">\n", f);
	for (i = 0; i < x->n; i++) {
		const struct ev *e = &x->ev[i];

		if (isnan(e->loss))
			continue;
		fprintf(f,
			"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" "
			"fill=\"%s\"/>\n",
			svg_map(&at, e->t), svg_map(&ay, e->loss),
			fid_color(x, e->fid));
	}
	fputs("</g>\n", f);
	fprintf(f,
		"<text x=\"%.1f\" y=\"%.1f\" class=\"title\">fidelity"
		"</text>\n",
		pc->x1 + 20, pc->y0 + 14);
	for (i = 0; i < (size_t)x->nfid && i < 30; i++) {
		char lab[40];

		jsonfile_fmt_double(lab, sizeof(lab), x->fids[i]);
		if (strlen(lab) > 10)
			snprintf(lab, sizeof(lab), "%.6g", x->fids[i]);
		fprintf(f,
			"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" "
			"fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\">%s"
			"</text>\n",
			pc->x1 + 26, pc->y0 + 34 + 20.0 * (double)i,
			svg_palette[i % 10], pc->x1 + 38,
			pc->y0 + 38 + 20.0 * (double)i, lab);
	}
}

/* Three panels: incumbent by wall time, by budget (or the front), all. */
static int write_svg(void *arg, FILE *f)
{
	struct plot_ctx *x = arg;
	struct svg_panel pa = {80, 60, 470, 340}, pb = {590, 60, 980, 340},
			 pc = {80, 420, 860, 730};
	struct svg_axis ay = {0, 0, 0, 0, 0}, at, ab, ay2;
	struct span sp;
	struct outage_set o;
	double *cum = NULL, scale = 1, maxf = x->spec->max_fidelity;
	const char *unit = "seconds";
	char title[128];
	size_t i;

	span_of(x, &sp);
	svg_head(f, x, &sp);
	if (!sp.nok) {
		fputs("<text x=\"500\" y=\"400\" text-anchor=\"middle\" "
		      "font-size=\"16\">no successful evaluations yet</text>\n"
		      "</svg>\n",
		      f);
		return CLI_OK;
	}
	if (!(cum = malloc(x->n * sizeof(*cum))) ||
	    (o.n = outages(x, o.gap, &o.min)) < 0) {
		free(cum);
		x->oom = 1;
		return cli_fail("plot", CLI_ESYS, "fatal: out of memory");
	}
	for (i = 0; i < x->n; i++)
		cum[i] = (i ? cum[i - 1] : 0) + x->ev[i].fid;
	if (sp.tmax > 2 * 3600) {
		scale = 3600;
		unit = "hours";
	} else if (sp.tmax > 180) {
		scale = 60;
		unit = "minutes";
	}
	/* loss axis, shared */
	ay.lo = sp.lmin;
	ay.hi = sp.lmax;
	ay.log = sp.npos == sp.nok && sp.lmin > 0 && sp.lmax / sp.lmin > 100;
	svg_axis_nice(&ay);
	at.lo = 0;
	at.hi = sp.tmax > 0 ? sp.tmax / scale : 1;
	at.log = 0;
	svg_axis_nice(&at);
	at.lo *= scale;
	at.hi *= scale;
	ab.lo = 0;
	ab.hi = cum[x->n - 1];
	ab.log = 0;
	svg_axis_nice(&ab);
	/* panel A: incumbent vs wall time */
	svg_axes(f, &pa, &at, &ay, scale);
	snprintf(title, sizeof(title), "wall time since creation (%s)", unit);
	svg_frame(f, &pa, "incumbent vs wall time", title,
		  ay.log ? "loss (log scale)" : "loss");
	svg_outage_bands(f, o.gap, o.n, &at, &pa);
	incumbent_line(f, x, &at, &ay, NULL, -INFINITY, "#1f77b4", "");
	incumbent_line(f, x, &at, &ay, NULL, maxf * (1 - 1e-9), "#d62728",
		       " stroke-dasharray=\"6,3\"");
	legend_incumbent(f, &pa, sp.ntop, maxf);
	ay2 = ay;
	if (x->front.m) { /* panel B: the front */
		cli_front_svg(f, &x->front, x->spec, &pb,
			      "Pareto front at the maximum fidelity");
	} else { /* panel B: incumbent vs cumulative budget */
		svg_axes(f, &pb, &ab, &ay2, 1);
		svg_frame(f, &pb, "incumbent vs cumulative budget",
			  "cumulative budget (sum of fidelities)",
			  ay.log ? "loss (log scale)" : "loss");
		incumbent_line(f, x, &ab, &ay2, cum, -INFINITY, "#1f77b4", "");
		incumbent_line(f, x, &ab, &ay2, cum, maxf * (1 - 1e-9),
			       "#d62728", " stroke-dasharray=\"6,3\"");
		legend_incumbent(f, &pb, sp.ntop, maxf);
	}
	scatter_panel(f, x, &pc, at, ay2, scale, unit, &o);
	fputs("</svg>\n", f);
	free(cum);
	return ferror(f) ? cli_fail("plot", CLI_ESYS, "fatal: write failed")
			 : CLI_OK;
}

int cli_plot(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *out = NULL;
	struct plot_ctx x;
	struct spec s;
	int c, rc;
	size_t i;

	memset(&x, 0, sizeof(x));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(plot_usage, stdout);
			return CLI_OK;
		}
		if (c == 'o') {
			out = optarg;
			continue;
		}
		return cli_usage_error("plot", plot_usage,
				       "unknown or incomplete option '%s'",
				       argv[optind - 1]);
	}
	if (optind != argc - 1 || !out || !*out) {
		return cli_usage_error("plot", plot_usage,
				       "need STUDY and -o FILE.svg");
		return CLI_EINPUT;
	}
	if ((rc = cli_open_study("plot", argv[optind], &s)))
		return rc;
	x.spec = &s;
	x.root = argv[optind];
	if (cli_scan_trials("plot", x.root, &s,
			    CLI_SCAN_ARCHIVE | CLI_SCAN_ATTEMPTS, collect,
			    &x)) {
		rc = cli_fail("plot", CLI_ESYS, "fatal: out of memory");
		goto out;
	}
	if ((rc = cli_front_load("plot", x.root, &s, 0, &x.front)))
		goto out;
	if (x.n > 1)
		qsort(x.ev, x.n, sizeof(*x.ev), ev_cmp);
	for (i = 0; i < x.n; i++) {
		int j, k;

		for (j = 0; j < x.nfid && x.fids[j] < x.ev[i].fid; j++)
			;
		if ((j < x.nfid && x.fids[j] == x.ev[i].fid) || x.nfid == 64)
			continue;
		for (k = x.nfid; k > j; k--)
			x.fids[k] = x.fids[k - 1];
		x.fids[j] = x.ev[i].fid;
		x.nfid++;
	}
	rc = cli_write_output("plot", out, write_svg, &x);
	if (!rc && strcmp(out, "-"))
		printf("wrote %s (%zu evaluations)\n", out, x.n);
out:
	cli_front_free(&x.front);
	free(x.ev);
	spec_release(&s);
	return rc;
}
