// WorkCounter, iteration classes: counts a long loop whose control flow reads its own variable by walking
// one iteration per class of iterations that take the same control path, instead of walking many.
//
// How
//   * After the first iteration (walked in full by runIterations), every iteration's body is traced: walked
//     with controlOnly_ set (ControlTrace.cpp), which evaluates only the lets, vars and conditions on the
//     control path and hashes each branch's taken lanes, each non-constant loop bound and how each nested
//     loop was counted.  Iterations with equal traces form a class.  Nested loops and branches that read
//     both this loop's variable and an inner one are covered alike: they are part of the trace.
//   * One iteration of each class is walked in full and its counts are scaled by the class size.
//   * Only loops whose bodies leave no control state behind (leavesNoControlState: no return, no assignment
//     to an integer var a control value reads) are classified: every iteration then starts from the same
//     control state, so tracing iteration i alone shows the path iteration i takes.  (Vars that only move
//     addresses, like a stage counter, keep in a walked iteration the value the walk has reached.)  The
//     others keep the walk of WorkCounter.cpp (exactly up to 16 iterations, else the first and last 6
//     plus a scaled middle one).
//   * Like the scaled loops of WorkCounter.cpp, this takes an iteration's work to be determined by its
//     control path; addresses that move with the loop variable keep the coalescing and bank conflicts of the
//     iteration walked.
//
// Cost: tracing the ragged ampere_gemm k loop visits 7 statements per iteration (the copies, ldmatrix and
// mma loops have no control flow and are skipped); it has three or four classes at any K, so its body is
// walked 4-5 times in full instead of 13 (docs/cost-model.md, section 6).  Tracing is bounded: a loop of
// more than kMaxClassifiedTrips iterations, or whose iterations would trace more than kMaxTracedStatements
// statements in all, is walked first/last/middle (simt_gemm's k loop at K = 4096 and BK = 8: 512
// iterations), with a note.
#include "cost/WorkCounterImpl.h"

namespace cake::cost::detail {

namespace {
constexpr int64_t kMaxClassifiedTrips = 256;     // longer loops: first/last/middle (WorkCounter.cpp), noted
constexpr int64_t kMaxTracedStatements = 2048;   // trips x statements traced per trip: likewise
constexpr size_t kMaxClasses = 16;                 // more classes than this: the walk is cheaper
} // namespace

LaneValue Counter::loopValueAt(int64_t lo, int64_t step, int64_t i, uint32_t bit, uint32_t loDeps) const {
  uint64_t value = static_cast<uint64_t>(lo) + static_cast<uint64_t>(i) * static_cast<uint64_t>(step);
  return LaneValue::uniform(static_cast<int64_t>(value), bit | loDeps | (bit == 0 ? kDepUnknown : 0u));
}

// Groups the iterations 0 .. trips-1 by the trace of their bodies; nullopt when there are too many classes
// or tracing every iteration would visit more than kMaxTracedStatements (as measured on iteration 0).
// Classes are in order of their first iteration.  Leaves the walk as it was.
std::optional<std::vector<IterationClass>> Counter::classifyIterations(const ForStmt &f, int64_t lo, int64_t step,
                                                                       int64_t trips, uint32_t loDeps,
                                                                       uint32_t mask) {
  const WalkMark saved = markWalk();   // evaluating control values issues instructions: not counted here
  const uint64_t savedTrace = traceHash_;
  const bool savedMode = controlOnly_;
  controlOnly_ = true;
  const uint32_t bit = loopDepBit(loopDepth_);
  std::vector<IterationClass> classes;
  std::vector<uint64_t> classTraces;   // at most kMaxClasses: a linear search
  bool tooMany = false;
  const int64_t tracedBefore = tracedStmts_;
  for (int64_t i = 0; i < trips && !tooMany; ++i) {
    traceHash_ = 0;
    iterate(f, loopValueAt(lo, step, i, bit, loDeps), mask);
    if (i == 0 && (tracedStmts_ - tracedBefore) * trips > kMaxTracedStatements) tooMany = true;
    size_t c = 0;
    while (c < classTraces.size() && classTraces[c] != traceHash_) ++c;
    if (c == classTraces.size()) {
      if (classes.size() == kMaxClasses) tooMany = true;
      classTraces.push_back(traceHash_);
      classes.push_back({i, 0});
    }
    ++classes[c].count;
  }
  controlOnly_ = savedMode;
  traceHash_ = savedTrace;
  rewindTo(saved);
  if (tooMany) return std::nullopt;
  return classes;
}

// Called after iteration 0 was walked (from `before`).  Walks one iteration of every other class and scales
// each class by its size; false, with the walk as it was, when the loop is not classified.
bool Counter::walkByClass(const ForStmt &f, int64_t lo, int64_t step, int64_t trips, uint32_t loDeps, uint32_t mask,
                          const WalkMark &before) {
  if (!leavesNoControlState(f) || loopDepBit(loopDepth_) == 0 || trips > kMaxClassifiedTrips) return false;
  const WalkMark afterFirst = markWalk();
  // a loop whose control no warp reads was classified already when another warp of this block walked it
  const ControlLoop *loop = controlLoopStack_.empty() ? nullptr : controlLoopStack_.back();
  if (loop && loop->key.loop != &f) loop = nullptr;
  std::optional<std::vector<IterationClass>> classes;
  if (loop && sameInEveryWarp(*loop))
    if (auto it = loopClasses_.find(replayKey(*loop)); it != loopClasses_.end()) classes = it->second;
  if (!classes) {
    classes = classifyIterations(f, lo, step, trips, loDeps, mask);
    if (!classes) return false;
    if (loop && sameInEveryWarp(*loop)) loopClasses_[replayKey(*loop)] = *classes;
  }
  for (const IterationClass &c : *classes) {
    traceMix(static_cast<uint64_t>(c.first));
    traceMix(static_cast<uint64_t>(c.count));
  }
  scaleWalk(before, afterFirst, static_cast<double>(classes->front().count - 1));
  for (size_t c = 1; c < classes->size(); ++c) {
    WalkMark beforeClass = markWalk();
    iterate(f, loopValueAt(lo, step, (*classes)[c].first, loopDepBit(loopDepth_), loDeps), mask);
    scaleWalk(beforeClass, markWalk(), static_cast<double>((*classes)[c].count - 1));
  }
  return true;
}

} // namespace cake::cost::detail
