// RuleSet: verifier obligations written as data (cakec --rules FILE; docs/rules.md), and their loader.
//
// A rules file is JSON: {"rules": [RULE, ...]}.  A rule is an ordering obligation over the operations that
// each role executes in program order (the vocabulary is RuleOpKinds.def):
//
//   "on every path (or: on some path) through role R, an operation of kind `op` on buffer T is preceded by
//    an operation of kind `after` on T with no operation of kind `reset` on T in between"
//
// loadRules() reads the JSON text of a file already in the SourceManager and reports every problem as a
// located user error in that file: E0626 when the text is not JSON (at the byte where the parser stopped),
// E0627 when a rule is not one (at the offending field's value, found in the text).  It never throws.
// The rules are then evaluated per kernel by the "rules" family (Rules.cpp).
#pragma once
#include "support/Diagnostics.h"
#include "support/SourceManager.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cake {

enum class RuleOp : uint8_t {
#define RULE_OP(Id, Spelling, Buffered, Matches) Id,
#include "verify/RuleOpKinds.def"
#undef RULE_OP
};

std::string_view ruleOpSpelling(RuleOp op);
bool ruleOpBuffered(RuleOp op);
std::optional<RuleOp> ruleOpBySpelling(std::string_view spelling);

struct Rule {
  std::string name;
  std::string message;
  std::vector<RuleOp> op;        // the operation that carries the obligation (any of these kinds)
  std::vector<RuleOp> after;     // what must precede it (any of these kinds)
  std::vector<RuleOp> reset;     // what cancels an earlier `after` (any of these kinds); may be empty
  bool allPaths = true;          // "paths": "all" (default) or "some"
  std::vector<std::string> buffers;   // only these shared arrays (empty: every one)
  std::vector<std::string> roles;     // only these roles ("block": the code outside roles); empty: every one
  bool kernelScope = false;      // "scope": "kernel" - one path through every role in source order, not per role
  SourceRange where;             // the rule's "name" value in the rules file
};

struct RuleSet {
  std::vector<Rule> rules;
};

// Parses the rules file `file` (a buffer of `sources`).  nullopt after reporting E0626 / E0627.
std::optional<RuleSet> loadRules(const SourceManager &sources, uint32_t file, DiagnosticEngine &diags);

} // namespace cake
