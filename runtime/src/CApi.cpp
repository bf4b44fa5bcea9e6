// The C API (include/cake/runtime.h): argument validation, exception-to-status translation and error-buffer
// writing around the C++ implementation.  No exception crosses this boundary.
#include "cake/runtime.h"

#include "DType.h"
#include "Expr.h"
#include "Launcher.h"
#include "Module.h"

#include <cstring>
#include <new>

using namespace cake::rt;

struct cake_prepared_launch {
  std::unique_ptr<PreparedLaunch> launch;
};

namespace {

void writeError(char *err, size_t errSize, const std::string &message) {
  if (!err || errSize == 0)
    return;
  size_t n = std::min(message.size(), errSize - 1);
  std::memcpy(err, message.data(), n);
  err[n] = '\0';
}

// Runs `body`, mapping every exception to a status and a message.
template <typename Body> cake_status guarded(char *err, size_t errSize, Body &&body) {
  writeError(err, errSize, "");
  try {
    body();
    return CAKE_OK;
  } catch (const LaunchError &e) {
    writeError(err, errSize, e.what());
    return e.status;
  } catch (const std::bad_alloc &) {
    writeError(err, errSize, "out of memory");
    return CAKE_ERROR_INVALID_ARGUMENT;
  } catch (const std::exception &e) {
    writeError(err, errSize, std::string("internal error in the CAKE runtime: ") + e.what());
    return CAKE_ERROR_INVALID_ARGUMENT;
  } catch (...) {
    writeError(err, errSize, "internal error in the CAKE runtime");
    return CAKE_ERROR_INVALID_ARGUMENT;
  }
}

[[noreturn]] void misuse(const std::string &message) { throw LaunchError(CAKE_ERROR_INVALID_ARGUMENT, message); }

const KernelSpec *specOf(const cake_kernel *kernel) {
  return kernel && kernel->module ? &kernel->module->manifest().kernels[kernel->index] : nullptr;
}

const ParamSpec *paramOf(const cake_kernel *kernel, size_t index) {
  const KernelSpec *spec = specOf(kernel);
  return spec && index < spec->params.size() ? &spec->params[index] : nullptr;
}

} // namespace

extern "C" {

const char *cake_runtime_version(void) { return "0.1.0"; }
int cake_runtime_abi_version(void) { return CAKE_RUNTIME_ABI_VERSION; }

const char *cake_status_name(cake_status status) {
  switch (status) {
  case CAKE_OK: return "CAKE_OK";
  case CAKE_ERROR_INVALID_ARGUMENT: return "CAKE_ERROR_INVALID_ARGUMENT";
  case CAKE_ERROR_IO: return "CAKE_ERROR_IO";
  case CAKE_ERROR_MANIFEST: return "CAKE_ERROR_MANIFEST";
  case CAKE_ERROR_NOT_FOUND: return "CAKE_ERROR_NOT_FOUND";
  case CAKE_ERROR_ARGUMENT: return "CAKE_ERROR_ARGUMENT";
  case CAKE_ERROR_REQUIREMENT: return "CAKE_ERROR_REQUIREMENT";
  case CAKE_ERROR_LAUNCH_CONFIG: return "CAKE_ERROR_LAUNCH_CONFIG";
  case CAKE_ERROR_EXPRESSION: return "CAKE_ERROR_EXPRESSION";
  case CAKE_ERROR_DRIVER_UNAVAILABLE: return "CAKE_ERROR_DRIVER_UNAVAILABLE";
  case CAKE_ERROR_CUDA: return "CAKE_ERROR_CUDA";
  }
  return "CAKE_ERROR_UNKNOWN";
}

cake_status cake_module_load(const char *path, cake_module **out, char *err, size_t err_size) {
  return guarded(err, err_size, [&] {
    if (!path || !out)
      misuse("cake_module_load: path and out must not be NULL");
    *out = nullptr;
    auto module = std::make_unique<cake_module>();
    module->state = loadModuleFromFile(path);
    *out = module.release();
  });
}

cake_status cake_module_load_data(const char *manifest_json, size_t manifest_size, const void *cubin, size_t cubin_size,
                                  cake_module **out, char *err, size_t err_size) {
  return guarded(err, err_size, [&] {
    if (!manifest_json || !out)
      misuse("cake_module_load_data: manifest_json and out must not be NULL");
    *out = nullptr;
    auto module = std::make_unique<cake_module>();
    module->state = loadModuleFromData(std::string_view(manifest_json, manifest_size), cubin, cubin_size);
    *out = module.release();
  });
}

void cake_module_free(cake_module *module) { delete module; }

size_t cake_module_num_kernels(const cake_module *module) {
  return module ? module->state->kernels().size() : 0;
}

const cake_kernel *cake_module_kernel_at(const cake_module *module, size_t index) {
  if (!module || index >= module->state->kernels().size())
    return nullptr;
  return &module->state->kernels()[index];
}

cake_status cake_kernel_get(const cake_module *module, const char *name, const cake_kernel **out, char *err,
                            size_t err_size) {
  return guarded(err, err_size, [&] {
    if (!module || !name || !out)
      misuse("cake_kernel_get: module, name and out must not be NULL");
    *out = nullptr;
    const auto &kernels = module->state->manifest().kernels;
    std::string known;
    for (size_t i = 0; i < kernels.size(); ++i) {
      if (kernels[i].name == name) {
        *out = &module->state->kernels()[i];
        return;
      }
      known += (known.empty() ? "" : ", ") + kernels[i].name;
    }
    throw LaunchError(CAKE_ERROR_NOT_FOUND, module->state->origin() + " has no kernel '" + name + "' (kernels: " + known + ")");
  });
}

const char *cake_module_arch(const cake_module *module) {
  return module ? module->state->manifest().arch.c_str() : "";
}

const char *cake_kernel_name(const cake_kernel *kernel) {
  const KernelSpec *spec = specOf(kernel);
  return spec ? spec->name.c_str() : "";
}

const char *cake_kernel_entry(const cake_kernel *kernel) {
  const KernelSpec *spec = specOf(kernel);
  return spec ? spec->entry.c_str() : "";
}

size_t cake_kernel_num_params(const cake_kernel *kernel) {
  const KernelSpec *spec = specOf(kernel);
  return spec ? spec->params.size() : 0;
}

const char *cake_kernel_param_name(const cake_kernel *kernel, size_t index) {
  const ParamSpec *param = paramOf(kernel, index);
  return param ? param->name.c_str() : "";
}

cake_arg_kind cake_kernel_param_kind(const cake_kernel *kernel, size_t index) {
  const ParamSpec *param = paramOf(kernel, index);
  return param ? param->kind : static_cast<cake_arg_kind>(0);
}

cake_dtype cake_kernel_param_dtype(const cake_kernel *kernel, size_t index) {
  const ParamSpec *param = paramOf(kernel, index);
  return param ? param->dtype : CAKE_DTYPE_INVALID;
}

int32_t cake_kernel_param_rank(const cake_kernel *kernel, size_t index) {
  const ParamSpec *param = paramOf(kernel, index);
  return param ? param->rank() : 0;
}

int cake_kernel_param_writes(const cake_kernel *kernel, size_t index) {
  const ParamSpec *param = paramOf(kernel, index);
  return param && param->kind == CAKE_ARG_TENSOR && param->writes ? 1 : 0;
}

size_t cake_kernel_num_shape_vars(const cake_kernel *kernel) {
  const KernelSpec *spec = specOf(kernel);
  return spec ? spec->shapeVars.size() : 0;
}

const char *cake_kernel_shape_var_name(const cake_kernel *kernel, size_t index) {
  const KernelSpec *spec = specOf(kernel);
  return spec && index < spec->shapeVars.size() ? spec->shapeVars[index].name.c_str() : "";
}

cake_status cake_kernel_plan(const cake_kernel *kernel, const cake_arg *args, size_t num_args,
                             const cake_launch_options *options, cake_launch_plan *plan, char *err, size_t err_size) {
  return guarded(err, err_size, [&] {
    const KernelSpec *spec = specOf(kernel);
    if (!spec || !plan)
      misuse("cake_kernel_plan: kernel and plan must not be NULL");
    BoundLaunch bound = bindLaunch(*spec, makeLaunchInputs(args, num_args, options, nullptr));
    *plan = cake_launch_plan{};
    for (int i = 0; i < 3; ++i) {
      plan->grid[i] = bound.grid[i];
      plan->block[i] = bound.block[i];
      plan->cluster[i] = bound.cluster[i];
    }
    plan->dynamic_smem_bytes = bound.dynamicSmem;
    plan->num_abi_params = static_cast<uint32_t>(bound.abi.size());
    plan->num_tensor_maps = static_cast<uint32_t>(bound.tensorMaps.size());
  });
}

cake_status cake_launch(const cake_kernel *kernel, const cake_arg *args, size_t num_args,
                        const cake_launch_options *options, char *err, size_t err_size) {
  return guarded(err, err_size, [&] {
    if (!specOf(kernel))
      misuse("cake_launch: kernel must not be NULL");
    CudaDriverLoad load = sharedCudaDriver();
    if (!load.driver) {
      // Without a GPU, still report argument errors first, so that they read the same everywhere.
      // (Skipped when the SM count would have to come from the device.)
      LaunchInputs inputs = makeLaunchInputs(args, num_args, options, nullptr);
      if (inputs.numSms || !specOf(kernel)->usesNumSms)
        bindLaunch(*specOf(kernel), inputs);
      throw LaunchError(CAKE_ERROR_DRIVER_UNAVAILABLE, load.error);
    }
    launchKernel(load.driver, *kernel->module, kernel->index, args, num_args, options);
  });
}

cake_status cake_kernel_occupancy(const cake_kernel *kernel, const cake_arg *args, size_t num_args,
                                  const cake_launch_options *options, int *blocks_per_sm, char *err, size_t err_size) {
  return guarded(err, err_size, [&] {
    if (!specOf(kernel) || !blocks_per_sm)
      misuse("cake_kernel_occupancy: kernel and blocks_per_sm must not be NULL");
    *blocks_per_sm = 0;
    CudaDriverLoad load = sharedCudaDriver();
    if (!load.driver)
      throw LaunchError(CAKE_ERROR_DRIVER_UNAVAILABLE, load.error);
    *blocks_per_sm = maxActiveBlocksPerSm(load.driver, *kernel->module, kernel->index, args, num_args, options);
  });
}

cake_status cake_launch_prepare(const cake_kernel *kernel, const cake_arg *args, size_t num_args,
                                const cake_launch_options *options, cake_prepared_launch **out, char *err,
                                size_t err_size) {
  return guarded(err, err_size, [&] {
    if (!specOf(kernel) || !out)
      misuse("cake_launch_prepare: kernel and out must not be NULL");
    *out = nullptr;
    CudaDriverLoad load = sharedCudaDriver();
    if (!load.driver) { // as cake_launch: argument errors first, so that they read the same everywhere
      LaunchInputs inputs = makeLaunchInputs(args, num_args, options, nullptr);
      if (inputs.numSms || !specOf(kernel)->usesNumSms)
        bindLaunch(*specOf(kernel), inputs);
      throw LaunchError(CAKE_ERROR_DRIVER_UNAVAILABLE, load.error);
    }
    auto prepared = std::make_unique<cake_prepared_launch>();
    prepared->launch = prepareLaunch(load.driver, *kernel->module, kernel->index, args, num_args, options);
    *out = prepared.release();
  });
}

cake_status cake_launch_prepared(cake_prepared_launch *prepared, const uint64_t *data, size_t num_data, void *stream,
                                 char *err, size_t err_size) {
  return guarded(err, err_size, [&] {
    if (!prepared)
      misuse("cake_launch_prepared: prepared must not be NULL");
    launchPrepared(*prepared->launch, data, num_data, static_cast<CuStream>(stream));
  });
}

uint64_t cake_prepared_launch_tensor_map_encodes(const cake_prepared_launch *prepared) {
  if (!prepared)
    return 0;
  std::lock_guard<std::mutex> lock(prepared->launch->mutex);
  return prepared->launch->tensorMapEncodes;
}

void cake_prepared_launch_free(cake_prepared_launch *prepared) { delete prepared; }

const char *cake_dtype_name(cake_dtype dtype) { return dtypeName(dtype).data(); }

cake_dtype cake_dtype_from_name(const char *name) { return name ? dtypeFromName(name) : CAKE_DTYPE_INVALID; }

size_t cake_dtype_size(cake_dtype dtype) { return dtypeSize(dtype); }

cake_status cake_eval_expression(const char *expression, const cake_named_int *names, size_t num_names, int64_t *out,
                                 char *err, size_t err_size) {
  return guarded(err, err_size, [&] {
    if (!expression || !out || (num_names && !names))
      misuse("cake_eval_expression: expression, out (and names when num_names > 0) must not be NULL");
    Expr expr;
    try {
      expr = Expr::parse(expression);
    } catch (const ExprSyntaxError &e) {
      throw LaunchError(CAKE_ERROR_EXPRESSION, e.what());
    }
    try {
      *out = expr.evaluate([&](std::string_view name) -> std::optional<int64_t> {
        for (size_t i = 0; i < num_names; ++i)
          if (names[i].name && name == names[i].name)
            return names[i].value;
        return std::nullopt;
      });
    } catch (const ExprEvalError &e) {
      throw LaunchError(CAKE_ERROR_EXPRESSION, e.what());
    }
  });
}

cake_status cake_driver_check(char *err, size_t err_size) {
  return guarded(err, err_size, [&] {
    CudaDriverLoad load = sharedCudaDriver();
    if (!load.driver)
      throw LaunchError(CAKE_ERROR_DRIVER_UNAVAILABLE, load.error);
  });
}

} // extern "C"
