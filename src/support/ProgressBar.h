// ProgressBar: a one-line progress bar on stderr for long loops (--sweep variants, cakec calibrate's
// measurements), shown only where a person watches.
//
// It draws nothing unless it was enabled (the caller passes `stderr is a terminal` and not --no-progress)
// and the work has run for more than a second; then it redraws at most ten times a second, in place
// ("\r" and the line), and clears its line at finish() or when it is destroyed, so the output that follows starts on a
// clean line.  The environment variable CAKEC_PROGRESS_AFTER_MS replaces the second (tests use 0).
// advance() may be called from any thread; drawing takes a lock, counting does not.  With
// stderr not a terminal (tests, pipes, files) nothing changes: no byte is written.
#pragma once
#include <atomic>
#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>

namespace cake {

class ProgressBar {
public:
  ProgressBar(std::string what, size_t total, bool enabled);
  ~ProgressBar();
  ProgressBar(const ProgressBar &) = delete;
  ProgressBar &operator=(const ProgressBar &) = delete;

  void advance();   // one more item done
  void finish();    // erase the line (if one was drawn) before other output; the destructor does it too

  // The line drawn for `done` of `total` after `seconds` ("sweep [#####.....] 12/40 2.1 s"); a pure function,
  // for tests.
  static std::string line(const std::string &what, size_t done, size_t total, double seconds);

  // Whether stderr is a terminal (the usual `enabled` argument, with the user's --no-progress).
  static bool stderrIsTerminal();

private:
  using Clock = std::chrono::steady_clock;
  std::string what_;
  size_t total_;
  std::atomic<bool> enabled_;
  Clock::time_point start_ = Clock::now();
  double quietSeconds_;   // nothing is drawn before this much time has passed
  std::atomic<size_t> done_{0};
  std::mutex drawing_;
  Clock::time_point lastDrawn_{};
  size_t drawnWidth_ = 0;   // characters of the line on screen (0: nothing drawn)
};

} // namespace cake
