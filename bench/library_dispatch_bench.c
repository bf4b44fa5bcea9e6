/* The dispatcher's own cost on the CPU: cake_library_select over a set of shapes, many times.
 * Built and run by bench/library_dispatch.py (no GPU needed: select never calls the driver).
 *
 *   library_dispatch_bench LIBRARY_DIR ARCH SHAPES_FILE ITERATIONS
 *
 * SHAPES_FILE: one shape per line, the library's shape-variable values separated by spaces.  Prints one line
 * per shape (its entry) and then "select_ns_per_call <ns>" over ITERATIONS passes through all shapes (the
 * median of 7 repetitions). */
#include <cake/runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s LIBRARY_DIR ARCH SHAPES_FILE ITERATIONS\n", argv[0]);
    return 2;
  }
  char err[4096];
  cake_library *lib = NULL;
  if (cake_library_load(argv[1], argv[2], &lib, err, sizeof err) != CAKE_OK) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  size_t vars = cake_library_num_shape_vars(lib);
  FILE *f = fopen(argv[3], "r");
  if (!f) {
    perror(argv[3]);
    return 1;
  }
  size_t capacity = 1024, count = 0;
  int64_t *shapes = malloc(capacity * vars * sizeof *shapes);
  for (;;) {
    if (count == capacity) {
      capacity *= 2;
      shapes = realloc(shapes, capacity * vars * sizeof *shapes);
    }
    size_t v = 0;
    for (; v < vars; ++v)
      if (fscanf(f, "%lld", (long long *)&shapes[count * vars + v]) != 1)
        break;
    if (v < vars)
      break;
    ++count;
  }
  fclose(f);
  for (size_t s = 0; s < count; ++s) {
    int entry = cake_library_select(lib, &shapes[s * vars], vars);
    printf("shape");
    for (size_t v = 0; v < vars; ++v)
      printf(" %lld", (long long)shapes[s * vars + v]);
    printf(" entry %d\n", entry);
  }
  long iterations = atol(argv[4]);
  double samples[7];
  volatile int sink = 0;
  for (int r = 0; r < 7; ++r) {
    double t0 = now_ns();
    for (long i = 0; i < iterations; ++i)
      for (size_t s = 0; s < count; ++s)
        sink += cake_library_select(lib, &shapes[s * vars], vars);
    samples[r] = (now_ns() - t0) / ((double)iterations * (double)count);
  }
  qsort(samples, 7, sizeof samples[0], compare);
  printf("select_ns_per_call %.2f (min %.2f, max %.2f; %zu shapes x %ld passes, %zu entries)\n", samples[3],
         samples[0], samples[6], count, iterations, cake_library_num_entries(lib));
  (void)sink;
  free(shapes);
  cake_library_free(lib);
  return 0;
}
