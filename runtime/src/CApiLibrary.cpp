// The C API of kernel libraries (cake_library_*, include/cake/runtime.h) over Library.h: argument checks and
// exception-to-status translation, as CApi.cpp does for modules.
#include "cake/runtime.h"

#include "Launcher.h"
#include "Library.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>

using namespace cake::rt;

struct cake_library {
  std::unique_ptr<LibraryState> state;
  std::string target;   // cake_library_target's string
};

namespace {

void writeText(char *buffer, size_t size, const std::string &text) {
  if (!buffer || size == 0) return;
  size_t n = std::min(text.size(), size - 1);
  std::memcpy(buffer, text.data(), n);
  buffer[n] = '\0';
}

template <typename Body> cake_status guarded(char *err, size_t errSize, Body &&body) {
  writeText(err, errSize, "");
  try {
    body();
    return CAKE_OK;
  } catch (const LaunchError &e) {
    writeText(err, errSize, e.what());
    return e.status;
  } catch (const std::bad_alloc &) {
    writeText(err, errSize, "out of memory");
    return CAKE_ERROR_INVALID_ARGUMENT;
  } catch (const std::exception &e) {
    writeText(err, errSize, std::string("internal error in the CAKE runtime: ") + e.what());
    return CAKE_ERROR_INVALID_ARGUMENT;
  } catch (...) {
    writeText(err, errSize, "internal error in the CAKE runtime");
    return CAKE_ERROR_INVALID_ARGUMENT;
  }
}

[[noreturn]] void misuse(const std::string &message) { throw LaunchError(CAKE_ERROR_INVALID_ARGUMENT, message); }

void checkValues(const LibraryState &lib, const int64_t *values, size_t numValues, const char *who) {
  if (!values && numValues) misuse(std::string(who) + ": values must not be NULL");
  if (numValues != lib.shapeVars.size())
    misuse(std::string(who) + ": library " + lib.name + " has " + std::to_string(lib.shapeVars.size()) +
           " shape variables but " + std::to_string(numValues) + " values were given");
}

}   // namespace

extern "C" {

cake_status cake_library_load(const char *path, const char *arch, cake_library **out, char *err, size_t err_size) {
  return guarded(err, err_size, [&] {
    if (!path || !out) misuse("cake_library_load: path and out must not be NULL");
    *out = nullptr;
    auto library = std::make_unique<cake_library>();
    library->state = loadLibrary(path);
    if (arch) library->state->setTargetArch(arch);
    *out = library.release();
  });
}

void cake_library_free(cake_library *library) { delete library; }

cake_status cake_library_set_arch(cake_library *library, const char *arch, char *err, size_t err_size) {
  return guarded(err, err_size, [&] {
    if (!library) misuse("cake_library_set_arch: library must not be NULL");
    if (arch) {
      library->state->setTargetArch(arch);
      return;
    }
    CudaDriverLoad load = sharedCudaDriver();
    if (!load.driver) throw LaunchError(CAKE_ERROR_DRIVER_UNAVAILABLE, load.error);
    auto [major, minor] = currentComputeCapability(*load.driver);
    library->state->setTarget(major, minor);
  });
}

const char *cake_library_target(const cake_library *library) {
  if (!library) return "";
  const_cast<cake_library *>(library)->target = library->state->targetName();
  return library->target.c_str();
}

const char *cake_library_name(const cake_library *library) { return library ? library->state->name.c_str() : ""; }

size_t cake_library_num_shape_vars(const cake_library *library) {
  return library ? library->state->shapeVars.size() : 0;
}

const char *cake_library_shape_var_name(const cake_library *library, size_t index) {
  if (!library || index >= library->state->shapeVars.size()) return nullptr;
  return library->state->shapeVars[index].name.c_str();
}

size_t cake_library_num_variants(const cake_library *library) { return library ? library->state->variants.size() : 0; }

const char *cake_library_variant_name(const cake_library *library, size_t index) {
  if (!library || index >= library->state->variants.size()) return nullptr;
  return library->state->variants[index].name.c_str();
}

const cake_kernel *cake_library_variant_kernel(const cake_library *library, size_t index) {
  if (!library || index >= library->state->variants.size()) return nullptr;
  return library->state->variants[index].steps.front().kernel;
}

size_t cake_library_num_entries(const cake_library *library) { return library ? library->state->entries.size() : 0; }

size_t cake_library_entry_variant(const cake_library *library, size_t entry) {
  if (!library || entry >= library->state->entries.size()) return SIZE_MAX;
  return library->state->entries[entry].variant;
}

const char *cake_library_entry_guard(const cake_library *library, size_t entry) {
  if (!library || entry >= library->state->entries.size()) return nullptr;
  const LibraryEntry &e = library->state->entries[entry];
  return e.fallback ? "true" : e.guard.text().c_str();
}

int cake_library_select(const cake_library *library, const int64_t *values, size_t num_values) {
  if (!library || !values || num_values != library->state->shapeVars.size()) return -1;
  return library->state->select(values);
}

cake_status cake_library_explain(const cake_library *library, const int64_t *values, size_t num_values, int *entry,
                                 char *text, size_t text_size, char *err, size_t err_size) {
  return guarded(err, err_size, [&] {
    if (!library) misuse("cake_library_explain: library must not be NULL");
    checkValues(*library->state, values, num_values, "cake_library_explain");
    int chosen = -1;
    writeText(text, text_size, library->state->explain(values, &chosen));
    if (entry) *entry = chosen;
  });
}

cake_status cake_library_shape(const cake_library *library, const cake_arg *args, size_t num_args,
                               const cake_launch_options *options, int64_t *values, char *err, size_t err_size) {
  return guarded(err, err_size, [&] {
    if (!library || !values) misuse("cake_library_shape: library and values must not be NULL");
    if (!args && num_args) misuse("cake_library_shape: args must not be NULL");
    library->state->shapeValues(args, num_args, options, values);
  });
}

size_t cake_library_variant_num_kernels(const cake_library *library, size_t variant) {
  return library && variant < library->state->variants.size() ? library->state->variants[variant].steps.size() : 0;
}

const cake_kernel *cake_library_variant_kernel_at(const cake_library *library, size_t variant, size_t index) {
  if (!library || variant >= library->state->variants.size()) return nullptr;
  const auto &steps = library->state->variants[variant].steps;
  return index < steps.size() ? steps[index].kernel : nullptr;
}

int cake_library_variant_kernel_arg(const cake_library *library, size_t variant, size_t index, size_t param) {
  const cake_kernel *k = cake_library_variant_kernel_at(library, variant, index);
  if (!k) return INT32_MIN;
  const auto &args = library->state->variants[variant].steps[index].args;
  return param < args.size() ? args[param] : INT32_MIN;
}

size_t cake_library_variant_num_workspace(const cake_library *library, size_t variant) {
  return library && variant < library->state->variants.size() ? library->state->variants[variant].workspace.size() : 0;
}

cake_status cake_library_workspace_shape(const cake_library *library, size_t variant, size_t index,
                                         const int64_t *values, size_t num_values, int64_t *dims, int32_t *rank,
                                         cake_dtype *dtype, char *err, size_t err_size) {
  return guarded(err, err_size, [&] {
    if (!library || !dims || !rank || !dtype) misuse("cake_library_workspace_shape: NULL argument");
    const LibraryState &lib = *library->state;
    checkValues(lib, values, num_values, "cake_library_workspace_shape");
    if (variant >= lib.variants.size() || index >= lib.variants[variant].workspace.size())
      misuse("cake_library_workspace_shape: no such variant or workspace");
    WorkspaceLayout layout = lib.workspaceLayout(variant, values);
    const std::vector<int64_t> &d = layout.dims[index];
    std::copy(d.begin(), d.end(), dims);
    *rank = static_cast<int32_t>(d.size());
    *dtype = lib.variants[variant].workspace[index].dtype;
  });
}

cake_status cake_library_workspace_bytes(const cake_library *library, const int64_t *values, size_t num_values,
                                         size_t *bytes, char *err, size_t err_size) {
  return guarded(err, err_size, [&] {
    if (!library || !bytes) misuse("cake_library_workspace_bytes: library and bytes must not be NULL");
    const LibraryState &lib = *library->state;
    checkValues(lib, values, num_values, "cake_library_workspace_bytes");
    *bytes = 0;
    int chosen = lib.select(values);
    if (chosen >= 0) *bytes = lib.workspaceLayout(lib.entries[static_cast<size_t>(chosen)].variant, values).bytes;
  });
}

cake_status cake_library_launch_workspace(cake_library *library, const cake_arg *args, size_t num_args,
                                          const cake_launch_options *options, uint64_t workspace,
                                          size_t workspace_bytes, int *entry, char *err, size_t err_size) {
  return guarded(err, err_size, [&] {
    if (!library) misuse("cake_library_launch: library must not be NULL");
    if (entry) *entry = -1;
    LibraryState &lib = *library->state;
    int64_t values[64];
    if (lib.shapeVars.size() > 64) misuse("cake_library_launch: more than 64 shape variables");
    lib.shapeValues(args, num_args, options, values);
    if (!lib.hasTarget()) {
      CudaDriverLoad load = sharedCudaDriver();
      if (load.driver) {
        auto [major, minor] = currentComputeCapability(*load.driver);
        lib.setTarget(major, minor);
      }
    }
    int chosen = lib.select(values);
    if (chosen < 0) {
      int ignored = -1;
      throw LaunchError(CAKE_ERROR_REQUIREMENT, "library " + lib.name + ": no entry of the dispatch table accepts " +
                                                    lib.describeShape(values) + "\n" + lib.explain(values, &ignored));
    }
    if (entry) *entry = chosen;
    lib.launchVariant(lib.entries[static_cast<size_t>(chosen)].variant, args, num_args, options, values, workspace,
                      workspace_bytes);
  });
}

cake_status cake_library_launch(cake_library *library, const cake_arg *args, size_t num_args,
                                const cake_launch_options *options, int *entry, char *err, size_t err_size) {
  return cake_library_launch_workspace(library, args, num_args, options, 0, 0, entry, err, err_size);
}

}   // extern "C"
