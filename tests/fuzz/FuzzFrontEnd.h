// Shared by the fuzz targets that start past the front end (fuzz_verify.cpp, fuzz_cost.cpp): runs lex +
// parse + inline + sema on the input and hands back the typed module when sema accepted it, the way the
// driver does before --verify-only and --estimate.
#pragma once
#include "frontend/Inline.h"
#include "frontend/Parser.h"
#include "frontend/Sema.h"
#include "support/Diagnostics.h"

#include <cstdint>
#include <memory>
#include <string>

namespace cake::fuzz {

struct Analysed {
  SourceManager sources;
  std::unique_ptr<DiagnosticEngine> diags;
  Ptr<Module> module;
  SemaResult sema;
  bool ok = false;   // parsed, inlined and sema'd without errors
};

inline std::unique_ptr<Analysed> analyse(const uint8_t *data, size_t size) {
  auto a = std::make_unique<Analysed>();
  uint32_t file = a->sources.addBuffer("fuzz.cake", std::string(reinterpret_cast<const char *>(data), size));
  a->diags = std::make_unique<DiagnosticEngine>(a->sources);
  a->module = parseModule(a->sources, file, *a->diags);
  if (!a->module || a->diags->hasErrors()) return a;
  if (!inlineFunctions(*a->module, a->sources, *a->diags) || a->diags->hasErrors()) return a;
  a->sema = analyzeModule(*a->module, SemaOptions{}, *a->diags);
  a->ok = a->sema.ok && !a->diags->hasErrors();
  return a;
}

// A 64-bit FNV-1a hash of the input: the fuzz targets draw their extra choices (shapes) from it, so that a
// reproducer file replays exactly.
inline uint64_t inputHash(const uint8_t *data, size_t size) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
  return h;
}

} // namespace cake::fuzz
