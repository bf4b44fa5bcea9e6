// variantParams / signatureDifference (VariantParams.h): one pass over the kernels' parameters in launch
// order, a name-indexed table of those seen.
#include "VariantParams.h"

#include "DType.h"

#include <algorithm>

namespace cake::rt {

namespace {

std::string kindText(const ParamSpec &p) {
  return std::string(p.kind == CAKE_ARG_TENSOR ? "tensor" : "scalar") + " of " + std::string(dtypeName(p.dtype));
}

// "" when a and b declare the same parameter (name aside), else how b differs.
std::string paramDifference(const ParamSpec &a, const ParamSpec &b) {
  if (a.kind != b.kind || a.dtype != b.dtype)
    return "'" + b.name + "' is a " + kindText(b) + " instead of a " + kindText(a);
  if (a.rank() != b.rank())
    return "'" + b.name + "' has rank " + std::to_string(b.rank()) + " instead of " + std::to_string(a.rank());
  return "";
}

const int64_t *ctValue(const KernelSpec &k, const std::string &name) {
  for (const auto &[n, value] : k.ctParams)
    if (n == name) return &value;
  return nullptr;
}

// "" when tensor b of kernel kb has the dims of tensor a of kernel ka: the same expressions, and every
// compile-time parameter they name with the same value in both kernels (P = 8 in one and P = 4 in the other
// would size the buffer for one kernel and index it for the other).
std::string dimsDifference(const ParamSpec &a, const KernelSpec &ka, const ParamSpec &b, const KernelSpec &kb) {
  bool same = a.dims.size() == b.dims.size();
  for (size_t d = 0; same && d < b.dims.size(); ++d) same = a.dims[d].text() == b.dims[d].text();
  if (!same) return "'" + b.name + "' has other dims";
  for (const Expr &dim : b.dims)
    for (const std::string &name : dim.names()) {
      const int64_t *va = ctValue(ka, name), *vb = ctValue(kb, name);
      if ((va == nullptr) != (vb == nullptr) || (va && *va != *vb))
        return "'" + b.name + "' has dims with " + name + " = " + (vb ? std::to_string(*vb) : "a shape variable") +
               " instead of " + (va ? std::to_string(*va) : "a shape variable");
    }
  return "";
}

} // namespace

VariantParams variantParams(const std::vector<const KernelSpec *> &kernels, const std::vector<std::string> &workspace) {
  VariantParams out;
  out.workspace.assign(workspace.size(), nullptr);
  out.workspaceOwner.assign(workspace.size(), 0);
  struct Seen { const ParamSpec *param; const KernelSpec *kernel; };
  std::vector<Seen> seen;   // every name once: its first declaration and that kernel
  for (size_t kernelIndex = 0; kernelIndex < kernels.size(); ++kernelIndex) {
    const KernelSpec *k = kernels[kernelIndex];
    std::vector<int> args;
    for (const ParamSpec &p : k->params) {
      auto first = std::find_if(seen.begin(), seen.end(), [&](const Seen &x) { return x.param->name == p.name; });
      if (first != seen.end()) {
        std::string why = paramDifference(*first->param, p);
        if (why.empty() && p.kind == CAKE_ARG_TENSOR) why = dimsDifference(*first->param, *first->kernel, p, *k);
        if (!why.empty() && out.error.empty())
          out.error = "kernel " + k->name + " disagrees with an earlier kernel: " + why;
      } else {
        seen.push_back({&p, k});
      }
      auto w = std::find(workspace.begin(), workspace.end(), p.name);
      if (w != workspace.end()) {
        size_t index = static_cast<size_t>(w - workspace.begin());
        if (p.kind != CAKE_ARG_TENSOR && out.error.empty())
          out.error = "workspace '" + p.name + "' is not a tensor parameter";
        if (!out.workspace[index]) {
          out.workspace[index] = &p;
          out.workspaceOwner[index] = kernelIndex;
        }
        args.push_back(-1 - static_cast<int>(index));
        continue;
      }
      auto s = std::find_if(out.signature.begin(), out.signature.end(),
                            [&](const ParamSpec *x) { return x->name == p.name; });
      if (s == out.signature.end()) {
        out.signature.push_back(&p);
        s = out.signature.end() - 1;
      }
      args.push_back(static_cast<int>(s - out.signature.begin()));
    }
    out.kernelArgs.push_back(std::move(args));
  }
  for (size_t w = 0; w < workspace.size() && out.error.empty(); ++w) {
    if (!out.workspace[w]) out.error = "workspace '" + workspace[w] + "' is no parameter of the variant's kernels";
    for (size_t v = 0; v < w && out.error.empty(); ++v)
      if (workspace[v] == workspace[w]) out.error = "workspace '" + workspace[w] + "' is listed twice";
  }
  return out;
}

std::string signatureDifference(const std::vector<const ParamSpec *> &a, const std::vector<const ParamSpec *> &b) {
  if (a.size() != b.size())
    return std::to_string(b.size()) + " parameters instead of " + std::to_string(a.size());
  for (size_t p = 0; p < a.size(); ++p) {
    if (a[p]->name != b[p]->name)
      return "parameter " + std::to_string(p) + " is '" + b[p]->name + "' instead of '" + a[p]->name + "'";
    if (std::string why = paramDifference(*a[p], *b[p]); !why.empty()) return "parameter " + why;
  }
  return "";
}

} // namespace cake::rt
