// The Matcher's public methods: input checks shared by every backend.
#include "warpwatch/kernels/matcher.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <tuple>

namespace warpwatch::kernels {
namespace {

[[noreturn]] void fail(const std::string& message) { throw std::invalid_argument(message); }

using stream::max_dims;  // SPEC.md 1

}  // namespace

void sort_matches(std::vector<RawMatch>& matches) {
  std::stable_sort(matches.begin(), matches.end(), [](const RawMatch& x, const RawMatch& y) {
    return std::tie(x.stream_id, x.pattern_id, x.end_index) <
           std::tie(y.stream_id, y.pattern_id, y.end_index);
  });
}

void Matcher::add_stream(const StreamDef& stream) {
  if (stream.id.empty()) fail("stream id is empty");
  if (has_stream(stream.id)) fail("stream '" + stream.id + "' already exists");
  if (stream.dims < 1 || stream.dims > max_dims)
    fail("stream '" + stream.id + "': dims must be 1..64");
  if (stream.nominal_period_ns <= 0) fail("stream '" + stream.id + "': nominal period must be > 0");
  do_add_stream(stream);
  streams_.emplace(stream.id, stream);
  last_timestamp_.emplace(stream.id, std::numeric_limits<std::int64_t>::min());
}

std::vector<RawMatch> Matcher::remove_stream(std::string_view stream_id) {
  const auto it = streams_.find(stream_id);
  if (it == streams_.end()) fail("unknown stream '" + std::string(stream_id) + "'");
  auto matches = do_remove_stream(it->second);
  last_timestamp_.erase(last_timestamp_.find(stream_id));
  streams_.erase(it);
  sort_matches(matches);
  return matches;
}

void Matcher::add_pattern(const PatternDef& pattern) {
  const std::string& id = pattern.id;
  if (id.empty()) fail("pattern id is empty");
  if (has_pattern(id)) fail("pattern '" + id + "' already exists");
  if (pattern.dims < 1 || pattern.dims > max_dims) fail("pattern '" + id + "': dims must be 1..64");
  if (pattern.values.size() % pattern.dims != 0)
    fail("pattern '" + id + "': values are not a whole number of samples");
  if (pattern.length() < 2) fail("pattern '" + id + "': needs at least 2 samples");
  for (float v : pattern.values)
    if (!std::isfinite(v)) fail("pattern '" + id + "': values must be finite");
  if (!pattern.times.empty()) {
    if (pattern.times.size() != pattern.length())
      fail("pattern '" + id + "': needs one timestamp per sample");
    for (std::size_t i = 0; i < pattern.times.size(); ++i)
      if (!std::isfinite(pattern.times[i]) || (i > 0 && pattern.times[i] <= pattern.times[i - 1]))
        fail("pattern '" + id + "': timestamps must be finite and increasing");
  }
  try {
    validate(pattern.params);
  } catch (const std::invalid_argument& e) {
    fail("pattern '" + id + "': " + e.what());
  }
  do_add_pattern(pattern);
  patterns_.emplace(id, pattern);
}

std::vector<RawMatch> Matcher::remove_pattern(std::string_view pattern_id) {
  const auto it = patterns_.find(pattern_id);
  if (it == patterns_.end()) fail("unknown pattern '" + std::string(pattern_id) + "'");
  auto matches = do_remove_pattern(it->second);
  patterns_.erase(it);
  sort_matches(matches);
  return matches;
}

std::vector<RawMatch> Matcher::process(std::span<const StreamChunk> batch) {
  std::vector<std::string_view> seen;
  for (const StreamChunk& chunk : batch) {
    const auto it = streams_.find(chunk.stream_id);
    const std::string id(chunk.stream_id);
    if (it == streams_.end()) fail("unknown stream '" + id + "'");
    if (std::find(seen.begin(), seen.end(), chunk.stream_id) != seen.end())
      fail("stream '" + id + "' appears twice in one batch");
    seen.push_back(chunk.stream_id);
    const std::size_t dims = it->second.dims;
    if (chunk.values.size() != chunk.timestamps_ns.size() * dims)
      fail("stream '" + id + "': chunk has " + std::to_string(chunk.values.size()) +
           " values for " + std::to_string(chunk.timestamps_ns.size()) + " samples of dimension " +
           std::to_string(dims));
    std::int64_t last = last_timestamp_.find(chunk.stream_id)->second;
    for (std::int64_t t : chunk.timestamps_ns) {
      if (t <= last) fail("stream '" + id + "': timestamps must strictly increase");
      last = t;
    }
    for (float v : chunk.values)
      if (!std::isfinite(v)) fail("stream '" + id + "': values must be finite");
  }
  auto matches = do_process(batch);
  for (const StreamChunk& chunk : batch)
    if (!chunk.timestamps_ns.empty())
      last_timestamp_.find(chunk.stream_id)->second = chunk.timestamps_ns.back();
  sort_matches(matches);
  return matches;
}

std::vector<RawMatch> Matcher::flush() {
  auto matches = do_flush();
  sort_matches(matches);
  return matches;
}

}  // namespace warpwatch::kernels
