// NumPy .npy files (format versions 1.0, 2.0, 3.0): a small reader for float arrays and
// a writer for float64 arrays. Only what warpwatch exchanges with NumPy: little-endian
// '<f4' / '<f8', C order. The format is described in numpy/lib/format.py.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warpwatch::config {

struct NpyArray {
  std::vector<std::size_t> shape;  // as in the header; () is a 0-D scalar
  std::vector<double> data;        // C order, every element widened to double
  std::size_t item_bytes = 8;      // 4 for '<f4', 8 for '<f8'
};

// A .npy file's header: its shape, its element size and where its data starts.
struct NpyHeader {
  std::vector<std::size_t> shape;
  std::size_t item_bytes = 8;   // 4 for '<f4', 8 for '<f8'
  std::size_t data_offset = 0;  // bytes from the file's start
  std::size_t count = 1;        // elements: the product of the shape
};
// The header of a .npy file from its first bytes (at least the preamble and the header);
// the same errors as parse_npy for what the header says. The data is not looked at.
NpyHeader parse_npy_header(std::string_view bytes, const std::string& path);
// The bytes `parse_npy_header` needs: the preamble's header length read from the first 12
// bytes (fewer: 12).
std::size_t npy_header_bytes(std::string_view first_bytes);
// A ConfigError naming the file when `data_bytes` (what the file holds after its header) is
// fewer than the header's shape needs: "truncated data: shape (2, 3) of '<f4' needs 24 bytes,
// the file has 16" (parse_npy's check, and SeriesReader's before it reads a part).
void check_npy_data_bytes(const NpyHeader& header, std::uint64_t data_bytes,
                          const std::string& path);
// One element of the data, little-endian whatever the host, widened to double.
double npy_element(const char* p, std::size_t item_bytes);

// Reads a whole .npy file. Throws ConfigError naming the file for a file that cannot be
// opened, a bad magic or header, a dtype other than '<f4'/'<f8', fortran_order True, or
// fewer data bytes than the shape needs. The number of dimensions is not checked here.
NpyArray read_npy(const std::string& path);
// The same, of a file's bytes in memory (`path` names it in the errors).
NpyArray parse_npy(std::string_view bytes, const std::string& path);

// The 10-or-more-byte preamble and header of a version 1.0 '<f8' C-order file with
// `shape`, padded with spaces so that the data starts at a multiple of 64 bytes.
std::string npy_header_f8(std::span<const std::size_t> shape);

// Writes `data` (C order, product of `shape` elements) as a version 1.0 '<f8' file.
// Throws std::runtime_error naming the path when the file cannot be written.
void write_npy_f8(const std::string& path, std::span<const double> data,
                  std::span<const std::size_t> shape);

}  // namespace warpwatch::config
