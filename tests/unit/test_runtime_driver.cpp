// Runtime: the CUDA driver boundary - a missing driver is a clear error, the declared types match cuda.h,
// and a launch through the fake driver (runtime/testing) passes the right grid, cluster, shared memory,
// parameters and tensor maps.
#include "CudaDriver.h"
#include "FakeCuda.h"
#include "Launcher.h"
#include "test_runtime_helpers.h"

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>

#if CAKE_HAVE_CUDA_H
#include <cuda.h>
#endif

using namespace cake::rt;
using namespace cake::rt::testing;

namespace {

constexpr uint64_t kA = 0x7f0000000000, kB = 0x7f0000100000, kC = 0x7f0000200000;

// The fake driver's state, reached through the same dlopen handle the runtime uses.
cake_fake_cuda_state *fakeState() {
  void *handle = dlopen(CAKE_FAKE_CUDA_PATH, RTLD_NOW | RTLD_LOCAL);
  REQUIRE(handle);
  auto get = reinterpret_cast<cake_fake_cuda_state *(*)()>(dlsym(handle, "cake_fake_cuda_state_get"));
  auto reset = reinterpret_cast<void (*)()>(dlsym(handle, "cake_fake_cuda_reset"));
  REQUIRE(static_cast<bool>(get));
  REQUIRE(static_cast<bool>(reset));
  reset();
  return get();
}

std::shared_ptr<const CudaDriver> fakeDriver() {
  CudaDriverLoad load = loadCudaDriver(CAKE_FAKE_CUDA_PATH);
  REQUIRE_MESSAGE(load.driver, load.error);
  return load.driver;
}

struct GemmArgs {
  std::vector<int64_t> a{256, 512}, b{512, 512}, c{256, 512};
  std::vector<cake_arg> args{tensorArg(CAKE_DTYPE_BF16, kA, a), tensorArg(CAKE_DTYPE_BF16, kB, b),
                             tensorArg(CAKE_DTYPE_F32, kC, c), floatArg(0.5)};
};

} // namespace

TEST_CASE("runtime driver: a missing libcuda is a clear error, not a crash") {
  CudaDriverLoad load = loadCudaDriver("libcuda-that-does-not-exist.so.1");
  CHECK_FALSE(load.driver);
  CHECK(load.error.find("libcuda-that-does-not-exist.so.1 not found: no NVIDIA driver on this machine") == 0);
  // A library that exists but is not a CUDA driver.
  CudaDriverLoad notCuda = loadCudaDriver("libm.so.6");
  CHECK_FALSE(notCuda.driver);
  CHECK(notCuda.error.find("libm.so.6 is too old for the CAKE runtime (needs CUDA 12.0 or newer): missing cuInit") == 0);
}

TEST_CASE("runtime driver: cake_launch without a driver reports it after checking the arguments") {
  // Runs in a process where CAKE_LIBCUDA names no library (ctest runs each test case in its own process;
  // when the whole binary runs at once the shared driver may already be the fake one, which is also fine).
  setenv("CAKE_LIBCUDA", "/nonexistent/libcuda.so.1", 0);
  std::string error;
  cake_module *module = loadOrNull(kGemmManifest, &error);
  REQUIRE_MESSAGE(module, error);
  const cake_kernel *kernel = cake_module_kernel_at(module, 0);
  GemmArgs g;
  char err[1024];
  // Wrong arguments are reported as such even without a GPU.
  std::vector<cake_arg> bad = g.args;
  bad[3] = bad[2];
  CHECK(cake_launch(kernel, bad.data(), bad.size(), nullptr, err, sizeof err) == CAKE_ERROR_ARGUMENT);
  cake_status status = cake_launch(kernel, g.args.data(), g.args.size(), nullptr, err, sizeof err);
  if (std::string(std::getenv("CAKE_LIBCUDA")) == "/nonexistent/libcuda.so.1") {
    CHECK(status == CAKE_ERROR_DRIVER_UNAVAILABLE);
    CHECK(std::string(err).find("/nonexistent/libcuda.so.1 not found: no NVIDIA driver") != std::string::npos);
    CHECK(cake_driver_check(err, sizeof err) == CAKE_ERROR_DRIVER_UNAVAILABLE);
  }
  cake_module_free(module);
}

#if CAKE_HAVE_CUDA_H
TEST_CASE("runtime driver: declarations match cuda.h") {
  static_assert(sizeof(CuLaunchConfig) == sizeof(CUlaunchConfig));
  static_assert(offsetof(CuLaunchConfig, sharedMemBytes) == offsetof(CUlaunchConfig, sharedMemBytes));
  static_assert(offsetof(CuLaunchConfig, hStream) == offsetof(CUlaunchConfig, hStream));
  static_assert(offsetof(CuLaunchConfig, attrs) == offsetof(CUlaunchConfig, attrs));
  static_assert(offsetof(CuLaunchConfig, numAttrs) == offsetof(CUlaunchConfig, numAttrs));
  static_assert(sizeof(CuLaunchAttribute) == sizeof(CUlaunchAttribute));
  static_assert(offsetof(CuLaunchAttribute, value) == offsetof(CUlaunchAttribute, value));
  static_assert(sizeof(CuLaunchAttributeValue) == sizeof(CUlaunchAttributeValue));
  static_assert(sizeof(CuTensorMap) == sizeof(CUtensorMap));
  static_assert(alignof(CuTensorMap) == alignof(CUtensorMap));
  static_assert(kCuDeviceAttributeMultiprocessorCount == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  static_assert(kCuDeviceAttributeComputeCapabilityMajor == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  static_assert(kCuDeviceAttributeComputeCapabilityMinor == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  static_assert(kCuDeviceAttributeMaxSharedMemoryPerBlockOptin == CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  static_assert(kCuFuncAttributeMaxDynamicSharedSizeBytes == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
  static_assert(kCuFuncAttributeNonPortableClusterSizeAllowed == CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED);
  static_assert(kCuLaunchAttributeClusterDimension == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
  static_assert(static_cast<int>(TmaSwizzle::B128) == CU_TENSOR_MAP_SWIZZLE_128B);
  static_assert(static_cast<int>(TmaSwizzle::B32) == CU_TENSOR_MAP_SWIZZLE_32B);
  static_assert(static_cast<int>(TmaL2Promotion::B256) == CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
  static_assert(static_cast<int>(TmaOobFill::Nan) == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
  static_assert(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 == 9 && CU_TENSOR_MAP_DATA_TYPE_FLOAT16 == 6 &&
                CU_TENSOR_MAP_DATA_TYPE_FLOAT32 == 7 && CU_TENSOR_MAP_DATA_TYPE_INT32 == 3 &&
                CU_TENSOR_MAP_DATA_TYPE_UINT32 == 2 && CU_TENSOR_MAP_DATA_TYPE_INT64 == 5 &&
                CU_TENSOR_MAP_DATA_TYPE_UINT8 == 0);
  static_assert(CUDA_SUCCESS == kCudaSuccess);
  // The function-pointer types of the table are the ones cuda.h declares (modulo the enum/handle types).
  CHECK(sizeof(CudaDriverApi) == 16 * sizeof(void *));
}
#endif

TEST_CASE("runtime driver: a gemm launch through the fake driver") {
  cake_fake_cuda_state *fake = fakeState();
  auto driver = fakeDriver();
  auto state = loadModuleFromData(kGemmManifest, "\x7f" "ELF", 4);
  GemmArgs g;
  int stream = 0;
  cake_launch_options options{sizeof(cake_launch_options), &stream, nullptr, 0, 0};
  launchKernel(driver, *state, 0, g.args.data(), g.args.size(), &options);
  CHECK(fake->launches == 1);
  CHECK(fake->module_loads == 1);
  CHECK(std::string(fake->last_function_name) == "gemm__9");
  CHECK(fake->grid[0] == 2);
  CHECK(fake->grid[1] == 2);
  CHECK(fake->block[0] == 384);
  CHECK(fake->cluster[0] == 2);
  CHECK(fake->num_attrs == 1);
  CHECK(fake->shared_mem_bytes == 196608);
  CHECK(fake->stream == &stream);
  CHECK(fake->last_attribute == kCuFuncAttributeMaxDynamicSharedSizeBytes);
  CHECK(fake->last_attribute_value == 196608);
  CHECK(fake->tensor_map_encodes == 2);
  CHECK(fake->tm_address == kB); // the last one encoded
  CHECK(fake->tm_box[1] == 256);
  REQUIRE(fake->num_params == 9);
  uint64_t pointer;
  std::memcpy(&pointer, fake->params[2], 8);
  CHECK(pointer == kC);
  int32_t k;
  std::memcpy(&k, fake->params[4], 4);
  CHECK(k == 512);
  float alpha;
  std::memcpy(&alpha, fake->params[6], 4);
  CHECK(alpha == 0.5f);
  uint64_t mapAddress; // the fake encodes the tensor's address in the map's first bytes
  std::memcpy(&mapAddress, fake->params[7], 8);
  CHECK(mapAddress == kA);
  std::memcpy(&mapAddress, fake->params[8], 8);
  CHECK(mapAddress == kB);

  // A second launch reuses the loaded module and the shared-memory opt-in.
  int attributeCalls = fake->set_attribute_calls;
  launchKernel(driver, *state, 0, g.args.data(), g.args.size(), &options);
  CHECK(fake->launches == 2);
  CHECK(fake->module_loads == 1);
  CHECK(fake->set_attribute_calls == attributeCalls);
  state.reset();
  CHECK(fake->module_unloads == 1);
}

TEST_CASE("runtime driver: occupancy through the fake driver (block size, dynamic shared memory, no launch)") {
  cake_fake_cuda_state *fake = fakeState();
  auto driver = fakeDriver();
  auto state = loadModuleFromData(kGemmManifest, "\x7f" "ELF", 4);
  GemmArgs g;
  // 384 threads, 192 KiB of dynamic shared memory: one block per 228 KiB SM.
  CHECK(maxActiveBlocksPerSm(driver, *state, 0, g.args.data(), g.args.size(), nullptr) == 1);
  CHECK(fake->occupancy_calls == 1);
  CHECK(fake->occupancy_block_size == 384);
  CHECK(fake->occupancy_dynamic_smem == 196608);
  CHECK(fake->module_loads == 1);
  CHECK(fake->last_attribute == kCuFuncAttributeMaxDynamicSharedSizeBytes); // opted in first, as a launch does
  CHECK(fake->launches == 0);
  fake->max_smem_per_sm = 4 * (196608 + 1024);
  CHECK(maxActiveBlocksPerSm(driver, *state, 0, g.args.data(), g.args.size(), nullptr) == 4);
  CHECK(fake->module_loads == 1);
  // The arguments are checked as for a launch.
  g.args.pop_back();
  CHECK_THROWS_AS(maxActiveBlocksPerSm(driver, *state, 0, g.args.data(), g.args.size(), nullptr), LaunchError);
}

TEST_CASE("runtime driver: num_sms from the device, no context, and device errors") {
  cake_fake_cuda_state *fake = fakeState();
  auto driver = fakeDriver();
  auto state = loadModuleFromData(kScaleManifest, "\x7f" "ELF", 4);
  std::vector<int64_t> x{64, 1000}, xs{1024, 1}, y{64, 1000};
  std::vector<cake_arg> args{tensorArg(CAKE_DTYPE_F16, kA, x, &xs), tensorArg(CAKE_DTYPE_F16, kB, y), intArg(3)};
  fake->sm_count = 10;
  fake->no_context = 1;
  fake->cc_major = 8; // the manifest is sm_80
  fake->cc_minor = 0;
  launchKernel(driver, *state, 0, args.data(), args.size(), nullptr);
  CHECK(fake->primary_ctx_retains == 1);
  CHECK(fake->grid[0] == 40); // min(cdiv(64000, 256), 10 * 4)
  CHECK(fake->num_attrs == 0); // no cluster
  CHECK(fake->stream == nullptr);

  // sm_80 code runs on sm_86 but not on sm_90.
  fake->cc_major = 8;
  fake->cc_minor = 6;
  auto again = loadModuleFromData(kScaleManifest, "\x7f" "ELF", 4);
  CHECK_NOTHROW(launchKernel(driver, *again, 0, args.data(), args.size(), nullptr));
  auto gemm = loadModuleFromData(kGemmManifest, "\x7f" "ELF", 4);
  GemmArgs g;
  try {
    launchKernel(driver, *gemm, 0, g.args.data(), g.args.size(), nullptr);
    FAIL("expected a LaunchError");
  } catch (const LaunchError &e) {
    CHECK(e.status == CAKE_ERROR_CUDA);
    CHECK(std::string(e.what()).find("was compiled for sm_90a but the device has compute capability 8.6") !=
          std::string::npos);
  }
  fake->cc_major = 9;
  fake->cc_minor = 0;
  fake->max_smem_optin = 100 * 1024;
  try {
    launchKernel(driver, *gemm, 0, g.args.data(), g.args.size(), nullptr);
    FAIL("expected a LaunchError");
  } catch (const LaunchError &e) {
    CHECK(e.status == CAKE_ERROR_LAUNCH_CONFIG);
    CHECK(std::string(e.what()).find("needs 196608 bytes of dynamic shared memory; the device allows 102400") !=
          std::string::npos);
  }
  fake->cc_major = 8;
  fake->fail_module_load = 200;
  auto broken = loadModuleFromData(kScaleManifest, "\x7f" "ELF", 4);
  try {
    launchKernel(driver, *broken, 0, args.data(), args.size(), nullptr);
    FAIL("expected a LaunchError");
  } catch (const LaunchError &e) {
    CHECK(std::string(e.what()) ==
          "<memory>: cuModuleLoadData failed: CUDA_ERROR_INVALID_IMAGE (device kernel image is invalid)");
  }
}

TEST_CASE("runtime driver: cake_launch through the C API with CAKE_LIBCUDA pointing at the fake driver") {
  // Must run before anything opened the shared driver in this process (ctest runs each case alone).
  setenv("CAKE_LIBCUDA", CAKE_FAKE_CUDA_PATH, 1);
  char err[1024];
  if (cake_driver_check(err, sizeof err) != CAKE_OK) {
    MESSAGE("shared driver already opened without the fake in this process; skipped: " << err);
    return;
  }
  cake_fake_cuda_state *fake = fakeState();
  std::string error;
  cake_module *module = loadOrNull(kGemmManifest, &error);
  REQUIRE_MESSAGE(module, error);
  GemmArgs g;
  REQUIRE_MESSAGE(cake_launch(cake_module_kernel_at(module, 0), g.args.data(), g.args.size(), nullptr, err, sizeof err) ==
                      CAKE_OK,
                  err);
  CHECK(fake->launches == 1);
  CHECK(fake->grid[0] == 2);
  // The occupancy query through the C API: the same module, no launch.
  int blocks = -1;
  REQUIRE_MESSAGE(cake_kernel_occupancy(cake_module_kernel_at(module, 0), g.args.data(), g.args.size(), nullptr,
                                        &blocks, err, sizeof err) == CAKE_OK,
                  err);
  CHECK(blocks == 1);
  CHECK(fake->occupancy_calls == 1);
  CHECK(fake->launches == 1);
  CHECK(cake_kernel_occupancy(cake_module_kernel_at(module, 0), g.args.data(), g.args.size(), nullptr, nullptr, err,
                              sizeof err) == CAKE_ERROR_INVALID_ARGUMENT);
  // An empty problem launches nothing.
  std::string scaleError;
  cake_module *scale = loadOrNull(kScaleManifest, &scaleError);
  REQUIRE(scale);
  std::vector<int64_t> x{0, 1000}, xs{1024, 1}, y{0, 1000};
  std::vector<cake_arg> args{tensorArg(CAKE_DTYPE_F16, 0, x, &xs), tensorArg(CAKE_DTYPE_F16, 0, y), intArg(3)};
  CHECK(cake_launch(cake_module_kernel_at(scale, 0), args.data(), args.size(), nullptr, err, sizeof err) == CAKE_OK);
  CHECK(fake->launches == 1);
  cake_module_free(scale);
  cake_module_free(module);
  CHECK(fake->module_unloads == 1);
}

TEST_CASE("runtime driver: a prepared launch binds once, takes new addresses and keeps tensor maps per address set") {
  cake_fake_cuda_state *fake = fakeState();
  auto driver = fakeDriver();
  auto state = loadModuleFromData(kGemmManifest, "\x7f" "ELF", 4);
  GemmArgs g;
  std::unique_ptr<PreparedLaunch> prepared = prepareLaunch(driver, *state, 0, g.args.data(), g.args.size(), nullptr);
  CHECK(fake->launches == 0); // preparing launches nothing
  auto pointerParam = [&](int index) {
    uint64_t value;
    std::memcpy(&value, fake->params[index], 8);
    return value;
  };
  const uint64_t first[4] = {kA, kB, kC, 0};
  int stream = 0;
  launchPrepared(*prepared, first, 4, reinterpret_cast<CuStream>(&stream));
  launchPrepared(*prepared, first, 4, nullptr);
  CHECK(fake->launches == 2);
  CHECK(fake->tensor_map_encodes == 2); // A and B, once
  CHECK(prepared->tensorMapEncodes == 2);
  CHECK(fake->stream == nullptr);
  const uint64_t moved[4] = {kA + 0x1000, kB, kC + 0x2000, 0};
  launchPrepared(*prepared, moved, 4, nullptr);
  CHECK(pointerParam(0) == kA + 0x1000);
  CHECK(pointerParam(2) == kC + 0x2000);
  CHECK(pointerParam(7) == kA + 0x1000); // the fake's tensor map holds its address
  CHECK(fake->tensor_map_encodes == 4);
  launchPrepared(*prepared, first, 4, nullptr); // still kept: nothing encoded
  CHECK(fake->tensor_map_encodes == 4);
  CHECK(pointerParam(7) == kA);
  CHECK(fake->grid[0] == 2);
  float alpha;
  std::memcpy(&alpha, fake->params[6], 4);
  CHECK(alpha == 0.5f);
  // Nine address sets: the oldest is dropped and encoded again when it comes back.
  for (uint64_t i = 1; i <= PreparedLaunch::kMaxTensorMapSets; ++i) {
    const uint64_t set[4] = {kA + i * 0x10000, kB, kC, 0};
    launchPrepared(*prepared, set, 4, nullptr);
  }
  const int encodes = fake->tensor_map_encodes;
  launchPrepared(*prepared, first, 4, nullptr);
  CHECK(fake->tensor_map_encodes == encodes + 2);
  // Address checks read as bindLaunch's; nothing is launched.
  const int launches = fake->launches;
  const uint64_t misaligned[4] = {kA, kB + 8, kC, 0};
  CHECK_THROWS_WITH(launchPrepared(*prepared, misaligned, 4, nullptr),
                    "argument 1 (B): device address 0x7f0000100008 is not aligned to 16 bytes");
  const uint64_t null[4] = {kA, kB, 0, 0};
  CHECK_THROWS_WITH(launchPrepared(*prepared, null, 4, nullptr), "argument 2 (C): device address is null");
  CHECK_THROWS_WITH(launchPrepared(*prepared, first, 3, nullptr),
                    "kernel gemm: a prepared launch takes 4 addresses, got 3");
  CHECK(fake->launches == launches);
  prepared.reset();
  state.reset();
  CHECK(fake->module_unloads == 1);
}
