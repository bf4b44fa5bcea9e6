// SourceManager: line tables are built once per buffer; lookups are a binary search.  An expansion has no
// text or line table of its own: every lookup goes to its spelling file.
#include "support/SourceManager.h"

#include <algorithm>

namespace cake {

uint32_t SourceManager::addBuffer(std::string name, std::string text) {
  File f;
  f.name = std::move(name);
  f.text = std::move(text);
  f.lineStarts.push_back(0);
  for (uint32_t i = 0; i < f.text.size(); ++i)
    if (f.text[i] == '\n') f.lineStarts.push_back(i + 1);
  files_.push_back(std::move(f));
  return static_cast<uint32_t>(files_.size());
}

uint32_t SourceManager::addExpansion(uint32_t file, SourceRange site, std::string what) {
  File f;
  f.spellingFile = spellingFile(file);
  f.expansion = Expansion{site, std::move(what)};
  files_.push_back(std::move(f));
  return static_cast<uint32_t>(files_.size());
}

uint32_t SourceManager::spellingFile(uint32_t file) const {
  if (file == 0 || file > files_.size()) return file;
  uint32_t base = files_[file - 1].spellingFile;
  return base ? base : file;
}

const Expansion *SourceManager::expansion(uint32_t file) const {
  if (file == 0 || file > files_.size() || files_[file - 1].spellingFile == 0) return nullptr;
  return &files_[file - 1].expansion;
}

LineCol SourceManager::lineCol(SourceLoc loc) const {
  if (!loc.valid() || loc.file > files_.size()) return {};
  const File &f = spelling(loc.file);
  auto it = std::upper_bound(f.lineStarts.begin(), f.lineStarts.end(), loc.offset);
  uint32_t line = static_cast<uint32_t>(it - f.lineStarts.begin());
  return {line, loc.offset - f.lineStarts[line - 1] + 1};
}

std::string_view SourceManager::lineText(SourceLoc loc) const {
  if (!loc.valid() || loc.file > files_.size()) return {};
  const File &f = spelling(loc.file);
  auto it = std::upper_bound(f.lineStarts.begin(), f.lineStarts.end(), loc.offset);
  uint32_t start = *(it - 1);
  uint32_t end = it == f.lineStarts.end() ? static_cast<uint32_t>(f.text.size()) : *it - 1;
  if (end > start && f.text[end - 1] == '\r') --end;
  return std::string_view(f.text).substr(start, end - start);
}

} // namespace cake
