// The CAKE interpreter: runs one kernel of a typed module on the CPU (design: Interpreter.cpp's header,
// docs/interpreter.md).
//
//   SemaResult sema = analyzeModule(module, ...);
//   RunRequest req;
//   req.tensors["A"] = HostTensor::fromFloats(ScalarKind::BF16, {1000}, a);   // dims fix the shape vars
//   RunResult r = runKernel(*module.kernels[0], sema, req, diags);
//   r.tensors["C"]  // every tensor parameter after the run (inputs that the kernel did not write included)
//
// A tensor parameter the request does not give is allocated zero-filled, with dims from the shape
// variables (`shape`, or other tensors that fix them).  Errors in the request (missing shape, a dims
// mismatch, a failed `requires`) and in the run (out-of-bounds access, deadlock, divergent collective,
// unsupported construct) are located diagnostics (E0901-E0909) and make `ok` false.
#pragma once
#include "frontend/AST.h"
#include "frontend/Sema.h"
#include "support/Diagnostics.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cake::interp {

// A dense row-major array in host memory, as a kernel argument or result (the .npy contents).
struct HostTensor {
  ScalarKind dtype = ScalarKind::F32;
  std::vector<int64_t> dims;
  std::vector<uint8_t> bytes;   // row-major, little-endian, product(dims) * element size

  int64_t elements() const;
  static HostTensor zeros(ScalarKind dtype, std::vector<int64_t> dims);
  // Values converted to dtype (rounded to nearest even for f16/bf16, truncated for integers).
  static HostTensor fromDoubles(ScalarKind dtype, std::vector<int64_t> dims, const std::vector<double> &values);
  double at(int64_t flatIndex) const;   // element as a double
  std::vector<double> toDoubles() const;
};

struct RunRequest {
  std::map<std::string, int64_t> shape;          // shape variables (others follow from tensor dims)
  std::map<std::string, HostTensor> tensors;     // by parameter name
  std::map<std::string, double> scalars;         // scalar parameters by name
  uint64_t seed = 0;                             // warp schedule: 0 = lowest warp first, else random
  int64_t numSms = 132;                          // the value of num_sms
  uint64_t maxSteps = 200'000'000;               // statements per lane-group executed before E0909
  bool dryRun = false;                           // stop after the arguments, requires and the grid were checked
  bool checkRaces = true;                        // shared-memory race / proxy / uninitialised-read checks (E0912-E0914)
};

struct RunResult {
  bool ok = false;
  std::map<std::string, HostTensor> tensors;     // every tensor parameter after the run
  uint64_t steps = 0;                            // warp-statements executed
};

RunResult runKernel(const Kernel &kernel, const SemaResult &sema, const RunRequest &request, DiagnosticEngine &diags);

} // namespace cake::interp
