// Driver loader: dlopen the library, dlsym each entry point of CudaDriverApi by its exported name (these
// names are the current ABI versions of each call in CUDA 12 and 13), then cuInit(0).
#include "CudaDriver.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

namespace cake::rt {

CudaDriver::~CudaDriver() {
  if (handle)
    dlclose(handle);
}

std::string CudaDriver::describe(const char *call, CuResult result) const {
  const char *name = nullptr;
  const char *text = nullptr;
  if (api.cuGetErrorName)
    api.cuGetErrorName(result, &name);
  if (api.cuGetErrorString)
    api.cuGetErrorString(result, &text);
  std::string message = std::string(call) + " failed: " + (name ? name : "CUDA error " + std::to_string(result));
  if (text)
    message += std::string(" (") + text + ")";
  return message;
}

CudaDriverLoad loadCudaDriver(const std::string &libraryName) {
  CudaDriverLoad result;
  auto driver = std::make_shared<CudaDriver>();
  dlerror();
  driver->handle = dlopen(libraryName.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!driver->handle) {
    const char *why = dlerror();
    result.error = libraryName + " not found: no NVIDIA driver on this machine (or it is not on the library " +
                   "search path); set CAKE_LIBCUDA to the driver library's path to override" +
                   (why ? std::string(" [dlopen: ") + why + "]" : std::string());
    return result;
  }
  std::string missing;
  auto resolve = [&](auto &slot, const char *name) {
    void *symbol = dlsym(driver->handle, name);
    if (!symbol)
      missing += (missing.empty() ? "" : ", ") + std::string(name);
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(symbol);
  };
  CudaDriverApi &api = driver->api;
  resolve(api.cuInit, "cuInit");
  resolve(api.cuGetErrorName, "cuGetErrorName");
  resolve(api.cuGetErrorString, "cuGetErrorString");
  resolve(api.cuCtxGetCurrent, "cuCtxGetCurrent");
  resolve(api.cuCtxSetCurrent, "cuCtxSetCurrent");
  resolve(api.cuCtxGetDevice, "cuCtxGetDevice");
  resolve(api.cuDeviceGet, "cuDeviceGet");
  resolve(api.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  resolve(api.cuDeviceGetAttribute, "cuDeviceGetAttribute");
  resolve(api.cuModuleLoadData, "cuModuleLoadData");
  resolve(api.cuModuleUnload, "cuModuleUnload");
  resolve(api.cuModuleGetFunction, "cuModuleGetFunction");
  resolve(api.cuFuncSetAttribute, "cuFuncSetAttribute");
  resolve(api.cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  resolve(api.cuLaunchKernelEx, "cuLaunchKernelEx");
  resolve(api.cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled");
  if (!missing.empty()) {
    result.error = libraryName + " is too old for the CAKE runtime (needs CUDA 12.0 or newer): missing " + missing;
    return result;
  }
  CuResult init = api.cuInit(0);
  if (init != kCudaSuccess) {
    result.error = driver->describe("cuInit", init) + ": the NVIDIA driver is installed but no usable GPU was found";
    return result;
  }
  result.driver = std::move(driver);
  return result;
}

CudaDriverLoad sharedCudaDriver() {
  // The one piece of process-wide state: the driver is opened once and kept (dlclose of libcuda while
  // contexts exist is unsafe).  A failed load is remembered too, so the error is cheap to report again.
  static std::mutex mutex;
  static CudaDriverLoad shared;
  static bool tried = false;
  std::lock_guard<std::mutex> lock(mutex);
  if (!tried) {
    const char *override = std::getenv("CAKE_LIBCUDA");
    shared = loadCudaDriver(override && *override ? override : "libcuda.so.1");
    tried = true;
  }
  return shared;
}

} // namespace cake::rt
