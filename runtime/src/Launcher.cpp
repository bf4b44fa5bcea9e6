// Launcher: the GPU half of a launch.  The context is the caller's current one; if the thread has none, the
// primary context of device 0 is made current (what the CUDA runtime and PyTorch use as well).
#include "Launcher.h"

#include <vector>

namespace cake::rt {

namespace {

CuContext currentContext(const CudaDriver &driver) {
  const CudaDriverApi &api = driver.api;
  CuContext context = nullptr;
  CuResult result = api.cuCtxGetCurrent(&context);
  if (result != kCudaSuccess)
    throw LaunchError(CAKE_ERROR_CUDA, driver.describe("cuCtxGetCurrent", result));
  if (context)
    return context;
  CuDevice device = 0;
  result = api.cuDeviceGet(&device, 0);
  if (result != kCudaSuccess)
    throw LaunchError(CAKE_ERROR_CUDA, driver.describe("cuDeviceGet(0)", result) + ": no CUDA device");
  result = api.cuDevicePrimaryCtxRetain(&context, device);
  if (result != kCudaSuccess)
    throw LaunchError(CAKE_ERROR_CUDA, driver.describe("cuDevicePrimaryCtxRetain", result));
  result = api.cuCtxSetCurrent(context);
  if (result != kCudaSuccess)
    throw LaunchError(CAKE_ERROR_CUDA, driver.describe("cuCtxSetCurrent", result));
  return context;
}

CuDevice currentDevice(const CudaDriver &driver) {
  CuDevice device = 0;
  CuResult result = driver.api.cuCtxGetDevice(&device);
  if (result != kCudaSuccess)
    throw LaunchError(CAKE_ERROR_CUDA, driver.describe("cuCtxGetDevice", result));
  return device;
}

int deviceAttribute(const CudaDriver &driver, int attribute, const char *what) {
  int value = 0;
  CuResult result = driver.api.cuDeviceGetAttribute(&value, attribute, currentDevice(driver));
  if (result != kCudaSuccess)
    throw LaunchError(CAKE_ERROR_CUDA, driver.describe("cuDeviceGetAttribute", result) + " (" + what + ")");
  return value;
}

}   // namespace

std::pair<int, int> currentComputeCapability(const CudaDriver &driver) {
  currentContext(driver);
  return {deviceAttribute(driver, kCuDeviceAttributeComputeCapabilityMajor, "compute capability major"),
          deviceAttribute(driver, kCuDeviceAttributeComputeCapabilityMinor, "compute capability minor")};
}

namespace {

// Opens the function up to `bytes` of dynamic shared memory (beyond the default 48 KiB) once per size.
void ensureDynamicSmem(const CudaDriver &driver, LoadedFunction &function, uint32_t bytes, const KernelSpec &kernel) {
  if (bytes <= function.maxDynamicSmemSet)
    return;
  int limit = deviceAttribute(driver, kCuDeviceAttributeMaxSharedMemoryPerBlockOptin, "max shared memory per block");
  if (bytes > static_cast<uint32_t>(limit))
    throw LaunchError(CAKE_ERROR_LAUNCH_CONFIG, "kernel " + kernel.name + ": needs " + std::to_string(bytes) +
                                                    " bytes of dynamic shared memory; the device allows " +
                                                    std::to_string(limit) + " per block");
  CuResult result = driver.api.cuFuncSetAttribute(function.function, kCuFuncAttributeMaxDynamicSharedSizeBytes,
                                                  static_cast<int>(bytes));
  if (result != kCudaSuccess)
    throw LaunchError(CAKE_ERROR_CUDA, "kernel " + kernel.name + ": " +
                                           driver.describe("cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", result));
  function.maxDynamicSmemSet = bytes;
}

}   // namespace

LaunchInputs makeLaunchInputs(const cake_arg *args, size_t numArgs, const cake_launch_options *options,
                              const std::shared_ptr<const CudaDriver> &driver) {
  LaunchInputs inputs;
  inputs.args = args;
  inputs.numArgs = numArgs;
  if (options) {
    if (options->struct_size < sizeof(cake_launch_options))
      throw LaunchError(CAKE_ERROR_INVALID_ARGUMENT,
                        "cake_launch_options.struct_size is " + std::to_string(options->struct_size) + ", expected " +
                            std::to_string(sizeof(cake_launch_options)) + " (set it to sizeof(cake_launch_options))");
    if (options->num_shape_vars && !options->shape_vars)
      throw LaunchError(CAKE_ERROR_INVALID_ARGUMENT, "cake_launch_options.shape_vars is NULL");
    for (size_t i = 0; i < options->num_shape_vars; ++i) {
      if (!options->shape_vars[i].name)
        throw LaunchError(CAKE_ERROR_INVALID_ARGUMENT, "cake_launch_options.shape_vars[" + std::to_string(i) +
                                                           "].name is NULL");
      inputs.explicitShapeVars.emplace_back(options->shape_vars[i].name, options->shape_vars[i].value);
    }
    if (options->num_sms < 0)
      throw LaunchError(CAKE_ERROR_INVALID_ARGUMENT, "cake_launch_options.num_sms is " +
                                                         std::to_string(options->num_sms) +
                                                         "; give a positive SM count, or 0 to ask the device");
    if (options->num_sms > 0) {
      int64_t numSms = options->num_sms;
      inputs.numSms = [numSms] { return numSms; };
    }
  }
  if (!inputs.numSms && driver)
    inputs.numSms = [driver] {
      return static_cast<int64_t>(deviceAttribute(*driver, kCuDeviceAttributeMultiprocessorCount, "SM count"));
    };
  return inputs;
}

std::unique_ptr<PreparedLaunch> prepareLaunch(const std::shared_ptr<const CudaDriver> &driver, ModuleState &module,
                                              size_t index, const cake_arg *args, size_t numArgs,
                                              const cake_launch_options *options) {
  currentContext(*driver); // a context is current before num_sms is asked of the device
  auto prepared = std::make_unique<PreparedLaunch>();
  prepared->driver = driver;
  prepared->module = &module;
  prepared->index = index;
  prepared->bound = bindLaunch(module.manifest().kernels[index], makeLaunchInputs(args, numArgs, options, driver));
  prepared->data.assign(numArgs, 0);
  for (size_t i = 0; i < numArgs; ++i)
    if (args[i].kind == CAKE_ARG_TENSOR)
      prepared->data[i] = args[i].data;
  return prepared;
}

namespace {

// The tensor maps for the TMA addresses in `data`: a kept set, or a new set encoded now (front of the list).
const std::vector<CuTensorMap> &tensorMapsFor(PreparedLaunch &p, const KernelSpec &kernel, const uint64_t *data) {
  const std::vector<TensorMapRequest> &requests = p.bound.tensorMaps;
  for (auto it = p.mapSets.begin(); it != p.mapSets.end(); ++it) {
    bool same = true;
    for (size_t m = 0; m < requests.size() && same; ++m)
      same = it->addresses[m] == data[requests[m].param];
    if (!same)
      continue;
    if (it != p.mapSets.begin())
      p.mapSets.splice(p.mapSets.begin(), p.mapSets, it);
    return p.mapSets.front().maps;
  }
  PreparedLaunch::TensorMapSet set;
  set.maps.resize(requests.size());
  for (size_t m = 0; m < requests.size(); ++m) {
    const TensorMapRequest &r = requests[m];
    const uint64_t address = data[r.param];
    set.addresses.push_back(address);
    ++p.tensorMapEncodes;
    CuResult result = p.driver->api.cuTensorMapEncodeTiled(
        &set.maps[m], r.dataType, r.rank, reinterpret_cast<void *>(address), r.globalDim.data(),
        r.globalStrides.data(), r.boxDim.data(), r.elementStrides.data(), r.interleave, r.swizzle, r.l2Promotion,
        r.oobFill);
    if (result != kCudaSuccess)
      throw LaunchError(CAKE_ERROR_CUDA, "kernel " + kernel.name + ": TMA descriptor for " +
                                             kernel.params[r.param].name + ": " +
                                             p.driver->describe("cuTensorMapEncodeTiled", result));
  }
  p.mapSets.push_front(std::move(set));
  if (p.mapSets.size() > PreparedLaunch::kMaxTensorMapSets)
    p.mapSets.pop_back();
  return p.mapSets.front().maps;
}

} // namespace

void launchPrepared(PreparedLaunch &p, const uint64_t *data, size_t numData, CuStream stream) {
  const CudaDriverApi &api = p.driver->api;
  ModuleState &module = *p.module;
  const KernelSpec &kernel = module.manifest().kernels[p.index];
  const BoundLaunch &bound = p.bound;
  if (numData != kernel.params.size())
    throw LaunchError(CAKE_ERROR_INVALID_ARGUMENT, "kernel " + kernel.name + ": a prepared launch takes " +
                                                       std::to_string(kernel.params.size()) + " addresses, got " +
                                                       std::to_string(numData));
  if (numData && !data)
    throw LaunchError(CAKE_ERROR_INVALID_ARGUMENT, "kernel " + kernel.name + ": addresses are NULL");
  for (size_t i = 0; i < numData; ++i)
    if (kernel.params[i].kind == CAKE_ARG_TENSOR)
      checkTensorAddress(kernel, i, data[i], bound.nonEmptyTensor[i]);
  if (bound.empty)
    return; // a grid dimension is 0 (empty problem): nothing to run
  for (const TensorMapRequest &r : bound.tensorMaps)
    checkTensorMapAddress(kernel, static_cast<size_t>(r.param), data[r.param]);
  CuContext context = currentContext(*p.driver);

  // Entry parameters: pointer slots get this call's address from `data`; every other slot points at the bytes
  // bound once (read-only from here on) or at its tensor map.  The arrays are left uninitialised: each slot
  // used is written below.
  constexpr size_t kInline = 32;
  uint64_t inlineAddresses[kInline];
  void *inlineParams[kInline];
  std::vector<uint64_t> heapAddresses;
  std::vector<void *> heapParams;
  const size_t count = bound.abi.size();
  uint64_t *addresses = inlineAddresses;
  void **kernelParams = inlineParams;
  if (count > kInline) {
    heapAddresses.resize(count);
    heapParams.resize(count);
    addresses = heapAddresses.data();
    kernelParams = heapParams.data();
  }
  std::lock_guard<std::mutex> preparedLock(p.mutex); // the maps stay put until the launch has copied them
  const std::vector<CuTensorMap> *maps = bound.tensorMaps.empty() ? nullptr : &tensorMapsFor(p, kernel, data);
  for (size_t slot = 0; slot < count; ++slot) {
    const AbiValue &value = bound.abi[slot];
    if (value.kind == AbiKind::Pointer) {
      addresses[slot] = data[kernel.abi[slot].param];
      kernelParams[slot] = &addresses[slot];
    } else if (value.kind == AbiKind::TensorMap) {
      kernelParams[slot] = const_cast<CuTensorMap *>(&(*maps)[value.tensorMap]);
    } else {
      kernelParams[slot] = const_cast<unsigned char *>(value.bytes);
    }
  }

  std::lock_guard<std::mutex> lock(module.mutex());
  LoadedFunction &function = module.functionFor(p.driver, context, p.index);
  ensureDynamicSmem(*p.driver, function, bound.dynamicSmem, kernel);
  const uint32_t clusterSize = bound.cluster[0] * bound.cluster[1] * bound.cluster[2];
  if (clusterSize > 8 && !function.nonPortableClusterSet) {
    CuResult result = api.cuFuncSetAttribute(function.function, kCuFuncAttributeNonPortableClusterSizeAllowed, 1);
    if (result != kCudaSuccess)
      throw LaunchError(CAKE_ERROR_CUDA, "kernel " + kernel.name + ": cluster of " + std::to_string(clusterSize) +
                                             " blocks: " + p.driver->describe("cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)", result));
    function.nonPortableClusterSet = true;
  }

  CuLaunchAttribute clusterAttribute{};
  clusterAttribute.id = kCuLaunchAttributeClusterDimension;
  clusterAttribute.value.clusterDim = {bound.cluster[0], bound.cluster[1], bound.cluster[2]};
  CuLaunchConfig config{};
  config.gridDimX = bound.grid[0];
  config.gridDimY = bound.grid[1];
  config.gridDimZ = bound.grid[2];
  config.blockDimX = bound.block[0];
  config.blockDimY = bound.block[1];
  config.blockDimZ = bound.block[2];
  config.sharedMemBytes = bound.dynamicSmem;
  config.hStream = stream;
  if (kernel.hasCluster) {
    config.attrs = &clusterAttribute;
    config.numAttrs = 1;
  }
  CuResult result = api.cuLaunchKernelEx(&config, function.function, kernelParams, nullptr);
  if (result != kCudaSuccess)
    throw LaunchError(CAKE_ERROR_CUDA, "kernel " + kernel.name + ": " + p.driver->describe("cuLaunchKernelEx", result));
}

int maxActiveBlocksPerSm(const std::shared_ptr<const CudaDriver> &driver, ModuleState &module, size_t index,
                         const cake_arg *args, size_t numArgs, const cake_launch_options *options) {
  CuContext context = currentContext(*driver);
  const KernelSpec &kernel = module.manifest().kernels[index];
  BoundLaunch bound = bindLaunch(kernel, makeLaunchInputs(args, numArgs, options, driver));
  std::lock_guard<std::mutex> lock(module.mutex());
  LoadedFunction &function = module.functionFor(driver, context, index);
  ensureDynamicSmem(*driver, function, bound.dynamicSmem, kernel);
  int blocks = 0;
  CuResult result = driver->api.cuOccupancyMaxActiveBlocksPerMultiprocessor(
      &blocks, function.function, static_cast<int>(bound.block[0] * bound.block[1] * bound.block[2]),
      bound.dynamicSmem);
  if (result != kCudaSuccess)
    throw LaunchError(CAKE_ERROR_CUDA, "kernel " + kernel.name + ": " +
                                           driver->describe("cuOccupancyMaxActiveBlocksPerMultiprocessor", result));
  return blocks;
}

void launchKernel(const std::shared_ptr<const CudaDriver> &driver, ModuleState &module, size_t index,
                  const cake_arg *args, size_t numArgs, const cake_launch_options *options) {
  std::unique_ptr<PreparedLaunch> prepared = prepareLaunch(driver, module, index, args, numArgs, options);
  launchPrepared(*prepared, prepared->data.data(), prepared->data.size(),
                 options ? static_cast<CuStream>(options->stream) : nullptr);
}

} // namespace cake::rt
