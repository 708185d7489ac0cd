// The stream id an MQTT message gets from its topic (docs/ingest.md §5): a template of
// text and placeholders. `{N}` is the topic's level N, counted from 1 (the levels of
// "plant/pump-1/temp" are plant, pump-1 and temp), `{topic}` the whole topic; `{{` and `}}`
// are literal braces. "{2}-{3}" maps plant/pump-1/temp to the stream id pump-1-temp.
// Part of warpwatch_stream_core: the configuration checks templates and filters with it at
// load.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpwatch::stream {

class TopicTemplate {
 public:
  // Throws std::invalid_argument saying what is wrong and at which column (from 1): an
  // unclosed or stray brace, an unknown placeholder, level 0.
  explicit TopicTemplate(std::string_view text = "{topic}");

  // The stream id of a message on `topic`; nullopt when the topic has fewer levels than
  // the template uses. The id is not checked here: the registry judges it as any other.
  std::optional<std::string> stream_id(std::string_view topic) const;

  // Why no topic that `filter` matches could be mapped: the filter has fewer levels than
  // the template uses and no '#' for more (a shared subscription's "$share/<group>/" does
  // not count: it is not part of the topics). nullopt when some could.
  std::optional<std::string> misfit(std::string_view filter) const;

  // The highest level a `{N}` names; 0 when the template uses none.
  std::size_t highest_level() const { return highest_level_; }
  const std::string& text() const { return text_; }

 private:
  static constexpr std::size_t whole_topic = static_cast<std::size_t>(-1);
  struct Part {
    std::string literal;    // text before the placeholder
    std::size_t level = 0;  // 0: none (the template's tail), whole_topic, or 1..
  };
  std::string text_;
  std::vector<Part> parts_;
  std::size_t highest_level_ = 0;
};

// Whether `filter` is a valid MQTT topic filter (libmosquitto's check: UTF-8 without NUL,
// 1 to 65535 bytes, '+' a whole level, '#' the whole last level).
bool is_topic_filter(std::string_view filter);

// The levels of an MQTT topic or topic filter: "a/b" and "a/#" have 2, "" has 1.
std::size_t topic_levels(std::string_view topic);

}  // namespace warpwatch::stream
