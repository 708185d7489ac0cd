// Conformance suite, internal (overview: conformance.hpp): workloads (streams, patterns and a
// script of Matcher calls), the chunkings they are replayed with, and their comparison with the
// reference (check_workload), which every matcher scenario runs.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "conformance.hpp"

namespace warpwatch::testing::conformance {

// =================================================================================
// Workloads: streams, patterns and a script of Matcher calls, replayed on every backend.

// Samples [from, to) of streams[stream].
struct StreamRange {
  std::size_t stream = 0;
  std::size_t from = 0, to = 0;
};

struct Step {
  enum class Kind { add_stream, remove_stream, add_pattern, remove_pattern, feed, flush };
  Kind kind = Kind::feed;
  std::size_t index = 0;            // add/remove: the stream or pattern
  std::vector<StreamRange> ranges;  // feed: what each stream gets (cut into batches per chunking)
};

struct Workload {
  // Streams and patterns by index; one id may appear twice (removed, then added again).
  std::vector<StreamData> streams;
  std::vector<PatternDef> patterns;
  std::vector<Step> steps;        // the script; it ends with flush() and feeds nothing after one
  std::size_t large_chunk = 300;  // Chunking::large_random draws chunks of 0..large_chunk

  void add_stream(std::size_t i) { steps.push_back(Step{Step::Kind::add_stream, i, {}}); }
  void remove_stream(std::size_t i) { steps.push_back(Step{Step::Kind::remove_stream, i, {}}); }
  void add_pattern(std::size_t i) { steps.push_back(Step{Step::Kind::add_pattern, i, {}}); }
  void remove_pattern(std::size_t i) { steps.push_back(Step{Step::Kind::remove_pattern, i, {}}); }
  void feed(std::vector<StreamRange> ranges) {
    steps.push_back(Step{Step::Kind::feed, 0, std::move(ranges)});
  }
  void flush() { steps.push_back(Step{Step::Kind::flush, 0, {}}); }

  // Every stream and pattern from the start, every stream fed whole, then flush().
  static Workload all_at_once(std::vector<StreamData> streams, std::vector<PatternDef> patterns) {
    Workload w;
    w.streams = std::move(streams);
    w.patterns = std::move(patterns);
    for (std::size_t i = 0; i < w.streams.size(); ++i) w.add_stream(i);
    for (std::size_t i = 0; i < w.patterns.size(); ++i) w.add_pattern(i);
    std::vector<StreamRange> all;
    for (std::size_t i = 0; i < w.streams.size(); ++i) all.push_back({i, 0, w.streams[i].length()});
    w.feed(std::move(all));
    w.flush();
    return w;
  }

  std::set<std::string> window_pattern_ids() const {
    std::set<std::string> ids;
    for (const auto& p : patterns)
      if (p.params.mode == Mode::window) ids.insert(p.id);
    return ids;
  }
};

// Cuts one feed step into batches. A batch holds at most one chunk per stream, in random
// order; random chunkings draw each stream's chunk size on its own (so streams advance
// unevenly), give a stream with nothing to send an empty chunk or no chunk at all, and
// now and then send a batch with no chunks.
inline std::vector<std::vector<StreamRange>> make_batches(const std::vector<StreamRange>& ranges,
                                                          Chunking chunking,
                                                          std::size_t large_chunk,
                                                          std::mt19937_64& rng) {
  std::vector<std::vector<StreamRange>> batches;
  if (chunking == Chunking::pipelined) chunking = Chunking::small_random;  // drawn alike
  if (chunking == Chunking::one_big) {
    batches.push_back(ranges);
    return batches;
  }
  std::vector<std::size_t> pos;
  for (const auto& r : ranges) pos.push_back(r.from);
  std::uniform_int_distribution<std::size_t> small(0, 9),
      large(0, std::max<std::size_t>(large_chunk, 1));
  std::uniform_int_distribution<int> percent(0, 99);
  for (;;) {
    bool remaining = false;
    for (std::size_t i = 0; i < ranges.size(); ++i) remaining |= pos[i] < ranges[i].to;
    if (!remaining) break;
    std::vector<StreamRange> batch;
    if (chunking != Chunking::one_sample && percent(rng) < 4) {
      batches.push_back(batch);  // no chunks at all
      continue;
    }
    for (std::size_t i = 0; i < ranges.size(); ++i) {
      const std::size_t left = ranges[i].to - pos[i];
      std::size_t n = 0;
      if (chunking == Chunking::one_sample) {
        n = std::min<std::size_t>(1, left);
      } else {
        n = chunking == Chunking::small_random ? small(rng) : large(rng);
        if (percent(rng) < 10) n = 0;
        n = std::min(n, left);
      }
      if (n == 0 && percent(rng) < 50) continue;  // no chunk for this stream, else an empty one
      batch.push_back({ranges[i].stream, pos[i], pos[i] + n});
      pos[i] += n;
    }
    if (chunking != Chunking::one_sample) std::shuffle(batch.begin(), batch.end(), rng);
    batches.push_back(std::move(batch));
  }
  return batches;
}

// A match from process(), with the samples [lo, hi) of its stream that the call was given.
struct Reported {
  RawMatch match;
  std::uint64_t lo = 0, hi = 0;
};

struct Outcome {
  std::vector<Reported> processed;           // in the order the calls returned them
  std::vector<std::vector<RawMatch>> ended;  // what each remove_*/flush step returned
  kernels::MatcherCounters counters;

  // Everything reported, ordered by stream, pattern, end index.
  std::vector<RawMatch> all() const {
    std::vector<RawMatch> v;
    for (const auto& r : processed) v.push_back(r.match);
    for (const auto& e : ended) v.insert(v.end(), e.begin(), e.end());
    return sorted(std::move(v));
  }
};

inline void expect_ordered(const std::vector<RawMatch>& v, const std::string& what) {
  EXPECT_TRUE(std::is_sorted(v.begin(), v.end(), match_less))
      << what << ": not ordered by stream, pattern, end index:\n"
      << describe(v);
}

// Replays the workload on `matcher`; the batches of each feed step depend on `chunking` and
// `plan_seed` only, so every backend sees the same ones.
inline Outcome run_workload(Matcher& matcher, const Workload& w, Chunking chunking,
                            std::uint64_t plan_seed) {
  std::mt19937_64 rng(plan_seed);
  Outcome out;
  const std::string who(matcher.name());
  for (const Step& step : w.steps) {
    switch (step.kind) {
      case Step::Kind::add_stream:
        matcher.add_stream(w.streams[step.index].def());
        break;
      case Step::Kind::add_pattern:
        matcher.add_pattern(w.patterns[step.index]);
        break;
      case Step::Kind::remove_stream:
        out.ended.push_back(matcher.remove_stream(w.streams[step.index].id));
        expect_ordered(out.ended.back(), who + " remove_stream");
        break;
      case Step::Kind::remove_pattern:
        out.ended.push_back(matcher.remove_pattern(w.patterns[step.index].id));
        expect_ordered(out.ended.back(), who + " remove_pattern");
        break;
      case Step::Kind::flush:
        out.ended.push_back(matcher.flush());
        expect_ordered(out.ended.back(), who + " flush");
        break;
      case Step::Kind::feed: {
        const auto batches = make_batches(step.ranges, chunking, w.large_chunk, rng);
        // Pipelined: batch k is submitted before batch k-1 is collected; collect() returns
        // the matches of the oldest batch outstanding, which they are attributed to.
        const std::size_t ahead = chunking == Chunking::pipelined ? 1 : 0;
        std::size_t collected = 0;
        const auto record = [&](const std::vector<StreamRange>& batch,
                                const std::vector<RawMatch>& got) {
          expect_ordered(got, who + (ahead ? " collect" : " process"));
          for (const auto& m : got) {
            Reported rep{m, 0, 0};
            bool found = false;
            for (const auto& r : batch) {
              if (w.streams[r.stream].id == m.stream_id()) {
                rep.lo = r.from;
                rep.hi = r.to;
                found = true;
              }
            }
            if (!found)
              ADD_FAILURE()
                  << who
                  << ": process() returned a match of a stream without a chunk in the batch: "
                  << describe(m);
            out.processed.push_back(std::move(rep));
          }
        };
        const auto collect_one = [&] {
          const auto& batch = batches[collected++];
          record(batch, matcher.collect());
        };
        for (std::size_t k = 0; k < batches.size(); ++k) {
          std::vector<StreamChunk> chunks;
          for (const auto& r : batches[k])
            chunks.push_back(w.streams[r.stream].chunk(r.from, r.to));
          if (ahead == 0) {
            record(batches[k], matcher.process(chunks));
            ++collected;
            continue;
          }
          // submit() copies the samples out of the caller's memory (the daemon frees a
          // round's samples while its batch runs): submit a copy, then spoil the copy.
          std::vector<std::vector<float>> values;
          std::vector<std::vector<std::int64_t>> times;
          values.reserve(chunks.size());
          times.reserve(chunks.size());
          for (StreamChunk& c : chunks) {
            values.emplace_back(c.values.begin(), c.values.end());
            times.emplace_back(c.timestamps_ns.begin(), c.timestamps_ns.end());
            c.values = values.back();
            c.timestamps_ns = times.back();
          }
          matcher.submit(chunks);
          for (auto& v : values)
            std::fill(v.begin(), v.end(), std::numeric_limits<float>::quiet_NaN());
          for (auto& t : times) std::fill(t.begin(), t.end(), std::int64_t{-1});
          if (k + 1 - collected > ahead) collect_one();
        }
        while (collected < batches.size()) collect_one();
        EXPECT_EQ(matcher.outstanding(), 0u) << who;
        break;
      }
    }
  }
  out.counters = matcher.counters();
  return out;
}

// =================================================================================
// Comparisons.

inline std::tuple<std::string, std::string, std::uint64_t> match_key(const RawMatch& m) {
  return {m.stream_id(), m.pattern_id(), m.end_index};
}

// `got` against the reference's `want` (both in any order): stream-mode matches exactly,
// window-mode ones (`window_ids`) within tolerance. With triggers, also that each match
// came from the call whose chunk held the sample that completed it in the reference run
// (one sample per batch: lo is that sample).
inline void expect_conformant_matches(std::vector<Reported> got, std::vector<Reported> want,
                                      const std::set<std::string>& window_ids,
                                      const std::string& what, bool check_triggers) {
  const auto less = [](const Reported& a, const Reported& b) {
    return match_less(a.match, b.match);
  };
  std::stable_sort(got.begin(), got.end(), less);
  std::stable_sort(want.begin(), want.end(), less);
  std::vector<std::string> problems;
  std::size_t count = 0;
  std::size_t i = 0, j = 0;
  while (i < got.size() || j < want.size()) {
    std::string problem;
    if (j == want.size() ||
        (i < got.size() && match_key(got[i].match) < match_key(want[j].match))) {
      problem = cat("extra     ", describe(got[i].match));
      ++i;
    } else if (i == got.size() || match_key(want[j].match) < match_key(got[i].match)) {
      problem = cat("missing   ", describe(want[j].match));
      ++j;
    } else {
      const double rel = window_ids.count(want[j].match.pattern_id()) ? kRel : 0.0;
      if (!same_match(got[i].match, want[j].match, rel)) {
        problem = cat("differs   got ", describe(got[i].match), " want ", describe(want[j].match));
      } else if (check_triggers && !(got[i].lo <= want[j].lo && want[j].lo < got[i].hi)) {
        problem = cat("late/early ", describe(got[i].match), ": completed by sample ", want[j].lo,
                      " but returned by the call with samples [", got[i].lo, ",", got[i].hi, ")");
      }
      ++i;
      ++j;
    }
    if (!problem.empty()) {
      ++count;
      if (problems.size() < 12) problems.push_back(problem);
    }
  }
  if (count > 0) {
    std::string list;
    for (const auto& p : problems) list += cat("  ", p, "\n");
    ADD_FAILURE() << what << ": " << count << " difference(s) from the reference (got "
                  << got.size() << " matches, want " << want.size()
                  << "; window-mode distances within " << kRel << " relative, stream-mode exact):\n"
                  << list;
  }
}

inline void expect_conformant_matches(const std::vector<RawMatch>& got,
                                      const std::vector<RawMatch>& want,
                                      const std::set<std::string>& window_ids,
                                      const std::string& what) {
  std::vector<Reported> g, w;
  for (const auto& m : got) g.push_back({m, 0, 0});
  for (const auto& m : want) w.push_back({m, 0, 0});
  expect_conformant_matches(std::move(g), std::move(w), window_ids, what, false);
}

inline void expect_conformant(const Outcome& got, const Outcome& want,
                              const std::set<std::string>& window_ids, const std::string& what) {
  expect_conformant_matches(got.processed, want.processed, window_ids, what + ", process()", true);
  EXPECT_EQ(got.ended.size(), want.ended.size()) << what;
  for (std::size_t k = 0; k < std::min(got.ended.size(), want.ended.size()); ++k)
    expect_conformant_matches(got.ended[k], want.ended[k], window_ids,
                              cat(what, ", remove/flush call ", k));
  EXPECT_EQ(got.counters.samples, want.counters.samples) << what << ": counters().samples";
  EXPECT_EQ(got.counters.flat_windows_skipped, want.counters.flat_windows_skipped)
      << what << ": counters().flat_windows_skipped";
}

// Bit for bit the same results, call by call (e.g. two thread counts of one backend).
inline void expect_identical(const Outcome& got, const Outcome& first, const std::string& what) {
  bool same = got.processed.size() == first.processed.size();
  for (std::size_t i = 0; same && i < got.processed.size(); ++i) {
    const auto &a = got.processed[i], &b = first.processed[i];
    if (!(a.match == b.match && a.lo == b.lo && a.hi == b.hi)) {
      ADD_FAILURE() << what << ": process() result " << i << " differs: " << describe(a.match)
                    << " vs " << describe(b.match);
      return;
    }
  }
  if (!same) {
    ADD_FAILURE() << what << ": process() returned " << got.processed.size() << " vs "
                  << first.processed.size() << " matches";
    return;
  }
  EXPECT_EQ(got.ended, first.ended) << what << ": remove/flush results differ";
  EXPECT_EQ(got.counters.samples, first.counters.samples) << what;
  EXPECT_EQ(got.counters.flat_windows_skipped, first.counters.flat_windows_skipped) << what;
}

// The reference's outcome on `w` (one sample per batch), then every backend's for every
// chunking compared with it, and the backends with each other. `predicted_windows`, when
// given, are the window-mode events that docs/spec.md §3.2 predicts from the reference's
// distances (calibrate_window_thresholds): a check of this harness against the reference.
inline Outcome check_workload(const Backends& backends, const Workload& w, std::uint64_t seed,
                              const std::string& what,
                              const std::vector<Chunking>& all = all_chunkings(),
                              const std::vector<RawMatch>* predicted_windows = nullptr) {
  const std::vector<Chunking> chunkings = chunkings_to_run(all);
  const std::set<std::string> window_ids = w.window_pattern_ids();
  for (const auto& p : w.patterns)
    if (p.params.mode == Mode::stream && window_ids.count(p.id))
      ADD_FAILURE() << "test setup: pattern id " << p.id << " used in both modes";
  auto reference = kernels::reference::make_matcher();
  const Outcome want = run_workload(*reference, w, Chunking::one_sample, seed);
  if (predicted_windows) {
    std::vector<RawMatch> ref_windows;
    for (const auto& m : want.all())
      if (window_ids.count(m.pattern_id())) ref_windows.push_back(m);
    expect_same_matches(ref_windows, sorted(*predicted_windows),
                        what + ": harness check, literal docs/spec.md §3.2 vs the reference", 1e-9);
  }
  for (std::size_t c = 0; c < chunkings.size(); ++c) {
    std::optional<Outcome> first;
    for (const auto& backend : backends) {
      const std::string label = what + " [" + backend.name + ", " + to_string(chunkings[c]) + "]";
      Outcome got;
      try {
        auto matcher = backend.make_matcher();
        got = run_workload(*matcher, w, chunkings[c], seed + 1 + c);
      } catch (const std::exception& e) {
        ADD_FAILURE() << label << ": threw " << e.what();
        continue;
      }
      expect_conformant(got, want, window_ids, label);
      if (!first) {
        first = std::move(got);
      } else {
        expect_identical(got, *first, label + " vs " + backends.front().name);
      }
    }
  }
  return want;
}

}  // namespace warpwatch::testing::conformance
