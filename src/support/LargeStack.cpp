// LargeStack: a joinable pthread with an explicit stack size (see LargeStack.h).
#include "support/LargeStack.h"

#include <exception>
#include <pthread.h>

namespace cake {

namespace {

struct Call {
  const std::function<int()> *body = nullptr;
  int result = 0;
  std::exception_ptr error;
};

void *trampoline(void *arg) {
  auto *call = static_cast<Call *>(arg);
  try {
    call->result = (*call->body)();
  } catch (...) {
    call->error = std::current_exception();
  }
  return nullptr;
}

} // namespace

int runOnLargeStack(const std::function<int()> &body, size_t bytes) {
  Call call;
  call.body = &body;
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return body();
  pthread_t thread;
  bool started = pthread_attr_setstacksize(&attr, bytes) == 0 && pthread_create(&thread, &attr, trampoline, &call) == 0;
  pthread_attr_destroy(&attr);
  if (!started) return body();
  pthread_join(thread, nullptr);
  if (call.error) std::rethrow_exception(call.error);
  return call.result;
}

} // namespace cake
