// SourceManager: line tables are built once per buffer; lookups are a binary search.
#include "support/SourceManager.h"

#include <algorithm>

namespace cake {

uint32_t SourceManager::addBuffer(std::string name, std::string text) {
  File f{std::move(name), std::move(text), {0}};
  for (uint32_t i = 0; i < f.text.size(); ++i)
    if (f.text[i] == '\n') f.lineStarts.push_back(i + 1);
  files_.push_back(std::move(f));
  return static_cast<uint32_t>(files_.size());
}

LineCol SourceManager::lineCol(SourceLoc loc) const {
  if (!loc.valid() || loc.file > files_.size()) return {};
  const File &f = files_[loc.file - 1];
  auto it = std::upper_bound(f.lineStarts.begin(), f.lineStarts.end(), loc.offset);
  uint32_t line = static_cast<uint32_t>(it - f.lineStarts.begin());
  return {line, loc.offset - f.lineStarts[line - 1] + 1};
}

std::string_view SourceManager::lineText(SourceLoc loc) const {
  if (!loc.valid() || loc.file > files_.size()) return {};
  const File &f = files_[loc.file - 1];
  auto it = std::upper_bound(f.lineStarts.begin(), f.lineStarts.end(), loc.offset);
  uint32_t start = *(it - 1);
  uint32_t end = it == f.lineStarts.end() ? static_cast<uint32_t>(f.text.size()) : *it - 1;
  if (end > start && f.text[end - 1] == '\r') --end;
  return std::string_view(f.text).substr(start, end - start);
}

} // namespace cake
