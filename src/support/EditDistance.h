// Levenshtein edit distance, for "did you mean" suggestions in diagnostics.
#pragma once
#include <cstddef>
#include <string_view>

namespace cake {

size_t editDistance(std::string_view a, std::string_view b);

} // namespace cake
