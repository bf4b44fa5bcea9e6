// Launching one kernel through the CUDA driver: context, SM count, binding (LaunchBinding), module load,
// shared-memory opt-in, cluster attribute, tensor-map encoding, cuLaunchKernelEx.
#pragma once
#include "CudaDriver.h"
#include "LaunchBinding.h"
#include "Module.h"

#include <list>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace cake::rt {

// Converts the C options (NULL = defaults) into LaunchInputs; num_sms comes from the options or, when
// `driver` is given, from the current device.  Throws LaunchError on malformed options.
LaunchInputs makeLaunchInputs(const cake_arg *args, size_t numArgs, const cake_launch_options *options,
                              const std::shared_ptr<const CudaDriver> &driver);

// A launch bound once (every check that does not depend on a tensor's address, the launch configuration,
// the bytes of every entry parameter) and launched many times with new addresses.  TMA descriptors are
// encoded per set of TMA tensor addresses and the last kMaxTensorMapSets sets are kept, so repeated calls
// with the same tensors encode nothing.  launchPrepared may be called from several threads at once.
struct PreparedLaunch {
  static constexpr size_t kMaxTensorMapSets = 8;
  struct TensorMapSet {
    std::vector<uint64_t> addresses;   // one per bound.tensorMaps entry
    std::vector<CuTensorMap> maps;
  };

  std::shared_ptr<const CudaDriver> driver;
  ModuleState *module = nullptr;
  size_t index = 0;
  BoundLaunch bound;
  std::vector<uint64_t> data;          // per param: the address bound at prepare time (0 for scalars)
  std::mutex mutex;                    // guards mapSets (and the maps while a launch reads them)
  std::list<TensorMapSet> mapSets;     // most recently used first
  uint64_t tensorMapEncodes = 0;       // cuTensorMapEncodeTiled calls made for this launch (for tests)
};

// Binds kernel `index` of `module` to `args` (all of cake_launch's checks; num_sms is read now).
std::unique_ptr<PreparedLaunch> prepareLaunch(const std::shared_ptr<const CudaDriver> &driver, ModuleState &module,
                                              size_t index, const cake_arg *args, size_t numArgs,
                                              const cake_launch_options *options);

// Launches `prepared` on `stream` with the tensor addresses data[0 .. numData-1] (one per kernel param;
// scalars' entries are ignored; numData must be the number of params).  Checks each address as bindLaunch
// does.  Throws LaunchError.
void launchPrepared(PreparedLaunch &prepared, const uint64_t *data, size_t numData, CuStream stream);

// The compute capability of the current device (making device 0's primary context current if the thread has
// no context, as a launch does).  Throws LaunchError(CUDA).
std::pair<int, int> currentComputeCapability(const CudaDriver &driver);

// How many blocks of kernel `index` of `module`, launched with `args`, fit on one SM of the current device
// at once (cuOccupancyMaxActiveBlocksPerMultiprocessor for the launch's block size and dynamic shared memory,
// after the same checks, module load and shared-memory opt-in as a launch; clusters are not considered).
// Throws LaunchError.
int maxActiveBlocksPerSm(const std::shared_ptr<const CudaDriver> &driver, ModuleState &module, size_t index,
                         const cake_arg *args, size_t numArgs, const cake_launch_options *options);

// Checks the arguments and launches kernel `index` of `module` on options->stream (prepareLaunch, then
// launchPrepared with the arguments' own addresses).  Throws LaunchError.
void launchKernel(const std::shared_ptr<const CudaDriver> &driver, ModuleState &module, size_t index,
                  const cake_arg *args, size_t numArgs, const cake_launch_options *options);

} // namespace cake::rt
