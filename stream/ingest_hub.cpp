#include "warpwatch/stream/ingest_hub.hpp"

#include <string>

namespace warpwatch::stream {

IngestHub::IngestHub(StreamRegistry& registry, std::size_t max_message_bytes)
    : registry_(registry), max_message_bytes_(max_message_bytes) {}

void IngestHub::offer_message(std::string_view id, std::span<const std::byte> payload) {
  const std::shared_lock declarations(declarations_mu_);
  if (payload.size() > max_message_bytes_) {
    registry_.reject(
        id, RejectReason::oversized_message,
        std::to_string(payload.size()) + " bytes, limit " + std::to_string(max_message_bytes_));
    return;
  }
  // Text payloads carry no dims: decode them with the stream's (or auto-create) dims.
  const auto decoded = decode_payload(payload, registry_.expected_dims(id).value_or(0));
  if (const auto* error = std::get_if<DecodeError>(&decoded)) {
    registry_.reject(id, error->reason, error->detail);
    return;
  }
  const auto& ok = std::get<Decoded>(decoded);
  for (const auto& line : ok.line_errors) registry_.reject(id, line.reason, line.detail);
  if (ok.samples.size() == 0) return;
  const Admit admit = registry_.admit(id, ok.samples.dims);
  if (!admit.ok()) return;  // counted and logged by admit()
  accept(ok.samples, admit);
}

void IngestHub::offer_malformed(std::string_view id, std::string_view detail) {
  registry_.reject(id, RejectReason::malformed_frame, detail);
}

void IngestHub::offer_samples(std::string_view id, const Samples& samples) {
  if (samples.size() == 0) return;
  const std::shared_lock declarations(declarations_mu_);
  const Admit admit = registry_.admit(id, samples.dims);
  if (!admit.ok()) return;
  accept(samples, admit);
}

void IngestHub::accept(const Samples& samples, const Admit& admit) {
  const StreamDef& stream = *admit.stream;
  RejectCounts counts;
  std::unique_lock lock(mu_);
  auto it = validators_.find(stream.id);
  if (it == validators_.end())
    it = validators_.emplace(stream.id, StreamValidator(stream.dims)).first;
  Accepted accepted = it->second.accept(samples, counts);
  QueuedSamples& q = pending_[stream.id];
  q.stream = admit.stream;
  q.values.insert(q.values.end(), accepted.samples.values.begin(), accepted.samples.values.end());
  q.times_ns.insert(q.times_ns.end(), accepted.samples.times_ns.begin(),
                    accepted.samples.times_ns.end());
  pending_samples_ += accepted.samples.size();
  lock.unlock();
  registry_.count_accepted(stream.id, accepted.samples.size());
  for (const Dropped& d : accepted.dropped) registry_.reject(stream.id, d.reason, d.first, d.count);
  cv_.notify_one();
}

void IngestHub::end_stream(std::string_view id) {
  {
    const std::lock_guard lock(mu_);
    ended_.emplace_back(id);
  }
  cv_.notify_one();
}

IngestBatch IngestHub::take() {
  IngestBatch batch;
  const std::lock_guard lock(mu_);
  for (auto& [id, q] : pending_)
    if (!q.times_ns.empty()) batch.streams.push_back(std::move(q));
  pending_.clear();
  batch.ended.swap(ended_);
  batch.samples = pending_samples_;
  pending_samples_ = 0;
  return batch;
}

IngestHub::Redeclared IngestHub::redeclare(const std::vector<StreamDef>& declared,
                                           const RegistryOptions& options) {
  const std::unique_lock declarations(declarations_mu_);
  Redeclared out;
  out.changes = registry_.redeclare(declared, options);
  {
    const std::lock_guard lock(mu_);
    for (const auto& id : out.changes.removed) validators_.erase(id);
    for (const auto& c : out.changes.changed) validators_.erase(c.after->id);
  }
  out.queued = take();
  return out;
}

void IngestHub::wait(std::size_t samples, std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mu_);
  cv_.wait_until(lock, deadline, [&] { return pending_samples_ >= samples || !ended_.empty(); });
}

void IngestHub::notify() {
  cv_.notify_all();
}

}  // namespace warpwatch::stream
