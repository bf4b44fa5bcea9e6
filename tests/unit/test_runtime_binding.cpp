// Runtime: argument checking, requires clauses, launch configuration, TMA parameters and ABI slots,
// through cake_kernel_plan (no GPU) and bindLaunch.
#include "LaunchBinding.h"
#include "test_runtime_helpers.h"

#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

using namespace cake::rt;
using namespace cake::rt::testing;

namespace {

constexpr uint64_t kA = 0x7f0000000000, kB = 0x7f0000100000, kC = 0x7f0000200000;

struct Planned {
  cake_status status;
  std::string error;
  cake_launch_plan plan{};
};

Planned plan(const char *manifest, const std::vector<cake_arg> &args, const cake_launch_options *options = nullptr) {
  std::string loadError;
  cake_module *module = loadOrNull(manifest, &loadError);
  REQUIRE_MESSAGE(module, loadError);
  Planned result;
  char err[2048];
  result.status = cake_kernel_plan(cake_module_kernel_at(module, 0), args.data(), args.size(), options, &result.plan, err,
                                   sizeof err);
  result.error = err;
  cake_module_free(module);
  return result;
}

struct Gemm {
  std::vector<int64_t> a{256, 512}, b{512, 512}, c{256, 512};
  uint64_t pa = kA, pb = kB, pc = kC;
  cake_dtype ta = CAKE_DTYPE_BF16, tb = CAKE_DTYPE_BF16, tc = CAKE_DTYPE_F32;
  cake_arg alpha = floatArg(1.5);
  std::vector<cake_arg> args() const {
    return {tensorArg(ta, pa, a), tensorArg(tb, pb, b), tensorArg(tc, pc, c), alpha};
  }
};

void checkError(const Planned &p, cake_status status, const std::string &message) {
  CAPTURE(p.error);
  CHECK(p.status == status);
  CHECK(p.error.find(message) != std::string::npos);
}

} // namespace

TEST_CASE("runtime binding: a good gemm launch plan") {
  Gemm g;
  Planned p = plan(kGemmManifest, g.args());
  CAPTURE(p.error);
  REQUIRE(p.status == CAKE_OK);
  CHECK(p.plan.grid[0] == 2);
  CHECK(p.plan.grid[1] == 2);
  CHECK(p.plan.grid[2] == 1);
  CHECK(p.plan.block[0] == 384);
  CHECK(p.plan.block[1] == 1);
  CHECK(p.plan.cluster[0] == 2);
  CHECK(p.plan.dynamic_smem_bytes == (128 + 256) * 64 * 2 * 4);
  CHECK(p.plan.num_abi_params == 9);
  CHECK(p.plan.num_tensor_maps == 2);
}

TEST_CASE("runtime binding: argument count, kind, dtype and rank") {
  Gemm g;
  std::vector<cake_arg> args = g.args();
  args.pop_back();
  checkError(plan(kGemmManifest, args), CAKE_ERROR_ARGUMENT, "kernel gemm takes 4 arguments (A, B, C, alpha), got 3");

  g.tb = CAKE_DTYPE_F16;
  checkError(plan(kGemmManifest, g.args()), CAKE_ERROR_ARGUMENT, "argument 1 (B): expected a bf16 tensor, got f16");

  Gemm rank;
  rank.c = {256, 512, 1};
  checkError(plan(kGemmManifest, rank.args()), CAKE_ERROR_ARGUMENT,
             "argument 2 (C): expected a tensor of rank 2, got rank 3");

  Gemm scalarForTensor;
  args = scalarForTensor.args();
  args[0] = intArg(3);
  checkError(plan(kGemmManifest, args), CAKE_ERROR_ARGUMENT, "argument 0 (A): expected a bf16 tensor of rank 2, got a scalar");

  Gemm tensorForScalar;
  args = tensorForScalar.args();
  args[3] = args[2];
  checkError(plan(kGemmManifest, args), CAKE_ERROR_ARGUMENT, "argument 3 (alpha): expected a f32 scalar, got a tensor");

  Gemm negative;
  negative.a = {-1, 512};
  checkError(plan(kGemmManifest, negative.args()), CAKE_ERROR_ARGUMENT, "argument 0 (A): dim 0 is negative");
}

TEST_CASE("runtime binding: shape variables must agree between tensors") {
  Gemm g;
  g.c = {128, 512};
  checkError(plan(kGemmManifest, g.args()), CAKE_ERROR_ARGUMENT,
             "argument 2 (C): dim 0 is 128 but the kernel expects `M` = 256 (M from A dim 0); shape [128, 512]");
  Gemm k;
  k.b = {512, 256};
  checkError(plan(kGemmManifest, k.args()), CAKE_ERROR_ARGUMENT,
             "argument 1 (B): dim 1 is 256 but the kernel expects `K` = 512 (K from A dim 1); shape [512, 256]");
}

TEST_CASE("runtime binding: failed requires clause names the clause, its location and the values") {
  Gemm g;
  g.a = {256, 500};
  g.b = {512, 500};
  checkError(plan(kGemmManifest, g.args()), CAKE_ERROR_REQUIREMENT,
             "kernel gemm: requirement `K % BK == 0` (gemm.cake:3:12) does not hold: K = 500, BK = 64");
}

TEST_CASE("runtime binding: alignment, null pointers, contiguity") {
  Gemm g;
  g.pc = kC + 2;
  checkError(plan(kGemmManifest, g.args()), CAKE_ERROR_ARGUMENT,
             "argument 2 (C): device address 0x7f0000200002 is not aligned to 4 bytes");
  Gemm tma;
  tma.pa = kA + 8;
  checkError(plan(kGemmManifest, tma.args()), CAKE_ERROR_ARGUMENT, "argument 0 (A): device address 0x7f0000000008 is not aligned to 16 bytes");
  Gemm null;
  null.pc = 0;
  checkError(plan(kGemmManifest, null.args()), CAKE_ERROR_ARGUMENT, "argument 2 (C): device address is null");

  Gemm transposed;
  std::vector<int64_t> strides{1, 256};
  std::vector<cake_arg> args = transposed.args();
  args[2] = tensorArg(CAKE_DTYPE_F32, kC, transposed.c, &strides);
  checkError(plan(kGemmManifest, args), CAKE_ERROR_ARGUMENT,
             "argument 2 (C): the kernel expects a contiguous (row-major) tensor; strides are [1, 256], expected [512, 1]");
  // A size-1 dimension may have any stride (PyTorch produces such strides).
  std::vector<int64_t> x{1, 1000}, xs{1024, 1}, y{1, 1000}, ys{7, 1};
  cake_launch_options options{sizeof(cake_launch_options), nullptr, nullptr, 0, 132};
  std::vector<cake_arg> scaleArgs{tensorArg(CAKE_DTYPE_F16, kA, x, &xs), tensorArg(CAKE_DTYPE_F16, kB, y, &ys), intArg(1)};
  Planned single = plan(kScaleManifest, scaleArgs, &options);
  CHECK_MESSAGE(single.status == CAKE_OK, single.error);
}

TEST_CASE("runtime binding: scalar conversion and range") {
  Gemm g;
  g.alpha = intArg(2); // an integer for a float param is fine
  CHECK(plan(kGemmManifest, g.args()).status == CAKE_OK);
  g.alpha = floatArg(1e300);
  checkError(plan(kGemmManifest, g.args()), CAKE_ERROR_ARGUMENT, "argument 3 (alpha): value 1000000");

  std::vector<int64_t> x{4, 1000}, xs{1024, 1}, y{4, 1000};
  cake_launch_options options{sizeof(cake_launch_options), nullptr, nullptr, 0, 132};
  auto scaleArgs = [&](cake_arg factor) {
    return std::vector<cake_arg>{tensorArg(CAKE_DTYPE_F16, kA, x, &xs), tensorArg(CAKE_DTYPE_F16, kB, y), factor};
  };
  checkError(plan(kScaleManifest, scaleArgs(floatArg(2.0)), &options), CAKE_ERROR_ARGUMENT,
             "argument 2 (factor): expected an integer (i32), got a float value");
  checkError(plan(kScaleManifest, scaleArgs(intArg(int64_t{1} << 31)), &options), CAKE_ERROR_ARGUMENT,
             "argument 2 (factor): value 2147483648 does not fit in i32");
  checkError(plan(kScaleManifest, scaleArgs(intArg(0)), &options), CAKE_ERROR_REQUIREMENT,
             "requirement `factor > 0 && ld >= n` (scale.cake:1:40) does not hold: factor = 0, ld = 1024, n = 1000");
}

// Issue 12 item 23: a pred takes 0 or 1 only (2, 256 and -1 used to become 1), and a negative num_sms is an
// error instead of "ask the device".
TEST_CASE("runtime binding: pred values other than 0 and 1, and a negative num_sms, are refused") {
  std::string manifest = R"json({"format": "cake-manifest", "version": 1, "arch": "sm_80", "cubin": "p.cubin",
    "kernels": [{"name": "p", "params": [{"name": "flag", "kind": "scalar", "dtype": "pred"}],
                 "launch": {"grid": ["num_sms"], "block": [32]}, "abi": [{"kind": "scalar", "param": 0}]}]})json";
  cake_launch_options options{sizeof(cake_launch_options), nullptr, nullptr, 0, 132};
  for (int64_t good : {0, 1})
    CHECK(plan(manifest.c_str(), {intArg(good)}, &options).status == CAKE_OK);
  for (int64_t bad : {int64_t{2}, int64_t{256}, int64_t{-1}, INT64_MIN})
    checkError(plan(manifest.c_str(), {intArg(bad)}, &options), CAKE_ERROR_ARGUMENT,
               "argument 0 (flag): value " + std::to_string(bad) + " is not a pred (0 or 1, false or true)");
  options.num_sms = -1;
  checkError(plan(manifest.c_str(), {intArg(1)}, &options), CAKE_ERROR_INVALID_ARGUMENT,
             "cake_launch_options.num_sms is -1; give a positive SM count, or 0 to ask the device");
}

TEST_CASE("runtime binding: strided tensors, stride shape variables and num_sms") {
  std::vector<int64_t> x{4, 1000}, xs{1024, 1}, y{4, 1000};
  std::vector<cake_arg> args{tensorArg(CAKE_DTYPE_F16, kA, x, &xs), tensorArg(CAKE_DTYPE_F16, kB, y), intArg(3)};
  cake_launch_options options{sizeof(cake_launch_options), nullptr, nullptr, 0, 132};
  Planned p = plan(kScaleManifest, args, &options);
  REQUIRE_MESSAGE(p.status == CAKE_OK, p.error);
  CHECK(p.plan.grid[0] == 16); // min(cdiv(4000, 256), 528)
  options.num_sms = 2;
  p = plan(kScaleManifest, args, &options);
  CHECK(p.plan.grid[0] == 8); // min(16, 2 * 4)
  checkError(plan(kScaleManifest, args), CAKE_ERROR_LAUNCH_CONFIG, "the launch uses num_sms but no SM count is known");
  // ld < n breaks the requirement; a stride the kernel does not allow for y (contiguous) is an error.
  std::vector<int64_t> narrow{500, 1};
  args[0] = tensorArg(CAKE_DTYPE_F16, kA, x, &narrow);
  checkError(plan(kScaleManifest, args, &options), CAKE_ERROR_REQUIREMENT, "ld = 500, n = 1000");
  // Old options struct (smaller size) is rejected instead of read past its end.
  options.struct_size = 8;
  checkError(plan(kScaleManifest, args, &options), CAKE_ERROR_INVALID_ARGUMENT, "struct_size is 8");
}

TEST_CASE("runtime binding: tensors without a shape take it from explicit shape variables") {
  std::vector<int64_t> none;
  std::vector<cake_arg> args{tensorArg(CAKE_DTYPE_F16, kA, none), tensorArg(CAKE_DTYPE_F16, kB, none), intArg(1)};
  cake_named_int vars[] = {{"R", 8}, {"n", 64}, {"ld", 64}};
  cake_launch_options options{sizeof(cake_launch_options), nullptr, vars, 3, 132};
  Planned p = plan(kScaleManifest, args, &options);
  REQUIRE_MESSAGE(p.status == CAKE_OK, p.error);
  CHECK(p.plan.grid[0] == 2);
  options.num_shape_vars = 2;
  checkError(plan(kScaleManifest, args, &options), CAKE_ERROR_ARGUMENT,
             "shape variable ld is not known: no tensor that determines it was passed with a shape; pass ld explicitly");
  cake_named_int wrong[] = {{"Q", 8}};
  options.shape_vars = wrong;
  options.num_shape_vars = 1;
  checkError(plan(kScaleManifest, args, &options), CAKE_ERROR_ARGUMENT,
             "'Q' is not a shape variable of this kernel (shape variables: R, n, ld)");
  // An explicit value that disagrees with a tensor's shape.
  std::vector<int64_t> y{4, 64};
  args[1] = tensorArg(CAKE_DTYPE_F16, kB, y);
  cake_named_int conflicting[] = {{"R", 8}, {"n", 64}, {"ld", 64}};
  options.shape_vars = conflicting;
  options.num_shape_vars = 3;
  checkError(plan(kScaleManifest, args, &options), CAKE_ERROR_ARGUMENT,
             "argument 1 (y): dim 0 is 4 but the kernel expects `R` = 8 (R from given explicitly)");
}

TEST_CASE("runtime binding: launch configuration limits") {
  Gemm g;
  g.a = {384, 512};
  g.c = {384, 512};
  checkError(plan(kGemmManifest, g.args()), CAKE_ERROR_LAUNCH_CONFIG,
             "grid.x = 3 is not a multiple of cluster.x = 2 (M = 384, BM = 128)");
  Gemm empty;
  empty.a = {0, 512};
  empty.c = {0, 512};
  empty.pa = empty.pc = 0; // PyTorch gives empty tensors a null data pointer
  Planned p = plan(kGemmManifest, empty.args());
  REQUIRE_MESSAGE(p.status == CAKE_OK, p.error); // nothing to launch: no TMA map is built
  CHECK(p.plan.grid[0] == 0);
  CHECK(p.plan.num_tensor_maps == 0);
  // An empty tensor in a non-empty launch still cannot be described to TMA.
  std::string flat = kGemmManifest;
  flat.replace(flat.find("\"grid\": [\"cdiv(M, BM)\", \"cdiv(N, BN)\"]"), 38, "\"grid\": [2, 2]");
  p = plan(flat.c_str(), empty.args());
  CHECK(p.status == CAKE_ERROR_ARGUMENT);
  CHECK(p.error.find("argument 0 (A): TMA dim 0 = 0 is outside 1..2^32") != std::string::npos);

  std::string big = kScaleManifest;
  big.replace(big.find("\"block\": [256]"), 14, "\"block\": [1024, 2]");
  std::vector<int64_t> x{4, 1000}, xs{1024, 1}, y{4, 1000};
  cake_launch_options options{sizeof(cake_launch_options), nullptr, nullptr, 0, 132};
  std::vector<cake_arg> args{tensorArg(CAKE_DTYPE_F16, kA, x, &xs), tensorArg(CAKE_DTYPE_F16, kB, y), intArg(3)};
  checkError(plan(big.c_str(), args, &options), CAKE_ERROR_LAUNCH_CONFIG, "2048 threads per block exceed 1024");

  // An empty problem without TMA plans a 0-block grid (the launch becomes a no-op).
  std::vector<int64_t> ex{0, 1000}, exs{1024, 1}, ey{0, 1000};
  std::vector<cake_arg> emptyArgs{tensorArg(CAKE_DTYPE_F16, 0, ex, &exs), tensorArg(CAKE_DTYPE_F16, 0, ey), intArg(3)};
  p = plan(kScaleManifest, emptyArgs, &options);
  REQUIRE_MESSAGE(p.status == CAKE_OK, p.error);
  CHECK(p.plan.grid[0] == 0);
}

TEST_CASE("runtime binding: TMA descriptor parameters in CUDA's order") {
  ManifestSpec manifest = parseManifest(kGemmManifest);
  Gemm g;
  std::vector<cake_arg> args = g.args();
  LaunchInputs inputs;
  inputs.args = args.data();
  inputs.numArgs = args.size();
  BoundLaunch bound = bindLaunch(manifest.kernels[0], inputs);
  REQUIRE(bound.tensorMaps.size() == 2);
  const TensorMapRequest &a = bound.tensorMaps[0];
  CHECK(a.param == 0);
  CHECK(a.dataType == 9); // BFLOAT16
  CHECK(a.rank == 2);
  CHECK(a.globalAddress == kA);
  CHECK(a.globalDim[0] == 512); // innermost (K) first
  CHECK(a.globalDim[1] == 256);
  CHECK(a.globalStrides[0] == 512 * 2);
  CHECK(a.boxDim[0] == 64);
  CHECK(a.boxDim[1] == 128);
  CHECK(a.elementStrides[0] == 1);
  CHECK(a.swizzle == 3);
  CHECK(a.l2Promotion == 2);
  CHECK(bound.tensorMaps[1].boxDim[1] == 256);
  CHECK(bound.tensorMaps[1].l2Promotion == 0);

  // Strides that are not 16-byte multiples are the caller's (a bad box is the manifest's: see
  // test_runtime_manifest.cpp, "TMA boxes are checked at load").
  Gemm odd;
  odd.a = {256, 516};
  odd.b = {512, 516};
  std::string k4 = kGemmManifest;
  k4.replace(k4.find("\"K % BK == 0\""), 13, "\"K % 4 == 0\"");
  checkError(plan(k4.c_str(), odd.args()), CAKE_ERROR_ARGUMENT,
             "argument 0 (A): TMA stride of dim 0 = 516 elements must be a positive multiple of 16 bytes");
}

TEST_CASE("runtime binding: ABI slot bytes") {
  ManifestSpec manifest = parseManifest(kGemmManifest);
  Gemm g;
  std::vector<cake_arg> args = g.args();
  LaunchInputs inputs;
  inputs.args = args.data();
  inputs.numArgs = args.size();
  BoundLaunch bound = bindLaunch(manifest.kernels[0], inputs);
  REQUIRE(bound.abi.size() == 9);
  uint64_t pointer = 0;
  std::memcpy(&pointer, bound.abi[1].bytes, 8);
  CHECK(bound.abi[1].size == 8);
  CHECK(pointer == kB);
  int32_t n = 0;
  std::memcpy(&n, bound.abi[5].bytes, 4);
  CHECK(bound.abi[5].size == 4);
  CHECK(n == 512);
  float alpha = 0;
  std::memcpy(&alpha, bound.abi[6].bytes, 4);
  CHECK(alpha == 1.5f);
  CHECK(bound.abi[7].kind == AbiKind::TensorMap);
  CHECK(bound.abi[7].tensorMap == 0);
  CHECK(bound.abi[8].tensorMap == 1);
  CHECK(bound.abi[8].size == 128);
}

TEST_CASE("runtime binding: f16 and bf16 scalar encodings round to nearest even") {
  CHECK(floatToHalfBits(1.0f) == 0x3c00);
  CHECK(floatToHalfBits(-2.0f) == 0xc000);
  CHECK(floatToHalfBits(65504.0f) == 0x7bff);
  CHECK(floatToHalfBits(65520.0f) == 0x7c00);
  CHECK(floatToHalfBits(1.0f + 1.0f / 2048) == 0x3c00);       // tie -> even
  CHECK(floatToHalfBits(1.0f + 3.0f / 2048) == 0x3c02);       // tie -> even (up)
  CHECK(floatToHalfBits(5.9604645e-8f) == 0x0001);            // smallest subnormal
  CHECK(floatToHalfBits(0.0f) == 0x0000);
  CHECK(floatToBfloat16Bits(1.0f) == 0x3f80);
  CHECK(floatToBfloat16Bits(-1.5f) == 0xbfc0);
  CHECK(floatToBfloat16Bits(1.0f + 1.0f / 256) == 0x3f80);    // tie -> even
  CHECK(floatToBfloat16Bits(1.0f + 3.0f / 256) == 0x3f82);
}
