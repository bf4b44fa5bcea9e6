// The launch manifest as JSON (the format the runtime reads: docs/manifest.md, runtime/src/Manifest.cpp).
//
// {"format": "cake-manifest", "version": 1, "generator": "cakec", "arch": .., "cubin": .., "source": ..,
//  "kernels": [{"name", "entry", "loc", "ct_params": {..}, "params": [..], "shape_vars": [..],
//               "launch": {"grid": [..], "block": [..], ["cluster": [..],] "dynamic_smem": N},
//               "requires": [{"expr", "text", "loc"}], "abi": [{"kind": "ptr"|"shape"|"scalar"|"tensormap", ..}]}]}
// Expressions are strings in the manifest's expression language (C operators, cdiv/min/max), which is the
// CAKE expression syntax printed by ASTPrinter.  Keys are written in a fixed order: deterministic output.
#include "codegen/CodeGen.h"
#include "support/JsonText.h"

#include <sstream>

#include <openssl/evp.h>

namespace cake {

namespace {
std::string quote(std::string_view s) { return jsonQuote(s); }

// An expression: a JSON integer when it is a plain decimal literal, else a string.
std::string expr(const std::string &text) {
  bool digits = !text.empty() && text.size() < 18;
  for (char c : text) digits = digits && c >= '0' && c <= '9';
  return digits ? text : quote(text);
}

std::string list(const std::vector<std::string> &items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out + "]";
}
} // namespace

std::string sha256Hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1 || length != 32)
    CAKE_INTERNAL_ERROR("OpenSSL's EVP_Digest(SHA-256) failed");
  static const char *hex = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < length; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}

std::string manifestToJson(const Manifest &m) {
  std::ostringstream os;
  os << "{\n";
  os << "  \"format\": \"cake-manifest\",\n";
  os << "  \"version\": 1,\n";
  os << "  \"generator\": " << quote(m.generator) << ",\n";
  os << "  \"arch\": " << quote(m.arch) << ",\n";
  os << "  \"cubin\": " << quote(m.cubin) << ",\n";
  os << "  \"source\": " << quote(m.source) << ",\n";
  if (!m.cubinSha256.empty()) os << "  \"cubin_sha256\": " << quote(m.cubinSha256) << ",\n";
  if (!m.ptxasPath.empty())
    os << "  \"ptxas\": {\"path\": " << quote(m.ptxasPath) << ", \"version\": " << quote(m.ptxasVersion) << "},\n";
  if (m.ptxEmbedded) os << "  \"ptx_embedded\": true,\n";
  os << "  \"kernels\": [";
  for (size_t k = 0; k < m.kernels.size(); ++k) {
    const KernelManifest &km = m.kernels[k];
    os << (k ? ",\n" : "\n") << "    {\n";
    os << "      \"name\": " << quote(km.name) << ",\n";
    os << "      \"entry\": " << quote(km.entry) << ",\n";
    os << "      \"loc\": " << quote(km.loc) << ",\n";
    os << "      \"ct_params\": {";
    for (size_t i = 0; i < km.ctParams.size(); ++i)
      os << (i ? ", " : "") << quote(km.ctParams[i].first) << ": " << km.ctParams[i].second;
    for (size_t i = 0; i < km.ctTypeParams.size(); ++i)   // type parameters: the type name as a string
      os << (i || !km.ctParams.empty() ? ", " : "") << quote(km.ctTypeParams[i].first) << ": "
         << quote(km.ctTypeParams[i].second);
    os << "},\n";
    os << "      \"params\": [";
    for (size_t i = 0; i < km.params.size(); ++i) {
      const ManifestParam &p = km.params[i];
      os << (i ? ",\n" : "\n") << "        {\"name\": " << quote(p.name) << ", \"kind\": "
         << (p.isTensor ? "\"tensor\"" : "\"scalar\"") << ", \"dtype\": " << quote(p.dtype);
      if (p.isTensor) {
        std::vector<std::string> dims, strides;
        for (const auto &d : p.dims) dims.push_back(expr(d));
        for (const auto &s : p.strides) strides.push_back(expr(s));
        os << ", \"dims\": " << list(dims);
        if (!strides.empty()) os << ", \"strides\": " << list(strides);
        if (p.align > 0) os << ", \"align\": " << p.align;
        if (p.tma) {
          std::vector<std::string> box;
          for (const auto &b : p.tmaBox) box.push_back(expr(b));
          os << ", \"tma\": {\"box\": " << list(box) << ", \"swizzle\": " << quote(p.tmaSwizzle) << "}";
        }
      }
      os << "}";
    }
    os << (km.params.empty() ? "],\n" : "\n      ],\n");
    os << "      \"shape_vars\": [";
    for (size_t i = 0; i < km.shapeVars.size(); ++i) {
      const ManifestShapeVar &v = km.shapeVars[i];
      os << (i ? ", " : "") << "{\"name\": " << quote(v.name) << ", \"from\": ";
      if (v.param >= 0) os << "{\"param\": " << v.param << ", \"dim\": " << v.dim << "}";
      else os << "null";
      os << "}";
    }
    os << "],\n";
    std::vector<std::string> grid, block;
    for (const auto &g : km.grid) grid.push_back(expr(g));
    for (const auto &b : km.block) block.push_back(expr(b));
    os << "      \"launch\": {\"grid\": " << list(grid) << ", \"block\": " << list(block);
    if (km.cluster) {
      std::vector<std::string> cl;
      for (const auto &c : *km.cluster) cl.push_back(expr(c));
      os << ", \"cluster\": " << list(cl);
    }
    os << ", \"dynamic_smem\": " << km.dynamicSmem << "},\n";
    os << "      \"requires\": [";
    for (size_t i = 0; i < km.requires_.size(); ++i) {
      const ManifestRequire &r = km.requires_[i];
      os << (i ? "," : "") << "\n        {\"expr\": " << quote(r.expr) << ", \"text\": " << quote(r.expr)
         << ", \"loc\": " << quote(r.loc) << "}";
    }
    os << (km.requires_.empty() ? "],\n" : "\n      ],\n");
    os << "      \"abi\": [";
    for (size_t i = 0; i < km.abi.size(); ++i) {
      const ManifestAbiSlot &s = km.abi[i];
      os << (i ? ", " : "");
      switch (s.kind) {
      case ManifestAbiSlot::Pointer: os << "{\"kind\": \"ptr\", \"param\": " << s.index << "}"; break;
      case ManifestAbiSlot::Scalar: os << "{\"kind\": \"scalar\", \"param\": " << s.index << "}"; break;
      case ManifestAbiSlot::TensorMap: os << "{\"kind\": \"tensormap\", \"param\": " << s.index << "}"; break;
      case ManifestAbiSlot::ShapeVar:
        os << "{\"kind\": \"shape\", \"var\": " << quote(km.shapeVars[static_cast<size_t>(s.index)].name) << "}";
        break;
      }
    }
    os << "]\n    }";
  }
  os << "\n  ]\n}\n";
  return os.str();
}

} // namespace cake
