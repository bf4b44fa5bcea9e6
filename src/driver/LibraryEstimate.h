// `cakec library estimate SPEC.json --shape M=..,N=..,K=.. [--shape ...] [--machine NAME|PATH] [--json]`
//
// The cost model as a dispatcher's view of a library (docs/library.md): every variant of the spec priced at
// each shape as the sequence of kernels it launches (its kernel, then its "then" steps, from other sources
// too: the predicted times add up, a launch overhead each), ranked fastest first, with the refused ones (a
// `requires` false at the shape, ...) and the variant the spec's dispatch table picks.  Text, or one JSON
// document (format `cake-library-estimate`) with --json.  Exit codes: 0, 1 for errors in the spec, 2 usage,
// 3 environment.
#pragma once
#include "driver/Driver.h"

#include <map>
#include <string>
#include <vector>

namespace cake {

struct LibraryEstimateOptions {
  std::string spec;
  std::vector<std::map<std::string, int64_t>> shapes;
  std::string machine;   // --machine: NAME or PATH; empty: each arch's default
  bool json = false;
  bool color = false;
};

ExitCode runLibraryEstimate(const LibraryEstimateOptions &opts);

}   // namespace cake
