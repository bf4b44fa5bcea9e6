// A progress bar on stderr (see ProgressBar.h).
#include "support/ProgressBar.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace cake {

namespace {
constexpr double kQuietSeconds = 1.0;   // shorter work shows nothing (CAKEC_PROGRESS_AFTER_MS)
constexpr double kRedrawSeconds = 0.1;
constexpr size_t kBarWidth = 30;

void writeStderr(const std::string &text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n <= 0) return;   // a progress bar is not worth an error
    done += static_cast<size_t>(n);
  }
}
} // namespace

ProgressBar::ProgressBar(std::string what, size_t total, bool enabled)
    : what_(std::move(what)), total_(total), enabled_(enabled && total > 0), quietSeconds_(kQuietSeconds) {
  if (const char *ms = std::getenv("CAKEC_PROGRESS_AFTER_MS"); ms && *ms) {
    char *end = nullptr;
    double value = std::strtod(ms, &end);
    if (end && *end == '\0' && value >= 0) quietSeconds_ = value / 1000;
  }
}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::finish() {
  std::lock_guard<std::mutex> lock(drawing_);
  enabled_ = false;
  if (drawnWidth_) writeStderr("\r" + std::string(drawnWidth_, ' ') + "\r");
  drawnWidth_ = 0;
}

std::string ProgressBar::line(const std::string &what, size_t done, size_t total, double seconds) {
  size_t filled = total ? kBarWidth * std::min(done, total) / total : 0;
  char tail[64];
  std::snprintf(tail, sizeof tail, "] %zu/%zu %.1f s", done, total, seconds);
  return what + " [" + std::string(filled, '#') + std::string(kBarWidth - filled, '.') + tail;
}

bool ProgressBar::stderrIsTerminal() { return ::isatty(STDERR_FILENO) == 1; }

void ProgressBar::advance() {
  size_t done = done_.fetch_add(1) + 1;
  if (!enabled_) return;
  Clock::time_point now = Clock::now();
  double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < quietSeconds_) return;
  std::unique_lock<std::mutex> lock(drawing_, std::try_to_lock);
  if (!lock.owns_lock()) return;   // another thread is drawing
  if (drawnWidth_ && std::chrono::duration<double>(now - lastDrawn_).count() < kRedrawSeconds && done < total_) return;
  lastDrawn_ = now;
  std::string text = line(what_, done, total_, elapsed);
  std::string pad = text.size() < drawnWidth_ ? std::string(drawnWidth_ - text.size(), ' ') : "";
  writeStderr("\r" + text + pad);
  drawnWidth_ = std::max(drawnWidth_, text.size());
}

} // namespace cake
