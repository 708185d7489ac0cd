// Writing result arrays as CSV and .npy (config/files/array_writer.cpp).
#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "warpwatch/config/array_writer.hpp"
#include "warpwatch/config/npy.hpp"
#include "warpwatch/config/series_file.hpp"

using namespace warpwatch::config;
using warpwatch::testing::TempDir;

namespace {

std::string csv(const std::vector<double>& data, const std::vector<std::size_t>& shape) {
  std::ostringstream out;
  write_array("-", data, shape, out);
  return out.str();
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

constexpr double inf = std::numeric_limits<double>::infinity();

}  // namespace

TEST(ArrayWriter, CsvOneAndTwoDimensions) {
  EXPECT_EQ(csv({1, 0.1, -inf, 1e-300}, {4}), "1\n0.1\n-inf\n1e-300\n");
  EXPECT_EQ(csv({1, 2, 3, 4.5, inf, -0.25}, {2, 3}), "1,2,3\n4.5,inf,-0.25\n");
  // Both NaN signs print as "nan".
  EXPECT_EQ(csv({std::nan(""), -std::nan("")}, {1, 2}), "nan,nan\n");
  EXPECT_EQ(format_value(1.0 / 3.0), "0.3333333333333333");
}

TEST(ArrayWriter, CsvThreeAndFourDimensionsLeadWithIndices) {
  std::vector<double> data(12);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<double>(i);
  EXPECT_EQ(csv(data, {2, 2, 3}), "0,0,0,1,2\n0,1,3,4,5\n1,0,6,7,8\n1,1,9,10,11\n");
  EXPECT_EQ(csv(data, {2, 1, 3, 2}),
            "0,0,0,0,1\n0,0,1,2,3\n0,0,2,4,5\n1,0,0,6,7\n1,0,1,8,9\n1,0,2,10,11\n");
}

TEST(ArrayWriter, EmptyArrays) {
  EXPECT_EQ(csv({}, {0}), "");
  EXPECT_EQ(csv({}, {3, 0}), "");
  TempDir dir;
  const auto path = dir.file("empty.npy");
  std::ostringstream unused;
  write_array(path, {}, std::vector<std::size_t>{0, 5}, unused);
  const NpyArray a = read_npy(path);
  EXPECT_EQ(a.shape, (std::vector<std::size_t>{0, 5}));
  EXPECT_TRUE(a.data.empty());
}

TEST(ArrayWriter, BadShapesAreRejected) {
  std::ostringstream out;
  const std::vector<double> data{1, 2, 3, 4};
  EXPECT_THROW(write_array("-", data, std::vector<std::size_t>{}, out), std::invalid_argument);
  EXPECT_THROW(write_array("-", data, std::vector<std::size_t>{1, 1, 1, 1, 4}, out),
               std::invalid_argument);
  EXPECT_THROW(write_array("-", data, std::vector<std::size_t>{3}, out), std::invalid_argument);
  EXPECT_TRUE(out.str().empty());
}

TEST(ArrayWriter, NpyBytesAreVersion1LittleEndianFloat64) {
  TempDir dir;
  const auto path = dir.file("m.npy");
  std::ostringstream unused;
  write_array(path, std::vector<double>{1, -2, 0.5, 3, 4, 5}, std::vector<std::size_t>{2, 3},
              unused);
  const std::string bytes = read_all(path);
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const std::size_t header_len =
      static_cast<unsigned char>(bytes[8]) |
      (static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8);
  const std::size_t data_start = 10 + header_len;
  EXPECT_EQ(data_start % 64, 0u);  // numpy aligns the data to 64 bytes
  const std::string header = bytes.substr(10, header_len);
  EXPECT_EQ(header.rfind("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", 0), 0u)
      << header;
  EXPECT_EQ(header.back(), '\n');
  ASSERT_EQ(bytes.size(), data_start + 6 * 8);
  // -2.0 is 0xC000000000000000: the sign byte comes last in little-endian order.
  EXPECT_EQ(bytes.substr(data_start + 8, 8), std::string("\0\0\0\0\0\0\0\xc0", 8));
  EXPECT_EQ(read_npy(path).data, (std::vector<double>{1, -2, 0.5, 3, 4, 5}));
  // A 1-D shape is spelled as a Python 1-tuple.
  EXPECT_NE(npy_header_f8(std::vector<std::size_t>{7}).find("'shape': (7,), }"), std::string::npos);
}

TEST(ArrayWriter, CsvFileRoundTripsExactly) {
  const auto seed = warpwatch::testing::test_seed();
  std::mt19937_64 rng(seed);
  TempDir dir;
  std::uniform_int_distribution<std::size_t> extent(1, 30);
  std::uniform_int_distribution<std::uint64_t> bits;
  for (int round = 0; round < 10; ++round) {
    const std::vector<std::size_t> shape{extent(rng), extent(rng)};
    std::vector<double> data(shape[0] * shape[1]);
    // Arbitrary finite doubles: every bit pattern must survive the text round trip.
    for (double& v : data) {
      do {
        v = std::bit_cast<double>(bits(rng));
      } while (!std::isfinite(v));
    }
    const auto path = dir.file("r" + std::to_string(round) + ".csv");
    std::ostringstream unused;
    write_array(path, data, shape, unused);
    std::ifstream in(path);
    std::string line;
    std::size_t k = 0;
    std::size_t lines = 0;
    while (std::getline(in, line)) {
      ++lines;
      std::size_t start = 0;
      while (start <= line.size()) {
        const std::size_t comma = std::min(line.find(',', start), line.size());
        double v = 0;
        const auto r = std::from_chars(line.data() + start, line.data() + comma, v);
        ASSERT_EQ(r.ec, std::errc{}) << line;
        ASSERT_LT(k, data.size());
        ASSERT_EQ(std::bit_cast<std::uint64_t>(v), std::bit_cast<std::uint64_t>(data[k]))
            << "value " << k << " printed as " << line.substr(start, comma - start);
        ++k;
        start = comma + 1;
      }
    }
    EXPECT_EQ(lines, shape[0]);
    EXPECT_EQ(k, data.size());
  }
}

TEST(ArrayWriter, CsvLoadsBackAsSeries) {
  TempDir dir;
  const auto path = dir.file("two.csv");
  std::ostringstream unused;
  write_array(path, std::vector<double>{0.25, 1, -3, 4, 5, 6}, std::vector<std::size_t>{2, 3},
              unused);
  const auto series = load_series_file(path);
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[1].values, (std::vector<float>{4, 5, 6}));
}

TEST(ArrayWriter, UnwritablePathNamesThePath) {
  std::ostringstream unused;
  const std::vector<double> data{1};
  const std::vector<std::size_t> shape{1};
  for (const std::string path : {"/nonexistent/dir/out.csv", "/nonexistent/dir/out.npy"}) {
    try {
      write_array(path, data, shape, unused);
      ADD_FAILURE() << "expected std::runtime_error for " << path;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
}
