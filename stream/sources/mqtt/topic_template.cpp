#include "warpwatch/stream/sources/topic_template.hpp"

#include <mosquitto.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace warpwatch::stream {
namespace {

[[noreturn]] void bad_template(std::string_view text, std::size_t at, std::string_view why) {
  std::string message = "stream template '";
  message.append(text);
  message.append("', column ");
  message.append(std::to_string(at + 1));
  message.append(": ");
  message.append(why);
  throw std::invalid_argument(message);
}

}  // namespace

TopicTemplate::TopicTemplate(std::string_view text) : text_(text) {
  std::string literal;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '}') {
      if (i + 1 < text.size() && text[i + 1] == '}') {
        literal.push_back('}');
        ++i;
        continue;
      }
      bad_template(text, i, "a '}' that closes nothing (write '}}' for a brace)");
    }
    if (c != '{') {
      literal.push_back(c);
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '{') {
      literal.push_back('{');
      ++i;
      continue;
    }
    const std::size_t close = text.find('}', i);
    if (close == std::string_view::npos)
      bad_template(text, i, "a '{' that is not closed (write '{{' for a brace)");
    const std::string_view name = text.substr(i + 1, close - i - 1);
    Part part{std::move(literal), 0};
    literal.clear();
    if (name == "topic") {
      part.level = whole_topic;
    } else {
      std::size_t level = 0;
      const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), level);
      if (name.empty() || ec != std::errc() || end != name.data() + name.size()) {
        std::string why = "unknown placeholder '{";
        why.append(name);
        why.append("}': use {topic} or a topic level {1}, {2}, ...");
        bad_template(text, i, why);
      }
      if (level == 0) bad_template(text, i, "topic levels count from 1: {0} names none");
      part.level = level;
      highest_level_ = std::max(highest_level_, level);
    }
    parts_.push_back(std::move(part));
    i = close;
  }
  parts_.push_back({std::move(literal), 0});
}

std::optional<std::string> TopicTemplate::stream_id(std::string_view topic) const {
  // The levels the template names, split once (a template usually names two or three).
  std::vector<std::string_view> levels;
  if (highest_level_ > 0) {
    levels.reserve(highest_level_);
    std::size_t from = 0;
    while (levels.size() < highest_level_) {
      const std::size_t slash = topic.find('/', from);
      levels.push_back(topic.substr(from, slash == std::string_view::npos ? slash : slash - from));
      if (slash == std::string_view::npos) break;
      from = slash + 1;
    }
    if (levels.size() < highest_level_) return std::nullopt;
  }
  std::string id;
  for (const Part& part : parts_) {
    id.append(part.literal);
    if (part.level == whole_topic)
      id.append(topic);
    else if (part.level > 0)
      id.append(levels[part.level - 1]);
  }
  return id;
}

std::optional<std::string> TopicTemplate::misfit(std::string_view filter) const {
  if (filter.starts_with("$share/")) {
    const std::size_t group_end = filter.find('/', 7);
    filter =
        group_end == std::string_view::npos ? std::string_view() : filter.substr(group_end + 1);
  }
  const std::size_t levels = topic_levels(filter);
  if (filter.ends_with("#") || levels >= highest_level_) return std::nullopt;
  std::string why = "the topic filter '";
  why.append(filter);
  why.append("' matches topics of ");
  why.append(std::to_string(levels));
  why.append(levels == 1 ? " level" : " levels");
  why.append(", the stream template '");
  why.append(text_);
  why.append("' uses level ");
  why.append(std::to_string(highest_level_));
  return why;
}

bool is_topic_filter(std::string_view filter) {
  return !filter.empty() && filter.size() <= 65535 &&
         mosquitto_validate_utf8(filter.data(), static_cast<int>(filter.size())) ==
             MOSQ_ERR_SUCCESS &&
         mosquitto_sub_topic_check2(filter.data(), filter.size()) == MOSQ_ERR_SUCCESS;
}

std::size_t topic_levels(std::string_view topic) {
  return static_cast<std::size_t>(std::count(topic.begin(), topic.end(), '/')) + 1;
}

}  // namespace warpwatch::stream
