#include "warpwatch/stream/sources/kafka_source.hpp"

#include <librdkafka/rdkafka.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstring>
#include <stdexcept>

#include "warpwatch/stream/decode/frame.hpp"

namespace warpwatch::stream {
namespace {

constexpr int poll_timeout_ms = 100;  // one poll's wait: stop, pause and backpressure latency
constexpr auto log_interval = std::chrono::seconds(10);

KafkaSource* self(rd_kafka_t* rk) {
  return static_cast<KafkaSource*>(static_cast<KafkaClientContext*>(rd_kafka_opaque(rk))->owner);
}

void require(bool ok, std::string_view what) {
  if (!ok) throw std::invalid_argument("kafka source: " + std::string(what));
}

// The stream a JSON value names for itself ("stream" in the object, or in any element of
// an array) when it is not `key`; nullopt when it names none or only `key`. A value that
// is not JSON names none: the decoder judges it.
std::optional<std::string> other_stream(std::string_view key, std::span<const std::byte> value) {
  const std::string_view text(reinterpret_cast<const char*>(value.data()), value.size());
  if (text.find("\"stream\"") == std::string_view::npos) return std::nullopt;  // the usual case
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  const auto named = [&](const nlohmann::json& e) -> std::optional<std::string> {
    if (!e.is_object()) return std::nullopt;
    const auto it = e.find("stream");
    if (it == e.end()) return std::nullopt;
    if (!it->is_string()) return it->dump();
    if (it->get_ref<const std::string&>() != key) return it->get<std::string>();
    return std::nullopt;
  };
  if (j.is_array()) {
    for (const auto& e : j)
      if (auto other = named(e)) return other;
    return std::nullopt;
  }
  return named(j);
}

}  // namespace

std::string_view deliver_kafka_message(IngestHub& hub, SourceId source, PayloadFormat format,
                                       std::string_view key, bool has_key,
                                       std::span<const std::byte> value, std::int32_t partition,
                                       std::int64_t offset) {
  const auto where = [&] {
    return "kafka message at partition " + std::to_string(partition) + " offset " +
           std::to_string(offset);
  };
  if (!has_key) {
    // Counted as invalid_stream_id ingest-wide and no_key by the source: the line says both.
    hub.offer_rejected("", RejectReason::invalid_stream_id,
                       "no_key: " + where() + " has no key (the key is the stream id)", 1,
                       "kafka partition " + std::to_string(partition));
    return "no_key";
  }
  if (payload_kind(value, format) == PayloadKind::json) {
    if (const auto other = other_stream(key, value)) {
      hub.offer_rejected(key, RejectReason::invalid_stream_id,
                         "stream_mismatch: " + where() + ": its JSON names stream " +
                             stream::quoted(*other) + ", its key another");
      return "stream_mismatch";
    }
  }
  hub.offer_message(source, key, value, format);
  return "";
}

KafkaSource::KafkaSource(KafkaSourceOptions options, IngestHub& hub, KafkaLog log,
                         KafkaStateStore* state)
    : options_(std::move(options)),
      hub_(hub),
      state_(state),
      changelog_(options_.group_id + "-state"),
      consumer_(nullptr, rd_kafka_destroy),
      producer_(nullptr, rd_kafka_destroy) {
  require(!options_.brokers.empty(), "no brokers");
  require(!options_.topic.empty(), "no topic");
  require(!options_.group_id.empty(), "no group_id");
  require(options_.session_timeout.count() >= 1000, "session_timeout below 1 s");
  require(options_.commit_interval.count() >= 0, "negative commit interval");
  context_ = {describe(), log, this};
  producer_context_ = {describe() + ": changelog", std::move(log), this};
  const auto session_ms = options_.session_timeout.count();
  std::map<std::string, std::string> own = {
      {"group.id", options_.group_id},
      {"client.id", "warpwatch"},
      {"enable.auto.commit", "false"},
      {"enable.auto.offset.store", "false"},
      {"auto.offset.reset", "earliest"},  // a partition without a committed offset: all of it
      {"enable.partition.eof", "false"},
      {"session.timeout.ms", std::to_string(session_ms)},
      // At most a third of the session, so that two lost heartbeats do not end it.
      {"heartbeat.interval.ms", std::to_string(std::min<std::int64_t>(3000, session_ms / 3))},
      // Moves only the partitions that change owner (KIP-429): a member that joins or
      // leaves does not stop the others' partitions.
      {"partition.assignment.strategy", "cooperative-sticky"},
      {"statistics.interval.ms", "1000"},  // connected() and the lag
  };
  if (!options_.instance_id.empty()) own.emplace("group.instance.id", options_.instance_id);
  KafkaConf conf = kafka_conf(options_.brokers, options_.properties, own, &context_);
  rd_kafka_conf_set_rebalance_cb(
      conf.get(),
      [](rd_kafka_t* rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* partitions,
         void*) { self(rk)->on_rebalance(err, partitions); });
  rd_kafka_conf_set_stats_cb(conf.get(), [](rd_kafka_t* rk, char* json, size_t size, void*) {
    self(rk)->on_statistics(std::string_view(json, size));
    return 0;  // librdkafka frees the JSON
  });
  std::array<char, 512> error{};
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf.get(), error.data(), error.size());
  if (!rk) throw std::runtime_error(describe() + ": cannot create the consumer: " + error.data());
  conf.release();  // rd_kafka_new owns it now
  consumer_.reset(rk);
  // Every event (logs excepted: librdkafka's threads), statistics included, is served by
  // rd_kafka_consumer_poll on the source's thread.
  rd_kafka_poll_set_consumer(rk);
  if (state_) {
    KafkaConf pconf = kafka_conf(options_.brokers, options_.properties,
                                 {{"client.id", "warpwatch"},
                                  {"message.timeout.ms", "30000"},
                                  {"queue.buffering.max.messages", "1000000"}},
                                 &producer_context_);
    rd_kafka_conf_set_dr_msg_cb(pconf.get(), [](rd_kafka_t* p, const rd_kafka_message_t* m, void*) {
      if (m->err) self(p)->changelog_failed_.fetch_add(1);
    });
    rd_kafka_t* producer = rd_kafka_new(RD_KAFKA_PRODUCER, pconf.get(), error.data(), error.size());
    if (!producer)
      throw std::runtime_error(describe() +
                               ": cannot create the changelog's producer: " + error.data());
    pconf.release();
    producer_.reset(producer);
  }
  source_ = hub_.add_source(describe(), Overflow::wait);
}

KafkaSource::~KafkaSource() {
  stop();
}

std::string KafkaSource::describe() const {
  return "kafka " + options_.topic + " group " + options_.group_id + " at " + options_.brokers;
}

KafkaCounters KafkaSource::counters() const {
  return {.name = describe(),
          .connected = connected(),
          .messages = messages_.load(),
          .no_key = no_key_.load(),
          .stream_mismatch = stream_mismatch_.load(),
          .consume_errors = consume_errors_.load(),
          .partitions_assigned = partitions_assigned_.load(),
          .rebalances = rebalances_.load(),
          .lag = lag_.load(),
          .backpressure = backpressure_.load(),
          .pauses = pauses_.load(),
          .commits_failed = commits_failed_.load(),
          .cuts = cuts_.load(),
          .cuts_failed = cuts_failed_.load(),
          .records_written = records_written_.load(),
          .streams_restored = streams_restored_.load(),
          .records_behind = records_behind_.load()};
}

std::map<std::int32_t, std::set<std::string>> KafkaSource::partition_streams() const {
  const std::lock_guard lock(streams_mu_);
  return streams_;
}

void KafkaSource::run(std::stop_token stop) {
  rd_kafka_t* rk = consumer_.get();
  {
    const std::unique_ptr<rd_kafka_topic_partition_list_t,
                          void (*)(rd_kafka_topic_partition_list_t*)>
        topics(rd_kafka_topic_partition_list_new(1), rd_kafka_topic_partition_list_destroy);
    rd_kafka_topic_partition_list_add(topics.get(), options_.topic.c_str(), RD_KAFKA_PARTITION_UA);
    if (const rd_kafka_resp_err_t err = rd_kafka_subscribe(rk, topics.get()))
      log(KafkaLogLevel::error,
          std::string("cannot subscribe: ") + rd_kafka_err2str(err) + "; the source reads nothing");
  }
  next_commit_ = Clock::now() + options_.commit_interval;
  std::mutex sleep_mu;
  std::condition_variable_any sleep_cv;
  while (!stop.stop_requested()) {
    // Held from a full queue until it is half empty: each resume costs a fetch's round trip
    // (librdkafka discards what was fetched for a paused partition).
    const bool room = holding_ ? hub_.half_empty() : hub_.has_room();
    hold(paused() || !room);
    if (holding_) {
      // Wait for room (counted in the hub as this source's wait) or the pipeline's resume,
      // then serve the group: a poll delivers at most what was fetched before the pause.
      const auto until = Clock::now() + std::chrono::milliseconds(poll_timeout_ms);
      if (!room) {
        hub_.wait_for_room(source_, stop, until);
        if (hub_.has_room() && !hub_.half_empty()) {  // room, not yet half: wait on, serving
          std::unique_lock lock(sleep_mu);
          sleep_cv.wait_until(lock, stop, until, [] { return false; });
        }
      } else {
        std::unique_lock lock(sleep_mu);
        sleep_cv.wait_until(lock, stop, until, [] { return false; });
      }
    }
    if (rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, holding_ ? 0 : poll_timeout_ms)) {
      handle(*m);
      rd_kafka_message_destroy(m);
    }
    if (options_.commit_interval.count() > 0 && Clock::now() >= next_commit_) {
      cut({}, false, false);
      next_commit_ = Clock::now() + options_.commit_interval;
    }
  }
  // Leaves the group: the revocation (on this thread, inside the close) cuts what was
  // handed to the hub, so that the partitions' next owner starts after it.
  if (const rd_kafka_resp_err_t err = rd_kafka_consumer_close(rk))
    log(KafkaLogLevel::warning, std::string("leaving the group: ") + rd_kafka_err2str(err));
  connected_ = false;
  partitions_assigned_ = 0;
}

void KafkaSource::handle(const rd_kafka_message_t& m) {
  if (m.err) {
    ++consume_errors_;
    const auto now = Clock::now();
    if (now - last_error_line_ < log_interval) {
      ++errors_unlogged_;
      return;
    }
    std::string line = "consumer error";
    if (m.rkt)
      line += std::string(" on ") + rd_kafka_topic_name(m.rkt) + " [" +
              std::to_string(m.partition) + "]";
    line += ": " + std::string(rd_kafka_message_errstr(&m));
    if (errors_unlogged_ > 0)
      line += " (" + std::to_string(errors_unlogged_) + " more since the last line)";
    log(KafkaLogLevel::warning, line);
    last_error_line_ = now;
    errors_unlogged_ = 0;
    return;
  }
  ++messages_;
  next_offset_[m.partition] = m.offset + 1;
  const bool has_key = m.key != nullptr && m.key_len > 0;
  const std::string_view key(static_cast<const char*>(m.key), has_key ? m.key_len : 0);
  const std::span<const std::byte> value(static_cast<const std::byte*>(m.payload),
                                         m.payload ? m.len : 0);
  const std::string_view rejected = deliver_kafka_message(hub_, source_, options_.payload, key,
                                                          has_key, value, m.partition, m.offset);
  if (rejected == "no_key") {
    ++no_key_;
    return;
  }
  if (rejected == "stream_mismatch") {
    ++stream_mismatch_;
    return;
  }
  const std::string id(key);
  const std::lock_guard lock(streams_mu_);
  auto& here = streams_[m.partition];
  if (!here.emplace(id).second) return;
  for (auto& [partition, streams] : streams_) {
    if (partition == m.partition) continue;
    const auto it = streams.find(id);
    if (it == streams.end()) continue;
    streams.erase(it);
    if (Clock::now() - last_move_line_ >= log_interval) {
      log(KafkaLogLevel::warning,
          "stream " + stream::quoted(key) + " moved from partition " + std::to_string(partition) +
              " to " + std::to_string(m.partition) +
              ": a stream's messages must keep one key and one partition (the producer's "
              "partitioner, or the topic's partition count, changed)");
      last_move_line_ = Clock::now();
    }
  }
}

void KafkaSource::on_rebalance(int err, rd_kafka_topic_partition_list_t* partitions) {
  ++rebalances_;
  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    assigned(partitions);
  } else if (err == RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS) {
    revoked(partitions);
  } else {
    log(KafkaLogLevel::warning, std::string("rebalance failed: ") +
                                    rd_kafka_err2str(static_cast<rd_kafka_resp_err_t>(err)));
    rd_kafka_assign(consumer_.get(), nullptr);
    std::set<std::int32_t> all;  // given up unwritten: their next owner replays the last cut
    {
      const std::lock_guard lock(streams_mu_);
      for (const auto& [p, streams] : streams_) all.insert(p);
    }
    release(all);
    const std::lock_guard lock(streams_mu_);
    streams_.clear();
    next_offset_.clear();
    partitions_assigned_ = 0;
  }
}

namespace {
bool cooperative(rd_kafka_t* rk) {
  return std::strcmp(rd_kafka_rebalance_protocol(rk), "COOPERATIVE") == 0;
}
std::string partition_names(const rd_kafka_topic_partition_list_t* partitions) {
  std::string out;
  for (int i = 0; i < partitions->cnt; ++i) {
    if (i) out.push_back(',');
    out.append(std::to_string(partitions->elems[i].partition));
  }
  return out.empty() ? "none" : out;
}
}  // namespace

void KafkaSource::assigned(rd_kafka_topic_partition_list_t* partitions) {
  rd_kafka_t* rk = consumer_.get();
  if (state_ && partitions->cnt > 0) restore(partitions);
  rd_kafka_error_t* error = nullptr;
  rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
  if (cooperative(rk))
    error = rd_kafka_incremental_assign(rk, partitions);
  else
    err = rd_kafka_assign(rk, partitions);
  if (error) {
    log(KafkaLogLevel::error,
        std::string("cannot take partitions: ") + rd_kafka_error_string(error));
    rd_kafka_error_destroy(error);
    return;
  }
  if (err) {
    log(KafkaLogLevel::error, std::string("cannot take partitions: ") + rd_kafka_err2str(err));
    return;
  }
  {
    const std::lock_guard lock(streams_mu_);
    for (int i = 0; i < partitions->cnt; ++i) {
      const rd_kafka_topic_partition_t& p = partitions->elems[i];
      streams_[p.partition];
      if (p.offset >= 0) next_offset_[p.partition] = p.offset;  // restored: the cut's
    }
    partitions_assigned_ = streams_.size();
  }
  // Partitions that arrive while the others are held are held too.
  if (holding_) rd_kafka_pause_partitions(rk, partitions);
  connected_ = true;
  log(KafkaLogLevel::info, "assigned partitions " + partition_names(partitions) + " (now " +
                               std::to_string(partitions_assigned_.load()) + ")");
}

void KafkaSource::revoked(rd_kafka_topic_partition_list_t* partitions) {
  rd_kafka_t* rk = consumer_.get();
  const bool lost = rd_kafka_assignment_lost(rk);
  std::set<std::int32_t> gone;
  for (int i = 0; i < partitions->cnt; ++i) gone.insert(partitions->elems[i].partition);
  if (lost) {
    // The group gave them to others already (this member's session ended): a commit would
    // be refused, and their next owner starts from the last cut. Their streams leave.
    log(KafkaLogLevel::warning, "partitions " + partition_names(partitions) +
                                    " lost (the session ended): their next owner replays "
                                    "from the last cut");
    connected_ = false;
    release(gone);
  } else if (!cut(gone, true, true)) {
    release(gone);  // nothing written: their next owner replays from the last cut
  }
  if (cooperative(rk)) {
    if (rd_kafka_error_t* error = rd_kafka_incremental_unassign(rk, partitions)) {
      log(KafkaLogLevel::error,
          std::string("cannot give partitions up: ") + rd_kafka_error_string(error));
      rd_kafka_error_destroy(error);
    }
  } else {
    rd_kafka_assign(rk, nullptr);
  }
  const std::lock_guard lock(streams_mu_);
  for (const std::int32_t p : gone) {
    streams_.erase(p);
    next_offset_.erase(p);
    committed_.erase(p);
  }
  partitions_assigned_ = streams_.size();
  if (!lost)
    log(KafkaLogLevel::info, "revoked partitions " + partition_names(partitions) + " (now " +
                                 std::to_string(partitions_assigned_.load()) + ")");
}

void KafkaSource::hold(bool on) {
  if (on == holding_) return;
  rd_kafka_t* rk = consumer_.get();
  rd_kafka_topic_partition_list_t* assignment = nullptr;
  if (rd_kafka_assignment(rk, &assignment) == RD_KAFKA_RESP_ERR_NO_ERROR && assignment) {
    if (on)
      rd_kafka_pause_partitions(rk, assignment);
    else
      rd_kafka_resume_partitions(rk, assignment);
    rd_kafka_topic_partition_list_destroy(assignment);
  }
  holding_ = on;
  const bool full = on && !paused();
  if (full && !backpressure_) ++pauses_;
  backpressure_ = full;
}

void KafkaSource::release(const std::set<std::int32_t>& partitions) {
  if (!state_) return;
  std::vector<std::pair<std::string, KafkaPosition>> streams;
  {
    const std::lock_guard lock(streams_mu_);
    for (const std::int32_t p : partitions)
      if (const auto it = streams_.find(p); it != streams_.end())
        for (const std::string& id : it->second) streams.emplace_back(id, KafkaPosition{p, 0});
  }
  if (!streams.empty()) state_->cut(streams, true);  // the values are not written
}

bool KafkaSource::cut(std::set<std::int32_t> partitions, bool release, bool sync) {
  if (partitions.empty())
    for (const auto& [p, next] : next_offset_) partitions.insert(p);
  if (!state_) {
    commit(partitions, sync);
    return true;
  }
  const std::optional<bool> usable = changelog_usable();
  if (!usable) {  // no answer about the changelog: neither state nor offsets
    log(KafkaLogLevel::warning, "cut not made: the brokers did not say whether the changelog " +
                                    changelog_ +
                                    " exists (offsets not committed; the next cut asks again)");
    return false;
  }
  if (!*usable) {
    commit(partitions, sync);
    return true;
  }
  // The streams of the partitions that moved since their last cut (with `release`, all: the
  // others are only released, their records at the changelog already).
  std::vector<std::pair<std::string, KafkaPosition>> streams;
  std::set<std::int32_t> moved;
  {
    const std::lock_guard lock(streams_mu_);
    for (const std::int32_t p : partitions) {
      const auto next = next_offset_.find(p);
      const auto done = committed_.find(p);
      const bool changed =
          next != next_offset_.end() && (done == committed_.end() || done->second != next->second);
      if (changed) moved.insert(p);
      if (!changed && !release) continue;
      if (const auto it = streams_.find(p); it != streams_.end())
        for (const std::string& id : it->second)
          streams.emplace_back(id, KafkaPosition{p, changed ? next->second : 0});
    }
  }
  if (streams.empty() && moved.empty()) return true;
  const auto values = state_->cut(streams, release);
  if (!values) {
    log(KafkaLogLevel::warning, "cut of partitions not made: the pipeline is stopping");
    ++cuts_failed_;
    return false;
  }
  std::map<std::string, std::int32_t, std::less<>> partition_of;
  for (const auto& [id, position] : streams) partition_of[id] = position.partition;
  std::vector<std::pair<std::int32_t, KafkaStateStore::Value>> records;
  for (const KafkaStateStore::Value& v : *values) {
    const std::int32_t p = partition_of.at(v.stream);
    if (moved.contains(p)) records.emplace_back(p, v);
  }
  if (!write_changelog(records)) {
    ++cuts_failed_;
    log(KafkaLogLevel::error,
        "cut failed: the changelog " + changelog_ +
            " did not take every record; offsets not committed (the next cut tries again)");
    return false;
  }
  records_written_ += records.size();
  ++cuts_;
  if (!moved.empty()) commit(moved, sync);  // only those written: never an idle one's
  return true;
}

bool KafkaSource::write_changelog(
    const std::vector<std::pair<std::int32_t, KafkaStateStore::Value>>& values) {
  if (values.empty()) return true;
  rd_kafka_t* p = producer_.get();
  const std::uint64_t failed_before = changelog_failed_.load();
  for (const auto& [partition, v] : values) {
    rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR__QUEUE_FULL;
    for (int attempt = 0; attempt < 1000 && err == RD_KAFKA_RESP_ERR__QUEUE_FULL; ++attempt) {
      err = rd_kafka_producev(p, RD_KAFKA_V_TOPIC(changelog_.c_str()),
                              RD_KAFKA_V_PARTITION(partition),
                              RD_KAFKA_V_KEY(v.stream.data(), v.stream.size()),
                              RD_KAFKA_V_VALUE(const_cast<char*>(v.bytes.data()), v.bytes.size()),
                              RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
      if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) rd_kafka_poll(p, 10);
    }
    if (err) {
      log(KafkaLogLevel::error,
          "changelog record of stream " + stream::quoted(v.stream) + ": " + rd_kafka_err2str(err));
      return false;
    }
  }
  if (rd_kafka_flush(p, 30000) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    rd_kafka_purge(p, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
    rd_kafka_poll(p, 100);
    return false;
  }
  return changelog_failed_.load() == failed_before;
}

std::optional<bool> KafkaSource::changelog_usable() {
  if (changelog_usable_) return changelog_usable_;
  rd_kafka_t* rk = consumer_.get();
  const auto partitions_of = [&](const std::string& topic) -> int {
    const std::unique_ptr<rd_kafka_topic_t, void (*)(rd_kafka_topic_t*)> handle(
        rd_kafka_topic_new(rk, topic.c_str(), nullptr), rd_kafka_topic_destroy);
    const rd_kafka_metadata_t* metadata = nullptr;
    if (rd_kafka_metadata(rk, 0, handle.get(), &metadata, 10000) != RD_KAFKA_RESP_ERR_NO_ERROR)
      return -1;
    const int n = metadata->topic_cnt == 1 && metadata->topics[0].err == 0
                      ? metadata->topics[0].partition_cnt
                      : 0;
    rd_kafka_metadata_destroy(metadata);
    return n;
  };
  const int input = partitions_of(options_.topic), changelog = partitions_of(changelog_);
  if (input < 0 || changelog < 0) return std::nullopt;  // no answer: asked again next time
  changelog_usable_ = input > 0 && changelog == input;
  if (!*changelog_usable_)
    log(KafkaLogLevel::error,
        "the changelog topic " + changelog_ +
            (changelog == 0 ? std::string(" does not exist")
                            : " has " + std::to_string(changelog) + " partitions") +
            "; it must have the input's " + std::to_string(input) +
            " (create it compacted: cleanup.policy=compact): matching state is not kept, only "
            "offsets are committed");
  return changelog_usable_;
}

void KafkaSource::restore(rd_kafka_topic_partition_list_t* partitions) {
  const std::optional<bool> usable = changelog_usable();
  if (!usable)
    log(KafkaLogLevel::error, "assigned partitions " + partition_names(partitions) +
                                  ": the brokers did not say whether the changelog " + changelog_ +
                                  " exists; their streams start fresh from the committed offsets");
  if (usable != true) return;
  // The changelog's partitions of the same numbers, from their beginnings to their ends now,
  // by a consumer of its own outside the group (it never subscribes nor commits).
  KafkaConf conf = kafka_conf(options_.brokers, options_.properties,
                              {{"client.id", "warpwatch"},
                               {"group.id", options_.group_id + "-state-reader"},
                               {"enable.auto.commit", "false"},
                               {"enable.partition.eof", "true"},
                               {"auto.offset.reset", "earliest"}},
                              &producer_context_);
  std::array<char, 512> error{};
  const std::unique_ptr<rd_kafka_t, void (*)(rd_kafka_t*)> reader(
      rd_kafka_new(RD_KAFKA_CONSUMER, conf.get(), error.data(), error.size()), rd_kafka_destroy);
  if (!reader) {
    log(KafkaLogLevel::error, std::string("cannot read the changelog: ") + error.data());
    return;
  }
  conf.release();
  rd_kafka_t* rk = reader.get();
  const std::unique_ptr<rd_kafka_topic_partition_list_t, void (*)(rd_kafka_topic_partition_list_t*)>
      list(rd_kafka_topic_partition_list_new(partitions->cnt),
           rd_kafka_topic_partition_list_destroy);
  std::set<std::int32_t> open;  // changelog partitions not read to their ends yet
  for (int i = 0; i < partitions->cnt; ++i) {
    const std::int32_t p = partitions->elems[i].partition;
    std::int64_t low = 0, high = 0;
    if (rd_kafka_query_watermark_offsets(rk, changelog_.c_str(), p, &low, &high, 10000)) {
      log(KafkaLogLevel::error, "cannot read the changelog's partition " + std::to_string(p) +
                                    ": its streams start fresh");
      continue;
    }
    if (high <= low) continue;
    rd_kafka_topic_partition_list_add(list.get(), changelog_.c_str(), p)->offset =
        RD_KAFKA_OFFSET_BEGINNING;
    open.insert(p);
  }
  std::map<std::int32_t, std::map<std::string, std::string>> latest;  // partition -> key -> value
  std::set<std::int32_t> unread;  // partitions whose records cannot all be known
  if (!open.empty() && rd_kafka_assign(rk, list.get()) == RD_KAFKA_RESP_ERR_NO_ERROR) {
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    while (!open.empty() && Clock::now() < deadline) {
      rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 100);
      if (!m) continue;
      if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        open.erase(m->partition);  // a partition's EOF comes again after new records: by name
      } else if (m->err) {
        log(KafkaLogLevel::warning,
            std::string("reading the changelog: ") + rd_kafka_message_errstr(m));
      } else if (m->key) {
        latest[m->partition][std::string(static_cast<const char*>(m->key), m->key_len)] =
            std::string(static_cast<const char*>(m->payload), m->len);
      }
      rd_kafka_message_destroy(m);
    }
    if (!open.empty())
      log(KafkaLogLevel::error, "reading the changelog did not end within 60 s: the streams of " +
                                    std::to_string(open.size()) +
                                    " partitions start fresh from the committed offsets");
    unread = std::move(open);
  } else if (!open.empty()) {
    log(KafkaLogLevel::error, "cannot read the changelog: the streams of " +
                                  std::to_string(open.size()) +
                                  " partitions start fresh from the committed offsets");
    unread = std::move(open);
  }
  rd_kafka_consumer_close(rk);
  // Per partition: every stream's latest record, and the partition read on from the oldest of
  // them. A cut writes every stream of a partition at one offset, so they agree but where a
  // cut was written in part (a crash while Kafka took its records): then a stream whose
  // record is newer gets again the samples its state holds, and the hub refuses them by their
  // timestamps (continue_after), while the streams behind get theirs. Nothing is lost.
  for (int i = 0; i < partitions->cnt; ++i) {
    rd_kafka_topic_partition_t& tp = partitions->elems[i];
    const auto records = latest.find(tp.partition);
    if (records == latest.end() || unread.contains(tp.partition)) continue;
    std::vector<std::string> values;
    std::vector<std::int64_t> offsets;  // of `values`
    std::int64_t cut_at = -1, newest = -1;
    for (const auto& [id, bytes] : records->second) {
      std::string why;
      const auto position = state_->position(bytes, why);
      if (!position || position->partition != tp.partition) {
        log(KafkaLogLevel::warning,
            "changelog record of stream " + stream::quoted(id) + " refused: " +
                (position ? "it was cut at partition " + std::to_string(position->partition)
                          : why));
        continue;
      }
      values.push_back(bytes);
      offsets.push_back(position->offset);
      cut_at = cut_at < 0 ? position->offset : std::min(cut_at, position->offset);
      newest = std::max(newest, position->offset);
    }
    if (cut_at >= 0 && newest > cut_at) {
      const auto behind = static_cast<std::uint64_t>(std::count_if(
          offsets.begin(), offsets.end(), [&](std::int64_t o) { return o < newest; }));
      records_behind_ += behind;
      log(KafkaLogLevel::warning,
          std::to_string(behind) + " changelog record(s) of partition " +
              std::to_string(tp.partition) + " behind its latest cut (offset " +
              std::to_string(newest) + "; a cut written in part): reading on from offset " +
              std::to_string(cut_at) +
              ", the samples newer states hold are refused by their timestamps");
    }
    if (cut_at < 0) continue;
    const std::size_t found = values.size();
    const auto restored = state_->restore(std::move(values));
    if (!restored) return;  // the pipeline is stopping
    streams_restored_ += restored->size();
    {
      const std::lock_guard lock(streams_mu_);
      auto& known = streams_[tp.partition];
      known.insert(restored->begin(), restored->end());
    }
    tp.offset = cut_at;
    log(KafkaLogLevel::info, "partition " + std::to_string(tp.partition) + ": restored " +
                                 std::to_string(restored->size()) + " of " + std::to_string(found) +
                                 " streams, reading on from offset " + std::to_string(cut_at));
  }
}

void KafkaSource::commit(const std::set<std::int32_t>& partitions, bool sync) {
  std::unique_ptr<rd_kafka_topic_partition_list_t, void (*)(rd_kafka_topic_partition_list_t*)>
      offsets(rd_kafka_topic_partition_list_new(static_cast<int>(next_offset_.size())),
              rd_kafka_topic_partition_list_destroy);
  std::map<std::int32_t, std::int64_t> sent;
  for (const auto& [partition, next] : next_offset_) {
    if (!partitions.contains(partition)) continue;
    const auto last = committed_.find(partition);
    if (last != committed_.end() && last->second == next) continue;
    rd_kafka_topic_partition_list_add(offsets.get(), options_.topic.c_str(), partition)->offset =
        next;
    sent.emplace(partition, next);
  }
  if (sent.empty()) return;
  const rd_kafka_resp_err_t err = rd_kafka_commit(consumer_.get(), offsets.get(), sync ? 0 : 1);
  if (err) {
    ++commits_failed_;
    log(KafkaLogLevel::warning, std::string("offset commit failed: ") + rd_kafka_err2str(err));
    return;
  }
  for (const auto& [partition, next] : sent) committed_[partition] = next;
}

void KafkaSource::on_statistics(std::string_view json) {
  const auto j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return;
  // The group: the coordinator is up and the member holds its assignment ("steady").
  if (const auto g = j.find("cgrp"); g != j.end() && g->is_object())
    connected_ = g->value("state", "") == "up" && g->value("join_state", "") == "steady";
  std::uint64_t lag = 0;
  if (const auto topics = j.find("topics"); topics != j.end() && topics->is_object())
    if (const auto t = topics->find(options_.topic); t != topics->end() && t->is_object())
      if (const auto parts = t->find("partitions"); parts != t->end() && parts->is_object())
        for (const auto& [name, p] : parts->items()) {
          if (!p.is_object() || name == "-1") continue;
          const std::int64_t l = p.value("consumer_lag", std::int64_t{-1});
          if (l > 0) lag += static_cast<std::uint64_t>(l);
        }
  lag_ = lag;
}

void KafkaSource::log(KafkaLogLevel level, std::string_view text) const {
  if (!context_.log) return;
  std::string line = context_.name;
  line += ": ";
  line += text;
  context_.log(level, line);
}

}  // namespace warpwatch::stream
