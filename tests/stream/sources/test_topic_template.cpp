// MQTT topics to stream ids (stream/topic_template.hpp): placeholders, escapes, topics with
// too few levels, templates and filters refused with the reason, and filters that a
// template can never map.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "warpwatch/stream/sources/topic_template.hpp"

namespace {

using warpwatch::stream::is_topic_filter;
using warpwatch::stream::topic_levels;
using warpwatch::stream::TopicTemplate;

TEST(TopicTemplate, LevelsAndTheWholeTopicMakeTheId) {
  EXPECT_EQ(TopicTemplate().stream_id("plant/pump-1/temp"), "plant/pump-1/temp");
  EXPECT_EQ(TopicTemplate("{2}-{3}").stream_id("plant/pump-1/temp"), "pump-1-temp");
  EXPECT_EQ(TopicTemplate("{3}.{1}").stream_id("a/b/c/d"), "c.a") << "any order, more levels";
  EXPECT_EQ(TopicTemplate("site:{1}:{topic}").stream_id("a/b"), "site:a:a/b");
  EXPECT_EQ(TopicTemplate("{{{1}}}").stream_id("x/y"), "{x}") << "escaped braces";
  EXPECT_EQ(TopicTemplate("fixed").stream_id("any/topic"), "fixed");
  EXPECT_EQ(TopicTemplate("{2}").stream_id("a//c"), "") << "an empty level: the registry judges";
  EXPECT_EQ(TopicTemplate("{2}").stream_id("a/"), "");
  EXPECT_EQ(TopicTemplate("{2}-{3}").highest_level(), 3u);
  EXPECT_EQ(TopicTemplate().highest_level(), 0u);
}

TEST(TopicTemplate, ATopicWithTooFewLevelsHasNoId) {
  EXPECT_EQ(TopicTemplate("{3}").stream_id("a/b"), std::nullopt);
  EXPECT_EQ(TopicTemplate("{2}").stream_id("a"), std::nullopt);
  EXPECT_EQ(TopicTemplate("{1}").stream_id(""), "") << "every topic has a first level";
}

TEST(TopicTemplate, BadTemplatesSayWhatAndWhere) {
  const auto error = [](const char* text) {
    try {
      TopicTemplate t(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(error("a-{2"),
            "stream template 'a-{2', column 3: a '{' that is not closed (write '{{' for a brace)");
  EXPECT_EQ(error("a}"),
            "stream template 'a}', column 2: a '}' that closes nothing (write '}}' for a brace)");
  EXPECT_EQ(error("{0}"),
            "stream template '{0}', column 1: topic levels count from 1: {0} names "
            "none");
  EXPECT_EQ(error("x{}"),
            "stream template 'x{}', column 2: unknown placeholder '{}': use {topic} "
            "or a topic level {1}, {2}, ...");
  EXPECT_EQ(error("{-1}"),
            "stream template '{-1}', column 1: unknown placeholder '{-1}': use "
            "{topic} or a topic level {1}, {2}, ...");
}

TEST(TopicTemplate, AFilterTheTemplateCanNeverMapIsNamed) {
  const TopicTemplate t("{2}-{3}");
  EXPECT_EQ(t.misfit("a/+/+"), std::nullopt);
  EXPECT_EQ(t.misfit("a/#"), std::nullopt) << "'#' matches deeper topics";
  EXPECT_EQ(t.misfit("#"), std::nullopt);
  EXPECT_EQ(t.misfit("a/+"),
            "the topic filter 'a/+' matches topics of 2 levels, the stream "
            "template '{2}-{3}' uses level 3");
  EXPECT_EQ(t.misfit("$share/workers/a/+/+"), std::nullopt)
      << "a shared subscription's prefix is not part of the topics";
  EXPECT_NE(t.misfit("$share/workers/a/+"), std::nullopt);
  EXPECT_EQ(TopicTemplate().misfit("a"), std::nullopt);
}

TEST(TopicTemplate, TopicFiltersAreCheckedByLibmosquitto) {
  for (const char* ok : {"a", "a/b", "+", "+/b/+", "#", "a/#", "$SYS/#", "$share/g/a/+", "a b"})
    EXPECT_TRUE(is_topic_filter(ok)) << ok;
  for (const char* bad : {"", "a/#/b", "a#", "a/b+", "#/a"})
    EXPECT_FALSE(is_topic_filter(bad)) << bad;
  EXPECT_FALSE(is_topic_filter(std::string("a\0b", 3))) << "NUL";
  EXPECT_FALSE(is_topic_filter("a/\xff")) << "not UTF-8";
  EXPECT_EQ(topic_levels("a/b/c"), 3u);
  EXPECT_EQ(topic_levels(""), 1u);
}

}  // namespace
