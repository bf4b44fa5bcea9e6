// Shared helper of the verifier-family unit tests (test_verify_*.cpp of the verify-local families): compile a
// CAKE source through parse + sema + verifyModule and collect the diagnostic codes (and messages).
#pragma once
#include "fragment_diagnostics.h"
#include "frontend/Parser.h"
#include "frontend/Sema.h"
#include "verify/Verifier.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace cake::verifytest {

struct Verified {
  SourceManager sm;
  DiagnosticEngine diags = fragmentDiagnostics(sm);
  Ptr<Module> module;
  SemaResult sema;
  VerifyResult result;
  std::vector<std::string> codes() const {
    std::vector<std::string> out;
    for (const Diagnostic &d : diags.diagnostics()) out.emplace_back(diagInfo(d.kind).code);
    return out;
  }
  bool has(const std::string &code) const {
    auto c = codes();
    return std::find(c.begin(), c.end(), code) != c.end();
  }
  // The first diagnostic with `code` (message and notes), or null.
  const Diagnostic *first(const std::string &code) const {
    for (const Diagnostic &d : diags.diagnostics())
      if (diagInfo(d.kind).code == code) return &d;
    return nullptr;
  }
  std::string messages() const {
    std::string out;
    for (const Diagnostic &d : diags.diagnostics()) out += std::string(diagInfo(d.kind).code) + ": " + d.message + "\n";
    return out;
  }
};

// `session`: verify in that verifier session (Verifier.h) instead of one of its own.
inline std::unique_ptr<Verified> verifySource(const std::string &source, VerifySession *session = nullptr) {
  auto v = std::make_unique<Verified>();
  uint32_t file = v->sm.addBuffer("t.cake", source);
  v->module = parseModule(v->sm, file, v->diags);
  REQUIRE_MESSAGE(!v->diags.hasErrors(), v->messages());
  v->sema = analyzeModule(*v->module, SemaOptions{}, v->diags);
  REQUIRE_MESSAGE(v->sema.ok, v->messages());
  v->result = verifyModule(*v->module, v->sema, VerifyOptions{}, v->diags, session);
  return v;
}

} // namespace cake::verifytest
