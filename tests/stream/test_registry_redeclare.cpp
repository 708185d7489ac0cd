// StreamRegistry::redeclare (a configuration reload's stream declarations).
#include <gtest/gtest.h>

#include <stdexcept>

#include "warpwatch/stream/registry.hpp"

namespace {

using namespace warpwatch::stream;

RegistryOptions auto_on(std::size_t dims = 1) {
  RegistryOptions o;
  o.auto_create = true;
  o.auto_dims = dims;
  return o;
}

TEST(RegistryRedeclare, AddsChangesAndRemovesDeclaredStreams) {
  StreamRegistry r({{"keep", 1, 10}, {"grow", 1, 10}, {"gone", 1, 10}});
  r.count_accepted("grow", 5);
  const StreamChanges c = r.redeclare({{"keep", 1, 10}, {"grow", 3, 10}, {"new", 2, 10}}, {});
  ASSERT_EQ(c.added.size(), 1u);
  EXPECT_EQ(c.added[0]->id, "new");
  ASSERT_EQ(c.changed.size(), 1u);
  EXPECT_EQ(c.changed[0].before->dims, 1u);
  EXPECT_EQ(c.changed[0].after->dims, 3u);
  EXPECT_EQ(c.removed, std::vector<std::string>{"gone"});

  EXPECT_TRUE(r.admit("grow", 3).ok());
  EXPECT_EQ(r.admit("grow", 1).rejected, RejectReason::wrong_dims);
  EXPECT_EQ(r.admit("gone", 1).rejected, RejectReason::unknown_stream);
  EXPECT_TRUE(r.admit("new", 2).ok());
  const auto s = r.snapshot();
  ASSERT_EQ(s.streams.size(), 3u);
  EXPECT_EQ(s.streams[0].stream->id, "grow");
  EXPECT_EQ(s.streams[0].accepted_samples, 5u) << "a changed stream keeps its counters";
}

TEST(RegistryRedeclare, PeriodChangeIsAChange) {
  StreamRegistry r({{"s", 1, 10}});
  const StreamChanges c = r.redeclare({{"s", 1, 20}}, {});
  ASSERT_EQ(c.changed.size(), 1u);
  EXPECT_EQ(c.changed[0].after->nominal_period_ns, 20);
  EXPECT_TRUE(r.redeclare({{"s", 1, 20}}, {}).empty()) << "the same declarations change nothing";
}

TEST(RegistryRedeclare, AutoCreatedStreamsFollowTheAutoCreateOption) {
  StreamRegistry r({}, auto_on());
  ASSERT_TRUE(r.admit("a1", 1).ok());
  ASSERT_TRUE(r.admit("a2", 1).ok());
  // a1 becomes declared (same shape: unchanged); a2 stays auto-created.
  StreamChanges c = r.redeclare({{"a1", 1, 1'000'000'000}}, auto_on());
  EXPECT_TRUE(c.empty());
  EXPECT_TRUE(r.snapshot().streams[0].declared);
  // Auto-creation off: a2 goes, a1 (declared) stays.
  c = r.redeclare({{"a1", 1, 1'000'000'000}}, {});
  EXPECT_EQ(c.removed, std::vector<std::string>{"a2"});
  EXPECT_EQ(r.admit("a3", 1).rejected, RejectReason::unknown_stream);
}

TEST(RegistryRedeclare, AutoCreatedStreamsCountTowardsTheLimitOnlyWhileAuto) {
  RegistryOptions one = auto_on();
  one.max_auto_streams = 1;
  StreamRegistry r({}, one);
  ASSERT_TRUE(r.admit("a1", 1).ok());
  EXPECT_EQ(r.admit("a2", 1).rejected, RejectReason::too_many_streams);
  r.redeclare({{"a1", 1, 1'000'000'000}}, one);  // a1 declared: the auto slot is free again
  EXPECT_TRUE(r.admit("a2", 1).ok());
}

TEST(RegistryRedeclare, InvalidDeclarationsChangeNothing) {
  StreamRegistry r({{"s", 1, 10}});
  EXPECT_THROW(r.redeclare({{"t", 1, 10}, {"t", 1, 10}}, {}), std::invalid_argument);
  EXPECT_THROW(r.redeclare({{"bad id", 1, 10}}, {}), std::invalid_argument);
  EXPECT_THROW(r.redeclare({{"t", 65, 10}}, {}), std::invalid_argument);
  EXPECT_TRUE(r.admit("s", 1).ok());
  EXPECT_EQ(r.admit("t", 1).rejected, RejectReason::unknown_stream);
}

}  // namespace
