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
                              std::span<const std::byte> payload, PayloadFormat format) {
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
  // Text and JSON payloads carry no dims: decode them with the stream's (or auto-create)
  // dims. A binary frame carries its own, and needs no lookup.
  const std::size_t dims = payload_kind(payload, format) == PayloadKind::frame
                               ? 0
                               : registry_.expected_dims(id).value_or(0);
  const auto decoded = decode_payload(payload, dims, format);
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
                       payload.empty() ? "empty payload"
                                       : "no samples: blank lines only, or an empty JSON array");
    return;
  }
  const Admit admit = registry_.admit(id, ok.samples.dims, ok.samples.size());
  if (!admit.ok()) return;  // counted and logged by admit()
  accept(source, ok.samples, admit);
}

void IngestHub::offer_rejected(std::string_view id, RejectReason reason, std::string_view detail,
                               std::uint64_t count, std::string_view log_key) {
  registry_.reject(id, reason, detail, count, log_key);
}

void IngestHub::offer_samples(SourceId source, std::string_view id, const Samples& samples) {
  if (samples.size() == 0) return;
  const std::shared_lock declarations(declarations_mu_);
  const Admit admit = registry_.admit(id, samples.dims, samples.size());
  if (!admit.ok()) return;
  accept(source, samples, admit);
}

IngestHub::Slot* IngestHub::find_slot_locked(std::string_view id) const {
  const auto it = index_.find(id);
  return it == index_.end() ? nullptr : it->second;
}

IngestHub::Slot& IngestHub::slot_locked(const StreamRef& stream) {
  Slot* slot = find_slot_locked(stream->id);
  if (!slot) {
    const auto it = slots_.try_emplace(stream->id, stream->dims).first;
    slot = &it->second;
    index_.emplace(std::string_view(it->first), slot);
  }
  // Set before anything can fail: a slot whose first message was dropped whole still has
  // a stream (the queue's byte count reads its dims).
  slot->queue.stream = stream;
  return *slot;
}

std::optional<std::int64_t> IngestHub::last_timestamp_ns(std::string_view id) const {
  const std::lock_guard lock(mu_);
  const Slot* slot = find_slot_locked(id);
  return slot ? slot->validator.last_timestamp_ns() : std::nullopt;
}

void IngestHub::continue_after(const StreamRef& stream, std::int64_t last_ns) {
  const std::lock_guard lock(mu_);
  slot_locked(stream).validator.continue_after(last_ns);
}

void IngestHub::forget_stream(std::string_view id) {
  {
    const std::lock_guard lock(mu_);
    Slot* slot = find_slot_locked(id);
    if (slot && slot->queue.size() > 0) {  // taken, so that every count stays right, and dropped
      IngestBatch dropped;
      QueuedSamples q;
      take_from(slot->queue, slot->queue.size(), q, dropped);
    }
    erase_slot_locked(id);
  }
  room_.notify_all();
}

void IngestHub::erase_slot_locked(std::string_view id) {
  const auto it = slots_.find(id);
  if (it == slots_.end()) return;
  if (it->second.queue.size() > 0) --queued_streams_;
  spare_bytes_ -= it->second.queue.spare_bytes();
  index_.erase(std::string_view(it->first));
  slots_.erase(it);
}

bool IngestHub::stream_full_locked(std::string_view id) const {
  const Slot* slot = find_slot_locked(id);
  return slot && slot->queue.bytes() >= limits_.stream_bytes;
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

void IngestHub::accept(SourceId source, const Samples& offered, const Admit& admit) {
  // The stream's rate limit let only the first admit.samples pass (admit() counted the
  // rest): a copy of those, which only a rate-limited message pays for.
  Samples limited;
  if (admit.samples < offered.size()) {
    limited.dims = offered.dims;
    limited.times_ns.assign(offered.times_ns.begin(),
                            offered.times_ns.begin() + static_cast<std::ptrdiff_t>(admit.samples));
    limited.values.assign(
        offered.values.begin(),
        offered.values.begin() + static_cast<std::ptrdiff_t>(admit.samples * offered.dims));
  }
  const Samples& samples = admit.samples < offered.size() ? limited : offered;
  const StreamDef& stream = *admit.stream;
  RejectCounts counts;
  std::unique_lock lock(mu_);
  if (sources_.at(source).counters.overflow == Overflow::drop &&
      (queued_bytes_ >= limits_.total_bytes || stream_full_locked(stream.id))) {
    lock.unlock();
    drop(source, stream.id, samples.size());
    return;
  }
  Slot* slot = &slot_locked(admit.stream);
  // Most messages are valid whole: then they are queued as they came, without a copy.
  Accepted accepted;
  const bool whole = slot->validator.accept_all(samples);
  if (!whole) accepted = slot->validator.accept(samples, counts);
  const Samples& valid = whole ? samples : accepted.samples;
  const std::size_t n = valid.size();
  bool wake = false;
  if (n > 0) {
    Queue& q = slot->queue;
    const bool was_full = q.bytes() >= limits_.stream_bytes;
    if (q.size() == 0 && q.values.capacity() == 0 && q.spare_bytes() > 0) {
      spare_bytes_ -= q.spare_bytes();  // an idle queue's memory is its spares
      q.values.swap(q.spare_values);
      q.times_ns.swap(q.spare_times_ns);
    }
    // Room first, so that a failed allocation changes nothing (doubling, as insert would).
    const auto room = [](auto& v, std::size_t more) {
      if (v.size() + more > v.capacity()) v.reserve(std::max(v.size() + more, 2 * v.capacity()));
    };
    room(q.values, valid.values.size());
    room(q.times_ns, n);
    if (q.size() == 0) ++queued_streams_;
    q.values.insert(q.values.end(), valid.values.begin(), valid.values.end());
    q.times_ns.insert(q.times_ns.end(), valid.times_ns.begin(), valid.times_ns.end());
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
    wake = waiters_ > 0 && queued_samples_ >= wanted_samples_;
  }
  lock.unlock();
  registry_.count_accepted(stream.id, n);
  for (const Dropped& d : accepted.dropped) registry_.reject(stream.id, d.reason, d.first, d.count);
  if (wake) cv_.notify_all();
}

void IngestHub::end_stream(std::string_view id) {
  {
    const std::lock_guard lock(mu_);
    ended_.emplace_back(id);
  }
  cv_.notify_one();
}

bool IngestHub::holds_samples_locked(std::string_view id) const {
  const Slot* slot = find_slot_locked(id);
  return slot && slot->queue.size() > 0;
}

bool IngestHub::has_room_locked() const {
  return queued_bytes_ < limits_.total_bytes && streams_full_ == 0;
}

bool IngestHub::has_room() const {
  const std::lock_guard lock(mu_);
  return has_room_locked();
}

bool IngestHub::half_empty() const {
  const std::lock_guard lock(mu_);
  return queued_bytes_ <= limits_.total_bytes / 2 && streams_full_ == 0;
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

void IngestHub::take_from(Queue& q, std::size_t n, QueuedSamples& out, IngestBatch& batch) {
  const std::size_t dims = q.stream->dims;
  const bool was_full = q.bytes() >= limits_.stream_bytes;
  out.stream = q.stream;
  if (q.head == 0 && n == q.size()) {  // all of it: the vectors change hands
    out.values.swap(q.values);         // the queue keeps none; its next message takes
    out.times_ns.swap(q.times_ns);     // the spares, if it has any
  } else {
    const auto t_from = q.times_ns.begin() + static_cast<std::ptrdiff_t>(q.head);
    out.times_ns.assign(t_from, t_from + static_cast<std::ptrdiff_t>(n));
    const auto v_from = q.values.begin() + static_cast<std::ptrdiff_t>(q.head * dims);
    out.values.assign(v_from, v_from + static_cast<std::ptrdiff_t>(n * dims));
    q.head += n;
    if (q.head == q.times_ns.size()) {  // emptied: its vectors become spares, or go
      q.head = 0;
      if (!keep_as_spares_locked(q, q.values, q.times_ns)) {
        q.values = {};
        q.times_ns = {};
      }
    } else if (q.head >= q.size()) {  // more taken than left: move the rest to the front
      q.times_ns.erase(q.times_ns.begin(),
                       q.times_ns.begin() + static_cast<std::ptrdiff_t>(q.head));
      q.values.erase(q.values.begin(),
                     q.values.begin() + static_cast<std::ptrdiff_t>(q.head * dims));
      q.head = 0;
    }
  }
  // Credit the sources whose samples leave, oldest first, and say when they arrived.
  out.first_arrival = batch.arrivals.size();
  for (std::size_t left = n; left > 0;) {
    Segment& s = q.segments.front();
    const std::size_t k = std::min(left, s.samples);
    batch.arrivals.push_back({k, s.queued_at});
    SourceBacklog& c = sources_[s.source].counters;
    c.samples -= k;
    c.bytes -= k * queued_sample_bytes(dims);
    s.samples -= k;
    left -= k;
    if (s.samples == 0) q.segments.pop_front();
  }
  out.arrival_runs = batch.arrivals.size() - out.first_arrival;
  if (n > 0 && q.size() == 0) --queued_streams_;
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

void IngestHub::recycle(IngestBatch&& batch) {
  const std::lock_guard lock(mu_);
  if (batch.arrivals.capacity() > spare_arrivals_.capacity()) {
    batch.arrivals.clear();
    spare_arrivals_.swap(batch.arrivals);
  }
  for (QueuedSamples& taken : batch.streams) {
    Slot* slot = find_slot_locked(taken.stream->id);
    // Only to the queue the vectors came from (a reload may have replaced it since).
    if (!slot || slot->queue.stream != taken.stream) continue;
    // Not a burst's vectors for a stream that sends little: a spare at most twice what it
    // held (so a queue in use holds at most twice its last round, or four times what it
    // counts).
    const std::size_t held = std::max<std::size_t>(taken.times_ns.size(), 256);
    if (taken.times_ns.capacity() > 2 * held) continue;
    keep_as_spares_locked(slot->queue, taken.values, taken.times_ns);
  }
}

bool IngestHub::keep_as_spares_locked(Queue& q, std::vector<float>& values,
                                      std::vector<std::int64_t>& times_ns) {
  const std::size_t bytes = capacity_bytes(values, times_ns);
  if (q.spare_bytes() > 0 || spare_bytes_ + bytes > limits_.total_bytes) return false;
  values.clear();
  times_ns.clear();
  q.spare_values.swap(values);
  q.spare_times_ns.swap(times_ns);
  spare_bytes_ += bytes;
  return true;
}

IngestBatch IngestHub::take_locked(std::size_t max_samples) {
  IngestBatch batch;
  batch.arrivals.swap(spare_arrivals_);  // empty, with the capacity of a round before
  if (queued_streams_ > 0 && max_samples > 0) {
    // The streams with samples in rotated order, from next_first_ on, wrapping around;
    // more streams than samples to take: the first max_samples streams, one sample each.
    const std::size_t wanted = std::min(queued_streams_, max_samples);
    std::vector<Queue*> order;
    order.reserve(wanted);
    const auto from = slots_.lower_bound(next_first_);
    const auto collect = [&](auto begin, auto end) {
      for (auto it = begin; it != end && order.size() < wanted; ++it)
        if (it->second.queue.size() > 0) order.push_back(&it->second.queue);
    };
    collect(from, slots_.end());
    const std::size_t wrapped = order.size();  // order[wrapped..] have the smaller ids
    collect(slots_.begin(), from);
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
    const auto after = slots_.upper_bound(last);
    next_first_ = after == slots_.end() ? std::string() : after->first;
    std::size_t before_wrap = 0;  // streams taken from order[0, wrapped)
    batch.streams.reserve(order.size());
    for (std::size_t k = 0; k < order.size(); ++k) {
      if (take[k] == 0) continue;
      QueuedSamples out;
      take_from(*order[k], take[k], out, batch);
      batch.samples += take[k];
      batch.streams.push_back(std::move(out));
      if (k < wrapped) ++before_wrap;
    }
    // Sorted by id: the map's order from next_first_ on, then from its start, so the two
    // runs swap places (a sort of 10,000 ids cost milliseconds a round).
    std::rotate(batch.streams.begin(),
                batch.streams.begin() + static_cast<std::ptrdiff_t>(before_wrap),
                batch.streams.end());
  }
  // An ended stream is reported once its last samples are in a batch.
  for (auto it = ended_.begin(); it != ended_.end();) {
    if (holds_samples_locked(*it)) {
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

std::size_t IngestHub::queued_samples(std::string_view id) const {
  const std::lock_guard lock(mu_);
  const Slot* slot = find_slot_locked(id);
  return slot ? slot->queue.size() : 0;
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
      Slot* slot = find_slot_locked(id);
      if (!slot) continue;
      if (const std::size_t n = slot->queue.size(); n > 0) {
        QueuedSamples q;
        take_from(slot->queue, n, q, out.queued);
        out.queued.samples += n;
        out.queued.streams.push_back(std::move(q));
      }
      erase_slot_locked(id);
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
  ++waiters_;
  wanted_samples_ = waiters_ == 1 ? samples : std::min(wanted_samples_, samples);
  cv_.wait_until(lock, deadline, [&] {
    if (queued_samples_ >= samples) return true;
    // An ended stream whose samples are all queued can be reported.
    for (const auto& id : ended_)
      if (!holds_samples_locked(id)) return true;
    return false;
  });
  // The last one out: no threshold is left (with several waiters the smallest stays
  // until all are gone, which wakes the others early at worst).
  if (--waiters_ == 0) wanted_samples_ = 0;
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
  b.streams = queued_streams_;
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
  for (const auto& [id, slot] : slots_) {
    const Queue& q = slot.queue;
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
