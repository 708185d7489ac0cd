// Conformance scenario 8 (conformance.hpp): a restart through Matcher::export_stream and
// Matcher::import_stream, against an uninterrupted run of the same backend.
#include <algorithm>
#include <map>

#include "conformance.hpp"
#include "inputs.hpp"
#include "warpwatch/kernels/stream_snapshot.hpp"

namespace warpwatch::testing::conformance {
namespace {

// The pattern planted across the cut in each stream (stream id -> pattern id).
const std::map<std::string, std::string> kAcrossCut = {
    {"a", "s-dk"}, {"b", "w-dtw"}, {"c", "w-zn"}, {"d", "s2-dtw"}, {"e", "w2-dk"}};
const std::string kChanged = "s-dtw";  // changed at the cut: its pairs start fresh
const std::string kLate = "f";         // a stream whose first sample comes after the cut

std::vector<PatternDef> snapshot_patterns(std::mt19937_64& rng) {
  std::vector<PatternDef> p;
  p.push_back(stream_pattern("s-dtw", 1, random_walk(rng, 24, 1), Metric::dtw, Cost::sq, 0));
  p.push_back(stream_pattern("s-dk", 1, random_walk(rng, 40, 1), Metric::dk, Cost::abs, 0));
  p.push_back(window_pattern("w-dtw", 1, random_walk(rng, 20, 1), Metric::dtw, 0, 2));
  p.push_back(
      window_pattern("w-zn", 1, random_walk(rng, 32, 1), Metric::dtw, 28, 1, Normalize::znorm));
  p.push_back(window_pattern("w-ed", 1, random_walk(rng, 16, 1), Metric::ed));
  p.push_back(stream_pattern("s2-dtw", 2, random_walk(rng, 30, 2), Metric::dtw, Cost::sq, 0));
  p.push_back(window_pattern("w2-dk", 2, random_walk(rng, 24, 2), Metric::dk, 0, 3));
  return p;
}

const PatternDef& named(const std::vector<PatternDef>& patterns, const std::string& id) {
  return *std::find_if(patterns.begin(), patterns.end(),
                       [&](const PatternDef& p) { return p.id == id; });
}

// The distance that makes `p`'s copy at `at` qualify: along the diagonal in stream mode, the
// reference's distance of the window at the copy in window mode (normalized under znorm).
// Window mode compares the window the schedule has there: pairs made at index 0 start their
// windows at multiples of hop.
double copy_distance(const PatternDef& p, const StreamData& s, std::size_t at) {
  if (p.params.mode == Mode::stream) return diagonal_cost(p, s, at);
  const std::size_t w = p.params.window ? p.params.window : p.length();
  const std::size_t hop = p.params.hop;
  at = (at + hop - 1) / hop * hop;
  std::vector<float> window(s.values.begin() + static_cast<std::ptrdiff_t>(at * s.dims),
                            s.values.begin() + static_cast<std::ptrdiff_t>((at + w) * s.dims));
  std::vector<float> pattern = p.values;
  if (p.params.normalize == Normalize::znorm) {
    znormalize(window, s.dims);
    znormalize(pattern, s.dims);
  }
  const SeriesView a{pattern.data(), p.length(), p.dims, nullptr};
  const SeriesView b{window.data(), w, s.dims, nullptr};
  return kernels::reference::distance(a, b, p.params.distance);
}

// One batch: per stream, how many samples (0 with the chunk left out when `missing`).
struct Step {
  std::size_t n;
  bool missing;
};

// Batches [from, to) of `steps`; the late stream gets chunks from batch `cut` on.
std::vector<RawMatch> run_steps(Matcher& m, const std::vector<StreamData>& streams,
                                const std::vector<Step>& steps, std::size_t from, std::size_t to,
                                std::size_t cut, std::vector<std::size_t>& pos) {
  std::vector<RawMatch> out;
  for (std::size_t k = from; k < to; ++k) {
    std::vector<StreamChunk> batch;
    for (std::size_t s = 0; s < streams.size(); ++s) {
      if (streams[s].id == kLate && k < cut) continue;
      const std::size_t n = std::min(steps[k].n, streams[s].length() - pos[s]);
      if (n == 0 && steps[k].missing) continue;
      batch.push_back(streams[s].chunk(pos[s], pos[s] + n));
      pos[s] += n;
    }
    auto got = m.process(batch);
    out.insert(out.end(), got.begin(), got.end());
  }
  return out;
}

void run_one(const Backend& backend) {
  const std::uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  std::vector<PatternDef> patterns = snapshot_patterns(rng);
  // Streams: copies of their dims' patterns every 5-40 samples, and the copy of kAcrossCut
  // at `across`, where the cut will fall.
  constexpr std::size_t length = 1400, across = 720;  // a multiple of every hop
  std::vector<StreamData> streams;
  std::vector<std::vector<Plant>> plants;
  for (const std::string id : {"a", "b", "c", "d", "e", kLate.c_str()}) {
    const std::size_t dims = id == "d" || id == "e" ? 2 : 1;
    std::vector<const PatternDef*> mine;
    for (const PatternDef& p : patterns)
      if (p.dims == dims) mine.push_back(&p);
    std::vector<Plant> here;
    std::uniform_int_distribution<std::size_t> gap(5, 40), which(0, mine.size() - 1);
    const auto it = kAcrossCut.find(id);
    bool placed = it == kAcrossCut.end();
    for (std::size_t at = gap(rng); at + 45 < length;) {
      const PatternDef* p = mine[which(rng)];
      if (!placed && at + p->length() + 5 > across) {  // the copies before end before `across`
        at = across;
        p = &named(patterns, it->second);
        placed = true;
      }
      here.push_back({&p->values, at});
      at += p->length() + gap(rng);
    }
    plants.push_back(here);
    streams.push_back(walk_stream(rng, id, dims, length, here, 0.05f));
  }
  // Thresholds above every copy's distance: dense matches.
  for (PatternDef& p : patterns) {
    double worst = 0.0;
    for (std::size_t s = 0; s < streams.size(); ++s)
      for (const Plant& plant : plants[s])
        if (plant.values == &p.values)
          worst = std::max(worst, copy_distance(p, streams[s], plant.at));
    p.params.threshold = worst * 1.2 + 1e-3;
  }
  PatternDef changed = named(patterns, kChanged);
  changed.params.threshold *= 0.9;
  // Batches of 0-7 samples a stream; the cut after the first that reaches across + 8, so
  // every copy planted at `across` (16 samples or more) is in progress.
  std::vector<Step> steps;
  std::size_t cut = 0;
  for (std::size_t fed = 0; fed < length;) {
    const Step step{std::uniform_int_distribution<std::size_t>(0, 7)(rng),
                    std::uniform_int_distribution<int>(0, 3)(rng) == 0};
    steps.push_back(step);
    fed += step.n;
    if (cut == 0 && fed >= across + 8) cut = steps.size();
  }
  for (std::size_t k = 0; k < length / 4; ++k) steps.push_back({4, false});  // the late stream's

  const auto make = [&](const std::vector<PatternDef>& ps) {
    std::unique_ptr<Matcher> m = backend.make_matcher();
    for (const PatternDef& p : ps) m->add_pattern(p);
    return m;
  };
  // Uninterrupted, the changed pattern replaced at the cut.
  std::unique_ptr<Matcher> whole = make(patterns);
  for (const StreamData& s : streams) whole->add_stream(s.def());
  std::vector<std::size_t> pos(streams.size(), 0);
  std::vector<RawMatch> want = run_steps(*whole, streams, steps, 0, cut, cut, pos);
  const std::vector<std::size_t> cut_pos = pos;
  whole->remove_pattern(kChanged);  // its pending candidates are not reported after a restart
  whole->add_pattern(changed);
  {
    auto after = run_steps(*whole, streams, steps, cut, steps.size(), cut, pos);
    want.insert(want.end(), after.begin(), after.end());
    auto flushed = whole->flush();
    want.insert(want.end(), flushed.begin(), flushed.end());
  }

  // Interrupted at the cut.
  std::unique_ptr<Matcher> before = make(patterns);
  for (const StreamData& s : streams) before->add_stream(s.def());
  pos.assign(streams.size(), 0);
  std::vector<RawMatch> got = run_steps(*before, streams, steps, 0, cut, cut, pos);
  std::vector<std::string> ids;
  for (const StreamData& s : streams) ids.push_back(s.id);
  // All at once (one call to the backend, as a checkpoint does), each equal to its own export.
  const std::vector<kernels::StreamSnapshot> saved = before->export_streams(ids);
  for (std::size_t i = 0; i < streams.size(); ++i)
    EXPECT_EQ(before->export_stream(streams[i].id), saved[i])
        << backend.name << ": exporting changed stream " << streams[i].id;
  before.reset();
  std::vector<PatternDef> restarted_patterns = patterns;
  for (PatternDef& p : restarted_patterns)
    if (p.id == kChanged) p = changed;
  std::unique_ptr<Matcher> after = make(restarted_patterns);
  after->add_stream(streams[1].def());  // imported over
  for (const kernels::StreamSnapshot& snapshot : saved) {
    const kernels::StreamRestore r = after->import_stream(snapshot);
    const std::string& id = snapshot.def.id;
    EXPECT_TRUE(r.dropped.empty()) << id;
    std::size_t expected_restored = 0;
    for (const PatternDef& p : patterns)
      if (p.dims == snapshot.def.dims && p.id != kChanged) ++expected_restored;
    EXPECT_EQ(r.restored.size(), expected_restored) << backend.name << " stream " << id;
    if (snapshot.def.dims == 1) {
      ASSERT_EQ(r.fresh.size(), 1u) << id;
      EXPECT_EQ(r.fresh[0].pattern_id, kChanged);
      EXPECT_EQ(r.fresh[0].reason, "pattern changed");
    } else {
      EXPECT_TRUE(r.fresh.empty()) << id;
    }
  }
  {
    auto rest = run_steps(*after, streams, steps, cut, steps.size(), cut, pos);
    got.insert(got.end(), rest.begin(), rest.end());
    auto flushed = after->flush();
    got.insert(got.end(), flushed.begin(), flushed.end());
  }
  expect_same_matches(
      sorted(got), sorted(want),
      cat(backend.name, ": restored at the cut vs uninterrupted (seed ", seed, ")"));
  // The copies planted across the cut were in progress there, and are reported: a match
  // of the pattern ends after the cut and starts before a pattern's length past it (window
  // mode under znorm may report a window a few samples after the planted one, the best of
  // the run of qualifying windows the copy began before the cut).
  for (std::size_t s = 0; s < streams.size(); ++s) {
    const auto it = kAcrossCut.find(streams[s].id);
    if (it == kAcrossCut.end()) continue;
    const std::size_t length = named(patterns, it->second).length();
    const bool spans = std::any_of(want.begin(), want.end(), [&](const RawMatch& m) {
      return m.stream_id() == streams[s].id && m.pattern_id() == it->second &&
             m.start_index < cut_pos[s] + length && m.end_index >= cut_pos[s];
    });
    std::string near;
    for (const RawMatch& m : want)
      if (m.stream_id() == streams[s].id && m.end_index + 100 > cut_pos[s] &&
          m.start_index < cut_pos[s] + 100)
        near += describe(m) + "\n";
    EXPECT_TRUE(spans) << near << backend.name << ": no match of " << it->second << " on "
                       << streams[s].id << " is in progress at the cut at " << cut_pos[s]
                       << " (seed " << seed << ")";
  }
}

}  // namespace

void run_snapshot_restore(const Backends& backends) {
  for (const Backend& b : backends) run_one(b);
}

}  // namespace warpwatch::testing::conformance
