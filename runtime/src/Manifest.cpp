// Manifest reader: walks the JSON tree field by field, keeping the JSON path of the current field for error
// messages, rejects unknown keys (typos in a generator are caught at once), then cross-checks names.
#include "Manifest.h"

#include "DType.h"
#include "Json.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <set>

namespace cake::rt {

int KernelSpec::findParam(std::string_view name) const {
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].name == name)
      return static_cast<int>(i);
  return -1;
}

int KernelSpec::findShapeVar(std::string_view name) const {
  for (size_t i = 0; i < shapeVars.size(); ++i)
    if (shapeVars[i].name == name)
      return static_cast<int>(i);
  return -1;
}

const int64_t *KernelSpec::findCtParam(std::string_view name) const {
  for (const auto &[ctName, value] : ctParams)
    if (ctName == name)
      return &value;
  return nullptr;
}

std::string_view abiTypeName(AbiType type) {
  switch (type) {
  case AbiType::U8: return "u8";
  case AbiType::S32: return "s32";
  case AbiType::U32: return "u32";
  case AbiType::S64: return "s64";
  case AbiType::U64: return "u64";
  case AbiType::B16: return "b16";
  case AbiType::F32: return "f32";
  }
  return "?";
}

size_t abiTypeSize(AbiType type) {
  switch (type) {
  case AbiType::U8: return 1;
  case AbiType::B16: return 2;
  case AbiType::S32:
  case AbiType::U32:
  case AbiType::F32: return 4;
  case AbiType::S64:
  case AbiType::U64: return 8;
  }
  return 0;
}

namespace {

bool isValidName(const std::string &name) {
  bool ok = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name)
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  return ok;
}

// A JSON value together with its path ("kernels[0] (gemm).params[1] (B)") for messages.
class Field {
public:
  Field(const JsonValue &value, std::string path) : value_(value), path_(std::move(path)) {}

  const JsonValue &value() const { return value_; }
  const std::string &path() const { return path_; }

  [[noreturn]] void fail(const std::string &message) const {
    throw ManifestError(path_.empty() ? message : path_ + ": " + message);
  }

  void expectType(JsonType type) const {
    if (value_.type != type)
      fail("expected " + std::string(jsonTypeName(type)) + ", got " + std::string(jsonTypeName(value_.type)));
  }

  // Rejects keys outside `allowed`.
  void allowOnlyKeys(std::initializer_list<std::string_view> allowed) const {
    expectType(JsonType::Object);
    for (const std::string &key : value_.keys)
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        std::string list;
        for (std::string_view name : allowed)
          list += (list.empty() ? "" : ", ") + std::string(name);
        fail("unknown key \"" + key + "\" (allowed: " + list + ")");
      }
  }

  std::optional<Field> optional(std::string_view key) const {
    const JsonValue *member = value_.find(key);
    if (!member)
      return std::nullopt;
    return Field(*member, child(key));
  }

  Field required(std::string_view key) const {
    const JsonValue *member = value_.find(key);
    if (!member)
      fail("missing key \"" + std::string(key) + "\"");
    return Field(*member, child(key));
  }

  Field item(size_t index, std::string_view label = {}) const {
    std::string path = path_ + "[" + std::to_string(index) + "]";
    if (!label.empty())
      path += " (" + std::string(label) + ")";
    return Field(value_.items[index], path);
  }

  std::string asString() const {
    expectType(JsonType::String);
    return value_.string;
  }

  bool asBool() const {
    expectType(JsonType::Bool);
    return value_.boolean;
  }

  std::string asName() const {
    std::string name = asString();
    if (!isValidName(name))
      fail("\"" + name + "\" is not a valid name (letters, digits and '_', not starting with a digit)");
    return name;
  }

  int64_t asInt(int64_t min, int64_t max) const {
    expectType(JsonType::Int);
    if (value_.integer < min || value_.integer > max)
      fail(std::to_string(value_.integer) + " is outside " + std::to_string(min) + ".." + std::to_string(max));
    return value_.integer;
  }

  // An expression: a JSON integer or a string in the expression language.
  Expr asExpr() const {
    if (value_.isInt())
      return Expr::constant(value_.integer);
    if (!value_.isString())
      fail("expected an integer or an expression string, got " + std::string(jsonTypeName(value_.type)));
    try {
      return Expr::parse(value_.string);
    } catch (const ExprSyntaxError &e) {
      fail(e.what());
    }
  }

  size_t arraySize(size_t min, size_t max) const {
    expectType(JsonType::Array);
    size_t n = value_.items.size();
    if (n < min || n > max)
      fail("expected " + (min == max ? std::to_string(min) : std::to_string(min) + ".." + std::to_string(max)) +
           " entries, got " + std::to_string(n));
    return n;
  }

private:
  std::string child(std::string_view key) const { return path_.empty() ? std::string(key) : path_ + "." + std::string(key); }

  const JsonValue &value_;
  std::string path_;
};

cake_dtype readDType(const Field &field) {
  std::string name = field.asString();
  cake_dtype dtype = dtypeFromName(name);
  if (!dtypeIsKernelType(dtype))
    field.fail("unknown dtype '" + name + "' (known: pred i32 u32 i64 f16 bf16 f32 f8e4m3 f8e5m2)");
  return dtype;
}

TmaSwizzle readSwizzle(const Field &field) {
  std::string s = field.asString();
  if (s == "none") return TmaSwizzle::None;
  if (s == "32B") return TmaSwizzle::B32;
  if (s == "64B") return TmaSwizzle::B64;
  if (s == "128B") return TmaSwizzle::B128;
  field.fail("unknown swizzle '" + s + "' (known: none 32B 64B 128B)");
}

TmaL2Promotion readL2Promotion(const Field &field) {
  std::string s = field.asString();
  if (s == "none") return TmaL2Promotion::None;
  if (s == "64B") return TmaL2Promotion::B64;
  if (s == "128B") return TmaL2Promotion::B128;
  if (s == "256B") return TmaL2Promotion::B256;
  field.fail("unknown l2_promotion '" + s + "' (known: none 64B 128B 256B)");
}

TmaOobFill readOobFill(const Field &field) {
  std::string s = field.asString();
  if (s == "zero") return TmaOobFill::Zero;
  if (s == "nan") return TmaOobFill::Nan;
  field.fail("unknown oob_fill '" + s + "' (known: zero nan)");
}

TensorMapSpec readTensorMap(const Field &field, const ParamSpec &param) {
  field.allowOnlyKeys({"box", "swizzle", "interleave", "l2_promotion", "oob_fill"});
  TensorMapSpec spec;
  if (param.rank() > kMaxTmaRank)
    field.fail("TMA supports tensors of rank 1.." + std::to_string(kMaxTmaRank) + ", this one has rank " +
               std::to_string(param.rank()));
  Field box = field.required("box");
  size_t n = box.arraySize(param.dims.size(), param.dims.size());
  for (size_t i = 0; i < n; ++i)
    spec.box.push_back(box.item(i).asExpr());
  if (auto swizzle = field.optional("swizzle"))
    spec.swizzle = readSwizzle(*swizzle);
  if (auto interleave = field.optional("interleave"))
    if (interleave->asString() != "none")
      interleave->fail("only interleave \"none\" is supported");
  if (auto l2 = field.optional("l2_promotion"))
    spec.l2Promotion = readL2Promotion(*l2);
  if (auto oob = field.optional("oob_fill"))
    spec.oobFill = readOobFill(*oob);
  return spec;
}

ParamSpec readParam(const Field &field) {
  ParamSpec param;
  field.expectType(JsonType::Object);
  param.name = field.required("name").asName();
  std::string kind = field.required("kind").asString();
  param.dtype = readDType(field.required("dtype"));
  if (kind == "scalar") {
    field.allowOnlyKeys({"name", "kind", "dtype"});
    param.kind = CAKE_ARG_SCALAR;
    if (param.dtype == CAKE_DTYPE_F8E4M3 || param.dtype == CAKE_DTYPE_F8E5M2)
      field.fail("f8 scalar parameters are not supported");
    return param;
  }
  if (kind != "tensor")
    field.required("kind").fail("unknown param kind '" + kind + "' (known: tensor scalar)");
  field.allowOnlyKeys({"name", "kind", "dtype", "dims", "strides", "align", "access", "tma"});
  if (auto access = field.optional("access")) {
    std::string a = access->asString();
    if (a == "read")
      param.writes = false;
    else if (a != "write" && a != "read_write")
      access->fail("unknown access '" + a + "' (known: read write read_write)");
  }
  param.kind = CAKE_ARG_TENSOR;
  Field dims = field.required("dims");
  size_t rank = dims.arraySize(1, kMaxTensorRank);
  for (size_t i = 0; i < rank; ++i)
    param.dims.push_back(dims.item(i).asExpr());
  if (auto strides = field.optional("strides")) {
    if (strides->value().isString()) {
      if (strides->asString() != "contiguous")
        strides->fail("expected \"contiguous\" or a list of strides");
    } else {
      strides->arraySize(rank, rank);
      param.contiguous = false;
      for (size_t i = 0; i < rank; ++i)
        param.strides.push_back(strides->item(i).asExpr());
    }
  }
  param.align = static_cast<int64_t>(dtypeSize(param.dtype));
  if (auto align = field.optional("align")) {
    param.align = align->asInt(1, 1 << 20);
    if ((param.align & (param.align - 1)) != 0)
      align->fail("alignment " + std::to_string(param.align) + " is not a power of two");
  }
  if (auto tma = field.optional("tma")) {
    param.tma = readTensorMap(*tma, param);
    param.align = std::max<int64_t>(param.align, 16); // TMA needs a 16-byte aligned base address
  }
  return param;
}

// The TMA box of `param` evaluated with the compile-time params, and the hardware's rules on it that do not
// depend on the launch (cuTensorMapEncodeTiled): each box dim 1..256, the inner box a multiple of 16 bytes
// and, when swizzled, at most the swizzle span.  A bad box is the manifest's fault, reported at load.
void checkTensorMapBox(const Field &params, size_t index, const KernelSpec &kernel, ParamSpec &param) {
  Field box = params.item(index, param.name).required("tma").required("box");
  TensorMapSpec &tma = *param.tma;
  auto lookup = [&](std::string_view name) -> std::optional<int64_t> {
    if (const int64_t *v = kernel.findCtParam(name))
      return *v;
    return std::nullopt;
  };
  tma.boxValues.clear();
  for (size_t d = 0; d < tma.box.size(); ++d) {
    int64_t value = 0;
    try {
      value = tma.box[d].evaluate(lookup);
    } catch (const ExprEvalError &e) {
      box.item(d).fail(e.what());
    }
    if (value < 1 || value > 256)
      box.item(d).fail("TMA box dim " + std::to_string(d) + " `" + tma.box[d].text() + "` = " + std::to_string(value) +
                       " is outside 1..256");
    tma.boxValues.push_back(value);
  }
  const int64_t innerBytes = tma.boxValues.back() * static_cast<int64_t>(dtypeSize(param.dtype));
  if (innerBytes % 16 != 0)
    box.fail("TMA inner box dimension is " + std::to_string(innerBytes) +
             " bytes; it must be a multiple of 16 bytes");
  static const int64_t kSwizzleSpan[4] = {0, 32, 64, 128};
  const int64_t span = kSwizzleSpan[static_cast<int>(tma.swizzle)];
  if (tma.swizzle != TmaSwizzle::None && innerBytes > span)
    box.fail("TMA inner box dimension is " + std::to_string(innerBytes) + " bytes; swizzle " + std::to_string(span) +
             "B allows at most " + std::to_string(span) + " bytes");
}

// "cubin": a file name in the manifest's own folder.  A path (absolute, with '/', '.' or '..') could make
// loading a manifest read any file on the machine.
void checkCubinName(const Field &field, const std::string &name) {
  if (name.empty())
    field.fail("empty cubin file name");
  if (name.find('\0') != std::string::npos)
    field.fail("the cubin file name contains a NUL character: it is not a file name in the manifest's folder");
  if (name == "." || name == ".." || name.find('/') != std::string::npos || name.find('\\') != std::string::npos)
    field.fail("\"" + name + "\" is not a file name in the manifest's folder (no '/', '\\', \".\" or \"..\"; "
               "cakec writes the cubin beside its manifest)");
}

bool isLowerHex(const std::string &text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

void readLaunchDims(const Field &field, Expr (&out)[3]) {
  size_t n = field.arraySize(1, 3);
  for (size_t i = 0; i < 3; ++i)
    out[i] = i < n ? field.item(i).asExpr() : Expr::constant(1);
}

AbiSlotSpec readAbiSlot(const Field &field, const KernelSpec &kernel) {
  AbiSlotSpec slot;
  std::string kind = field.required("kind").asString();
  auto readParamRef = [&](cake_arg_kind expected) {
    int64_t index = field.required("param").asInt(0, static_cast<int64_t>(kernel.params.size()) - 1);
    if (kernel.params[index].kind != expected)
      field.fail("param " + std::to_string(index) + " (" + kernel.params[index].name + ") is not a " +
                 (expected == CAKE_ARG_TENSOR ? "tensor" : "scalar"));
    return static_cast<int>(index);
  };
  if (kind == "ptr") {
    field.allowOnlyKeys({"kind", "param"});
    slot.kind = AbiKind::Pointer;
    slot.param = readParamRef(CAKE_ARG_TENSOR);
  } else if (kind == "tensormap") {
    field.allowOnlyKeys({"kind", "param"});
    slot.kind = AbiKind::TensorMap;
    slot.param = readParamRef(CAKE_ARG_TENSOR);
    if (!kernel.params[slot.param].tma)
      field.fail("param " + kernel.params[slot.param].name + " has no \"tma\" spec");
  } else if (kind == "scalar") {
    field.allowOnlyKeys({"kind", "param"});
    slot.kind = AbiKind::Scalar;
    slot.param = readParamRef(CAKE_ARG_SCALAR);
  } else if (kind == "shape") {
    field.allowOnlyKeys({"kind", "var"});
    slot.kind = AbiKind::ShapeVar;
    Field var = field.required("var");
    slot.shapeVar = kernel.findShapeVar(var.asString());
    if (slot.shapeVar < 0)
      var.fail("'" + var.asString() + "' is not a shape variable of this kernel");
  } else if (kind == "value") {
    field.allowOnlyKeys({"kind", "type", "expr"});
    slot.kind = AbiKind::Value;
    Field type = field.required("type");
    std::string t = type.asString();
    if (t == "s32") slot.type = AbiType::S32;
    else if (t == "u32") slot.type = AbiType::U32;
    else if (t == "s64") slot.type = AbiType::S64;
    else if (t == "u64") slot.type = AbiType::U64;
    else type.fail("unknown value type '" + t + "' (known: s32 u32 s64 u64)");
    slot.expr = field.required("expr").asExpr();
  } else {
    field.required("kind").fail("unknown ABI slot kind '" + kind + "' (known: ptr shape scalar tensormap value)");
  }
  return slot;
}

// Names an expression may use at launch time, and the check that it uses no others.
class NameScope {
public:
  explicit NameScope(const KernelSpec &kernel) : kernel_(kernel) {}

  void check(const Expr &expr, const std::string &where, bool constantOnly = false) {
    for (const std::string &name : expr.names()) {
      if (kernel_.findCtParam(name))
        continue;
      if (constantOnly)
        throw ManifestError(where + ": `" + expr.text() + "` must be a compile-time constant but uses '" + name + "'");
      if (name == "num_sms") {
        usesNumSms_ = true;
        continue;
      }
      if (kernel_.findShapeVar(name) >= 0)
        continue;
      int param = kernel_.findParam(name);
      if (param >= 0 && kernel_.params[param].kind == CAKE_ARG_SCALAR &&
          dtypeIsInteger(kernel_.params[param].dtype))
        continue;
      throw ManifestError(where + ": `" + expr.text() + "` uses unknown name '" + name +
                          "' (not a shape variable, integer scalar param, compile-time param or num_sms)");
    }
  }
  bool usesNumSms() const { return usesNumSms_; }

private:
  const KernelSpec &kernel_;
  bool usesNumSms_ = false;
};

void checkNamesUnique(const KernelSpec &kernel, const std::string &path) {
  std::set<std::string> seen = {"num_sms"};
  auto add = [&](const std::string &name, const char *what) {
    if (!seen.insert(name).second)
      throw ManifestError(path + ": " + what + " name '" + name + "' is already used (or reserved)");
  };
  for (const auto &[name, unused] : kernel.ctParams)
    add(name, "compile-time param");
  for (const auto &[name, unused] : kernel.ctTypeParams)
    add(name, "compile-time type param");
  for (const auto &param : kernel.params)
    add(param.name, "param");
  for (const auto &var : kernel.shapeVars)
    add(var.name, "shape variable");
}

KernelSpec readKernel(const Field &field) {
  field.allowOnlyKeys({"name", "entry", "loc", "ct_params", "params", "shape_vars", "launch", "requires", "abi"});
  KernelSpec kernel;
  kernel.name = field.required("name").asName();
  kernel.entry = field.optional("entry") ? field.required("entry").asString() : kernel.name;
  if (kernel.entry.empty())
    field.required("entry").fail("empty entry name");
  if (auto loc = field.optional("loc"))
    kernel.loc = loc->asString();
  std::string path = field.path();

  if (auto ct = field.optional("ct_params")) {
    ct->expectType(JsonType::Object);
    const JsonValue &members = ct->value();
    for (size_t i = 0; i < members.keys.size(); ++i) {
      const std::string &name = members.keys[i];
      Field entry(members.items[i], ct->path() + "." + name);
      if (!isValidName(name))
        entry.fail("\"" + name + "\" is not a valid name");
      if (entry.value().isString())   // a type parameter: its scalar type name
        kernel.ctTypeParams.emplace_back(name, readDType(entry));
      else
        kernel.ctParams.emplace_back(name, entry.asInt(INT64_MIN, INT64_MAX));
    }
  }

  Field params = field.required("params");
  size_t numParams = params.arraySize(0, 1024);
  for (size_t i = 0; i < numParams; ++i) {
    const JsonValue *name = params.value().items[i].find("name");
    kernel.params.push_back(readParam(params.item(i, name && name->isString() ? name->string : "")));
  }

  if (auto vars = field.optional("shape_vars")) {
    size_t n = vars->arraySize(0, 1024);
    for (size_t i = 0; i < n; ++i) {
      Field var = vars->item(i);
      var.allowOnlyKeys({"name", "from"});
      ShapeVarSpec spec;
      spec.name = var.required("name").asName();
      Field from = var.required("from");
      if (!from.value().isNull()) {
        from.allowOnlyKeys({"param", "dim", "stride"});
        spec.param = static_cast<int>(from.required("param").asInt(0, static_cast<int64_t>(numParams) - 1));
        const ParamSpec &param = kernel.params[spec.param];
        if (param.kind != CAKE_ARG_TENSOR)
          from.fail("param " + param.name + " is not a tensor");
        bool hasDim = from.optional("dim").has_value(), hasStride = from.optional("stride").has_value();
        if (hasDim == hasStride)
          from.fail("expected exactly one of \"dim\" and \"stride\"");
        spec.fromStride = hasStride;
        spec.dim = static_cast<int>(from.required(hasDim ? "dim" : "stride").asInt(0, param.rank() - 1));
      }
      kernel.shapeVars.push_back(spec);
    }
  }
  checkNamesUnique(kernel, path);

  Field launch = field.required("launch");
  launch.allowOnlyKeys({"grid", "block", "cluster", "dynamic_smem"});
  readLaunchDims(launch.required("grid"), kernel.grid);
  readLaunchDims(launch.required("block"), kernel.block);
  if (auto cluster = launch.optional("cluster")) {
    readLaunchDims(*cluster, kernel.cluster);
    kernel.hasCluster = true;
  } else {
    for (auto &c : kernel.cluster)
      c = Expr::constant(1);
  }
  kernel.dynamicSmem = launch.optional("dynamic_smem") ? launch.required("dynamic_smem").asExpr() : Expr::constant(0);

  if (auto reqs = field.optional("requires")) {
    size_t n = reqs->arraySize(0, 1024);
    for (size_t i = 0; i < n; ++i) {
      Field req = reqs->item(i);
      req.allowOnlyKeys({"expr", "text", "loc"});
      RequireSpec spec;
      spec.expr = req.required("expr").asExpr();
      spec.text = req.optional("text") ? req.required("text").asString() : spec.expr.text();
      if (auto loc = req.optional("loc"))
        spec.loc = loc->asString();
      kernel.requirements.push_back(std::move(spec));
    }
  }

  Field abi = field.required("abi");
  size_t numSlots = abi.arraySize(0, 4096);
  for (size_t i = 0; i < numSlots; ++i)
    kernel.abi.push_back(readAbiSlot(abi.item(i), kernel));

  // Every expression may only mention names this kernel defines.
  NameScope scope(kernel);
  static const char *kAxis[3] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    scope.check(kernel.grid[i], path + ".launch.grid." + kAxis[i]);
    scope.check(kernel.block[i], path + ".launch.block." + kAxis[i]);
    scope.check(kernel.cluster[i], path + ".launch.cluster." + kAxis[i]);
  }
  scope.check(kernel.dynamicSmem, path + ".launch.dynamic_smem");
  for (size_t i = 0; i < kernel.requirements.size(); ++i)
    scope.check(kernel.requirements[i].expr, path + ".requires[" + std::to_string(i) + "]");
  for (size_t i = 0; i < kernel.abi.size(); ++i)
    if (kernel.abi[i].kind == AbiKind::Value)
      scope.check(kernel.abi[i].expr, path + ".abi[" + std::to_string(i) + "].expr");
  for (const ParamSpec &param : kernel.params) {
    std::string where = path + ".params (" + param.name + ")";
    for (const Expr &dim : param.dims)
      scope.check(dim, where + ".dims");
    for (const Expr &stride : param.strides)
      scope.check(stride, where + ".strides");
    if (param.tma)
      for (const Expr &box : param.tma->box)
        scope.check(box, where + ".tma.box", /*constantOnly=*/true);
  }
  for (size_t i = 0; i < kernel.params.size(); ++i)
    if (kernel.params[i].tma)
      checkTensorMapBox(params, i, kernel, kernel.params[i]);
  kernel.usesNumSms = scope.usesNumSms();
  return kernel;
}

} // namespace

ManifestSpec parseManifest(std::string_view jsonText) {
  JsonParseResult json = parseJson(jsonText);
  if (!json.ok)
    throw ManifestError("invalid JSON: " + json.error);
  Field root(json.value, "");
  root.allowOnlyKeys(
      {"format", "version", "generator", "arch", "cubin", "cubin_sha256", "ptxas", "ptx_embedded", "source", "kernels"});
  ManifestSpec manifest;
  if (root.required("format").asString() != kManifestFormat)
    root.required("format").fail("expected \"" + std::string(kManifestFormat) + "\"");
  manifest.version = static_cast<int>(root.required("version").asInt(0, INT32_MAX));
  if (manifest.version != kManifestVersion)
    root.required("version").fail("manifest version " + std::to_string(manifest.version) +
                                  " is not supported by this runtime (it reads version " +
                                  std::to_string(kManifestVersion) + ")");
  manifest.arch = root.required("arch").asString();
  manifest.cubin = root.required("cubin").asString();
  checkCubinName(root.required("cubin"), manifest.cubin);
  if (auto sha = root.optional("cubin_sha256")) {
    manifest.cubinSha256 = sha->asString();
    if (manifest.cubinSha256.size() != 64 || !isLowerHex(manifest.cubinSha256))
      sha->fail("expected the SHA-256 of the cubin as 64 lowercase hex digits");
  }
  if (auto embedded = root.optional("ptx_embedded")) manifest.ptxEmbedded = embedded->asBool();
  if (auto ptxas = root.optional("ptxas")) {
    ptxas->allowOnlyKeys({"path", "version"});
    if (auto path = ptxas->optional("path"))
      manifest.ptxasPath = path->asString();
    if (auto version = ptxas->optional("version"))
      manifest.ptxasVersion = version->asString();
  }
  if (auto source = root.optional("source"))
    manifest.source = source->asString();
  Field kernels = root.required("kernels");
  size_t n = kernels.arraySize(1, 4096);
  for (size_t i = 0; i < n; ++i) {
    const JsonValue *name = kernels.value().items[i].find("name");
    KernelSpec kernel = readKernel(kernels.item(i, name && name->isString() ? name->string : ""));
    for (const KernelSpec &other : manifest.kernels)
      if (other.name == kernel.name)
        throw ManifestError("kernels[" + std::to_string(i) + "]: duplicate kernel name '" + kernel.name + "'");
    manifest.kernels.push_back(std::move(kernel));
  }
  return manifest;
}

} // namespace cake::rt
