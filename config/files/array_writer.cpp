#include "warpwatch/config/array_writer.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "output_file.hpp"
#include "warpwatch/config/npy.hpp"

namespace warpwatch::config {
namespace {

bool ends_with_npy(const std::string& path) {
  if (path.size() < 4) return false;
  std::string ext = path.substr(path.size() - 4);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".npy";
}

void append_value(std::string& line, double v) {
  // to_chars spells NaN with its sign bit ("-nan"); readers expect plain "nan".
  if (std::isnan(v)) {
    line += "nan";
    return;
  }
  char buf[32];
  const auto result = std::to_chars(buf, buf + sizeof buf, v);
  line.append(buf, result.ptr);
}

void write_csv(std::ostream& out, std::span<const double> data,
               std::span<const std::size_t> shape) {
  if (data.empty()) return;
  // A 1-D array is a column: one value per line, i.e. rows of width 1.
  const std::size_t width = shape.size() == 1 ? 1 : shape.back();
  const std::size_t lead_dims = shape.size() <= 2 ? 0 : shape.size() - 1;
  std::vector<std::size_t> index(lead_dims, 0);
  std::string line;
  for (std::size_t start = 0; start < data.size(); start += width) {
    line.clear();
    for (std::size_t k = 0; k < lead_dims; ++k) {
      line += std::to_string(index[k]);
      line += ',';
    }
    for (std::size_t j = 0; j < width; ++j) {
      if (j > 0) line += ',';
      append_value(line, data[start + j]);
    }
    line += '\n';
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
    // Odometer over the leading indices, last one fastest (C order).
    for (std::size_t k = lead_dims; k-- > 0;) {
      if (++index[k] < shape[k]) break;
      index[k] = 0;
    }
  }
}

}  // namespace

std::string format_value(double v) {
  std::string s;
  append_value(s, v);
  return s;
}

void write_array(const std::string& path, std::span<const double> data,
                 std::span<const std::size_t> shape, std::ostream& stdout_stream) {
  if (shape.empty() || shape.size() > 4)
    throw std::invalid_argument("write_array: " + std::to_string(shape.size()) +
                                " dimensions, expected 1 to 4");
  std::size_t count = 1;
  for (const std::size_t n : shape) count *= n;
  if (count != data.size())
    throw std::invalid_argument("write_array: the shape holds " + std::to_string(count) +
                                " values, the data has " + std::to_string(data.size()));

  if (path == "-") {
    write_csv(stdout_stream, data, shape);
    stdout_stream.flush();
    if (!stdout_stream) throw std::runtime_error("cannot write to standard output");
    return;
  }
  if (ends_with_npy(path)) {
    write_npy_f8(path, data, shape);
    return;
  }
  std::ofstream out = open_for_writing(path, std::ios::trunc);
  write_csv(out, data, shape);
  out.close();
  if (!out) throw_write_error(path);
}

}  // namespace warpwatch::config
