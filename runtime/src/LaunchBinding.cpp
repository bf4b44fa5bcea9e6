// Launch binding: see LaunchBinding.h for the order of the checks.  Each check is one function; the
// environment for expressions (shape vars, integer scalars, compile-time params, num_sms) is LaunchScope.
#include "LaunchBinding.h"

#include "DType.h"

#include <bit>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

namespace cake::rt {

uint16_t floatToBfloat16Bits(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x40); // quiet NaN, sign kept
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

uint16_t floatToHalfBits(float value) {
  uint32_t x = std::bit_cast<uint32_t>(value);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u)                       // inf or NaN
    return sign | (x > 0x7f800000u ? 0x7e00 : 0x7c00);
  if (x >= 0x477ff000u)                       // >= 65520 rounds to infinity
    return sign | 0x7c00;
  if (x < 0x38800000u) {                      // below 2^-14: half subnormal or zero
    float scaled = std::bit_cast<float>(x) * 16777216.0f; // units of 2^-24, exact
    return sign | static_cast<uint16_t>(std::nearbyint(scaled));
  }
  x += 0xfffu + ((x >> 13) & 1u);             // round to nearest even at bit 13
  return sign | static_cast<uint16_t>((x - 0x38000000u) >> 13);
}

namespace {

std::string argLabel(const KernelSpec &kernel, size_t index) {
  return "argument " + std::to_string(index) + " (" + kernel.params[index].name + ")";
}

std::string hex(uint64_t value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%llx", static_cast<unsigned long long>(value));
  return buffer;
}

} // namespace

void checkTensorAddress(const KernelSpec &kernel, size_t index, uint64_t data, bool nonEmpty) {
  const ParamSpec &param = kernel.params[index];
  if (nonEmpty && data == 0)
    throw LaunchError(CAKE_ERROR_ARGUMENT, argLabel(kernel, index) + ": device address is null");
  if (data % static_cast<uint64_t>(param.align) != 0)
    throw LaunchError(CAKE_ERROR_ARGUMENT, argLabel(kernel, index) + ": device address " + hex(data) +
                                               " is not aligned to " + std::to_string(param.align) + " bytes");
}

void checkTensorMapAddress(const KernelSpec &kernel, size_t index, uint64_t data) {
  if (data % 16 != 0)
    throw LaunchError(CAKE_ERROR_ARGUMENT,
                      argLabel(kernel, index) + ": TMA needs a 16-byte aligned address, got " + hex(data));
}

namespace {

std::string kernelLabel(const KernelSpec &kernel) { return "kernel " + kernel.name; }

std::string listInts(const std::vector<int64_t> &values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i)
    out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

[[noreturn]] void argumentError(const std::string &message) { throw LaunchError(CAKE_ERROR_ARGUMENT, message); }

// The tensor argument as seen after binding: shape and strides always filled in.
struct TensorView {
  uint64_t data = 0;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;   // elements
  bool hasShape = false;          // shape came from the caller (not derived from the manifest)
  bool hasStrides = false;
};

// Scalar parameter values after conversion: integers (for expressions and integer slots) and slot bytes.
struct ScalarValue {
  int64_t integer = 0;
  AbiType slotType = AbiType::S32;
  uint64_t bits = 0;
};

class Binder {
public:
  Binder(const KernelSpec &kernel, const LaunchInputs &inputs) : kernel_(kernel), inputs_(inputs) {}

  BoundLaunch bind() {
    checkArgumentKinds();
    bindScalars();
    bindShapeVars();
    checkTensors();
    checkRequirements();
    evaluateLaunchConfig();
    if (!out_.empty) // an empty problem launches nothing, so it needs no (and may not have valid) TMA maps
      buildTensorMaps();
    buildAbi();
    return std::move(out_);
  }

private:
  // ---- expression environment
  std::optional<int64_t> lookup(std::string_view name) {
    int var = kernel_.findShapeVar(name);
    if (var >= 0)
      return shapeVars_[var];
    if (const int64_t *ct = kernel_.findCtParam(name))
      return *ct;
    int param = kernel_.findParam(name);
    if (param >= 0 && scalars_[param])
      return scalars_[param]->integer;
    if (name == "num_sms")
      return numSms();
    return std::nullopt;
  }

  int64_t numSms() {
    if (!numSms_) {
      if (!inputs_.numSms)
        throw LaunchError(CAKE_ERROR_LAUNCH_CONFIG,
                          kernelLabel(kernel_) + ": the launch uses num_sms but no SM count is known");
      numSms_ = inputs_.numSms();
    }
    return *numSms_;
  }

  int64_t evaluate(const Expr &expr, const std::string &what) {
    try {
      return expr.evaluate([this](std::string_view name) { return lookup(name); });
    } catch (const ExprEvalError &e) {
      throw LaunchError(CAKE_ERROR_EXPRESSION, kernelLabel(kernel_) + ": " + what + ": " + e.what());
    }
  }

  std::string describeValues(const Expr &expr) {
    std::string out;
    for (const std::string &name : expr.names()) {
      std::optional<int64_t> value;
      try {
        value = lookup(name);
      } catch (const LaunchError &) {
      }
      out += (out.empty() ? "" : ", ") + name + " = " + (value ? std::to_string(*value) : "?");
    }
    return out;
  }

  // ---- 1. argument count and kinds, tensor dtype and rank
  void checkArgumentKinds() {
    const size_t expected = kernel_.params.size();
    if (inputs_.numArgs != expected) {
      std::string names;
      for (const ParamSpec &param : kernel_.params)
        names += (names.empty() ? "" : ", ") + param.name;
      argumentError(kernelLabel(kernel_) + " takes " + std::to_string(expected) + " argument" +
                    (expected == 1 ? "" : "s") + " (" + names + "), got " + std::to_string(inputs_.numArgs));
    }
    if (expected > 0 && !inputs_.args)
      throw LaunchError(CAKE_ERROR_INVALID_ARGUMENT, "args is NULL");
    tensors_.resize(expected);
    scalars_.resize(expected);
    for (size_t i = 0; i < expected; ++i) {
      const cake_arg &arg = inputs_.args[i];
      const ParamSpec &param = kernel_.params[i];
      if (param.kind == CAKE_ARG_TENSOR) {
        if (arg.kind != CAKE_ARG_TENSOR)
          argumentError(argLabel(kernel_, i) + ": expected a " + std::string(dtypeName(param.dtype)) + " tensor of rank " +
                        std::to_string(param.rank()) + ", got a scalar");
        if (arg.dtype != param.dtype)
          argumentError(argLabel(kernel_, i) + ": expected a " + std::string(dtypeName(param.dtype)) + " tensor, got " +
                        std::string(dtypeName(arg.dtype)));
        TensorView &view = tensors_[i];
        view.data = arg.data;
        if (arg.shape) {
          if (arg.rank != param.rank())
            argumentError(argLabel(kernel_, i) + ": expected a tensor of rank " + std::to_string(param.rank()) +
                          ", got rank " + std::to_string(arg.rank));
          view.hasShape = true;
          view.shape.assign(arg.shape, arg.shape + arg.rank);
          for (int d = 0; d < arg.rank; ++d)
            if (view.shape[d] < 0)
              argumentError(argLabel(kernel_, i) + ": dim " + std::to_string(d) + " is negative (" +
                            std::to_string(view.shape[d]) + ")");
        } else if (arg.rank != 0 && arg.rank != param.rank()) {
          argumentError(argLabel(kernel_, i) + ": expected a tensor of rank " + std::to_string(param.rank()) +
                        ", got rank " + std::to_string(arg.rank));
        }
        if (arg.strides) {
          if (!arg.shape)
            argumentError(argLabel(kernel_, i) + ": strides given without a shape");
          view.hasStrides = true;
          view.strides.assign(arg.strides, arg.strides + arg.rank);
        }
      } else if (arg.kind != CAKE_ARG_SCALAR) {
        argumentError(argLabel(kernel_, i) + ": expected a " + std::string(dtypeName(param.dtype)) + " scalar, got " +
                      (arg.kind == CAKE_ARG_TENSOR ? "a tensor" : "an argument of unknown kind"));
      }
    }
  }

  // ---- 2. scalars: conversion and range
  void bindScalars() {
    for (size_t i = 0; i < kernel_.params.size(); ++i) {
      const ParamSpec &param = kernel_.params[i];
      if (param.kind != CAKE_ARG_SCALAR)
        continue;
      scalars_[i] = convertScalar(i, inputs_.args[i], param);
    }
  }

  ScalarValue convertScalar(size_t index, const cake_arg &arg, const ParamSpec &param) {
    ScalarValue value;
    const std::string label = argLabel(kernel_, index);
    const bool givenInteger = dtypeIsInteger(arg.dtype);
    if (!givenInteger && !dtypeIsFloat(arg.dtype))
      argumentError(label + ": scalar value has invalid dtype " + std::to_string(static_cast<int>(arg.dtype)));
    if (dtypeIsInteger(param.dtype)) {
      if (!givenInteger)
        argumentError(label + ": expected an integer (" + std::string(dtypeName(param.dtype)) + "), got a float value " +
                      std::to_string(arg.f));
      int64_t v = arg.i;
      auto range = [&](int64_t lo, int64_t hi) {
        if (v < lo || v > hi)
          argumentError(label + ": value " + std::to_string(v) + " does not fit in " +
                        std::string(dtypeName(param.dtype)) + " (" + std::to_string(lo) + ".." + std::to_string(hi) + ")");
      };
      value.integer = v;
      switch (param.dtype) {
      case CAKE_DTYPE_PRED:
        if (v != 0 && v != 1)
          argumentError(label + ": value " + std::to_string(v) + " is not a pred (0 or 1, false or true)");
        value.slotType = AbiType::U8;
        break;
      case CAKE_DTYPE_I32:
        range(INT32_MIN, INT32_MAX);
        value.slotType = AbiType::S32;
        break;
      case CAKE_DTYPE_U32:
        range(0, UINT32_MAX);
        value.slotType = AbiType::U32;
        break;
      default:
        value.slotType = AbiType::S64;
        break;
      }
      value.bits = static_cast<uint64_t>(value.integer);
      return value;
    }
    double d = givenInteger ? static_cast<double>(arg.i) : arg.f;
    if (std::isfinite(d) && std::fabs(d) > static_cast<double>(std::numeric_limits<float>::max()))
      argumentError(label + ": value " + std::to_string(d) + " does not fit in " + std::string(dtypeName(param.dtype)));
    float f = static_cast<float>(d);
    if (param.dtype == CAKE_DTYPE_F32) {
      value.slotType = AbiType::F32;
      value.bits = std::bit_cast<uint32_t>(f);
    } else {
      value.slotType = AbiType::B16;
      uint16_t bits = param.dtype == CAKE_DTYPE_F16 ? floatToHalfBits(f) : floatToBfloat16Bits(f);
      if (param.dtype == CAKE_DTYPE_F16 && std::isfinite(f) && (bits & 0x7c00) == 0x7c00)
        argumentError(label + ": value " + std::to_string(d) + " does not fit in f16 (max 65504)");
      value.bits = bits;
    }
    return value;
  }

  // ---- 3. shape variables
  void bindShapeVar(size_t var, int64_t value, const std::string &source) {
    const std::string &name = kernel_.shapeVars[var].name;
    if (shapeVars_[var]) {
      if (*shapeVars_[var] != value)
        argumentError(kernelLabel(kernel_) + ": shape variable " + name + " is " + std::to_string(*shapeVars_[var]) +
                      " (" + shapeVarSources_[var] + ") but " + std::to_string(value) + " (" + source + ")");
      return;
    }
    if (value < 0 || value > INT32_MAX)
      argumentError(kernelLabel(kernel_) + ": shape variable " + name + " = " + std::to_string(value) + " (" + source +
                    ") does not fit in the kernel's 32-bit shape parameter");
    shapeVars_[var] = value;
    shapeVarSources_[var] = source;
  }

  void bindShapeVars() {
    shapeVars_.assign(kernel_.shapeVars.size(), std::nullopt);
    shapeVarSources_.assign(kernel_.shapeVars.size(), "");
    for (const auto &[name, value] : inputs_.explicitShapeVars) {
      int var = kernel_.findShapeVar(name);
      if (var < 0) {
        std::string known;
        for (const ShapeVarSpec &spec : kernel_.shapeVars)
          known += (known.empty() ? "" : ", ") + spec.name;
        argumentError(kernelLabel(kernel_) + ": '" + name + "' is not a shape variable of this kernel (shape variables: " +
                      (known.empty() ? "none" : known) + ")");
      }
      bindShapeVar(var, value, "given explicitly");
    }
    // Declared sources first, so the messages blame the tensors the manifest names.
    for (size_t var = 0; var < kernel_.shapeVars.size(); ++var) {
      const ShapeVarSpec &spec = kernel_.shapeVars[var];
      if (spec.param < 0)
        continue;
      const TensorView &view = tensors_[spec.param];
      if (spec.fromStride ? !view.hasStrides && !view.hasShape : !view.hasShape)
        continue;
      int64_t value;
      if (spec.fromStride)
        value = view.hasStrides ? view.strides[spec.dim] : contiguousStrides(view.shape)[spec.dim];
      else
        value = view.shape[spec.dim];
      bindShapeVar(var, value,
                   kernel_.params[spec.param].name + (spec.fromStride ? " stride " : " dim ") + std::to_string(spec.dim));
    }
    // Then any dim that is a bare shape-variable name (covers tensors passed without a shape).
    for (size_t i = 0; i < kernel_.params.size(); ++i) {
      const TensorView &view = tensors_[i];
      if (kernel_.params[i].kind != CAKE_ARG_TENSOR || !view.hasShape)
        continue;
      for (size_t d = 0; d < view.shape.size(); ++d) {
        int var = kernel_.findShapeVar(kernel_.params[i].dims[d].bareName());
        if (var >= 0 && !shapeVars_[var])
          bindShapeVar(var, view.shape[d], kernel_.params[i].name + " dim " + std::to_string(d));
      }
    }
    for (size_t var = 0; var < kernel_.shapeVars.size(); ++var)
      if (!shapeVars_[var])
        argumentError(kernelLabel(kernel_) + ": shape variable " + kernel_.shapeVars[var].name +
                      " is not known: no tensor that determines it was passed with a shape; pass " +
                      kernel_.shapeVars[var].name + " explicitly");
    out_.shapeVarValues.reserve(shapeVars_.size());
    for (const auto &value : shapeVars_)
      out_.shapeVarValues.push_back(*value);
  }

  static std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &shape) {
    std::vector<int64_t> strides(shape.size(), 1);
    int64_t running = 1;
    for (size_t d = shape.size(); d-- > 0;) {
      strides[d] = running;
      if (shape[d] > 0 && __builtin_mul_overflow(running, shape[d], &running))
        running = INT64_MAX;
    }
    return strides;
  }

  // ---- 4. every dim and stride against the manifest; alignment; null pointers
  void checkTensors() {
    out_.nonEmptyTensor.assign(kernel_.params.size(), 0);
    for (size_t i = 0; i < kernel_.params.size(); ++i) {
      const ParamSpec &param = kernel_.params[i];
      if (param.kind != CAKE_ARG_TENSOR)
        continue;
      TensorView &view = tensors_[i];
      const std::string label = argLabel(kernel_, i);
      std::vector<int64_t> expected;
      for (int d = 0; d < param.rank(); ++d)
        expected.push_back(evaluate(param.dims[d], param.name + " dim " + std::to_string(d)));
      if (!view.hasShape) {
        for (int d = 0; d < param.rank(); ++d)
          if (expected[d] < 0)
            argumentError(label + ": dim " + std::to_string(d) + " `" + param.dims[d].text() + "` evaluates to " +
                          std::to_string(expected[d]));
        view.shape = expected;
      } else {
        for (int d = 0; d < param.rank(); ++d)
          if (view.shape[d] != expected[d])
            argumentError(label + ": dim " + std::to_string(d) + " is " + std::to_string(view.shape[d]) +
                          " but the kernel expects `" + param.dims[d].text() + "` = " + std::to_string(expected[d]) +
                          describeSource(param.dims[d]) + "; shape " + listInts(view.shape));
      }
      bool empty = false;
      for (int64_t size : view.shape)
        empty = empty || size == 0;
      if (!view.hasStrides)
        view.strides = contiguousStrides(view.shape);
      if (!empty) {
        if (param.contiguous) {
          std::vector<int64_t> rowMajor = contiguousStrides(view.shape);
          for (int d = 0; d < param.rank(); ++d)
            if (view.shape[d] != 1 && view.strides[d] != rowMajor[d])
              argumentError(label + ": the kernel expects a contiguous (row-major) tensor; strides are " +
                            listInts(view.strides) + ", expected " + listInts(rowMajor) + " for shape " +
                            listInts(view.shape));
        } else {
          for (int d = 0; d < param.rank(); ++d) {
            int64_t want = evaluate(param.strides[d], param.name + " stride " + std::to_string(d));
            if (view.shape[d] != 1 && view.strides[d] != want)
              argumentError(label + ": stride " + std::to_string(d) + " is " + std::to_string(view.strides[d]) +
                            " but the kernel expects `" + param.strides[d].text() + "` = " + std::to_string(want) +
                            "; strides " + listInts(view.strides));
          }
        }
      }
      out_.nonEmptyTensor[i] = !empty;
      checkTensorAddress(kernel_, i, view.data, !empty);
    }
  }

  std::string describeSource(const Expr &expr) {
    std::string_view name = expr.bareName();
    int var = name.empty() ? -1 : kernel_.findShapeVar(name);
    if (var >= 0 && !shapeVarSources_[var].empty())
      return " (" + std::string(name) + " from " + shapeVarSources_[var] + ")";
    std::string values = describeValues(expr);
    return values.empty() || expr.literal() ? "" : " (" + values + ")";
  }

  // ---- 5. requires clauses
  void checkRequirements() {
    for (const RequireSpec &req : kernel_.requirements) {
      std::string where = "requirement `" + req.text + "`" + (req.loc.empty() ? "" : " (" + req.loc + ")");
      int64_t holds = evaluate(req.expr, where);
      if (!holds) {
        std::string values = describeValues(req.expr);
        throw LaunchError(CAKE_ERROR_REQUIREMENT, kernelLabel(kernel_) + ": " + where + " does not hold" +
                                                      (values.empty() ? "" : ": " + values));
      }
    }
  }

  // ---- 6. grid, block, cluster, dynamic shared memory
  void evaluateLaunchConfig() {
    static const char *kAxis[3] = {"x", "y", "z"};
    auto configError = [&](const std::string &message) {
      throw LaunchError(CAKE_ERROR_LAUNCH_CONFIG, kernelLabel(kernel_) + ": " + message);
    };
    int64_t threads = 1, clusterSize = 1;
    for (int i = 0; i < 3; ++i) {
      std::string axis = kAxis[i];
      int64_t grid = evaluate(kernel_.grid[i], "grid." + axis);
      int64_t gridMax = i == 0 ? INT32_MAX : 65535;
      if (grid < 0 || grid > gridMax)
        configError("grid." + axis + " `" + kernel_.grid[i].text() + "` = " + std::to_string(grid) +
                    " is outside 0.." + std::to_string(gridMax) + " (" + describeValues(kernel_.grid[i]) + ")");
      int64_t block = evaluate(kernel_.block[i], "block." + axis);
      int64_t blockMax = i == 2 ? 64 : 1024;
      if (block < 1 || block > blockMax)
        configError("block." + axis + " = " + std::to_string(block) + " is outside 1.." + std::to_string(blockMax));
      int64_t cluster = evaluate(kernel_.cluster[i], "cluster." + axis);
      if (cluster < 1 || cluster > 16)
        configError("cluster." + axis + " = " + std::to_string(cluster) + " is outside 1..16");
      if (grid % cluster != 0)
        configError("grid." + axis + " = " + std::to_string(grid) + " is not a multiple of cluster." + axis + " = " +
                    std::to_string(cluster) + " (" + describeValues(kernel_.grid[i]) + ")");
      threads *= block;
      clusterSize *= cluster;
      out_.grid[i] = static_cast<uint32_t>(grid);
      out_.block[i] = static_cast<uint32_t>(block);
      out_.cluster[i] = static_cast<uint32_t>(cluster);
      out_.empty = out_.empty || grid == 0;
    }
    if (threads > 1024)
      configError(std::to_string(threads) + " threads per block exceed 1024");
    if (clusterSize > 16)
      configError("cluster of " + std::to_string(clusterSize) + " blocks exceeds 16");
    int64_t smem = evaluate(kernel_.dynamicSmem, "dynamic_smem");
    if (smem < 0 || smem > UINT32_MAX)
      configError("dynamic shared memory " + std::to_string(smem) + " bytes is out of range");
    out_.dynamicSmem = static_cast<uint32_t>(smem);
  }

  // ---- 7. TMA descriptors
  static int tensorMapDataType(cake_dtype dtype) {
    switch (dtype) {
    case CAKE_DTYPE_I32: return 3;   // CU_TENSOR_MAP_DATA_TYPE_INT32
    case CAKE_DTYPE_U32: return 2;   // UINT32
    case CAKE_DTYPE_I64: return 5;   // INT64
    case CAKE_DTYPE_F16: return 6;   // FLOAT16
    case CAKE_DTYPE_F32: return 7;   // FLOAT32
    case CAKE_DTYPE_BF16: return 9;  // BFLOAT16
    default: return 0;               // UINT8: pred, f8e4m3, f8e5m2 move as bytes
    }
  }

  void buildTensorMaps() {
    for (size_t i = 0; i < kernel_.params.size(); ++i) {
      const ParamSpec &param = kernel_.params[i];
      if (!param.tma)
        continue;
      const TensorView &view = tensors_[i];
      const std::string label = argLabel(kernel_, i) + ": TMA";
      const size_t elementSize = dtypeSize(param.dtype);
      const int rank = param.rank();
      TensorMapRequest request;
      request.param = static_cast<int>(i);
      request.dataType = tensorMapDataType(param.dtype);
      request.rank = static_cast<uint32_t>(rank);
      request.globalAddress = view.data;
      request.swizzle = static_cast<int>(param.tma->swizzle);
      request.l2Promotion = static_cast<int>(param.tma->l2Promotion);
      request.oobFill = static_cast<int>(param.tma->oobFill);
      if (view.strides[rank - 1] != 1 && view.shape[rank - 1] != 1)
        argumentError(label + " needs the innermost dimension contiguous (stride 1), got stride " +
                      std::to_string(view.strides[rank - 1]));
      for (int d = 0; d < rank; ++d) {
        int cudaDim = rank - 1 - d; // CUDA counts from the innermost dimension
        int64_t size = view.shape[d];
        if (size < 1 || size > (int64_t{1} << 32))
          argumentError(label + " dim " + std::to_string(d) + " = " + std::to_string(size) + " is outside 1..2^32");
        request.globalDim[cudaDim] = static_cast<uint64_t>(size);
        int64_t box = evaluate(param.tma->box[d], param.name + " tma box " + std::to_string(d));
        if (box < 1 || box > 256)
          argumentError(label + " box dim " + std::to_string(d) + " = " + std::to_string(box) + " is outside 1..256");
        request.boxDim[cudaDim] = static_cast<uint32_t>(box);
        request.elementStrides[cudaDim] = 1;
        if (cudaDim > 0) {
          int64_t strideBytes;
          if (__builtin_mul_overflow(view.strides[d], static_cast<int64_t>(elementSize), &strideBytes) ||
              strideBytes <= 0 || strideBytes % 16 != 0 || strideBytes >= (int64_t{1} << 40))
            argumentError(label + " stride of dim " + std::to_string(d) + " = " + std::to_string(view.strides[d]) +
                          " elements must be a positive multiple of 16 bytes below 2^40");
          request.globalStrides[cudaDim - 1] = static_cast<uint64_t>(strideBytes);
        }
      }
      const uint64_t innerBoxBytes = request.boxDim[0] * elementSize;
      if (innerBoxBytes % 16 != 0)
        argumentError(label + " inner box dimension is " + std::to_string(innerBoxBytes) +
                      " bytes; it must be a multiple of 16 bytes");
      static const uint64_t kSwizzleSpan[4] = {0, 32, 64, 128};
      if (param.tma->swizzle != TmaSwizzle::None && innerBoxBytes > kSwizzleSpan[request.swizzle])
        argumentError(label + " inner box dimension is " + std::to_string(innerBoxBytes) + " bytes; swizzle " +
                      std::to_string(kSwizzleSpan[request.swizzle]) + "B allows at most " +
                      std::to_string(kSwizzleSpan[request.swizzle]) + " bytes");
      checkTensorMapAddress(kernel_, i, view.data);
      out_.tensorMaps.push_back(request);
    }
  }

  // ---- 8. ABI slots
  void buildAbi() {
    for (size_t slot = 0; slot < kernel_.abi.size(); ++slot) {
      const AbiSlotSpec &spec = kernel_.abi[slot];
      AbiValue value;
      value.kind = spec.kind;
      auto store = [&](uint64_t bits, AbiType type) {
        value.size = abiTypeSize(type);
        // Little-endian: the low `size` bytes of `bits` are the value.
        std::memcpy(value.bytes, &bits, value.size);
      };
      switch (spec.kind) {
      case AbiKind::Pointer: store(tensors_[spec.param].data, AbiType::U64); break;
      case AbiKind::ShapeVar: store(static_cast<uint64_t>(*shapeVars_[spec.shapeVar]), AbiType::S32); break;
      case AbiKind::Scalar: store(scalars_[spec.param]->bits, scalars_[spec.param]->slotType); break;
      case AbiKind::TensorMap:
        for (size_t m = 0; m < out_.tensorMaps.size(); ++m)
          if (out_.tensorMaps[m].param == spec.param)
            value.tensorMap = static_cast<int>(m);
        value.size = 128;
        break;
      case AbiKind::Value: {
        int64_t v = evaluate(spec.expr, "abi[" + std::to_string(slot) + "]");
        bool fits = spec.type == AbiType::S32   ? v >= INT32_MIN && v <= INT32_MAX
                    : spec.type == AbiType::U32 ? v >= 0 && v <= UINT32_MAX
                    : spec.type == AbiType::U64 ? v >= 0
                                                : true;
        if (!fits)
          throw LaunchError(CAKE_ERROR_EXPRESSION, kernelLabel(kernel_) + ": abi[" + std::to_string(slot) + "] `" +
                                                       spec.expr.text() + "` = " + std::to_string(v) +
                                                       " does not fit in ." + std::string(abiTypeName(spec.type)));
        store(static_cast<uint64_t>(v), spec.type);
        break;
      }
      }
      out_.abi.push_back(value);
    }
  }

  const KernelSpec &kernel_;
  const LaunchInputs &inputs_;
  std::vector<TensorView> tensors_;
  std::vector<std::optional<ScalarValue>> scalars_;
  std::vector<std::optional<int64_t>> shapeVars_;
  std::vector<std::string> shapeVarSources_;
  std::optional<int64_t> numSms_;
  BoundLaunch out_;
};

} // namespace

BoundLaunch bindLaunch(const KernelSpec &kernel, const LaunchInputs &inputs) { return Binder(kernel, inputs).bind(); }

} // namespace cake::rt
