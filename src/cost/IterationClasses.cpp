// WorkCounter, iteration classes: counts a rolled loop whose control flow reads its own variable by
// walking one iteration per class of iterations that take the same branches, instead of walking many.
//
// How
//   * While a loop is walked, every branch condition and loop bound inside its body whose value depends on
//     the loop variable (LaneValue dependence bit) is recorded in the loop's LoopFrame (noteControl).  A
//     value that also reads a variable of a loop nested inside, or that the model could not follow, makes
//     the frame opaque: its iterations are walked as before (WorkCounter.cpp).
//   * After the first iteration, every iteration's control values are recomputed without walking the body:
//     the loop variable is rebound, and each `let` that depends on it is re-evaluated from its initialiser
//     (reevaluateName).  A control value that reads an integer `var` assigned inside the loop, or memory,
//     cannot be recomputed this way and falls back to the walk.
//   * Iterations with equal control values (per lane) form a class.  One iteration of each class is walked
//     and its counts are scaled by the class size.  Walking a representative may reach a branch that no
//     earlier walk reached; its condition joins the frame and the classification is redone (a handful of
//     rounds at most: each adds a control of the body).
//   * Like the scaled loops of WorkCounter.cpp, this takes an iteration's work to be determined by its
//     branches; addresses that move with the loop variable keep the coalescing and bank conflicts of the
//     iteration walked.
//
// Cost: the ragged ampere_gemm k loop (kt > 0, interior && nk < K / BK, nk < cdiv(K, BK)) has three or four
// classes at any K; it is walked 3-4 times instead of 13 (docs/cost-model.md, section 6).
#include "cost/WorkCounterImpl.h"

namespace cake::cost::detail {

namespace {
constexpr int64_t kMaxClassifiedTrips = 1 << 16;   // longer loops: first/last/middle walk (WorkCounter.cpp)
constexpr size_t kMaxClasses = 16;                  // more classes than this: the walk is cheaper
constexpr int kMaxClassRounds = 8;                  // re-classifications after newly reached branches

void appendKey(std::vector<int64_t> &key, const LaneValue &v) {
  key.push_back(static_cast<int64_t>(v.kind));
  if (v.kind == LaneValue::Kind::Uniform) key.push_back(v.scalar);
  else if (v.kind == LaneValue::Kind::Varying) key.insert(key.end(), v.lanes.begin(), v.lanes.end());
}
} // namespace

LaneValue Counter::loopValueAt(int64_t lo, int64_t step, int64_t i, uint32_t bit, uint32_t loDeps) const {
  uint64_t value = static_cast<uint64_t>(lo) + static_cast<uint64_t>(i) * static_cast<uint64_t>(step);
  return LaneValue::uniform(static_cast<int64_t>(value), bit | loDeps | (bit == 0 ? kDepUnknown : 0u));
}

void Counter::noteControl(const Expr &e, uint32_t deps) {
  for (LoopFrame *frame : loopFrames_) {
    if (!(deps & frame->bit)) continue;
    if (deps & (frame->deeperBits | kDepUnknown)) frame->opaque = true;
    else if (frame->seen.insert(&e).second) frame->controls.push_back(&e);
  }
}

// The value of a name read by a control value while the frame's loop variable is rebound.
LaneValue Counter::reevaluateName(const Decl *decl, const LaneValue &current) {
  Reevaluation &r = *reevaluation_;
  if (decl == static_cast<const Decl *>(r.frame->loop)) return r.loopValue;
  if (decl->declKind == DeclKind::Var)
    for (size_t i = r.frame->assignedMark; i < assignedInts_.size(); ++i)
      if (assignedInts_[i] == decl) r.failed = true;
  if (!(current.deps & r.frame->bit)) return current;
  if (decl->declKind == DeclKind::Let) {
    const auto *let = static_cast<const LetStmt *>(decl);
    if (let->init) return eval(*let->init);
  }
  r.failed = true;   // a var or an inner loop variable computed from the loop variable
  return LaneValue::unknown(current.deps);
}

// Groups the iterations 0 .. trips-1 by their control values; nullopt when a value cannot be recomputed
// or there are too many classes.  Classes are in order of their first iteration.
std::optional<std::vector<IterationClass>> Counter::classifyIterations(LoopFrame &frame, int64_t lo, int64_t step,
                                                                       int64_t trips, uint32_t loDeps) {
  Accum saved = acc_;   // evaluating expressions issues instructions: not part of the count
  Reevaluation r;
  r.frame = &frame;
  reevaluation_ = &r;
  std::vector<IterationClass> classes;
  std::vector<std::vector<int64_t>> classKeys;   // at most kMaxClasses: a linear search beats a map
  std::vector<int64_t> key;
  for (int64_t i = 0; i < trips && !r.failed; ++i) {
    r.loopValue = loopValueAt(lo, step, i, frame.bit, loDeps);
    key.clear();
    for (const Expr *control : frame.controls) appendKey(key, eval(*control));
    size_t c = 0;
    while (c < classKeys.size() && classKeys[c] != key) ++c;
    if (c == classKeys.size()) {
      if (classes.size() == kMaxClasses) {
        r.failed = true;
        break;
      }
      classKeys.push_back(key);
      classes.push_back({i, 0});
    }
    ++classes[c].count;
  }
  reevaluation_ = nullptr;
  acc_ = saved;
  if (r.failed) return std::nullopt;
  return classes;
}

// Called after iteration 0 was walked (acc_ then holds `before` plus that iteration).  Walks one iteration
// of every other class and scales each by its class size; false (and acc_ as it was) when the loop cannot
// be classified.
bool Counter::walkByClass(const ForStmt &f, LoopFrame &frame, int64_t lo, int64_t step, int64_t trips,
                          uint32_t loDeps, uint32_t mask, const WalkMark &before) {
  if (frame.opaque || frame.bit == 0 || trips > kMaxClassifiedTrips) return false;
  const WalkMark afterFirst = markWalk();
  const uint32_t returnedAfterFirst = returned_;
  for (int round = 0; round < kMaxClassRounds; ++round) {
    std::optional<std::vector<IterationClass>> classes = classifyIterations(frame, lo, step, trips, loDeps);
    if (!classes) break;
    for (const IterationClass &c : *classes) {
      traceMix(static_cast<uint64_t>(c.first));
      traceMix(static_cast<uint64_t>(c.count));
    }
    size_t controlsKnown = frame.controls.size();
    rewindTo(afterFirst);
    scaleWalk(before, afterFirst, static_cast<double>(classes->front().count - 1));
    for (size_t c = 1; c < classes->size() && !frame.opaque; ++c) {
      WalkMark beforeClass = markWalk();
      iterate(f, loopValueAt(lo, step, (*classes)[c].first, frame.bit, loDeps), mask);
      scaleWalk(beforeClass, markWalk(), static_cast<double>((*classes)[c].count - 1));
    }
    // a lane that returned inside the loop ends it early: the walk follows that exactly
    if (frame.opaque || returned_ != returnedAfterFirst) break;
    if (frame.controls.size() == controlsKnown) return true;
  }
  rewindTo(afterFirst);
  returned_ = returnedAfterFirst;
  return false;
}

} // namespace cake::cost::detail
