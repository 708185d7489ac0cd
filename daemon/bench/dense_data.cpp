// ECG200 heartbeats as dense-match streams and patterns (dense_data.hpp).
#include "warpwatch/bench/dense_data.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "warpwatch/kernels/reference.hpp"

namespace warpwatch::bench {

std::vector<std::vector<float>> read_ucr_rows(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<std::vector<float>> rows;
  std::size_t line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::istringstream fields(line);
    double label = 0.0, v = 0.0;
    std::vector<float> values;
    fields >> label;
    while (fields >> v) values.push_back(static_cast<float>(v));
    if (!fields.eof() || values.empty())
      throw std::runtime_error(path + ":" + std::to_string(line_number) +
                               ": expected a label and numbers");
    rows.push_back(std::move(values));
  }
  if (rows.empty()) throw std::runtime_error(path + ": no series");
  return rows;
}

std::string default_data_dir() {
  if (const char* dir = std::getenv("WARPWATCH_DATA_DIR"); dir && *dir) return dir;
  return WARPWATCH_SHARED_DATA_DIR;
}

const Beats& ecg_beats(const std::string& dir) {
  static std::mutex mutex;
  static std::map<std::string, Beats> loaded;
  const std::lock_guard lock(mutex);
  auto it = loaded.find(dir);
  if (it == loaded.end()) {
    Beats b{read_ucr_rows(dir + "/ECG200_TRAIN.tsv"), read_ucr_rows(dir + "/ECG200_TEST.tsv")};
    it = loaded.emplace(dir, std::move(b)).first;
  }
  return it->second;
}

std::vector<float> resample(const std::vector<float>& beat, std::size_t length) {
  std::vector<float> out(length);
  const double scale = static_cast<double>(beat.size() - 1) /
                       static_cast<double>(std::max<std::size_t>(1, length - 1));
  for (std::size_t i = 0; i < length; ++i) {
    const double at = static_cast<double>(i) * scale;
    const auto lo = std::min(static_cast<std::size_t>(at), beat.size() - 1);
    const std::size_t hi = std::min(lo + 1, beat.size() - 1);
    const double f = at - static_cast<double>(lo);
    out[i] = static_cast<float>((1.0 - f) * beat[lo] + f * beat[hi]);
  }
  return out;
}

std::vector<float> beat_pattern(const Beats& beats, std::size_t index, std::size_t m,
                                std::size_t dims) {
  std::vector<float> out(m * dims);
  for (std::size_t k = 0; k < dims; ++k) {
    const std::vector<float> c = resample(beats.train[(index + 11 * k) % beats.train.size()], m);
    for (std::size_t i = 0; i < m; ++i) out[i * dims + k] = c[i];
  }
  return out;
}

BeatStream::BeatStream(const Beats& beats, std::size_t m, std::size_t dims, std::uint64_t seed)
    : beats_(beats), m_(m), dims_(dims), rng_(seed), last_(dims, 0.0f) {}

std::vector<float> BeatStream::occurrence() {
  std::uniform_int_distribution<std::size_t> pick(0, beats_.test.size() - 1);
  std::uniform_real_distribution<double> stretch(0.9, 1.1);
  const auto length =
      std::max<std::size_t>(2, static_cast<std::size_t>(static_cast<double>(m_) * stretch(rng_)));
  const std::size_t first = pick(rng_);
  std::vector<float> out(length * dims_);
  for (std::size_t k = 0; k < dims_; ++k) {
    const std::vector<float> c =
        resample(beats_.test[(first + 7 * k) % beats_.test.size()], length);
    for (std::size_t i = 0; i < length; ++i) out[i * dims_ + k] = c[i];
  }
  return out;
}

void BeatStream::next_segment() {
  if (beat_next_) {
    segment_ = occurrence();
  } else {
    const std::size_t most = m_ < 150 ? 2 * (150 - m_) : m_ / 4;
    std::uniform_int_distribution<std::size_t> length(0, most);
    std::normal_distribution<float> step(0.0f, 0.05f);
    segment_.resize(length(rng_) * dims_);
    std::vector<float> x = last_;
    for (std::size_t i = 0; i < segment_.size(); ++i) segment_[i] = x[i % dims_] += step(rng_);
  }
  beat_next_ = !beat_next_;
  at_ = 0;
}

void BeatStream::fill(float* out, std::size_t samples) {
  for (std::size_t i = 0; i < samples; ++i) {
    while (at_ * dims_ >= segment_.size()) next_segment();
    for (std::size_t k = 0; k < dims_; ++k)
      out[i * dims_ + k] = last_[k] = segment_[at_ * dims_ + k];
    ++at_;
  }
}

double dense_threshold(const Beats& beats, const std::vector<float>& pattern, std::size_t m,
                       std::size_t dims, std::uint64_t seed) {
  BeatStream stream(beats, m, dims, seed);
  std::vector<double> d;
  for (int k = 0; k < 20; ++k) {
    const std::vector<float> o = stream.occurrence();
    d.push_back(kernels::reference::dtw({pattern.data(), m, dims},
                                        {o.data(), o.size() / dims, dims}, kernels::Cost::sq));
  }
  std::sort(d.begin(), d.end());
  return d[d.size() * 6 / 10];
}

}  // namespace warpwatch::bench
