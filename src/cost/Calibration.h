// Calibration: fitting a machine's efficiency parameters to measured run times, and the accuracy figures
// (Spearman rank correlation, median |relative error|) used to judge the model.
//
// Algorithm: regularised least squares in log space.  With p the free parameters (launch overhead, the
// efficiencies of Machine.h, the DRAM and L2 latencies), minimise
//     sum_i (log predicted_i(p) - log measured_i)^2  +  lambda * sum_j (log p_j - log prior_j)^2
// by coordinate descent on log p_j: each parameter is multiplied and divided by a step factor (start 2),
// kept when the loss drops, the factor is square-rooted when a full pass improves nothing, until it is
// below 1.0005 or 400 passes.  The model is a max of terms, so the loss is piecewise smooth and gradients
// are unreliable; coordinate search handles the kinks.  The regulariser keeps parameters that no
// measurement exercises at their priors (from the datasheet or measured ceilings) instead of drifting.
// Efficiencies stay in [0.02, 1], latencies in [50, 3000] ns, launch overhead in [0.1, 50] us, and (when the
// prior satisfies it) the L2 rate of thread-issued and of TMA traffic stays at least the DRAM rate of the same
// kind of traffic: every DRAM byte passes through L2.
// Each sample's WorkProfile is counted once; only the time model is re-evaluated while fitting.
#pragma once
#include "cost/Machine.h"
#include "cost/Occupancy.h"
#include "cost/WorkProfile.h"

#include <string>
#include <vector>

namespace cake::cost {

struct CalibrationSample {
  std::string label;
  WorkProfile profile;
  Occupancy occupancy;
  double measuredSeconds = 0;
};

struct CalibrationOptions {
  double regularization = 0.02;
};

struct CalibrationResult {
  Machine machine;                       // the prior with fitted parameters
  std::vector<std::string> parameters;   // names of the fitted parameters
  double lossBefore = 0, lossAfter = 0;  // mean squared log error over the samples (no regulariser)
};

CalibrationResult calibrate(const Machine &prior, const std::vector<CalibrationSample> &samples,
                            const CalibrationOptions &options = {});

std::vector<double> predictSeconds(const Machine &machine, const std::vector<CalibrationSample> &samples);

struct Accuracy {
  size_t n = 0;
  double spearman = 0;          // rank correlation of predicted and measured times
  double medianAbsError = 0;    // median |predicted / measured - 1|
  double maxAbsError = 0;
};

Accuracy accuracy(const std::vector<double> &predicted, const std::vector<double> &measured);
double spearmanRho(const std::vector<double> &a, const std::vector<double> &b);

} // namespace cake::cost
