// Binding launch arguments to a kernel's manifest entry: the checks and the arithmetic of a launch, with
// no CUDA call.
//
// bindLaunch() runs, in order: argument count and kinds; tensor dtype and rank; scalar conversion and range;
// shape variables (explicit values, then each variable's declared source, then any tensor dim that is that
// bare name); every dim and stride of every tensor against its manifest expression; base-address alignment;
// `requires` clauses; grid / block / cluster / dynamic shared memory with CUDA's limits; TMA descriptor
// parameters with the hardware's rules (skipped when a grid dimension is 0: an empty problem launches
// nothing); finally the bytes of every PTX entry parameter (the ABI slots).
// The first failure throws a LaunchError whose message names the argument, clause and values involved.
#pragma once
#include "Manifest.h"
#include "cake/runtime.h"

#include <array>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace cake::rt {

struct LaunchError : std::runtime_error {
  LaunchError(cake_status s, const std::string &message) : std::runtime_error(message), status(s) {}
  cake_status status;
};

// The arguments of cuTensorMapEncodeTiled, innermost dimension first (CUDA's order).
struct TensorMapRequest {
  int param = -1;
  int dataType = 0;                 // CUtensorMapDataType
  uint32_t rank = 0;
  uint64_t globalAddress = 0;
  std::array<uint64_t, 5> globalDim{};
  std::array<uint64_t, 4> globalStrides{}; // bytes, for dims 1..rank-1
  std::array<uint32_t, 5> boxDim{};
  std::array<uint32_t, 5> elementStrides{};
  int interleave = 0;
  int swizzle = 0;
  int l2Promotion = 0;
  int oobFill = 0;
};

// One PTX entry parameter: a value of `size` bytes, or (kind TensorMap) the tensor map `tensorMap`.
struct AbiValue {
  AbiKind kind = AbiKind::Pointer;
  alignas(8) unsigned char bytes[8] = {};
  size_t size = 0;
  int tensorMap = -1;
};

struct BoundLaunch {
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t cluster[3] = {1, 1, 1};
  uint32_t dynamicSmem = 0;
  bool empty = false;               // some grid dim is 0: nothing to launch
  std::vector<int64_t> shapeVarValues;
  std::vector<TensorMapRequest> tensorMaps;
  std::vector<AbiValue> abi;
  std::vector<char> nonEmptyTensor; // per param: a tensor with no zero dim (its address must not be null)
};

struct LaunchInputs {
  const cake_arg *args = nullptr;
  size_t numArgs = 0;
  std::vector<std::pair<std::string, int64_t>> explicitShapeVars;
  // Called (at most once) when an expression uses num_sms; may throw LaunchError.
  std::function<int64_t()> numSms;
};

BoundLaunch bindLaunch(const KernelSpec &kernel, const LaunchInputs &inputs);

// The checks of a launch that depend on a tensor's address alone (bindLaunch runs them too; a prepared
// launch runs them for each new address): not null when the tensor is not empty, aligned to the
// parameter's `align`; a TMA tensor's address 16-byte aligned.  Throw LaunchError(CAKE_ERROR_ARGUMENT).
void checkTensorAddress(const KernelSpec &kernel, size_t index, uint64_t data, bool nonEmpty);
void checkTensorMapAddress(const KernelSpec &kernel, size_t index, uint64_t data);

// Scalar conversions used for f16 / bf16 scalar params (round to nearest even), exposed for tests.
uint16_t floatToHalfBits(float value);
uint16_t floatToBfloat16Bits(float value);

} // namespace cake::rt
