// Edit distance by the classic dynamic programme over one row (O(|a| * |b|) time, O(|b|) space).
#include "support/EditDistance.h"

#include <algorithm>
#include <vector>

namespace cake {

size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string closestName(std::string_view name, const std::vector<std::string> &candidates) {
  size_t limit = std::clamp<size_t>(name.size() / 3, 1, 3);
  std::string best;
  size_t bestDist = limit + 1;
  for (const std::string &c : candidates) {
    if (c == name) continue;
    size_t d = editDistance(name, c);
    if (d < bestDist || (d == bestDist && c < best)) { bestDist = d; best = c; }
  }
  return best;
}

} // namespace cake
