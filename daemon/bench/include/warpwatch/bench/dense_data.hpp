// Real data with dense matches for the benchmarks and the tests: heartbeats of the UCR
// archive's ECG200 (../shared/data), as streams where a beat occurs about every 150
// samples and as patterns that match most of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace warpwatch::bench {

// The rows of a UCR archive .tsv file (a class label, then the values, tab-separated):
// each row's values. Throws std::runtime_error when the file cannot be read or a row
// holds no value.
std::vector<std::vector<float>> read_ucr_rows(const std::string& path);

// The folder of ECG200_TRAIN.tsv and ECG200_TEST.tsv: $WARPWATCH_DATA_DIR when set, else
// the source tree's ../shared/data (compiled in).
std::string default_data_dir();

// ECG200's beats (96 samples each): TRAIN's make patterns, TEST's make streams.
struct Beats {
  std::vector<std::vector<float>> train, test;
};
// Loads (once per folder) and returns them; throws std::runtime_error naming the missing file.
const Beats& ecg_beats(const std::string& dir);

// `beat` stretched or squeezed to `length` samples (linear interpolation; length >= 2).
std::vector<float> resample(const std::vector<float>& beat, std::size_t length);

// A pattern of m samples x dims: component k is TRAIN beat (index + 11 k) resampled to m.
std::vector<float> beat_pattern(const Beats& beats, std::size_t index, std::size_t m,
                                std::size_t dims);

// A stream of beats and gaps, produced in pieces of any size: each occurrence is a TEST
// beat (component k: another beat) resampled to m +- 10% samples, then a random-walk gap of
// 0..2 x (150 - m) samples (0..m/4 for m >= 150), so a beat starts about every
// max(150, 1.1 m) samples.
class BeatStream {
 public:
  BeatStream(const Beats& beats, std::size_t m, std::size_t dims, std::uint64_t seed);
  // The next `samples` samples, row-major (samples x dims), into `out`.
  void fill(float* out, std::size_t samples);
  // One occurrence as the stream would hold it (for calibrating thresholds).
  std::vector<float> occurrence();

 private:
  void next_segment();
  const Beats& beats_;
  std::size_t m_, dims_;
  std::mt19937_64 rng_;
  std::vector<float> segment_;  // the current beat or gap, samples x dims
  std::size_t at_ = 0;          // next sample of segment_
  bool beat_next_ = true;
  std::vector<float> last_;  // the last sample written, per component
};

// A threshold under which most occurrences of `pattern` (m x dims, beat_pattern) in a
// BeatStream match in stream mode (dtw, sq): the 60th percentile of the pattern's
// whole-series dtw distance to 20 occurrences (a subsequence's SPRING distance is at most
// that of the occurrence it lies in).
double dense_threshold(const Beats& beats, const std::vector<float>& pattern, std::size_t m,
                       std::size_t dims, std::uint64_t seed);

}  // namespace warpwatch::bench
