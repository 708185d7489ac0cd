// An ingest source as a plugin (docs/architecture.md §3.1), in the manner of fluent-bit's
// input plugins: one folder (daemon/plugins/in_<kind>/) holds the kind's options struct and
// option rows (config::SourceKind), the factory of its running source, its line in
// `warpwatch check-config`, and its /metrics families. The registry (registry.hpp) lists
// them; nothing else names a kind.
#pragma once

#include <zmq.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>

#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/config/source_kinds.hpp"
#include "warpwatch/plugins/metric_families.hpp"
#include "warpwatch/plugins/recorded_input.hpp"
#include "warpwatch/service/logging.hpp"
#include "warpwatch/stream/ingest_hub.hpp"
#include "warpwatch/stream/source.hpp"
#include "warpwatch/stream/sources/curve.hpp"
#include "warpwatch/stream/sources/kafka_source.hpp"

namespace warpwatch::plugins {

// What the pipeline lends a source it makes.
struct SourceContext {
  const config::DaemonConfig& config;  // the whole configuration (limits, checkpoints)
  std::size_t index = 0;               // the entry's place in `ingest:`
  stream::IngestHub& hub;
  zmq::context_t& zmq;  // the pipeline's ZeroMQ context
  service::Logger log;
  // CURVE (docs/operations.md §6): a bound socket's settings under a ZAP domain, a client's
  // for a publisher's key (nullopt: CURVE is off); and, once a socket bound, its name in the
  // log and the counters (without CURVE: a warning when it is bound beyond loopback).
  std::function<std::optional<stream::CurveSocketOptions>(const std::string& domain)> curve_server;
  std::function<std::optional<stream::CurveSocketOptions>(const std::string& server_key)>
      curve_client;
  std::function<void(const std::string& domain, const std::string& name,
                     const std::string& endpoint)>
      bound;
  // A Kafka source's changelog of the matching state (the pipeline's, through the scheduler).
  std::function<stream::KafkaStateStore*()> state_store;
};

// A source made from its entry: not started.
struct MadeSource {
  std::unique_ptr<stream::Source> source;
  // The address it bound or connected (wildcard ports resolved): Pipeline::ingest_endpoints.
  std::optional<std::string> endpoint;
};

struct SourcePlugin {
  // Its option rows, options struct and checks: what the configuration reads.
  config::SourceKind config;
  // The source of an entry of this kind, as load_daemon_config checked it. Throws
  // std::runtime_error (naming the address) when a socket cannot bind.
  MadeSource (*make)(const config::IngestSource& entry, const SourceContext& context) = nullptr;
  // `warpwatch check-config`'s line for the entry: what it takes and from where, never a
  // credential.
  std::string (*describe)(const config::IngestSource& entry) = nullptr;
  // Its /metrics families over its sources (this kind's, in configuration order, maybe
  // none); null: it has none.
  void (*families)(MetricFamilies& f, std::span<const stream::Source* const> sources) = nullptr;
  // Its sources end (a replay): the daemon's --exit-when-replayed waits for them.
  bool finite = false;
  // Its sources leave through the scheduler at shutdown (a Kafka consumer's last cut of the
  // state of its partitions): asked to stop first, their requests served while leaving()
  // says they still are. Null: stopped with the others.
  void (*begin_leaving)(stream::Source& source) = nullptr;
  bool (*leaving)(const stream::Source& source) = nullptr;
  // Streams whose matching state the source keeps itself (a Kafka source's changelog): the
  // checkpoint leaves them out. Null: none.
  void (*own_streams)(const stream::Source& source,
                      std::set<std::string, std::less<>>& streams) = nullptr;
  // For `warpwatch backtest`, which makes no source: the entry's recorded input (a replay's
  // file), and how the entry's line protocol becomes streams (an influx entry's mapping and line
  // limit, which a backtest applies to `.lp` recordings). Null: the kind has none.
  RecordedInput (*recorded)(const config::IngestSource& entry) = nullptr;
  LineInput (*line_input)(const config::IngestSource& entry) = nullptr;
};

// An entry of the kind `Options::kind` made of its options (tests, and configurations made
// in code).
template <class Options>
config::IngestSource source_entry(Options options, config::SourceLocation where = {}) {
  return {std::string(Options::kind), std::make_shared<const Options>(std::move(options)),
          std::move(where)};
}

}  // namespace warpwatch::plugins
