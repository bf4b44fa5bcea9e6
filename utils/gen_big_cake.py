#!/usr/bin/env python3
"""Generate a large, valid CAKE file for front-end speed measurements (utils/bench-frontend.sh).

    utils/gen_big_cake.py [-o OUT] [--lines N] [--seed S]

Writes about N lines (default 50,000) of CAKE IR that `cakec --verify-only` accepts without diagnostics:
many kernels of two families, chosen and filled by a seeded RNG so the output is deterministic.

  simt_<n>      SIMT kernels with long bodies: vector loads/stores (+:), conversions, intrinsics (ex2, rcp,
                fma, select, max/min, abs, sqrt), integer bit operations, let/var, unrolled and stepped
                loops, if/else-if/else chains, warp reductions and shuffles in uniform control flow,
                shared memory with syncthreads.
  pipeline_<n>  Hopper warp-specialised TMA + wgmma GEMMs (roles, mbarriers, elect, parity waits,
                expect_tx, wgmma fence/commit/wait, fragment stores), the structure of samples/hopper_gemm.

Every value is typed the way docs/frontend-contract.md requires (no implicit conversions), every memory
access is masked or in bounds, and every warp-collective operation is reached by whole warps.  The test
tests/lit/driver/gen_big_cake.cake runs a smaller instance through cakec so the generator cannot rot.
"""
import argparse
import random
import sys


def float_lit(rng):
    return rng.choice(["0.5", "0.25", "1.0", "2.0", "0.125", "1.5", "3.0", "0.75", "1.0e-3", "4.0"])


class SimtKernel:
    """One SIMT kernel; body statements are generated into self.lines at the current indentation."""

    def __init__(self, rng, index, statements):
        self.rng = rng
        self.index = index
        self.statements = statements
        self.lines = []
        self.indent = 1
        self.counter = 0

    def emit(self, text):
        self.lines.append("  " * self.indent + text)

    def fresh(self, stem):
        self.counter += 1
        return "%s%d" % (stem, self.counter)

    def open(self, header):
        self.emit(header + " {")
        self.indent += 1

    def close(self, trailer=""):
        self.indent -= 1
        self.emit("}" + trailer)

    # ---- statement groups used inside the bounds-checked region (acc: f32, cnt: i32, i, t: i32)
    def vector_load(self):
        a = self.fresh("a")
        start = self.rng.choice(["i", "i + 4"])
        self.emit("let %s = X[%s +: 4];                 // f32x4, 16-byte load" % (a, start))
        self.emit("acc += (%s[0] + %s[1]) * (%s[2] - %s[3]);" % (a, a, a, a))

    def widen(self):
        w = self.fresh("w")
        self.emit("let %s = f32x8(W[i +: 8]);" % w)
        self.emit("acc = fma(%s[%d], alpha, acc);" % (w, self.rng.randrange(8)))

    def unrolled_loop(self):
        j = self.fresh("j")
        self.open("for %s in 0..ITEMS unroll" % j)
        self.emit("acc += f32(%s) * %s;" % (j, float_lit(self.rng)))
        self.emit("cnt += %s & 3;" % j)
        self.close()

    def stepped_loop(self):
        j = self.fresh("j")
        self.open("for %s in 0..%d step %d" % (j, self.rng.choice([16, 32, 64]), self.rng.choice([2, 4, 8])))
        self.emit("cnt = cnt + (%s >> 1) - (%s & 1);" % (j, j))
        self.close()

    def if_chain(self):
        self.open("if cnt %% %d == 0" % self.rng.choice([2, 3, 5, 7]))
        self.emit("acc = max(acc, %s);" % float_lit(self.rng))
        self.indent -= 1
        self.emit("} else if cnt > %d {" % self.rng.randrange(100))
        self.indent += 1
        self.emit("acc = min(acc, -%s);" % float_lit(self.rng))
        self.indent -= 1
        self.emit("} else {")
        self.indent += 1
        self.emit("acc = acc * 0.5 + 1.0;")
        self.close()

    def intrinsics(self):
        e = self.fresh("e")
        self.emit("let %s = ex2(acc * -0.125) + rcp(abs(acc) + 1.0);" % e)
        self.emit("acc = select(%s > 1.0, acc - %s, acc + sqrt(%s));" % (e, e, e))

    def bit_ops(self):
        self.emit("cnt = (cnt << 1 | t & 1) ^ cnt >> 2;")
        self.emit("cnt = ~cnt & 0xff | (cnt %% %d);" % self.rng.choice([3, 5, 9]))

    def vector_var(self):
        v = self.fresh("v")
        q = self.fresh("q")
        self.emit("var %s: f32x4;" % v)
        self.open("for %s in 0..4 unroll" % q)
        self.emit("%s[%s] = acc + f32(%s);" % (v, q, q))
        self.close()
        self.emit("Y[i +: 4] = %s;                        // 16-byte store" % v)
        self.emit("acc += %s[0] * %s[3];" % (v, v))

    def nested_predicates(self):
        self.open("if (t < 16 || cnt >= 4) && !(acc < 0.0)")
        self.emit("cnt -= 1;")
        self.close()

    def body(self):
        groups = [self.vector_load, self.widen, self.unrolled_loop, self.stepped_loop, self.if_chain,
                  self.intrinsics, self.bit_ops, self.vector_var, self.nested_predicates]
        for _ in range(self.statements):
            self.rng.choice(groups)()

    def render(self):
        items = self.rng.choice([2, 4, 8])
        out = [
            "kernel simt_%d<THREADS = 256, ITEMS = %d>(X: f32[N] align(16), Y: f32[N] align(16)," % (self.index, items),
            "    W: bf16[N] align(16), alpha: f32)",
            "  requires(N >= 8, N % 8 == 0)",
            "  grid(cdiv(N, THREADS * 8)) threads(THREADS)",
            "{",
            "  shared stage: f32[THREADS];",
            "  let t = i32(tid.x);",
            "  let i = (i32(block.x) * THREADS + t) * 8;",
            "  var acc: f32 = 0.0;",
            "  var cnt: i32 = t;",
        ]
        self.lines = []
        self.indent = 1
        self.open("if i <= N - 8")   # not i + 8 <= N: that wraps in i32 for N near 2^31 (E0670)
        self.body()
        self.close()
        out += self.lines
        out += [
            "  // uniform control flow: whole warps reach the reductions",
            "  acc = warp.sum(acc);",
            "  for k in 0..5 unroll {",
            "    acc += shfl.xor(acc, 16 >> k) * 0.5;",
            "  }",
            "  stage[t] = acc;",
            "  syncthreads;",
            "  let other = stage[(t + 1) % THREADS];",
            "  if i < N {",
            "    Y[i] = acc + other + f32(cnt);",
            "  }",
            "}",
        ]
        return out


def pipeline_kernel(rng, index):
    stages = rng.choice([2, 3, 4])
    bn = rng.choice([128, 256])
    return ("""kernel pipeline_%(i)d<BM = 128, BN = %(bn)d, BK = 64, S = %(s)d>(
    A: bf16[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[BN, BK], swizzle=128B) align(16),
    C: bf16[M, N] align(16))
  requires(M %% BM == 0, N %% BN == 0, K %% BK == 0, BM == 128, BK * 2 == 128, S >= 2)
  grid(M / BM, N / BN) threads(384)
{
  shared a: bf16[S][BM, BK] swizzle(128B) align(1024);
  shared b: bf16[S][BN, BK] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(8);

  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  syncthreads;

  let m0 = i32(block.x) * BM;
  let n0 = i32(block.y) * BN;
  let k_tiles = K / BK;

  role load = warpgroup(0) regs(40) {
    if load.warp == 0 {
      elect {
        for k in 0..k_tiles {
          let s = k %% S;
          wait empty[s] parity(((k / S) & 1) ^ 1);
          arrive full[s] expect_tx((BM + BN) * BK * 2);
          tma.load a[s] <- A[m0, k * BK] signal(full[s]);
          tma.load b[s] <- B[n0, k * BK] signal(full[s]);
        }
      }
    }
  }

  role math[2] = warpgroups(1..3) regs(232) {
    var acc: frag<wgmma_acc, f32, 64, BN, 16> = 0.0;
    for k in 0..k_tiles {
      let s = k %% S;
      wait full[s] parity((k / S) & 1);
      wgmma.fence;
      wgmma acc += a[s][64 * math.index +: 64, :] * b[s].T;
      wgmma.commit;
      wgmma.wait 1;
      if k > 0 {
        elect {
          arrive empty[(k - 1) %% S];
        }
      }
    }
    wgmma.wait 0;
    elect {
      arrive empty[(k_tiles - 1) %% S];
    }
    store C[m0 + 64 * math.index, n0] <- bf16(acc);
  }
}""" % {"i": index, "bn": bn, "s": stages}).split("\n")


def generate(target_lines, seed, pipeline_every):
    rng = random.Random(seed)
    out = [
        "// Generated by utils/gen_big_cake.py --lines %d --seed %d: a front-end benchmark input, not a real"
        % (target_lines, seed),
        "// workload.  Regenerate instead of editing.",
        "target sm_90a;",
    ]
    index = 0
    while len(out) < target_lines:
        out.append("")
        if pipeline_every and index % pipeline_every == pipeline_every - 1:
            out += pipeline_kernel(rng, index)
        else:
            out += SimtKernel(rng, index, rng.randrange(20, 60)).render()
        index += 1
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-o", "--output", help="output file (default: stdout)")
    parser.add_argument("--lines", type=int, default=50000, help="approximate number of lines (default 50000)")
    parser.add_argument("--seed", type=int, default=1, help="RNG seed (default 1)")
    parser.add_argument("--pipeline-every", type=int, default=10,
                        help="every Nth kernel is a TMA/wgmma pipeline kernel (0: none; default 10)")
    args = parser.parse_args()
    text = generate(args.lines, args.seed, args.pipeline_every)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
