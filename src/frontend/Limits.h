// Limits: how deep the parser lets a program nest, shared by every stage that walks what it built.
#pragma once

namespace cake {

constexpr unsigned kMaxNesting = 256;
// Operators of flat binary chains (`a + b + c ...`, each a level of the left-leaning tree) along one path of
// an expression tree: counted apart from kMaxNesting, so the tree depth stays below their sum (E0813).
constexpr unsigned kMaxChainOperators = 1024;
// The deepest expression tree the parser builds: every later walk over expressions (constant folding, the
// verifier's translations) follows at least this far, so that whatever parses is also analysed.  Chains of lets
// substituted into one another can go deeper; those walks report that as such.
constexpr unsigned kMaxExprDepth = kMaxNesting + kMaxChainOperators;

} // namespace cake
