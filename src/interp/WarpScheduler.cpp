// WarpScheduler: warps as cooperative tasks with a baton (see WarpScheduler.h).
#include "interp/WarpScheduler.h"

#include "support/Diagnostics.h"

#include <algorithm>

#include <thread>

namespace cake::interp {

WarpScheduler::WarpScheduler(int warps, uint64_t seed, int warpsPerBlock)
    : warps_(warps), rng_(seed), seed_(seed), state_(size_t(warps), State::Runnable), blockedAt_(size_t(warps)),
      ready_(size_t(warps)), warpsPerBlock_(warpsPerBlock > 0 ? warpsPerBlock : warps),
      doneIn_(size_t(warps / (warpsPerBlock > 0 ? warpsPerBlock : std::max(warps, 1)) + 1), 0) {}

WarpScheduler::Barrier &WarpScheduler::barrier(int warp, int id) {
  int block = warp / warpsPerBlock_;
  int key = id == kClusterBarrier ? -1 : block * 64 + id;
  Barrier &b = barriers_[key];
  b.block = id == kClusterBarrier ? -1 : block;
  return b;
}

void WarpScheduler::wakeReady() {
  for (int w = 0; w < warps_; ++w)
    if (state_[size_t(w)] == State::Blocked && ready_[size_t(w)] && ready_[size_t(w)]()) {
      ready_[size_t(w)] = nullptr;
      state_[size_t(w)] = State::Runnable;
    }
}

void WarpScheduler::completeBarriers() {
  for (auto &[id, b] : barriers_) {
    int live = b.block < 0 ? warps_ - done_ : warpsPerBlock_ - doneIn_[size_t(b.block)];
    int expected = b.expected > 0 ? b.expected : live;
    if (b.arrived == 0 || b.arrived < expected) continue;
    if (onBarrier) onBarrier(b.arrivers, b.waiting);
    b.arrivers.clear();
    for (int w : b.waiting) state_[size_t(w)] = State::Runnable;
    b.waiting.clear();
    b.arrived -= expected;
  }
}

void WarpScheduler::handOff(int from, std::unique_lock<std::mutex> &) {
  completeBarriers();
  if (progress) progress(false);
  wakeReady();
  std::vector<int> runnable;
  auto collect = [&] {
    runnable.clear();
    for (int w = 0; w < warps_; ++w)
      if (state_[size_t(w)] == State::Runnable) runnable.push_back(w);
  };
  collect();
  while (runnable.empty() && done_ < warps_ && progress && progress(true)) {
    wakeReady();
    collect();
  }
  if (runnable.empty()) {
    if (done_ < warps_) deadlock_ = aborted_ = true;
    current_ = -1;
  } else if (seed_ == 0) {
    current_ = runnable.front();
  } else {
    current_ = runnable[std::uniform_int_distribution<size_t>(0, runnable.size() - 1)(rng_)];
  }
  (void)from;
  cv_.notify_all();
}

void WarpScheduler::waitForBaton(int me, std::unique_lock<std::mutex> &lock) {
  cv_.wait(lock, [&] { return current_ == me || aborted_; });
  if (aborted_) throw Aborted{};
}

void WarpScheduler::sync(int warp, int id, int expectedWarps, const Stmt *at, std::string what) {
  if (sequential_) CAKE_INTERNAL_ERROR("interpreter: a barrier in a kernel run without barriers");
  std::unique_lock<std::mutex> lock(mutex_);
  Barrier &b = barrier(warp, id);
  b.expected = expectedWarps;
  ++b.arrived;
  b.arrivers.push_back(warp);
  b.waiting.push_back(warp);
  state_[size_t(warp)] = State::Blocked;
  blockedAt_[size_t(warp)] = {warp, at, std::move(what)};
  handOff(warp, lock);
  waitForBaton(warp, lock);
}

void WarpScheduler::arrive(int warp, int id, int expectedWarps) {
  if (sequential_) CAKE_INTERNAL_ERROR("interpreter: a barrier in a kernel run without barriers");
  std::unique_lock<std::mutex> lock(mutex_);
  Barrier &b = barrier(warp, id);
  b.expected = expectedWarps;
  ++b.arrived;
  b.arrivers.push_back(warp);
  completeBarriers();
}

void WarpScheduler::waitUntil(int warp, std::function<bool()> ready, const Stmt *at, std::string what) {
  if (sequential_) CAKE_INTERNAL_ERROR("interpreter: a blocking wait in a kernel run without barriers");
  std::unique_lock<std::mutex> lock(mutex_);
  ready_[size_t(warp)] = std::move(ready);
  state_[size_t(warp)] = State::Blocked;
  blockedAt_[size_t(warp)] = {warp, at, std::move(what)};
  handOff(warp, lock);
  waitForBaton(warp, lock);
}

WarpScheduler::Outcome WarpScheduler::run(const std::function<void(int warp)> &body, bool mayBlock) {
  if (!mayBlock) {
    sequential_ = true;
    std::vector<int> order(static_cast<size_t>(warps_));
    for (int w = 0; w < warps_; ++w) order[size_t(w)] = w;
    if (seed_ != 0) std::shuffle(order.begin(), order.end(), rng_);
    Outcome out;
    for (int w : order) {
      try {
        body(w);
      } catch (const RunFailed &) {
        out.ok = false;
        return out;
      }
    }
    return out;
  }
  std::vector<std::thread> threads;
  threads.reserve(size_t(warps_));
  bool failed = false;
  for (int w = 0; w < warps_; ++w) {
    threads.emplace_back([this, w, &body, &failed] {
      std::unique_lock<std::mutex> lock(mutex_);
      try {
        waitForBaton(w, lock);
        lock.unlock();
        try {
          body(w);
        } catch (const RunFailed &) {
          lock.lock();
          failed = aborted_ = true;
          cv_.notify_all();
          return;
        } catch (const Aborted &) {
          throw;
        } catch (...) {
          // an internal error (a broken invariant): stop the block and rethrow it on the caller's thread
          lock.lock();
          if (!internal_) internal_ = std::current_exception();
          failed = aborted_ = true;
          cv_.notify_all();
          return;
        }
        lock.lock();
        state_[size_t(w)] = State::Done;
        ++done_;
        ++doneIn_[size_t(w / warpsPerBlock_)];
        handOff(w, lock);
      } catch (const Aborted &) {
        // another warp failed, or the block deadlocked: unwind
      }
    });
  }
  {
    std::unique_lock<std::mutex> lock(mutex_);
    handOff(-1, lock);
  }
  for (std::thread &t : threads) t.join();
  if (internal_) std::rethrow_exception(internal_);
  Outcome out;
  out.ok = !failed && !deadlock_;
  out.deadlock = deadlock_;
  if (deadlock_)
    for (int w = 0; w < warps_; ++w)
      if (state_[size_t(w)] == State::Blocked) out.blocked.push_back(blockedAt_[size_t(w)]);
  return out;
}

} // namespace cake::interp
