// The checkpoint formats (daemon/service/include/warpwatch/service/checkpoint.hpp): round
// trips to the same bytes, every kind of damage refused with a CheckpointError that names it
// (never a crash or a huge allocation), the atomic file write; and the fuzz target's corpus
// (tests/fuzz/corpus/checkpoint/), which WARPWATCH_WRITE_FUZZ_CORPUS=1 writes again.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <zlib.h>

#include "../../../fuzz/checkpoint_corpus.hpp"
#include "test_support.hpp"
#include "warpwatch/base/little_endian.hpp"
#include "warpwatch/service/checkpoint.hpp"

namespace {

using namespace warpwatch;
using service::CheckpointError;
using service::StreamRecord;

// A record with both kinds of pair, a pending window occurrence, cooldowns and positions.
StreamRecord sample_record(std::mt19937_64& rng, const std::string& id, std::size_t kept) {
  std::normal_distribution<float> value(0.0f, 1.0f);
  StreamRecord r;
  kernels::StreamSnapshot& s = r.matcher;
  s.def = {id, 2, 10'000'000};
  s.next_index = 1000 + kept;
  s.first_index = 1000;
  for (std::size_t i = 0; i < kept; ++i) {
    s.values.push_back(value(rng));
    s.values.push_back(value(rng));
    s.times_ns.push_back(1'700'000'000'000'000'000 + static_cast<std::int64_t>(i) * 10'000'000);
  }
  s.last_ns = s.times_ns.empty() ? 0 : s.times_ns.back();
  kernels::common::SpringLaneState lane;
  for (int i = 0; i < 5; ++i) {
    lane.d.push_back(value(rng));
    lane.s.push_back(1000 + i);
  }
  lane.d_min = 0.5f;
  lane.t_s = 1001;
  lane.t_e = 1003;
  s.pairs.push_back({.pattern_id = "spring", .fingerprint = rng(), .state = lane});
  s.pairs.push_back({.pattern_id = "window",
                     .fingerprint = rng(),
                     .state = kernels::WindowTrackState{
                         .first_index = 7,
                         .pending = kernels::common::WindowOccurrence{0.25, 1001, 1004, 5, 9}}});
  s.pairs.push_back(
      {.pattern_id = "quiet",
       .fingerprint = rng(),
       .state = kernels::WindowTrackState{.first_index = 0, .pending = std::nullopt}});
  r.cooldowns = {{"default", 123}, {"page", -4}};
  r.validator_last_ns = s.last_ns;
  r.positions = {{"offset", 77}, {"partition", 3}};
  return r;
}

std::string refusal(std::string_view bytes, bool file) {
  try {
    if (file)
      service::decode_checkpoint(bytes);
    else
      service::decode_stream_record(bytes);
  } catch (const CheckpointError& e) {
    return e.what();
  }
  return "";
}

void put_u32(std::string& bytes, std::size_t at, std::uint32_t v) {
  std::string le;
  stream::store_le(le, v, 4);
  bytes.replace(at, 4, le);
}

// A record whose payload a test changed, with its CRC (zlib's) made right again, so that
// only the change is wrong. The record header is 20 bytes, its CRC at 16.
std::string with_crc_fixed(std::string record) {
  const std::string payload = record.substr(20);
  put_u32(record, 16,
          static_cast<std::uint32_t>(::crc32(0L, reinterpret_cast<const Bytef*>(payload.data()),
                                             static_cast<uInt>(payload.size()))));
  return record;
}

}  // namespace

TEST(CheckpointFormat, RecordRoundTripsToTheSameBytes) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  for (std::size_t kept : {0u, 1u, 50u}) {
    const StreamRecord r = sample_record(rng, "pump.01", kept);
    const std::string bytes = service::encode_stream_record(r);
    EXPECT_EQ(bytes.substr(0, 4), "WWSR");
    const StreamRecord back = service::decode_stream_record(bytes);
    EXPECT_EQ(back, r);
    EXPECT_EQ(service::encode_stream_record(back), bytes);
  }
}

TEST(CheckpointFormat, FileRoundTripsToTheSameBytes) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  service::Checkpoint c{
      .publisher_sequence = 42, .written_ns = 17, .streams = {}, .events = std::nullopt};
  EXPECT_EQ(service::decode_checkpoint(service::encode_checkpoint(c)), c);  // none
  c.streams = {sample_record(rng, "a", 3), sample_record(rng, "b", 0)};
  const std::string bytes = service::encode_checkpoint(c);
  EXPECT_EQ(bytes.substr(0, 4), "WWCK");
  const service::Checkpoint back = service::decode_checkpoint(bytes);
  EXPECT_EQ(back, c);
  EXPECT_EQ(service::encode_checkpoint(back), bytes);
  EXPECT_EQ(bytes[4], 1) << "without the event store's section: version 1, as before it";
  // With it: version 2, the section's bytes as they were (opaque here), also empty.
  for (const std::string& events : {std::string("\x01\x02 events"), std::string()}) {
    c.events = events;
    const std::string v2 = service::encode_checkpoint(c);
    EXPECT_EQ(v2[4], 2);
    EXPECT_EQ(service::decode_checkpoint(v2), c);
    EXPECT_EQ(service::encode_checkpoint(service::decode_checkpoint(v2)), v2);
    EXPECT_NE(refusal(v2.substr(0, v2.size() - 1), true).find("truncated"), std::string::npos);
  }
}

TEST(CheckpointFormat, RefusesEveryTruncation) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  const std::string record = service::encode_stream_record(sample_record(rng, "s", 4));
  const std::string file = service::encode_checkpoint({.publisher_sequence = 1,
                                                       .written_ns = 2,
                                                       .streams = {sample_record(rng, "s", 4)},
                                                       .events = std::nullopt});
  for (std::size_t n = 0; n < record.size(); ++n)
    EXPECT_NE(refusal(record.substr(0, n), false).find("truncated"), std::string::npos) << n;
  for (std::size_t n = 0; n < file.size(); ++n)
    EXPECT_NE(refusal(file.substr(0, n), true).find("truncated"), std::string::npos) << n;
  EXPECT_NE(refusal(record + "x", false).find("trailing bytes"), std::string::npos);
  EXPECT_NE(refusal(file + "x", true).find("trailing bytes"), std::string::npos);
}

TEST(CheckpointFormat, RefusesDamagedForeignAndNewerInput) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  const std::string record = service::encode_stream_record(sample_record(rng, "s", 4));
  const std::string file = service::encode_checkpoint({.publisher_sequence = 1,
                                                       .written_ns = 2,
                                                       .streams = {sample_record(rng, "s", 4)},
                                                       .events = std::nullopt});
  for (const bool is_file : {false, true}) {
    const std::string& good = is_file ? file : record;
    std::string flipped = good;
    flipped[good.size() - 3] ^= 0x10;
    EXPECT_NE(refusal(flipped, is_file).find("checksum mismatch"), std::string::npos);
    std::string newer = good;
    newer[4] = is_file ? 3 : 2;  // files are version 2 with the event store's section
    EXPECT_NE(refusal(newer, is_file)
                  .find(is_file ? "unsupported version 3 (this reader knows 1 to 2)"
                                : "unsupported version 2 (this reader knows 1)"),
              std::string::npos)
        << refusal(newer, is_file);
    EXPECT_NE(refusal("GIF89a and then some more bytes", is_file).find("bad magic"),
              std::string::npos);
  }
}

TEST(CheckpointFormat, HugeCountsAreRefusedBeforeAnyAllocation) {
  // A record whose CRC is right but whose pair count claims 4 billion pairs: refused as
  // truncated (the count is checked against the bytes left), not allocated.
  std::mt19937_64 rng(1);
  StreamRecord r = sample_record(rng, "s", 0);
  r.matcher.pairs.clear();
  r.cooldowns.clear();
  r.positions.clear();
  const std::string good = service::encode_stream_record(r);
  // payload: str "s" (4 + 1), dims 2, period 8, next 8, last 8, first 8, pairs count 4
  const std::size_t header = 20, pairs_at = header + 5 + 2 + 8 + 8 + 8 + 8;
  for (const std::uint32_t huge : {0xFFFFFFFFu, 1'000'000u}) {
    std::string bad = good;
    put_u32(bad, pairs_at, huge);
    bad = with_crc_fixed(bad);
    EXPECT_NE(refusal(bad, false).find("truncated (pairs says " + std::to_string(huge)),
              std::string::npos)
        << refusal(bad, false);
  }
  // Out of range: dims 0.
  std::string bad = good;
  bad[header + 5] = 0;
  bad = with_crc_fixed(bad);
  EXPECT_NE(refusal(bad, false).find("field out of range: dims 0"), std::string::npos)
      << refusal(bad, false);
}

TEST(CheckpointFile, WritesAtomicallyAndReadsBack) {
  warpwatch::testing::TempDir dir;
  const std::filesystem::path path = std::filesystem::path(dir.path()) / "checkpoint.bin";
  service::write_file_atomically(path, "first");
  service::write_file_atomically(path, "second version");
  EXPECT_EQ(service::read_whole_file(path), "second version");
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 1u) << "no temporary file left behind";
  EXPECT_THROW(service::write_file_atomically(path.parent_path() / "missing" / "x", "y"),
               std::system_error);
  EXPECT_THROW(service::read_whole_file(path.parent_path() / "missing"), std::system_error);
  // Permissions: the mode asked for, less the umask, as open(2) gives them.
  const mode_t mask = ::umask(027);
  service::write_file_atomically(path, "shared");  // 0666 & ~027
  EXPECT_EQ(std::filesystem::status(path).permissions(), std::filesystem::perms::owner_read |
                                                             std::filesystem::perms::owner_write |
                                                             std::filesystem::perms::group_read);
  service::write_file_atomically(path, "own", 0600);
  EXPECT_EQ(std::filesystem::status(path).permissions(),
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  ::umask(mask);
}

// The fuzz target's starting corpus (tests/fuzz/checkpoint_corpus.hpp): the files hold what
// the current encoder writes, so that the corpus exercises this format version.
// WARPWATCH_WRITE_FUZZ_CORPUS=1 writes them (after a change of the format or the matcher).
TEST(CheckpointFuzzCorpus, IsCurrent) {
  const std::filesystem::path dir =
      std::filesystem::path(WARPWATCH_SOURCE_DIR) / "tests/fuzz/corpus/checkpoint";
  const bool write = std::getenv("WARPWATCH_WRITE_FUZZ_CORPUS") != nullptr;
  if (write) std::filesystem::create_directories(dir);
  const auto corpus = fuzz::checkpoint_corpus();
  ASSERT_EQ(corpus.size(), 5u);
  for (const auto& [name, bytes] : corpus) {
    if (write) service::write_file_atomically(dir / name, bytes);
    EXPECT_EQ(service::read_whole_file(dir / name), bytes)
        << name << " is stale: run with WARPWATCH_WRITE_FUZZ_CORPUS=1";
    // And it decodes (its first byte says how).
    const std::string_view payload = std::string_view(bytes).substr(1);
    if (bytes[0] == 0)
      EXPECT_NO_THROW(service::decode_stream_record(payload)) << name;
    else
      EXPECT_NO_THROW(service::decode_checkpoint(payload)) << name;
  }
}
