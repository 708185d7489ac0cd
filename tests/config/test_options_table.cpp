// The option table (config/options/options.cpp): consistent declarations, defaults that agree
// with daemon_config.hpp, and docs/configuration.md's configuration reference generated from
// it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_support.hpp"
#include "in_replay/in_replay.hpp"
#include "in_sub/in_sub.hpp"
#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/config/options.hpp"
#include "warpwatch/kernels/params.hpp"
#include "warpwatch/plugins/registry.hpp"

namespace fs = std::filesystem;
using namespace warpwatch::config;

namespace {

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// "scheduler" for "scheduler.tick_ms", "ingest" for "ingest[].pull", "" at the top.
std::string parent_of(std::string_view name, bool& is_list_entry) {
  const std::size_t dot = name.rfind('.');
  std::string parent(dot == std::string_view::npos ? "" : name.substr(0, dot));
  is_list_entry = parent.ends_with("[]");
  if (is_list_entry) parent.resize(parent.size() - 2);
  return parent;
}

// The ingest kinds' rows come from their plugins, registered before the table is built.
class OptionsTable : public ::testing::Test {
 protected:
  void SetUp() override { warpwatch::plugins::register_builtin_plugins(); }
};

TEST_F(OptionsTable, DocsContainTheGeneratedReference) {
  const fs::path docs = fs::path(WARPWATCH_SOURCE_DIR) / "docs" / "configuration.md";
  const std::string text = read_text(docs);
  ASSERT_FALSE(text.empty()) << docs;
  EXPECT_NE(text.find(options_reference_markdown()), std::string::npos)
      << "docs/configuration.md's configuration reference (section 3) differs from the option "
         "table; regenerate it with `warpwatch check-config --reference`:\n"
      << options_reference_markdown();
}

TEST_F(OptionsTable, ReferenceHasOneRowPerOption) {
  const std::string reference = options_reference_markdown();
  std::size_t rows = 0;
  for (std::size_t at = reference.find("\n| `"); at != std::string::npos;
       at = reference.find("\n| `", at + 1))
    ++rows;
  EXPECT_EQ(rows, option_table().size());
}

TEST_F(OptionsTable, NamesAreUniqueAndNestUnderSectionsAndLists) {
  std::set<std::string_view> names;
  for (const OptionInfo& option : option_table()) {
    EXPECT_TRUE(names.insert(option.name).second) << "declared twice: " << option.name;
    bool is_list_entry = false;
    const std::string parent = parent_of(option.name, is_list_entry);
    if (parent.empty()) continue;
    const OptionInfo* owner = find_option(parent);
    ASSERT_NE(owner, nullptr) << option.name << " has no parent " << parent;
    EXPECT_EQ(owner->type, is_list_entry ? OptionType::list : OptionType::section) << option.name;
    EXPECT_LT(owner, &option) << "a parent comes before its children: " << option.name;
  }
}

TEST_F(OptionsTable, DeclarationsAreComplete) {
  for (const OptionInfo& option : option_table()) {
    SCOPED_TRACE(std::string(option.name));
    EXPECT_FALSE(option.help.empty());
    const bool container = option.type == OptionType::section || option.type == OptionType::list;
    EXPECT_EQ(option.set == nullptr, container) << "values need a setter; containers have none";
    if (container) {
      EXPECT_TRUE(option.default_yaml.empty());
    }
    if (option.required) {
      EXPECT_TRUE(option.default_yaml.empty()) << "required, yet a default";
    }
    EXPECT_EQ(option.type == OptionType::choice, !option.choices.empty());
    if (option.type == OptionType::choice && !option.default_yaml.empty()) {
      const auto& c = option.choices;
      EXPECT_NE(std::find(c.begin(), c.end(), option.default_yaml), c.end());
    }
  }
}

// The header's initializers and the table's defaults must agree: code that builds a
// DaemonConfig by hand (tests, the daemon's fallbacks) then behaves like an empty file.
// Loading this file also applies, and so checks, every default of the table.
TEST_F(OptionsTable, DefaultsAgreeWithTheHeader) {
  const fs::path dir = warpwatch::testing::temp_dir("options_table_defaults");
  warpwatch::testing::write_file(dir / "p.csv", "1,2,3\n");
  const std::string path = warpwatch::testing::write_file(
      dir / "warpwatch.yaml",
      "ingest: [{sub: 'tcp://a:1'}, {replay: p.csv, stream: s}]\n"
      "streams: {declared: [{id: s}]}\n"
      "libraries: [{name: l, defaults: {threshold: 0}, patterns: [{id: p, file: p.csv}]}]\n"
      "rules: [{name: r}]\n");
  const DaemonConfig c = warpwatch::plugins::load_daemon_config(path);
  const DaemonConfig header;
  EXPECT_EQ(c.instance, header.instance);
  EXPECT_EQ(c.backend, header.backend);
  EXPECT_EQ(c.cpu_threads, header.cpu_threads);
  EXPECT_EQ(c.tick, header.tick);
  EXPECT_EQ(c.batch_samples, header.batch_samples);
  EXPECT_EQ(c.max_message_bytes, header.max_message_bytes);
  EXPECT_EQ(c.live.auto_create_streams, header.live.auto_create_streams);
  EXPECT_EQ(c.live.max_streams, header.live.max_streams);
  EXPECT_EQ(c.live.auto_dims, header.live.auto_dims);
  EXPECT_EQ(c.publish_endpoint, header.publish_endpoint);
  EXPECT_EQ(c.send_high_water_mark, header.send_high_water_mark);
  EXPECT_EQ(c.events_file, header.events_file);
  EXPECT_EQ(c.http.listen, header.http.listen);
  EXPECT_EQ(c.drain_grace, header.drain_grace);

  // The plugins' structs (daemon/plugins/in_<kind>/) hold their defaults.
  const warpwatch::plugins::in_sub::SubOptions sub;
  const warpwatch::plugins::in_replay::ReplayOptions replay;
  using warpwatch::plugins::in_replay::ReplayOptions;
  using warpwatch::plugins::in_sub::SubOptions;
  EXPECT_EQ(c.ingest.at(0).options_as<SubOptions>().topic, sub.topic);
  EXPECT_EQ(c.ingest.at(1).options_as<ReplayOptions>().rate_hz, replay.rate_hz);
  EXPECT_EQ(c.ingest.at(1).options_as<ReplayOptions>().period_ns, replay.period_ns);
  const StreamDecl stream;
  EXPECT_EQ(c.live.streams.at(0).def.dims, stream.def.dims);
  EXPECT_EQ(c.live.streams.at(0).def.nominal_period_ns, stream.def.nominal_period_ns);
  const Rule rule;
  EXPECT_EQ(c.live.rules.at(0).streams, rule.streams);
  EXPECT_EQ(c.live.rules.at(0).patterns, rule.patterns);
  EXPECT_EQ(c.live.rules.at(0).libraries, rule.libraries);
  EXPECT_EQ(c.live.rules.at(0).threshold, rule.threshold);
  EXPECT_EQ(c.live.rules.at(0).cooldown, rule.cooldown);
  EXPECT_EQ(c.live.rules.at(0).severity, rule.severity);
  EXPECT_EQ(c.live.rules.at(0).labels, rule.labels);

  // Pattern parameters: the table's defaults are the kernels' MatchParams defaults.
  const warpwatch::kernels::MatchParams params;
  const auto& p = c.live.libraries.at(0).patterns.at(0).params;
  EXPECT_EQ(p.distance.metric, params.distance.metric);
  EXPECT_EQ(p.distance.cost, params.distance.cost);
  EXPECT_EQ(p.distance.band, params.distance.band);
  EXPECT_EQ(p.distance.gamma, params.distance.gamma);
  EXPECT_EQ(p.distance.nu, params.distance.nu);
  EXPECT_EQ(p.distance.lambda, params.distance.lambda);
  EXPECT_EQ(p.distance.p, params.distance.p);
  EXPECT_EQ(p.distance.c, params.distance.c);
  EXPECT_EQ(p.distance.g, params.distance.g);
  EXPECT_EQ(p.distance.epsilon, params.distance.epsilon);
  EXPECT_EQ(p.distance.delta, params.distance.delta);
  EXPECT_EQ(p.distance, params.distance);
  EXPECT_EQ(p.mode, params.mode);
  EXPECT_EQ(p.window, params.window);
  EXPECT_EQ(p.hop, params.hop);
  EXPECT_EQ(p.normalize, params.normalize);
}

// The metric option's choices are the list of measures (kernels/measures.hpp), in its order.
TEST_F(OptionsTable, MetricChoicesComeFromTheListOfMeasures) {
  const OptionInfo* metric = find_option("libraries[].defaults.metric");
  ASSERT_NE(metric, nullptr);
  std::vector<std::string> choices(metric->choices.begin(), metric->choices.end());
  EXPECT_EQ(choices, warpwatch::kernels::metric_names());
  for (const char* name : {"msm", "erp", "lcss"})
    EXPECT_NE(std::string(metric->help).find(std::string("`") + name + "`"), std::string::npos)
        << metric->help;
  for (const char* leaf : {"c", "g", "epsilon", "delta"})
    EXPECT_NE(find_option(std::string("libraries[].defaults.") + leaf), nullptr) << leaf;
}

}  // namespace
