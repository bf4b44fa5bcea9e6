// Fitting machine parameters to measurements, and accuracy statistics (see Calibration.h).
#include "cost/Calibration.h"

#include "cost/TimeModel.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace cake::cost {

namespace {

struct Param {
  const char *name;
  double Machine::*field = nullptr;        // a Machine member ...
  double Efficiencies::*eff = nullptr;     // ... or an efficiency
  double lo, hi;
  double &ref(Machine &m) const { return field ? m.*field : m.eff.*eff; }
};

const std::vector<Param> &parameters() {
  static const std::vector<Param> params = {
      {"launch_overhead_us", &Machine::launchOverheadUs, nullptr, 0.1, 50},
      {"dram_latency_ns", &Machine::dramLatencyNs, nullptr, 50, 3000},
      {"l2_latency_ns", &Machine::l2LatencyNs, nullptr, 50, 3000},
      {"efficiency.hbm_simt", nullptr, &Efficiencies::hbmSimt, 0.02, 1},
      {"efficiency.hbm_cp_async", nullptr, &Efficiencies::hbmCpAsync, 0.02, 1},
      {"efficiency.hbm_tma", nullptr, &Efficiencies::hbmTma, 0.02, 1},
      {"efficiency.l2", nullptr, &Efficiencies::l2, 0.02, 1},
      {"efficiency.l2_tma", nullptr, &Efficiencies::l2Tma, 0.02, 1},
      {"efficiency.shared", nullptr, &Efficiencies::shared, 0.02, 1},
      {"efficiency.shared_async", nullptr, &Efficiencies::sharedAsync, 0.02, 1},
      {"efficiency.mma_sync", nullptr, &Efficiencies::mmaSync, 0.02, 1},
      {"efficiency.wgmma", nullptr, &Efficiencies::wgmma, 0.02, 1},
      {"efficiency.fp32", nullptr, &Efficiencies::fp32, 0.02, 1},
      {"efficiency.sfu", nullptr, &Efficiencies::sfu, 0.02, 1},
      {"efficiency.warp_ipc", nullptr, &Efficiencies::warpIpc, 0.02, 1},
      {"efficiency.issue", nullptr, &Efficiencies::issue, 0.02, 1},
  };
  return params;
}

double dataLoss(const Machine &m, const std::vector<CalibrationSample> &samples) {
  if (samples.empty()) return 0;
  double sum = 0;
  for (const CalibrationSample &s : samples) {
    double predicted = predictTime(s.profile, s.occupancy, m).seconds;
    double d = std::log(std::max(predicted, 1e-12)) - std::log(s.measuredSeconds);
    sum += d * d;
  }
  return sum / static_cast<double>(samples.size());
}

double totalLoss(const Machine &m, const Machine &prior, const std::vector<CalibrationSample> &samples, double lambda) {
  double reg = 0;
  for (const Param &p : parameters()) {
    double d = std::log(p.ref(const_cast<Machine &>(m))) - std::log(p.ref(const_cast<Machine &>(prior)));
    reg += d * d;
  }
  return dataLoss(m, samples) + lambda * reg;
}

std::vector<double> ranks(const std::vector<double> &v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    double avg = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
    for (size_t k = i; k <= j; ++k) r[order[k]] = avg;
    i = j + 1;
  }
  return r;
}

// Every DRAM byte passes through L2, so a description whose L2 moves thread-issued (or TMA) traffic slower
// than DRAM delivers it is not a machine: the fit may not go there (without this, the L2 efficiency of
// thread-issued traffic absorbed other misfits and made vector_add L2-bound).
bool physical(const Machine &m) {
  const Efficiencies &e = m.eff;
  return e.l2 * m.l2BytesPerSec >= std::max(e.hbmSimt, e.hbmCpAsync) * m.hbmBytesPerSec &&
         e.l2Tma * m.l2BytesPerSec >= e.hbmTma * m.hbmBytesPerSec;
}

} // namespace

std::vector<double> predictSeconds(const Machine &machine, const std::vector<CalibrationSample> &samples) {
  std::vector<double> out;
  for (const CalibrationSample &s : samples) out.push_back(predictTime(s.profile, s.occupancy, machine).seconds);
  return out;
}

CalibrationResult calibrate(const Machine &prior, const std::vector<CalibrationSample> &samples,
                            const CalibrationOptions &options) {
  CalibrationResult result;
  result.machine = prior;
  result.lossBefore = dataLoss(prior, samples);
  Machine &m = result.machine;
  double best = totalLoss(m, prior, samples, options.regularization);
  double factor = 2.0;
  bool constrain = physical(prior);        // a prior that is not physical already is fitted unconstrained
  for (int pass = 0; pass < 400 && factor > 1.0005; ++pass) {
    bool improved = false;
    for (const Param &p : parameters()) {
      double &value = p.ref(m);
      for (double mul : {factor, 1 / factor}) {
        double old = value;
        value = std::clamp(old * mul, p.lo, p.hi);
        if (value == old) continue;
        if (constrain && !physical(m)) {
          value = old;
          continue;
        }
        double loss = totalLoss(m, prior, samples, options.regularization);
        if (loss < best - 1e-12) {
          best = loss;
          improved = true;
          break;
        }
        value = old;
      }
    }
    if (!improved) factor = std::sqrt(factor);
  }
  for (const Param &p : parameters())
    if (std::fabs(std::log(p.ref(m)) - std::log(p.ref(const_cast<Machine &>(prior))))> 1e-3)
      result.parameters.push_back(p.name);
  result.lossAfter = dataLoss(m, samples);
  return result;
}

double spearmanRho(const std::vector<double> &a, const std::vector<double> &b) {
  size_t n = std::min(a.size(), b.size());
  if (n < 2) return 0;
  std::vector<double> ra = ranks(std::vector<double>(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n)));
  std::vector<double> rb = ranks(std::vector<double>(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n)));
  double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / static_cast<double>(n);
  double mb = std::accumulate(rb.begin(), rb.end(), 0.0) / static_cast<double>(n);
  double cov = 0, va = 0, vb = 0;
  for (size_t i = 0; i < n; ++i) {
    cov += (ra[i] - ma) * (rb[i] - mb);
    va += (ra[i] - ma) * (ra[i] - ma);
    vb += (rb[i] - mb) * (rb[i] - mb);
  }
  return va > 0 && vb > 0 ? cov / std::sqrt(va * vb) : 0;
}

Accuracy accuracy(const std::vector<double> &predicted, const std::vector<double> &measured) {
  Accuracy a;
  a.n = std::min(predicted.size(), measured.size());
  if (a.n == 0) return a;
  std::vector<double> errors;
  for (size_t i = 0; i < a.n; ++i) errors.push_back(std::fabs(predicted[i] / measured[i] - 1));
  std::sort(errors.begin(), errors.end());
  a.medianAbsError = a.n % 2 ? errors[a.n / 2] : (errors[a.n / 2 - 1] + errors[a.n / 2]) / 2;
  a.maxAbsError = errors.back();
  a.spearman = spearmanRho(predicted, measured);
  return a;
}

} // namespace cake::cost
