// Unit tests of the ptxas output parsers (src/codegen/Ptxas.h): the message and resource-report formats,
// and hostile output: very long lines (a 30,000-character kernel name overflowed std::regex's recursion),
// numbers past 64 bits (std::stoul threw), and the cap on quoted text.
#include "codegen/Ptxas.h"

#include <doctest/doctest.h>

using namespace cake;

TEST_CASE("parsePtxasMessages: errors with and without a PTX line, warnings") {
  auto msgs = parsePtxasMessages("ptxas k.ptx, line 11; error   : Unknown modifier '.op'\n"
                                 "ptxas warning : Too big maxrregcount\n"
                                 "ptxas fatal   : Ptx assembly aborted due to errors\n"
                                 "something else\n");
  REQUIRE(msgs.size() == 3);
  CHECK(msgs[0].ptxLine == 11);
  CHECK(msgs[0].isError);
  CHECK(msgs[0].text == "Unknown modifier '.op'");
  CHECK(msgs[1].ptxLine == 0);
  CHECK_FALSE(msgs[1].isError);
  CHECK(msgs[1].text == "Too big maxrregcount");
  CHECK(msgs[2].isError);
}

TEST_CASE("parsePtxasReport: registers, shared memory, stack and spills per function") {
  auto fns = parsePtxasReport("ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
                              "ptxas info    : Function properties for k\n"
                              "    16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
                              "ptxas info    : Used 40 registers, used 1 barriers, 1024 bytes smem\n"
                              "ptxas info    : Compiling entry function 'j' for 'sm_90a'\n"
                              "ptxas info    : Used 8 registers\n");
  REQUIRE(fns.size() == 2);
  CHECK(fns[0].function == "k");
  CHECK(fns[0].registers == 40);
  CHECK(fns[0].sharedBytes == 1024);
  CHECK(fns[0].stackBytes == 16);
  CHECK(fns[0].spillStores == 8);
  CHECK(fns[0].spillLoads == 4);
  CHECK(fns[1].function == "j");
  CHECK(fns[1].registers == 8);
}

TEST_CASE("parsePtxasReport: wgmma serialization (C7518) is attached to the function it names") {
  auto fns = parsePtxasReport(
      "ptxas info    : (C7518) Potential Performance Loss: wgmma.mma_async instructions are serialized due to "
      "program dependence on compiler-inserted WG.DP in divergent path in the function 'k'\n"
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'j' for 'sm_90a'\n"
      "ptxas info    : Used 8 registers\n"
      "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
      "ptxas info    : Used 168 registers, used 16 barriers\n");
  REQUIRE(fns.size() == 2);
  CHECK(fns[0].function == "j");
  CHECK(fns[0].wgmmaSerialized.empty());
  CHECK(fns[1].function == "k");
  CHECK(fns[1].registers == 168);
  CHECK(fns[1].wgmmaSerialized == "program dependence on compiler-inserted WG.DP in divergent path");
}

TEST_CASE("ptxas parsers survive a line with a 200,000-character kernel name and cap what they quote") {
  std::string name(200000, 'k');
  std::string output = "ptxas info    : Compiling entry function '" + name + "' for 'sm_80'\n"
                       "ptxas info    : Used 12 registers\n"
                       "ptxas k.ptx, line 3; error   : Duplicate definition of function '" + name + "'\n";
  auto fns = parsePtxasReport(output);
  REQUIRE(fns.size() == 1);
  CHECK(fns[0].registers == 12);
  CHECK(fns[0].function.size() < 600);
  CHECK(fns[0].function.find("more bytes") != std::string::npos);
  auto msgs = parsePtxasMessages(output);
  REQUIRE(msgs.size() == 1);
  CHECK(msgs[0].ptxLine == 3);
  CHECK(msgs[0].text.size() < 600);
}

TEST_CASE("ptxas parsers: out-of-range numbers saturate instead of throwing") {
  auto msgs = parsePtxasMessages("ptxas k.ptx, line 99999999999999999999; error   : boom\n");
  REQUIRE(msgs.size() == 1);
  CHECK(msgs[0].ptxLine == 0);   // names no PTX line cakec wrote
  CHECK(msgs[0].text == "boom");
  auto fns = parsePtxasReport("ptxas info    : Compiling entry function 'k' for 'sm_80'\n"
                              "ptxas info    : Used 99999999999999999999 registers, 99999999999999999999 bytes smem\n"
                              "    99999999999999999999 bytes stack frame, 1 bytes spill stores, 2 bytes spill loads\n");
  REQUIRE(fns.size() == 1);
  CHECK(fns[0].registers == UINT32_MAX);
  CHECK(fns[0].sharedBytes == UINT32_MAX);
  CHECK(fns[0].stackBytes == UINT32_MAX);
  CHECK(fns[0].spillLoads == 2);
}

TEST_CASE("capQuoted keeps short text and shortens long text with a count") {
  CHECK(capQuoted("abc") == "abc");
  std::string capped = capQuoted(std::string(10000, 'x'));
  CHECK(capped.size() < 600);
  CHECK(capped.find("9488 more bytes") != std::string::npos);
}
