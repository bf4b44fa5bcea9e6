// SignalCleanup: what cakec undoes when SIGINT, SIGTERM or SIGHUP stops it half-way.
//
// While an output's temporary file (OUT.cakec-tmp-PID) or ptxas's private folder exists, its path is
// registered here, and while ptxas runs, its process group is.  The handler (installed once by main) kills the
// registered process groups, removes the registered paths (newest first, so files go before their folder),
// then restores the default action and re-raises the signal, so the exit status still says which signal
// stopped cakec.  The registry is a fixed table of atomics: the handler only reads it and calls
// async-signal-safe functions (kill, unlink, rmdir, signal, raise).  This is the one piece of process-wide
// mutable state in cakec; a signal is process-wide, so its cleanup list has to be too.
#pragma once
#include <string>
#include <sys/types.h>

namespace cake {

// Installs the handlers for SIGINT, SIGTERM and SIGHUP (idempotent).
void installSignalCleanup();

// A registered path, unregistered (and left alone) when the guard is destroyed or release()d.
class CleanupPath {
public:
  explicit CleanupPath(const std::string &path);
  ~CleanupPath() { release(); }
  CleanupPath(const CleanupPath &) = delete;
  CleanupPath &operator=(const CleanupPath &) = delete;
  void release();

private:
  int slot_ = -1;
};

// A registered child process group (the child is its leader: pgid == pid), killed with SIGKILL by the handler.
class CleanupChild {
public:
  explicit CleanupChild(pid_t pgid);
  ~CleanupChild() { release(); }
  CleanupChild(const CleanupChild &) = delete;
  CleanupChild &operator=(const CleanupChild &) = delete;
  void release();

private:
  int slot_ = -1;
};

} // namespace cake
