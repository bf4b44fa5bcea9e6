// ThreadKnowledge: the per-thread observed clocks of one agent, kept as classes of threads with equal
// knowledge (see ThreadKnowledge.h).
#include "verify/ThreadKnowledge.h"

#include <algorithm>
#include <map>

namespace cake {

namespace {

void joinInto(std::vector<int64_t> &into, const int64_t *from) {
  for (size_t i = 0; i < into.size(); ++i) into[i] = std::max(into[i], from[i]);
}

// "0..3, 7": ascending values as runs.
std::string runs(const std::vector<int64_t> &values) {
  std::string out;
  for (size_t i = 0; i < values.size();) {
    size_t j = i;
    while (j + 1 < values.size() && values[j + 1] == values[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += std::to_string(values[i]);
    if (j > i) out += (j == i + 1 ? ", " : "..") + std::to_string(values[j]);
    i = j + 1;
  }
  return out;
}

} // namespace

void ThreadKnowledge::reset(const std::vector<int64_t> &threads, size_t width) {
  tids_ = threads;
  int64_t top = 0;
  for (int64_t t : tids_) top = std::max(top, t + 1);
  indexOfTid_.assign(static_cast<size_t>(top), -1);
  for (size_t i = 0; i < tids_.size(); ++i)
    if (tids_[i] >= 0) indexOfTid_[static_cast<size_t>(tids_[i])] = static_cast<int32_t>(i);
  classOf_.assign(tids_.size(), 0);
  know_.assign(1, std::vector<int64_t>(width, 0));
}

int ThreadKnowledge::classOfTid(int64_t tid) const {
  if (tid < 0 || static_cast<size_t>(tid) >= indexOfTid_.size()) return -1;
  int32_t i = indexOfTid_[static_cast<size_t>(tid)];
  return i < 0 ? -1 : classOf_[static_cast<size_t>(i)];
}

void ThreadKnowledge::canonicalize() {
  std::map<std::vector<int64_t>, uint16_t> ids;
  std::vector<std::vector<int64_t>> kept;
  std::vector<int> remap(know_.size(), -1);
  for (uint16_t &c : classOf_) {
    if (remap[c] < 0) {
      auto [it, inserted] = ids.emplace(know_[c], static_cast<uint16_t>(kept.size()));
      if (inserted) kept.push_back(know_[c]);
      remap[c] = it->second;
    }
    c = static_cast<uint16_t>(remap[c]);
  }
  if (kept.empty()) kept.push_back(know_.empty() ? std::vector<int64_t>{} : know_[0]);
  know_ = std::move(kept);
}

void ThreadKnowledge::learn(const std::vector<int64_t> *who, const int64_t *versions) {
  if (!who || (know_.size() == 1 && who->size() >= tids_.size())) {
    learnAll(versions);
    return;
  }
  std::vector<int> split(know_.size(), -1);   // class -> its copy for the threads in `who`
  for (int64_t t : *who) {
    if (t < 0 || static_cast<size_t>(t) >= indexOfTid_.size() || indexOfTid_[static_cast<size_t>(t)] < 0) continue;
    uint16_t &c = classOf_[static_cast<size_t>(indexOfTid_[static_cast<size_t>(t)])];
    if (split[c] < 0) {
      std::vector<int64_t> copy = know_[c];
      joinInto(copy, versions);
      split[c] = static_cast<int>(know_.size());
      know_.push_back(std::move(copy));
    }
    c = static_cast<uint16_t>(split[c]);
  }
  canonicalize();
}

void ThreadKnowledge::learnAll(const int64_t *versions) {
  for (std::vector<int64_t> &k : know_) joinInto(k, versions);
  if (know_.size() > 1) canonicalize();
}

void ThreadKnowledge::learnStage(const std::vector<int64_t> *who, size_t component, int64_t version) {
  if (know_.empty() || component >= know_[0].size()) return;
  std::vector<int64_t> versions(know_[0].size(), 0);
  versions[component] = version;
  learn(who, versions.data());
}

void ThreadKnowledge::syncWarps(const std::vector<int64_t> *who, uint32_t laneMask) {
  if (know_.size() == 1) return;   // nothing to exchange
  std::map<int64_t, std::vector<size_t>> byWarp;   // warp -> positions of the executing lanes in the mask
  auto add = [&](int64_t t) {
    if (t < 0 || static_cast<size_t>(t) >= indexOfTid_.size() || indexOfTid_[static_cast<size_t>(t)] < 0) return;
    if (((laneMask >> (t % 32)) & 1u) == 0) return;
    byWarp[t / 32].push_back(static_cast<size_t>(indexOfTid_[static_cast<size_t>(t)]));
  };
  if (who) for (int64_t t : *who) add(t);
  else for (int64_t t : tids_) add(t);
  for (const auto &[warp, positions] : byWarp) {
    std::vector<int64_t> joined(know_[0].size(), 0);
    for (size_t p : positions) joinInto(joined, know_[classOf_[p]].data());
    uint16_t c = static_cast<uint16_t>(know_.size());
    know_.push_back(std::move(joined));
    for (size_t p : positions) classOf_[p] = c;
  }
  canonicalize();
}

void ThreadKnowledge::knownBy(const std::vector<int64_t> *who, int64_t *out) const {
  if (!who || know_.size() == 1) {
    for (const std::vector<int64_t> &k : know_)
      for (size_t i = 0; i < k.size(); ++i) out[i] = std::max(out[i], k[i]);
    return;
  }
  std::vector<bool> seen(know_.size(), false);
  for (int64_t t : *who) {
    int c = classOfTid(t);
    if (c < 0 || seen[static_cast<size_t>(c)]) continue;
    seen[static_cast<size_t>(c)] = true;
    const std::vector<int64_t> &k = know_[static_cast<size_t>(c)];
    for (size_t i = 0; i < k.size(); ++i) out[i] = std::max(out[i], k[i]);
  }
}

std::vector<int64_t> ThreadKnowledge::unaware(const std::vector<int64_t> *who, size_t component, int64_t value) const {
  const std::vector<int64_t> &threads = who ? *who : tids_;
  bool everyClassKnows = true;   // the usual case, decided without visiting the threads
  for (const std::vector<int64_t> &k : know_) everyClassKnows = everyClassKnows && component < k.size() && k[component] >= value;
  if (everyClassKnows) return {};
  std::vector<int64_t> out;
  for (int64_t t : threads) {
    int c = classOfTid(t);
    if (c >= 0 && component < know_[static_cast<size_t>(c)].size() && know_[static_cast<size_t>(c)][component] < value)
      out.push_back(t);
  }
  return out;
}

std::string describeThreads(const std::vector<int64_t> &tids) {
  std::map<int64_t, std::vector<int64_t>> lanesByWarp;
  for (int64_t t : tids) lanesByWarp[t / 32].push_back(t % 32);
  if (lanesByWarp.empty()) return "no thread";
  std::vector<int64_t> warps;
  bool whole = true, sameLanes = true;
  const std::vector<int64_t> &first = lanesByWarp.begin()->second;
  for (const auto &[w, lanes] : lanesByWarp) {
    warps.push_back(w);
    whole = whole && lanes.size() == 32;
    sameLanes = sameLanes && lanes == first;
  }
  std::string warpText = (warps.size() == 1 ? "warp " : "warps ") + runs(warps);
  if (whole) return warpText;
  if (sameLanes) return (first.size() == 1 ? "lane " : "lanes ") + runs(first) + " of " + warpText;
  return "tid.x " + runs(tids);
}

} // namespace cake
