// FoldPairwise: a reduction's order of combination, shared by the code generator (the order of the emitted
// instructions) and the interpreter (which must reproduce it to match the GPU's float rounding exactly).
#pragma once
#include <cstddef>
#include <utility>
#include <vector>

namespace cake {

// combine(...) over items (non-empty, in order) as a balanced tree: pairs (0,1), (2,3), ... then pairs of
// those, an odd last item carried up unchanged.
template <typename T, typename Combine> T foldPairwise(std::vector<T> items, Combine combine) {
  while (items.size() > 1) {
    std::vector<T> next;
    for (std::size_t i = 0; i + 1 < items.size(); i += 2) next.push_back(combine(items[i], items[i + 1]));
    if (items.size() % 2) next.push_back(items.back());
    items = std::move(next);
  }
  return items.front();
}

} // namespace cake
