// Measurements: measured kernel run times, the input of `cakec calibrate` (format in docs/cost-model.md):
//
//   {"format": "cake-measurements", "version": 1, "device": "NVIDIA H200",
//    "measurements": [{"kernel_file": "samples/ampere_gemm.cake", "kernel": "ampere_gemm", "arch": "sm_90",
//                      "defines": {"BM": 128}, "shape": {"M": 4096, "N": 4096, "K": 4096},
//                      "ms": 0.4226, "device": "NVIDIA H200", "label": "ampere_gemm 4096^3"}, ...]}
//
// kernel (which kernel of the file; default: the first), arch (default: the file's target), defines, device
// and label are optional.  kernel_file is relative to the current directory or to the measurements file.
#pragma once
#include "support/Arch.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cake::cost {

struct Measurement {
  std::string kernelFile;
  std::string kernel;
  std::optional<Arch> arch;
  std::map<std::string, int64_t> defines;
  std::map<std::string, int64_t> shape;
  double ms = 0;
  std::string device;
  std::string label;
};

struct MeasurementSet {
  std::string device;
  std::vector<Measurement> items;
};

struct MeasurementsLoad {
  std::optional<MeasurementSet> set;
  std::string error;   // with the index of the offending entry
};

MeasurementsLoad parseMeasurements(std::string_view jsonText);

} // namespace cake::cost
