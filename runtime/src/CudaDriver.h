// The slice of the CUDA driver API the runtime uses, declared here (no cuda.h at build time) and loaded
// at run time with dlopen + dlsym, so the library links no CUDA library.
//
// The declarations mirror cuda.h of CUDA 12/13 exactly (names with a `Cu` prefix instead of `CU`);
// tests/unit/test_runtime_driver.cpp checks the values and struct layouts against cuda.h when it is present.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace cake::rt {

using CuResult = int;
using CuDevice = int;
using CuContext = struct CuCtxOpaque *;
using CuModule = struct CuModOpaque *;
using CuFunction = struct CuFuncOpaque *;
using CuStream = struct CuStreamOpaque *;

constexpr CuResult kCudaSuccess = 0;
constexpr CuResult kCudaErrorNotInitialized = 3;

// CUdevice_attribute
constexpr int kCuDeviceAttributeMultiprocessorCount = 16;
constexpr int kCuDeviceAttributeComputeCapabilityMajor = 75;
constexpr int kCuDeviceAttributeComputeCapabilityMinor = 76;
constexpr int kCuDeviceAttributeMaxSharedMemoryPerBlockOptin = 97;
// CUfunction_attribute
constexpr int kCuFuncAttributeMaxDynamicSharedSizeBytes = 8;
constexpr int kCuFuncAttributeNonPortableClusterSizeAllowed = 14;
// CUlaunchAttributeID
constexpr int kCuLaunchAttributeClusterDimension = 4;

// CUtensorMap: 128 bytes; cuda.h (CUDA 13) aligns it to 128 bytes on the host (the kernel param is .align 64).
struct alignas(128) CuTensorMap {
  uint64_t opaque[16];
};
static_assert(sizeof(CuTensorMap) == 128);

// CUlaunchAttributeValue is a 64-byte union; only clusterDim is used here.
union CuLaunchAttributeValue {
  char pad[64];
  struct {
    unsigned int x, y, z;
  } clusterDim;
};

struct CuLaunchAttribute {
  int id;
  char pad[8 - sizeof(int)];
  CuLaunchAttributeValue value;
};

struct CuLaunchConfig {
  unsigned int gridDimX, gridDimY, gridDimZ;
  unsigned int blockDimX, blockDimY, blockDimZ;
  unsigned int sharedMemBytes;
  CuStream hStream;
  CuLaunchAttribute *attrs;
  unsigned int numAttrs;
};

// Function table; every pointer is non-null once loadCudaDriver succeeded.
struct CudaDriverApi {
  CuResult (*cuInit)(unsigned int flags);
  CuResult (*cuGetErrorName)(CuResult error, const char **name);
  CuResult (*cuGetErrorString)(CuResult error, const char **text);
  CuResult (*cuCtxGetCurrent)(CuContext *ctx);
  CuResult (*cuCtxSetCurrent)(CuContext ctx);
  CuResult (*cuCtxGetDevice)(CuDevice *device);
  CuResult (*cuDeviceGet)(CuDevice *device, int ordinal);
  CuResult (*cuDevicePrimaryCtxRetain)(CuContext *ctx, CuDevice device);
  CuResult (*cuDeviceGetAttribute)(int *value, int attribute, CuDevice device);
  CuResult (*cuModuleLoadData)(CuModule *module, const void *image);
  CuResult (*cuModuleUnload)(CuModule module);
  CuResult (*cuModuleGetFunction)(CuFunction *function, CuModule module, const char *name);
  CuResult (*cuFuncSetAttribute)(CuFunction function, int attribute, int value);
  CuResult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *numBlocks, CuFunction function, int blockSize,
                                                          size_t dynamicSMemSize);
  CuResult (*cuLaunchKernelEx)(const CuLaunchConfig *config, CuFunction function, void **kernelParams,
                               void **extra);
  CuResult (*cuTensorMapEncodeTiled)(CuTensorMap *tensorMap, int dataType, uint32_t rank, void *globalAddress,
                                     const uint64_t *globalDim, const uint64_t *globalStrides,
                                     const uint32_t *boxDim, const uint32_t *elementStrides, int interleave,
                                     int swizzle, int l2Promotion, int oobFill);
};

struct CudaDriver {
  CudaDriverApi api{};
  void *handle = nullptr; // from dlopen; closed when the CudaDriver is destroyed
  ~CudaDriver();

  // "cuModuleLoadData failed: CUDA_ERROR_INVALID_IMAGE (device kernel image is invalid)"
  std::string describe(const char *call, CuResult result) const;
};

struct CudaDriverLoad {
  std::shared_ptr<const CudaDriver> driver; // null on failure
  std::string error;
};

// Opens `libraryName` (e.g. "libcuda.so.1"), resolves every entry point and calls cuInit(0).
// Failure is reported, never fatal: "libcuda.so.1 not found: no NVIDIA driver on this machine (...)".
CudaDriverLoad loadCudaDriver(const std::string &libraryName);

// The process-wide driver: opened on first use from $CAKE_LIBCUDA or "libcuda.so.1", then shared.
CudaDriverLoad sharedCudaDriver();

} // namespace cake::rt
