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

class SourceManager {
public:
  // Adds a buffer and returns its file id (>= 1).
  uint32_t addBuffer(std::string name, std::string text);
  std::string_view name(uint32_t file) const { return files_[file - 1].name; }
  std::string_view text(uint32_t file) const { return files_[file - 1].text; }
  LineCol lineCol(SourceLoc loc) const;
  // The text of the line containing `loc`, without its newline.
  std::string_view lineText(SourceLoc loc) const;

private:
  struct File {
    std::string name;
    std::string text;
    std::vector<uint32_t> lineStarts;   // offset of the first byte of every line
  };
  std::vector<File> files_;
};

} // namespace cake
