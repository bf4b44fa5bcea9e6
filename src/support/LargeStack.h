// LargeStack: run a function on a thread whose stack is large enough for the deepest program cakec accepts.
//
// The front end, the verifier and the cost model walk expression trees recursively, to the depth the parser
// allows (frontend/Limits.h: 1280 levels).  How much stack that takes depends on the build (sanitizers make
// frames several times larger), and the main thread's stack on the user's ulimit; so cakec runs its pipeline on
// a thread with a fixed stack of its own (reserved address space: only the pages used are ever touched).
#pragma once
#include <cstddef>
#include <functional>

namespace cake {

constexpr size_t kLargeStackBytes = size_t(256) << 20;

// Runs `body` on a new thread with a stack of `bytes` and returns its result; runs it on the calling thread
// when such a thread cannot be made (the pipeline then has whatever stack the caller has).  Exceptions escape
// to the caller as they would from a direct call.
int runOnLargeStack(const std::function<int()> &body, size_t bytes = kLargeStackBytes);

} // namespace cake
