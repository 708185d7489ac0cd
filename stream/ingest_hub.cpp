#include "warpwatch/stream/ingest_hub.hpp"

#include <algorithm>
#include <set>
#include <string>

namespace warpwatch::stream {

IngestHub::IngestHub(StreamRegistry& registry, QueueLimits limits)
    : registry_(registry), limits_(limits) {}

SourceId IngestHub::add_source(std::string name, Overflow overflow) {
  const std::lock_guard lock(mu_);
  SourceState s;
  s.counters.name = std::move(name);
  s.counters.overflow = overflow;
  sources_.push_back(std::move(s));
  return static_cast<SourceId>(sources_.size() - 1);
}

void IngestHub::offer_message(SourceId source, std::string_view id,
                              std::span<const std::byte> payload) {
  const std::shared_lock declarations(declarations_mu_);
  // The whole message, id included (libzmq refuses larger frames before they are read:
  // ZMQ_MAXMSGSIZE).
  const std::size_t size = id.size() + payload.size();
  if (size > limits_.max_message_bytes) {
    registry_.reject(
        id, RejectReason::oversized_message,
        std::to_string(size) + " bytes, limit " + std::to_string(limits_.max_message_bytes));
    return;
  }
  // Text payloads carry no dims: decode them with the stream's (or auto-create) dims.
  const auto decoded = decode_payload(payload, registry_.expected_dims(id).value_or(0));
  if (const auto* error = std::get_if<DecodeError>(&decoded)) {
    registry_.reject(id, error->reason, error->detail);
    return;
  }
  const auto& ok = std::get<Decoded>(decoded);
  for (const Dropped& lines : ok.line_errors)
    registry_.reject(id, lines.reason, lines.first, lines.count);
  if (ok.samples.size() == 0) {
    // Bad lines were counted already; a payload with nothing at all is counted here, so
    // that every message is accounted for under some reason.
    if (ok.line_errors.empty())
      registry_.reject(id, RejectReason::empty_payload,
                       payload.empty() ? "empty payload" : "no samples, only blank lines");
    return;
  }
  const Admit admit = registry_.admit(id, ok.samples.dims);
  if (!admit.ok()) return;  // counted and logged by admit()
  accept(source, ok.samples, admit);
}

void IngestHub::offer_rejected(std::string_view id, RejectReason reason, std::string_view detail) {
  registry_.reject(id, reason, detail);
}

void IngestHub::offer_samples(SourceId source, std::string_view id, const Samples& samples) {
  if (samples.size() == 0) return;
  const std::shared_lock declarations(declarations_mu_);
  const Admit admit = registry_.admit(id, samples.dims);
  if (!admit.ok()) return;
  accept(source, samples, admit);
}

bool IngestHub::stream_full_locked(std::string_view id) const {
  const auto it = queues_.find(id);
  return it != queues_.end() && it->second.bytes() >= limits_.stream_bytes;
}

void IngestHub::drop(SourceId source, std::string_view id, std::size_t samples) {
  {
    const std::lock_guard lock(mu_);
    SourceBacklog& c = sources_.at(source).counters;
    c.dropped_samples += samples;
    ++c.dropped_messages;
  }
  registry_.reject(id, RejectReason::queue_full,
                   "the ingest queue is full and this source cannot push back: the message's " +
                       std::to_string(samples) + " samples are dropped",
                   samples);
}

void IngestHub::accept(SourceId source, const Samples& samples, const Admit& admit) {
  const StreamDef& stream = *admit.stream;
  RejectCounts counts;
  std::unique_lock lock(mu_);
  if (sources_.at(source).counters.overflow == Overflow::drop &&
      (queued_bytes_ >= limits_.total_bytes || stream_full_locked(stream.id))) {
    lock.unlock();
    drop(source, stream.id, samples.size());
    return;
  }
  auto it = validators_.find(stream.id);
  if (it == validators_.end())
    it = validators_.emplace(stream.id, StreamValidator(stream.dims)).first;
  Accepted accepted = it->second.accept(samples, counts);
  const std::size_t n = accepted.samples.size();
  if (n > 0) {
    Queue& q = queues_[stream.id];
    q.stream = admit.stream;
    const bool was_full = q.bytes() >= limits_.stream_bytes;
    q.values.insert(q.values.end(), accepted.samples.values.begin(), accepted.samples.values.end());
    q.times_ns.insert(q.times_ns.end(), accepted.samples.times_ns.begin(),
                      accepted.samples.times_ns.end());
    // Runs from one source within 10 ms share a segment: the backlog's age is then up
    // to 10 ms young, and a stream of 1-sample messages costs no segment per sample.
    const auto now = Clock::now();
    if (!q.segments.empty() && q.segments.back().source == source &&
        now - q.segments.back().queued_at < std::chrono::milliseconds(10))
      q.segments.back().samples += n;
    else
      q.segments.push_back({source, n, now});
    const std::size_t bytes = n * queued_sample_bytes(stream.dims);
    queued_samples_ += n;
    queued_bytes_ += bytes;
    if (!was_full && q.bytes() >= limits_.stream_bytes) ++streams_full_;
    SourceBacklog& c = sources_[source].counters;
    c.samples += n;
    c.bytes += bytes;
  }
  lock.unlock();
  registry_.count_accepted(stream.id, n);
  for (const Dropped& d : accepted.dropped) registry_.reject(stream.id, d.reason, d.first, d.count);
  if (n > 0) cv_.notify_one();
}

void IngestHub::end_stream(std::string_view id) {
  {
    const std::lock_guard lock(mu_);
    ended_.emplace_back(id);
  }
  cv_.notify_one();
}

bool IngestHub::has_room_locked() const {
  return queued_bytes_ < limits_.total_bytes && streams_full_ == 0;
}

bool IngestHub::has_room() const {
  const std::lock_guard lock(mu_);
  return has_room_locked();
}

bool IngestHub::wait_for_room(SourceId source, const std::stop_token& stop,
                              Clock::time_point deadline) {
  std::unique_lock lock(mu_);
  if (has_room_locked()) return true;
  SourceBacklog& c = sources_.at(source).counters;
  c.waiting = true;
  ++c.waits;
  const bool room = room_.wait_until(lock, stop, deadline, [&] { return has_room_locked(); });
  c.waiting = false;
  return room;
}

void IngestHub::take_from(Queue& q, std::size_t n, QueuedSamples& out) {
  const std::size_t dims = q.stream->dims;
  const bool was_full = q.bytes() >= limits_.stream_bytes;
  out.stream = q.stream;
  const auto t_end = q.times_ns.begin() + static_cast<std::ptrdiff_t>(n);
  out.times_ns.assign(q.times_ns.begin(), t_end);
  q.times_ns.erase(q.times_ns.begin(), t_end);
  const auto v_end = q.values.begin() + static_cast<std::ptrdiff_t>(n * dims);
  out.values.assign(q.values.begin(), v_end);
  q.values.erase(q.values.begin(), v_end);
  // Credit the sources whose samples leave, oldest first.
  for (std::size_t left = n; left > 0;) {
    Segment& s = q.segments.front();
    const std::size_t k = std::min(left, s.samples);
    SourceBacklog& c = sources_[s.source].counters;
    c.samples -= k;
    c.bytes -= k * queued_sample_bytes(dims);
    s.samples -= k;
    left -= k;
    if (s.samples == 0) q.segments.pop_front();
  }
  queued_samples_ -= n;
  queued_bytes_ -= n * queued_sample_bytes(dims);
  if (was_full && q.bytes() < limits_.stream_bytes) --streams_full_;
}

IngestBatch IngestHub::take(std::size_t max_samples) {
  IngestBatch batch;
  {
    const std::lock_guard lock(mu_);
    batch = take_locked(std::max<std::size_t>(max_samples, 1));
  }
  room_.notify_all();
  return batch;
}

IngestBatch IngestHub::take_all() {
  IngestBatch batch;
  {
    const std::lock_guard lock(mu_);
    batch = take_locked(queued_samples_);
  }
  room_.notify_all();
  return batch;
}

IngestBatch IngestHub::take_locked(std::size_t max_samples) {
  IngestBatch batch;
  if (!queues_.empty() && max_samples > 0) {
    // The streams in rotated order, from next_first_ on, wrapping around.
    std::vector<Queue*> order;
    order.reserve(queues_.size());
    const auto from = queues_.lower_bound(next_first_);
    for (auto it = from; it != queues_.end(); ++it) order.push_back(&it->second);
    const std::size_t wrapped = order.size();  // order[wrapped..] have the smaller ids
    for (auto it = queues_.begin(); it != from; ++it) order.push_back(&it->second);
    // More streams than samples to take: the first max_samples streams, one sample each.
    if (order.size() > max_samples) order.resize(max_samples);
    std::vector<std::size_t> take(order.size(), 0);
    std::size_t left = max_samples;
    const std::size_t share = std::max<std::size_t>(1, max_samples / order.size());
    for (std::size_t k = 0; k < order.size() && left > 0; ++k) {
      take[k] = std::min({order[k]->size(), share, left});
      left -= take[k];
    }
    for (std::size_t k = 0; k < order.size() && left > 0; ++k) {
      const std::size_t more = std::min(order[k]->size() - take[k], left);
      take[k] += more;
      left -= more;
    }
    // Next time, start after the last stream served here.
    const std::string& last = order.back()->stream->id;
    const auto after = queues_.upper_bound(last);
    next_first_ = after == queues_.end() ? std::string() : after->first;
    std::size_t before_wrap = 0;  // streams taken from order[0, wrapped)
    batch.streams.reserve(order.size());
    for (std::size_t k = 0; k < order.size(); ++k) {
      if (take[k] == 0) continue;
      QueuedSamples out;
      take_from(*order[k], take[k], out);
      batch.samples += take[k];
      batch.streams.push_back(std::move(out));
      if (k < wrapped) ++before_wrap;
    }
    std::erase_if(queues_, [](const auto& entry) { return entry.second.size() == 0; });
    // Sorted by id: the map's order from next_first_ on, then from its start, so the two
    // runs swap places (a sort of 10,000 ids cost milliseconds a round).
    std::rotate(batch.streams.begin(),
                batch.streams.begin() + static_cast<std::ptrdiff_t>(before_wrap),
                batch.streams.end());
  }
  // An ended stream is reported once its last samples are in a batch.
  for (auto it = ended_.begin(); it != ended_.end();) {
    if (queues_.contains(*it)) {
      ++it;
    } else {
      batch.ended.push_back(std::move(*it));
      it = ended_.erase(it);
    }
  }
  return batch;
}

std::size_t IngestHub::queued_samples() const {
  const std::lock_guard lock(mu_);
  return queued_samples_;
}

IngestHub::Redeclared IngestHub::redeclare(const std::vector<StreamDef>& declared,
                                           const RegistryOptions& options) {
  const std::unique_lock declarations(declarations_mu_);
  Redeclared out;
  out.changes = registry_.redeclare(declared, options);
  std::set<std::string, std::less<>> leaving(out.changes.removed.begin(),
                                             out.changes.removed.end());
  for (const auto& c : out.changes.changed) leaving.insert(c.after->id);
  {
    // What was queued under the old definitions of the streams that change or go; the
    // other streams' queues stay (their definitions are the same objects).
    const std::lock_guard lock(mu_);
    for (const std::string& id : leaving) {
      validators_.erase(id);
      const auto it = queues_.find(id);
      if (it == queues_.end()) continue;
      QueuedSamples q;
      const std::size_t n = it->second.size();
      take_from(it->second, n, q);
      out.queued.samples += n;
      out.queued.streams.push_back(std::move(q));
      queues_.erase(it);
    }
    for (auto it = ended_.begin(); it != ended_.end();) {
      if (leaving.contains(*it)) {
        out.queued.ended.push_back(std::move(*it));
        it = ended_.erase(it);
      } else {
        ++it;
      }
    }
  }
  room_.notify_all();
  return out;
}

void IngestHub::wait(std::size_t samples, Clock::time_point deadline) {
  std::unique_lock lock(mu_);
  cv_.wait_until(lock, deadline, [&] {
    if (queued_samples_ >= samples) return true;
    // An ended stream whose samples are all queued can be reported.
    for (const auto& id : ended_)
      if (!queues_.contains(id)) return true;
    return false;
  });
}

void IngestHub::notify() {
  cv_.notify_all();
  room_.notify_all();
}

Backlog IngestHub::backlog() const {
  const auto now = Clock::now();
  const auto age = [&](Clock::time_point t) {
    return std::chrono::duration<double>(now - t).count();
  };
  const std::lock_guard lock(mu_);
  Backlog b;
  b.samples = queued_samples_;
  b.bytes = queued_bytes_;
  b.streams = queues_.size();
  b.limits = limits_;
  for (const SourceState& s : sources_) b.sources.push_back(s.counters);
  // A stream's oldest segment is the oldest of its queue; each source's oldest is among
  // the streams' segments. A queue's segments are in arrival order, so a source's first
  // segment in it is its oldest there, and the walk of a queue stops once it met every
  // source of the hub: with one source, after one segment (a backlog of 10^5 segments
  // walked whole under the lock held up ingest and matching on every scrape). A queue that
  // some source never fed is still walked whole.
  std::vector<bool> seen(sources_.size(), false);
  std::vector<bool> seen_here(sources_.size());
  for (const auto& [id, q] : queues_) {
    if (q.segments.empty()) continue;
    b.oldest_age_seconds = std::max(b.oldest_age_seconds, age(q.segments.front().queued_at));
    std::fill(seen_here.begin(), seen_here.end(), false);
    std::size_t met = 0;
    for (const Segment& s : q.segments) {
      if (seen_here[s.source]) continue;
      seen_here[s.source] = true;
      SourceBacklog& c = b.sources[s.source];
      if (!seen[s.source] || age(s.queued_at) > c.oldest_age_seconds)
        c.oldest_age_seconds = age(s.queued_at);
      seen[s.source] = true;
      if (++met == sources_.size()) break;
    }
  }
  return b;
}

}  // namespace warpwatch::stream
