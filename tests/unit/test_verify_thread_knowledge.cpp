// Unit tests of ThreadKnowledge (src/verify/ThreadKnowledge.cpp): which threads of an agent observed which
// stage versions after waits by thread subsets, syncwarp (full and partial masks), block-wide barriers and
// arrivals; the classes merge back when the threads' knowledge is equal again; describeThreads' wording.
#include "verify/ThreadKnowledge.h"

#include <doctest/doctest.h>

#include <numeric>

using namespace cake;

namespace {

std::vector<int64_t> range(int64_t lo, int64_t hi) {
  std::vector<int64_t> v(static_cast<size_t>(hi - lo));
  std::iota(v.begin(), v.end(), lo);
  return v;
}

} // namespace

TEST_CASE("ThreadKnowledge: a wait by lane 0 teaches only lane 0; syncwarp teaches its warp") {
  ThreadKnowledge k;
  k.reset(range(128, 192), 2);   // two warps, 4 and 5
  std::vector<int64_t> fill = {3, 0};
  std::vector<int64_t> lane0 = {128, 160};
  k.learn(&lane0, fill.data());
  CHECK(k.classes() == 2);
  std::vector<int64_t> all = range(128, 192);
  CHECK(k.unaware(&all, 0, 3).size() == 62);
  CHECK(k.unaware(&lane0, 0, 3).empty());
  CHECK(k.unaware(&all, 1, 0).empty());
  std::vector<int64_t> warp4 = range(128, 160);
  k.syncWarps(&warp4, 0xffffffffu);
  CHECK(k.unaware(&all, 0, 3) == range(161, 192));
  k.syncWarps(nullptr, 0xffffffffu);
  CHECK(k.unaware(&all, 0, 3).empty());
  CHECK(k.classes() == 1);
}

TEST_CASE("ThreadKnowledge: a partial syncwarp mask orders only its lanes") {
  ThreadKnowledge k;
  k.reset(range(0, 32), 1);
  std::vector<int64_t> fill = {1};
  std::vector<int64_t> lane0 = {0};
  k.learn(&lane0, fill.data());
  k.syncWarps(nullptr, 0x0000ffffu);
  CHECK(k.unaware(nullptr, 0, 1) == range(16, 32));
}

TEST_CASE("ThreadKnowledge: block barriers teach everyone; arrivals carry what the arrivers know") {
  ThreadKnowledge k;
  k.reset(range(0, 64), 2);
  std::vector<int64_t> fill = {0, 2};
  std::vector<int64_t> warp1 = range(32, 64);
  k.learn(&warp1, fill.data());
  std::vector<int64_t> carried(2, 0), lane0 = {0};
  k.knownBy(&lane0, carried.data());
  CHECK(carried[1] == 0);
  k.knownBy(&warp1, carried.data());
  CHECK(carried[1] == 2);
  k.learnAll(fill.data());
  CHECK(k.classes() == 1);
  CHECK(k.unaware(nullptr, 1, 2).empty());
  k.learnStage(&lane0, 0, 5);
  CHECK(k.unaware(nullptr, 0, 5).size() == 63);
}

TEST_CASE("describeThreads names lanes, warps or thread ranges") {
  CHECK(describeThreads({0, 32, 64, 96}) == "lane 0 of warps 0..3");
  CHECK(describeThreads(range(192, 256)) == "warps 6, 7");
  CHECK(describeThreads(range(33, 64)) == "lanes 1..31 of warp 1");
  CHECK(describeThreads({1, 2, 40}) == "tid.x 1, 2, 40");
}
