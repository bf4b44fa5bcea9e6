// SourceManager: owns the text of every file a compilation reads and maps byte offsets to
// line/column.  Locations elsewhere are plain (file id, byte offset) pairs so AST nodes stay small.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cake {

struct SourceLoc {
  uint32_t file = 0;     // index into SourceManager; 0 means "no location"
  uint32_t offset = 0;   // byte offset into that file's text
  bool valid() const { return file != 0; }
};

struct SourceRange {
  SourceLoc begin;
  uint32_t end = 0;      // byte offset one past the last character, same file as begin
  bool valid() const { return begin.valid(); }
};

struct LineCol {
  uint32_t line = 0;     // 1-based
  uint32_t column = 0;   // 1-based, counted in bytes
};

// An expansion: a file id that shows the text of another file (its spelling file) at the same offsets, and
// that remembers where it was expanded.  Inlining an fn (src/frontend/Inline.h) gives each copy of the body
// its own expansion, so a location inside a copy names both the line of the body (line/column, text and
// file name are the spelling file's) and the call site it was copied to (the diagnostics engine adds a note
// there).  An expansion's site may itself lie in an expansion (an fn called from an fn).
struct Expansion {
  SourceRange site;       // the call
  std::string what;       // e.g. "'sqdist' inlined from here"
};

class SourceManager {
public:
  // Adds a buffer and returns its file id (>= 1).
  uint32_t addBuffer(std::string name, std::string text);
  // Adds an expansion of `file` (itself possibly an expansion) and returns its id.
  uint32_t addExpansion(uint32_t file, SourceRange site, std::string what);
  std::string_view name(uint32_t file) const { return spelling(file).name; }
  std::string_view text(uint32_t file) const { return spelling(file).text; }
  // The buffer whose text `file` shows: `file` itself unless it is an expansion.
  uint32_t spellingFile(uint32_t file) const;
  // The expansion `file` is, or nullptr for a buffer.
  const Expansion *expansion(uint32_t file) const;
  LineCol lineCol(SourceLoc loc) const;
  // The text of the line containing `loc`, without its newline.
  std::string_view lineText(SourceLoc loc) const;

private:
  struct File {
    std::string name;
    std::string text;
    std::vector<uint32_t> lineStarts;   // offset of the first byte of every line
    uint32_t spellingFile = 0;          // an expansion: the buffer it shows (0 for a buffer)
    Expansion expansion;
  };
  const File &spelling(uint32_t file) const { return files_[spellingFile(file) - 1]; }
  std::vector<File> files_;
};

} // namespace cake
