// Unit tests of the named-barrier family (src/verify/NamedBarriers.cpp) and the uniformity / reaching-warps
// analyses it is built on (Uniformity.h, ControlPath.h).
#include "verify_local_helpers.h"

#include "verify/ControlPath.h"
#include "verify/Uniformity.h"

using namespace cake;
using namespace cake::verifytest;

namespace {
std::string roles(const std::string &decl, const std::string &producer, const std::string &consumer, int threads = 256) {
  return "target sm_80;\nkernel k(X: f32[N]) requires(N >= 1) grid(1) threads(" + std::to_string(threads) + ") {\n" + decl +
         "\n  role p = warps(0..4) {\n" + producer + "\n  }\n  role c = warps(4..8) {\n" + consumer + "\n  }\n}\n";
}
} // namespace

TEST_CASE("named barrier: producer arrive + consumer sync with the right count is proven") {
  auto v = verifySource(roles("barrier b id(1) threads(256);", "arrive b;", "sync b;"));
  CHECK_MESSAGE(v->codes().empty(), v->messages());
  CHECK(v->result.proven >= 1);
}

TEST_CASE("named barrier: count larger than the reaching threads is E0640 with a fix-it") {
  auto v = verifySource(roles("barrier b id(1) threads(256);", "if p.warp == 0 { arrive b; }", "sync b;"));
  const Diagnostic *d = v->first("E0640");
  REQUIRE_MESSAGE(d, v->messages());
  CHECK(d->message.find("waits for 256 threads, but 160 threads reach it") != std::string::npos);
  REQUIRE(d->fixits.size() == 1);
  CHECK(d->fixits[0].replacement == "160");
  CHECK(d->notes.size() == 3);   // two uses + the declaration
}

TEST_CASE("named barrier: two roles that each fill the count alone collide (E0641)") {
  auto v = verifySource(roles("barrier b id(1) threads(128);", "sync b;", "sync b;"));
  CHECK_MESSAGE(v->has("E0641"), v->messages());
  CHECK_FALSE(v->has("E0640"));
}

TEST_CASE("named barrier: instances of one role sharing a per-warpgroup barrier collide") {
  auto v = verifySource("target sm_80;\nkernel k(X: f32[N]) requires(N >= 1) grid(1) threads(256) {\n"
                        "  barrier b id(1) threads(128);\n  role m[2] = warps(0..8) { sync b; }\n}\n");
  const Diagnostic *d = v->first("E0641");
  REQUIRE_MESSAGE(d, v->messages());
  CHECK(d->message.find("role 'm[0]'") != std::string::npos);
  CHECK(d->message.find("role 'm[1]'") != std::string::npos);
}

TEST_CASE("barriers under divergent control: tid-dependent if, elect, early return (E0642)") {
  auto tidIf = verifySource("target sm_80;\nkernel k(X: f32[N]) requires(N >= 1) grid(1) threads(128) {\n"
                            "  if tid.x < 64 { syncthreads; }\n}\n");
  CHECK_MESSAGE(tidIf->has("E0642"), tidIf->messages());
  auto elect = verifySource("target sm_80;\nkernel k(X: f32[N]) requires(N >= 1) grid(1) threads(128) {\n"
                            "  elect { syncthreads; }\n}\n");
  CHECK(elect->has("E0642"));
  auto ret = verifySource("target sm_80;\nkernel k(X: f32[N]) requires(N >= 1) grid(1) threads(128) {\n"
                          "  if lane == 3 { return; }\n  syncthreads;\n}\n");
  CHECK(ret->has("E0642"));
  // Block-uniform conditions are fine: all threads or none reach the barrier.
  auto uniform = verifySource("target sm_80;\nkernel k(X: f32[N]) requires(N >= 1) grid(4) threads(128) {\n"
                              "  if block.x == 0 && N > 5 { syncthreads; }\n}\n");
  CHECK_MESSAGE(uniform->codes().empty(), uniform->messages());
}

TEST_CASE("syncthreads reached by a subset of warps is a count mismatch, each site on its own") {
  auto v = verifySource("target sm_80;\nkernel k(X: f32[N]) requires(N >= 1) grid(1) threads(128) {\n"
                        "  syncthreads;\n  if warp < 2 { syncthreads; }\n}\n");
  auto codes = v->codes();
  CHECK(std::count(codes.begin(), codes.end(), "E0640") == 1);
}

TEST_CASE("uniformity: builtins, lets, vars assigned under divergent control") {
  auto v = verifySource("target sm_80;\nkernel k(X: f32[N]) requires(N >= 1) grid(1) threads(128) {\n"
                        "  let a = i32(block.x) * 4;\n  let b = warp * 2;\n  let c = i32(tid.x) + a;\n"
                        "  var d: i32 = 0;\n  if lane == 0 { d = 1; }\n  var e: i32 = 0;\n  e = a + 1;\n"
                        "  X[0] = f32(a + b + c + d + e);\n}\n");
  UniformityAnalysis u(*v->module->kernels[0], *v->sema.kernelInfo(v->module->kernels[0].get()));
  auto &stmts = v->module->kernels[0]->body->stmts;
  auto init = [&](size_t i) { return cast<LetStmt>(stmts[i].get())->init.get(); };
  CHECK(u.of(*init(0)) == Uniformity::Block);
  CHECK(u.of(*init(1)) == Uniformity::Warp);
  CHECK(u.of(*init(2)) == Uniformity::Thread);
  const Expr *sum = cast<CallExpr>(cast<AssignStmt>(stmts.back().get())->value.get())->args[0].get();
  CHECK(u.of(*sum) == Uniformity::Thread);
  const Expr *culprit = u.culprit(*init(2), Uniformity::Thread);
  REQUIRE(culprit);
  CHECK(isa<MemberExpr>(culprit));   // tid.x
}

TEST_CASE("uniformity: the index of a warpgroup role is warpgroup-uniform, of a warp role warp-uniform") {
  auto v = verifySource("target sm_90a;\nkernel k(X: f32[N]) requires(N >= 1) grid(1) threads(384) {\n"
                        "  role g[2] = warpgroups(0..2) {\n    let a = g.index * 2;\n    X[a] = 1.0;\n  }\n"
                        "  role w[2] = warps(8..12) {\n    let b = w.index * 2;\n    X[b] = 1.0;\n  }\n}\n");
  const Kernel &k = *v->module->kernels[0];
  UniformityAnalysis u(k, *v->sema.kernelInfo(&k));
  auto firstInit = [&](size_t role) {
    return cast<LetStmt>(cast<RoleStmt>(k.body->stmts[role].get())->body->stmts[0].get())->init.get();
  };
  CHECK(u.of(*firstInit(0)) == Uniformity::Warpgroup);
  CHECK(u.of(*firstInit(1)) == Uniformity::Warp);   // a warp-sized instance differs between warps of a warpgroup
  CHECK(std::string(uniformityName(Uniformity::Warpgroup)) == "warpgroup-uniform");
}

TEST_CASE("evalAtWarp binds warp and role indices and folds constants") {
  auto v = verifySource("target sm_80;\nkernel k<W = 2>(X: f32[N]) requires(N >= 1) grid(1) threads(256) {\n"
                        "  role r[2] = warps(0..8) {\n    if r.index == 1 && r.warp < W { X[0] = 1.0; }\n  }\n}\n");
  auto *role = cast<RoleStmt>(v->module->kernels[0]->body->stmts[0].get());
  const Expr *cond = cast<IfStmt>(role->body->stmts[0].get())->cond.get();
  CHECK(evalAtWarp(*cond, WarpPoint{5, role, 1, 1, {}}) == 1);
  CHECK(evalAtWarp(*cond, WarpPoint{7, role, 1, 3, {}}) == 0);
  CHECK(evalAtWarp(*cond, WarpPoint{1, role, 0, 1, {}}) == 0);
  CHECK(describeWarps({4, 5, 6}) == "warps 4..7");
  CHECK(describeWarps({0, 4}) == "warps 0, 4");
}

TEST_CASE("named barrier: a condition over a compile-time loop's variable counts the warps of every iteration") {
  // Two role instances take turns: instance i syncs turn[i] in iteration h == i and hands over to the other.
  const std::string turns =
      "target sm_80;\nkernel k(X: f32[N]) requires(N >= 1) grid(1) threads(256) {\n"
      "  barrier turn[2] id(1) threads(256);\n"
      "  role r[2] = warps(0..8) {\n"
      "    if r.index == 1 { arrive turn[0]; }\n"
      "    for h in 0..2 unroll {\n"
      "      if h == r.index { sync turn[r.index]; X[0] = 1.0; arrive turn[1 - r.index]; }\n"
      "    }\n"
      "    if r.index == 0 { sync turn[0]; }\n"
      "  }\n}\n";
  auto v = verifySource(turns);
  CHECK_MESSAGE(!v->has("E0601"), v->messages());
  CHECK_MESSAGE(!v->has("E0640"), v->messages());
  // The same condition over a loop with runtime bounds stays unproven.
  std::string runtime = turns;
  runtime.replace(runtime.find("for h in 0..2 unroll"), 20, "for h in 0..N");
  auto u = verifySource(runtime);
  const Diagnostic *d = u->first("E0601");
  REQUIRE_MESSAGE(d, u->messages());
  CHECK(d->message.find("selects warps by a value that is not known at compile time") != std::string::npos);
}
