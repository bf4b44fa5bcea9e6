// PtxWriter: builds the text of one PTX module and its source map.
//
// How: the module header and each kernel's signature are plain lines.  A kernel body is buffered while it
// is lowered, because PTX wants every `.reg` declaration before the first instruction and the register
// counts are known only at the end; endKernel() then writes `.reg .b32 %r<N>;` lines followed by the body.
// Registers are allocated per class (%p .pred, %rs .b16, %r .b32, %rd .b64, %f .f32) with increasing
// numbers, labels as $L_<n>_<hint>; so output is deterministic (same lowering -> same bytes).
//
// Source map: every instruction line records the SourceRange that was current (setLocation) when it was
// emitted - the CAKE statement or expression being lowered.  finish() returns the text and, per PTX line
// (1-based), that range (invalid for header and declaration lines), which the driver uses to map ptxas
// errors back to .cake lines.
#pragma once
#include "codegen/ValueType.h"
#include "support/SourceManager.h"

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace cake::codegen {

class PtxWriter {
public:
  // Lines outside kernels (header, module-scope declarations).
  void moduleLine(std::string line);

  // Kernel: `signature` is the full `.visible .entry name(...)` text (possibly several lines) without the
  // opening brace.
  void beginKernel(std::string signature);
  void endKernel();
  // Declarations inside the kernel before the registers (e.g. `.reg .b64 %scratch;` or `.shared ...`).
  void kernelDecl(std::string line);

  std::string newReg(RegClass cls);
  std::string newLabel(std::string_view hint);

  // Instruction text without the trailing ';' ("add.s32 %r1, %r2, 4").  Optional guard "%p3" or "!%p3".
  void inst(std::string_view text);
  void instGuarded(std::string_view guard, std::string_view text);
  void label(const std::string &name);
  void comment(std::string_view text);

  void setLocation(SourceRange r) { location_ = r; }
  SourceRange location() const { return location_; }

  struct Output {
    std::string text;
    std::vector<SourceRange> lineRanges;   // index = PTX line - 1
  };
  Output finish() const;

  unsigned regCount(RegClass cls) const { return counters_[static_cast<unsigned>(cls)]; }
  size_t bodyLineCount() const { return body_.size(); }

private:
  struct Line {
    std::string text;
    SourceRange range;
  };
  std::vector<Line> lines_;   // finished lines
  std::vector<Line> body_;    // current kernel body
  std::vector<std::string> kernelDecls_;
  std::string signature_;
  bool inKernel_ = false;
  std::array<unsigned, 5> counters_{};
  unsigned labels_ = 0;
  SourceRange location_;
};

// "%r", "%rd", ... and ".b32", ... for a register class.
std::string_view regPrefix(RegClass cls);
std::string_view regDeclType(RegClass cls);

} // namespace cake::codegen
