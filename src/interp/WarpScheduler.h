// WarpScheduler: the warps of one block as cooperative tasks.
//
// Each warp runs its body on its own std::thread, but only the warp holding the baton runs; the others
// wait on one condition variable.  A warp gives the baton away only at a blocking point (a barrier) or when
// it finishes, and the scheduler then picks the next runnable warp: the lowest-numbered one for seed 0,
// otherwise a random one from a generator seeded with `seed` (the hook for a schedule explorer: every
// seed is one reproducible interleaving at barrier granularity).  So execution is deterministic for a
// seed, and a warp-specialised kernel whose warps wait on each other in any order makes progress.
//
// Blocking points are barriers and waitUntil (mbarrier waits): a warp blocked on a predicate becomes
// runnable once the predicate holds; at every hand-off the block's pending asynchronous copies may
// complete first (the `progress` hook), and when no warp is runnable they are completed one by one until
// one is (a copy in flight always completes eventually), before anything is called a deadlock.
//
// Barriers: barrier 0 (syncthreads) completes when every warp that has not finished has arrived; a named
// barrier when `threads / 32` warps have arrived or arrived-without-waiting (bar.arrive).  Deadlock is
// the state where no warp is runnable and some have not finished: run() then reports it, with the
// statement each blocked warp waits at.
//
// Errors: a warp body that throws RunFailed (after recording its diagnostic) aborts the block: every
// waiting warp wakes and unwinds with the internal Aborted exception, and run() returns false.
#pragma once
#include "frontend/AST.h"

#include <condition_variable>
#include <exception>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <vector>

namespace cake::interp {

// Thrown by a warp after it recorded a diagnostic: the block stops.
struct RunFailed {};

class WarpScheduler {
public:
  // `warpsPerBlock`: the warps of one block when the scheduler runs a cluster of blocks together (warp w
  // belongs to block w / warpsPerBlock; barriers other than kClusterBarrier are per block); 0 = one block.
  WarpScheduler(int warps, uint64_t seed, int warpsPerBlock = 0);
  static constexpr int kClusterBarrier = -1;   // cluster.sync: every live warp of every block

  struct Blocked {
    int warp;
    const Stmt *at;
    std::string what;   // "syncthreads", "sync epi (barrier 1)"
  };
  struct Outcome {
    bool ok = true;                 // every warp finished
    bool deadlock = false;          // no runnable warp left; `blocked` says where they wait
    std::vector<Blocked> blocked;
  };

  // Runs body(w) for every warp w as described above; returns when all finished, one failed, or deadlock.
  // `mayBlock` false (the kernel has no barrier) runs the warps one after another on the calling thread,
  // in warp order for seed 0 and a seeded shuffle otherwise: the same schedules without thread switches.
  Outcome run(const std::function<void(int warp)> &body, bool mayBlock = true);

  // From a warp body: arrive at barrier `id` and wait for `expectedWarps` arrivals (0 = all live warps).
  void sync(int warp, int id, int expectedWarps, const Stmt *at, std::string what);
  // From a warp body: count an arrival at barrier `id` without waiting.
  void arrive(int warp, int id, int expectedWarps);
  // From a warp body: block until `ready()` holds (an mbarrier phase).  The predicate is evaluated at every
  // hand-off, under the baton (so it may read the block's state), after the block's pending asynchronous
  // operations progressed.
  void waitUntil(int warp, std::function<bool()> ready, const Stmt *at, std::string what);

  // The block's pending asynchronous operations (TMA, cp.async): called at every hand-off.  force = false:
  // complete any number of them (seed 0: all; other seeds: a seeded random subset); force = true (no warp
  // is runnable): complete at least one if any is pending, returning false when none was.
  std::function<bool(bool force)> progress;
  // Called when a barrier completes: the warps that arrived (sync or arrive) and those it releases.
  std::function<void(const std::vector<int> &arrived, const std::vector<int> &released)> onBarrier;
  std::mt19937_64 &rng() { return rng_; }
  uint64_t seed() const { return seed_; }

private:
  enum class State : uint8_t { Runnable, Blocked, Done };
  void wakeReady();                               // blocked warps whose predicate holds become runnable
  struct Barrier {
    int block = -1;                 // whose live warps barrier 0 counts; -1: the cluster's
    int arrived = 0;
    int expected = 0;               // 0: all live warps (barrier 0)
    std::vector<int> waiting;
    std::vector<int> arrivers;
  };
  struct Aborted {};

  void completeBarriers();                        // releases every barrier whose count is reached
  void handOff(int from, std::unique_lock<std::mutex> &lock);   // picks the next warp (or detects the end)
  void waitForBaton(int me, std::unique_lock<std::mutex> &lock);

  int warps_;
  std::mt19937_64 rng_;
  uint64_t seed_;
  std::mutex mutex_;
  std::condition_variable cv_;
  int current_ = -1;
  bool aborted_ = false;
  bool deadlock_ = false;
  std::vector<State> state_;
  std::vector<Blocked> blockedAt_;
  std::vector<std::function<bool()>> ready_;     // per warp: the predicate of a waitUntil, else empty
  std::map<int, Barrier> barriers_;
  int done_ = 0;
  int warpsPerBlock_;
  std::vector<int> doneIn_;          // per block: finished warps
  Barrier &barrier(int warp, int id);
  bool sequential_ = false;
  std::exception_ptr internal_;
};

} // namespace cake::interp
