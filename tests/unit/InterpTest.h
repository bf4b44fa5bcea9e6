// Helpers of the interpreter's unit tests: compile a kernel from text or a sample, random inputs, bf16
// rounding, references and tolerant comparison (tests/unit/test_interp*.cpp).
#pragma once
#include "frontend/Inline.h"
#include "frontend/Parser.h"
#include "frontend/Sema.h"
#include "interp/Interpreter.h"
#include "interp/Numerics.h"
#include "support/Diagnostics.h"
#include "support/ReadFile.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace cake::interp::test {

struct Program {
  SourceManager sm;
  DiagnosticEngine diags{sm, 0};
  Ptr<Module> module;
  SemaResult sema;
  std::string messages() const {
    std::string out;
    for (const Diagnostic &d : diags.diagnostics()) out += std::string(diagInfo(d.kind).code) + ": " + d.message + "\n";
    return out;
  }
  const Kernel &kernel(const std::string &name = "") const {
    for (const Ptr<Kernel> &k : module->kernels)
      if (name.empty() || k->name == name) return *k;
    FAIL("no kernel " << name);
    return *module->kernels.front();
  }
  bool has(const char *code) const {
    for (const Diagnostic &d : diags.diagnostics())
      if (diagInfo(d.kind).code == code) return true;
    return false;
  }
};

// only: the kernels kept (cakec --kernel), all when empty.
inline std::unique_ptr<Program> compile(const std::string &source, std::map<std::string, int64_t> defines = {},
                                        const std::vector<std::string> &only = {}) {
  auto p = std::make_unique<Program>();
  uint32_t file = p->sm.addBuffer("t.cake", source);
  p->module = parseModule(p->sm, file, p->diags);
  REQUIRE_MESSAGE(!p->diags.hasErrors(), p->messages());
  if (!only.empty())
    std::erase_if(p->module->kernels,
                  [&](const Ptr<Kernel> &k) { return std::find(only.begin(), only.end(), k->name) == only.end(); });
  REQUIRE(inlineFunctions(*p->module, p->sm, p->diags));
  SemaOptions o;
  o.defines = std::move(defines);
  p->sema = analyzeModule(*p->module, o, p->diags);
  REQUIRE_MESSAGE(p->sema.ok, p->messages());
  return p;
}

// A .cake file of the repository (path relative to its root).
inline std::unique_ptr<Program> repoFile(const std::string &path, std::map<std::string, int64_t> defines = {},
                                         const std::vector<std::string> &only = {}) {
  ReadFileResult r = readFileBounded(std::string(CAKE_SOURCE_DIR) + "/" + path, 1 << 20);
  REQUIRE(r.ok());
  return compile(r.text, std::move(defines), only);
}

inline std::unique_ptr<Program> sample(const std::string &name, std::map<std::string, int64_t> defines = {}) {
  return repoFile("samples/" + name, std::move(defines));
}

inline std::vector<double> randoms(size_t n, uint64_t seed, double lo = -1, double hi = 1) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<double> v(n);
  for (double &x : v) x = d(g);
  return v;
}

inline double bf16(double x) { return roundToFloat(x, ScalarKind::BF16); }

inline std::vector<double> rounded(std::vector<double> v) {
  for (double &x : v) x = bf16(x);
  return v;
}

// Counts elements outside |got - want| <= atol + rtol * |want|, printing the first few.
inline int mismatches(const HostTensor &got, const std::vector<double> &want, double atol, double rtol) {
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double g = got.at(int64_t(i));
    if (!(std::fabs(g - want[i]) <= atol + rtol * std::fabs(want[i]))) {
      if (bad < 5) MESSAGE("element " << i << ": got " << g << ", want " << want[i]);
      ++bad;
    }
  }
  return bad;
}

// C[m, n] = A[m, k] * B[n, k]^T in double.
inline std::vector<double> matmulNT(const std::vector<double> &a, const std::vector<double> &b, int64_t m, int64_t n, int64_t k) {
  std::vector<double> c(size_t(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t kk = 0; kk < k; ++kk) s += a[size_t(i * k + kk)] * b[size_t(j * k + kk)];
      c[size_t(i * n + j)] = s;
    }
  return c;
}

inline double seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace cake::interp::test
