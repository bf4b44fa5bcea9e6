// .npy reading and writing (see Npy.h).  Format: "\x93NUMPY", major, minor, header length (2 bytes for
// version 1, 4 for 2 and 3), a Python dict literal {'descr': .., 'fortran_order': .., 'shape': (..), }
// padded with spaces to a multiple of 64 bytes and ended by '\n', then the data.
#include "interp/Npy.h"

#include "interp/Numerics.h"

#include <cstring>

namespace cake::interp {

namespace {

// The text after `'key':` up to the next top-level ',' or '}', trimmed; "" when the key is missing.
std::string dictValue(const std::string &header, const std::string &key) {
  size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) return "";
  size_t colon = header.find(':', k);
  if (colon == std::string::npos) return "";
  size_t i = colon + 1, depth = 0;
  std::string out;
  for (; i < header.size(); ++i) {
    char c = header[i];
    if (c == '(') ++depth;
    if (c == ')' && depth > 0) --depth;
    if (depth == 0 && (c == ',' || c == '}')) break;
    out += c;
  }
  size_t b = out.find_first_not_of(" "), e = out.find_last_not_of(" ");
  return b == std::string::npos ? "" : out.substr(b, e - b + 1);
}

struct Descr {
  char kind = 0;   // 'b' bool, 'i' signed, 'u' unsigned, 'f' float
  unsigned bytes = 0;
};

std::optional<Descr> parseDescr(std::string d) {
  if (d.size() < 4 || d.front() != '\'' || d.back() != '\'') return std::nullopt;
  d = d.substr(1, d.size() - 2);
  if (d.size() < 3 || (d[0] != '<' && d[0] != '|' && d[0] != '=')) return std::nullopt;
  Descr r;
  r.kind = d[1];
  r.bytes = unsigned(std::atoi(d.c_str() + 2));
  bool ok = (r.kind == 'b' && r.bytes == 1) || ((r.kind == 'i' || r.kind == 'u') && (r.bytes == 1 || r.bytes == 2 || r.bytes == 4 || r.bytes == 8)) ||
            (r.kind == 'f' && (r.bytes == 2 || r.bytes == 4 || r.bytes == 8));
  if (!ok) return std::nullopt;
  return r;
}

// One element of `d` at p, as the interpreter's scalar of kind I64 (integers, bool) or F32-by-value (floats).
Scalar readElement(const uint8_t *p, Descr d, ScalarKind &from) {
  Scalar s;
  if (d.kind == 'f') {
    from = ScalarKind::F32;
    if (d.bytes == 2) { uint16_t v; std::memcpy(&v, p, 2); s.f = f16BitsToFloat(v); }
    else if (d.bytes == 4) { float v; std::memcpy(&v, p, 4); s.f = v; }
    else { double v; std::memcpy(&v, p, 8); s.f = v; }
    return s;
  }
  from = ScalarKind::I64;
  uint64_t u = 0;
  std::memcpy(&u, p, d.bytes);
  if (d.kind == 'i' && d.bytes < 8) {
    unsigned shift = 64 - 8 * d.bytes;
    s.i = int64_t(u << shift) >> shift;
  } else {
    s.i = int64_t(u);
  }
  if (d.kind == 'b') s.i = s.i != 0;
  return s;
}

} // namespace

std::optional<HostTensor> readNpy(const std::string &bytes, ScalarKind to, std::string &why) {
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) {
    why = "not a .npy file (no \\x93NUMPY magic)";
    return std::nullopt;
  }
  unsigned major = uint8_t(bytes[6]);
  size_t headerLen = 0, start = 0;
  if (major == 1) {
    headerLen = uint8_t(bytes[8]) | size_t(uint8_t(bytes[9])) << 8;
    start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) { why = "truncated header"; return std::nullopt; }
    for (int i = 0; i < 4; ++i) headerLen |= size_t(uint8_t(bytes[8 + size_t(i)])) << (8 * i);
    start = 12;
  } else {
    why = "unsupported .npy version " + std::to_string(major);
    return std::nullopt;
  }
  if (headerLen > bytes.size() - start) { why = "truncated header"; return std::nullopt; }
  std::string header = bytes.substr(start, headerLen);
  std::optional<Descr> d = parseDescr(dictValue(header, "descr"));
  if (!d) { why = "unsupported dtype " + dictValue(header, "descr") + " (bool, integers, float16/32/64, little-endian)"; return std::nullopt; }
  if (dictValue(header, "fortran_order") != "False") { why = "Fortran-order arrays are not supported (save a C-order copy)"; return std::nullopt; }
  std::string shape = dictValue(header, "shape");
  if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')') { why = "malformed shape " + shape; return std::nullopt; }
  std::vector<int64_t> dims;
  int64_t total = 1;
  for (size_t i = 1; i + 1 < shape.size();) {
    while (i + 1 < shape.size() && (shape[i] == ' ' || shape[i] == ',')) ++i;
    if (i + 1 >= shape.size()) break;
    size_t j = i;
    while (j + 1 < shape.size() && shape[j] >= '0' && shape[j] <= '9') ++j;
    if (j == i || j - i > 12) { why = "malformed shape " + shape; return std::nullopt; }
    int64_t n = std::stoll(shape.substr(i, j - i));
    dims.push_back(n);
    if (n > 0 && total > (int64_t(1) << 40) / n) { why = "the array is too large"; return std::nullopt; }
    total *= n;
    i = j;
  }
  size_t dataStart = start + headerLen;
  if (uint64_t(total) * d->bytes > bytes.size() - dataStart) { why = "the data is shorter than the shape says"; return std::nullopt; }
  HostTensor t = HostTensor::zeros(to, dims);
  size_t eb = scalarBytes(to);
  for (int64_t i = 0; i < total; ++i) {
    ScalarKind from;
    Scalar s = readElement(reinterpret_cast<const uint8_t *>(bytes.data()) + dataStart + size_t(i) * d->bytes, *d, from);
    storeScalar(t.bytes.data() + size_t(i) * eb, to, convertScalar(s, from, to));
  }
  return t;
}

std::string writeNpy(const HostTensor &t) {
  std::string descr;
  ScalarKind out = t.dtype;
  switch (t.dtype) {
  case ScalarKind::Pred: descr = "|b1"; break;
  case ScalarKind::I32: descr = "<i4"; break;
  case ScalarKind::U32: descr = "<u4"; break;
  case ScalarKind::I64: descr = "<i8"; break;
  case ScalarKind::F16: descr = "<f2"; break;
  default: descr = "<f4"; out = ScalarKind::F32; break;   // f32, and bf16 widened exactly
  }
  std::string shape = "(";
  for (size_t i = 0; i < t.dims.size(); ++i) shape += std::to_string(t.dims[i]) + (t.dims.size() == 1 || i + 1 < t.dims.size() ? "," : "");
  shape += ")";
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string file = "\x93NUMPY";
  file += char(1);
  file += char(0);
  file += char(header.size() & 0xff);
  file += char(header.size() >> 8);
  file += header;
  size_t eb = scalarBytes(t.dtype), ob = scalarBytes(out);
  std::string data(size_t(t.elements()) * ob, '\0');
  for (int64_t i = 0; i < t.elements(); ++i)
    storeScalar(reinterpret_cast<uint8_t *>(data.data()) + size_t(i) * ob, out,
                loadScalar(t.bytes.data() + size_t(i) * eb, t.dtype));
  return file + data;
}

} // namespace cake::interp
