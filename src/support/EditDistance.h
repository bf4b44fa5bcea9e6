// Levenshtein edit distance, for "did you mean" suggestions in diagnostics.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cake {

size_t editDistance(std::string_view a, std::string_view b);

// The candidate closest to `name` within a third of its length in edits (at least 1, at most 3; ties: the
// alphabetically first), or "" when none is that close.  `name` itself is never suggested.
std::string closestName(std::string_view name, const std::vector<std::string> &candidates);

} // namespace cake
