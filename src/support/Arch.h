// Target architectures and the sets of them that have a feature.
//
// Availability is not a simple "newer is better" order: wgmma exists only on sm_90a, setmaxnreg on sm_90a
// and sm_100a.  So each feature carries an ArchSet (a bit per target), and diagnostics describe the set
// in words ("sm_90 or newer", "sm_90a only").
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cake {

enum class Arch : uint8_t { SM80, SM86, SM89, SM90, SM90a, SM100a, SM120, Count_ };

using ArchSet = uint32_t;
constexpr ArchSet archBit(Arch a) { return 1u << static_cast<unsigned>(a); }
// Every target from `a` on (in the order of the enum).
constexpr ArchSet archsFrom(Arch a) {
  return ((1u << static_cast<unsigned>(Arch::Count_)) - 1) & ~(archBit(a) - 1);
}
constexpr ArchSet kAllArchs = archsFrom(Arch::SM80);

std::optional<Arch> parseArch(std::string_view name);   // "sm_90a" -> SM90a
std::string_view archName(Arch a);                       // SM90a -> "sm_90a"
// "sm_90 or newer", "sm_90a only", "sm_90a or sm_100a".
std::string describeArchSet(ArchSet set);
// Comma-separated list of every known target, for help texts.
std::string allArchNames();
inline bool archIn(Arch a, ArchSet set) { return (set & archBit(a)) != 0; }
// Compute capability as ptxas spells it without the sm_ prefix ("90a").
std::string_view archComputeCapability(Arch a);

} // namespace cake
