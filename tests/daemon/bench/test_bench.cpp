// `warpwatch bench`, run in-process with --quick: every row's cells follow from its shape,
// times are positive, the JSON carries the rows, and a backend that cannot run here fails
// clearly. No timing thresholds: performance targets live in the bench, not in tests.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "cli_test_support.hpp"
#include "test_support.hpp"
#include "warpwatch/kernels/backends.hpp"

namespace {

using nlohmann::json;
using warpwatch::testing::run_cli;
using warpwatch::testing::TempDir;

json read_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);  // throws (failing the test) when the file is not JSON
}

std::uint64_t dim(const json& measurement, const char* name) {
  return measurement.at("dims").at(name).get<std::uint64_t>();
}

// Checks one measurement (a row, or its reference subset) against its shape's formula.
void expect_consistent(const json& m, const std::string& case_name) {
  SCOPED_TRACE(case_name + ": " + m.at("shape").get<std::string>());
  const bool stream =
      case_name == "stream_dtw" || case_name == "threads" || case_name == "stream_matrix";
  const std::uint64_t per_run =
      stream ? dim(m, "streams") * dim(m, "patterns") * dim(m, "chunk") * dim(m, "m")
             : dim(m, "rows") * dim(m, "cols") * dim(m, "length") * dim(m, "length");
  if (stream) {
    EXPECT_EQ(dim(m, "pairs"), dim(m, "streams") * dim(m, "patterns"));
  }
  const std::uint64_t runs = m.at("runs").get<std::uint64_t>();
  EXPECT_EQ(runs, stream ? dim(m, "batches") : dim(m, "repeat"));
  EXPECT_EQ(m.at("cells_per_run").get<std::uint64_t>(), per_run);
  EXPECT_EQ(m.at("cells").get<std::uint64_t>(), per_run * runs);
  EXPECT_EQ(m.at("seconds").at("runs").size(), runs);
  const json& s = m.at("seconds");
  EXPECT_GT(s.at("min").get<double>(), 0.0);
  EXPECT_LE(s.at("min").get<double>(), s.at("median").get<double>());
  EXPECT_LE(s.at("median").get<double>(), s.at("max").get<double>());
  EXPECT_GT(m.at("cells_per_s").get<double>(), 0.0);
  // A backend that disagrees with the shape on the work done is reported, never hidden.
  EXPECT_FALSE(m.at("extra").contains("backend_counted_cells"));
}

struct BenchRun {
  warpwatch::testing::CliResult cli;
  json doc;
};

BenchRun run_quick(const TempDir& dir, const std::string& backend,
                   std::vector<std::string> extra = {}) {
  const std::string path = dir.file(backend + ".json");
  std::vector<std::string> args = {"bench", "--backend", backend, "--quick", "--repeat",
                                   "2",     "--batches", "3",     "--json",  path};
  args.insert(args.end(), extra.begin(), extra.end());
  BenchRun r{run_cli(args), {}};
  EXPECT_EQ(r.cli.status, 0) << r.cli.err;
  if (r.cli.status == 0) r.doc = read_json(path);
  return r;
}

std::set<std::string> case_names(const json& doc) {
  std::set<std::string> names;
  for (const json& row : doc.at("rows")) names.insert(row.at("case").get<std::string>());
  return names;
}

TEST(Bench, ReferenceQuickRowsFollowTheirShapes) {
  TempDir dir;
  const BenchRun r = run_quick(dir, "reference");
  ASSERT_EQ(r.cli.status, 0);
  EXPECT_EQ(r.doc.at("backend"), "reference");
  EXPECT_EQ(r.doc.at("threads"), 1);
  EXPECT_TRUE(r.doc.at("machine").contains("cpu"));
  EXPECT_FALSE(r.doc.at("date").get<std::string>().empty());
  EXPECT_TRUE(r.doc.contains("simd_target"));
  EXPECT_EQ(r.doc.at("failed"), 0);
  EXPECT_EQ(case_names(r.doc),
            (std::set<std::string>{"stream_dtw", "whole_dtw", "twed_allpairs", "twed_long"}));
  for (const json& row : r.doc.at("rows")) {
    EXPECT_TRUE(row.at("error").is_null());
    expect_consistent(row, row.at("case"));
    EXPECT_TRUE(row.at("reference").is_null());  // the reference is not compared with itself
    EXPECT_GT(row.at("ceiling_cells_per_s").get<double>(), 0.0);
    EXPECT_NE(r.cli.out.find(row.at("case").get<std::string>()), std::string::npos);
  }
}

TEST(Bench, CpuQuickRowsCarryReferenceCeilingAndSpeedup) {
  TempDir dir;
  const BenchRun r = run_quick(dir, "cpu");
  ASSERT_EQ(r.cli.status, 0);
  EXPECT_EQ(r.doc.at("backend"), "cpu");
  EXPECT_GE(r.doc.at("threads").get<unsigned>(), 1u);
  EXPECT_GT(r.doc.at("calibration").at("float_ops_per_s").get<double>(), 0.0);
  EXPECT_EQ(case_names(r.doc), (std::set<std::string>{"stream_dtw", "whole_dtw", "twed_allpairs",
                                                      "twed_long", "threads"}));
  std::vector<unsigned> thread_rows;
  for (const json& row : r.doc.at("rows")) {
    const std::string name = row.at("case");
    EXPECT_TRUE(row.at("error").is_null());
    expect_consistent(row, name);
    ASSERT_TRUE(row.at("reference").is_object()) << name;
    expect_consistent(row.at("reference"), name);
    EXPECT_GT(row.at("ratio").get<double>(), 0.0);
    EXPECT_GT(row.at("ceiling_cells_per_s").get<double>(), 0.0);
    EXPECT_GT(row.at("ceiling_fraction").get<double>(), 0.0);
    if (name == "stream_dtw") {
      EXPECT_TRUE(row.at("extra").contains("state_bytes_per_s"));
    }
    if (name == "threads") thread_rows.push_back(row.at("threads").get<unsigned>());
  }
  ASSERT_EQ(thread_rows.size(), 2u);
  EXPECT_EQ(thread_rows[0], 1u);
  EXPECT_EQ(thread_rows[1], r.doc.at("threads").get<unsigned>());
  EXPECT_TRUE(r.doc.at("rows").back().at("extra").contains("speedup_vs_1_thread"));
}

TEST(Bench, SizeOptionsOverrideTheDefaults) {
  TempDir dir;
  const BenchRun r = run_quick(dir, "reference",
                               {"--case", "stream_dtw,whole_dtw", "--pairs", "6", "--patterns", "3",
                                "--m", "5", "--chunk", "7,2", "--series", "4", "--length", "9"});
  ASSERT_EQ(r.cli.status, 0);
  ASSERT_EQ(r.doc.at("rows").size(), 3u);  // two chunk sizes, one length
  for (const json& row : r.doc.at("rows")) expect_consistent(row, row.at("case"));
  const json& first = r.doc.at("rows")[0];
  EXPECT_EQ(dim(first, "streams"), 2u);
  EXPECT_EQ(dim(first, "m"), 5u);
  EXPECT_EQ(dim(first, "chunk"), 7u);
  EXPECT_EQ(dim(r.doc.at("rows")[1], "chunk"), 2u);
  EXPECT_EQ(dim(r.doc.at("rows")[2], "cols"), 4u);
  EXPECT_EQ(dim(r.doc.at("rows")[2], "length"), 9u);
}

// stream_matrix --quick: pairs {1, 64} x chunk {8, 512} x m 64 x d {1, 3} x matches {none,
// dense}. Dense rows are real ECG beats: a match about every 150 samples of a pair.
TEST(Bench, StreamMatrixRowsCarryTheirBoundAndDenseMatches) {
  TempDir dir;
  const std::string path = dir.file("matrix.json");
  // Not run_quick: its 3 batches of 8 samples hold no beat; the matrix sizes its rows.
  BenchRun r{
      run_cli({"bench", "--backend", "cpu", "--quick", "--case", "stream_matrix", "--json", path}),
      {}};
  ASSERT_EQ(r.cli.status, 0) << r.cli.err;
  r.doc = read_json(path);
  ASSERT_EQ(r.doc.at("rows").size(), 16u);
  EXPECT_GT(r.doc.at("calibration").at("copy_bytes_per_s").get<double>(), 0.0);
  std::set<std::pair<std::uint64_t, std::uint64_t>> dims_dense;
  for (const json& row : r.doc.at("rows")) {
    ASSERT_TRUE(row.at("error").is_null()) << row.dump();
    ASSERT_FALSE(row.contains("trimmed")) << row.dump();
    expect_consistent(row, "stream_matrix");
    const json& extra = row.at("extra");
    const double bound = extra.at("bound_cells_per_s").get<double>();
    EXPECT_GT(bound, 0.0);
    EXPECT_LE(bound, row.at("ceiling_cells_per_s").get<double>());
    EXPECT_DOUBLE_EQ(extra.at("fraction_of_bound").get<double>(),
                     row.at("cells_per_s").get<double>() / bound);
    dims_dense.insert({dim(row, "d"), dim(row, "dense")});
    // What auto resolves to for the row's pairs on this machine (kernels/backends.hpp).
    const bool usable = warpwatch::kernels::cuda_status().device_count > 0;
    const std::size_t threads = row.at("threads").get<std::size_t>();
    const bool tiled = dim(row, "m") > 512 && dim(row, "chunk") >= 32;
    const std::size_t per_thread = dim(row, "d") > 1 || tiled ? 256 : 2;
    EXPECT_EQ(row.at("auto_picks").get<std::string>(),
              usable && dim(row, "pairs") >= per_thread * threads ? "cuda" : "cpu");
    if (dim(row, "dense") == 1) {
      SCOPED_TRACE(row.at("shape").get<std::string>());
      EXPECT_GT(extra.at("matches").get<double>(), 0.0);
      EXPECT_GT(extra.at("samples_per_match").get<double>(), 60.0);
      EXPECT_LT(extra.at("samples_per_match").get<double>(), 400.0);
    }
  }
  EXPECT_EQ(dims_dense.size(), 4u);  // d 1 and 3, random walks and ECG
}

TEST(Bench, StreamMatrixTrimsRowsOverTheBudget) {
  TempDir dir;
  const std::string path = dir.file("trim.json");
  const auto r = run_cli({"bench", "--backend", "cpu", "--case", "stream_matrix", "--pairs",
                          "16384", "--chunk", "65536", "--m", "1024", "--dims", "1", "--matches",
                          "none", "--no-reference", "--json", path});
  ASSERT_EQ(r.status, 0) << r.err;
  const json doc = read_json(path);
  ASSERT_EQ(doc.at("rows").size(), 1u);
  EXPECT_NE(doc.at("rows")[0].at("trimmed").get<std::string>().find("exceed the row budget"),
            std::string::npos);
  EXPECT_NE(r.out.find("trimmed"), std::string::npos) << r.out;
}

TEST(Bench, CudaWithoutADeviceFailsClearly) {
  if (warpwatch::kernels::cuda_status().device_count > 0)
    GTEST_SKIP() << "a CUDA device is present";
  TempDir dir;
  const std::string path = dir.file("cuda.json");
  const auto r = run_cli({"bench", "--backend", "cuda", "--quick", "--json", path});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("warpwatch bench: the cuda backend cannot run on this machine"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::ifstream(path).good());  // no report when nothing was measured
}

TEST(Bench, BadOptionsAreRefused) {
  EXPECT_NE(run_cli({"bench", "--case", "nonsense"}).status, 0);
  const auto ragged =
      run_cli({"bench", "--backend", "reference", "--quick", "--pairs", "10", "--patterns", "3"});
  EXPECT_NE(ragged.status, 0);
  EXPECT_NE(ragged.err.find("multiple of --patterns"), std::string::npos) << ragged.err;
  const auto threads = run_cli({"bench", "--backend", "reference", "--quick", "--case", "threads"});
  EXPECT_NE(threads.status, 0);
  EXPECT_NE(threads.err.find("cpu"), std::string::npos) << threads.err;
  EXPECT_NE(run_cli({"bench", "--backend", "reference", "--quick", "--repeat", "0"}).status, 0);
  const auto unwritable = run_cli(
      {"bench", "--backend", "reference", "--quick", "--json", "/nonexistent/dir/out.json"});
  EXPECT_NE(unwritable.status, 0);
  EXPECT_NE(unwritable.err.find("cannot write"), std::string::npos) << unwritable.err;
}

}  // namespace

// window_search --quick: m 64 over 20,000 samples x {random walk, ECG} x band {none, 5%} x
// {top-1, threshold}: effective cells are every window's m x m, the search finds what it
// looks for, and most windows are pruned (the shares add up to at most 1).
TEST(Bench, WindowSearchRowsCountEveryWindowAndThePruning) {
  TempDir dir;
  const std::string path = dir.file("window.json");
  const auto r =
      run_cli({"bench", "--backend", "cpu", "--quick", "--case", "window_search", "--json", path});
  ASSERT_EQ(r.status, 0) << r.err;
  const json doc = read_json(path);
  ASSERT_EQ(doc.at("rows").size(), 8u);
  for (const json& row : doc.at("rows")) {
    SCOPED_TRACE(row.at("shape").get<std::string>());
    ASSERT_TRUE(row.at("error").is_null()) << row.dump();
    const std::uint64_t length = dim(row, "length"), m = dim(row, "m");
    EXPECT_EQ(length, 20000u);
    EXPECT_EQ(row.at("cells_per_run").get<std::uint64_t>(), (length - m + 1) * m * m);
    EXPECT_EQ(row.at("runs").get<std::uint64_t>(), 3u);  // --repeat 5, at most 3 a search
    const json& extra = row.at("extra");
    EXPECT_EQ(extra.at("found").get<double>(), dim(row, "top") == 1 ? 1.0 : 10.0);
    EXPECT_EQ(extra.at("windows").get<double>(), static_cast<double>(length - m + 1));
    double pruned = 0.0;
    for (const char* stage :
         {"pruned_lb_kim", "pruned_lb_keogh_pattern", "pruned_lb_keogh_window", "abandoned"})
      pruned += extra.at(stage).get<double>();
    EXPECT_GT(pruned, 0.5);
    EXPECT_LE(pruned, 1.0);
    EXPECT_GT(row.at("reference").at("cells_per_s").get<double>(), 0.0);
  }
}
