// Conformance suite (overview: conformance.hpp): window-mode thresholds that float32 rounding
// cannot flip (calibrate_window_thresholds, also used by the mixed-mode scenarios), and
// scenario 4, window mode against the reference.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "conformance.hpp"
#include "inputs.hpp"
#include "workload.hpp"

namespace warpwatch::testing::conformance {

// =================================================================================
// Window mode: the reference's window distances, thresholds in gaps, near-tie checks.

// One (stream, pattern) pair from its first sample to its removal or the final flush.
struct PairLife {
  std::size_t stream = 0, pattern = 0;
  std::uint64_t first = 0, end = 0;  // the stream's samples [first, end)
};

// Every pair the script makes, with the samples it sees.
inline std::vector<PairLife> pair_lives(const Workload& w) {
  std::vector<PairLife> lives, open;
  std::vector<std::uint64_t> next(w.streams.size(), 0);
  std::set<std::size_t> streams, patterns;
  bool flushed = false;
  const auto close = [&](auto&& pred) {
    for (auto it = open.begin(); it != open.end();) {
      if (pred(*it)) {
        it->end = next[it->stream];
        lives.push_back(*it);
        it = open.erase(it);
      } else {
        ++it;
      }
    }
  };
  for (const Step& step : w.steps) {
    switch (step.kind) {
      case Step::Kind::add_stream:
        next[step.index] = 0;
        streams.insert(step.index);
        for (std::size_t p : patterns)
          if (w.patterns[p].dims == w.streams[step.index].dims)
            open.push_back({step.index, p, 0, 0});
        break;
      case Step::Kind::add_pattern:
        patterns.insert(step.index);
        for (std::size_t s : streams)
          if (w.streams[s].dims == w.patterns[step.index].dims)
            open.push_back({s, step.index, next[s], 0});
        break;
      case Step::Kind::remove_stream:
        close([&](const PairLife& l) { return l.stream == step.index; });
        streams.erase(step.index);
        break;
      case Step::Kind::remove_pattern:
        close([&](const PairLife& l) { return l.pattern == step.index; });
        patterns.erase(step.index);
        break;
      case Step::Kind::feed:
        if (flushed) ADD_FAILURE() << "test setup: a workload feeds nothing after flush()";
        for (const auto& r : step.ranges) {
          if (r.from != next[r.stream])
            ADD_FAILURE() << "test setup: stream " << r.stream << " skips samples";
          next[r.stream] = r.to;
        }
        break;
      case Step::Kind::flush:
        flushed = true;
        break;
    }
  }
  if (!flushed && !open.empty())
    ADD_FAILURE() << "test setup: a workload with window patterns ends with flush()";
  close([](const PairLife&) { return true; });
  return lives;
}

struct WindowEval {
  std::uint64_t end;  // the window's last sample
  double distance;    // reference::distance(pattern, window)
};

// The reference distance of every window of the pair (docs/spec.md §3.2: w samples ending at
// first + w - 1 + k * hop; znorm windows with a std below 1e-8 skipped; twed times rebased
// to the pattern's first time, in seconds; a pattern without times at the stream's
// nominal period).
inline std::vector<WindowEval> window_evals(const PatternDef& p, const StreamData& s,
                                            std::uint64_t first, std::uint64_t end) {
  const std::size_t m = p.length(), d = p.dims;
  const std::size_t w = p.params.window ? p.params.window : m;
  const bool znorm = p.params.normalize == Normalize::znorm;
  std::vector<float> pv = p.values;
  if (znorm && !znormalize(pv, d)) ADD_FAILURE() << "test setup: pattern " << p.id << " is flat";
  std::vector<double> pt(m);
  for (std::size_t i = 0; i < m; ++i)
    pt[i] = p.times.empty() ? static_cast<double>(i) * (static_cast<double>(s.period_ns) * 1e-9)
                            : p.times[i];
  const SeriesView pattern_view{pv.data(), m, d, pt.data()};
  std::vector<WindowEval> out;
  std::vector<float> wv;
  std::vector<double> wt(w);
  for (std::uint64_t e = first + w - 1; e < end; e += p.params.hop) {
    const std::uint64_t start = e + 1 - w;
    wv.assign(s.values.begin() + static_cast<std::ptrdiff_t>(start * d),
              s.values.begin() + static_cast<std::ptrdiff_t>((e + 1) * d));
    if (znorm && !znormalize(wv, d)) continue;
    for (std::size_t j = 0; j < w; ++j)
      wt[j] = pt[0] + static_cast<double>(s.ts[start + j] - s.ts[start]) * 1e-9;
    const SeriesView window_view{wv.data(), w, d, wt.data()};
    out.push_back({e, kernels::reference::distance(pattern_view, window_view, p.params.distance)});
  }
  return out;
}

struct WindowSimulation {
  std::vector<RawMatch> events;
  std::optional<std::string> near_tie;  // two compared qualifying windows within kTie
};

// docs/spec.md §3.2 for one pair, literally, with the given distances; the candidate pending at
// the end of the pair's life is reported (by its removal or the final flush). Notes the
// first comparison of two qualifying windows that float32 rounding could flip. dk without
// normalization has exact ties that every backend reproduces (the distance is one cell's
// cost), and lcss's distances are whole counts every backend reproduces bit for bit (its
// matches are decided in float64 on every backend), so exact ties are fine there.
inline WindowSimulation simulate_windows(const PatternDef& p, const StreamData& s,
                                         const PairLife& life, const std::vector<WindowEval>& evals,
                                         double threshold) {
  const std::size_t w = p.params.window ? p.params.window : p.length();
  const bool exact_ties_ok =
      (p.params.distance.metric == Metric::dk && p.params.normalize == Normalize::none) ||
      p.params.distance.metric == Metric::lcss;
  WindowSimulation out;
  std::optional<RawMatch> cand;
  std::size_t k = 0;
  for (std::uint64_t e = life.first; e < life.end; ++e) {
    if (k < evals.size() && evals[k].end == e) {
      const double d = evals[k++].distance;
      if (d <= threshold) {
        if (cand) {
          const double c = cand->distance;
          if (!out.near_tie && !(exact_ties_ok && d == c) &&
              std::abs(d - c) <= kTie * std::max(magnitude(d), magnitude(c)))
            out.near_tie = cat("windows ending at ", cand->end_index, " and ", e, ": ",
                               format_double(c), " vs ", format_double(d));
        }
        if (!cand || d < cand->distance) {
          const std::uint64_t start = e + 1 - w;
          cand = raw_match(s.id, p.id, d, start, e, s.ts[start], s.ts[e]);
        }
      }
    }
    if (cand && e - cand->end_index >= w / 2) {
      out.events.push_back(*cand);
      cand.reset();
    }
  }
  if (cand) out.events.push_back(*cand);
  return out;
}

// A threshold between two neighbouring distances of `sorted_unique` (finite, ascending)
// near the quantile q, more than kGap (relative) from both; above the largest when no gap
// inside qualifies. nullopt when there is no distance.
inline std::optional<double> threshold_in_gap(const std::vector<double>& v, double q) {
  if (v.empty()) return std::nullopt;
  const std::size_t n = v.size();
  const auto target = static_cast<std::ptrdiff_t>(
      std::min<double>(static_cast<double>(n - 1), q * static_cast<double>(n)));
  for (std::ptrdiff_t off = 0; off < static_cast<std::ptrdiff_t>(n); ++off) {
    for (std::ptrdiff_t i : {target + off, target - off - 1}) {
      if (i < 0 || i + 1 >= static_cast<std::ptrdiff_t>(n)) continue;
      const double lo = v[static_cast<std::size_t>(i)], hi = v[static_cast<std::size_t>(i) + 1];
      if (hi - lo > 2.5 * kGap * std::max(magnitude(lo), magnitude(hi))) return 0.5 * (lo + hi);
    }
  }
  return v.back() + 2.0 * kGap * magnitude(v.back());
}

// Sets the threshold of every window-mode pattern of `w` in a gap of its reference window
// distances (over all its pairs) near `quantile`; when every candidate threshold leaves a
// near tie, perturbs the pattern's values (N(0, 0.1) per value) and tries again. Returns
// the events docs/spec.md §3.2 predicts with the reference's distances.
inline std::vector<RawMatch> calibrate_window_thresholds(Workload& w, std::mt19937_64& rng,
                                                         double quantile) {
  const std::vector<PairLife> lives = pair_lives(w);
  std::vector<RawMatch> predicted;
  std::normal_distribution<float> perturb(0.0f, 0.1f);
  for (std::size_t pi = 0; pi < w.patterns.size(); ++pi) {
    PatternDef& p = w.patterns[pi];
    if (p.params.mode != Mode::window) continue;
    if (std::none_of(lives.begin(), lives.end(),
                     [&](const PairLife& l) { return l.pattern == pi; })) {
      p.params.threshold = 1.0;  // never paired: any threshold
      continue;
    }
    bool done = false;
    std::string last_problem = "no windows";
    for (int attempt = 0; attempt < 25 && !done; ++attempt) {
      if (attempt > 0)
        for (auto& v : p.values) v += perturb(rng);
      std::vector<std::pair<const PairLife*, std::vector<WindowEval>>> evals;
      std::vector<double> all;
      for (const auto& life : lives) {
        if (life.pattern != pi) continue;
        evals.emplace_back(&life, window_evals(p, w.streams[life.stream], life.first, life.end));
        for (const auto& e : evals.back().second)
          if (std::isfinite(e.distance)) all.push_back(e.distance);
      }
      std::sort(all.begin(), all.end());
      all.erase(std::unique(all.begin(), all.end()), all.end());
      // Lower thresholds qualify fewer windows, so fewer pairs of them can tie (with many
      // streams of smooth data, neighbouring windows often lie within 1e-4).
      for (double q : {quantile, quantile / 2, quantile * 2, quantile / 4,
                       std::min(0.5, quantile * 4), quantile / 8, quantile / 16}) {
        const auto threshold = threshold_in_gap(all, q);
        if (!threshold) break;
        std::vector<RawMatch> events;
        std::optional<std::string> near_tie;
        for (const auto& [life, ev] : evals) {
          auto sim = simulate_windows(p, w.streams[life->stream], *life, ev, *threshold);
          if (sim.near_tie && !near_tie)
            near_tie = w.streams[life->stream].id + ": " + *sim.near_tie;
          events.insert(events.end(), sim.events.begin(), sim.events.end());
        }
        if (near_tie) {
          last_problem =
              cat("near tie at threshold ", format_double(*threshold), " (", *near_tie, ")");
          continue;
        }
        p.params.threshold = *threshold;
        predicted.insert(predicted.end(), events.begin(), events.end());
        done = true;
        break;
      }
    }
    if (!done)
      ADD_FAILURE() << "test setup: no robust threshold for window pattern " << p.id << ": "
                    << last_problem;
  }
  return predicted;
}

// =================================================================================
// Scenario 4: window mode.

struct WindowCase {
  std::size_t dims, m, w, hop;
  Normalize normalize;
  std::optional<double> band;
  Cost cost;
};

}  // namespace warpwatch::testing::conformance
