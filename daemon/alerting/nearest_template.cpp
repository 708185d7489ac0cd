#include "warpwatch/alerting/nearest_template.hpp"

#include <algorithm>
#include <limits>
#include <tuple>

namespace warpwatch::alerting {
namespace {

bool overlap(const kernels::RawMatch& a, const kernels::RawMatch& b) {
  return a.start_index <= b.end_index && b.start_index <= a.end_index;
}

// Matches of one pattern never suppress each other (the rule is across patterns).
bool rivals(const kernels::RawMatch& a, const kernels::RawMatch& b) {
  return a.pattern_id() != b.pattern_id() && overlap(a, b);
}

constexpr std::uint64_t end_of_input = std::numeric_limits<std::uint64_t>::max();

}  // namespace

double closeness(const kernels::RawMatch& match) {
  const double threshold = match.pattern->params.threshold;
  return threshold > 0 ? match.distance / threshold : match.distance - threshold;
}

bool closer(const kernels::RawMatch& a, const kernels::RawMatch& b) {
  const double ca = closeness(a), cb = closeness(b);
  return std::tie(ca, a.end_index, a.pattern_id(), a.start_index) <
         std::tie(cb, b.end_index, b.pattern_id(), b.start_index);
}

void NearestTemplate::set_exclusive(std::set<std::string, std::less<>> libraries, Matches& out) {
  exclusive_ = std::move(libraries);
  for (auto it = held_.begin(); it != held_.end();) {
    if (exclusive_.count(it->first.second)) {
      ++it;
      continue;
    }
    decide(it->first, it->second, end_of_input, out);
    it = held_.erase(it);
  }
}

void NearestTemplate::offer(Matches matches, Matches& out) {
  std::set<Key> touched;
  for (kernels::RawMatch& m : matches) {
    const std::string& library = m.pattern->library;
    if (!exclusive_.count(library)) {
      out.push_back(std::move(m));
      continue;
    }
    Key key{m.stream_id(), library};
    held_[key].push_back(std::move(m));
    touched.insert(std::move(key));
  }
  // Nothing published is kept: when a match is published every rival of it is known
  // already (the stream is settled past its end), so a new match is only held, in order.
  for (const Key& key : touched) std::sort(held_[key].begin(), held_[key].end(), closer);
}

std::vector<std::string> NearestTemplate::holding() const {
  std::vector<std::string> out;
  for (const auto& [key, held] : held_)
    if (out.empty() || out.back() != key.first) out.push_back(key.first);
  return out;
}

void NearestTemplate::settle(std::string_view stream, std::uint64_t settled, Matches& out) {
  for (auto it = held_.lower_bound(Key{std::string(stream), ""});
       it != held_.end() && it->first.first == stream;) {
    decide(it->first, it->second, settled, out);
    it = it->second.empty() ? held_.erase(it) : std::next(it);
  }
}

void NearestTemplate::flush(std::string_view stream, Matches& out) {
  settle(stream, end_of_input, out);
}

void NearestTemplate::flush(Matches& out) {
  for (auto& [key, held] : held_) decide(key, held, end_of_input, out);
  held_.clear();
}

void NearestTemplate::decide(const Key& key, Matches& held, std::uint64_t settled, Matches& out) {
  // `held` is in key order. One pass decides all that can be: a publication supersedes only
  // larger keys, and a match waits only on smaller ones.
  enum : char { waiting, published, superseded };
  std::vector<char> state(held.size(), waiting);
  std::uint64_t dropped = 0;
  for (std::size_t i = 0; i < held.size(); ++i) {
    if (state[i] != waiting || held[i].end_index >= settled) continue;
    bool blocked = false;
    for (std::size_t j = 0; j < i && !blocked; ++j)
      blocked = state[j] == waiting && rivals(held[j], held[i]);
    if (blocked) continue;
    state[i] = published;
    out.push_back(held[i]);
    for (std::size_t j = i + 1; j < held.size(); ++j)
      if (state[j] == waiting && rivals(held[i], held[j])) {
        state[j] = superseded;
        ++dropped;
      }
  }
  if (dropped) superseded_[key.second] += dropped;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < held.size(); ++i)
    if (state[i] == waiting) held[kept++] = std::move(held[i]);
  held.resize(kept);
}

NearestTemplate::Matches NearestTemplate::held(std::string_view stream) const {
  Matches out;
  for (auto it = held_.lower_bound(Key{std::string(stream), ""});
       it != held_.end() && it->first.first == stream; ++it)
    out.insert(out.end(), it->second.begin(), it->second.end());
  return out;
}

void NearestTemplate::forget(std::string_view stream) {
  for (auto it = held_.lower_bound(Key{std::string(stream), ""});
       it != held_.end() && it->first.first == stream;)
    it = held_.erase(it);
}

void NearestTemplate::restore(std::string_view stream, Matches held, Matches& out) {
  forget(stream);
  offer(std::move(held), out);
}

std::size_t NearestTemplate::held_count() const {
  std::size_t n = 0;
  for (const auto& [key, held] : held_) n += held.size();
  return n;
}

}  // namespace warpwatch::alerting
