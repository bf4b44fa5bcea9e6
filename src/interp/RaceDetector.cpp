// Vector-clock race detection over shared memory (see RaceDetector.h).
#include "interp/RaceDetector.h"

#include <algorithm>

namespace cake::interp {

void joinInto(VectorClock &into, const VectorClock &from) {
  if (into.size() < from.size()) into.resize(from.size(), 0);
  for (size_t i = 0; i < from.size(); ++i) into[i] = std::max(into[i], from[i]);
}

RaceDetector::RaceDetector(int warps) : warps_(warps), fenced_(size_t(warps), 0) {
  const size_t agents = size_t(warps + kAsyncSlots);
  clocks_.assign(agents, VectorClock(agents, 0));
  for (size_t a = 0; a < agents; ++a) clocks_[a][a] = 1;
}

void RaceDetector::barrier(const std::vector<int> &participants, const std::vector<int> &waiters) {
  VectorClock j;
  for (int p : participants) joinInto(j, clocks_[size_t(p)]);
  for (int p : participants) tick(p);
  for (int w : waiters) {
    uint32_t own = clocks_[size_t(w)][size_t(w)];
    joinInto(clocks_[size_t(w)], j);
    clocks_[size_t(w)][size_t(w)] = std::max(own, clocks_[size_t(w)][size_t(w)]);
  }
}

int RaceDetector::issueAsync(int warp, VectorClock &vc) {
  int slot = warps_ + nextSlot_;
  nextSlot_ = (nextSlot_ + 1) % kAsyncSlots;
  tick(slot);
  vc = clocks_[size_t(warp)];
  vc[size_t(slot)] = clocks_[size_t(slot)][size_t(slot)];
  tick(warp);   // the warp's later accesses are not ordered before the copy
  return slot;
}

std::string RaceDetector::who(const RaceAccess &a) const {
  if (a.issuer >= 0 && a.agent >= warps_) return std::string("the ") + a.what + " issued by warp " + std::to_string(a.issuer);
  return "warp " + std::to_string(a.agent);
}

void RaceDetector::report(DiagKind kind, std::vector<std::string> args, const RaceAccess &now, const RaceAccess *other,
                          uint64_t seed) {
  if (finding) return;
  RaceFinding f;
  f.kind = kind;
  f.args = std::move(args);
  f.at = now.at;
  if (other) f.notes.push_back({other->at, "the other access: " + who(*other)});
  f.notes.push_back({now.at, "exposed by the schedule of --seed " + std::to_string(seed) + " (cakec run --seed " +
                                 std::to_string(seed) + " replays it)"});
  finding = std::move(f);
}

static std::string elementText(const std::vector<int64_t> &dims, int64_t linear, size_t physical) {
  if (linear < 0) return "(physical element " + std::to_string(physical) + ")";
  std::string out;
  for (size_t i = dims.size(); i-- > 0;) {
    out = std::to_string(linear % dims[i]) + (out.empty() ? "" : ", ") + out;
    linear /= dims[i];
  }
  return "[" + out + "]";
}

void RaceDetector::access(std::vector<ElementShadow> &shadow, size_t index, const RaceAccess &a, const VectorClock &vc,
                          bool write, bool atomic, const std::string &array, const std::vector<int64_t> &dims, int64_t logical,
                          uint64_t seed) {
  if (index >= shadow.size()) return;
  auto element = [&] { return elementText(dims, logical, index); };
  ElementShadow &s = shadow[index];
  if (atomic) {   // atomics are indivisible: not checked (against each other or plain accesses)
    if (write) {
      s.written = true;
      s.write = a;
      s.reads.clear();
    }
    return;
  }
  auto ordered = [&](const RaceAccess &prev) {
    return prev.agent == a.agent || (size_t(prev.agent) < vc.size() && prev.clock <= vc[size_t(prev.agent)]);
  };
  auto race = [&](const RaceAccess &prev, bool prevWrite) {
    report(DiagKind::InterpSharedRace,
           {array, element(), write ? "write" : "read", who(a), prevWrite ? "write" : "read", who(prev)}, a, &prev, seed);
  };
  if (!write) {
    if (!s.written && !atomic) {
      report(DiagKind::InterpUninitializedRead, {array, element(), who(a)}, a, nullptr, seed);
      return;
    }
    if (s.written && !ordered(s.write)) race(s.write, true);
    else if (s.written && a.async && !s.write.async && s.write.agent < warps_ &&
             s.write.clock > fenced_[size_t(s.write.agent)])
      report(DiagKind::InterpProxyNoFence, {array, element(), who(a), who(s.write)}, a, &s.write, seed);
    for (RaceAccess &r : s.reads)
      if (r.agent == a.agent) {
        r = a;
        return;
      }
    s.reads.push_back(a);
    return;
  }
  if (!atomic) {
    if (s.written && !ordered(s.write)) race(s.write, true);
    for (const RaceAccess &r : s.reads)
      if (!ordered(r)) {
        race(r, false);
        break;
      }
  }
  s.written = true;
  s.write = a;
  s.reads.clear();
}

} // namespace cake::interp
