#!/usr/bin/env python3
"""svgplot.py - regret trajectories as SVG line plots, no plotting library

Reads quality_traj.csv (problem,optimizer,budget,mean_regret,std_regret)
and writes one SVG per problem: mean regret against budget spent (in
maximum-fidelity evaluations), one line per optimiser, both axes log.

Usage: svgplot.py TRAJ.CSV OUTDIR
"""
import csv
import math
import os
import sys

COLORS = {"dehb": "#d62728", "random": "#7f7f7f", "hyperband": "#1f77b4",
          "de": "#2ca02c", "sh": "#17becf", "asha": "#9467bd",
          "re": "#ff7f0e"}
W, H, L, R, T, B = 640, 420, 70, 130, 30, 50


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;")


def plot(problem, series, path):
    xs = [x for pts in series.values() for x, _ in pts]
    ys = [y for pts in series.values() for _, y in pts if y > 0]
    if not xs or not ys:
        return
    x0, x1 = math.log10(min(xs)), math.log10(max(xs))
    y0, y1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
    if x1 <= x0:
        x1 = x0 + 1
    if y1 <= y0:
        y1 = y0 + 1

    def px(x):
        return L + (math.log10(x) - x0) / (x1 - x0) * (W - L - R)

    def py(y):
        return T + (y1 - math.log10(max(y, 10 ** y0))) / (y1 - y0) * (H - T - B)

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (W, H),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="18" font-size="14">%s: mean regret vs budget</text>'
           % (L, esc(problem))]
    for e in range(int(y0), int(y1) + 1):
        y = py(10 ** e)
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>'
                   % (L, y, W - R, y))
        out.append('<text x="%d" y="%.1f" text-anchor="end">1e%d</text>'
                   % (L - 5, y + 4, e))
    for e in range(int(math.floor(x0)), int(math.ceil(x1)) + 1):
        if e < x0 - 1e-9 or e > x1 + 1e-9:
            continue
        x = px(10 ** e)
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>'
                   % (x, T, x, H - B))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%g</text>'
                   % (x, H - B + 16, 10 ** e))
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" '
               'stroke="black"/>' % (L, T, W - L - R, H - T - B))
    out.append('<text x="%d" y="%d" text-anchor="middle">budget '
               '(max-fidelity evaluations, log)</text>'
               % ((L + W - R) // 2, H - 12))
    out.append('<text x="16" y="%d" transform="rotate(-90 16 %d)" '
               'text-anchor="middle">regret (log)</text>'
               % ((T + H - B) // 2, (T + H - B) // 2))
    for i, (name, pts) in enumerate(sorted(series.items())):
        c = COLORS.get(name, "black")
        d = " ".join("%.1f,%.1f" % (px(x), py(y)) for x, y in pts
                     if not math.isnan(y))
        out.append('<polyline fill="none" stroke="%s" stroke-width="2" '
                   'points="%s"/>' % (c, d))
        ly = T + 10 + 18 * i
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" '
                   'stroke-width="2"/>' % (W - R + 10, ly, W - R + 30, ly, c))
        out.append('<text x="%d" y="%d">%s</text>'
                   % (W - R + 35, ly + 4, esc(name)))
    out.append("</svg>")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(out) + "\n")
    os.replace(tmp, path)


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: svgplot.py TRAJ.CSV OUTDIR\n")
        return 100
    data = {}
    with open(sys.argv[1]) as f:
        for row in csv.DictReader(f):
            data.setdefault(row["problem"], {}).setdefault(
                row["optimizer"], []).append(
                (float(row["budget"]), float(row["mean_regret"])))
    for problem, series in data.items():
        plot(problem, series,
             os.path.join(sys.argv[2], "quality_%s.svg" % problem))
    return 0


if __name__ == "__main__":
    sys.exit(main())
