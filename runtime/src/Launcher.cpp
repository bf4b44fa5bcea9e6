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

} // namespace

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

void launchKernel(const std::shared_ptr<const CudaDriver> &driver, ModuleState &module, size_t index,
                  const cake_arg *args, size_t numArgs, const cake_launch_options *options) {
  const CudaDriverApi &api = driver->api;
  const KernelSpec &kernel = module.manifest().kernels[index];
  CuContext context = currentContext(*driver);
  BoundLaunch bound = bindLaunch(kernel, makeLaunchInputs(args, numArgs, options, driver));
  if (bound.empty)
    return; // a grid dimension is 0 (empty problem): nothing to run

  // Tensor maps: 128-byte aligned storage (CuTensorMap) that outlives the launch call.
  std::vector<CuTensorMap> tensorMaps(bound.tensorMaps.size());
  for (size_t m = 0; m < bound.tensorMaps.size(); ++m) {
    const TensorMapRequest &r = bound.tensorMaps[m];
    CuResult result = api.cuTensorMapEncodeTiled(
        &tensorMaps[m], r.dataType, r.rank, reinterpret_cast<void *>(r.globalAddress), r.globalDim.data(),
        r.globalStrides.data(), r.boxDim.data(), r.elementStrides.data(), r.interleave, r.swizzle, r.l2Promotion,
        r.oobFill);
    if (result != kCudaSuccess)
      throw LaunchError(CAKE_ERROR_CUDA, "kernel " + kernel.name + ": TMA descriptor for " +
                                             kernel.params[r.param].name + ": " +
                                             driver->describe("cuTensorMapEncodeTiled", result));
  }
  std::vector<void *> kernelParams;
  kernelParams.reserve(bound.abi.size());
  for (AbiValue &value : bound.abi)
    kernelParams.push_back(value.kind == AbiKind::TensorMap ? static_cast<void *>(&tensorMaps[value.tensorMap])
                                                            : static_cast<void *>(value.bytes));

  std::lock_guard<std::mutex> lock(module.mutex());
  LoadedFunction &function = module.functionFor(driver, context, index);
  ensureDynamicSmem(*driver, function, bound.dynamicSmem, kernel);
  const uint32_t clusterSize = bound.cluster[0] * bound.cluster[1] * bound.cluster[2];
  if (clusterSize > 8 && !function.nonPortableClusterSet) {
    CuResult result = api.cuFuncSetAttribute(function.function, kCuFuncAttributeNonPortableClusterSizeAllowed, 1);
    if (result != kCudaSuccess)
      throw LaunchError(CAKE_ERROR_CUDA, "kernel " + kernel.name + ": cluster of " + std::to_string(clusterSize) +
                                             " blocks: " + driver->describe("cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)", result));
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
  config.hStream = options ? static_cast<CuStream>(options->stream) : nullptr;
  if (kernel.hasCluster) {
    config.attrs = &clusterAttribute;
    config.numAttrs = 1;
  }
  CuResult result = api.cuLaunchKernelEx(&config, function.function, kernelParams.data(), nullptr);
  if (result != kCudaSuccess)
    throw LaunchError(CAKE_ERROR_CUDA, "kernel " + kernel.name + ": " + driver->describe("cuLaunchKernelEx", result));
}

} // namespace cake::rt
