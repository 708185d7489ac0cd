#include "warpwatch/stream/registry.hpp"

#include <algorithm>
#include <cstdio>
#include <initializer_list>
#include <set>
#include <stdexcept>

#include "warpwatch/base/stream_id.hpp"

namespace warpwatch::stream {
namespace {

constexpr std::size_t max_printed_invalid_id = 64;

// Concatenation by appending: GCC 12 warns falsely (-Wrestrict) on `"x" + std::string`.
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out.append(p);
  return out;
}

// An id for a log line, escaped (printable(): a peer chooses it): a valid one whole, an
// invalid one, which may be megabytes, cut after 64 bytes.
std::string printable_id(std::string_view id) {
  return printable(id, invalid_stream_id_reason(id) ? max_printed_invalid_id : id.size());
}

std::string dims_detail(std::size_t got, std::string_view whose, std::size_t want) {
  return cat({"message has ", std::to_string(got), " values per sample, ", whose, " ",
              std::to_string(want)});
}

// A rate for a log line: integers without a fraction, others as %g.
std::string fmt_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

StreamCounters declared_counters(const StreamDef& d) {
  StreamCounters c;
  c.stream = make_stream(d);
  c.declared = true;
  return c;
}

}  // namespace

StreamRegistry::StreamRegistry(const std::vector<StreamDef>& declared, RegistryOptions options,
                               LogHook log, Clock clock)
    : options_(options), log_(std::move(log)), clock_(std::move(clock)) {
  check_declarations(declared, options_);
  for (const StreamDef& d : declared) streams_.emplace(d.id, declared_counters(d));
}

void StreamRegistry::check_declarations(const std::vector<StreamDef>& declared,
                                        const RegistryOptions& options) {
  if (options.auto_dims < 1 || options.auto_dims > max_dims) {
    throw std::invalid_argument("StreamRegistry: auto_dims outside 1..64");
  }
  if (options.auto_period_ns <= 0) {
    throw std::invalid_argument("StreamRegistry: auto_period_ns <= 0");
  }
  std::set<std::string_view> ids;
  for (const StreamDef& d : declared) {
    if (auto why = invalid_stream_id_reason(d.id)) {
      throw std::invalid_argument(cat({"StreamRegistry: ", *why, ": ", printable_id(d.id)}));
    }
    if (d.dims < 1 || d.dims > max_dims) {
      throw std::invalid_argument(cat({"StreamRegistry: dims outside 1..64 for ", d.id}));
    }
    if (d.nominal_period_ns <= 0) {
      throw std::invalid_argument(cat({"StreamRegistry: nominal period <= 0 for ", d.id}));
    }
    if (!ids.insert(d.id).second) {
      throw std::invalid_argument(cat({"StreamRegistry: stream declared twice: ", d.id}));
    }
  }
}

StreamChanges StreamRegistry::redeclare(const std::vector<StreamDef>& declared,
                                        const RegistryOptions& options) {
  check_declarations(declared, options);
  std::map<std::string_view, const StreamDef*> wanted;
  for (const StreamDef& d : declared) wanted.emplace(d.id, &d);
  StreamChanges changes;
  const std::lock_guard lock(mu_);
  for (auto it = streams_.begin(); it != streams_.end();) {
    StreamCounters& s = it->second;
    const auto want = wanted.find(it->first);
    if (want == wanted.end()) {
      if (s.declared || !options.auto_create) {
        if (!s.declared) --auto_created_;
        changes.removed.push_back(it->first);
        forget_log_keys_locked(it->first);
        it = streams_.erase(it);
        continue;
      }
    } else {
      const StreamDef& d = *want->second;
      if (d != *s.stream) {
        StreamRef after = make_stream(d);
        changes.changed.push_back({s.stream, after});
        s.stream = std::move(after);
      }
      if (!s.declared) --auto_created_;
      s.declared = true;
    }
    ++it;
  }
  for (const StreamDef& d : declared) {
    const auto [it, fresh] = streams_.try_emplace(d.id);
    if (!fresh) continue;
    it->second = declared_counters(d);
    changes.added.push_back(it->second.stream);
  }
  // In id order, as a reader of the changes (and the log) expects them.
  std::sort(changes.removed.begin(), changes.removed.end());
  std::sort(changes.changed.begin(), changes.changed.end(),
            [](const auto& a, const auto& b) { return a.after->id < b.after->id; });
  const auto log_interval = options_.log_interval;
  options_ = options;
  options_.log_interval = log_interval;
  return changes;
}

StreamCounters* StreamRegistry::find_locked(std::string_view id) {
  auto it = streams_.find(id);
  return it == streams_.end() ? nullptr : &it->second;
}

std::uint64_t RateBucket::take(std::uint64_t n, double rate, double burst, TimePoint now) {
  if (!refilled_) {
    tokens_ = burst;
  } else if (now > *refilled_) {
    tokens_ =
        std::min(burst, tokens_ + rate * std::chrono::duration<double>(now - *refilled_).count());
  }
  tokens_ = std::min(tokens_, burst);  // a reload may have lowered the burst
  refilled_ = now;
  const auto passed = std::min<std::uint64_t>(n, static_cast<std::uint64_t>(tokens_));
  tokens_ -= static_cast<double>(passed);
  return passed;
}

Admit StreamRegistry::admit(std::string_view id, std::size_t dims, std::uint64_t samples) {
  Admit a;
  std::optional<PendingLine> line;
  const auto refuse = [&](StreamCounters* stream, RejectReason reason, std::string detail,
                          std::uint64_t count = 1) {
    a.rejected = reason;
    a.detail = std::move(detail);
    line = count_locked(id, stream, reason, a.detail, count);
  };
  // The stream's rate limit, for a message of the right dims: all, some or none pass.
  const auto admit_within_rate = [&](StreamCounters& s) {
    a.samples = samples;
    if (options_.max_rate_hz > 0) {
      const double burst =
          options_.max_burst > 0 ? options_.max_burst : std::max(1.0, options_.max_rate_hz);
      a.samples = s.rate.take(samples, options_.max_rate_hz, burst, clock_());
      if (a.samples < samples) {
        std::string detail =
            cat({std::to_string(samples - a.samples), " of ", std::to_string(samples),
                 " samples over the limit of ", fmt_number(options_.max_rate_hz),
                 " a second (burst ", fmt_number(burst), ")"});
        if (a.samples == 0) {
          refuse(&s, RejectReason::rate_limited, std::move(detail), samples);
          return;
        }
        line = count_locked(id, &s, RejectReason::rate_limited, detail, samples - a.samples);
      }
    }
    ++s.messages;
    ++totals_.messages;
  };
  {
    std::lock_guard lock(mu_);
    // A known id was valid when it was declared or created: only a new one is checked.
    if (StreamCounters* s = find_locked(id)) {
      a.stream = s->stream;
      if (dims != s->stream->dims) {
        refuse(s, RejectReason::wrong_dims, dims_detail(dims, "the stream has", s->stream->dims));
      } else {
        admit_within_rate(*s);
      }
    } else if (auto why = invalid_stream_id_reason(id)) {
      refuse(nullptr, RejectReason::invalid_stream_id, std::string(*why));
    } else if (!options_.auto_create) {
      refuse(nullptr, RejectReason::unknown_stream,
             "not a declared stream, and auto-creation is off");
    } else if (auto_created_ >= options_.max_auto_streams) {
      refuse(nullptr, RejectReason::too_many_streams,
             cat({"the limit of ", std::to_string(options_.max_auto_streams),
                  " auto-created streams is reached"}));
    } else if (dims != options_.auto_dims) {
      // Not created: a first message with the wrong shape must not claim the id.
      refuse(nullptr, RejectReason::wrong_dims,
             dims_detail(dims, "auto-created streams have", options_.auto_dims));
    } else {
      StreamCounters& created = create_auto_locked(id);
      a.stream = created.stream;
      a.created = true;
      admit_within_rate(created);  // a full bucket: at least one sample passes
    }
  }
  emit(std::move(line));
  return a;
}

StreamCounters& StreamRegistry::create_auto_locked(std::string_view id) {
  StreamCounters c;
  c.stream = make_stream({std::string(id), options_.auto_dims, options_.auto_period_ns});
  ++auto_created_;
  return streams_.emplace(std::string(id), std::move(c)).first->second;
}

StreamRef StreamRegistry::restore(const StreamDef& def, std::string& why) {
  std::lock_guard lock(mu_);
  if (StreamCounters* s = find_locked(def.id)) return s->stream;
  if (auto invalid = invalid_stream_id_reason(def.id))
    why = std::string(*invalid);
  else if (!options_.auto_create)
    why = "not a declared stream, and auto-creation is off";
  else if (auto_created_ >= options_.max_auto_streams)
    why = cat({"the limit of ", std::to_string(options_.max_auto_streams),
               " auto-created streams is reached"});
  else if (def.dims != options_.auto_dims || def.nominal_period_ns != options_.auto_period_ns)
    why = "auto-created streams now have other dims or another nominal period";
  else
    return create_auto_locked(def.id).stream;
  return nullptr;
}

void StreamRegistry::forget(std::string_view id) {
  std::lock_guard lock(mu_);
  const auto it = streams_.find(id);
  if (it == streams_.end() || it->second.declared) return;
  --auto_created_;
  forget_log_keys_locked(id);
  streams_.erase(it);
}

void StreamRegistry::reject(std::string_view id, RejectReason reason, std::string_view detail,
                            std::uint64_t count, std::string_view log_key) {
  std::optional<PendingLine> line;
  {
    std::lock_guard lock(mu_);
    line = count_locked(id, find_locked(id), reason, detail, count, log_key);
  }
  emit(std::move(line));
}

void StreamRegistry::count_accepted(std::string_view id, std::uint64_t samples) {
  std::lock_guard lock(mu_);
  totals_.accepted_samples += samples;
  if (StreamCounters* s = find_locked(id)) s->accepted_samples += samples;
}

std::optional<StreamRegistry::PendingLine> StreamRegistry::count_locked(
    std::string_view id, StreamCounters* stream, RejectReason reason, std::string_view detail,
    std::uint64_t count, std::string_view log_key) {
  totals_.rejected.add(reason, count);
  if (stream) stream->rejected.add(reason, count);
  if (!log_ || count == 0) return std::nullopt;

  const auto now = clock_();
  const auto [state_ptr, first] =
      log_state_locked(stream || log_key.empty() ? id : log_key, stream != nullptr, reason, now);
  LogState& state = *state_ptr;
  if (!first && now - state.last < options_.log_interval) {
    state.suppressed += count;
    totals_.log_suppressed += count;
    return std::nullopt;
  }
  PendingLine line{printable_id(id), std::string(detail), reason};
  if (count > 1) line.detail.append(cat({" (", std::to_string(count), " in this message)"}));
  if (state.suppressed > 0) {
    line.detail.append(cat({" (", std::to_string(state.suppressed), " more since the last line)"}));
  }
  state.last = now;
  state.suppressed = 0;
  ++totals_.log_lines;
  return line;
}

std::pair<StreamRegistry::LogState*, bool> StreamRegistry::log_state_locked(
    std::string_view key, bool has_stream, RejectReason reason,
    std::chrono::steady_clock::time_point now) {
  // An invalid id may be megabytes: its first 256 bytes are its key (a valid id has 255 at most).
  std::pair<std::string, RejectReason> k{std::string(key.substr(0, 256)), reason};
  if (const auto it = log_state_.find(k); it != log_state_.end()) return {&it->second, false};
  if (!has_stream && streamless_log_keys_ >= max_log_keys) {
    // Full: forget the entries that hold nothing back and whose interval is over (they
    // would let the next line through anyway); if none is, share the reason's entry.
    std::erase_if(log_state_, [&](const auto& entry) {
      const LogState& s = entry.second;
      const bool idle = s.streamless && s.suppressed == 0 && now - s.last >= options_.log_interval;
      if (idle) --streamless_log_keys_;
      return idle;
    });
    if (streamless_log_keys_ >= max_log_keys) {
      k.first = others_log_key;
      const auto [it, fresh] = log_state_.try_emplace(std::move(k));
      return {&it->second, fresh};
    }
  }
  const auto it = log_state_.emplace(std::move(k), LogState{}).first;
  it->second.streamless = !has_stream;
  if (!has_stream) ++streamless_log_keys_;
  return {&it->second, true};
}

void StreamRegistry::forget_log_keys_locked(std::string_view id) {
  std::erase_if(log_state_, [&](const auto& entry) {
    if (entry.first.first != id) return false;
    if (entry.second.streamless) --streamless_log_keys_;
    return true;
  });
}

void StreamRegistry::emit(std::optional<PendingLine> line) const {
  if (line) log_(line->stream, line->reason, line->detail);
}

std::optional<std::size_t> StreamRegistry::expected_dims(std::string_view id) const {
  std::lock_guard lock(mu_);
  if (invalid_stream_id_reason(id)) return std::nullopt;
  if (auto it = streams_.find(id); it != streams_.end()) return it->second.stream->dims;
  if (options_.auto_create && auto_created_ < options_.max_auto_streams) return options_.auto_dims;
  return std::nullopt;
}

StreamRef StreamRegistry::find(std::string_view id) const {
  std::lock_guard lock(mu_);
  const auto it = streams_.find(id);
  return it == streams_.end() ? nullptr : it->second.stream;
}

RegistrySnapshot StreamRegistry::snapshot() const {
  std::lock_guard lock(mu_);
  RegistrySnapshot out = totals_;
  out.streams.reserve(streams_.size());
  for (const auto& [id, counters] : streams_) out.streams.push_back(counters);
  std::sort(
      out.streams.begin(), out.streams.end(),
      [](const StreamCounters& a, const StreamCounters& b) { return a.stream->id < b.stream->id; });
  return out;
}

}  // namespace warpwatch::stream
