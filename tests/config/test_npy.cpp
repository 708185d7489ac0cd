// NumPy .npy reading (config/files/npy.cpp) and loading series from it
// (config/files/series_file.cpp).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "warpwatch/config/array_writer.hpp"
#include "warpwatch/config/config_error.hpp"
#include "warpwatch/config/npy.hpp"
#include "warpwatch/config/series_file.hpp"

using namespace warpwatch::config;
using warpwatch::testing::TempDir;

namespace {

void put_le(std::string& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

// A .npy file built byte by byte: magic, version, header length, dict, data.
std::string npy_file(int major, const std::string& dict, const std::string& data) {
  std::string header = dict;
  const std::size_t prefix = major == 1 ? 10 : 12;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  put_le(out, header.size(), major == 1 ? 2 : 4);
  return out + header + data;
}

std::string dict(const std::string& descr, const std::string& shape, bool fortran = false) {
  return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
         ", 'shape': " + shape + ", }";
}

std::string f8_bytes(const std::vector<double>& values) {
  std::string out;
  for (const double v : values) put_le(out, std::bit_cast<std::uint64_t>(v), 8);
  return out;
}

std::string f4_bytes(const std::vector<float>& values) {
  std::string out;
  for (const float v : values) put_le(out, std::bit_cast<std::uint32_t>(v), 4);
  return out;
}

void expect_error(const std::function<void()>& load, const std::string& file,
                  const std::string& text) {
  try {
    load();
    ADD_FAILURE() << "expected a ConfigError containing '" << text << "'";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.where().file, file) << e.what();
    EXPECT_EQ(e.where().line, 0) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos)
        << e.what() << " lacks: " << text;
  }
}

SeriesFileOptions columns(std::optional<std::size_t> time_column = {}, double time_scale = 1.0) {
  SeriesFileOptions o;
  o.layout = SeriesLayout::columns;
  o.time_column = time_column;
  o.time_scale = time_scale;
  return o;
}

}  // namespace

TEST(Npy, Version1Float64OneDimensional) {
  TempDir dir;
  const auto path =
      dir.write("wave.npy", npy_file(1, dict("<f8", "(4,)"), f8_bytes({0.5, -2, 1e-3, 7})));
  const auto series = load_series_file(path);
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].name, "wave");
  EXPECT_EQ(series[0].dims, 1u);
  EXPECT_EQ(series[0].values, (std::vector<float>{0.5f, -2.0f, 1e-3f, 7.0f}));
  EXPECT_TRUE(series[0].times.empty());
}

TEST(Npy, Version2Float32RowsLayout) {
  TempDir dir;
  const auto path = dir.write(
      "set.npy", npy_file(2, dict("<f4", "(2, 3)"), f4_bytes({1, 2, 3, 4.25f, -5, 0.1f})));
  const auto series = load_series_file(path);
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0].name, "set:0");
  EXPECT_EQ(series[1].name, "set:1");
  EXPECT_EQ(series[0].values, (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(series[1].values, (std::vector<float>{4.25f, -5, 0.1f}));
}

TEST(Npy, Version3AndPythonTwoSpellings) {
  TempDir dir;
  // Double quotes, an 'L' suffix as Python 2 numpy wrote it, keys in another order.
  const auto path = dir.write(
      "old.NPY", npy_file(3, "{\"shape\": (1L, 2L), \"fortran_order\": False, \"descr\": \"<f8\"}",
                          f8_bytes({3, 4})));
  const auto series = load_series_file(path);
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].name, "old");
  EXPECT_EQ(series[0].values, (std::vector<float>{3, 4}));
}

TEST(Npy, ColumnsLayoutWithTimeColumn) {
  TempDir dir;
  // Three samples: time in ms, then two channels.
  const auto path = dir.write(
      "mv.npy", npy_file(1, dict("<f8", "(3, 3)"), f8_bytes({0, 1, 2, 500, 3, 4, 1250, 5, 6})));
  const auto s = load_series_file(path, columns(0, 1e-3))[0];
  EXPECT_EQ(s.name, "mv");
  EXPECT_EQ(s.dims, 2u);
  EXPECT_EQ(s.values, (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(s.times, (std::vector<double>{0.0, 0.5, 1.25}));

  const auto all = load_series_file(path, columns())[0];
  EXPECT_EQ(all.dims, 3u);
  EXPECT_EQ(all.length(), 3u);

  const auto one_d = dir.write("uni.npy", npy_file(1, dict("<f4", "(2,)"), f4_bytes({8, 9})));
  const auto u = load_series_file(one_d, columns())[0];
  EXPECT_EQ(u.dims, 1u);
  EXPECT_EQ(u.values, (std::vector<float>{8, 9}));
}

TEST(Npy, ReadNpyKeepsFloat64Exactly) {
  TempDir dir;
  const std::vector<double> values{0.1, -1e300, 1e-310};
  const auto path = dir.write("x.npy", npy_file(1, dict("<f8", "(3,)"), f8_bytes(values)));
  const NpyArray a = read_npy(path);
  EXPECT_EQ(a.shape, (std::vector<std::size_t>{3}));
  EXPECT_EQ(a.item_bytes, 8u);
  EXPECT_EQ(a.data, values);
}

TEST(Npy, UnsupportedFiles) {
  TempDir dir;
  const auto fortran =
      dir.write("f.npy", npy_file(1, dict("<f8", "(2, 2)", true), f8_bytes({1, 2, 3, 4})));
  expect_error([&] { load_series_file(fortran); }, fortran, "fortran_order True is not supported");
  const auto int64 = dir.write("i.npy", npy_file(1, dict("<i8", "(2,)"), f8_bytes({1, 2})));
  expect_error([&] { load_series_file(int64); }, int64, "unsupported dtype '<i8'");
  const auto big_endian = dir.write("b.npy", npy_file(1, dict(">f8", "(2,)"), f8_bytes({1, 2})));
  expect_error([&] { load_series_file(big_endian); }, big_endian, "unsupported dtype '>f8'");
  const auto three_d =
      dir.write("3d.npy", npy_file(1, dict("<f4", "(1, 2, 2)"), f4_bytes({1, 2, 3, 4})));
  expect_error([&] { load_series_file(three_d); }, three_d, "wrong dimensions");
  const auto scalar = dir.write("0d.npy", npy_file(1, dict("<f8", "()"), f8_bytes({1})));
  expect_error([&] { load_series_file(scalar); }, scalar, "wrong dimensions");
  const auto version = dir.write("v4.npy", npy_file(4, dict("<f8", "(1,)"), f8_bytes({1})));
  expect_error([&] { load_series_file(version); }, version, "unsupported .npy format version 4.0");
  const auto not_npy = dir.write("text.npy", "1,2,3\n");
  expect_error([&] { load_series_file(not_npy); }, not_npy, "not a .npy file");
  const auto bad_header =
      dir.write("h.npy", npy_file(1, "{'descr': '<f8', 'shape': (1,)}", f8_bytes({1})));
  expect_error([&] { load_series_file(bad_header); }, bad_header, "bad .npy header");
  const auto missing = dir.file("missing.npy");
  expect_error([&] { load_series_file(missing); }, missing, "cannot open file");
}

TEST(Npy, TruncatedData) {
  TempDir dir;
  const auto path = dir.write("t.npy", npy_file(1, dict("<f4", "(2, 3)"), f4_bytes({1, 2, 3, 4})));
  expect_error([&] { load_series_file(path); }, path,
               "truncated data: shape (2, 3) of '<f4' needs 24 bytes, the file has 16");
  std::string cut = npy_file(2, dict("<f8", "(1,)"), f8_bytes({1}));
  cut.resize(20);  // inside the header
  const auto header_cut = dir.write("h.npy", cut);
  expect_error([&] { load_series_file(header_cut); }, header_cut, "truncated .npy header");
}

TEST(Npy, NanOrInfiniteNamesSeriesAndSample) {
  TempDir dir;
  const auto path = dir.write(
      "n.npy", npy_file(1, dict("<f4", "(2, 3)"), f4_bytes({1, 2, 3, 4, 5, std::nanf("")})));
  expect_error([&] { load_series_file(path); }, path, "series 1, sample 2: NaN or infinite value");
  const auto inf =
      dir.write("i.npy", npy_file(1, dict("<f8", "(2, 2)"), f8_bytes({0, 1, 1, HUGE_VAL})));
  expect_error([&] { load_series_file(inf, columns()); }, inf,
               "series 0, sample 1, column 1: NaN or infinite value");
  const auto big = dir.write("big.npy", npy_file(1, dict("<f8", "(1,)"), f8_bytes({1e300})));
  expect_error([&] { load_series_file(big); }, big, "out of the float32 range");
}

TEST(Npy, EmptyArraysAndBadTimes) {
  TempDir dir;
  const auto no_rows = dir.write("e.npy", npy_file(1, dict("<f8", "(0, 3)"), ""));
  expect_error([&] { load_series_file(no_rows); }, no_rows, "empty array");
  const auto no_samples = dir.write("z.npy", npy_file(1, dict("<f8", "(3, 0)"), ""));
  expect_error([&] { load_series_file(no_samples); }, no_samples, "no samples");
  const auto empty_1d = dir.write("e1.npy", npy_file(1, dict("<f8", "(0,)"), ""));
  expect_error([&] { load_series_file(empty_1d); }, empty_1d, "no samples");
  expect_error([&] { load_series_file(empty_1d, columns()); }, empty_1d, "empty array");
  const auto back =
      dir.write("back.npy", npy_file(1, dict("<f8", "(3, 2)"), f8_bytes({0, 1, 2, 1, 2, 1})));
  expect_error([&] { load_series_file(back, columns(0)); }, back,
               "series 0, sample 2: time 2 s does not increase");
}

TEST(Npy, RoundTripThroughWriteArray) {
  const auto seed = warpwatch::testing::test_seed();
  std::mt19937_64 rng(seed);
  TempDir dir;
  std::uniform_int_distribution<std::size_t> extent(1, 40);
  std::normal_distribution<float> value(0.0f, 100.0f);
  for (int round = 0; round < 20; ++round) {
    const bool two_d = round % 2 == 1;
    std::vector<std::size_t> shape{extent(rng)};
    if (two_d) shape.push_back(extent(rng));
    std::size_t count = 1;
    for (const std::size_t n : shape) count *= n;
    // float32 values, so that the double written and the float read back agree exactly.
    std::vector<double> data(count);
    for (double& v : data) v = value(rng);
    const auto path = dir.file("round" + std::to_string(round) + ".npy");
    std::ostringstream unused;
    write_array(path, data, shape, unused);
    EXPECT_TRUE(unused.str().empty());

    EXPECT_EQ(read_npy(path).data, data);
    const auto rows = load_series_file(path);
    ASSERT_EQ(rows.size(), two_d ? shape[0] : 1u);
    const std::size_t length = two_d ? shape[1] : shape[0];
    for (std::size_t i = 0; i < rows.size(); ++i) {
      ASSERT_EQ(rows[i].length(), length);
      for (std::size_t j = 0; j < length; ++j)
        ASSERT_EQ(rows[i].values[j], static_cast<float>(data[i * length + j]))
            << "series " << i << " sample " << j << " of shape " << shape.size() << "-D";
    }
    const auto cols = load_series_file(path, columns())[0];
    EXPECT_EQ(cols.length(), shape[0]);
    EXPECT_EQ(cols.dims, two_d ? shape[1] : 1u);
    EXPECT_EQ(std::vector<double>(cols.values.begin(), cols.values.end()), data);
  }
}

// SeriesReader: the parts of a series, concatenated, are load_series_file's series (values
// and times), whatever the part size; .npy files are read part by part, others whole first.
TEST(SeriesReader, PartsConcatenatedAreTheWholeSeries) {
  TempDir dir;
  std::string f4, f8;
  std::vector<float> values;
  for (int i = 0; i < 1001; ++i) {
    const float v = static_cast<float>(std::sin(i * 0.1) * 3);
    values.push_back(v);
    f4 += f4_bytes({v});
    f8 += f8_bytes({i * 0.5, v, -v});
  }
  std::string text;
  for (int i = 0; i < 1001; ++i) text += std::to_string(i) + "," + std::to_string(values[i]) + "\n";
  const auto one = dir.write("one.npy", npy_file(1, dict("<f4", "(1001,)"), f4));
  const auto timed = dir.write("timed.npy", npy_file(2, dict("<f8", "(1001, 3)"), f8));
  const auto csv = dir.write("text.csv", text);
  SeriesFileOptions picked = columns(0);
  picked.value_columns = {2};
  const std::vector<std::pair<std::string, SeriesFileOptions>> cases{{one, SeriesFileOptions{}},
                                                                     {one, columns()},
                                                                     {timed, columns(0)},
                                                                     {timed, picked},
                                                                     {csv, columns(0)}};
  for (const auto& [path, options] : cases) {
    for (const std::size_t part : {1u, 7u, 1000u, 5000u}) {
      SCOPED_TRACE(path + ", parts of " + std::to_string(part));
      const LoadedSeries whole = load_series_file(path, options).front();
      SeriesReader reader(path, options);
      EXPECT_EQ(reader.streamed(), path != csv);
      EXPECT_EQ(reader.dims(), whole.dims);
      EXPECT_EQ(reader.length(), whole.length());
      EXPECT_EQ(reader.has_times(), !whole.times.empty());
      LoadedSeries all, next;
      while (reader.next(part, next) > 0) {
        EXPECT_LE(next.length(), part);
        all.values.insert(all.values.end(), next.values.begin(), next.values.end());
        all.times.insert(all.times.end(), next.times.begin(), next.times.end());
      }
      EXPECT_EQ(all.values, whole.values);
      EXPECT_EQ(all.times, whole.times);
      EXPECT_EQ(next.name, whole.name);
    }
  }
}

TEST(SeriesReader, BadFilesAreErrorsNamingThem) {
  TempDir dir;
  // The header says 10 samples, the file holds 9: found before any part is read.
  const auto short_file = dir.write(
      "short.npy", npy_file(1, dict("<f4", "(10,)"), f4_bytes({1, 2, 3, 4, 5, 6, 7, 8, 9})));
  expect_error([&] { SeriesReader r(short_file); }, short_file,
               "truncated data: shape (10,) of '<f4' needs 40 bytes, the file has 36");
  // Times that stop increasing across two parts: the part that holds the fault says where.
  const auto back = dir.write(
      "back.npy", npy_file(1, dict("<f8", "(4, 2)"), f8_bytes({0, 1, 1, 2, 2, 3, 1.5, 4})));
  SeriesReader r(back, columns(0));
  LoadedSeries part;
  EXPECT_EQ(r.next(3, part), 3u);
  expect_error([&] { r.next(3, part); }, back, "series 0, sample 3: time 1.5 s does not increase");
  // Several series are not a recording.
  const auto rows =
      dir.write("rows.npy", npy_file(1, dict("<f4", "(2, 2)"), f4_bytes({1, 2, 3, 4})));
  expect_error([&] { SeriesReader r2(rows); }, rows, "holds 2 series: a recording is one series");
}
