// addLineInfo (LineInfo.h): a pass over finished PTX text and its per-line source ranges.
//
// How: the PTX writer already records, for every instruction line, the SourceRange of the CAKE statement or
// expression it lowers (the same map that points ptxas errors at .cake lines).  This pass walks the lines
// once: each instruction line with a range whose (file, line, column) differs from the last one emitted gets
// a `.loc FILE LINE COLUMN` line before it; files are numbered 1.. in order of first use and declared by
// `.file` lines placed right after the module's `.address_size` line (PTX wants them at module scope, before
// their first use).  Inlined fn bodies are expansions of their spelling file: `.loc` names the body's line.
// Declaration and header lines carry no range and get no `.loc`.  The output is deterministic.
#include "codegen/LineInfo.h"

#include <map>
#include <sstream>
#include <tuple>

namespace cake {

namespace {
// A PTX string literal of a file name (quotes and backslashes escaped).
std::string quotedName(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}
} // namespace

void addLineInfo(CodegenResult &cg, const SourceManager &sources) {
  std::vector<std::string> lines;
  {
    std::istringstream in(cg.ptx);
    for (std::string line; std::getline(in, line);) lines.push_back(std::move(line));
  }
  std::map<uint32_t, unsigned> fileIds;   // spelling file -> .file number
  std::vector<uint32_t> fileOrder;
  std::vector<std::string> body;
  std::vector<SourceRange> bodyRanges;
  size_t headerEnd = std::string::npos;   // index in `body` after which the .file lines go
  std::tuple<unsigned, uint32_t, uint32_t> last{0, 0, 0};
  for (size_t i = 0; i < lines.size(); ++i) {
    SourceRange r = i < cg.lineRanges.size() ? cg.lineRanges[i] : SourceRange{};
    if (r.valid()) {
      uint32_t file = sources.spellingFile(r.begin.file);
      auto [it, added] = fileIds.emplace(file, static_cast<unsigned>(fileIds.size() + 1));
      if (added) fileOrder.push_back(file);
      LineCol lc = sources.lineCol(SourceLoc{file, r.begin.offset});
      std::tuple<unsigned, uint32_t, uint32_t> here{it->second, lc.line, lc.column};
      if (here != last) {
        body.push_back("\t.loc " + std::to_string(it->second) + " " + std::to_string(lc.line) + " " + std::to_string(lc.column));
        bodyRanges.push_back({});
        last = here;
      }
    }
    body.push_back(lines[i]);
    bodyRanges.push_back(r);
    if (headerEnd == std::string::npos && lines[i].rfind(".address_size", 0) == 0) headerEnd = body.size();
  }
  if (headerEnd == std::string::npos) headerEnd = 0;
  std::vector<std::string> fileLines;
  for (uint32_t f : fileOrder) fileLines.push_back(".file " + std::to_string(fileIds[f]) + " " + quotedName(sources.name(f)));
  body.insert(body.begin() + static_cast<std::ptrdiff_t>(headerEnd), fileLines.begin(), fileLines.end());
  bodyRanges.insert(bodyRanges.begin() + static_cast<std::ptrdiff_t>(headerEnd), fileLines.size(), SourceRange{});
  std::string text;
  for (const std::string &l : body) text += l + "\n";
  cg.ptx = std::move(text);
  cg.lineRanges = std::move(bodyRanges);
}

} // namespace cake
