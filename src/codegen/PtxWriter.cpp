// PtxWriter: module text, register and label allocation, and the PTX-line -> CAKE-range map.
// See PtxWriter.h for the scheme.
#include "codegen/PtxWriter.h"

#include "support/Diagnostics.h"

namespace cake::codegen {

std::string_view regPrefix(RegClass cls) {
  switch (cls) {
  case RegClass::Pred: return "%p";
  case RegClass::B16: return "%rs";
  case RegClass::B32: return "%r";
  case RegClass::B64: return "%rd";
  case RegClass::F32: return "%f";
  }
  return "%r";
}

std::string_view regDeclType(RegClass cls) {
  switch (cls) {
  case RegClass::Pred: return ".pred";
  case RegClass::B16: return ".b16";
  case RegClass::B32: return ".b32";
  case RegClass::B64: return ".b64";
  case RegClass::F32: return ".f32";
  }
  return ".b32";
}

void PtxWriter::moduleLine(std::string line) {
  CAKE_ASSERT(!inKernel_);
  lines_.push_back({std::move(line), {}});
}

void PtxWriter::beginKernel(std::string signature) {
  CAKE_ASSERT(!inKernel_);
  inKernel_ = true;
  signature_ = std::move(signature);
  body_.clear();
  kernelDecls_.clear();
  counters_ = {};
  location_ = {};
}

void PtxWriter::kernelDecl(std::string line) {
  CAKE_ASSERT(inKernel_);
  kernelDecls_.push_back(std::move(line));
}

void PtxWriter::endKernel() {
  CAKE_ASSERT(inKernel_);
  inKernel_ = false;
  size_t start = 0;
  while (start <= signature_.size()) {
    size_t nl = signature_.find('\n', start);
    if (nl == std::string::npos) nl = signature_.size();
    lines_.push_back({signature_.substr(start, nl - start), {}});
    start = nl + 1;
  }
  lines_.push_back({"{", {}});
  for (auto &d : kernelDecls_) lines_.push_back({"\t" + d, {}});
  for (unsigned c = 0; c < counters_.size(); ++c) {
    if (!counters_[c]) continue;
    auto cls = static_cast<RegClass>(c);
    lines_.push_back({"\t.reg " + std::string(regDeclType(cls)) + " \t" + std::string(regPrefix(cls)) + "<" +
                          std::to_string(counters_[c]) + ">;",
                      {}});
  }
  lines_.push_back({"", {}});
  for (auto &l : body_) lines_.push_back(std::move(l));
  body_.clear();
  lines_.push_back({"}", {}});
}

std::string PtxWriter::newReg(RegClass cls) {
  CAKE_ASSERT(inKernel_);
  unsigned &n = counters_[static_cast<unsigned>(cls)];
  return std::string(regPrefix(cls)) + std::to_string(n++);
}

std::string PtxWriter::newLabel(std::string_view hint) {
  return "$L_" + std::to_string(labels_++) + "_" + std::string(hint);
}

void PtxWriter::inst(std::string_view text) {
  CAKE_ASSERT(inKernel_);
  body_.push_back({"\t" + std::string(text) + ";", location_});
}

void PtxWriter::instGuarded(std::string_view guard, std::string_view text) {
  CAKE_ASSERT(inKernel_);
  body_.push_back({"\t@" + std::string(guard) + " " + std::string(text) + ";", location_});
}

void PtxWriter::label(const std::string &name) {
  CAKE_ASSERT(inKernel_);
  body_.push_back({name + ":", location_});
}

void PtxWriter::comment(std::string_view text) {
  CAKE_ASSERT(inKernel_);
  body_.push_back({"\t// " + std::string(text), {}});
}

PtxWriter::Output PtxWriter::finish() const {
  CAKE_ASSERT(!inKernel_);
  Output out;
  for (const auto &l : lines_) {
    out.text += l.text;
    out.text += '\n';
    out.lineRanges.push_back(l.range);
  }
  return out;
}

} // namespace cake::codegen
