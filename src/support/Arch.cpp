// Target architecture names and feature-set descriptions.
#include "support/Arch.h"

namespace cake {

namespace {
constexpr std::string_view kNames[] = {"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100a", "sm_120"};
constexpr unsigned kCount = static_cast<unsigned>(Arch::Count_);
} // namespace

std::optional<Arch> parseArch(std::string_view name) {
  for (unsigned i = 0; i < kCount; ++i)
    if (kNames[i] == name) return static_cast<Arch>(i);
  return std::nullopt;
}

std::string_view archName(Arch a) { return kNames[static_cast<unsigned>(a)]; }

std::string_view archComputeCapability(Arch a) { return archName(a).substr(3); }

std::string allArchNames() {
  std::string out;
  for (unsigned i = 0; i < kCount; ++i) out += (i ? " " : "") + std::string(kNames[i]);
  return out;
}

std::string describeArchSet(ArchSet set) {
  unsigned lowest = kCount;
  for (unsigned i = 0; i < kCount; ++i)
    if (set & (1u << i)) { lowest = i; break; }
  if (lowest == kCount) return "no known target";
  if (set == archsFrom(static_cast<Arch>(lowest))) return std::string(kNames[lowest]) + " or newer";
  std::string out;
  unsigned n = 0;
  for (unsigned i = 0; i < kCount; ++i)
    if (set & (1u << i)) ++n;
  unsigned seen = 0;
  for (unsigned i = 0; i < kCount; ++i) {
    if (!(set & (1u << i))) continue;
    if (seen) out += (seen + 1 == n) ? " or " : ", ";
    out += kNames[i];
    ++seen;
  }
  if (n == 1) out += " only";
  return out;
}

} // namespace cake
