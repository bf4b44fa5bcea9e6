#!/usr/bin/env python3
"""Writes the resource-bomb inputs of tests/bombs/run_bombs.py into a folder (one .cake each, < 1 MB).

Every bomb is an input that once made some stage of cakec super-linear (issue 12, items 6, 8, 9, 11, 21)
or is shaped to find the next one:
  chain_<sample>_<form>   every `let X = E;` of a sample becomes a chain of CHAIN lets in which each let uses
                          the previous one three times (form arith: c + c - c; minmax: min(c, max(c, c))),
                          so that any walker that inlines lets instead of sharing them takes 3^CHAIN steps;
  let_chain_*             the same in small hand-written kernels: an index, an if condition, a loop bound,
                          a stage index and parity, a shape binding, a requires-free constant;
  many_kernels            thousands of trivial kernels in one file (per-kernel fixed costs), identical, and
  many_distinct_kernels   the same with different requires, block sizes and constants (no query repeats);
  sweep_trivial_kernel    one trivial kernel and a --sweep of 256 variants (per-variant fixed costs);
  unroll_nest             an unroll nest far past the unroll limit (must stop before materialising);
  persistent_huge_first   a persistent tile loop starting at 0x7fffffff (sync families' enumeration), and
  first_huge_<test>       the same mutation of every persistent lit test under tests/lit/verify;
  epilogue_off_by_one     samples/blackwell_gemm.cake with its epilogue's tile loop one tile short: a loop that
                          no longer runs as often as the tile loops, so its trip count is enumerated against
                          the tile count (combinations that never occur, each simulated and shape-queried);
  flat_plus, deep_if      a flat chain of `+` and a deep if nest (parser / walker depth);
  lit_<test>              lit tests under tests/lit/verify run as they are, at the default solver limit
                          (LIT_AS_IS: their RUN lines use a smaller --verify-timeout; found by the verify fuzz
                          target, whose corpus holds them);
  many_statements         ~30,000 statements in one kernel.
Usage: gen_bombs.py OUT_DIR [--samples DIR]; writes OUT_DIR/bombs.json:
[{"file", "shape", "why"[, "limit_s"][, "sweep"]}]; "limit_s", where present, is a bomb's own CPU limit per mode
(optimised build), tighter than run_bombs.py's 5 s; "sweep" (--sweep's axes) adds a fifth mode, --estimate --sweep.
"""
import json
import os
import re
import sys

CHAIN = 24   # 3^24 ~ 2.8e11 steps for an exponential walker; linear ones see 24 lets per original let
FIRST_HUGE_LIMIT_S = 1.0   # CPU seconds per mode for the first_huge_* bombs (item 11)
# Lit tests whose mutant needs more: persistent_counter_step_tile_period's counters advance by 8 with a period of
# 16, so 16 tiles repeat its body and the enumeration runs to 34 tile counts with no finding to stop it early
# (1.1-1.3 s CPU; the unmutated test stops at its deadlock in 0.4 s).
FIRST_HUGE_LIMIT_OVERRIDES_S = {"persistent_counter_step_tile_period": 2.5}
# CPU seconds per mode for the chain_blackwell_gemm_* bombs: 7.4-9.9 s in --verify-only once (the sync
# expansion re-evaluated each 24-let chain at every use, and the epilogue's tile loop was enumerated as an
# independent trip count: ~6,000 shape queries for combinations that never occur); now 0.2-0.3 s.
CHAIN_BLACKWELL_LIMIT_S = 1.0
# CPU seconds per mode for the other chain_* bombs: the minmax chains of the persistent and TMA-epilogue GEMMs
# took 2.7-3.7 s of the common 5 s (the sync expansion of a determinacy counterexample's shape, M near 2^31,
# walked a tile loop of 8,388,608 iterations up to the 200,000-event cap, 470 MB); a loop that runs more often
# than the cap now gives the same verdict before its walk, and every chain bomb takes at most ~0.75 s.
CHAIN_LIMIT_S = 2.0
# Item 9: the verifier's cost per trivial kernel (once 14-20 ms: a Z3 context per kernel).  3,000 distinct kernels
# in one file take ~2.6 s of CPU for every stage together (~0.7 ms each in the verifier: ~2.4 plain-solver
# queries of ~0.15 ms each), held to the common 5 s; a sweep of 256 variants is held to 1 s (0.3 s measured; 2.9 s
# when each variant made its own Z3 context, ~14 ms of set-up and tear-down).
MANY_KERNELS = 3000
LIT_AS_IS = ["cp_async_shape_search_timeout.cake"]   # see lit_<test> above
SWEEP_AXES = "B=32,64,96,128,160,192,224,256,288,320,352,384,416,448,480,512 U=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16"


def shape_of(text):
    """--shape argument for a kernel source: every non-compile-time name used as a tensor dim = 4096."""
    ct = set()
    for m in re.finditer(r"kernel\s+\w+\s*<([^>]*)>", text):
        ct.update(re.findall(r"(\w+)\s*=", m.group(1)))
    names = []
    for dims in re.findall(r":\s*\w+\[([^\]]+)\]", text):
        for n in re.findall(r"[A-Za-z_]\w*", dims):
            if n not in ct and n not in names:
                names.append(n)
    return ",".join(f"{n}=4096" for n in names)


LET = re.compile(r"^(\s*)let\s+(\w+)\s*=\s*(.+?);(\s*//.*)?$")


def chain_lets(text, form):
    out = []
    serial = 0
    for line in text.split("\n"):
        m = LET.match(line)
        if not m or m.group(3).count("(") != m.group(3).count(")"):
            out.append(line)
            continue
        indent, name, init = m.group(1), m.group(2), m.group(3)
        serial += 1
        prev = f"bomb{serial}_0"
        out.append(f"{indent}let {prev} = {init};")
        for i in range(1, CHAIN + 1):
            cur = f"bomb{serial}_{i}"
            body = f"{prev} + {prev} - {prev}" if form == "arith" else f"min({prev}, max({prev}, {prev}))"
            out.append(f"{indent}let {cur} = {body};")
            prev = cur
        out.append(f"{indent}let {name} = {prev};")
    return "\n".join(out)


def chain(prefix, base, n=CHAIN, indent="  "):
    lines = [f"{indent}let {prefix}0 = {base};"]
    for i in range(1, n + 1):
        p = f"{prefix}{i - 1}"
        lines.append(f"{indent}let {prefix}{i} = {p} + {p} - {p};")
    return "\n".join(lines), f"{prefix}{n}"


def hand_written():
    bombs = {}
    c, last = chain("a", "i32(block.x) * 256 + i32(tid.x)")
    bombs["let_chain_index"] = (f"""target sm_80;
kernel k(A: f32[N], B: f32[N]) requires(N >= 1) grid(cdiv(N, 256)) threads(256) {{
{c}
  if {last} < N {{
    B[{last}] = A[{last}] + 1.0;
  }}
}}
""", "N=4096", "let chain in an index and a guard (SimtBounds, ExprToZ3, cost model)")
    c, last = chain("t", "K / 64")
    bombs["let_chain_loop_bound"] = (f"""target sm_80;
kernel k(A: f32[M, K], B: f32[M]) requires(K % 64 == 0) grid(M) threads(32) {{
{c}
  var s: f32 = 0.0;
  for j in 0..{last} {{
    s = s + A[i32(block.x), j * 64 + i32(lane)];
  }}
  if lane == 0 {{
    B[i32(block.x)] = s;
  }}
}}
""", "M=4096,K=4096", "let chain in a loop bound (trip counts, ShapeBinding, ConstEval)")
    c, last = chain("p", "k % S", indent="        ")
    c2, last2 = chain("q", "(k / S) & 1", indent="        ")
    bombs["let_chain_stage_parity"] = (f"""target sm_90a;
kernel k<S = 2>(A: f32[M, K]) requires(K % 4 == 0) grid(M) threads(32) {{
  mbarrier bar[S] arrivals(1);
  if lane == 0 {{
    mbarrier.init bar;
  }}
  syncthreads;
  elect {{
    for k in 0..K / 4 {{
{c}
{c2}
        arrive bar[{last}];
        wait bar[{last}] parity({last2});
    }}
  }}
}}
""", "M=64,K=4096", "let chain in an mbarrier stage index and parity (sync model, SyncAnalysis)")
    c, last = chain("c", "64")
    bombs["let_chain_constant"] = (f"""target sm_80;
kernel k(A: f32[N]) requires(N % 64 == 0) grid(N / 64) threads(64) {{
{c}
  shared s: f32[{last}];
  s[i32(tid.x)] = A[i32(block.x) * {last} + i32(tid.x)];
  syncthreads;
  A[i32(block.x) * {last} + i32(tid.x)] = s[{last} - 1 - i32(tid.x)];
}}
""", "N=4096", "let chain of constants (ConstEval in sema, shared sizes, codegen)")
    kernels = []
    for i in range(3000):
        kernels.append(f"kernel k{i}(A: f32[N]) requires(N >= 1) grid(cdiv(N, 128)) threads(128) {{\n"
                       f"  let i = i32(block.x) * 128 + i32(tid.x);\n  if i < N {{\n    A[i] = A[i] + 1.0;\n  }}\n}}\n")
    bombs["many_kernels"] = ("target sm_80;\n" + "".join(kernels), "N=4096", "3000 trivial kernels (per-kernel fixed costs)")
    kernels = []
    for i in range(MANY_KERNELS):
        b = 32 * (1 + i % 16)
        kernels.append(f"kernel k{i}(A: f32[N]) requires(N >= {1 + i % 7}, N <= {100000000 + i}) grid(cdiv(N, {b})) "
                       f"threads({b}) {{\n  let i = i32(block.x) * {b} + i32(tid.x);\n  if i < N {{\n"
                       f"    A[i] = A[i] * {i}.0 + 1.0;\n  }}\n}}\n")
    bombs["many_distinct_kernels"] = ("target sm_80;\n" + "".join(kernels), "N=4096",
                                      f"{MANY_KERNELS} distinct trivial kernels (per-kernel fixed costs)")
    bombs["sweep_trivial_kernel"] = ("""target sm_80;
kernel k<B = 128, U = 1>(A: f32[N]) requires(N >= 1, N <= 1 << 28) grid(cdiv(N, B)) threads(B) {
  let i = i32(block.x) * B + i32(tid.x);
  if i < N {
    A[i] = A[i] * f32(U) + 1.0;
  }
}
""", "N=4096", "a sweep of 256 variants of a trivial kernel (per-variant fixed costs)", 1.0, SWEEP_AXES)
    bombs["unroll_nest"] = ("""target sm_80;
kernel k(A: f32[N]) requires(N >= 1) grid(1) threads(32) {
  var x: f32 = 0.0;
  for a in 0..256 unroll {
    for b in 0..256 unroll {
      for c in 0..256 unroll {
        x = x + A[(a + b + c) % N];
      }
    }
  }
  A[0] = x;
}
""", "N=4096", "an unroll nest of 2^24 bodies (E0704 before materialising)")
    bombs["persistent_huge_first"] = ("""target sm_90a;
kernel k<S = 2>(A: f32[M, K]) requires(K % 4 == 0) grid(num_sms) threads(32) {
  mbarrier bar[S] arrivals(1);
  if lane == 0 {
    mbarrier.init bar;
  }
  syncthreads;
  var it: i32 = 0;
  elect {
    for t in 0x7fffffff..M step num_sms {
      for k in 0..K / 4 {
        arrive bar[it % S];
        wait bar[it % S] parity((it / S) & 1);
        it = it + 1;
      }
    }
  }
}
""", "M=4096,K=4096", "a persistent tile loop whose first tile is 0x7fffffff (item 11)")
    bombs["flat_plus"] = ("target sm_80;\nkernel k(A: f32[N]) requires(N >= 1) grid(1) threads(32) {\n  let x = " +
                          " + ".join(["i32(lane)"] * 250) + ";\n  if x < N {\n    A[x] = 1.0;\n  }\n}\n",
                          "N=4096", "a flat chain of 250 '+'")
    body = "".join("  " * (i + 1) + f"if i32(lane) != {i + 100} {{\n" for i in range(120))
    body += "  " * 121 + "A[i32(lane)] = 1.0;\n" + "".join("  " * (i + 1) + "}\n" for i in reversed(range(120)))
    bombs["deep_if"] = ("target sm_80;\nkernel k(A: f32[N]) requires(N >= 32) grid(1) threads(32) {\n" + body + "}\n",
                        "N=4096", "120 nested ifs (path conditions)")
    stmts = "".join(f"  x = x + A[{i % 64}];\n" for i in range(30000))
    bombs["many_statements"] = ("target sm_80;\nkernel k(A: f32[N]) requires(N >= 64) grid(1) threads(32) {\n"
                                "  var x: f32 = 0.0;\n" + stmts + "  A[0] = x;\n}\n", "N=4096", "30,000 statements")
    return bombs


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    out = sys.argv[1]
    samples = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples")
    if "--samples" in sys.argv:
        samples = sys.argv[sys.argv.index("--samples") + 1]
    os.makedirs(out, exist_ok=True)
    index = []

    def write(name, text, shape, why, limit_s=None, sweep=None):
        path = os.path.join(out, name + ".cake")
        data = text.encode()
        assert len(data) < 1 << 20, f"{name} is {len(data)} bytes, over the 1 MB the bomb check is about"
        with open(path, "wb") as f:
            f.write(data)
        entry = {"file": path, "shape": shape, "why": why}
        if limit_s is not None:
            entry["limit_s"] = limit_s
        if sweep is not None:
            entry["sweep"] = sweep
        index.append(entry)

    for name in sorted(os.listdir(samples)):
        if not name.endswith(".cake"):
            continue
        text = open(os.path.join(samples, name)).read()
        for form in ("arith", "minmax"):
            write(f"chain_{name[:-5]}_{form}", chain_lets(text, form), shape_of(text),
                  f"every let of samples/{name} as a chain of {CHAIN} lets ({form})",
                  CHAIN_BLACKWELL_LIMIT_S if name == "blackwell_gemm.cake" else CHAIN_LIMIT_S)
    for name, bomb in hand_written().items():
        write(name, *bomb)
    lit_verify = os.path.join(os.path.dirname(samples), "tests", "lit", "verify")
    for name in LIT_AS_IS:
        path = os.path.join(lit_verify, name)
        if os.path.exists(path):
            text = open(path).read()
            write(f"lit_{name[:-5]}", text, shape_of(text), f"tests/lit/verify/{name} at the default solver limit")
    bw = os.path.join(samples, "blackwell_gemm.cake")
    if os.path.exists(bw):
        text = open(bw).read()
        header = "    for p in first..tiles step stride {\n      let m0"   # the epilogue's (4-space indent)
        if text.count(header) == 1:
            write("epilogue_off_by_one", text.replace(header, "    for p in first..tiles - 1 step stride {\n      let m0"),
                  shape_of(text), "samples/blackwell_gemm.cake with its epilogue's tile loop one tile short")
    # The fuzz mutant of item 11: a persistent tile loop's first tile 0x7fffffff, in every lit test that has one
    # (17 s once, 2.4 s with a fresh default solver per query of the sync analysis' shape enumeration; now 0.2-0.5
    # s): each must stay under FIRST_HUGE_LIMIT_S per mode (or its FIRST_HUGE_LIMIT_OVERRIDES_S).
    lit = os.path.join(os.path.dirname(samples), "tests", "lit", "verify")
    if os.path.isdir(lit):
        for name in sorted(os.listdir(lit)):
            if not name.endswith(".cake"):
                continue
            text = open(os.path.join(lit, name)).read()
            mutant = re.sub(r"\bin first\.\.", "in 0x7fffffff..", text)
            if mutant != text:
                write(f"first_huge_{name[:-5]}", mutant, shape_of(text),
                      f"tests/lit/verify/{name} with its persistent loop starting at 0x7fffffff",
                      FIRST_HUGE_LIMIT_OVERRIDES_S.get(name[:-5], FIRST_HUGE_LIMIT_S))
    with open(os.path.join(out, "bombs.json"), "w") as f:
        json.dump(index, f, indent=1)
    print(f"gen_bombs: {len(index)} bombs in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
