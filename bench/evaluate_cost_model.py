#!/usr/bin/env python3
"""Held-out accuracy of the cost model (issue 6): calibrate on one half of the measurements, predict the other.

Usage (development machine, no GPU):
  python3 bench/evaluate_cost_model.py [MEASUREMENTS.json ...] [--cakec PATH] [--prior machines/h200-prior.json]
        [--plot docs/cost-model-eval.svg] [--table docs/cost-model-eval.md] [--workdir DIR]

  MEASUREMENTS  cake-measurements files (bench/sweep_bench.py's measurements.json, bench/run_bench.py's,
                bench/results_to_measurements.py's); default: bench/results/measurements-*.json, oldest first.  Entries that
                name the same variant (file, kernel, compile-time values) at the same shape are measured once:
                the last file given wins.

Method
  1. Split, deterministically and stratified by kernel family (the .cake file): within a family the
     measurements are sorted by measured time and alternate between the calibration and the held-out half
     (the family's first goes to calibration in even families, to held-out in odd ones), so every family is in
     both halves and both halves span its range of run times.
  2. `cakec calibrate CALIBRATION.json --machine PRIOR -o FITTED.json` fits the machine description.
  3. Every held-out (and calibration) measurement is predicted with
     `cakec FILE --estimate --json --no-verify --arch A -D ... --shape ... --machine FITTED.json` (and with the
     prior description, for comparison).
  4. Spearman rho (average ranks for ties) and median / max |predicted / measured - 1|, overall and per family;
     also the rank correlation among variants of one family at one shape (what --sweep's ranking needs),
     over the (family, shape) groups with >= 3 held-out variants.
  5. A predicted-vs-measured plot (log-log SVG written here, no plotting library needed) and a markdown table.

The issue's bar: >= 24 variants, held-out Spearman rho >= 0.85 and median |error| <= 20%; the summary line says
whether this data meets it."""

import argparse
import glob
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BAR_VARIANTS, BAR_RHO, BAR_MEDIAN = 24, 0.85, 0.20


# =========================================================================================== data
def load_measurements(paths):
    """Merged measurements, one per (file, kernel, defines, shape); later files win."""
    merged = {}
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        if doc.get("format") != "cake-measurements":
            raise SystemExit("%s: not a cake-measurements file" % path)
        for m in doc["measurements"]:
            m = dict(m, origin=os.path.relpath(path, REPO))
            merged[key_of(m)] = m
    return list(merged.values())


def run_date(path):
    """The date of the bench run a measurements file comes from (meta.date of the bench/results file its first
    measurement's source names), so that the default inputs go oldest run first and newer runs win duplicates;
    files whose run is not in bench/results sort last."""
    try:
        with open(path) as f:
            first = (json.load(f).get("measurements") or [{}])[0]
        with open(os.path.join(REPO, "bench", "results", first.get("source", "").split("#")[0])) as f:
            return (json.load(f)["meta"]["date"], os.path.basename(path))
    except (OSError, ValueError, KeyError, IndexError):
        return ("~", os.path.basename(path))


def key_of(m):
    return (m["kernel_file"], m.get("kernel", ""), m.get("arch", ""), tuple(sorted((m.get("defines") or {}).items())),
            tuple(sorted(m["shape"].items())))


def variant_of(m):
    return key_of(m)[:4]


def family_of(m):
    return os.path.splitext(os.path.basename(m["kernel_file"]))[0]


def split(measurements):
    """(calibration, held_out): stratified by family, alternating in order of measured time."""
    calibration, held = [], []
    for index, family in enumerate(sorted({family_of(m) for m in measurements})):
        rows = sorted((m for m in measurements if family_of(m) == family), key=lambda m: (m["ms"], key_of(m)))
        for i, m in enumerate(rows):
            (calibration if (i + index) % 2 == 0 else held).append(m)
    return calibration, held


# =========================================================================================== cakec
def write_measurements(path, rows):
    strip = [{k: v for k, v in m.items() if k != "origin"} for m in rows]
    with open(path, "w") as f:
        json.dump({"format": "cake-measurements", "version": 1, "measurements": strip}, f, indent=1)


def calibrate(cakec, calibration_path, prior, fitted_path):
    run = subprocess.run([cakec, "calibrate", calibration_path, "--machine", prior, "-o", fitted_path],
                         capture_output=True, text=True, cwd=REPO)
    if run.returncode != 0:
        raise SystemExit("cakec calibrate failed:\n%s%s" % (run.stdout[-3000:], run.stderr[-3000:]))
    return run.stdout


def predict(cakec, m, machine):
    """Predicted milliseconds of one measurement, or (None, reason)."""
    command = [cakec, m["kernel_file"], "--estimate", "--json", "--no-verify", "--machine", machine,
               "--shape", ",".join("%s=%d" % kv for kv in sorted(m["shape"].items()))]
    if m.get("arch"):
        command += ["--arch", m["arch"]]
    for name, value in sorted((m.get("defines") or {}).items()):
        command += ["-D", "%s=%s" % (name, value)]
    run = subprocess.run(command, capture_output=True, text=True, cwd=REPO)
    if run.returncode != 0:
        return None, (run.stderr.strip().splitlines() or ["exit %d" % run.returncode])[0][:200]
    try:
        doc = json.loads(run.stdout)
    except ValueError:
        return None, "no JSON from --estimate"
    for k in doc.get("kernels", []):
        if not m.get("kernel") or k.get("kernel") == m["kernel"]:
            return float(k["predicted_ms"]), k.get("bottleneck", "")
    return None, "no kernel %s in the estimate" % m.get("kernel")


# =========================================================================================== statistics
def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2.0
        i = j + 1
    return out


def spearman(xs, ys):
    if len(xs) < 2:
        return float("nan")
    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


def accuracy(rows, field):
    pairs = [(r[field], r["ms"]) for r in rows if r.get(field)]
    if not pairs:
        return {"n": 0, "rho": float("nan"), "median": float("nan"), "max": float("nan")}
    errors = [abs(p / m - 1) for p, m in pairs]
    return {"n": len(pairs), "rho": spearman([p for p, _ in pairs], [m for _, m in pairs]),
            "median": statistics.median(errors), "max": max(errors)}


def within_shape(rows, field):
    """Spearman rho among the variants of one family at one shape, per group with >= 3 rows."""
    groups = {}
    for r in rows:
        if r.get(field):
            groups.setdefault((family_of(r), tuple(sorted(r["shape"].items()))), []).append(r)
    out = []
    for (family, shape), members in sorted(groups.items()):
        if len(members) >= 3:
            out.append({"family": family, "shape": shape_label(dict(shape)), "n": len(members),
                        "rho": spearman([m[field] for m in members], [m["ms"] for m in members])})
    return out


def shape_label(shape):
    return ",".join("%s=%d" % kv for kv in sorted(shape.items()))


# =========================================================================================== output
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f"]


def svg_plot(path, calibration, held, title):
    """Log-log predicted vs measured: held-out filled, calibration hollow, one colour per family, y = x and the
    +-20% band."""
    points = [(r["ms"], r["fitted_ms"]) for r in calibration + held if r.get("fitted_ms")]
    if not points:
        return
    lo = min(min(a, b) for a, b in points) / 1.5
    hi = max(max(a, b) for a, b in points) * 1.5
    w, h, left, top, size = 760, 620, 80, 50, 480
    llo, lhi = math.log10(lo), math.log10(hi)
    pos = lambda v: (math.log10(v) - llo) / (lhi - llo) * size  # noqa: E731
    X = lambda v: left + pos(v)        # noqa: E731
    Y = lambda v: top + size - pos(v)  # noqa: E731
    families = sorted({family_of(r) for r in calibration + held})
    color = {f: COLORS[i % len(COLORS)] for i, f in enumerate(families)}
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">' % (w, h),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="24" font-size="15">%s</text>' % (left, escape(title)),
           '<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#444"/>' % (left, top, size, size)]
    for e in range(math.floor(llo), math.ceil(lhi) + 1):
        for mult in (1, 2, 5):
            v = mult * 10.0 ** e
            if lo <= v <= hi:
                label = ("%g" % v) if mult == 1 else ""
                out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e4e4e4"/>' % (X(v), top, X(v), top + size))
                out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e4e4e4"/>' % (left, Y(v), left + size, Y(v)))
                if label:
                    out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (X(v), top + size + 16, label))
                    out.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>' % (left - 6, Y(v) + 4, label))
    band = " ".join("%.1f,%.1f" % (X(v), Y(min(hi, v * 1.2))) for v in (lo, hi)) + " " + \
        " ".join("%.1f,%.1f" % (X(v), Y(max(lo, v / 1.2))) for v in (hi, lo))
    out.append('<polygon points="%s" fill="#000" fill-opacity="0.06"/>' % band)
    out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#444" stroke-dasharray="4 3"/>' % (X(lo), Y(lo), X(hi), Y(hi)))
    for rows, filled in ((calibration, False), (held, True)):
        for r in rows:
            if r.get("fitted_ms"):
                c = color[family_of(r)]
                out.append('<circle cx="%.1f" cy="%.1f" r="4" fill="%s" stroke="%s" stroke-width="1.3"><title>%s</title></circle>'
                           % (X(r["ms"]), Y(r["fitted_ms"]), c if filled else "white", c,
                              escape("%s %s: measured %.4g ms, predicted %.4g ms" % (
                                  r.get("label", family_of(r)), shape_label(r["shape"]), r["ms"], r["fitted_ms"]))))
    out.append('<text x="%d" y="%d" text-anchor="middle">measured time (ms)</text>' % (left + size // 2, top + size + 36))
    out.append('<text x="20" y="%d" transform="rotate(-90 20 %d)" text-anchor="middle">predicted time (ms)</text>'
               % (top + size // 2, top + size // 2))
    ly = top + 8
    for f in families:
        out.append('<circle cx="%d" cy="%d" r="4" fill="%s"/><text x="%d" y="%d">%s</text>'
                   % (left + size + 24, ly, color[f], left + size + 34, ly + 4, escape(f)))
        ly += 18
    out.append('<circle cx="%d" cy="%d" r="4" fill="#888"/><text x="%d" y="%d">held out (filled)</text>'
               % (left + size + 24, ly + 10, left + size + 34, ly + 14))
    out.append('<circle cx="%d" cy="%d" r="4" fill="white" stroke="#888"/><text x="%d" y="%d">calibration (hollow)</text>'
               % (left + size + 24, ly + 28, left + size + 34, ly + 32))
    out.append('<text x="%d" y="%d" fill="#666">dashed: predicted = measured; band: +-20%%</text>'
               % (left + size + 24, ly + 54))
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def escape(text):
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def fmt(stats):
    return "| %d | %.3f | %.1f%% | %.0f%% |" % (stats["n"], stats["rho"], 100 * stats["median"], 100 * stats["max"])


def report(args, inputs, calibration, held, failures, variants, fit_log):
    lines = ["# Cost model: held-out accuracy", "",
             "Generated by `python3 bench/evaluate_cost_model.py %s` (prior `%s`)." % (
                 " ".join(os.path.relpath(p, REPO) for p in inputs), os.path.relpath(args.prior, REPO)), "",
             "%d measurements of %d variants (%d families); calibration half %d, held-out half %d%s." % (
                 len(calibration) + len(held), variants, len({family_of(m) for m in calibration + held}),
                 len(calibration), len(held), "; %d could not be estimated" % len(failures) if failures else ""), "",
             "| set | n | Spearman rho | median abs error | max abs error |", "|---|---|---|---|---|"]
    summary = {"held out, prior": accuracy(held, "prior_ms"), "held out, fitted": accuracy(held, "fitted_ms"),
               "calibration, fitted": accuracy(calibration, "fitted_ms")}
    for name, stats in summary.items():
        lines.append("| %s %s" % (name, fmt(stats)))
    lines += ["", "Per family, held out (fitted):", "", "| family | n | Spearman rho | median abs error | max abs error |",
              "|---|---|---|---|---|"]
    for family in sorted({family_of(m) for m in held}):
        lines.append("| %s %s" % (family, fmt(accuracy([m for m in held if family_of(m) == family], "fitted_ms"))))
    groups = within_shape(held, "fitted_ms")
    if groups:
        lines += ["", "Variant ranking at one shape (held-out variants of one family, >= 3 per group):", "",
                  "| family | shape | n | Spearman rho |", "|---|---|---|---|"]
        for g in groups:
            lines.append("| %s | %s | %d | %.3f |" % (g["family"], g["shape"], g["n"], g["rho"]))
    h = summary["held out, fitted"]
    verdict = "MEETS" if variants >= BAR_VARIANTS and h["rho"] >= BAR_RHO and h["median"] <= BAR_MEDIAN else "DOES NOT MEET"
    lines += ["", "**Acceptance bar (>= %d variants, held-out rho >= %.2f, median |error| <= %d%%): this data %s it** "
              "(%d variants, rho %.3f, median %.1f%%)." % (BAR_VARIANTS, BAR_RHO, BAR_MEDIAN * 100, verdict, variants,
                                                          h["rho"], 100 * h["median"]), ""]
    lines += ["Held-out measurements:", "", "| family | measurement | shape | measured ms | prior ms | fitted ms | error | bottleneck |",
              "|---|---|---|---|---|---|---|---|"]
    for m in sorted(held, key=lambda m: (family_of(m), m["ms"])):
        err = "-" if not m.get("fitted_ms") else "%+.1f%%" % (100 * (m["fitted_ms"] / m["ms"] - 1))
        lines.append("| %s | %s | %s | %.4g | %s | %s | %s | %s |" % (
            family_of(m), m.get("label", ""), shape_label(m["shape"]), m["ms"],
            "%.4g" % m["prior_ms"] if m.get("prior_ms") else "-", "%.4g" % m["fitted_ms"] if m.get("fitted_ms") else "-",
            err, m.get("bottleneck", "")))
    if failures:
        lines += ["", "Not estimated:", ""] + ["- %s %s: %s" % (m.get("label", ""), shape_label(m["shape"]), why)
                                               for m, why in failures]
    fitted = [l for l in fit_log.splitlines() if l.startswith(("fitted parameters", "mean squared"))]
    lines += ["", "Calibration (`cakec calibrate` on the calibration half): " + "; ".join(fitted)]
    return "\n".join(lines) + "\n", summary, verdict


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("measurements", nargs="*")
    ap.add_argument("--cakec", default=os.environ.get("CAKEC", os.path.join(REPO, "build-bench", "cakec")))
    ap.add_argument("--prior", default=os.path.join(REPO, "machines", "h200-prior.json"))
    ap.add_argument("--plot", default=os.path.join(REPO, "docs", "cost-model-eval.svg"))
    ap.add_argument("--table", default=os.path.join(REPO, "docs", "cost-model-eval.md"))
    ap.add_argument("--workdir", help="keep the halves and the fitted machine here (default: a temporary folder)")
    args = ap.parse_args(argv)
    inputs = [os.path.abspath(p) for p in args.measurements] or \
        sorted(glob.glob(os.path.join(REPO, "bench", "results", "measurements-*.json")), key=run_date)
    args.prior = os.path.abspath(args.prior)
    cakec = os.path.abspath(args.cakec)
    if not os.access(cakec, os.X_OK):
        raise SystemExit("no cakec at %s (--cakec or $CAKEC)" % cakec)
    measurements = load_measurements(inputs)
    calibration, held = split(measurements)
    work = args.workdir or tempfile.mkdtemp(prefix="cake-eval-")
    os.makedirs(work, exist_ok=True)
    calibration_path, fitted = os.path.join(work, "calibration.json"), os.path.join(work, "h200-fitted.json")
    write_measurements(calibration_path, calibration)
    write_measurements(os.path.join(work, "held_out.json"), held)
    fit_log = calibrate(cakec, calibration_path, args.prior, fitted)
    failures = []
    for m in calibration + held:
        m["prior_ms"], _ = predict(cakec, m, args.prior)
        m["fitted_ms"], why = predict(cakec, m, fitted)
        if m["fitted_ms"] is None:
            failures.append((m, why))
        else:
            m["bottleneck"] = why
    variants = len({variant_of(m) for m in measurements})
    text, summary, verdict = report(args, inputs, calibration, held, failures, variants, fit_log)
    os.makedirs(os.path.dirname(os.path.abspath(args.table)), exist_ok=True)
    with open(args.table, "w") as f:
        f.write(text)
    h = summary["held out, fitted"]
    svg_plot(args.plot, calibration, held, "cakec --estimate vs H200: %d held out, rho %.3f, median |err| %.1f%%"
             % (h["n"], h["rho"], 100 * h["median"]))
    for name, stats in summary.items():
        print("%-22s n=%3d  rho=%.3f  median |err|=%5.1f%%  max |err|=%5.0f%%" % (
            name, stats["n"], stats["rho"], 100 * stats["median"], 100 * stats["max"]))
    for family in sorted({family_of(m) for m in held}):
        s = accuracy([m for m in held if family_of(m) == family], "fitted_ms")
        print("  held out %-24s n=%3d  rho=%.3f  median |err|=%5.1f%%" % (family, s["n"], s["rho"], 100 * s["median"]))
    for g in within_shape(held, "fitted_ms"):
        print("  ranking %-24s %-22s n=%2d rho=%.3f" % (g["family"], g["shape"], g["n"], g["rho"]))
    print("issue 6 bar: %s (%d variants)" % (verdict, variants))
    print("wrote %s, %s (halves and fitted machine in %s)" % (os.path.relpath(args.table, REPO),
                                                              os.path.relpath(args.plot, REPO), work))
    return 0


if __name__ == "__main__":
    sys.exit(main())
