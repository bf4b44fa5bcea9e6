// A loaded cubin + manifest (the object behind cake_module) and its kernels (behind cake_kernel).
//
// Loading reads and checks the manifest and keeps the cubin bytes; nothing touches the GPU until the first
// launch, when the cubin is loaded into the caller's current CUDA context (one CUmodule per context,
// created lazily under the module's mutex and unloaded when the module is freed).
#pragma once
#include "CudaDriver.h"
#include "Manifest.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace cake::rt {
class ModuleState;
}

// The C API handles.  cake_kernel is a view into its module's manifest.
struct cake_kernel {
  cake::rt::ModuleState *module;
  size_t index;
};

struct cake_module {
  std::unique_ptr<cake::rt::ModuleState> state;
};

namespace cake::rt {

// A function resolved in one context, with the dynamic shared memory size it has been opened up to.
struct LoadedFunction {
  CuFunction function = nullptr;
  uint32_t maxDynamicSmemSet = 48 * 1024;
  bool nonPortableClusterSet = false;
};

struct ContextModule {
  CuContext context = nullptr;
  CuModule module = nullptr;
  std::vector<LoadedFunction> functions; // per kernel; function == nullptr until first use
};

class ModuleState {
public:
  ModuleState(ManifestSpec manifest, std::vector<unsigned char> cubin, std::string origin);
  ~ModuleState();
  ModuleState(const ModuleState &) = delete;
  ModuleState &operator=(const ModuleState &) = delete;

  const ManifestSpec &manifest() const { return manifest_; }
  const std::vector<unsigned char> &cubin() const { return cubin_; }
  const std::string &origin() const { return origin_; }      // path (or "<memory>") for messages
  const std::vector<cake_kernel> &kernels() const { return kernels_; }

  // Resolves kernel `index` in `context`, loading the cubin into that context on first use.  The caller
  // holds mutex() while it uses the returned record.  Throws LaunchError.
  LoadedFunction &functionFor(const std::shared_ptr<const CudaDriver> &driver, CuContext context, size_t index);
  std::mutex &mutex() { return mutex_; }

private:
  ManifestSpec manifest_;
  std::vector<unsigned char> cubin_;
  std::string origin_;
  std::vector<cake_kernel> kernels_;
  std::mutex mutex_;
  std::vector<ContextModule> loaded_;
  std::shared_ptr<const CudaDriver> driver_; // the driver the cubin was loaded with (for unloading)
};

// Largest files cake_module_load reads (a manifest is a few KiB, a cubin a few MiB).
constexpr size_t kMaxManifestBytes = size_t{16} << 20;
constexpr size_t kMaxCubinBytes = size_t{1} << 30;

// Reads `path` (cubin or manifest, see cake_module_load): regular files only, at most the sizes above; the
// manifest's "cubin" names a file in the manifest's folder; a "cubin_sha256" must match the cubin's bytes.
// Throws LaunchError(IO / MANIFEST).
std::unique_ptr<ModuleState> loadModuleFromFile(const std::string &path);
// Reads a regular file of at most `limit` bytes (not a directory, FIFO or device); throws LaunchError(IO)
// "cannot read <what> <path>: <why><hint>".
std::vector<unsigned char> readRegularFile(const std::string &path, size_t limit, const std::string &what,
                                           const std::string &hint = "");
// Whether a cubin built for `arch` ("sm_90a", "sm_80") runs on a device of compute capability major.minor:
// sm_XY on X.y with y >= Y, sm_XYa only on X.Y.  With its PTX embedded (a fat binary, cakec --embed-ptx), an
// sm_XY build also runs on every later architecture (the driver compiles the PTX); sm_XYa PTX does not.  An
// unknown spelling answers true (the driver judges).
bool archRunsOn(const std::string &arch, int major, int minor, bool ptxEmbedded = false);
std::unique_ptr<ModuleState> loadModuleFromData(std::string_view manifestJson, const void *cubin, size_t cubinSize);

} // namespace cake::rt
