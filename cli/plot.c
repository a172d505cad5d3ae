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
	"10 s and five times the median evaluation) are shaded.  FILE '-' is\n"
	"standard output; a FILE is replaced atomically.\n";

#define PLOT_OUTAGE_MIN 10.0 /* seconds: shorter gaps are not outages */
#define PLOT_MAXGAPS	16   /* outages drawn, the longest */

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

static int ev_cmp(const void *a, const void *b)
{
	double x = ((const struct ev *)a)->t, y = ((const struct ev *)b)->t;

	return x < y ? -1 : x > y;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct gap {
	double t0, t1; /* seconds since creation */
};

static int start_cmp(const void *a, const void *b)
{
	double x = ((const struct gap *)a)->t0, y = ((const struct gap *)b)->t0;

	return x < y ? -1 : x > y;
}

static int gap_cmp(const void *a, const void *b)
{
	double x = ((const struct gap *)a)->t1 - ((const struct gap *)a)->t0,
	       y = ((const struct gap *)b)->t1 - ((const struct gap *)b)->t0;

	return x > y ? -1 : x < y; /* longest first */
}

/*
 * The outages (see the top) into g[cap], longest first; their number, or
 * -1 when out of memory.  *min gets the threshold used.
 */
static int outages(const struct plot_ctx *x, struct gap *g, int cap,
		   double *min)
{
	struct gap *iv = x->n ? malloc(x->n * sizeof(*iv)) : NULL;
	double *w = x->n ? malloc(x->n * sizeof(*w)) : NULL, end;
	size_t i;
	int n = 0;

	*min = PLOT_OUTAGE_MIN;
	if (!x->n || !iv || !w) {
		free(iv);
		free(w);
		return x->n ? -1 : 0;
	}
	for (i = 0; i < x->n; i++) {
		iv[i].t0 = x->ev[i].t0;
		iv[i].t1 = x->ev[i].t;
		w[i] = x->ev[i].t - x->ev[i].t0;
	}
	qsort(w, x->n, sizeof(*w), dbl_cmp);
	if (5 * w[x->n / 2] > *min)
		*min = 5 * w[x->n / 2];
	qsort(iv, x->n, sizeof(*iv), start_cmp);
	for (end = iv[0].t1, i = 1; i < x->n; i++) {
		if (iv[i].t0 - end > *min) {
			struct gap o = {end, iv[i].t0};

			if (n < cap)
				g[n++] = o;
			else if (o.t1 - o.t0 > g[cap - 1].t1 - g[cap - 1].t0)
				g[cap - 1] = o;
			qsort(g, (size_t)n, sizeof(*g), gap_cmp);
		}
		if (iv[i].t1 > end)
			end = iv[i].t1;
	}
	free(iv);
	free(w);
	return n;
}

/* An axis: data range -> pixel range, linear or log10. */
struct axis {
	double lo, hi; /* data range */
	double p0, p1; /* pixels for lo and hi */
	int log;       /* log10 scale */
};

static double map(const struct axis *a, double v)
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

/* Widen a linear axis to nice tick multiples. */
static void axis_nice(struct axis *a)
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

/* Ticks, grid lines and labels; vertical = the y axis. */
static void axis_draw(FILE *f, const struct axis *a, int vertical,
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
		double p = map(a, v);

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

static void xml_text(FILE *f, const char *s)
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

static const char *const palette[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};

static const char *fid_color(const struct plot_ctx *x, double fid)
{
	int i;

	for (i = 0; i < x->nfid; i++)
		if (x->fids[i] == fid)
			return palette[i % 10];
	return "#000000";
}

struct panel {
	double x0, y0, x1, y1; /* plot area in pixels */
};

static void frame(FILE *f, const struct panel *p, const char *title,
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

/* Shade the outages g[n] in a time panel, each with its length. */
static void outage_bands(FILE *f, const struct gap *g, int n,
			 const struct axis *at, const struct panel *p)
{
	int i;

	for (i = 0; i < n; i++) {
		double a = map(at, g[i].t0), b = map(at, g[i].t1);

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

/* Step line of the running minimum of losses (filter: fidelity >= minf)
 * against xs[i] (NULL: time). */
static void incumbent_line(FILE *f, const struct plot_ctx *x,
			   const struct axis *ax, const struct axis *ay,
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
				color, dash, map(ax, xv), map(ay, best));
			started = 1;
		} else {
			fprintf(f, " H%.1f V%.1f", map(ax, xv), map(ay, best));
		}
		px = map(ax, xv);
		py = map(ay, best);
	}
	if (started)
		fprintf(f,
			" H%.1f\"/>\n<circle cx=\"%.1f\" cy=\"%.1f\" "
			"r=\"3\" fill=\"%s\"/>\n",
			map(ax, ax->hi), px, py, color);
}

/* top_n: ok evaluations at the maximum fidelity; none says why the
 * dashed line is missing instead of leaving an empty legend entry */
static void legend_incumbent(FILE *f, const struct panel *p, size_t top_n,
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

/* The study directory's last component: a name people gave, not a UUID. */
static const char *study_label(const char *root)
{
	static char buf[256];
	size_t n = strlen(root);
	const char *b;

	while (n > 1 && root[n - 1] == '/')
		n--;
	for (b = root + n; b > root && b[-1] != '/'; b--)
		;
	snprintf(buf, sizeof(buf), "%.*s", (int)(root + n - b), b);
	return buf;
}

static int write_svg(void *arg, FILE *f)
{
	struct plot_ctx *x = arg;
	struct panel pa = {80, 60, 470, 340}, pb = {590, 60, 980, 340},
		     pc = {80, 420, 860, 730};
	struct axis ay = {0, 0, 0, 0, 0}, at, ab, ay2, at2;
	double *cum = NULL, lmin = INFINITY, lmax = -INFINITY, tmax = 0;
	double scale = 1, maxf = x->spec->max_fidelity;
	const char *unit = "seconds";
	size_t i, nok = 0, npos = 0, ntop = 0;
	struct gap gaps[PLOT_MAXGAPS];
	double gapmin;
	int ngaps;
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
	xml_text(f, "dehbq study ");
	xml_text(f, x->spec->name[0] ? x->spec->name : study_label(x->root));
	for (i = 0; i < x->n; i++) {
		const struct ev *e = &x->ev[i];

		if (e->t > tmax)
			tmax = e->t;
		if (isnan(e->loss))
			continue;
		nok++;
		npos += e->loss > 0;
		ntop += e->fid >= maxf * (1 - 1e-9);
		if (e->loss < lmin)
			lmin = e->loss;
		if (e->loss > lmax)
			lmax = e->loss;
	}
	snprintf(title, sizeof(title), " - %zu evaluations, %zu failed", x->n,
		 x->n - nok);
	xml_text(f, title);
	fputs("</text>\n", f);
	if (!nok) {
		fputs("<text x=\"500\" y=\"400\" text-anchor=\"middle\" "
		      "font-size=\"16\">no successful evaluations yet</text>\n"
		      "</svg>\n",
		      f);
		return CLI_OK;
	}
	if (!(cum = malloc(x->n * sizeof(*cum)))) {
		x->oom = 1;
		return cli_fail("plot", CLI_ESYS, "fatal: out of memory");
	}
	for (i = 0; i < x->n; i++)
		cum[i] = (i ? cum[i - 1] : 0) + x->ev[i].fid;
	if ((ngaps = outages(x, gaps, PLOT_MAXGAPS, &gapmin)) < 0) {
		free(cum);
		x->oom = 1;
		return cli_fail("plot", CLI_ESYS, "fatal: out of memory");
	}
	if (tmax > 2 * 3600) {
		scale = 3600;
		unit = "hours";
	} else if (tmax > 180) {
		scale = 60;
		unit = "minutes";
	}
	/* loss axis, shared */
	ay.lo = lmin;
	ay.hi = lmax;
	ay.log = npos == nok && lmin > 0 && lmax / lmin > 100;
	axis_nice(&ay);
	at.lo = 0;
	at.hi = tmax > 0 ? tmax / scale : 1;
	at.log = 0;
	axis_nice(&at);
	at.lo *= scale;
	at.hi *= scale;
	ab.lo = 0;
	ab.hi = cum[x->n - 1];
	ab.log = 0;
	axis_nice(&ab);
	/* panel A: incumbent vs wall time */
	ay.p0 = pa.y1;
	ay.p1 = pa.y0;
	at.p0 = pa.x0;
	at.p1 = pa.x1;
	axis_draw(f, &ay, 1, pa.x0, pa.x1, 1);
	axis_draw(f, &at, 0, pa.y1, pa.y0, scale);
	snprintf(title, sizeof(title), "wall time since creation (%s)", unit);
	frame(f, &pa, "incumbent vs wall time", title,
	      ay.log ? "loss (log scale)" : "loss");
	outage_bands(f, gaps, ngaps, &at, &pa);
	incumbent_line(f, x, &at, &ay, NULL, -INFINITY, "#1f77b4", "");
	incumbent_line(f, x, &at, &ay, NULL, maxf * (1 - 1e-9), "#d62728",
		       " stroke-dasharray=\"6,3\"");
	legend_incumbent(f, &pa, ntop, maxf);
	/* panel B: incumbent vs cumulative budget */
	ay2 = ay;
	ay2.p0 = pb.y1;
	ay2.p1 = pb.y0;
	ab.p0 = pb.x0;
	ab.p1 = pb.x1;
	axis_draw(f, &ay2, 1, pb.x0, pb.x1, 1);
	axis_draw(f, &ab, 0, pb.y1, pb.y0, 1);
	frame(f, &pb, "incumbent vs cumulative budget",
	      "cumulative budget (sum of fidelities)",
	      ay.log ? "loss (log scale)" : "loss");
	incumbent_line(f, x, &ab, &ay2, cum, -INFINITY, "#1f77b4", "");
	incumbent_line(f, x, &ab, &ay2, cum, maxf * (1 - 1e-9), "#d62728",
		       " stroke-dasharray=\"6,3\"");
	legend_incumbent(f, &pb, ntop, maxf);
	/* panel C: scatter */
	ay2.p0 = pc.y1;
	ay2.p1 = pc.y0;
	at2 = at;
	at2.p0 = pc.x0;
	at2.p1 = pc.x1;
	axis_draw(f, &ay2, 1, pc.x0, pc.x1, 1);
	axis_draw(f, &at2, 0, pc.y1, pc.y0, scale);
	snprintf(title, sizeof(title), "finish time since creation (%s)", unit);
	frame(f, &pc, "all evaluations", title,
	      ay.log ? "loss (log scale)" : "loss");
	outage_bands(f, gaps, ngaps, &at2, &pc);
	if (ngaps)
		fprintf(f,
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">"
			"shaded: outage</text><text x=\"%.1f\" y=\"%.1f\" "
			"font-size=\"11\">(no trial running</text><text "
			"x=\"%.1f\" y=\"%.1f\" font-size=\"11\">for &gt; "
			"%.0f s)</text>\n",
			pc.x1 + 20, pc.y1 - 36, pc.x1 + 20, pc.y1 - 22,
			pc.x1 + 20, pc.y1 - 8, gapmin);
	fputs("<g fill-opacity=\"0.7\">\n", f);
	for (i = 0; i < x->n; i++) {
		const struct ev *e = &x->ev[i];

		if (isnan(e->loss))
			continue;
		fprintf(f,
			"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" "
			"fill=\"%s\"/>\n",
			map(&at2, e->t), map(&ay2, e->loss),
			fid_color(x, e->fid));
	}
	fputs("</g>\n", f);
	fprintf(f,
		"<text x=\"%.1f\" y=\"%.1f\" class=\"title\">fidelity"
		"</text>\n",
		pc.x1 + 20, pc.y0 + 14);
	for (i = 0; i < (size_t)x->nfid && i < 30; i++) {
		char lab[40];

		jsonfile_fmt_double(lab, sizeof(lab), x->fids[i]);
		if (strlen(lab) > 10)
			snprintf(lab, sizeof(lab), "%.6g", x->fids[i]);
		fprintf(f,
			"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" "
			"fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\">%s"
			"</text>\n",
			pc.x1 + 26, pc.y0 + 34 + 20.0 * (double)i,
			palette[i % 10], pc.x1 + 38,
			pc.y0 + 38 + 20.0 * (double)i, lab);
	}
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
	free(x.ev);
	spec_release(&s);
	return rc;
}
