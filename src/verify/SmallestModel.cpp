// SmallestModel: lexicographic minimisation by galloping and binary search (see SmallestModel.h).
#include "verify/SmallestModel.h"

#include "verify/VerifyContext.h"

namespace cake {
namespace {

constexpr int kMaxChecks = 1024;   // over all objectives: a bounded cost on the failure path

} // namespace

std::optional<z3::model> smallestModel(VerifyContext &ctx, const z3::expr &query, const std::vector<z3::expr> &objectives,
                                       std::string *undecided) {
  try {
    z3::solver s(ctx.z3());
    ctx.configureSolver(s);
    s.add(query);
    if (z3::check_result r = s.check(); r != z3::sat) {
      if (r == z3::unknown && undecided) *undecided = s.reason_unknown();
      return std::nullopt;
    }
    z3::model best = s.get_model();
    int checks = 0;
    // Is there a model with o <= bound (under what is fixed so far)?  Updates `best` when there is.
    auto feasibleAtMost = [&](const z3::expr &o, int64_t bound) -> std::optional<bool> {
      if (++checks > kMaxChecks) return std::nullopt;
      s.push();
      s.add(o <= ctx.z3().int_val(bound));
      z3::check_result r = s.check();
      if (r == z3::sat) best = s.get_model();
      s.pop();
      if (r == z3::unknown) return std::nullopt;
      return r == z3::sat;
    };
    auto valueOf = [&](const z3::expr &o) -> std::optional<int64_t> {
      int64_t v = 0;
      if (best.eval(o, true).is_numeral_i64(v)) return v;
      return std::nullopt;
    };
    constexpr int64_t kFar = int64_t(1) << 62;
    for (const z3::expr &o : objectives) {
      std::optional<int64_t> hi = valueOf(o);   // feasible
      if (!hi) continue;
      // Gallop down to an infeasible bound lo.
      std::optional<int64_t> lo;
      for (int64_t step = 1; step <= kFar && *hi > -kFar; step *= 2) {
        std::optional<bool> f = feasibleAtMost(o, *hi - step);
        if (!f) return best;
        if (!*f) {
          lo = *hi - step;
          break;
        }
        hi = valueOf(o);
        if (!hi) return best;
      }
      if (!lo) continue;   // unbounded below (within 2^62): leave it where it is
      while (*hi - *lo > 1) {   // o <= lo infeasible, o == hi feasible
        const int64_t mid = *lo + (*hi - *lo) / 2;
        std::optional<bool> f = feasibleAtMost(o, mid);
        if (!f) return best;
        if (*f) {
          hi = valueOf(o);
          if (!hi) return best;
        } else {
          lo = mid;
        }
      }
      s.add(o == ctx.z3().int_val(*hi));
    }
    return best;
  } catch (const z3::exception &e) {
    if (undecided) *undecided = e.msg();
    return std::nullopt;
  }
}

} // namespace cake
