// Machine descriptions: reading machines/*.json, finding the default machine for a target, writing a
// (calibrated) description back.  See Machine.h.
//
// The reader is strict about what the model needs (every rate and capacity must be present and positive)
// and lenient about the rest ("sources" and unknown keys are kept or ignored), so a description written
// by hand fails loudly instead of silently predicting with a zero bandwidth.
#include "cost/Machine.h"
#include "cost/Report.h"
#include "support/ReadFile.h"

#include "Json.h"   // runtime/src/Json.h: the project's small JSON reader

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>

#ifndef CAKE_MACHINES_DIR
#define CAKE_MACHINES_DIR ""
#endif

namespace cake::cost {

using rt::JsonType;
using rt::JsonValue;

bool Machine::runs(Arch a) const {
  for (Arch x : archs)
    if (x == a) return true;
  return false;
}

namespace {

struct Reader {
  const JsonValue &root;
  std::string error;

  const JsonValue *member(const JsonValue &obj, std::string_view path) {
    const JsonValue *v = &obj;
    size_t start = 0;
    while (v) {
      size_t dot = path.find('.', start);
      v = v->find(path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
      if (dot == std::string_view::npos) break;
      start = dot + 1;
    }
    return v;
  }
  bool number(std::string_view path, double &out, bool required = true) {
    const JsonValue *v = member(root, path);
    if (!v) {
      if (required && error.empty()) error = "missing field '" + std::string(path) + "'";
      return false;
    }
    if (v->type == JsonType::Int) out = static_cast<double>(v->integer);
    else if (v->type == JsonType::Double) out = v->number;
    else {
      if (error.empty()) error = "field '" + std::string(path) + "' must be a number";
      return false;
    }
    if (!(out > 0) && error.empty()) error = "field '" + std::string(path) + "' must be positive";
    return true;
  }
  bool integer(std::string_view path, int64_t &out, bool required = true) {
    double d = static_cast<double>(out);
    if (!number(path, d, required)) return false;
    out = static_cast<int64_t>(d);
    return true;
  }
  std::vector<Arch> archList(std::string_view path) {
    std::vector<Arch> out;
    const JsonValue *v = member(root, path);
    if (!v) return out;
    if (!v->isArray()) {
      if (error.empty()) error = "field '" + std::string(path) + "' must be a list of targets";
      return out;
    }
    for (const JsonValue &item : v->items) {
      std::optional<Arch> a = item.isString() ? parseArch(item.string) : std::nullopt;
      if (!a) {
        if (error.empty()) error = "field '" + std::string(path) + "' has an unknown target";
        continue;
      }
      out.push_back(*a);
    }
    return out;
  }
};

} // namespace

MachineLoadResult parseMachine(std::string_view jsonText, const std::string &path) {
  rt::JsonParseResult parsed = rt::parseJson(jsonText);
  if (!parsed.ok) return {std::nullopt, "malformed JSON: " + parsed.error};
  if (!parsed.value.isObject()) return {std::nullopt, "expected a JSON object"};
  Reader r{parsed.value, {}};
  Machine m;
  m.path = path;
  if (const JsonValue *n = parsed.value.find("name"); n && n->isString()) m.name = n->string;
  else return {std::nullopt, "missing field 'name'"};
  if (const JsonValue *d = parsed.value.find("description"); d && d->isString()) m.description = d->string;
  m.archs = r.archList("archs");
  if (m.archs.empty() && r.error.empty()) r.error = "field 'archs' must list at least one target";
  m.defaultFor = r.archList("default_for");
  r.integer("sms", m.sms);
  r.number("clock_ghz", m.clockGhz);
  r.number("hbm_bytes_per_s", m.hbmBytesPerSec);
  r.number("l2_bytes", m.l2Bytes);
  m.l2UsableBytes = m.l2Bytes;
  r.number("l2_usable_bytes", m.l2UsableBytes, false);
  r.number("l2_bytes_per_s", m.l2BytesPerSec);
  r.number("shared_bytes_per_clk_per_sm", m.sharedBytesPerClkPerSm, false);
  r.integer("shared_per_sm", m.sharedPerSm);
  r.integer("shared_per_block_max", m.sharedPerBlockMax);
  r.integer("shared_reserved_per_block", m.sharedReservedPerBlock, false);
  r.integer("registers_per_sm", m.registersPerSm, false);
  r.integer("max_registers_per_thread", m.maxRegistersPerThread, false);
  r.integer("max_threads_per_sm", m.maxThreadsPerSm, false);
  r.integer("max_blocks_per_sm", m.maxBlocksPerSm, false);
  r.number("tensor_flops_per_clk_per_sm", m.tensorFlopsPerClkPerSm);
  r.number("fp32_lanes_per_clk_per_sm", m.fp32LanesPerClkPerSm);
  r.number("sfu_lanes_per_clk_per_sm", m.sfuLanesPerClkPerSm, false);
  r.number("issue_per_clk_per_sm", m.issuePerClkPerSm, false);
  r.number("dram_latency_ns", m.dramLatencyNs);
  r.number("l2_latency_ns", m.l2LatencyNs);
  r.number("barrier_cycles", m.barrierCycles, false);
  r.number("launch_overhead_us", m.launchOverheadUs);
  Efficiencies &e = m.eff;
  r.number("efficiency.hbm_simt", e.hbmSimt, false);
  r.number("efficiency.hbm_cp_async", e.hbmCpAsync, false);
  r.number("efficiency.hbm_tma", e.hbmTma, false);
  r.number("efficiency.l2", e.l2, false);
  r.number("efficiency.l2_tma", e.l2Tma, false);
  r.number("efficiency.shared", e.shared, false);
  r.number("efficiency.shared_async", e.sharedAsync, false);
  r.number("efficiency.mma_sync", e.mmaSync, false);
  r.number("efficiency.wgmma", e.wgmma, false);
  r.number("efficiency.fp32", e.fp32, false);
  r.number("efficiency.sfu", e.sfu, false);
  r.number("efficiency.warp_ipc", e.warpIpc, false);
  r.number("efficiency.issue", e.issue, false);
  if (const JsonValue *s = parsed.value.find("sources"); s && s->isObject())
    for (size_t i = 0; i < s->keys.size(); ++i)
      if (s->items[i].isString()) m.sources[s->keys[i]] = s->items[i].string;
  if (!r.error.empty()) return {std::nullopt, r.error};
  return {std::move(m), {}};
}

MachineLoadResult loadMachineFile(const std::string &path) {
  ReadFileResult read = readFileBounded(path, kMaxMachineFileBytes);
  if (read.status == ReadFileResult::TooLarge)
    return {std::nullopt, "the file is larger than " + std::to_string(kMaxMachineFileBytes >> 20) + " MiB"};
  if (!read.ok()) return {std::nullopt, "cannot read the file: " + read.error};
  return parseMachine(read.text, path);
}

// share/cake/machines beside the running cakec's bin/ folder: where `cmake --install` and the Python wheel put
// the descriptions (CMakeLists.txt's install rules).  Empty when the executable's path is unknown.
static std::string installedMachinesDir() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec || exe.empty()) return "";
  std::filesystem::path dir = exe.parent_path().parent_path() / "share" / "cake" / "machines";
  return std::filesystem::is_directory(dir, ec) ? dir.string() : "";
}

std::vector<std::string> machineSearchDirs() {
  std::vector<std::string> dirs;
  if (const char *env = std::getenv("CAKE_MACHINES_DIR"); env && *env) dirs.emplace_back(env);
  if (std::string installed = installedMachinesDir(); !installed.empty()) dirs.push_back(installed);
  if (*CAKE_MACHINES_DIR) dirs.emplace_back(CAKE_MACHINES_DIR);
  return dirs;
}

MachineLoadResult findMachine(const std::string &spec, Arch arch) {
  bool isPath = spec.find('/') != std::string::npos ||
                (spec.size() > 5 && spec.compare(spec.size() - 5, 5, ".json") == 0);
  if (isPath) return loadMachineFile(spec);
  std::vector<std::string> dirs = machineSearchDirs();
  if (dirs.empty()) return {std::nullopt, "no machine directory (set CAKE_MACHINES_DIR)"};
  if (!spec.empty()) {
    for (const std::string &dir : dirs) {
      std::string path = dir + "/" + spec + ".json";
      std::error_code ec;
      if (std::filesystem::exists(path, ec)) return loadMachineFile(path);
    }
    std::string searched;
    for (const std::string &dir : dirs) searched += (searched.empty() ? "" : ", ") + dir;
    return {std::nullopt, "no machine named '" + spec + "' in " + searched};
  }
  for (const std::string &dir : dirs) {
    std::error_code ec;
    std::vector<std::string> files;
    for (const auto &entry : std::filesystem::directory_iterator(dir, ec))
      if (entry.path().extension() == ".json") files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
    for (const std::string &path : files) {
      MachineLoadResult r = loadMachineFile(path);
      if (!r.machine) continue;
      for (Arch a : r.machine->defaultFor)
        if (a == arch) return r;
    }
  }
  return {std::nullopt, "no machine description is the default for " + std::string(archName(arch))};
}

namespace {


std::string num(double v) {
  std::ostringstream os;
  os << std::setprecision(6) << v;
  return os.str();
}

std::string archArray(const std::vector<Arch> &archs) {
  std::string out = "[";
  for (size_t i = 0; i < archs.size(); ++i) out += (i ? ", " : "") + jsonString(archName(archs[i]));
  return out + "]";
}

} // namespace

std::string machineToJson(const Machine &m) {
  std::ostringstream os;
  const Efficiencies &e = m.eff;
  os << "{\n"
     << "  \"name\": " << jsonString(m.name) << ",\n"
     << "  \"description\": " << jsonString(m.description) << ",\n"
     << "  \"archs\": " << archArray(m.archs) << ",\n"
     << "  \"default_for\": " << archArray(m.defaultFor) << ",\n"
     << "  \"sms\": " << m.sms << ",\n"
     << "  \"clock_ghz\": " << num(m.clockGhz) << ",\n"
     << "  \"hbm_bytes_per_s\": " << num(m.hbmBytesPerSec) << ",\n"
     << "  \"l2_bytes\": " << num(m.l2Bytes) << ",\n"
     << "  \"l2_usable_bytes\": " << num(m.l2UsableBytes) << ",\n"
     << "  \"l2_bytes_per_s\": " << num(m.l2BytesPerSec) << ",\n"
     << "  \"shared_bytes_per_clk_per_sm\": " << num(m.sharedBytesPerClkPerSm) << ",\n"
     << "  \"shared_per_sm\": " << m.sharedPerSm << ",\n"
     << "  \"shared_per_block_max\": " << m.sharedPerBlockMax << ",\n"
     << "  \"shared_reserved_per_block\": " << m.sharedReservedPerBlock << ",\n"
     << "  \"registers_per_sm\": " << m.registersPerSm << ",\n"
     << "  \"max_registers_per_thread\": " << m.maxRegistersPerThread << ",\n"
     << "  \"max_threads_per_sm\": " << m.maxThreadsPerSm << ",\n"
     << "  \"max_blocks_per_sm\": " << m.maxBlocksPerSm << ",\n"
     << "  \"tensor_flops_per_clk_per_sm\": " << num(m.tensorFlopsPerClkPerSm) << ",\n"
     << "  \"fp32_lanes_per_clk_per_sm\": " << num(m.fp32LanesPerClkPerSm) << ",\n"
     << "  \"sfu_lanes_per_clk_per_sm\": " << num(m.sfuLanesPerClkPerSm) << ",\n"
     << "  \"issue_per_clk_per_sm\": " << num(m.issuePerClkPerSm) << ",\n"
     << "  \"dram_latency_ns\": " << num(m.dramLatencyNs) << ",\n"
     << "  \"l2_latency_ns\": " << num(m.l2LatencyNs) << ",\n"
     << "  \"barrier_cycles\": " << num(m.barrierCycles) << ",\n"
     << "  \"launch_overhead_us\": " << num(m.launchOverheadUs) << ",\n"
     << "  \"efficiency\": {\n"
     << "    \"hbm_simt\": " << num(e.hbmSimt) << ", \"hbm_cp_async\": " << num(e.hbmCpAsync)
     << ", \"hbm_tma\": " << num(e.hbmTma) << ",\n"
     << "    \"l2\": " << num(e.l2) << ", \"l2_tma\": " << num(e.l2Tma) << ", \"shared\": " << num(e.shared)
     << ", \"shared_async\": " << num(e.sharedAsync) << ",\n"
     << "    \"mma_sync\": " << num(e.mmaSync) << ", \"wgmma\": " << num(e.wgmma) << ",\n"
     << "    \"fp32\": " << num(e.fp32) << ", \"sfu\": " << num(e.sfu) << ", \"warp_ipc\": " << num(e.warpIpc)
     << ", \"issue\": " << num(e.issue) << "\n"
     << "  },\n"
     << "  \"sources\": {";
  bool first = true;
  for (const auto &[key, value] : m.sources) {
    os << (first ? "\n" : ",\n") << "    " << jsonString(key) << ": " << jsonString(value);
    first = false;
  }
  os << "\n  }\n}\n";
  return os.str();
}

} // namespace cake::cost
