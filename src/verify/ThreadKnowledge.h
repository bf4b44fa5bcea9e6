// ThreadKnowledge: what each thread of one agent has observed - fills of the shared stages, and other agents'
// progress (their releases of stages).
//
// The sync simulator (SyncSimulator.h) runs an agent's threads in lock-step for progress: a wait executed by
// some of them blocks the whole agent.  Observation is not lock-step: a thread may read a stage only after a
// synchronisation that *it* took part in ordered it after the fill, and may overwrite a stage only after one
// ordered it after the readers' release.  This class keeps, per thread of the agent, the vector clock the
// thread has observed (one component per agent and per stage, as the simulator's clocks), and the simulator
// checks every read and every write against the executing threads' clocks.
//
// Representation.  Threads with equal knowledge share a class: a class id per thread and one clock per
// class.  An event executed by a thread subset splits the classes it cuts (the subset learns, the
// rest does not); after every update, classes with equal knowledge are merged and unused ones dropped, so a
// lock-step agent has one class and the usual elect / lane / warp guards give two or three.
//
// What each synchronisation teaches (the simulator calls these):
//   learn      an mbarrier wait, a named barrier `sync`, a generic write: the executing threads learn.
//   learnAll   syncthreads, cluster barriers: every thread of the agent learns (they are block-wide; E0642
//              reports one under divergent control).
//   syncWarps  `syncwarp(MASK)`: in every warp that executes it, the executing lanes of MASK end up knowing
//              the join of what those lanes knew (bar.warp.sync orders their memory accesses both ways).
//   knownBy    what a thread subset contributes when it arrives on an mbarrier or a named barrier.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace cake {

class ThreadKnowledge {
public:
  // `threads`: the agent's tid.x values; `width`: the number of clock components.
  void reset(const std::vector<int64_t> &threads, size_t width);

  // A null `who` stands for every thread of the agent.  `clock` points to `width` values.
  void learn(const std::vector<int64_t> *who, const int64_t *clock);
  void learnAll(const int64_t *clock);
  void learnStage(const std::vector<int64_t> *who, size_t component, int64_t version);
  void syncWarps(const std::vector<int64_t> *who, uint32_t laneMask);
  // Joins into `out` (`width` values) what any thread of `who` has observed: an arrival by several threads
  // carries the join of their knowledge.
  void knownBy(const std::vector<int64_t> *who, int64_t *out) const;

  // The threads of `who` whose clock component `component` is below `value`, ascending.
  std::vector<int64_t> unaware(const std::vector<int64_t> *who, size_t component, int64_t value) const;

  size_t classes() const { return know_.size(); }

private:
  int classOfTid(int64_t tid) const;
  void canonicalize();

  std::vector<int64_t> tids_;          // the agent's threads
  std::vector<int32_t> indexOfTid_;    // tid.x -> position in tids_ (-1: not the agent's)
  std::vector<uint16_t> classOf_;      // position -> class
  std::vector<std::vector<int64_t>> know_;   // class -> clock
};

// "lane 0 of warps 4..7", "warps 4, 5", "tid.x 128..131, 160": a thread set in words.
std::string describeThreads(const std::vector<int64_t> &tids);

} // namespace cake
