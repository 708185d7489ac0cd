// The Pipeline's matching state across restarts (docs/operations.md §4):
// export_streams / import_streams (also what the Kafka source's changelog calls), and the
// checkpoint file under state.dir, written periodically and at shutdown, restored at start.
#include <chrono>
#include <filesystem>
#include <set>
#include <system_error>

#include "warpwatch/base/stream_id.hpp"
#include "warpwatch/base/timestamps.hpp"
#include "warpwatch/kernels/errors.hpp"
#include "warpwatch/kernels/stream_snapshot.hpp"
#include "warpwatch/service/pipeline.hpp"

namespace warpwatch::service {
namespace {}  // namespace

std::filesystem::path Pipeline::checkpoint_path() const {
  return std::filesystem::path(config_.state_dir) / "checkpoint.bin";
}

std::vector<StreamRecord> Pipeline::export_streams(std::span<const std::string> ids, bool release) {
  process(hub_->take_all());  // every accepted sample of the streams is in their state
  return export_records(ids, release, true);
}

std::vector<StreamRecord> Pipeline::export_records(std::span<const std::string> ids, bool release,
                                                   bool drained) {
  collect_all();
  std::vector<std::string> known;  // the named streams the pipeline has, in the order named
  for (const std::string& id : ids)
    if (matcher_->has_stream(id)) known.push_back(id);
  // One export for all of them: the cuda backend then downloads each tile once.
  std::vector<kernels::StreamSnapshot> snapshots = matcher_->export_streams(known);
  std::vector<StreamRecord> out(known.size());
  for (std::size_t k = 0; k < known.size(); ++k) {
    const std::string& id = known[k];
    StreamRecord& r = out[k];
    r.matcher = std::move(snapshots[k]);
    r.cooldowns = rules_->cooldowns_of(id);
    r.validator_last_ns =
        drained ? hub_->last_timestamp_ns(id).value_or(no_timestamp) : no_timestamp;
    for (const kernels::RawMatch& m : nearest_.held(id))
      r.held.push_back(
          {m.pattern_id(), m.distance, m.start_index, m.end_index, m.start_ns, m.end_ns});
    if (!release) continue;
    // Its pending candidates and held matches travel with the state: not reported.
    matcher_->remove_stream(id);
    nearest_.forget(id);
    hub_->forget_stream(id);
    registry_->forget(id);
    arrivals_.forget(id);
    history_.drop(id);
  }
  if (release) refresh_stats();
  return out;
}

std::vector<std::string> Pipeline::import_streams(std::vector<StreamRecord> records) {
  collect_all();
  std::vector<std::string> restored;
  for (StreamRecord& r : records) {
    const kernels::StreamSnapshot& s = r.matcher;
    const std::string& id = s.def.id;
    std::string why;
    const stream::StreamRef stream = registry_->restore(s.def, why);
    if (stream && *stream != s.def)
      why = "its definition changed (dims " + std::to_string(s.def.dims) + " -> " +
            std::to_string(stream->dims) + ", nominal period " +
            std::to_string(s.def.nominal_period_ns) + " -> " +
            std::to_string(stream->nominal_period_ns) + " ns)";
    kernels::StreamRestore pairs;
    if (why.empty()) {
      try {
        pairs = matcher_->import_stream(s, stream);
      } catch (const kernels::DeviceLost&) {
        throw;  // the daemon's to handle: nothing can be matched any more
      } catch (const std::exception& e) {  // a forged snapshot, or no memory for it
        why = e.what();
        // A stream replaced before the failure is added back fresh, so that the registry's
        // streams stay the Matcher's (what fails here again is the daemon's to handle).
        if (stream && !matcher_->has_stream(id)) matcher_->add_stream(stream);
      }
    }
    if (!why.empty()) {
      log_->warn("state of stream '{}' not restored, it starts fresh: {}", id, why);
      continue;
    }
    const std::int64_t last =
        s.next_index > 0 ? std::max(s.last_ns, r.validator_last_ns) : r.validator_last_ns;
    if (last != no_timestamp) hub_->continue_after(stream, last);
    // Its history from the samples the snapshot keeps, at the Matcher's sample indices.
    history_.reset(id, HistorySamples{s.def.dims, s.first_index, s.times_ns, s.values});
    rules_->restore_cooldowns(id, r.cooldowns);
    restore_held(stream ? stream : matcher_->find_stream(id), r.held);
    for (const auto& fresh : pairs.fresh)
      log_->info("stream '{}', pattern '{}': starts fresh ({})", id, fresh.pattern_id,
                 fresh.reason);
    for (const std::string& gone : pairs.dropped)
      log_->info("stream '{}': saved state of pattern '{}' dropped (no such pattern now)", id,
                 gone);
    restored.push_back(id);
  }
  refresh_stats();
  return restored;
}

void Pipeline::restore_held(const kernels::StreamRef& stream, const std::vector<HeldMatch>& held) {
  std::vector<kernels::RawMatch> matches;
  for (const HeldMatch& h : held) {
    kernels::PatternRef pattern = matcher_->find_pattern(h.pattern_id);
    if (!pattern) {
      log_->warn(
          "stream '{}': a held match of pattern '{}' (samples {}..{}) dropped: no such pattern "
          "now",
          stream::printable(stream->id), h.pattern_id, h.start_index, h.end_index);
      continue;
    }
    matches.push_back(
        {stream, std::move(pattern), h.distance, h.start_index, h.end_index, h.start_ns, h.end_ns});
  }
  std::vector<kernels::RawMatch> passed;  // of a library not exclusive any more
  nearest_.restore(stream->id, std::move(matches), passed);
  if (!passed.empty()) publish(std::move(passed), *rules_);
}

bool Pipeline::checkpoint() {
  if (config_.state_dir.empty()) return false;
  const auto began = std::chrono::steady_clock::now();
  const std::filesystem::path path = checkpoint_path();
  try {
    // The streams a Kafka source holds now are kept by its changelog, with the offsets they
    // belong to: a copy here would be restored at start without them (and go stale once the
    // partition moves to another daemon).
    std::set<std::string, std::less<>> kafka_owned;
    for (const auto& [plugin, source] : sources_)
      if (plugin->own_streams) plugin->own_streams(*source, kafka_owned);
    std::vector<std::string> ids;
    for (std::string& id : matcher_->stream_ids())
      if (!kafka_owned.contains(id)) ids.push_back(std::move(id));
    Checkpoint c{.publisher_sequence = sequence_.last(),
                 .written_ns = stream::wall_clock_ns(),
                 .streams = export_records(ids, false, false),
                 .events = encode_events(events_.all())};
    const std::string bytes = encode_checkpoint(c);
    write_file_atomically(path, bytes, 0600);  // the matching state: the daemon's own
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    log_->debug("checkpoint: {} streams, {} bytes in {:.3f} s to {}", c.streams.size(),
                bytes.size(), seconds, path.string());
    const std::lock_guard lock(stats_mu_);
    ++stats_.checkpoints_written;
    stats_.last_checkpoint_seconds = seconds;
    stats_.last_checkpoint_bytes = bytes.size();
    return true;
  } catch (const std::exception& e) {
    log_->error("checkpoint to {} failed: {}", path.string(), e.what());
    const std::lock_guard lock(stats_mu_);
    ++stats_.checkpoints_failed;
    return false;
  }
}

void Pipeline::restore_checkpoint() {
  const std::filesystem::path path = checkpoint_path();
  std::error_code ec;
  std::filesystem::create_directories(config_.state_dir, ec);
  if (ec)
    throw std::runtime_error("state.dir '" + config_.state_dir +
                             "' cannot be created: " + ec.message());
  // Temporary files of writes a crash interrupted (write_file_atomically's ".checkpoint.bin.*"):
  // never read, removed so that a crash loop does not fill the disk.
  for (const auto& entry : std::filesystem::directory_iterator(config_.state_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("." + path.filename().string() + ".")) {
      std::error_code removed;
      std::filesystem::remove(entry.path(), removed);
      log_->info("state: removed {} left by an interrupted checkpoint", entry.path().string());
    }
  }
  if (!std::filesystem::exists(path, ec)) {
    log_->info("state: no checkpoint at {}: matching starts fresh", path.string());
    return;
  }
  Checkpoint c;
  try {
    c = decode_checkpoint(read_whole_file(path));
  } catch (const std::exception& e) {  // CheckpointError, or the file unreadable
    std::filesystem::path aside = path;
    aside += ".bad";
    std::filesystem::rename(path, aside, ec);
    log_->error(
        "state: checkpoint {} refused ({}); {}; matching starts fresh", path.string(), e.what(),
        ec ? "it could not be moved aside: " + ec.message() : "moved aside to " + aside.string());
    return;
  }
  sequence_.continue_after(c.publisher_sequence);
  const std::size_t records = c.streams.size();
  const std::vector<std::string> restored = import_streams(std::move(c.streams));
  if (c.events && events_.enabled()) {
    try {  // the matching state is restored whatever becomes of the events
      std::vector<std::shared_ptr<const StoredEvent>> events = decode_events(*c.events);
      log_->info("state: restored {} stored events", events.size());
      events_.add(std::move(events));
    } catch (const std::exception& e) {
      log_->error("state: the stored events of {} refused ({}); the event store starts empty",
                  path.string(), e.what());
    }
  }
  log_->info(
      "state: restored {} of {} streams from {} (written {} s ago); events go on after "
      "sequence {}",
      restored.size(), records, path.string(),
      (stream::wall_clock_ns() - c.written_ns) / 1'000'000'000, c.publisher_sequence);
}

}  // namespace warpwatch::service
