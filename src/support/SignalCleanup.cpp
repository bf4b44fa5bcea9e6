// SignalCleanup: a fixed table of paths and process groups, and the handler that undoes them (see the header).
#include "support/SignalCleanup.h"

#include <atomic>
#include <climits>
#include <csignal>
#include <cstring>
#include <unistd.h>

namespace cake {

namespace {

constexpr int kPathSlots = 64;
constexpr int kChildSlots = 8;

// A slot is claimed by a compare-exchange on `state` (0 free, 1 being written, 2 live), so registrations from
// several threads do not collide; the handler only looks at live slots.
struct PathSlot {
  std::atomic<int> state{0};
  std::atomic<unsigned> order{0};
  char path[PATH_MAX];
};
struct ChildSlot {
  std::atomic<int> state{0};
  std::atomic<pid_t> pgid{0};
};

PathSlot gPaths[kPathSlots];
ChildSlot gChildren[kChildSlots];
std::atomic<unsigned> gOrder{0};

void onSignal(int sig) {
  for (ChildSlot &c : gChildren)
    if (c.state.load() == 2) ::kill(-c.pgid.load(), SIGKILL);
  // Newest first: a folder's files were registered after the folder.
  for (int done = 0; done < kPathSlots; ++done) {
    int newest = -1;
    unsigned best = 0;
    for (int i = 0; i < kPathSlots; ++i)
      if (gPaths[i].state.load() == 2 && (newest < 0 || gPaths[i].order.load() > best)) {
        newest = i;
        best = gPaths[i].order.load();
      }
    if (newest < 0) break;
    if (::unlink(gPaths[newest].path) != 0) ::rmdir(gPaths[newest].path);
    gPaths[newest].state.store(0);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

} // namespace

void installSignalCleanup() {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  struct sigaction action{};
  action.sa_handler = onSignal;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&action.sa_mask, sig);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &action, nullptr);
}

CleanupPath::CleanupPath(const std::string &path) {
  if (path.size() >= PATH_MAX) return;   // cannot be registered; the normal paths still remove it
  for (int i = 0; i < kPathSlots; ++i) {
    int expected = 0;
    if (!gPaths[i].state.compare_exchange_strong(expected, 1)) continue;
    std::memcpy(gPaths[i].path, path.c_str(), path.size() + 1);
    gPaths[i].order.store(gOrder.fetch_add(1) + 1);
    gPaths[i].state.store(2);
    slot_ = i;
    return;
  }
}

void CleanupPath::release() {
  if (slot_ >= 0) gPaths[slot_].state.store(0);
  slot_ = -1;
}

CleanupChild::CleanupChild(pid_t pgid) {
  for (int i = 0; i < kChildSlots; ++i) {
    int expected = 0;
    if (!gChildren[i].state.compare_exchange_strong(expected, 1)) continue;
    gChildren[i].pgid.store(pgid);
    gChildren[i].state.store(2);
    slot_ = i;
    return;
  }
}

void CleanupChild::release() {
  if (slot_ >= 0) gChildren[slot_].state.store(0);
  slot_ = -1;
}

} // namespace cake
