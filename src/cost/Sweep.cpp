// Sweep parsing, expansion and ranking (see Sweep.h).
#include "cost/Sweep.h"

#include "cost/Report.h"

#include <algorithm>
#include <charconv>
#include <iomanip>
#include <set>
#include <sstream>

namespace cake::cost {

namespace {

bool isIdent(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

std::optional<int64_t> parseInt(std::string_view s) {
  int64_t v = 0;
  bool neg = !s.empty() && s[0] == '-';
  if (neg) s.remove_prefix(1);
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return neg ? -v : v;
}

} // namespace

SweepParseResult parseSweep(const std::vector<std::string> &items) {
  SweepParseResult r;
  std::set<std::string> seen;
  for (const std::string &item : items) {
    auto fail = [&](std::string why) {
      r.badItem = item;
      r.why = std::move(why);
      r.axes.clear();
      return r;
    };
    size_t eq = item.find('=');
    if (eq == std::string::npos) return fail("expected NAME=V1,V2,...");
    std::string name = item.substr(0, eq);
    if (!isIdent(name)) return fail("'" + name + "' is not a parameter name");
    if (!seen.insert(name).second) return fail("'" + name + "' is swept twice");
    SweepAxis axis{name, {}};
    std::string_view rest = std::string_view(item).substr(eq + 1);
    while (true) {
      size_t comma = rest.find(',');
      std::optional<int64_t> v = parseInt(rest.substr(0, comma));
      if (!v)
        return fail("'" + std::string(rest.substr(0, comma)) +
                    "' is not an integer (sweeps take integer values; a type parameter is fixed with -D, e.g. -D T=f16)");
      if (std::find(axis.values.begin(), axis.values.end(), *v) == axis.values.end()) axis.values.push_back(*v);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    r.axes.push_back(std::move(axis));
  }
  return r;
}

size_t sweepSize(const std::vector<SweepAxis> &axes) {
  size_t n = 1;
  for (const SweepAxis &a : axes) {
    if (a.values.empty()) return 0;
    if (n > (SIZE_MAX / 2) / a.values.size()) return SIZE_MAX / 2;
    n *= a.values.size();
  }
  return n;
}

std::vector<std::map<std::string, int64_t>> expandSweep(const std::vector<SweepAxis> &axes) {
  std::vector<std::map<std::string, int64_t>> out(1);
  for (const SweepAxis &a : axes) {
    std::vector<std::map<std::string, int64_t>> next;
    next.reserve(out.size() * a.values.size());
    for (const auto &partial : out)
      for (int64_t v : a.values) {
        auto m = partial;
        m[a.name] = v;
        next.push_back(std::move(m));
      }
    out = std::move(next);
  }
  return out;
}

std::string variantLabel(const std::vector<SweepAxis> &axes, const std::map<std::string, int64_t> &defines) {
  std::string out;
  for (const SweepAxis &a : axes) {
    auto it = defines.find(a.name);
    if (it == defines.end()) continue;
    out += (out.empty() ? "" : " ") + a.name + "=" + std::to_string(it->second);
  }
  return out.empty() ? "(defaults)" : out;
}

std::vector<RankedRow> rankVariants(const std::vector<VariantOutcome> &variants) {
  std::vector<RankedRow> rows;
  for (const VariantOutcome &v : variants)
    for (const Estimate &e : v.estimates) rows.push_back({&v, &e});
  std::stable_sort(rows.begin(), rows.end(),
                   [](const RankedRow &a, const RankedRow &b) { return a.estimate->seconds < b.estimate->seconds; });
  return rows;
}

void renderSweepText(const std::vector<VariantOutcome> &variants, const std::string &header, std::optional<unsigned> top,
                     std::ostream &os) {
  std::vector<RankedRow> rows = rankVariants(variants);
  size_t rejected = 0;
  for (const VariantOutcome &v : variants) rejected += v.ok() ? 0 : 1;
  os << header << ": " << variants.size() << " variants, " << variants.size() - rejected << " estimated, " << rejected
     << " rejected\n";
  os << "rank  predicted   bottleneck  blocks/SM  waves   kernel                variant\n";
  size_t shown = top ? std::min<size_t>(*top, rows.size()) : rows.size();
  for (size_t i = 0; i < shown; ++i) {
    const Estimate &e = *rows[i].estimate;
    std::ostringstream line;
    line << std::left << std::setw(6) << i + 1 << std::setw(12) << formatSeconds(e.seconds) << std::setw(12)
         << e.bottleneck << std::setw(11) << e.occupancy.blocksPerSm << std::setw(8) << std::fixed
         << std::setprecision(2) << e.waves << std::setw(22) << e.kernel << rows[i].variant->label;
    os << line.str() << "\n";
  }
  if (shown < rows.size()) os << "(" << rows.size() - shown << " more; --top " << rows.size() << " shows all)\n";
  if (rejected) {
    os << "rejected:\n";
    for (const VariantOutcome &v : variants)
      if (!v.ok())
        os << "  " << v.label << ": " << (v.wouldNotCompile ? "would not compile: " : "") << v.reason << " [" << v.code
           << "]\n";
  }
}

void renderSweepJson(const std::vector<VariantOutcome> &variants, const std::map<std::string, int64_t> &shape,
                     std::optional<unsigned> top, std::ostream &os) {
  std::vector<RankedRow> rows = rankVariants(variants);
  size_t shown = top ? std::min<size_t>(*top, rows.size()) : rows.size();
  os << "{\"format\":\"cake-sweep\",\"version\":1,\"ranked\":[";
  for (size_t i = 0; i < shown; ++i) {
    os << (i ? ",\n" : "\n") << "{\"rank\":" << i + 1 << ",\"variant\":" << jsonString(rows[i].variant->label)
       << ",\"defines\":{";
    bool first = true;
    for (const auto &[k, v] : rows[i].variant->defines) {
      os << (first ? "" : ",") << jsonString(k) << ":" << v;
      first = false;
    }
    os << "},\"estimate\":" << estimateToJson(*rows[i].estimate, shape) << "}";
  }
  os << "\n],\"rejected\":[";
  bool first = true;
  for (const VariantOutcome &v : variants) {
    if (v.ok()) continue;
    os << (first ? "\n" : ",\n") << "{\"variant\":" << jsonString(v.label) << ",\"code\":" << jsonString(v.code)
       << ",\"reason\":" << jsonString(v.reason) << ",\"compiles\":" << (v.wouldNotCompile ? "false" : "true")
       << "}";
    first = false;
  }
  os << "\n]}\n";
}

} // namespace cake::cost
