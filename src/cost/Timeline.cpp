// The timeline picture (see Timeline.h): phases per role from the model's resource times and per-role
// counts, drawn as boxes on one lane per role.
#include "cost/Timeline.h"
#include "cost/Report.h"
#include "cost/SvgText.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace cake::cost {

using svg::escape;
using svg::num;

namespace {

constexpr double kLaneLeft = 170, kLaneWidth = 760, kLaneHeight = 26, kLaneGap = 8;
constexpr int kMaxIterationsDrawn = 4;

struct Phase {
  const char *kind;   // load, shared, tensor, fp32, other, wait, epilogue
  double seconds;
};

const char *phaseColour(const std::string &kind) {
  if (kind == "load") return "#1f77b4";
  if (kind == "tensor") return "#d62728";
  if (kind == "other") return "#9e9e9e";
  if (kind == "shared") return "#9467bd";
  if (kind == "fp32") return "#ff7f0e";
  if (kind == "epilogue") return "#2ca02c";
  return "#f1f1f1";   // wait
}

double resourceSeconds(const Estimate &e, const char *name) {
  for (const ResourceTime &r : e.resources)
    if (r.name == name) return r.seconds;
  return 0;
}

double share(double part, double whole) { return whole > 0 ? part / whole : 0; }

struct RoleLane {
  std::string name;
  std::vector<Phase> iteration;   // one iteration's phases, in drawing order (durations sum to tau)
  double epilogue = 0;
};

struct KernelTimeline {
  const Estimate *estimate = nullptr;
  double tau = 0;           // one iteration
  int64_t iterations = 1;   // per block
  int drawnIterations = 1;
  std::vector<RoleLane> lanes;
};

KernelTimeline layOut(const Estimate &e, const Machine &m) {
  KernelTimeline t;
  t.estimate = &e;
  const WorkProfile &p = e.profile;
  double waits = p.chainAsyncWaits * static_cast<double>(std::max<int64_t>(1, p.pipelineDepth));
  double k = waits >= 1 ? waits : p.chainSyncLoadRounds;
  t.iterations = std::max<int64_t>(1, std::llround(k));
  t.drawnIterations = static_cast<int>(std::min<int64_t>(t.iterations, kMaxIterationsDrawn));
  double perSm =
      std::ceil(static_cast<double>(std::max<int64_t>(1, p.blocks)) / static_cast<double>(std::max<int64_t>(1, m.sms)));
  double slots = std::ceil(perSm / static_cast<double>(std::max<int64_t>(1, e.occupancy.blocksPerSm)));

  double hbm = resourceSeconds(e, "hbm"), l2 = resourceSeconds(e, "l2");
  double hbmBytes = e.hbm.readBytes + e.hbm.writeBytes;
  double writeTime = hbm * share(e.hbm.writeBytes, hbmBytes);
  double loadTime = std::max(hbm - writeTime, l2);
  double tensorTime = resourceSeconds(e, "tensor"), issueTime = resourceSeconds(e, "issue");
  double sharedTime = resourceSeconds(e, "shared");
  double fp32Time = resourceSeconds(e, "fp32"), sfuTime = resourceSeconds(e, "sfu");

  auto loaded = [](const Counts &c) {
    return c[size_t(Count::SimtLoadBytes)] + c[size_t(Count::CpAsyncBytes)] + c[size_t(Count::TmaLoadBytes)];
  };
  auto stored = [](const Counts &c) { return c[size_t(Count::SimtStoreBytes)] + c[size_t(Count::TmaStoreBytes)]; };
  auto tensor = [](const Counts &c) { return c[size_t(Count::MmaSyncFlops)] + c[size_t(Count::WgmmaFlops)]; };
  double allLoaded = loaded(p.totals), allStored = stored(p.totals), allTensor = tensor(p.totals);
  double allInstr = p.count(Count::WarpInstructions);
  double allShared = p.count(Count::SharedWavefronts);
  double allFp32 = p.count(Count::Fp32LaneOps), allSfu = p.count(Count::SfuLaneOps);

  double epilogueMax = 0;
  for (size_t r = 0; r < p.roleTotals.size() && r < p.roleNames.size(); ++r) {
    const Counts &c = p.roleTotals[r];
    if (c[size_t(Count::WarpInstructions)] <= 0) continue;
    RoleLane lane;
    lane.name = p.roleNames[r];
    lane.epilogue = writeTime * share(stored(c), allStored) / slots;
    epilogueMax = std::max(epilogueMax, lane.epilogue);
    t.lanes.push_back(lane);
  }
  double body = std::max(0.0, e.kernelSeconds - epilogueMax);
  t.tau = body / (slots * static_cast<double>(t.iterations));
  double per = slots * static_cast<double>(t.iterations);
  for (RoleLane &lane : t.lanes) {
    size_t r = static_cast<size_t>(std::find(p.roleNames.begin(), p.roleNames.end(), lane.name) - p.roleNames.begin());
    const Counts &c = p.roleTotals[r];
    double load = loadTime * share(loaded(c), allLoaded) / per;
    double mma = tensorTime * share(tensor(c), allTensor) / per;
    double other = issueTime * share(c[size_t(Count::WarpInstructions)], allInstr) / per;
    double smem = sharedTime * share(c[size_t(Count::SharedWavefronts)], allShared) / per;
    double fp32 = (fp32Time * share(c[size_t(Count::Fp32LaneOps)], allFp32) +
                   sfuTime * share(c[size_t(Count::SfuLaneOps)], allSfu)) /
                  per;
    double busy = load + smem + mma + fp32 + other;
    double scale = busy > t.tau && busy > 0 ? t.tau / busy : 1;
    load *= scale, smem *= scale, mma *= scale, fp32 *= scale, other *= scale;
    double wait = std::max(0.0, t.tau - load - smem - mma - fp32 - other);
    if (load > 0)
      lane.iteration = {{"load", load}, {"shared", smem}, {"tensor", mma},
                        {"fp32", fp32}, {"other", other}, {"wait", wait}};
    else
      lane.iteration = {{"wait", wait}, {"shared", smem}, {"tensor", mma}, {"fp32", fp32}, {"other", other}};
  }
  return t;
}

} // namespace

std::string renderTimelineSvg(const Machine &m, const std::vector<const Estimate *> &estimates,
                              const std::string &title) {
  std::vector<KernelTimeline> kernels;
  double height = 70;
  for (const Estimate *e : estimates) {
    kernels.push_back(layOut(*e, m));
    height += 64 + static_cast<double>(kernels.back().lanes.size()) * (kLaneHeight + kLaneGap);
  }
  height += 40;   // legend
  // Wide enough for the lanes and the heading (bold 14: about 9 units a character).
  double width = std::max(kLaneLeft + kLaneWidth + 40, 40 + 9 * static_cast<double>(title.size()));

  std::ostringstream os;
  os << svg::open(width, height, "timeline: " + title)
     << "<text class=\"heading\" x=\"20\" y=\"22\" font-size=\"14\" font-weight=\"bold\">" << escape(title)
     << "</text>\n"
     << "<text class=\"note\" x=\"20\" y=\"40\" fill=\"#555\">the cost model's view of one block (resource times "
     << "split by each role's share of the work), not a measurement; machine '" << escape(m.name) << "'</text>\n";
  double y = 70;
  for (const KernelTimeline &t : kernels) {
    const Estimate &e = *t.estimate;
    double epilogue = 0;
    for (const RoleLane &lane : t.lanes) epilogue = std::max(epilogue, lane.epilogue);
    double span = t.tau * t.drawnIterations + epilogue;
    double scale = span > 0 ? kLaneWidth / span : 0;
    os << "<g class=\"kernel\">\n<text class=\"kernel-heading\" x=\"20\" y=\"" << num(y)
       << "\" font-weight=\"bold\">kernel " << escape(e.kernel) << ": " << formatSeconds(e.kernelSeconds)
       << " predicted (" << escape(e.bottleneck) << "-bound), " << t.iterations
       << (t.iterations == 1 ? " iteration" : " iterations") << " per block of " << formatSeconds(t.tau)
       << "; iterations 1-" << t.drawnIterations << " and the epilogue</text>\n";
    y += 14;
    // Iteration boundaries and their labels.
    for (int i = 0; i <= t.drawnIterations; ++i) {
      double x = kLaneLeft + t.tau * i * scale;
      os << "<line class=\"iteration-mark\" x1=\"" << num(x) << "\" y1=\"" << num(y) << "\" x2=\"" << num(x)
         << "\" y2=\"" << num(y + 8 + static_cast<double>(t.lanes.size()) * (kLaneHeight + kLaneGap))
         << "\" stroke=\"#999\" stroke-dasharray=\"3 3\"/>\n";
      if (i < t.drawnIterations)
        os << "<text class=\"iteration-label\" x=\"" << num(x + 4) << "\" y=\"" << num(y + 10)
           << "\" font-size=\"10\" fill=\"#555\">iteration " << i + 1 << "</text>\n";
    }
    if (epilogue > 0)
      os << "<text class=\"iteration-label\" x=\"" << num(kLaneLeft + t.tau * t.drawnIterations * scale + 4)
         << "\" y=\"" << num(y + 10) << "\" font-size=\"10\" fill=\"#555\">epilogue</text>\n";
    y += 16;
    for (const RoleLane &lane : t.lanes) {
      os << "<g class=\"lane\"><text class=\"role\" x=\"20\" y=\"" << num(y + kLaneHeight / 2 + 4) << "\">"
         << escape(lane.name) << "</text>\n";
      auto box = [&](const char *kind, double from, double seconds) {
        if (seconds * scale < 0.05) return;
        os << "<rect class=\"" << kind << "\" x=\"" << num(kLaneLeft + from * scale) << "\" y=\"" << num(y)
           << "\" width=\"" << num(seconds * scale) << "\" height=\"" << num(kLaneHeight) << "\" fill=\""
           << phaseColour(kind) << "\" stroke=\"white\" stroke-width=\"0.5\"><title>" << escape(lane.name) << ": "
           << kind << " " << formatSeconds(seconds) << "</title></rect>\n";
      };
      for (int i = 0; i < t.drawnIterations; ++i) {
        double at = t.tau * i;
        for (const Phase &ph : lane.iteration) {
          box(ph.kind, at, ph.seconds);
          at += ph.seconds;
        }
      }
      box("epilogue", t.tau * t.drawnIterations, lane.epilogue);
      os << "</g>\n";
      y += kLaneHeight + kLaneGap;
    }
    os << "</g>\n";
    y += 34;
  }
  // Legend.
  os << "<g class=\"legend\" font-size=\"11\">\n";
  const char *kinds[] = {"load", "shared", "tensor", "fp32", "other", "wait", "epilogue"};
  const char *meaning[] = {"loads (global -> shared / registers)",
                           "shared memory",
                           "tensor core",
                           "FP32 / SFU",
                           "other instructions",
                           "waiting",
                           "epilogue stores"};
  double x = 20;
  for (int i = 0; i < 7; ++i) {
    os << "<rect x=\"" << num(x) << "\" y=\"" << num(y - 10) << "\" width=\"12\" height=\"12\" fill=\""
       << phaseColour(kinds[i]) << "\" stroke=\"#999\" stroke-width=\"0.5\"/><text class=\"legend-entry\" x=\""
       << num(x + 16) << "\" y=\"" << num(y) << "\">" << meaning[i] << "</text>\n";
    x += 24 + 6.5 * static_cast<double>(std::string_view(meaning[i]).size());
  }
  os << "</g>\n</svg>\n";
  return os.str();
}

} // namespace cake::cost
