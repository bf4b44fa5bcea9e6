// Fake CUDA driver: see FakeCuda.h.  A real driver knows how many params a kernel takes from its image; the
// fake reads it from the entry name: an entry named "<name>__<n>" takes n params (their first 8 bytes are
// recorded), any other entry records none.
#include "FakeCuda.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>

namespace {

cake_fake_cuda_state g_state;
bool g_initialised = false;
int g_context_token;
int g_module_token;

struct FakeFunction {
  char name[256];
};
FakeFunction g_functions[64];
int g_num_functions;

void ensureDefaults() {
  if (!g_initialised)
    cake_fake_cuda_reset();
}

struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    char pad[64];
    struct {
      unsigned x, y, z;
    } clusterDim;
  } value;
};

struct LaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
  void *hStream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};

} // namespace

extern "C" {

__attribute__((visibility("default"))) cake_fake_cuda_state *cake_fake_cuda_state_get(void) {
  ensureDefaults();
  return &g_state;
}

__attribute__((visibility("default"))) void cake_fake_cuda_reset(void) {
  std::memset(&g_state, 0, sizeof g_state);
  g_state.sm_count = 132;
  g_state.cc_major = 9;
  g_state.cc_minor = 0;
  g_state.max_smem_optin = 227 * 1024;
  g_state.max_smem_per_sm = 228 * 1024;
  g_num_functions = 0;
  g_initialised = true;
}

#define FAKE_API __attribute__((visibility("default")))

FAKE_API int cuInit(unsigned) {
  ensureDefaults();
  ++g_state.init_calls;
  return 0;
}

FAKE_API int cuGetErrorName(int error, const char **name) {
  *name = error == 200 ? "CUDA_ERROR_INVALID_IMAGE" : error == 1 ? "CUDA_ERROR_INVALID_VALUE" : "CUDA_ERROR_UNKNOWN";
  return 0;
}

FAKE_API int cuGetErrorString(int error, const char **text) {
  *text = error == 200 ? "device kernel image is invalid" : "fake error";
  return 0;
}

FAKE_API int cuCtxGetCurrent(void **ctx) {
  ensureDefaults();
  *ctx = g_state.no_context ? nullptr : &g_context_token;
  return 0;
}

FAKE_API int cuCtxSetCurrent(void *ctx) {
  if (ctx == &g_context_token)
    g_state.no_context = 0;
  return 0;
}

FAKE_API int cuCtxGetDevice(int *device) {
  *device = 0;
  return 0;
}

FAKE_API int cuDeviceGet(int *device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 ? 0 : 101; // CUDA_ERROR_INVALID_DEVICE
}

FAKE_API int cuDevicePrimaryCtxRetain(void **ctx, int) {
  ++g_state.primary_ctx_retains;
  *ctx = &g_context_token;
  return 0;
}

FAKE_API int cuDeviceGetAttribute(int *value, int attribute, int) {
  ensureDefaults();
  switch (attribute) {
  case 16: *value = g_state.sm_count; return 0;
  case 75: *value = g_state.cc_major; return 0;
  case 76: *value = g_state.cc_minor; return 0;
  case 97: *value = g_state.max_smem_optin; return 0;
  default: *value = 0; return 1;
  }
}

FAKE_API int cuModuleLoadData(void **module, const void *image) {
  if (g_state.fail_module_load)
    return g_state.fail_module_load;
  ++g_state.module_loads;
  *module = &g_module_token;
  return image ? 0 : 1;
}

FAKE_API int cuModuleUnload(void *) {
  ++g_state.module_unloads;
  return 0;
}

FAKE_API int cuModuleGetFunction(void **function, void *, const char *name) {
  if (std::strncmp(name, "missing", 7) == 0 || g_num_functions == 64)
    return 500; // CUDA_ERROR_NOT_FOUND
  FakeFunction &f = g_functions[g_num_functions++];
  std::strncpy(f.name, name, sizeof f.name - 1);
  *function = &f;
  return 0;
}

FAKE_API int cuFuncSetAttribute(void *, int attribute, int value) {
  ++g_state.set_attribute_calls;
  g_state.last_attribute = attribute;
  g_state.last_attribute_value = value;
  return 0;
}

FAKE_API int cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, void *, int blockSize,
                                                          size_t dynamicSMemSize) {
  ++g_state.occupancy_calls;
  g_state.occupancy_block_size = blockSize;
  g_state.occupancy_dynamic_smem = dynamicSMemSize;
  if (blockSize <= 0 || blockSize > 1024)
    return 1; // CUDA_ERROR_INVALID_VALUE
  int bySmem = g_state.max_smem_per_sm / static_cast<int>(dynamicSMemSize + 1024);
  *numBlocks = std::min(std::min(2048 / blockSize, 32), bySmem);
  return 0;
}

FAKE_API int cuLaunchKernelEx(const LaunchConfig *config, void *function, void **params, void **) {
  ++g_state.launches;
  const FakeFunction *f = static_cast<const FakeFunction *>(function);
  std::snprintf(g_state.last_function_name, sizeof g_state.last_function_name, "%s", f->name);
  g_state.grid[0] = config->gridDimX;
  g_state.grid[1] = config->gridDimY;
  g_state.grid[2] = config->gridDimZ;
  g_state.block[0] = config->blockDimX;
  g_state.block[1] = config->blockDimY;
  g_state.block[2] = config->blockDimZ;
  g_state.shared_mem_bytes = config->sharedMemBytes;
  g_state.stream = config->hStream;
  g_state.num_attrs = config->numAttrs;
  g_state.cluster[0] = g_state.cluster[1] = g_state.cluster[2] = 1;
  for (unsigned i = 0; i < config->numAttrs; ++i)
    if (config->attrs[i].id == 4) {
      g_state.cluster[0] = config->attrs[i].value.clusterDim.x;
      g_state.cluster[1] = config->attrs[i].value.clusterDim.y;
      g_state.cluster[2] = config->attrs[i].value.clusterDim.z;
    }
  // Param count from the name suffix "__<n>".
  unsigned count = 0;
  const char *suffix = std::strstr(f->name, "__");
  if (suffix)
    count = static_cast<unsigned>(std::atoi(suffix + 2));
  if (count > 16)
    count = 16;
  g_state.num_params = count;
  for (unsigned i = 0; i < count; ++i)
    std::memcpy(g_state.params[i], params[i], 8); // scalars and pointers: the first 8 bytes suffice
  return 0;
}

FAKE_API int cuTensorMapEncodeTiled(void *tensorMap, int dataType, uint32_t rank, void *address, const uint64_t *dims,
                                    const uint64_t *strides, const uint32_t *box, const uint32_t *elementStrides,
                                    int interleave, int swizzle, int l2, int oob) {
  ++g_state.tensor_map_encodes;
  g_state.tm_data_type = dataType;
  g_state.tm_rank = static_cast<int>(rank);
  g_state.tm_address = reinterpret_cast<uint64_t>(address);
  for (uint32_t i = 0; i < rank && i < 5; ++i) {
    g_state.tm_dims[i] = dims[i];
    g_state.tm_box[i] = box[i];
    g_state.tm_elem_strides[i] = elementStrides[i];
    if (i + 1 < rank)
      g_state.tm_strides[i] = strides[i];
  }
  g_state.tm_interleave = interleave;
  g_state.tm_swizzle = swizzle;
  g_state.tm_l2 = l2;
  g_state.tm_oob = oob;
  // The fake encoding: the address in the first 8 bytes, so a test can see which map went where.
  std::memset(tensorMap, 0, 128);
  std::memcpy(tensorMap, &address, sizeof address);
  return 0;
}

} // extern "C"
