// Ptxas: runs NVIDIA's ptxas as a subprocess (fork + execv, no shell) to turn PTX text into a cubin, and
// parses what it prints: errors with their PTX line numbers (so the driver can map them back to .cake
// lines through the PTX source map) and the -v resource report (registers, shared memory, spills).
//
// ptxas runs under limits (PtxasLimits): a wall-clock time limit after which its whole process group is
// killed, and an address-space limit (RLIMIT_AS).  It runs in its own process group, which cakec's signal
// handler kills (support/SignalCleanup.h), and it is killed as well if cakec dies (PR_SET_PDEATHSIG).
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
  std::string wgmmaSerialized;   // ptxas's reason when it serialized the function's wgmma instructions (C7518)
};

// Defaults of --ptxas-time-limit and --ptxas-memory-limit (docs/cli.md, resource limits).
constexpr unsigned kDefaultPtxasTimeLimitSeconds = 60;
constexpr unsigned kDefaultPtxasMemoryLimitMiB = 4096;

struct PtxasLimits {
  unsigned timeLimitSeconds = kDefaultPtxasTimeLimitSeconds;   // 0: no limit
  unsigned memoryLimitMiB = kDefaultPtxasMemoryLimitMiB;       // 0: no limit
};

struct PtxasResult {
  enum class Status {
    NotStarted,   // could not be started (launchError): no temporary folder, not executable, ...
    Exited,       // exited by itself with exitCode
    Crashed,      // killed by a signal it did not get from cakec (signal)
    TimedOut,     // still running at the time limit: killed by cakec
  };
  Status status = Status::NotStarted;
  std::string launchError;
  int exitCode = -1;
  int signal = 0;
  std::string output;        // stdout + stderr as printed (the first 4 MiB)
  std::vector<PtxasMessage> messages;
  std::vector<PtxasFunctionReport> functions;
  std::string cubin;         // bytes of the cubin when it exited 0
  bool cubinMissing = false; // exited 0 but wrote no cubin, or an empty one
};

// Finds ptxas: the explicit path if given, else $CUDA_HOME/bin/ptxas, else each PATH entry, else
// /usr/local/cuda/bin/ptxas.  Only absolute $CUDA_HOME and PATH entries are searched (a relative one would
// run whatever `ptxas` the current folder holds), and only regular executable files count (a folder named
// ptxas does not stop the search).  The result is an absolute path.
std::optional<std::string> findPtxas(const std::string &explicitPath);

// ptxas's version ("12.4.131" from "Cuda compilation tools, release 12.4, V12.4.131"), or "" when
// `ptxas --version` fails or prints no version.
std::string ptxasVersion(const std::string &ptxasPath, const PtxasLimits &limits);

// Assembles `ptx` for `gpuName` ("sm_90a").  Uses a private temporary directory that is removed afterwards
// (also on SIGINT/SIGTERM/SIGHUP).
// `extraArgs` go to ptxas after cakec's own (-lineinfo, --maxrregcount N, -Xptxas values).
PtxasResult runPtxas(const std::string &ptxasPath, const std::string &ptx, const std::string &gpuName,
                     bool verbose, const PtxasLimits &limits = {}, const std::vector<std::string> &extraArgs = {});

// Packs a cubin for `gpuName` and the PTX it was assembled from into one fat binary with NVIDIA's fatbinary,
// the executable named `fatbinary` in ptxas's folder: the driver runs the cubin on its own architecture and
// compiles the PTX for a later one.  Runs like ptxas (private folder, limits); nullopt with `error` set when
// fatbinary is missing or fails.
std::optional<std::string> runFatbinary(const std::string &ptxasPath, const std::string &cubin, const std::string &ptx,
                                        const std::string &gpuName, const PtxasLimits &limits, std::string &error);

// A signal's name ("SIGSEGV"), or "signal N".
std::string signalName(int sig);

// Parsers for ptxas output, exposed for unit tests.  Linear time in the output, no exceptions: numbers past
// 32 bits saturate (a line number past 32 bits becomes 0, "no line"), quoted text is capped by capQuoted.
std::string capQuoted(std::string_view text);
std::vector<PtxasMessage> parsePtxasMessages(const std::string &output);
std::vector<PtxasFunctionReport> parsePtxasReport(const std::string &output);

} // namespace cake
