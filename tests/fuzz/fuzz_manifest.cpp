// libFuzzer target for the runtime's manifest reader and launch planner: the input is a launch manifest
// (the JSON text cakec writes beside a cubin, docs/manifest.md).  It goes through the JSON reader, then
// through the C API the way a caller would use it: cake_module_load_data, the kernel introspection calls,
// and cake_kernel_plan for every kernel with arguments built from the manifest's own signature (tensors at
// 16-byte aligned fake addresses with shapes left to the manifest, integer scalars and shape variables with
// values drawn from the input's hash), so that dims, strides, requires clauses, grid / block / cluster /
// shared-memory expressions, TMA checks and ABI slots are all evaluated on hostile input.
//
// What counts as a bug: a sanitizer report, a stack overflow, an exception escaping the C API, a timeout,
// an error message that is not NUL-terminated or is an "internal error" (every bad manifest must get a
// CAKE_ERROR_MANIFEST / argument / expression / launch-config status with a real message), and a JSON tree
// that breaks its own invariants (an object with unequal key and value counts).
#include "Json.h"
#include "cake/runtime.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace {

void checkTree(const cake::rt::JsonValue &v) {
  if (v.isObject() && v.keys.size() != v.items.size()) std::abort();
  if (!v.isObject() && !v.keys.empty()) std::abort();
  for (const cake::rt::JsonValue &item : v.items) checkTree(item);   // depth <= kMaxJsonDepth
}

void checkMessage(cake_status status, const char (&err)[512], const char *call) {
  if (std::memchr(err, '\0', sizeof err) == nullptr) {
    std::fprintf(stderr, "%s: error message is not NUL-terminated\n", call);
    std::abort();
  }
  // The C API's message for an exception it did not expect (CApi.cpp, guarded()); an input may well contain
  // the words "internal error" elsewhere in a message that quotes it.
  if (status != CAKE_OK && std::strncmp(err, "internal error in the CAKE runtime", 34) == 0) {
    std::fprintf(stderr, "%s: %s (status %d)\n", call, err, static_cast<int>(status));
    std::abort();
  }
  if (status != CAKE_OK && err[0] == '\0') {
    std::fprintf(stderr, "%s: status %d without a message\n", call, static_cast<int>(status));
    std::abort();
  }
}

uint64_t fnv1a(const uint8_t *data, size_t size) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
  return h;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  cake::rt::JsonParseResult json = cake::rt::parseJson(text);
  if (json.ok) checkTree(json.value);
  else if (json.error.empty()) std::abort();

  char err[512];
  cake_module *module = nullptr;
  cake_status status = cake_module_load_data(text.data(), text.size(), nullptr, 0, &module, err, sizeof err);
  checkMessage(status, err, "cake_module_load_data");
  if (status != CAKE_OK) {
    if (module) std::abort();   // no module on failure
    return 0;
  }
  static const int64_t kValues[] = {0, 1, 2, 7, 16, 64, 128, 1000, 4096, 65536, 2147483647, -1};
  uint64_t h = fnv1a(data, size);
  auto next = [&h]() {
    h = h * 6364136223846793005ull + 1442695040888963407ull;
    return kValues[(h >> 33) % (sizeof kValues / sizeof kValues[0])];
  };
  (void)cake_module_arch(module);
  for (size_t k = 0; k < cake_module_num_kernels(module); ++k) {
    const cake_kernel *kernel = cake_module_kernel_at(module, k);
    const cake_kernel *byName = nullptr;
    checkMessage(cake_kernel_get(module, cake_kernel_name(kernel), &byName, err, sizeof err), err, "cake_kernel_get");
    (void)cake_kernel_entry(kernel);
    size_t numParams = cake_kernel_num_params(kernel);
    std::vector<cake_arg> args(numParams);
    for (size_t p = 0; p < numParams; ++p) {
      (void)cake_kernel_param_name(kernel, p);
      cake_arg &arg = args[p];
      arg.kind = cake_kernel_param_kind(kernel, p);
      arg.dtype = cake_kernel_param_dtype(kernel, p);
      if (arg.kind == CAKE_ARG_TENSOR) {
        arg.data = 0x7f0000000000ull + (static_cast<uint64_t>(p) << 24);   // 16 MiB apart, 1 KiB aligned
        arg.rank = cake_kernel_param_rank(kernel, p);                    // shape from the manifest
      } else {
        arg.i = next();
        arg.f = static_cast<double>(arg.i);
      }
    }
    std::vector<std::string> names;
    std::vector<cake_named_int> vars;
    size_t numVars = cake_kernel_num_shape_vars(kernel);
    names.reserve(numVars);
    for (size_t v = 0; v < numVars; ++v) names.emplace_back(cake_kernel_shape_var_name(kernel, v));
    for (size_t v = 0; v < numVars; ++v) vars.push_back(cake_named_int{names[v].c_str(), next()});
    cake_launch_options options{};
    options.struct_size = sizeof options;
    options.shape_vars = vars.data();
    options.num_shape_vars = vars.size();
    options.num_sms = 132;
    cake_launch_plan plan{};
    status = cake_kernel_plan(kernel, args.data(), args.size(), &options, &plan, err, sizeof err);
    checkMessage(status, err, "cake_kernel_plan");
    // The same call without explicit shape variables: the manifest's sources (tensor dims) must cope.
    options.num_shape_vars = 0;
    status = cake_kernel_plan(kernel, args.data(), args.size(), &options, &plan, err, sizeof err);
    checkMessage(status, err, "cake_kernel_plan");
  }
  cake_module_free(module);
  return 0;
}
