// `cakec calibrate MEASUREMENTS.json -o MACHINE.json [--machine NAME|PATH] [--holdout-every K]`
//
// Reads measured run times (cost/Measurements.h), re-analyses each measured kernel (parse, sema, estimate;
// no verification: the kernels were measured, so they ran), fits the machine's efficiency parameters
// (cost/Calibration.h) on the training measurements and writes the calibrated machine description.  With
// --holdout-every K, every K-th measurement (index % K == K - 1) is held out of the fit, and the report
// gives Spearman rho and the median |error| on the training and the held-out measurements separately.
// Prints one line per measurement (measured, predicted before and after, error, bottleneck).
#pragma once

namespace cake {

int runCalibrateCommand(int argc, char **argv);

} // namespace cake
