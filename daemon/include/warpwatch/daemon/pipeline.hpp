// warpwatchd's pipeline (DESIGN.md "Data flow"): sources -> IngestHub -> scheduler tick ->
// Matcher -> alert rules -> Publisher. Everything the daemon does, in-process, so that
// tests drive it without spawning a process; the signal handling lives in daemon.cpp.
#pragma once

#include <zmq.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/daemon/ingest_hub.hpp"
#include "warpwatch/daemon/publisher.hpp"
#include "warpwatch/daemon/rules.hpp"
#include "warpwatch/daemon/sources.hpp"
#include "warpwatch/kernels/matcher.hpp"
#include "warpwatch/stream/registry.hpp"

namespace warpwatch::daemon {

struct PipelineSummary {
  std::uint64_t batches = 0, samples = 0, matches = 0, events = 0;
  std::uint64_t published = 0, dropped = 0, rejected = 0;
};

class Pipeline {
 public:
  using Log = std::function<void(const std::string&)>;

  // Builds everything and binds/connects every socket (std::runtime_error naming the
  // endpoint when that fails); sources start with start().
  Pipeline(config::DaemonConfig config, Log log);
  ~Pipeline();

  void start();
  // One scheduler round: waits until a tick passes or a batch is full, then matches and
  // publishes what arrived.
  void step();
  // Re-reads the configuration: patterns and rules change in place (unchanged pairs keep
  // their state); on a bad file the running configuration stays and the error is logged.
  void reload(const std::string& path);
  // Every replay source has sent its whole file and its samples were matched.
  bool replays_done() const;
  // Stops ingest, matches what is queued, reports pending candidates (SPEC.md 3.1),
  // publishes, and returns the totals.
  PipelineSummary shutdown();

  const std::string& publish_endpoint() const { return publisher_->endpoint(); }
  std::vector<std::string> ingest_endpoints() const;
  const stream::StreamRegistry& registry() const { return *registry_; }
  const Publisher& publisher() const { return *publisher_; }
  std::string backend_name() const { return std::string(matcher_->name()); }

 private:
  void run_batch();
  void add_patterns(const std::vector<config::Library>& libraries);
  void publish(std::vector<kernels::RawMatch> matches, RuleEngine& rules);

  config::DaemonConfig config_;
  Log log_;
  zmq::context_t context_;
  std::unique_ptr<stream::StreamRegistry> registry_;
  std::unique_ptr<IngestHub> hub_;
  std::unique_ptr<kernels::Matcher> matcher_;
  std::unique_ptr<RuleEngine> rules_;
  std::unique_ptr<Publisher> publisher_;
  std::vector<std::unique_ptr<ZmqSource>> sockets_;
  std::vector<std::unique_ptr<ReplaySource>> replays_;
  std::vector<std::jthread> threads_;
  std::atomic<bool> replay_batches_done_{false};
  PipelineSummary summary_;
  bool stopped_ = false;
};

}  // namespace warpwatch::daemon
