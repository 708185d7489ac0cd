// The matcher that fuzz_checkpoint.cpp imports decoded records into, and the records its
// corpus starts from (tests/fuzz/corpus/checkpoint/): exported from that matcher after
// deterministic input, so that their fingerprints match its patterns and a mutated record
// reaches Matcher::import_stream's checks of the saved state. test_checkpoint.cpp writes
// the corpus (WARPWATCH_WRITE_FUZZ_CORPUS=1) and checks that it is current.
#pragma once

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "warpwatch/kernels/reference.hpp"
#include "warpwatch/kernels/stream_snapshot.hpp"
#include "warpwatch/service/checkpoint.hpp"

namespace warpwatch::fuzz {

// A stream-mode and a window-mode pattern (d 1), and one of d 2.
inline std::unique_ptr<kernels::Matcher> checkpoint_matcher() {
  auto m = kernels::reference::make_matcher();
  kernels::PatternDef spring;
  spring.id = "spring";
  spring.values = {0, 1, 2, 3, 2, 1};
  spring.params.threshold = 2.0;
  m->add_pattern(spring);
  kernels::PatternDef window = spring;
  window.id = "window";
  window.params.mode = kernels::Mode::window;
  window.params.hop = 2;
  window.params.normalize = kernels::Normalize::znorm;
  m->add_pattern(window);
  kernels::PatternDef wide = spring;
  wide.id = "wide";
  wide.dims = 2;
  wide.values = {0, 0, 1, -1, 2, -2, 1, -1};
  m->add_pattern(wide);
  return m;
}

// The corpus: file name -> bytes (a 0 or 1 in front: record or checkpoint file, as the
// target reads its input).
inline std::map<std::string, std::string> checkpoint_corpus() {
  auto m = checkpoint_matcher();
  m->add_stream(kernels::StreamDef{"s", 1, 10'000'000});
  m->add_stream(kernels::StreamDef{"wide", 2, 10'000'000});
  m->add_stream(kernels::StreamDef{"idle", 1, 10'000'000});
  std::vector<float> s, wide;
  std::vector<std::int64_t> t;
  for (int i = 0; i < 40; ++i) {
    s.push_back(static_cast<float>(std::sin(i * 0.7) * 3));  // copies of the pattern come and go
    wide.push_back(static_cast<float>(i % 4));
    wide.push_back(static_cast<float>(-(i % 4)));
    t.push_back(1'700'000'000'000'000'000 + i * 10'000'000);
  }
  const std::vector<kernels::StreamChunk> batch = {{"s", s, t}, {"wide", wide, t}};
  m->process(batch);
  std::map<std::string, std::string> out;
  service::Checkpoint file{
      .publisher_sequence = 9, .written_ns = 1, .streams = {}, .events = std::nullopt};
  for (const std::string id : {"s", "wide", "idle"}) {
    service::StreamRecord r;
    r.matcher = m->export_stream(id);
    r.cooldowns = {{"default", 1'700'000'000'100'000'000}};
    r.validator_last_ns = r.matcher.next_index ? r.matcher.last_ns : service::no_timestamp;
    if (id == "s") r.positions = {{"offset", 40}, {"partition", 0}};
    out["record-" + id] = std::string(1, '\0') + service::encode_stream_record(r);
    file.streams.push_back(std::move(r));
  }
  out["file-three-streams"] = std::string(1, '\1') + service::encode_checkpoint(file);
  file.streams.clear();
  out["file-empty"] = std::string(1, '\1') + service::encode_checkpoint(file);
  return out;
}

}  // namespace warpwatch::fuzz
