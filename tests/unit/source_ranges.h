// Test helper: the source range of a piece of text in a buffer of the SourceManager (its first occurrence).
#pragma once
#include "support/SourceManager.h"

#include <doctest/doctest.h>

#include <string_view>

namespace cake {

inline SourceRange rangeOf(const SourceManager &sm, uint32_t file, std::string_view text) {
  size_t at = sm.text(file).find(text);
  REQUIRE(at != std::string_view::npos);
  return {SourceLoc{file, static_cast<uint32_t>(at)}, static_cast<uint32_t>(at + text.size())};
}

} // namespace cake
