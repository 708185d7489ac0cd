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
#include "conformance_inputs.hpp"
#include "conformance_workload.hpp"

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
          if (w.patterns[p].dims == w.streams[step.index].dims) open.push_back({step.index, p, 0, 0});
        break;
      case Step::Kind::add_pattern:
        patterns.insert(step.index);
        for (std::size_t s : streams)
          if (w.streams[s].dims == w.patterns[step.index].dims) open.push_back({s, step.index, next[s], 0});
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
          if (r.from != next[r.stream]) ADD_FAILURE() << "test setup: stream " << r.stream << " skips samples";
          next[r.stream] = r.to;
        }
        break;
      case Step::Kind::flush: flushed = true; break;
    }
  }
  if (!flushed && !open.empty()) ADD_FAILURE() << "test setup: a workload with window patterns ends with flush()";
  close([](const PairLife&) { return true; });
  return lives;
}

struct WindowEval {
  std::uint64_t end;  // the window's last sample
  double distance;    // reference::distance(pattern, window)
};

// The reference distance of every window of the pair (SPEC.md 3.2: w samples ending at
// first + w - 1 + k * hop; znorm windows with a std below 1e-8 skipped; twed times rebased
// to the pattern's first time, in seconds; a pattern without times at the stream's
// nominal period).
inline std::vector<WindowEval> window_evals(const PatternDef& p, const StreamData& s, std::uint64_t first,
                                            std::uint64_t end) {
  const std::size_t m = p.length(), d = p.dims;
  const std::size_t w = p.params.window ? p.params.window : m;
  const bool znorm = p.params.normalize == Normalize::znorm;
  std::vector<float> pv = p.values;
  if (znorm && !znormalize(pv, d)) ADD_FAILURE() << "test setup: pattern " << p.id << " is flat";
  std::vector<double> pt(m);
  for (std::size_t i = 0; i < m; ++i)
    pt[i] = p.times.empty() ? static_cast<double>(i) * (static_cast<double>(s.period_ns) * 1e-9) : p.times[i];
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

// SPEC.md 3.2 for one pair, literally, with the given distances; the candidate pending at
// the end of the pair's life is reported (by its removal or the final flush). Notes the
// first comparison of two qualifying windows that float32 rounding could flip. dk without
// normalization has exact ties that every backend reproduces (the distance is one cell's
// cost), so exact ties are fine there.
inline WindowSimulation simulate_windows(const PatternDef& p, const StreamData& s, const PairLife& life,
                                         const std::vector<WindowEval>& evals, double threshold) {
  const std::size_t w = p.params.window ? p.params.window : p.length();
  const bool exact_ties_ok = p.params.distance.metric == Metric::dk && p.params.normalize == Normalize::none;
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
            out.near_tie = cat("windows ending at ", cand->end_index, " and ", e, ": ", format_double(c), " vs ", format_double(d));
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
  const auto target = static_cast<std::ptrdiff_t>(std::min<double>(static_cast<double>(n - 1), q * static_cast<double>(n)));
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
// the events SPEC.md 3.2 predicts with the reference's distances.
inline std::vector<RawMatch> calibrate_window_thresholds(Workload& w, std::mt19937_64& rng, double quantile) {
  const std::vector<PairLife> lives = pair_lives(w);
  std::vector<RawMatch> predicted;
  std::normal_distribution<float> perturb(0.0f, 0.1f);
  for (std::size_t pi = 0; pi < w.patterns.size(); ++pi) {
    PatternDef& p = w.patterns[pi];
    if (p.params.mode != Mode::window) continue;
    if (std::none_of(lives.begin(), lives.end(), [&](const PairLife& l) { return l.pattern == pi; })) {
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
      for (double q : {quantile, quantile / 2, quantile * 2, quantile / 4, std::min(0.5, quantile * 4)}) {
        const auto threshold = threshold_in_gap(all, q);
        if (!threshold) break;
        std::vector<RawMatch> events;
        std::optional<std::string> near_tie;
        for (const auto& [life, ev] : evals) {
          auto sim = simulate_windows(p, w.streams[life->stream], *life, ev, *threshold);
          if (sim.near_tie && !near_tie) near_tie = w.streams[life->stream].id + ": " + *sim.near_tie;
          events.insert(events.end(), sim.events.begin(), sim.events.end());
        }
        if (near_tie) {
          last_problem = cat("near tie at threshold ", format_double(*threshold), " (", *near_tie, ")");
          continue;
        }
        p.params.threshold = *threshold;
        predicted.insert(predicted.end(), events.begin(), events.end());
        done = true;
        break;
      }
    }
    if (!done) ADD_FAILURE() << "test setup: no robust threshold for window pattern " << p.id << ": " << last_problem;
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

// One metric in window mode: patterns with w = m, w < m, w > m, hop 1..3, normalize
// none/znorm, bands (none, 0, fractional) for dtw/dk/softdtw, gamma 0.1/1 for softdtw; twed
// with nu/lambda/p variations and patterns with and without times; streams of d = 1 and 3
// with irregular timestamps and different nominal periods.
inline void run_window_scenario(const Backends& backends, Metric metric) {
  std::mt19937_64 rng(test_seed());
  const std::vector<WindowCase> cases{
      {1, 2, 0, 1, Normalize::none, std::nullopt, Cost::sq},
      {1, 7, 0, 2, Normalize::znorm, std::nullopt, Cost::abs},
      {1, 12, 9, 1, Normalize::none, 2.0, Cost::sq},
      {1, 7, 10, 3, Normalize::znorm, 1.5, Cost::sq},
      {3, 31, 0, 1, Normalize::none, std::nullopt, Cost::abs},
      {3, 32, 40, 2, Normalize::znorm, 3.5, Cost::sq},
      {1, 33, 25, 3, Normalize::none, 3.5, Cost::abs},
      {3, 5, 0, 1, Normalize::znorm, std::nullopt, Cost::sq},
      {1, 64, 0, 2, Normalize::none, 0.0, Cost::sq},
      {1, 16, 0, 1, Normalize::znorm, 0.0, Cost::abs},
      {3, 9, 13, 1, Normalize::none, 1.0, Cost::abs},
  };
  struct TwedVariant { double nu, lambda, p; bool times; };
  const std::vector<TwedVariant> twed{{0.001, 1.0, 2.0, false}, {0.5, 0.0, 1.0, true}, {0.0, 0.3, 3.0, false},
                                      {0.1, 2.0, 2.0, true}};
  std::vector<PatternDef> patterns;
  std::vector<std::vector<float>> bases;
  std::uniform_real_distribution<double> tstep(0.3, 2.0);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    bases.push_back(random_walk(rng, c.m, c.dims));
    std::ostringstream id;
    id << "w" << i << "_d" << c.dims << "_m" << c.m << "_w" << (c.w ? c.w : c.m) << "_hop" << c.hop << "_"
       << kernels::to_string(c.normalize);
    PatternDef p = window_pattern(id.str(), c.dims, bases.back(), metric, c.w, c.hop, c.normalize);
    p.params.distance.cost = c.cost;
    if (metric != Metric::twed) p.params.distance.band = c.band;
    p.params.distance.gamma = i % 2 ? 0.1 : 1.0;
    const auto& tv = twed[i % twed.size()];
    p.params.distance.nu = tv.nu;
    p.params.distance.lambda = tv.lambda;
    p.params.distance.p = tv.p;
    if (metric == Metric::twed && tv.times) {
      double t = 10.0 * static_cast<double>(i % 3);
      for (std::size_t j = 0; j < c.m; ++j) p.times.push_back(t += tstep(rng));
    }
    patterns.push_back(std::move(p));
  }
  // a: d1, 1 s period, 0.5..1.5 s steps; c: d1, 2 s period, 0.1..4 s steps; b: d3, 0.5 s
  // period, 0.2..0.8 s steps. Each pattern planted once in every stream of its dimension.
  struct S { const char* id; std::size_t dims, length; TimeShape time; };
  const std::vector<S> shapes{{"a", 1, 420, {kSecond, kSecond / 2, 3 * kSecond / 2}},
                              {"c", 1, 300, {2 * kSecond, kSecond / 10, 4 * kSecond}},
                              {"b", 3, 360, {kSecond / 2, kSecond / 5, 4 * kSecond / 5}}};
  std::vector<StreamData> streams;
  for (const auto& sh : shapes) {
    std::vector<std::size_t> mine, lengths;
    for (std::size_t p = 0; p < patterns.size(); ++p)
      if (patterns[p].dims == sh.dims) {
        mine.push_back(p);
        lengths.push_back(patterns[p].length());
      }
    std::shuffle(mine.begin(), mine.end(), rng);
    lengths.clear();
    for (std::size_t p : mine) lengths.push_back(patterns[p].length());
    const auto pos = random_positions(rng, sh.length, lengths);
    std::vector<Plant> plants;
    for (std::size_t k = 0; k < mine.size() && k < pos.size(); ++k) plants.push_back({&bases[mine[k]], pos[k]});
    streams.push_back(walk_stream(rng, sh.id, sh.dims, sh.length, plants, 0.1f, sh.time));
  }
  Workload w = Workload::all_at_once(streams, patterns);
  const auto predicted = calibrate_window_thresholds(w, rng, 0.05);
  const std::string what = cat("window mode, ", kernels::to_string(metric));
  check_workload(backends, w, rng(), what, all_chunkings(), &predicted);
  for (const auto& p : w.patterns)
    EXPECT_TRUE(std::any_of(predicted.begin(), predicted.end(), [&](const RawMatch& m) { return m.pattern_id() == p.id; }))
        << p.id << " has no event";
}

// znorm with exactly constant stretches (values that are not powers of two, so that a
// float32 mean is not exact): those windows are flat (std 0 < 1e-8), skipped and counted
// exactly as the reference does.
inline void run_window_flat_znorm(const Backends& backends) {
  std::mt19937_64 rng(test_seed());
  std::vector<StreamData> streams;
  for (std::size_t d : {1u, 2u}) {
    StreamData s = walk_stream(rng, cat("flat", d), d, 400, {}, 0.0f);
    const float levels[] = {3.7f, 0.1f, -123.456f, 1e4f / 3.0f};
    for (int k = 0; k < 4; ++k) {
      const std::size_t from = 30 + 90 * static_cast<std::size_t>(k), to = from + 25 + 5 * static_cast<std::size_t>(k);
      for (std::size_t i = from; i < to; ++i)
        for (std::size_t c = 0; c < d; ++c)
          // d = 2: component 1 constant only on every other stretch.
          if (c == 0 || k % 2 == 0) s.values[i * d + c] = levels[k] + static_cast<float>(c);
    }
    streams.push_back(std::move(s));
  }
  std::vector<PatternDef> patterns;
  patterns.push_back(window_pattern("z_dtw_m7", 1, random_walk(rng, 7, 1), Metric::dtw, 0, 1, Normalize::znorm));
  patterns.push_back(window_pattern("z_dk_m5_w9", 1, random_walk(rng, 5, 1), Metric::dk, 9, 2, Normalize::znorm));
  patterns.push_back(window_pattern("z_twed_m6", 2, random_walk(rng, 6, 2), Metric::twed, 0, 1, Normalize::znorm));
  patterns.push_back(window_pattern("z_soft_m8_w11", 2, random_walk(rng, 8, 2), Metric::softdtw, 11, 3, Normalize::znorm));
  Workload w = Workload::all_at_once(streams, patterns);
  const auto predicted = calibrate_window_thresholds(w, rng, 0.1);
  const Outcome want = check_workload(backends, w, rng(), "znorm with flat windows", all_chunkings(), &predicted);
  EXPECT_GT(want.counters.flat_windows_skipped, 50u);
}

}  // namespace warpwatch::testing::conformance
