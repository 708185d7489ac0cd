// Writing result arrays (distance matrices, gradients, match tables) for the CLI.
#pragma once

#include <cstddef>
#include <ostream>
#include <span>
#include <string>

namespace warpwatch::config {

// Writes the row-major array `data` of the given `shape` (1 to 4 dimensions; the product
// of `shape` must equal data.size()) to `path`:
// - "*.npy": NumPy format 1.0, dtype '<f8', C order;
// - "-": CSV to `stdout_stream`;
// - any other path: CSV.
// CSV: 1-D one value per line; 2-D one row per line, comma-separated; 3-D and 4-D one line
// per vector of the last dimension, led by its indices: "i,j,v0,v1,...". Values are the
// shortest text that reads back to the same double; "inf", "-inf", "nan" as such.
// Throws std::invalid_argument for a bad shape and std::runtime_error naming the path when
// the file cannot be written.
void write_array(const std::string& path, std::span<const double> data,
                 std::span<const std::size_t> shape, std::ostream& stdout_stream);

// One value as write_array prints it in CSV.
std::string format_value(double v);

}  // namespace warpwatch::config
