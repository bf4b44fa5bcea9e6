// Ptxas: runs NVIDIA's ptxas as a subprocess (posix_spawn, no shell) to turn PTX text into a cubin, and
// parses what it prints: errors with their PTX line numbers (so the driver can map them back to .cake
// lines through the PTX source map) and the -v resource report (registers, shared memory, spills).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cake {

struct PtxasMessage {
  unsigned ptxLine = 0;      // 0 when ptxas named no line
  bool isError = true;       // error or fatal; false for warnings
  std::string text;          // the message without the "ptxas file, line N; error :" prefix
};

struct PtxasFunctionReport {
  std::string function;
  unsigned registers = 0;
  unsigned sharedBytes = 0;  // static shared memory ptxas saw (dynamic shared memory is not included)
  unsigned stackBytes = 0;
  unsigned spillStores = 0;
  unsigned spillLoads = 0;
};

struct PtxasResult {
  bool launched = false;     // false: ptxas could not be started (see launchError)
  std::string launchError;
  int exitCode = -1;
  std::string output;        // stdout + stderr as printed
  std::vector<PtxasMessage> messages;
  std::vector<PtxasFunctionReport> functions;
  std::string cubin;         // bytes of the cubin on success
};

// Finds ptxas: the explicit path if given, else $CUDA_HOME/bin/ptxas, else PATH, else /usr/local/cuda/bin.
std::optional<std::string> findPtxas(const std::string &explicitPath);

// Assembles `ptx` for `gpuName` ("sm_90a").  Uses a private temporary directory that is removed afterwards.
PtxasResult runPtxas(const std::string &ptxasPath, const std::string &ptx, const std::string &gpuName,
                     bool verbose);

// Parsers for ptxas output, exposed for unit tests.  Linear time in the output, no exceptions: numbers past
// 32 bits saturate (a line number past 32 bits becomes 0, "no line"), quoted text is capped by capQuoted.
std::string capQuoted(std::string_view text);
std::vector<PtxasMessage> parsePtxasMessages(const std::string &output);
std::vector<PtxasFunctionReport> parsePtxasReport(const std::string &output);

} // namespace cake
