// The load generator behind `warpwatch load` and `warpwatch bench e2e`: N streams of
// small noise with copies of patterns planted at known sample indices, sent as ingest
// messages `[stream id][payload]` (docs/ingest.md §1) at a paced or unlimited
// rate, and an account of what was sent: samples, messages, bytes, the planted
// occurrences with the wall time each one's last sample was sent, the time spent blocked
// by backpressure and the generator's own CPU time.
//
// Cheap to run: each stream's noise is computed once (a ring of noise_length samples);
// binary frames with a period are encoded once per ring block by stream::encode_frame and
// then only their header (t0) changes, explicit timestamps patch the timestamps, and only
// frames holding planted samples are copied. Text goes through stream::encode_text.
//
// Stream k is `<prefix><k>`. Sample i of stream k has timestamp t0 + i * period and the
// value noise(k, i mod noise_length) plus, inside an occurrence, the pattern's value.
// Occurrence j of stream k starts at phase(k) + j * every + jitter(k, j) with phase(k) in
// [0, every) and jitter(k, j) in [0, jitter], both drawn from the seed, and plants
// pattern (k + j) mod Q; `every` must exceed the longest pattern plus the jitter, so that
// occurrences never touch (at least one noise sample between two).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "warpwatch/kernels/params.hpp"
#include "warpwatch/stream/sources/curve.hpp"

namespace warpwatch::bench {

// A pattern to plant: `length()` samples of `dims` values, row-major.
struct LoadPattern {
  std::string name;
  std::size_t dims = 1;
  std::vector<float> values;
  std::size_t length() const { return dims ? values.size() / dims : 0; }
};

// The built-in shapes, named `shape<k>`: 5, -5, a smooth body within [-2, 2], -5, 5 (the
// structure of the tests' bump pattern, with steeper ends), every value a multiple of
// 2^-10 (exact in decimal, so a configuration file carries it bit for bit). Bodies are
// drawn from `seed` and kept only when their dtw distance (sq cost) to every shape kept
// before is at least builtin_min_separation. Throws std::invalid_argument when `count`
// such shapes of `length` (>= 6) cannot be found.
std::vector<LoadPattern> builtin_patterns(std::size_t count, std::size_t length,
                                          std::uint64_t seed = 1);
inline constexpr double builtin_min_separation = 16.0;
// The stream-mode dtw (sq cost) threshold under which planted copies of built-in shapes are
// reported exactly at their planted span, and nothing else is, when the noise amplitude is
// at most builtin_max_noise(length): a copy costs at most length * noise^2 <= 1, a span
// that is not a planted one at least ~8 (an end of +-5 on noise or on a body).
inline constexpr double builtin_threshold = 4.0;
double builtin_max_noise(std::size_t length);  // sqrt(1 / length)

enum class LoadEncoding {
  binary,           // WWF frames with t0 and a period
  binary_explicit,  // WWF frames with one timestamp per sample
  text,             // t_ns,v1,... lines
};
std::string_view to_string(LoadEncoding encoding);

// Faults mixed into a run (LoadFaults; the soak, tests/soak). Each fault message is
// rejected whole by the daemon, under the reason in brackets, and changes nothing of the
// good messages: their samples, timestamps and planted occurrences are those of a run
// without faults.
enum class LoadFault {
  malformed,   // the message's binary frame cut short, for its stream (malformed_frame)
  invalid_id,  // the message under an id with a space, an escape sequence and a byte that
               // is not UTF-8 (invalid_stream_id)
  unknown_id,  // the message under the valid id "<prefix>unknown-<k>" (unknown_stream while
               // auto-creation is off)
  oversized,   // oversized_bytes zero bytes for the message's stream (oversized_message when
               // id and payload exceed limits.max_message_bytes)
};
inline constexpr std::size_t load_fault_kinds = 4;
std::string_view to_string(LoadFault fault);
std::optional<LoadFault> parse_load_fault(std::string_view name);

struct LoadFaults {
  std::uint64_t every = 0;          // one fault after every `every`-th good message; 0 = none
  std::vector<LoadFault> kinds;     // used in turn
  std::size_t oversized_bytes = 0;  // the oversized payload's size (> 0 when that kind is used)
};

struct LoadOptions {
  std::size_t streams = 1;
  std::string stream_prefix = "load-";
  std::size_t frame = 100;       // samples per message (the last one may be shorter)
  double rate_per_stream = 0.0;  // samples per second per stream; 0 = as fast as possible
  LoadEncoding encoding = LoadEncoding::binary;
  std::int64_t t0_ns = 0;              // timestamp of sample 0; 0 = the wall clock at start
  std::int64_t period_ns = 1'000'000;  // timestamp spacing
  std::vector<LoadPattern> patterns;   // planted in turn; all of one dims
  std::uint64_t every = 1000;          // occurrence spacing per stream; 0 = plant nothing
  std::uint64_t jitter = 0;            // extra offset of each occurrence, 0..jitter
  double noise = 0.05;                 // noise amplitude: uniform in [-noise, noise]
  std::uint64_t seed = 1;              // noise, phases and jitters
  std::size_t dims = 1;                // values per sample when no pattern says
  // Bounds: the run stops at the first one reached (0 = none); without any it runs until
  // `stop` is set.
  std::uint64_t samples_per_stream = 0;
  std::uint64_t total_samples = 0;
  double duration_s = 0.0;
  std::size_t noise_length = 0;  // ring of noise per stream; 0 = automatic (<= 4096)
  LoadFaults faults;
};

// One planted occurrence: pattern `pattern` (an index into LoadOptions::patterns) at
// samples start_index..end_index (inclusive) of stream `stream` (an index: the id is
// LoadGenerator::stream_id).
struct PlantedOccurrence {
  std::size_t stream = 0;
  std::size_t pattern = 0;
  std::uint64_t start_index = 0;
  std::uint64_t end_index = 0;
  std::int64_t sent_ns = 0;  // system clock when the message with end_index was sent
};

struct LoadResult {
  std::uint64_t samples = 0;
  std::uint64_t messages = 0;
  std::uint64_t payload_bytes = 0;
  std::uint64_t id_bytes = 0;  // the stream-id parts
  std::uint64_t samples_per_stream_min = 0, samples_per_stream_max = 0;
  std::vector<PlantedOccurrence> occurrences;    // every occurrence sent whole, in send order
  std::uint64_t occurrences_cut = 0;             // begun but not finished when the run stopped
  std::int64_t started_ns = 0, finished_ns = 0;  // system clock
  double seconds = 0.0;                          // first send to the end of the last one
  double cpu_seconds = 0.0;                      // the generating thread's CPU time
  double blocked_seconds = 0.0;       // time spent waiting for the transport to take a message
  std::uint64_t blocked_sends = 0;    // messages that had to wait
  std::uint64_t unsent_messages = 0;  // 1 when a bound ended the run while a message waited
  // Fault messages sent (LoadOptions::faults), by kind; not in samples or messages.
  std::array<std::uint64_t, load_fault_kinds> faults{};
  std::string stopped_by;  // samples, total, duration, stop
  double samples_per_s() const { return seconds > 0 ? static_cast<double>(samples) / seconds : 0; }
};

// Where messages go. try_send must never block; it returns false when the transport
// cannot take the message now (a PUSH socket at its high-water mark, or without a peer).
class MessageSink {
 public:
  virtual ~MessageSink() = default;
  virtual bool try_send(std::string_view stream_id, std::span<const std::byte> payload) = 0;
  // Waits at most `limit` for the transport to take messages again.
  virtual void wait_writable(std::chrono::milliseconds limit) = 0;
};

// A ZeroMQ socket: PUSH (default) or PUB (with ZMQ_XPUB_NODROP: at the high-water mark it
// refuses instead of dropping), connected to or bound at `endpoint`.
struct ZmqSinkOptions {
  std::string endpoint = "tcp://127.0.0.1:5555";
  bool bind = false;
  bool pub = false;
  int send_hwm = 1000;    // messages queued before a send waits
  int linger_ms = 10000;  // how long closing waits to deliver what is queued
  // CURVE (stream/curve.hpp); unset = plain. A server (bind) accepts the keys of
  // `allowed_clients` through a ZAP handler of its own, which logs its refusals to `auth_log`.
  std::optional<stream::CurveSocketOptions> curve = std::nullopt;
  std::vector<std::string> allowed_clients = {};
  std::function<void(std::string_view)> auth_log = nullptr;
};
class ZmqSink final : public MessageSink {
 public:
  explicit ZmqSink(const ZmqSinkOptions& options);
  ~ZmqSink() override;
  bool try_send(std::string_view stream_id, std::span<const std::byte> payload) override;
  void wait_writable(std::chrono::milliseconds limit) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// An MQTT client (libmosquitto) that publishes a message for stream S on the topic
// <topic_prefix>S, for a daemon's `mqtt` source (its stream_template maps the topic back).
// try_send refuses while the client is not connected (it reconnects by itself, every
// second): the generator then waits, as it does for backpressure, so a broker that is down
// delays the run and drops nothing the client still holds; what the broker had taken when
// it died is lost. libmosquitto does not push back on a connected publisher:
// pace the run (`rate_per_stream`). Closing waits up to linger_ms for what is queued.
struct MqttSinkOptions {
  std::string host = "127.0.0.1";
  int port = 1883;
  std::string topic_prefix;
  int qos = 0;
  int linger_ms = 10000;
};
class MqttSink final : public MessageSink {
 public:
  explicit MqttSink(const MqttSinkOptions& options);  // connects in the background
  ~MqttSink() override;
  bool try_send(std::string_view stream_id, std::span<const std::byte> payload) override;
  void wait_writable(std::chrono::milliseconds limit) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class LoadGenerator {
 public:
  // Validates the options (std::invalid_argument naming the problem) and computes the
  // noise and frame templates.
  explicit LoadGenerator(LoadOptions options);
  ~LoadGenerator();
  LoadGenerator(const LoadGenerator&) = delete;
  LoadGenerator& operator=(const LoadGenerator&) = delete;

  const LoadOptions& options() const { return options_; }
  std::size_t dims() const { return dims_; }
  std::size_t noise_length() const { return noise_length_; }
  std::string stream_id(std::size_t k) const;
  std::int64_t timestamp(std::uint64_t i) const;
  // Occurrence j of stream k (sent_ns 0). Requires a planting plan (every > 0).
  PlantedOccurrence planned(std::size_t k, std::uint64_t j) const;
  // The occurrences of stream k that lie wholly in samples [0, samples).
  std::vector<PlantedOccurrence> planned_within(std::size_t k, std::uint64_t samples) const;
  // Samples [first, first + count) of stream k as sent: count x dims values.
  std::vector<float> values(std::size_t k, std::uint64_t first, std::size_t count) const;

  // Sends until a bound is reached or `stop` is set; may be called again (each run starts
  // at sample 0 with the same data). A message the sink refuses is retried until it is
  // taken (the time is counted as blocked) or a bound or `stop` ends the run: nothing is
  // dropped. One run at a time (it patches its frame templates in place).
  LoadResult run(MessageSink& sink, const std::atomic<bool>* stop = nullptr) const;

 private:
  struct Templates;
  float noise_at(std::size_t k, std::uint64_t i, std::size_t c) const;
  LoadOptions options_;
  std::size_t dims_ = 1;
  std::size_t noise_length_ = 0;
  std::size_t max_pattern_length_ = 0;
  std::vector<float> noise_;  // streams x noise_length x dims
  std::unique_ptr<Templates> templates_;
};

// The plan checked by the scalar reference: streams 0..streams-1, samples [0, samples) fed
// to a reference Matcher with every pattern at `params` (the mode, metric, band,
// normalization and threshold the daemon is given), its reports (with the final flush)
// compared with the planted occurrences: in window mode the occurrence's window is the
// planted span, so the same comparison holds.
struct PlanCheck {
  std::size_t planted = 0, reported = 0, exact = 0;
  std::vector<std::string> problems;  // the first few differences, described
  bool ok() const { return problems.empty() && exact == planted && reported == planted; }
};
PlanCheck check_plan_with_reference(const LoadGenerator& generator,
                                    const kernels::MatchParams& params, std::size_t streams,
                                    std::uint64_t samples);
// Stream-mode dtw (sq cost) at `threshold`.
PlanCheck check_plan_with_reference(const LoadGenerator& generator, double threshold,
                                    std::size_t streams, std::uint64_t samples);
// The bench's matching parameters: dtw, sq cost, in stream mode.
kernels::MatchParams stream_match_params(double threshold);

// Window mode's threshold for planted copies of `patterns` (windows of the pattern's length
// ending at every sample; `params` gives the metric, cost, band and normalization, its
// threshold is not read), measured with the reference Matcher:
// - copy: the largest distance of a shape to a copy of itself with noise of +-noise on
//   every sample (random signs, 8 draws a shape: the bench's amplitude at its largest
//   energy; the generator's uniform noise has a third of it);
// - decoy: the smallest distance of a shape to any other window that planted copies make:
//   another shape's copy, and its own copy shifted by 1 to m/2 samples either way (zeros
//   around it, where the bench has noise).
// The threshold is their geometric mean sqrt(copy x decoy): as many times above the worst
// copy as under the nearest decoy. Unlike stream mode's fixed builtin_threshold, it follows
// z-normalization (which divides distances by the window's variance) and the band (which
// raises a decoy's distance). Throws std::invalid_argument when decoy < 4 x copy (less than
// a factor 2 either way: the shapes cannot be told apart at this noise).
struct WindowThreshold {
  double threshold = 0, copy = 0, decoy = 0;
};
WindowThreshold window_threshold(const std::vector<LoadPattern>& patterns, double noise,
                                 const kernels::MatchParams& params, std::uint64_t seed = 1);

// `warpwatch load`'s report: a summary on `out` (at most `list` occurrences listed), and
// the JSON document (options, totals, every occurrence).
void print_load_result(const LoadGenerator& generator, const LoadResult& result, std::ostream& out,
                       std::size_t list = 10);
std::string load_result_json(const LoadGenerator& generator, const LoadResult& result,
                             double process_cpu_seconds);

// CPU time of the calling thread and of the whole process, seconds.
double thread_cpu_seconds();
double process_cpu_seconds();

}  // namespace warpwatch::bench
