// The load generator (load_generator.hpp): built-in shapes, the planting plan, the noise
// and frame templates, and the paced send loop.
#include "warpwatch/bench/load_generator.hpp"

#include <time.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <thread>

#include "warpwatch/base/timestamps.hpp"
#include "warpwatch/stream/decode/frame.hpp"

namespace warpwatch::bench {
namespace {

using Steady = std::chrono::steady_clock;

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A hash of (seed, tag, a, b): the plan's draws do not depend on the order they are made in.
std::uint64_t draw(std::uint64_t seed, std::uint64_t tag, std::uint64_t a, std::uint64_t b = 0) {
  return splitmix64(splitmix64(splitmix64(seed ^ (tag * 0x632be59bd9b4e019ULL)) + a) + b);
}

double unit(std::uint64_t bits) {  // [0, 1)
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

// Whole-series dtw with sq cost (docs/spec.md §4.1), double precision: the built-in shapes'
// separation.
double dtw_sq(const std::vector<float>& a, const std::vector<float>& b) {
  const std::size_t n = a.size(), m = b.size();
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> prev(m + 1, inf), cur(m + 1, inf);
  prev[0] = 0.0;
  for (std::size_t i = 1; i <= n; ++i) {
    cur[0] = inf;
    for (std::size_t j = 1; j <= m; ++j) {
      const double d = static_cast<double>(a[i - 1]) - static_cast<double>(b[j - 1]);
      cur[j] = d * d + std::min({cur[j - 1], prev[j - 1], prev[j]});
    }
    std::swap(prev, cur);
  }
  return prev[m];
}

float quantize(double v) {  // to a multiple of 2^-10
  return static_cast<float>(std::round(v * 1024.0) / 1024.0);
}

bool valid_stream_id_char(unsigned char c) {
  return c > 0x20 && c != 0x7f;
}

constexpr std::size_t header_bytes = 12;  // magic, flags, reserved, dims, count

}  // namespace

std::string_view to_string(LoadEncoding encoding) {
  switch (encoding) {
    case LoadEncoding::binary:
      return "binary";
    case LoadEncoding::binary_explicit:
      return "binary_explicit";
    case LoadEncoding::text:
      return "text";
  }
  return "?";
}

namespace {
constexpr std::pair<std::string_view, LoadFault> fault_names[] = {
    {"malformed", LoadFault::malformed},
    {"invalid-id", LoadFault::invalid_id},
    {"unknown-id", LoadFault::unknown_id},
    {"oversized", LoadFault::oversized},
};
}  // namespace

std::string_view to_string(LoadFault fault) {
  for (const auto& [name, f] : fault_names)
    if (f == fault) return name;
  return "?";
}

std::optional<LoadFault> parse_load_fault(std::string_view name) {
  for (const auto& [n, f] : fault_names)
    if (n == name) return f;
  return std::nullopt;
}

double builtin_max_noise(std::size_t length) {
  return length ? std::sqrt(1.0 / static_cast<double>(length)) : 0.0;
}

std::vector<LoadPattern> builtin_patterns(std::size_t count, std::size_t length,
                                          std::uint64_t seed) {
  if (length < 6) throw std::invalid_argument("built-in shapes need a length of at least 6");
  const std::size_t body = length - 4;
  std::vector<LoadPattern> out;
  constexpr std::uint64_t tries_per_shape = 2000;
  std::uint64_t candidate = 0;
  for (std::size_t k = 0; k < count; ++k) {
    bool found = false;
    for (std::uint64_t t = 0; t < tries_per_shape && !found; ++t, ++candidate) {
      // A sum of three sines of 0.5 to 3.5 periods over the body, scaled to [-2, 2].
      std::vector<double> v(body, 0.0);
      for (std::uint64_t h = 0; h < 3; ++h) {
        const double amplitude = 0.3 + unit(draw(seed, 1, candidate, 3 * h));
        const double periods = 0.5 + 3.0 * unit(draw(seed, 1, candidate, 3 * h + 1));
        const double phase = 2.0 * std::numbers::pi * unit(draw(seed, 1, candidate, 3 * h + 2));
        for (std::size_t i = 0; i < body; ++i) {
          const double x = (static_cast<double>(i) + 0.5) / static_cast<double>(body);
          v[i] += amplitude * std::sin(2.0 * std::numbers::pi * periods * x + phase);
        }
      }
      double peak = 0.0;
      for (double x : v) peak = std::max(peak, std::abs(x));
      if (peak < 1e-9) continue;
      LoadPattern p;
      p.name = "shape" + std::to_string(k);
      p.values = {5.0f, -5.0f};
      for (double x : v) p.values.push_back(quantize(2.0 * x / peak));
      p.values.push_back(-5.0f);
      p.values.push_back(5.0f);
      found = std::all_of(out.begin(), out.end(), [&](const LoadPattern& q) {
        return dtw_sq(p.values, q.values) >= builtin_min_separation;
      });
      if (found) out.push_back(std::move(p));
    }
    if (!found)
      throw std::invalid_argument("cannot find " + std::to_string(count) +
                                  " distinct built-in shapes of length " + std::to_string(length) +
                                  " (found " + std::to_string(out.size()) +
                                  "): use fewer or longer patterns");
  }
  return out;
}

// Binary frames of whole ring blocks, encoded once: block b of stream k holds noise samples
// [b * frame, (b + 1) * frame) of the ring.
struct LoadGenerator::Templates {
  std::size_t frame_bytes = 0;
  std::size_t values_offset = 0;  // where the float32 values start
  std::size_t blocks = 0;         // per stream
  std::vector<std::byte> bytes;   // streams x blocks x frame_bytes
  std::byte* frame(std::size_t k, std::size_t b) {
    return bytes.data() + (k * blocks + b) * frame_bytes;
  }
};

LoadGenerator::~LoadGenerator() = default;

LoadGenerator::LoadGenerator(LoadOptions options) : options_(std::move(options)) {
  const LoadOptions& o = options_;
  if (o.streams < 1) throw std::invalid_argument("streams must be >= 1");
  if (o.frame < 1 || o.frame > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("frame must be 1 to 2^32-1 samples");
  if (!(o.rate_per_stream >= 0) || !std::isfinite(o.rate_per_stream))
    throw std::invalid_argument("rate must be >= 0");
  if (o.period_ns <= 0) throw std::invalid_argument("the timestamp period must be > 0");
  if (!(o.noise >= 0) || !std::isfinite(o.noise)) throw std::invalid_argument("noise must be >= 0");
  if (!(o.duration_s >= 0) || !std::isfinite(o.duration_s))
    throw std::invalid_argument("duration must be >= 0");
  const std::string last_id = stream_id(o.streams - 1);
  if (last_id.size() > 255 ||
      !std::all_of(o.stream_prefix.begin(), o.stream_prefix.end(),
                   [](char c) { return valid_stream_id_char(static_cast<unsigned char>(c)); }))
    throw std::invalid_argument("stream prefix '" + o.stream_prefix +
                                "' makes invalid stream ids (no whitespace or control "
                                "characters, at most 255 bytes)");
  if (o.faults.every > 0 && o.faults.kinds.empty())
    throw std::invalid_argument("faults every " + std::to_string(o.faults.every) +
                                " messages need at least one kind");
  if (std::find(o.faults.kinds.begin(), o.faults.kinds.end(), LoadFault::oversized) !=
          o.faults.kinds.end() &&
      o.faults.oversized_bytes == 0)
    throw std::invalid_argument("oversized faults need their size in bytes");
  dims_ = o.patterns.empty() ? o.dims : o.patterns.front().dims;
  if (dims_ < 1 || dims_ > stream::max_dims) throw std::invalid_argument("dims must be 1 to 64");
  for (const auto& p : o.patterns) {
    if (p.dims != dims_)
      throw std::invalid_argument("pattern '" + p.name + "' has " + std::to_string(p.dims) +
                                  " values per sample, another has " + std::to_string(dims_) +
                                  ": all patterns of a load need one dims");
    if (p.length() < 1 || p.values.size() != p.length() * p.dims)
      throw std::invalid_argument("pattern '" + p.name + "' is empty or ragged");
    if (!std::all_of(p.values.begin(), p.values.end(), [](float v) { return std::isfinite(v); }))
      throw std::invalid_argument("pattern '" + p.name + "' has a non-finite value");
    max_pattern_length_ = std::max(max_pattern_length_, p.length());
  }
  if (o.every > 0) {
    if (o.patterns.empty())
      throw std::invalid_argument("planting every " + std::to_string(o.every) +
                                  " samples needs a pattern");
    if (o.every <= max_pattern_length_ + o.jitter)
      throw std::invalid_argument("occurrences every " + std::to_string(o.every) +
                                  " samples with jitter " + std::to_string(o.jitter) +
                                  " would touch: the spacing must exceed the longest pattern (" +
                                  std::to_string(max_pattern_length_) + ") plus the jitter");
  }
  if (options_.t0_ns == 0) options_.t0_ns = stream::wall_clock_ns();

  // The ring: at most 4096 samples per stream, at most ~2^24 floats in all, a whole
  // number of frames when frames are small enough for templates.
  const std::size_t per_stream = std::clamp<std::size_t>(
      (std::size_t{1} << 24) / (o.streams * dims_), std::size_t{64}, std::size_t{4096});
  const bool use_templates = o.encoding != LoadEncoding::text && o.frame <= per_stream;
  noise_length_ = o.noise_length ? o.noise_length : per_stream;
  if (use_templates) noise_length_ = (noise_length_ + o.frame - 1) / o.frame * o.frame;
  noise_.resize(o.streams * noise_length_ * dims_);
  for (std::size_t k = 0; k < o.streams; ++k)
    for (std::size_t i = 0; i < noise_length_ * dims_; ++i)
      noise_[k * noise_length_ * dims_ + i] =
          static_cast<float>(o.noise * (2.0 * unit(draw(o.seed, 2, k, i)) - 1.0));

  if (use_templates) {
    templates_ = std::make_unique<Templates>();
    Templates& t = *templates_;
    const bool explicit_ts = o.encoding == LoadEncoding::binary_explicit;
    t.values_offset = header_bytes + (explicit_ts ? 8 * o.frame : 16);
    t.frame_bytes = t.values_offset + 4 * o.frame * dims_;
    t.blocks = noise_length_ / o.frame;
    t.bytes.resize(o.streams * t.blocks * t.frame_bytes);
    stream::Samples s;
    s.dims = dims_;
    for (std::size_t i = 0; i < o.frame; ++i) s.times_ns.push_back(timestamp(i));
    for (std::size_t k = 0; k < o.streams; ++k) {
      for (std::size_t b = 0; b < t.blocks; ++b) {
        const float* first = noise_.data() + (k * noise_length_ + b * o.frame) * dims_;
        s.values.assign(first, first + o.frame * dims_);
        const auto encoded = stream::encode_frame(s, explicit_ts);
        if (encoded.size() != t.frame_bytes)
          throw std::logic_error("load generator: unexpected frame size");
        std::memcpy(t.frame(k, b), encoded.data(), encoded.size());
      }
    }
  }
}

std::string LoadGenerator::stream_id(std::size_t k) const {
  return options_.stream_prefix + std::to_string(k);
}

std::int64_t LoadGenerator::timestamp(std::uint64_t i) const {
  return options_.t0_ns + static_cast<std::int64_t>(i) * options_.period_ns;
}

float LoadGenerator::noise_at(std::size_t k, std::uint64_t i, std::size_t c) const {
  return noise_[(k * noise_length_ + i % noise_length_) * dims_ + c];
}

PlantedOccurrence LoadGenerator::planned(std::size_t k, std::uint64_t j) const {
  const LoadOptions& o = options_;
  if (o.every == 0) throw std::logic_error("no planting plan (every = 0)");
  PlantedOccurrence p;
  p.stream = k;
  p.pattern = (k + j) % o.patterns.size();
  const std::uint64_t phase = draw(o.seed, 3, k) % o.every;
  const std::uint64_t jitter = o.jitter ? draw(o.seed, 4, k, j) % (o.jitter + 1) : 0;
  p.start_index = phase + j * o.every + jitter;
  p.end_index = p.start_index + o.patterns[p.pattern].length() - 1;
  return p;
}

std::vector<PlantedOccurrence> LoadGenerator::planned_within(std::size_t k,
                                                             std::uint64_t samples) const {
  std::vector<PlantedOccurrence> out;
  if (options_.every == 0) return out;
  for (std::uint64_t j = 0;; ++j) {
    const PlantedOccurrence p = planned(k, j);
    if (p.start_index >= samples) break;
    if (p.end_index < samples) out.push_back(p);
  }
  return out;
}

std::vector<float> LoadGenerator::values(std::size_t k, std::uint64_t first,
                                         std::size_t count) const {
  std::vector<float> out(count * dims_);
  for (std::size_t i = 0; i < count; ++i)
    for (std::size_t c = 0; c < dims_; ++c) out[i * dims_ + c] = noise_at(k, first + i, c);
  if (options_.every == 0) return out;
  const std::uint64_t end = first + count;
  // Occurrence j starts in [j * every, (j + 2) * every) and is shorter than every.
  const std::uint64_t j0 = first / options_.every;
  for (std::uint64_t j = j0 > 3 ? j0 - 3 : 0;; ++j) {
    const PlantedOccurrence p = planned(k, j);
    if (p.start_index >= end) break;
    if (p.end_index < first) continue;
    const LoadPattern& pat = options_.patterns[p.pattern];
    for (std::uint64_t i = std::max(first, p.start_index); i <= std::min(end - 1, p.end_index); ++i)
      for (std::size_t c = 0; c < dims_; ++c)
        out[(i - first) * dims_ + c] =
            pat.values[(i - p.start_index) * dims_ + c] + noise_at(k, i, c);
  }
  return out;
}

LoadResult LoadGenerator::run(MessageSink& sink, const std::atomic<bool>* stop) const {
  static_assert(std::endian::native == std::endian::little,
                "frame templates are patched in place: little-endian hosts only");
  const LoadOptions& o = options_;
  const std::size_t n = o.streams, frame = o.frame, d = dims_;
  const bool plant = o.every > 0;
  const bool explicit_ts = o.encoding == LoadEncoding::binary_explicit;
  LoadResult r;
  std::vector<std::string> ids(n);
  for (std::size_t k = 0; k < n; ++k) ids[k] = stream_id(k);
  std::vector<std::uint64_t> next_j(n, 0);     // the first occurrence not yet sent whole
  std::vector<PlantedOccurrence> next_occ(n);  // planned(k, next_j[k])
  std::vector<std::uint64_t> sent_samples(n, 0);
  if (plant)
    for (std::size_t k = 0; k < n; ++k) next_occ[k] = planned(k, 0);
  std::vector<std::byte> scratch;
  stream::Samples samples;
  samples.dims = d;
  std::vector<PlantedOccurrence> completed;
  std::vector<std::pair<PlantedOccurrence, std::uint64_t>> overlays;  // (occurrence, j)

  const double rate = o.rate_per_stream * static_cast<double>(n);  // all streams together
  const auto slack = std::chrono::microseconds(200);  // ahead of schedule before sleeping
  const auto cpu0 = thread_cpu_seconds();
  const auto start = Steady::now();
  r.started_ns = stream::wall_clock_ns();
  const auto deadline =
      start + std::chrono::duration_cast<Steady::duration>(
                  std::chrono::duration<double>(o.duration_s > 0 ? o.duration_s : 0.0));
  const bool timed = o.duration_s > 0;
  auto blocked = Steady::duration::zero();
  bool done = false;
  std::uint64_t faults_sent = 0;

  // Sends one message; a refusal is backpressure: wait, counting the time, never drop.
  // False (and the run is done) when a bound or `stop` ended the wait.
  const auto send = [&](std::string_view id, std::span<const std::byte> payload) {
    if (sink.try_send(id, payload)) return true;
    ++r.blocked_sends;
    const auto b0 = Steady::now();
    bool sent = false;
    while (!sent) {
      if (stop && stop->load(std::memory_order_relaxed)) {
        r.stopped_by = "stop";
        break;
      }
      const auto now = Steady::now();
      if (timed && now >= deadline) {
        r.stopped_by = "duration";
        break;
      }
      auto wait = std::chrono::milliseconds(50);
      if (timed)
        wait = std::min(wait, std::chrono::ceil<std::chrono::milliseconds>(deadline - now));
      sink.wait_writable(wait);
      sent = sink.try_send(id, payload);
    }
    blocked += Steady::now() - b0;
    if (!sent) {
      r.unsent_messages = 1;
      done = true;
    }
    return sent;
  };
  for (std::uint64_t round = 0; !done; ++round) {
    const std::uint64_t i0 = round * frame;
    for (std::size_t k = 0; k < n && !done; ++k) {
      std::size_t count = frame;
      if (o.samples_per_stream) {
        if (i0 >= o.samples_per_stream) {
          r.stopped_by = "samples";
          done = true;
          break;
        }
        count = static_cast<std::size_t>(std::min<std::uint64_t>(count, o.samples_per_stream - i0));
      }
      if (o.total_samples) {
        if (r.samples >= o.total_samples) {
          r.stopped_by = "total";
          done = true;
          break;
        }
        count =
            static_cast<std::size_t>(std::min<std::uint64_t>(count, o.total_samples - r.samples));
      }
      // Bounds in time, and the pace.
      for (;;) {
        if (stop && stop->load(std::memory_order_relaxed)) {
          r.stopped_by = "stop";
          done = true;
          break;
        }
        const auto now = Steady::now();
        if (timed && now >= deadline) {
          r.stopped_by = "duration";
          done = true;
          break;
        }
        if (rate <= 0) break;
        const auto due = start + std::chrono::duration_cast<Steady::duration>(
                                     std::chrono::duration<double>(r.samples / rate));
        if (due <= now + slack) break;
        auto until = std::min(due, now + std::chrono::milliseconds(50));  // see `stop` soon
        if (timed) until = std::min(until, deadline);
        std::this_thread::sleep_until(until);
      }
      if (done) break;

      // The occurrences this frame touches.
      const std::uint64_t i1 = i0 + count;
      overlays.clear();
      completed.clear();
      if (plant) {
        std::uint64_t j = next_j[k];
        PlantedOccurrence p = next_occ[k];
        while (p.start_index < i1) {
          overlays.emplace_back(p, j);
          if (p.end_index >= i1) break;
          completed.push_back(p);
          p = planned(k, ++j);
        }
      }

      // The payload.
      std::span<const std::byte> payload;
      std::string text;
      std::vector<std::byte> encoded;
      if (templates_ && count == frame) {
        Templates& t = *templates_;
        std::byte* tpl = t.frame(k, static_cast<std::size_t>((i0 / frame) % t.blocks));
        std::byte* out = tpl;
        if (!overlays.empty()) {
          scratch.assign(tpl, tpl + t.frame_bytes);
          out = scratch.data();
          for (const auto& [p, j] : overlays) {
            const LoadPattern& pat = o.patterns[p.pattern];
            for (std::uint64_t i = std::max(i0, p.start_index); i <= std::min(i1 - 1, p.end_index);
                 ++i)
              for (std::size_t c = 0; c < d; ++c) {
                std::byte* at = out + t.values_offset + ((i - i0) * d + c) * 4;
                float noise = 0;
                std::memcpy(&noise, at, 4);
                const float v = pat.values[(i - p.start_index) * d + c] + noise;
                std::memcpy(at, &v, 4);
              }
          }
        }
        if (explicit_ts) {
          for (std::size_t s = 0; s < count; ++s) {
            const std::int64_t ts = timestamp(i0 + s);
            std::memcpy(out + header_bytes + 8 * s, &ts, 8);
          }
        } else {
          const std::int64_t t0 = timestamp(i0);
          std::memcpy(out + header_bytes, &t0, 8);
        }
        payload = {out, t.frame_bytes};
      } else {
        samples.times_ns.resize(count);
        for (std::size_t s = 0; s < count; ++s) samples.times_ns[s] = timestamp(i0 + s);
        samples.values.resize(count * d);
        for (std::size_t s = 0; s < count; ++s)
          for (std::size_t c = 0; c < d; ++c) samples.values[s * d + c] = noise_at(k, i0 + s, c);
        for (const auto& [p, j] : overlays) {
          const LoadPattern& pat = o.patterns[p.pattern];
          for (std::uint64_t i = std::max(i0, p.start_index); i <= std::min(i1 - 1, p.end_index);
               ++i)
            for (std::size_t c = 0; c < d; ++c)
              samples.values[(i - i0) * d + c] =
                  pat.values[(i - p.start_index) * d + c] + noise_at(k, i, c);
        }
        if (o.encoding == LoadEncoding::text) {
          text = stream::encode_text(samples);
          payload = std::as_bytes(std::span<const char>(text.data(), text.size()));
        } else {
          encoded = stream::encode_frame(samples, explicit_ts);
          payload = encoded;
        }
      }

      if (!send(ids[k], payload)) break;
      ++r.messages;
      r.samples += count;
      sent_samples[k] += count;
      r.payload_bytes += payload.size();
      r.id_bytes += ids[k].size();
      if (!completed.empty()) {
        const std::int64_t now_ns = stream::wall_clock_ns();
        for (auto& p : completed) {
          p.sent_ns = now_ns;
          r.occurrences.push_back(p);
        }
        next_j[k] += completed.size();
        next_occ[k] = planned(k, next_j[k]);
      }

      // A fault after every `faults.every`-th message: this message as the daemon must
      // refuse it whole.
      if (o.faults.every > 0 && r.messages % o.faults.every == 0) {
        const LoadFault kind = o.faults.kinds[faults_sent % o.faults.kinds.size()];
        std::string fault_id = ids[k];
        std::vector<std::byte> fault;
        switch (kind) {
          case LoadFault::malformed:
            if (stream::is_binary_frame(payload))
              fault.assign(payload.begin(), payload.end());
            else
              fault = stream::encode_frame(samples, false);
            fault.pop_back();  // one byte short of what its header says
            break;
          case LoadFault::invalid_id:
            fault_id = "bad id\x1b[31m" + std::to_string(k) + "\xff";
            fault.assign(payload.begin(), payload.end());
            break;
          case LoadFault::unknown_id:
            fault_id = o.stream_prefix + "unknown-" + std::to_string(k);
            fault.assign(payload.begin(), payload.end());
            break;
          case LoadFault::oversized:
            fault.assign(o.faults.oversized_bytes, std::byte{0});
            break;
        }
        if (!send(fault_id, fault)) break;
        ++r.faults[static_cast<std::size_t>(kind)];
        ++faults_sent;
      }
    }
  }
  const auto end = Steady::now();
  r.finished_ns = stream::wall_clock_ns();
  r.seconds = std::chrono::duration<double>(end - start).count();
  r.blocked_seconds = std::chrono::duration<double>(blocked).count();
  r.cpu_seconds = thread_cpu_seconds() - cpu0;
  r.samples_per_stream_min = *std::min_element(sent_samples.begin(), sent_samples.end());
  r.samples_per_stream_max = *std::max_element(sent_samples.begin(), sent_samples.end());
  if (plant)
    for (std::size_t k = 0; k < n; ++k)
      if (next_occ[k].start_index < sent_samples[k]) ++r.occurrences_cut;
  return r;
}

double thread_cpu_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double process_cpu_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace warpwatch::bench
