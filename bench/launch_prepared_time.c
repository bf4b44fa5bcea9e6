/* bench/launch_prepared_time.c: nanoseconds per cake_launch_prepared call from C - the runtime's share of a
 * prepared launch (its address checks, context, function lookup, parameter array, cuLaunchKernelEx), without
 * Python.  docs/runtime.md, "Launch overhead".
 *
 *   cc -O2 -I runtime/include bench/launch_prepared_time.c -o build/launch_prepared_time \
 *      -L build/lib -lcake_runtime -Wl,-rpath,$PWD/build/lib
 *   CAKE_LIBCUDA=build/runtime/libcake_fake_cuda.so build/launch_prepared_time bench/out/sm_90/vector_add.cubin
 *
 * Loads the cubin's first kernel, which must take three rank-1 tensors (samples/vector_add.cake), prepares a
 * launch over 65536 elements at fixed addresses, then prints the mean CPU time of 1,000,000 launches, five
 * times.
 * With the fake driver (CAKE_LIBCUDA) the time includes the fake's own cuLaunchKernelEx, which formats and
 * records what it was given; on a GPU, the driver's launch. */
#include "cake/runtime.h"

#include <stdio.h>
#include <time.h>

static double nowNs(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); /* CPU time: a shared machine's descheduling is not counted */
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  char err[4096];
  cake_module *module;
  if (argc != 2) {
    fprintf(stderr, "usage: %s KERNEL.cubin\n", argv[0]);
    return 2;
  }
  if (cake_module_load(argv[1], &module, err, sizeof err) != CAKE_OK) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  const cake_kernel *kernel = cake_module_kernel_at(module, 0);
  int64_t shape[1] = {65536}, strides[1] = {1};
  cake_arg args[3];
  uint64_t data[3];
  for (int i = 0; i < 3; ++i) {
    args[i] = (cake_arg){0};
    args[i].kind = CAKE_ARG_TENSOR;
    args[i].dtype = cake_kernel_param_dtype(kernel, (size_t)i);
    args[i].data = data[i] = 0x7F0000000000ull + (uint64_t)i * 0x10000000ull;
    args[i].rank = 1;
    args[i].shape = shape;
    args[i].strides = strides;
  }
  cake_prepared_launch *prepared;
  if (cake_launch_prepare(kernel, args, 3, NULL, &prepared, err, sizeof err) != CAKE_OK) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  const int count = 1000000;
  for (int round = 0; round < 5; ++round) {
    double start = nowNs();
    for (int i = 0; i < count; ++i)
      if (cake_launch_prepared(prepared, data, 3, NULL, err, sizeof err) != CAKE_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
      }
    printf("cake_launch_prepared: %.1f ns\n", (nowNs() - start) / count);
  }
  cake_prepared_launch_free(prepared);
  cake_module_free(module);
  return 0;
}
