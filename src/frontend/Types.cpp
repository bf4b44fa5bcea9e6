// Type queries, printing and the interning TypeContext.  See Types.h for the model.
#include "frontend/Types.h"

#include "support/Diagnostics.h"

namespace cake {

namespace {
struct ScalarInfo {
  ScalarKind kind;
  std::string_view name;
  unsigned bits;
  bool isFloat;
};
constexpr ScalarInfo kScalars[] = {
    {ScalarKind::Pred, "pred", 1, false},     {ScalarKind::I32, "i32", 32, false},
    {ScalarKind::U32, "u32", 32, false},      {ScalarKind::I64, "i64", 64, false},
    {ScalarKind::F16, "f16", 16, true},       {ScalarKind::BF16, "bf16", 16, true},
    {ScalarKind::F32, "f32", 32, true},       {ScalarKind::F8E4M3, "f8e4m3", 8, true},
    {ScalarKind::F8E5M2, "f8e5m2", 8, true},   {ScalarKind::TF32, "tf32", 32, true},
};
const ScalarInfo &info(ScalarKind k) { return kScalars[static_cast<unsigned>(k)]; }

constexpr std::string_view kFragKinds[] = {"mma_a", "mma_b", "mma_c", "wgmma_a", "wgmma_acc", "mma_row", "wgmma_row", "mma_col", "wgmma_col", "tmem_acc"};
constexpr std::string_view kSpaces[] = {"global", "shared", "register", "tmem"};
} // namespace

std::string_view scalarName(ScalarKind k) { return info(k).name; }
unsigned scalarBits(ScalarKind k) { return info(k).bits; }
bool isFloatScalar(ScalarKind k) { return info(k).isFloat; }
bool isIntegerScalar(ScalarKind k) { return !info(k).isFloat && k != ScalarKind::Pred; }
bool isF8Scalar(ScalarKind k) { return k == ScalarKind::F8E4M3 || k == ScalarKind::F8E5M2; }
std::string_view addressSpaceName(AddressSpace s) { return kSpaces[static_cast<unsigned>(s)]; }
std::string_view fragKindName(FragKind k) { return kFragKinds[static_cast<unsigned>(k)]; }

bool isTf32TypeName(std::string_view name) {
  return name == "tf32" || name == "tf32x2" || name == "tf32x4" || name == "tf32x8" || name == "tf32x16";
}

std::optional<ScalarKind> parseScalarName(std::string_view name) {
  for (const ScalarInfo &s : kScalars)
    if (s.name == name) return s.kind;
  return std::nullopt;
}

std::optional<FragKind> parseFragKind(std::string_view name) {
  for (unsigned i = 0; i < std::size(kFragKinds); ++i)
    if (kFragKinds[i] == name) return static_cast<FragKind>(i);
  return std::nullopt;
}

bool sameDim(const TensorDim &a, const TensorDim &b) {
  if (a.value && b.value) return *a.value == *b.value;
  if (a.value || b.value) return false;
  return a.text == b.text;
}

bool Type::isNumeric() const {
  if (kind == TypeKind::UntypedInt || kind == TypeKind::UntypedFloat) return true;
  return (kind == TypeKind::Scalar || kind == TypeKind::Vector) && scalar != ScalarKind::Pred;
}

bool Type::isRegisterValue() const {
  switch (kind) {
  case TypeKind::Scalar: case TypeKind::Vector: case TypeKind::Fragment: return true;
  case TypeKind::Tensor: return space == AddressSpace::Register;
  default: return false;
  }
}

ScalarKind Type::elementScalar() const {
  if (kind == TypeKind::Tensor && element) return element->elementScalar();
  return scalar;
}

int64_t Type::fragThreads() const { return isWgmmaFrag() || frag == FragKind::TmemAcc ? 128 : 32; }

int64_t Type::fragElementsPerThread() const {
  if (kind != TypeKind::Fragment) return 0;
  int64_t rows = 0, cols = 0;
  switch (frag) {
  case FragKind::MmaA: case FragKind::WgmmaA: rows = m; cols = k; break;
  case FragKind::MmaB: rows = k; cols = n; break;
  case FragKind::MmaC: case FragKind::WgmmaAcc: case FragKind::TmemAcc: rows = m; cols = n; break;
  case FragKind::MmaRow: case FragKind::WgmmaRow: return 2;
  case FragKind::MmaCol: case FragKind::WgmmaCol: return n / 4;
  }
  return rows * cols / fragThreads();
}

int64_t Type::fragRegistersPerThread() const {
  int64_t bits = fragElementsPerThread() * scalarBits(scalar);
  return (bits + 31) / 32;
}

std::vector<TensorDim> Type::allDims() const {
  std::vector<TensorDim> out;
  for (const DimGroup &g : groups) out.insert(out.end(), g.begin(), g.end());
  return out;
}

std::optional<int64_t> Type::numElements() const {
  int64_t total = 1;
  for (const DimGroup &g : groups)
    for (const TensorDim &d : g) {
      if (!d.value || *d.value < 0) return std::nullopt;
      if (*d.value != 0 && total > INT64_MAX / *d.value) return std::nullopt;
      total *= *d.value;
    }
  return total;
}

std::optional<int64_t> Type::sizeInBytes() const {
  switch (kind) {
  case TypeKind::Scalar: return scalar == ScalarKind::Pred ? 1 : scalarBits(scalar) / 8;
  case TypeKind::Vector: return static_cast<int64_t>(scalarBits(scalar) / 8) * width;
  case TypeKind::Fragment: return fragRegistersPerThread() * 4;
  case TypeKind::MBarrier: return 8;
  case TypeKind::MBarrierArray: if (count) return *count * 8; return std::nullopt;
  case TypeKind::Tensor: {
    auto n = numElements();
    auto e = element ? element->sizeInBytes() : std::nullopt;
    if (!n || !e || (*e != 0 && *n > INT64_MAX / *e)) return std::nullopt;
    return *n * *e;
  }
  default: return std::nullopt;
  }
}

std::string typeToString(const Type *t) {
  if (!t) return "<no type>";
  switch (t->kind) {
  case TypeKind::Error: return "<error>";
  case TypeKind::Void: return "void";
  case TypeKind::UntypedInt: return "integer constant";
  case TypeKind::UntypedFloat: return "float constant";
  case TypeKind::Scalar: return std::string(scalarName(t->scalar));
  case TypeKind::Vector: return std::string(scalarName(t->scalar)) + "x" + std::to_string(t->width);
  case TypeKind::Fragment:
    if (t->isRowOrColVector())
      return "frag<" + std::string(fragKindName(t->frag)) + ", " + std::string(scalarName(t->scalar)) + ", " +
             std::to_string(t->isRowVector() ? t->m : t->n) + ">";
    return "frag<" + std::string(fragKindName(t->frag)) + ", " + std::string(scalarName(t->scalar)) + ", " +
           std::to_string(t->m) + ", " + std::to_string(t->n) + ", " + std::to_string(t->k) + ">";
  case TypeKind::Tensor: {
    std::string s = typeToString(t->element);
    for (const DimGroup &g : t->groups) {
      s += '[';
      for (size_t i = 0; i < g.size(); ++i) s += (i ? ", " : "") + g[i].text;
      s += ']';
    }
    if (t->transposed) s += ".T";
    return s + " (" + std::string(addressSpaceName(t->space)) + ")";
  }
  case TypeKind::MBarrier: return "mbarrier";
  case TypeKind::MBarrierArray: return t->count ? "mbarrier[" + std::to_string(*t->count) + "]" : "mbarrier[]";
  case TypeKind::NamedBarrier: return t->count ? "named barrier[" + std::to_string(*t->count) + "]" : "named barrier";
  case TypeKind::Role: return "role";
  case TypeKind::BuiltinNamespace: return "builtin";
  }
  return "<type>";
}

bool sameType(const Type *a, const Type *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  if (a->kind != TypeKind::Tensor) return false;   // everything else is interned
  if (a->space != b->space || a->transposed != b->transposed || !sameType(a->element, b->element)) return false;
  if (a->groups.size() != b->groups.size()) return false;
  for (size_t g = 0; g < a->groups.size(); ++g) {
    if (a->groups[g].size() != b->groups[g].size()) return false;
    for (size_t i = 0; i < a->groups[g].size(); ++i)
      if (!sameDim(a->groups[g][i], b->groups[g][i])) return false;
  }
  return true;
}

TypeContext::TypeContext() {
  auto simple = [&](TypeKind k) { Type t; t.kind = k; return make(std::move(t)); };
  error_ = simple(TypeKind::Error);
  void_ = simple(TypeKind::Void);
  untypedInt_ = simple(TypeKind::UntypedInt);
  untypedFloat_ = simple(TypeKind::UntypedFloat);
  mbarrier_ = simple(TypeKind::MBarrier);
  namedBarrier_ = simple(TypeKind::NamedBarrier);
  role_ = simple(TypeKind::Role);
  builtinNamespace_ = simple(TypeKind::BuiltinNamespace);
}

const Type *TypeContext::make(Type t) {
  storage_.push_back(std::move(t));
  return &storage_.back();
}

const Type *TypeContext::scalar(ScalarKind k) { return vector(k, 1); }

const Type *TypeContext::vector(ScalarKind k, unsigned width) {
  auto key = std::make_pair(static_cast<int>(k), width);
  auto it = vectors_.find(key);
  if (it != vectors_.end()) return it->second;
  Type t;
  t.kind = width == 1 ? TypeKind::Scalar : TypeKind::Vector;
  t.scalar = k;
  t.width = width;
  const Type *p = make(std::move(t));
  vectors_[key] = p;
  return p;
}

const Type *TypeContext::scalarOrVectorByName(std::string_view name) {
  if (isTf32TypeName(name)) return nullptr;   // a fragment element type only
  if (auto s = parseScalarName(name)) return scalar(*s);
  size_t x = name.rfind('x');
  if (x == std::string_view::npos || x == 0) return nullptr;
  auto s = parseScalarName(name.substr(0, x));
  std::string_view w = name.substr(x + 1);
  if (!s || *s == ScalarKind::Pred) return nullptr;
  unsigned width = w == "2" ? 2 : w == "4" ? 4 : w == "8" ? 8 : w == "16" ? 16 : 0;
  if (!width) return nullptr;
  return vector(*s, width);
}

const Type *TypeContext::fragment(FragKind kind, ScalarKind dtype, int64_t m, int64_t n, int64_t k) {
  auto key = std::make_tuple(static_cast<int>(kind), static_cast<int>(dtype), m, n, k);
  auto it = fragments_.find(key);
  if (it != fragments_.end()) return it->second;
  Type t;
  t.kind = TypeKind::Fragment;
  t.frag = kind;
  t.scalar = dtype;
  t.m = m;
  t.n = n;
  t.k = k;
  const Type *p = make(std::move(t));
  fragments_[key] = p;
  return p;
}

const Type *TypeContext::tensor(const Type *element, AddressSpace space, std::vector<DimGroup> groups, bool transposed) {
  CAKE_ASSERT(element != nullptr);
  Type t;
  t.kind = TypeKind::Tensor;
  t.element = element;
  t.scalar = element->scalar;
  t.space = space;
  t.groups = std::move(groups);
  t.transposed = transposed;
  return make(std::move(t));
}

const Type *TypeContext::namedBarrierArray(int64_t count) {
  auto it = namedBarrierArrays_.find(count);
  if (it != namedBarrierArrays_.end()) return it->second;
  Type t;
  t.kind = TypeKind::NamedBarrier;
  t.count = count;
  const Type *p = make(std::move(t));
  namedBarrierArrays_[count] = p;
  return p;
}

const Type *TypeContext::mbarrierArray(std::optional<int64_t> count) {
  int64_t key = count ? *count : -1;
  auto it = mbarrierArrays_.find(key);
  if (it != mbarrierArrays_.end()) return it->second;
  Type t;
  t.kind = TypeKind::MBarrierArray;
  t.count = count;
  const Type *p = make(std::move(t));
  mbarrierArrays_[key] = p;
  return p;
}

const Type *TypeContext::withElement(const Type *t, ScalarKind k) {
  switch (t->kind) {
  case TypeKind::Scalar: return scalar(k);
  case TypeKind::Vector: return vector(k, t->width);
  case TypeKind::Fragment: return fragment(t->frag, k, t->m, t->n, t->k);
  default: return nullptr;
  }
}

} // namespace cake
