// Launching one kernel through the CUDA driver: context, SM count, binding (LaunchBinding), module load,
// shared-memory opt-in, cluster attribute, tensor-map encoding, cuLaunchKernelEx.
#pragma once
#include "CudaDriver.h"
#include "LaunchBinding.h"
#include "Module.h"

#include <memory>

namespace cake::rt {

// Converts the C options (NULL = defaults) into LaunchInputs; num_sms comes from the options or, when
// `driver` is given, from the current device.  Throws LaunchError on malformed options.
LaunchInputs makeLaunchInputs(const cake_arg *args, size_t numArgs, const cake_launch_options *options,
                              const std::shared_ptr<const CudaDriver> &driver);

// Checks the arguments and launches kernel `index` of `module` on options->stream.  Throws LaunchError.
void launchKernel(const std::shared_ptr<const CudaDriver> &driver, ModuleState &module, size_t index,
                  const cake_arg *args, size_t numArgs, const cake_launch_options *options);

} // namespace cake::rt
