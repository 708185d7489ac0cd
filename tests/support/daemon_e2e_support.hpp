// Shared by the daemon's end-to-end suites (test_daemon_*.cpp): generated streams with
// planted patterns, a base configuration on loopback wildcard ports, a ZeroMQ producer
// and subscriber driven from the test thread, and the reference's matches as the oracle.
#pragma once

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "in_pull/in_pull.hpp"
#include "matching/planted_support.hpp"
#include "test_support.hpp"
#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/kernels/reference.hpp"
#include "warpwatch/service/pipeline.hpp"
#include "warpwatch/stream/decode/frame.hpp"
#include "warpwatch/stream/sources/curve.hpp"

namespace warpwatch::testing {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr std::int64_t kT0 = 1'700'000'000'000'000'000;
constexpr std::int64_t kPeriod = 10'000'000;  // 10 ms

// ---------------------------------------------------------------------------------------
// Generated data: noise with planted copies of patterns whose steep ends (test_cli_search)
// make the true start and end the only cheap places for the pattern's ends.

inline std::vector<float> wave_pattern() {  // -3, 3, two sine periods, 3, -3 (40 samples)
  std::vector<float> p{-3.0f, 3.0f};
  for (int i = 2; i < 38; ++i)
    p.push_back(static_cast<float>(2.0 * std::sin(2.0 * std::numbers::pi * i / 18.0)));
  p.push_back(3.0f);
  p.push_back(-3.0f);
  return p;
}

inline kernels::PatternDef make_pattern(std::string id, std::vector<float> values,
                                        kernels::Mode mode, double threshold) {
  kernels::PatternDef p;
  p.id = std::move(id);
  p.dims = 1;
  p.values = std::move(values);
  p.params.distance.metric = kernels::Metric::dtw;
  p.params.distance.cost = kernels::Cost::sq;
  p.params.mode = mode;
  p.params.threshold = threshold;
  return p;
}

struct Series {
  std::string id;
  std::vector<float> values;
  std::vector<std::int64_t> times;
};

// A stream of `n` noise samples with copies of the patterns planted at `positions`
// (pattern index, start); returns the planted [start, end] per pattern index.
inline Series make_series(std::string id, std::size_t n,
                          const std::vector<std::vector<float>>& patterns,
                          const std::vector<std::pair<std::size_t, std::size_t>>& positions,
                          std::mt19937_64& rng, bool warped = true) {
  std::normal_distribution<float> noise(0.0f, 0.05f);
  std::uniform_int_distribution<int> amount(0, 6);
  Series s;
  s.id = std::move(id);
  s.values.resize(n);
  for (float& x : s.values) x = noise(rng);
  for (const auto& [which, start] : positions) {
    const auto copy =
        warped ? warp(patterns[which], amount(rng), amount(rng), rng) : patterns[which];
    for (std::size_t i = 0; i < copy.size() && start + i < n; ++i)
      s.values[start + i] = copy[i] + noise(rng);
  }
  s.times.resize(n);
  for (std::size_t i = 0; i < n; ++i) s.times[i] = kT0 + static_cast<std::int64_t>(i) * kPeriod;
  return s;
}

inline stream::Samples slice(const Series& s, std::size_t from, std::size_t count) {
  stream::Samples out;
  out.dims = 1;
  out.times_ns.assign(s.times.begin() + static_cast<std::ptrdiff_t>(from),
                      s.times.begin() + static_cast<std::ptrdiff_t>(from + count));
  out.values.assign(s.values.begin() + static_cast<std::ptrdiff_t>(from),
                    s.values.begin() + static_cast<std::ptrdiff_t>(from + count));
  return out;
}

// "pump.00", "pump.01", ...: the e2e suites' stream ids.
inline std::string stream_name(std::size_t k) {
  std::string id = "pump.";
  if (k < 10) id += "0";
  id += std::to_string(k);
  return id;
}

// A pattern that matches every 5 samples: [5, -5] against a series 5, -5, 0, 0, 0, ...
inline std::vector<Series> frequent_series(std::size_t streams, std::size_t n) {
  std::vector<Series> out;
  for (std::size_t k = 0; k < streams; ++k) {
    Series s;
    s.id = stream_name(k);
    for (std::size_t i = 0; i < n; ++i) {
      s.values.push_back(i % 5 == 0 ? 5.0f : i % 5 == 1 ? -5.0f : 0.0f);
      s.times.push_back(kT0 + static_cast<std::int64_t>(i) * kPeriod);
    }
    out.push_back(std::move(s));
  }
  return out;
}

// Samples with `dims` values each, timestamped as samples first_index, first_index + 1,
// ... of a stream that starts at kT0 with period kPeriod.
inline stream::Samples samples_at(std::size_t first_index, std::vector<float> values,
                                  std::size_t dims = 1) {
  stream::Samples s;
  s.dims = dims;
  s.values = std::move(values);
  for (std::size_t i = 0; i < s.values.size() / dims; ++i)
    s.times_ns.push_back(kT0 + static_cast<std::int64_t>(first_index + i) * kPeriod);
  return s;
}

// The reference's matches for whole series (any partition gives the same matches).
inline std::vector<kernels::RawMatch> reference_matches(
    const std::vector<Series>& series, const std::vector<kernels::PatternDef>& patterns,
    bool flush) {
  auto m = kernels::reference::make_matcher();
  for (const auto& s : series) m->add_stream({s.id, 1, kPeriod});
  for (const auto& p : patterns) m->add_pattern(p);
  std::vector<kernels::StreamChunk> chunks;
  for (const auto& s : series) chunks.push_back({s.id, s.values, s.times});
  auto out = m->process(chunks);
  if (flush) {
    auto f = m->flush();
    out.insert(out.end(), f.begin(), f.end());
  }
  kernels::sort_matches(out);
  return out;
}

// ---------------------------------------------------------------------------------------
// The daemon side.

inline config::DaemonConfig base_config(std::vector<std::string> stream_ids,
                                        std::vector<kernels::PatternDef> patterns) {
  config::DaemonConfig c;
  c.instance = "e2e";
  c.backend = kernels::Backend::cpu;
  c.cpu_threads = 2;
  c.tick = 5ms;
  c.batch_samples = 4096;
  plugins::in_pull::PullOptions pull;
  pull.endpoint = "tcp://127.0.0.1:*";
  c.ingest.push_back(plugins::source_entry(pull));
  for (auto& id : stream_ids) {
    config::StreamDecl d;
    d.def = {std::move(id), 1, kPeriod};
    c.live.streams.push_back(d);
  }
  config::Library lib;
  lib.name = "shapes";
  lib.patterns = std::move(patterns);
  for (auto& p : lib.patterns) p.library = lib.name;  // as the configuration reader names them
  c.live.libraries.push_back(lib);
  c.publish_endpoint = "tcp://127.0.0.1:*";
  config::Rule every_match;  // what the configuration file implies when it names no rule
  every_match.name = "default";
  c.live.rules.push_back(every_match);
  return c;
}

struct Received {
  std::string topic;
  nlohmann::json event;
};

// "stream/pattern [start,end]" of each event, sorted: what a test expects of them.
inline std::vector<std::string> event_spans(const std::vector<Received>& events) {
  std::vector<std::string> out;
  for (const auto& e : events)
    out.push_back(e.event.at("stream").get<std::string>() + "/" +
                  e.event.at("pattern").get<std::string>() + " [" +
                  std::to_string(e.event.at("start_index").get<int>()) + "," +
                  std::to_string(e.event.at("end_index").get<int>()) + "]");
  std::sort(out.begin(), out.end());
  return out;
}

// A SUB subscriber of everything, read without blocking from the test thread.
class Subscriber {
 public:
  // `curve`: connect as this CURVE client (stream/curve.hpp); null = plain.
  Subscriber(zmq::context_t& ctx, const std::string& endpoint, int rcvhwm = 0, int rcvbuf = -1,
             const stream::CurveSocketOptions* curve = nullptr)
      : socket_(ctx, zmq::socket_type::sub) {
    if (curve) stream::apply_curve(socket_, *curve);
    if (rcvhwm > 0) socket_.set(zmq::sockopt::rcvhwm, rcvhwm);
    if (rcvbuf > 0) socket_.set(zmq::sockopt::rcvbuf, rcvbuf);
    socket_.set(zmq::sockopt::linger, 0);
    socket_.set(zmq::sockopt::subscribe, "");
    socket_.connect(endpoint);
  }
  void drain() {
    for (;;) {
      std::vector<zmq::message_t> parts;
      if (!zmq::recv_multipart(socket_, std::back_inserter(parts), zmq::recv_flags::dontwait))
        return;
      ASSERT_EQ(parts.size(), 2u);
      events.push_back({parts[0].to_string(), nlohmann::json::parse(parts[1].to_string_view())});
    }
  }
  // Reads until `n` events arrived or `limit` (scaled) passed.
  void wait_for(std::size_t n, std::chrono::milliseconds limit) {
    const auto deadline = Clock::now() + scaled(limit);
    while (events.size() < n && Clock::now() < deadline) {
      zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLIN, 0};
      zmq::poll(&item, 1, 20ms);
      drain();
    }
  }
  std::vector<Received> events;

 private:
  zmq::socket_t socket_;
};

class Producer {
 public:
  Producer(zmq::context_t& ctx, const std::string& endpoint,
           const stream::CurveSocketOptions* curve = nullptr)
      : socket_(ctx, zmq::socket_type::push) {
    if (curve) stream::apply_curve(socket_, *curve);
    socket_.set(zmq::sockopt::linger, 2000);
    socket_.set(zmq::sockopt::sndhwm, 0);
    socket_.connect(endpoint);
  }
  void send(const std::string& id, const void* data, std::size_t size) {
    socket_.send(zmq::buffer(id), zmq::send_flags::sndmore);
    socket_.send(zmq::const_buffer(data, size), zmq::send_flags::none);
  }
  void send(const std::string& id, const std::vector<std::byte>& payload) {
    send(id, payload.data(), payload.size());
  }
  void send(const std::string& id, const std::string& payload) {
    send(id, payload.data(), payload.size());
  }
  void send_parts(const std::vector<std::string>& parts) {
    for (std::size_t i = 0; i < parts.size(); ++i)
      socket_.send(zmq::buffer(parts[i]),
                   i + 1 < parts.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
  }

 private:
  zmq::socket_t socket_;
};

// Every series in binary frames of `chunk` samples, the streams interleaved.
inline void send_all(Producer& push, const std::vector<Series>& series, std::size_t chunk) {
  for (std::size_t i = 0;; i += chunk) {
    bool any = false;
    for (const auto& s : series)
      if (i < s.values.size()) {
        push.send(s.id,
                  stream::encode_frame(slice(s, i, std::min(chunk, s.values.size() - i)), false));
        any = true;
      }
    if (!any) return;
  }
}

// Calls step() until `done` or `limit` (scaled); returns whether `done` held.
template <class Done>
inline bool step_until(service::Pipeline& p, Done done, std::chrono::milliseconds limit,
                       Subscriber* sub = nullptr) {
  const auto deadline = Clock::now() + scaled(limit);
  while (Clock::now() < deadline) {
    p.step();
    if (sub) sub->drain();
    if (done()) return true;
  }
  return false;
}

}  // namespace warpwatch::testing
