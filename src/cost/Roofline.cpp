// The roofline picture (see Roofline.h): axes from the points and ceilings, then ceilings, points and the
// rank table, as SVG text.
#include "cost/Roofline.h"
#include "cost/Report.h"
#include "cost/SvgText.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace cake::cost {

using svg::escape;
using svg::num;
using svg::si;

namespace {

// Plot area and picture size, in SVG user units.
constexpr double kPlotLeft = 110, kPlotTop = 56, kPlotWidth = 560, kPlotHeight = 420;
constexpr double kTableLeft = 720, kRowHeight = 16;

std::string decadeLabel(int k) {   // 10^k as an intensity: "0.01", "1", "1000", "1e+06"
  char buf[32];
  if (k >= -3 && k <= 4)
    std::snprintf(buf, sizeof buf, "%.*f", k < 0 ? -k : 0, std::pow(10.0, k));
  else
    std::snprintf(buf, sizeof buf, "1e%+d", k);
  return buf;
}

const char *bottleneckColour(const std::string &b) {
  if (b == "hbm" || b == "l2" || b == "mlp") return "#1f77b4";   // memory
  if (b == "tensor") return "#d62728";
  if (b == "fp32" || b == "sfu") return "#2ca02c";
  return "#7f7f7f";   // issue, shared, latency
}

double flopsOf(const Estimate &e) { return e.profile.tensorFlops() + e.profile.count(Count::Fp32Flops); }
double dramBytesOf(const Estimate &e) { return e.hbm.readBytes + e.hbm.writeBytes; }

struct Ceiling {
  std::string label;
  double value;   // bytes/s for a roof, FLOP/s for a peak
};

} // namespace

std::string renderRooflineSvg(const Machine &m, const std::vector<RooflinePoint> &points, const std::string &title) {
  // 1. Ceilings at peak.
  std::vector<Ceiling> roofs, peaks;
  if (m.hbmBytesPerSec > 0) roofs.push_back({"HBM " + si(m.hbmBytesPerSec, "B/s"), m.hbmBytesPerSec});
  if (m.l2BytesPerSec > 0) roofs.push_back({"L2 " + si(m.l2BytesPerSec, "B/s"), m.l2BytesPerSec});
  double sms = static_cast<double>(m.sms), f = m.clockHz();
  if (m.tensorFlopsPerClkPerSm > 0) {
    double p = m.tensorFlopsPerClkPerSm * sms * f;
    peaks.push_back({"tensor core (16-bit) " + si(p, "FLOP/s"), p});
  }
  if (m.fp32LanesPerClkPerSm > 0) {
    double p = 2 * m.fp32LanesPerClkPerSm * sms * f;
    peaks.push_back({"FP32 " + si(p, "FLOP/s"), p});
  }
  double topPeak = 0;
  for (const Ceiling &p : peaks) topPeak = std::max(topPeak, p.value);

  // 2. Which points can be drawn (log axes need FLOPs and DRAM bytes), and the decades that hold them and
  //    the ridge points.
  struct Drawn {
    size_t rank;
    const RooflinePoint *point;
    double intensity, rate;
  };
  std::vector<Drawn> drawn;
  std::vector<size_t> notDrawn;
  for (size_t i = 0; i < points.size(); ++i) {
    const Estimate &e = *points[i].estimate;
    double flops = flopsOf(e), bytes = dramBytesOf(e);
    if (flops > 0 && bytes > 0 && e.seconds > 0)
      drawn.push_back({i + 1, &points[i], flops / bytes, flops / e.seconds});
    else
      notDrawn.push_back(i);
  }
  double xMin = HUGE_VAL, xMax = 0, yMin = HUGE_VAL, yMax = 0;
  auto spanX = [&](double v) {
    if (v > 0) {
      xMin = std::min(xMin, v);
      xMax = std::max(xMax, v);
    }
  };
  auto spanY = [&](double v) {
    if (v > 0) {
      yMin = std::min(yMin, v);
      yMax = std::max(yMax, v);
    }
  };
  for (const Drawn &d : drawn) {
    spanX(d.intensity);
    spanY(d.rate);
  }
  for (const Ceiling &r : roofs)
    for (const Ceiling &p : peaks) spanX(p.value / r.value);
  for (const Ceiling &p : peaks) spanY(p.value);
  if (xMax == 0) {
    xMin = 1;
    xMax = 100;
  }
  if (yMax == 0) {
    yMin = 1e9;
    yMax = 1e12;
  }
  int x0 = static_cast<int>(std::floor(std::log10(xMin))), x1 = static_cast<int>(std::ceil(std::log10(xMax * 3)));
  int y1 = static_cast<int>(std::ceil(std::log10(yMax * 1.5)));
  int y0 = static_cast<int>(std::floor(std::log10(yMin)));
  if (!roofs.empty())
    y0 = std::min(y0, static_cast<int>(std::floor(std::log10(roofs.front().value * std::pow(10.0, x0)))));
  y0 = std::max(y0, y1 - 8);   // at most 8 decades: a slow point would squash the rest
  if (x1 <= x0) x1 = x0 + 1;
  if (y1 <= y0) y1 = y0 + 1;
  auto px = [&](double intensity) { return kPlotLeft + (std::log10(intensity) - x0) / (x1 - x0) * kPlotWidth; };
  auto py = [&](double rate) { return kPlotTop + kPlotHeight - (std::log10(rate) - y0) / (y1 - y0) * kPlotHeight; };

  size_t tableRows = points.size() + (notDrawn.empty() ? 0 : 2 + notDrawn.size());
  double height =
      std::max(kPlotTop + kPlotHeight + 90, kPlotTop + 40 + kRowHeight * static_cast<double>(tableRows + 1));
  double width = 1200;

  std::ostringstream os;
  os << svg::open(width, height, "roofline: " + title) << "<defs><clipPath id=\"plot\"><rect x=\"" << num(kPlotLeft)
     << "\" y=\"" << num(kPlotTop) << "\" width=\"" << num(kPlotWidth) << "\" height=\"" << num(kPlotHeight)
     << "\"/></clipPath></defs>\n"
     << "<text class=\"heading\" x=\"" << num(kPlotLeft) << "\" y=\"22\" font-size=\"14\" font-weight=\"bold\">"
     << escape(title) << "</text>\n"
     << "<text class=\"note\" x=\"" << num(kPlotLeft) << "\" y=\"40\" fill=\"#555\">predicted by the cost model, "
     << "not measured; ceilings at peak from machine '" << escape(m.name) << "'</text>\n";

  // 3. Grid, ticks and axis labels.
  os << "<g class=\"grid\" stroke=\"#ddd\" stroke-width=\"1\">\n";
  for (int k = x0; k <= x1; ++k) {
    double x = px(std::pow(10.0, k));
    os << "<line x1=\"" << num(x) << "\" y1=\"" << num(kPlotTop) << "\" x2=\"" << num(x) << "\" y2=\""
       << num(kPlotTop + kPlotHeight) << "\"/>\n";
  }
  for (int k = y0; k <= y1; ++k) {
    double y = py(std::pow(10.0, k));
    os << "<line x1=\"" << num(kPlotLeft) << "\" y1=\"" << num(y) << "\" x2=\"" << num(kPlotLeft + kPlotWidth)
       << "\" y2=\"" << num(y) << "\"/>\n";
  }
  os << "</g>\n<rect x=\"" << num(kPlotLeft) << "\" y=\"" << num(kPlotTop) << "\" width=\"" << num(kPlotWidth)
     << "\" height=\"" << num(kPlotHeight) << "\" fill=\"none\" stroke=\"#333\"/>\n";
  os << "<g class=\"ticks\" fill=\"#333\">\n";
  for (int k = x0; k <= x1; ++k)
    os << "<text x=\"" << num(px(std::pow(10.0, k))) << "\" y=\"" << num(kPlotTop + kPlotHeight + 16)
       << "\" text-anchor=\"middle\">" << decadeLabel(k) << "</text>\n";
  for (int k = y0; k <= y1; ++k)
    os << "<text x=\"" << num(kPlotLeft - 6) << "\" y=\"" << num(py(std::pow(10.0, k)) + 4) << "\" text-anchor=\"end\">"
       << si(std::pow(10.0, k), "FLOP/s") << "</text>\n";
  os << "</g>\n";
  os << "<text class=\"axis-label\" x=\"" << num(kPlotLeft + kPlotWidth / 2) << "\" y=\""
     << num(kPlotTop + kPlotHeight + 38)
     << "\" text-anchor=\"middle\">arithmetic intensity (FLOP per DRAM byte)</text>\n";
  os << "<text class=\"axis-label\" transform=\"translate(16," << num(kPlotTop + kPlotHeight / 2)
     << ") rotate(-90)\" text-anchor=\"middle\">achieved FLOP/s (predicted time)</text>\n";

  // 4. Ceilings: each bandwidth roof rises until it meets the highest peak; each peak runs flat from its
  //    ridge with the HBM roof to the right edge.
  double xLo = std::pow(10.0, x0), xHi = std::pow(10.0, x1), yLo = std::pow(10.0, y0);
  os << "<g class=\"ceilings\" clip-path=\"url(#plot)\" fill=\"none\" stroke-width=\"2\">\n";
  double slopeDeg = -std::atan((kPlotHeight / (y1 - y0)) / (kPlotWidth / (x1 - x0))) * 180 / 3.14159265358979;
  std::ostringstream labels;
  for (size_t i = 0; i < roofs.size(); ++i) {
    const Ceiling &r = roofs[i];
    double from = std::max(xLo, yLo / r.value);
    double to = topPeak > 0 ? std::min(xHi, topPeak / r.value) : xHi;
    const char *colour = i == 0 ? "#1f77b4" : "#9467bd";
    os << "<line class=\"roof\" x1=\"" << num(px(from)) << "\" y1=\"" << num(py(from * r.value)) << "\" x2=\""
       << num(px(to)) << "\" y2=\"" << num(py(to * r.value)) << "\" stroke=\"" << colour << "\""
       << (i == 0 ? "" : " stroke-dasharray=\"6 4\"") << "/>\n";
    double at = std::pow(10.0, x0 + 0.15 * (x1 - x0));   // label near the left end, above the line
    at = std::max(at, from * 1.2);
    labels << "<text class=\"ceiling-label\" fill=\"" << colour << "\" transform=\"translate(" << num(px(at)) << ','
           << num(py(at * r.value) - 6) << ") rotate(" << num(slopeDeg) << ")\">" << escape(r.label) << "</text>\n";
  }
  for (size_t i = 0; i < peaks.size(); ++i) {
    const Ceiling &p = peaks[i];
    double from = roofs.empty() ? xLo : std::max(xLo, p.value / roofs.front().value);
    const char *colour = i == 0 ? "#d62728" : "#2ca02c";
    os << "<line class=\"peak\" x1=\"" << num(px(from)) << "\" y1=\"" << num(py(p.value)) << "\" x2=\""
       << num(kPlotLeft + kPlotWidth) << "\" y2=\"" << num(py(p.value)) << "\" stroke=\"" << colour << "\"/>\n";
    labels << "<text class=\"ceiling-label\" fill=\"" << colour << "\" x=\"" << num(kPlotLeft + kPlotWidth - 4)
           << "\" y=\"" << num(py(p.value) - 6) << "\" text-anchor=\"end\">" << escape(p.label) << "</text>\n";
  }
  os << "</g>\n<g class=\"ceiling-labels\" font-size=\"11\">\n" << labels.str() << "</g>\n";

  // 5. Points, the slowest first, so the fastest are drawn on top.  Each is numbered by its rank; points
  //    at the same spot (variants with equal predictions) share one label, "1,2".
  struct SpotLabel {
    std::string x, y, ranks;
  };
  std::vector<SpotLabel> spotLabels;   // in rank order
  for (const Drawn &d : drawn) {
    std::string x = num(px(d.intensity) + 6), y = num(py(d.rate) - 5);
    auto it =
        std::find_if(spotLabels.begin(), spotLabels.end(), [&](const SpotLabel &s) { return s.x == x && s.y == y; });
    if (it == spotLabels.end())
      spotLabels.push_back({x, y, std::to_string(d.rank)});
    else
      it->ranks += "," + std::to_string(d.rank);
  }
  os << "<g class=\"points\">\n";
  for (auto d = drawn.rbegin(); d != drawn.rend(); ++d) {
    const Estimate &e = *d->point->estimate;
    os << "<circle class=\"point\" cx=\"" << num(px(d->intensity)) << "\" cy=\"" << num(py(d->rate))
       << "\" r=\"4\" fill=\"" << bottleneckColour(e.bottleneck) << "\" stroke=\"black\" stroke-width=\"0.5\"><title>"
       << d->rank << ": " << escape(d->point->label) << " - " << formatSeconds(e.seconds) << ", "
       << si(d->rate, "FLOP/s") << ", " << si(d->intensity, "FLOP/B") << ", bottleneck " << escape(e.bottleneck)
       << "</title></circle>\n";
  }
  for (const SpotLabel &s : spotLabels)
    os << "<text class=\"point-label\" x=\"" << s.x << "\" y=\"" << s.y << "\" font-size=\"10\">" << s.ranks
       << "</text>\n";
  os << "</g>\n";

  // 6. The rank table.
  os << "<g class=\"table\" font-size=\"11\">\n";
  double rowY = kPlotTop + 8;
  auto row = [&](const std::string &cls, const std::string &cells) {
    os << "<text class=\"" << cls << "\" x=\"" << num(kTableLeft) << "\" y=\"" << num(rowY) << "\">" << cells
       << "</text>\n";
    rowY += kRowHeight;
  };
  auto cell = [](double dx, const std::string &text) {
    return "<tspan x=\"" + num(kTableLeft + dx) + "\">" + text + "</tspan>";
  };
  row("table-head", cell(0, "#") + cell(28, "predicted") + cell(98, "FLOP/s") + cell(178, "FLOP/B") +
                        cell(238, "bottleneck") + cell(310, "variant"));
  for (const Drawn &d : drawn) {
    const Estimate &e = *d.point->estimate;
    row("table-row", cell(0, std::to_string(d.rank)) + cell(28, formatSeconds(e.seconds)) + cell(98, si(d.rate, "")) +
                         cell(178, si(d.intensity, "")) + cell(238, escape(e.bottleneck)) +
                         cell(310, escape(d.point->label)));
  }
  if (!notDrawn.empty()) {
    rowY += kRowHeight;
    row("table-head", "not drawn (no FLOPs or no DRAM bytes):");
    for (size_t i : notDrawn)
      row("not-drawn", cell(0, std::to_string(i + 1)) + cell(28, formatSeconds(points[i].estimate->seconds)) +
                           cell(310, escape(points[i].label)));
  }
  os << "</g>\n</svg>\n";
  return os.str();
}

} // namespace cake::cost
