#include "warpwatch/config/npy.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include "output_file.hpp"
#include "warpwatch/config/config_error.hpp"

namespace warpwatch::config {
namespace {

constexpr std::string_view magic = "\x93NUMPY";

std::string shape_text(std::span<const std::size_t> shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ',';  // Python's spelling of a 1-tuple
  s += ')';
  return s;
}

// Little-endian fields, read byte by byte so that the host's byte order does not matter.
std::uint64_t read_le(const char* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

struct Header {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::size_t> shape;
  bool seen_descr = false, seen_order = false, seen_shape = false;
};

// The header is a Python dict literal written by numpy's repr, e.g.
// {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
// This parses that subset: string keys, string / True / False / tuple-of-int values.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& path) : s_(text), path_(path) {}

  Header parse() {
    Header h;
    skip_ws();
    expect('{');
    while (true) {
      skip_ws();
      if (peek() == '}') break;
      const std::string key = parse_string();
      skip_ws();
      expect(':');
      skip_ws();
      if (key == "descr") {
        if (peek() != '\'' && peek() != '"')
          fail("unsupported dtype: structured arrays are not supported, only '<f4' and '<f8'");
        h.descr = parse_string();
        h.seen_descr = true;
      } else if (key == "fortran_order") {
        const std::string word = parse_word();
        if (word != "True" && word != "False") fail("fortran_order is '" + word + "'");
        h.fortran_order = word == "True";
        h.seen_order = true;
      } else if (key == "shape") {
        h.shape = parse_shape();
        h.seen_shape = true;
      } else {
        fail("unexpected key '" + key + "'");
      }
      skip_ws();
      if (peek() == ',') {
        ++p_;
        continue;
      }
      skip_ws();
      if (peek() != '}') fail("expected ',' or '}'");
    }
    if (!h.seen_descr || !h.seen_order || !h.seen_shape)
      fail("the header needs 'descr', 'fortran_order' and 'shape'");
    return h;
  }

 private:
  char peek() const { return p_ < s_.size() ? s_[p_] : '\0'; }
  void skip_ws() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\t' || s_[p_] == '\n')) ++p_;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw ConfigError({path_, 0, 0}, "bad .npy header: " + what);
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++p_;
  }
  std::string parse_string() {
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail("expected a quoted key");
    const std::size_t end = s_.find(quote, p_ + 1);
    if (end == std::string_view::npos) fail("unterminated string");
    std::string out(s_.substr(p_ + 1, end - p_ - 1));
    p_ = end + 1;
    return out;
  }
  std::string parse_word() {
    const std::size_t start = p_;
    while (p_ < s_.size() && std::isalnum(static_cast<unsigned char>(s_[p_]))) ++p_;
    return std::string(s_.substr(start, p_ - start));
  }
  std::vector<std::size_t> parse_shape() {
    std::vector<std::size_t> shape;
    expect('(');
    while (true) {
      skip_ws();
      if (peek() == ')') break;
      const std::size_t start = p_;
      std::size_t v = 0;
      while (p_ < s_.size() && s_[p_] >= '0' && s_[p_] <= '9') {
        const std::size_t digit = static_cast<std::size_t>(s_[p_] - '0');
        if (v > (std::numeric_limits<std::size_t>::max() - digit) / 10) fail("shape too large");
        v = v * 10 + digit;
        ++p_;
      }
      if (p_ == start) fail("shape entries must be non-negative integers");
      if (peek() == 'L') ++p_;  // Python 2 long, as old numpy versions wrote it
      shape.push_back(v);
      skip_ws();
      if (peek() == ',') {
        ++p_;
      } else if (peek() != ')') {
        fail("expected ',' or ')' in shape");
      }
    }
    ++p_;
    return shape;
  }

  std::string_view s_;
  const std::string& path_;
  std::size_t p_ = 0;
};

}  // namespace

NpyArray read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError({path, 0, 0}, "cannot open file");
  // In one read of the file's size (a series file runs to hundreds of MB: a byte at a time
  // through istreambuf_iterator took as long as matching it); what a read returns short
  // (a file that changed size) is read on to the end.
  std::string bytes;
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec) bytes.resize(static_cast<std::size_t>(size));
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  if (in.eof() && !in.bad()) in.clear();
  std::ostringstream rest;
  rest << in.rdbuf();
  if (in.bad()) throw ConfigError({path, 0, 0}, "read error");
  bytes += std::move(rest).str();
  return parse_npy(bytes, path);
}

std::size_t npy_header_bytes(std::string_view first) {
  if (first.size() < 12 || first.substr(0, 6) != magic) return 12;
  const int major = static_cast<unsigned char>(first[6]);
  return major == 1 ? 10 + read_le(first.data() + 8, 2) : 12 + read_le(first.data() + 8, 4);
}

NpyHeader parse_npy_header(std::string_view bytes, const std::string& path) {
  const auto error = [&](const std::string& message) { return ConfigError({path, 0, 0}, message); };

  if (bytes.size() < 10 || bytes.substr(0, 6) != magic)
    throw error("not a .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<unsigned char>(bytes[6]);
  const int minor = static_cast<unsigned char>(bytes[7]);
  std::size_t header_start = 0;
  std::size_t header_len = 0;
  if (major == 1) {
    header_start = 10;
    header_len = read_le(bytes.data() + 8, 2);
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw error("truncated .npy header");
    header_start = 12;
    header_len = read_le(bytes.data() + 8, 4);
  } else {
    throw error("unsupported .npy format version " + std::to_string(major) + "." +
                std::to_string(minor) + " (1.0, 2.0 and 3.0 are supported)");
  }
  if (bytes.size() - header_start < header_len) throw error("truncated .npy header");
  const Header h = HeaderParser(bytes.substr(header_start, header_len), path).parse();

  NpyHeader out;
  if (h.descr == "<f8") {
    out.item_bytes = 8;
  } else if (h.descr == "<f4") {
    out.item_bytes = 4;
  } else {
    throw error("unsupported dtype '" + h.descr +
                "': only little-endian float32 '<f4' and float64 '<f8' are supported");
  }
  if (h.fortran_order)
    throw error(
        "fortran_order True is not supported: save the array in C order "
        "(numpy.ascontiguousarray)");
  out.shape = h.shape;
  for (const std::size_t n : h.shape) {
    if (n != 0 && out.count > std::numeric_limits<std::size_t>::max() / n / out.item_bytes)
      throw error("shape " + shape_text(h.shape) + " is too large");
    out.count *= n;
  }
  out.data_offset = header_start + header_len;
  return out;
}

double npy_element(const char* p, std::size_t item_bytes) {
  if constexpr (std::endian::native == std::endian::little) {
    if (item_bytes == 8) {
      double v;
      std::memcpy(&v, p, 8);
      return v;
    }
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  return item_bytes == 8
             ? std::bit_cast<double>(read_le(p, 8))
             : static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(read_le(p, 4))));
}

void check_npy_data_bytes(const NpyHeader& h, std::uint64_t data_bytes, const std::string& path) {
  const std::uint64_t need = h.count * h.item_bytes;
  if (data_bytes < need)
    throw ConfigError({path, 0, 0}, "truncated data: shape " + shape_text(h.shape) + " of '" +
                                        (h.item_bytes == 8 ? "<f8" : "<f4") + "' needs " +
                                        std::to_string(need) + " bytes, the file has " +
                                        std::to_string(data_bytes));
}

NpyArray parse_npy(std::string_view bytes, const std::string& path) {
  const NpyHeader h = parse_npy_header(bytes, path);
  NpyArray array;
  array.shape = h.shape;
  array.item_bytes = h.item_bytes;
  check_npy_data_bytes(h, bytes.size() - h.data_offset, path);
  const std::size_t need = h.count * h.item_bytes;
  // Bytes past the end are ignored, as numpy.load does.
  array.data.resize(h.count);
  const char* p = bytes.data() + h.data_offset;
  if (std::endian::native == std::endian::little && h.item_bytes == 8) {
    std::memcpy(array.data.data(), p, need);  // the file's order: copy
    return array;
  }
  for (std::size_t i = 0; i < h.count; ++i, p += h.item_bytes)
    array.data[i] = npy_element(p, h.item_bytes);
  return array;
}

std::string npy_header_f8(std::span<const std::size_t> shape) {
  std::string dict =
      "{'descr': '<f8', 'fortran_order': False, 'shape': " + shape_text(shape) + ", }";
  // numpy pads with spaces and ends with '\n' so that the data is 64-byte aligned.
  const std::size_t unpadded = magic.size() + 4 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  std::string out(magic);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>((dict.size() >> 8) & 0xff);
  return out + dict;
}

void write_npy_f8(const std::string& path, std::span<const double> data,
                  std::span<const std::size_t> shape) {
  std::size_t count = 1;
  for (const std::size_t n : shape) count *= n;
  if (count != data.size())
    throw std::invalid_argument("write_npy_f8: shape " + shape_text(shape) + " does not match " +
                                std::to_string(data.size()) + " values");
  std::ofstream out = open_for_writing(path, std::ios::binary | std::ios::trunc);
  out << npy_header_f8(shape);
  // Little-endian bytes whatever the host, in blocks to keep the stream calls few.
  std::string block;
  constexpr std::size_t block_values = 8192;
  for (std::size_t start = 0; start < data.size(); start += block_values) {
    const std::size_t end = std::min(data.size(), start + block_values);
    block.clear();
    for (std::size_t i = start; i < end; ++i) {
      const auto bits = std::bit_cast<std::uint64_t>(data[i]);
      for (int b = 0; b < 8; ++b) block += static_cast<char>((bits >> (8 * b)) & 0xff);
    }
    out.write(block.data(), static_cast<std::streamsize>(block.size()));
  }
  out.close();
  if (!out) throw_write_error(path);
}

}  // namespace warpwatch::config
