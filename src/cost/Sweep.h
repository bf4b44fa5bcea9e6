// Sweep: compile-time parameter sweeps (--sweep BM=64,128 BN=128,256 S=3,4,5) and the ranking of the
// variants they produce.
//
// parseSweep turns the items into axes (a name and its values, in the order given); expandSweep forms the
// cartesian product, first axis slowest.  Ranking sorts the estimated variants by predicted time
// (ties: fewer blocks per SM first is NOT assumed - ties keep sweep order), and keeps the rejected ones
// with their reason so the report can list why each failed (sema, verification, resources, shape, or
// code generation: a variant that would not compile is rejected, never ranked).
#pragma once
#include "cost/TimeModel.h"

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace cake::cost {

constexpr size_t kMaxSweepVariants = 4096;

struct SweepAxis {
  std::string name;
  std::vector<int64_t> values;
};

struct SweepParseResult {
  std::vector<SweepAxis> axes;
  std::string badItem;   // non-empty on failure
  std::string why;
};

SweepParseResult parseSweep(const std::vector<std::string> &items);
// Number of variants (saturates at SIZE_MAX / 2 on overflow).
size_t sweepSize(const std::vector<SweepAxis> &axes);
// Every combination, as -D maps, first axis slowest.
std::vector<std::map<std::string, int64_t>> expandSweep(const std::vector<SweepAxis> &axes);

// "BM=128 BN=256 S=4" (axis order).
std::string variantLabel(const std::vector<SweepAxis> &axes, const std::map<std::string, int64_t> &defines);

struct VariantOutcome {
  std::map<std::string, int64_t> defines;
  std::string label;
  std::vector<Estimate> estimates;   // one per kernel when it succeeded
  std::string code;                  // rejected: diagnostic code (E0803, E0414, E0609, ...)
  std::string reason;                // rejected: the first error's message
  bool wouldNotCompile = false;      // rejected by code generation (sema and the verifier accepted it)
  bool ok() const { return reason.empty(); }
};

struct RankedRow {
  const VariantOutcome *variant = nullptr;
  const Estimate *estimate = nullptr;
};

// Estimated (variant, kernel) rows sorted by predicted time, fastest first (stable).
std::vector<RankedRow> rankVariants(const std::vector<VariantOutcome> &variants);

void renderSweepText(const std::vector<VariantOutcome> &variants, const std::string &header, std::optional<unsigned> top,
                     std::ostream &os);
void renderSweepJson(const std::vector<VariantOutcome> &variants, const std::map<std::string, int64_t> &shape,
                     std::optional<unsigned> top, std::ostream &os);

} // namespace cake::cost
