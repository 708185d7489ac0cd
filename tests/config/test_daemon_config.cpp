// load_daemon_config and `warpwatch check-config`: a full configuration read into the
// expected values, and every kind of error at its exact file:line:column.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>

#include "cli_test_support.hpp"
#include "config_error_support.hpp"
#include "in_influx/in_influx.hpp"
#include "in_pull/in_pull.hpp"
#include "in_replay/in_replay.hpp"
#include "in_sub/in_sub.hpp"
#include "warpwatch/base/timestamps.hpp"
#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/config/options.hpp"
#include "warpwatch/plugins/registry.hpp"

namespace fs = std::filesystem;
using namespace warpwatch::config;
using warpwatch::testing::run_cli;
using warpwatch::testing::temp_dir;
using warpwatch::testing::write_file;

namespace {

// A fresh folder per test: ctest runs the tests of this binary as parallel processes.
fs::path test_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(info->test_suite_name()) + "_" + info->name();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return temp_dir(name);
}

const fs::path example_yaml =
    fs::path(WARPWATCH_SOURCE_DIR) / "config" / "examples" / "example.yaml";

// The pattern files (and the empty password file) that error cases name.
void write_pattern_files(const fs::path& dir) {
  write_file(dir / "two.csv", "0,1,2,1,0\n1,2,3,2,1\n");
  write_file(dir / "bad.csv", "0,1,2\n0,oops,2\n");
  write_file(dir / "empty.txt", "\n");
  write_file(dir / "one.csv", "0,1,2,1,0\n");
  std::string long_row = "0";  // one series of 10000 samples
  for (int i = 1; i < 10000; ++i) long_row += ",1";
  write_file(dir / "long.csv", long_row + "\n");
}

// Lines 1-5 of the pattern cases; their pattern entry is line 6: `      - {id: p, ...`
// (`{` at column 9, the id's value at 14, the next key at 17).
#define PATTERNS                                                                                \
  "streams: {auto_create: true}\nlibraries:\n  - name: lib\n    defaults: {threshold: 1}\n    " \
  "patterns:\n"

using ErrorCase = warpwatch::testing::ConfigErrorCase;

const ErrorCase error_cases[] = {
    // unknown keys
    {"unknown_key_near_miss", "scheduler:\n  tick_msec: 5\n", 2, 3,
     "unknown key 'tick_msec' in 'scheduler' (did you mean 'tick_ms'?)"},
    {"unknown_top_level_key", "instance: a\nfrobnicate: 1\n", 2, 1,
     "unknown key 'frobnicate' at the top level"},
    {"unknown_pattern_key", PATTERNS "      - {id: p, values: [1, 2], metrik: dk}\n", 6, 33,
     "unknown key 'metrik' in 'libraries[].patterns[]' (did you mean 'metric'?)"},
    {"unknown_default_key", "libraries:\n  - name: l\n    defaults: {threshold: 1, gama: 2}\n", 3,
     30, "unknown key 'gama' in 'libraries[].defaults' (did you mean 'gamma'?)"},
    {"duplicate_key", "instance: a\ninstance: b\n", 2, 1,
     "duplicate key 'instance' at the top level"},
    // wrong types
    {"not_a_map", "- a\n", 1, 1, "the configuration must be a map"},
    {"integer_expected", "scheduler:\n  tick_ms: fast\n", 2, 12,
     "'scheduler.tick_ms' must be an integer, got 'fast'"},
    {"section_expected", "scheduler: 5\n", 1, 12, "'scheduler' must be a map"},
    {"list_expected", "rules: {name: a}\n", 1, 8, "'rules' must be a list"},
    {"list_entry_map_expected", "rules:\n  - just-a-name\n", 2, 5,
     "each entry of 'rules' must be a map"},
    {"boolean_expected", "streams:\n  auto_create: maybe\n", 2, 16,
     "'streams.auto_create' must be true or false, got 'maybe'"},
    {"map_expected", "rules:\n  - {name: a, labels: [x]}\n", 2, 23,
     "'rules[].labels' must be a map"},
    {"finite_number_expected", "libraries:\n  - name: l\n    defaults: {threshold: .nan}\n", 3, 27,
     "'libraries[].defaults.threshold' must be a finite number, got '.nan'"},
    {"endpoint_expected", "publish:\n  endpoint: 5556\n", 2, 13,
     "'publish.endpoint' must be a ZeroMQ endpoint"},
    // out of range
    {"integer_out_of_range", "scheduler:\n  tick_ms: 0\n", 2, 12,
     "'scheduler.tick_ms' must be 1 to 60000, got 0"},
    {"event_store_out_of_range", "event_store:\n  context_samples: 2000000\n", 2, 20,
     "'event_store.context_samples' must be 0 to 1048576, got 2000000"},
    {"history_negative", "history: {samples_per_stream: -1}\n", 1, 31,
     "'history.samples_per_stream' must be 0 to 16777216, got -1"},
    {"history_unknown_key", "history:\n  samples: 10\n", 2, 3,
     "unknown key 'samples' in 'history'"},
    {"dims_out_of_range", "streams:\n  declared:\n    - {id: a, dims: 65}\n", 3, 21,
     "'streams.declared[].dims' must be 1 to 64, got 65"},
    {"number_out_of_range", "libraries:\n  - name: l\n    defaults: {threshold: 1, gamma: 0}\n", 3,
     37, "'libraries[].defaults.gamma' must be > 0 and <= 1e+38, got 0"},
    {"period_under_a_nanosecond", "streams:\n  auto_period_ms: 0.0000001\n", 2, 19,
     "'streams.auto_period_ms' must be 1e-06 to 1000000000, got 0.0000001"},
    // issue 16: every value that passes the table converts and applies (periods in int64 ns,
    // parameters in float32, ports, replay timestamps and pacing)
    {"period_beyond_int64_ns", "streams:\n  declared:\n    - {id: a, period_ms: 1e300}\n", 3, 26,
     "'streams.declared[].period_ms' must be 1e-06 to 1000000000, got 1e300"},
    {"replay_rate_out_of_range",
     "streams: {auto_create: true}\ningest:\n  - {replay: one.csv, stream: s, rate_hz: 1e300}\n", 3,
     43, "'ingest[].rate_hz' must be 0 to 1000000000, got 1e300"},
    {"replay_timestamps_beyond_int64",
     "streams: {auto_create: true}\ningest:\n  - {replay: long.csv, stream: s, period_ms: 1e9}\n",
     3, 14, "has 10000 samples: at 'period_ms' 1000000000.000000 the last timestamp is beyond"},
    {"replay_pacing_beyond_1e9_s",
     "streams: {auto_create: true}\ningest:\n  - {replay: long.csv, stream: s, rate_hz: "
     "0.000001}\n",
     3, 14, "sending them would take more than 1e9 s"},
    {"replay_of_two_series",
     "streams: {auto_create: true}\ningest:\n  - {replay: two.csv, stream: s}\n", 3, 14,
     "holds 2 series: a replay entry takes a file of one non-empty series"},
    {"replay_dims_differ",
     "streams:\n  declared:\n    - {id: s, dims: 2}\ningest:\n  - {replay: one.csv, stream: s}\n",
     5, 14, "has 1 values per sample, stream 's' 2"},
    {"threshold_beyond_float32", PATTERNS "      - {id: p, values: [1, 2], threshold: 1e39}\n", 6,
     44, "must be -1e+38 to 1e+38, got 1e39"},
    {"nu_beyond_float32", "libraries:\n  - name: l\n    defaults: {threshold: 1, nu: 1e39}\n", 3,
     34, "'libraries[].defaults.nu' must be 0 to 1e+38, got 1e39"},
    {"times_beyond_float32", PATTERNS "      - {id: p, values: [1, 2], times: [0, 1e39]}\n", 6, 44,
     "is out of the float32 range"},
    {"constant_pattern_under_znorm",
     PATTERNS "      - {id: p, values: [1, 1, 1], mode: window, znorm: true}\n", 6, 57,
     "pattern 'p' is constant: znorm is undefined"},
    {"tcp_port_out_of_range", "publish:\n  endpoint: 'tcp://127.0.0.1:99999'\n", 2, 13,
     "must be a ZeroMQ endpoint (tcp://host:port with a port 0 to 65535 or *"},
    {"ipc_path_too_long",
     "publish:\n  endpoint: 'ipc:///tmp/"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'\n",
     2, 13, "ipc://path of at most 107 bytes"},
    {"integer_plus_minus", "scheduler:\n  tick_ms: +-5\n", 2, 12,
     "'scheduler.tick_ms' must be an integer, got '+-5'"},
    {"number_plus_minus", "streams:\n  auto_period_ms: +-5\n", 2, 19,
     "'streams.auto_period_ms' must be a finite number, got '+-5'"},
    {"unknown_choice", "backend: gpu\n", 1, 10,
     "'backend' must be one of `auto`, `cuda`, `cpu`, `reference`, got 'gpu' (did you mean "
     "'cpu'?)"},
    {"stream_id_with_space", "streams:\n  declared:\n    - {id: 'a b'}\n", 3, 12,
     "stream id 'a b': whitespace in stream id"},
    // missing required fields
    {"missing_stream_id", "streams:\n  declared:\n    - dims: 2\n", 3, 7,
     "missing required key 'id' in 'streams.declared[]'"},
    {"missing_rule_name", "rules:\n  - severity: warning\n", 2, 5,
     "missing required key 'name' in 'rules[]'"},
    {"missing_threshold",
     "streams: {auto_create: true}\nlibraries:\n  - name: lib\n    patterns:\n      - {id: p, "
     "values: [1, 2]}\n",
     5, 9, "pattern 'p' has no threshold"},
    {"missing_replay_stream", "ingest:\n  - {replay: two.csv}\n", 2, 5,
     "missing required key 'stream'"},
    // duplicates
    {"duplicate_stream_id", "streams:\n  declared:\n    - {id: a}\n    - {id: a}\n", 4, 12,
     "duplicate stream id 'a' (first at "},
    {"duplicate_pattern_id_across_libraries",
     PATTERNS "      - {id: p, values: [1, 2]}\n  - name: other\n    defaults: {threshold: 1}\n"
              "    patterns:\n      - {id: p, values: [3, 4]}\n",
     10, 14, "duplicate pattern id 'p'"},
    {"duplicate_pattern_id_from_file_rows",
     PATTERNS "      - {id: p, file: two.csv}\n      - {id: 'p:1', values: [1, 2]}\n", 7, 14,
     "duplicate pattern id 'p:1'"},
    {"duplicate_library_name",
     "streams: {auto_create: true}\nlibraries:\n  - name: l\n  - name: l\n", 4, 11,
     "duplicate library name 'l'"},
    {"duplicate_rule_name", "rules:\n  - name: a\n  - name: a\n", 3, 11, "duplicate rule name 'a'"},
    // pattern files
    {"missing_pattern_file", PATTERNS "      - {id: p, file: nope.csv}\n", 6, 23,
     "nope.csv: cannot open file"},
    {"malformed_pattern_file", PATTERNS "      - {id: p, file: bad.csv}\n", 6, 23,
     "cannot load pattern file: "},  // the pattern file's own location: test below
    {"row_out_of_range", PATTERNS "      - {id: p, file: two.csv, row: 2}\n", 6, 37,
     "row 2 is out of range"},
    {"file_and_values", PATTERNS "      - {id: p, file: two.csv, values: [1, 2]}\n", 6, 32,
     "needs exactly one of 'file' and 'values'"},
    {"file_key_on_inline_pattern", PATTERNS "      - {id: p, values: [1, 2], row: 1}\n", 6, 33,
     "'row' applies to patterns read from a 'file'"},
    {"time_column_in_rows_layout", PATTERNS "      - {id: p, file: two.csv, time_column: 0}\n", 6,
     32, "'time_column' needs 'layout: columns'"},
    // a part of a recording: start/end
    {"pattern_end_beyond_series", PATTERNS "      - {id: p, file: two.csv, start: 1, end: 9}\n", 6,
     47, "'end' 9 is beyond the series: two:0 in "},  // the message goes on: test below
    {"pattern_end_not_after_start", PATTERNS "      - {id: p, file: two.csv, start: 3, end: 2}\n",
     6, 47, "'end' 2 must be greater than 'start' 3 (end is exclusive)"},
    {"pattern_start_on_inline_values", PATTERNS "      - {id: p, values: [1, 2], start: 1}\n", 6,
     33, "'start' applies to patterns read from a 'file'"},
    // replay: how its file is read
    {"replay_time_column_in_rows_layout",
     "streams: {auto_create: true}\ningest:\n  - {replay: one.csv, stream: s, time_column: 0}\n", 3,
     34, "'time_column' needs 'layout: columns'"},
    {"replay_value_column_twice",
     "streams: {auto_create: true}\ningest:\n  - {replay: m.csv, stream: s, layout: columns, "
     "value_columns: [1, 1]}\n",
     3, 68, "'ingest[].value_columns' lists column 1 twice"},
    // dims and shapes
    {"ragged_values", PATTERNS "      - {id: p, values: [[1, 2], [3]]}\n", 6, 34,
     "has samples of different dims: sample 1 has 1 values, sample 0 has 2"},
    {"times_count_mismatch", PATTERNS "      - {id: p, values: [1, 2], times: [0]}\n", 6, 40,
     "'times' has 1 timestamps, the pattern has 2 samples"},
    {"times_not_increasing", PATTERNS "      - {id: p, values: [1, 2], times: [0, 0]}\n", 6, 44,
     "'times' must increase"},
    {"pattern_too_short", PATTERNS "      - {id: p, values: [1]}\n", 6, 25,
     "a pattern needs at least 2"},
    {"dims_fit_no_stream",
     "streams:\n  declared:\n    - {id: s, dims: 1}\nlibraries:\n  - name: lib\n"
     "    defaults: {threshold: 1}\n    patterns:\n      - {id: p, values: [[1, 2], [3, 4]]}\n",
     8, 25,
     "pattern 'p' has 2 dims, which no stream has (declared streams have dims 1; "
     "'streams.auto_create' is false)"},
    // parameters, through kernels::validate
    {"stream_mode_twed_on_pattern", PATTERNS "      - {id: p, values: [1, 2], metric: twed}\n", 6,
     41, "pattern 'p': stream mode supports the metrics dtw and dk only"},
    {"stream_mode_softdtw_in_defaults",
     "streams: {auto_create: true}\nlibraries:\n  - name: lib\n    defaults: {threshold: 1, "
     "metric: softdtw}\n"
     "    patterns:\n      - {id: p, values: [1, 2]}\n",
     4, 38, "pattern 'p': stream mode supports the metrics dtw and dk only"},
    {"window_of_one", PATTERNS "      - {id: p, values: [1, 2], mode: window, window: 1}\n", 6, 55,
     "pattern 'p': window must be 0 (the pattern length) or >= 2 samples"},
    // ed: window mode only, no band, w = m
    {"stream_mode_ed", PATTERNS "      - {id: p, values: [1, 2], metric: ed}\n", 6, 41,
     "pattern 'p': stream mode supports the metrics dtw and dk only"},
    {"ed_with_a_band",
     PATTERNS "      - {id: p, values: [1, 2], metric: ed, mode: window, band: 2}\n", 6, 65,
     "pattern 'p': band does not apply to the metric ed"},
    {"ed_window_not_the_pattern_length",
     PATTERNS "      - {id: p, values: [1, 2, 3], metric: ed, mode: window, window: 2}\n", 6, 70,
     "pattern 'p': window must be the pattern's length for the metric ed (it compares the window "
     "with the pattern sample by sample): the window is 2 samples, the pattern 3"},
    // msm, erp, lcss: their parameters' ranges, stream mode and band refused
    {"msm_c_negative", "libraries:\n  - name: l\n    defaults: {threshold: 1, c: -1}\n", 3, 33,
     "'libraries[].defaults.c' must be"},
    {"lcss_epsilon_zero", "libraries:\n  - name: l\n    defaults: {threshold: 1, epsilon: 0}\n", 3,
     39, "'libraries[].defaults.epsilon' must be > 0"},
    {"lcss_delta_negative", "libraries:\n  - name: l\n    defaults: {threshold: 1, delta: -2}\n", 3,
     37, "'libraries[].defaults.delta' must be"},
    {"erp_g_beyond_float32", "libraries:\n  - name: l\n    defaults: {threshold: 1, g: 1e39}\n", 3,
     33, "'libraries[].defaults.g' must be"},
    {"stream_mode_msm", PATTERNS "      - {id: p, values: [1, 2], metric: msm}\n", 6, 41,
     "pattern 'p': stream mode supports the metrics dtw and dk only"},
    {"stream_mode_lcss", PATTERNS "      - {id: p, values: [1, 2], metric: lcss}\n", 6, 41,
     "pattern 'p': stream mode supports the metrics dtw and dk only"},
    {"lcss_with_a_band",
     PATTERNS "      - {id: p, values: [1, 2], metric: lcss, mode: window, band: 2}\n", 6, 67,
     "pattern 'p': band does not apply to the metric lcss"},
    {"msm_with_a_band",
     PATTERNS "      - {id: p, values: [1, 2], metric: msm, mode: window, band: 1}\n", 6, 66,
     "pattern 'p': band does not apply to the metric msm"},
    // ingest
    {"ingest_without_source", "ingest:\n  - {topic: x}\n", 2, 5,
     "an ingest entry needs one of 'pull', 'sub', 'replay', 'mqtt', 'influx', 'kafka'"},
    {"ingest_two_sources", "ingest:\n  - {pull: 'tcp://*:5555', sub: 'tcp://a:1'}\n", 2, 28,
     "an ingest entry has one source"},
    {"topic_without_sub", "ingest:\n  - {pull: 'tcp://*:5555', topic: x}\n", 2, 28,
     "'topic' applies to 'sub' entries only"},
    {"replay_stream_undeclared", "ingest:\n  - {replay: two.csv, stream: s}\n", 2, 31,
     "replay stream 's' is not declared"},
    {"replay_file_missing",
     "streams: {auto_create: true}\ningest:\n  - {replay: nope.csv, stream: s}\n", 3, 14,
     "cannot read replay file"},
    {"endpoint_bound_twice", "ingest:\n  - {pull: 'tcp://*:5555'}\n  - {pull: 'tcp://*:5555'}\n", 3,
     12, "duplicate pull endpoint 'tcp://*:5555'"},
    {"pull_on_publish_endpoint", "ingest:\n  - {pull: 'tcp://127.0.0.1:5556'}\n", 2, 12,
     "is also 'publish.endpoint'"},
    // alert sinks
    {"sink_without_kind", "sinks:\n  - {queue: 5}\n", 2, 5,
     "a sink entry needs one of 'alertmanager', 'webhook', 'kafka'"},
    // kafka (the entry's `kafka:` value is at column 12 of line 2)
    {"kafka_sink_without_topic", "sinks:\n  - kafka: {brokers: 'b:9092'}\n", 2, 12,
     "missing required key 'topic' in 'kafka'"},
    {"kafka_sink_with_headers", "sinks:\n  - {kafka: {brokers: b, topic: t}, headers: {A: b}}\n", 2,
     37, "'headers' applies to 'alertmanager' and 'webhook' entries only"},
    {"kafka_sink_reserved_property",
     "sinks:\n  - kafka: {brokers: b, topic: t, properties: {message.timeout.ms: '1'}}\n", 2, 47,
     "kafka properties: 'message.timeout.ms' is set by warpwatch itself"},
    {"sink_two_kinds", "sinks:\n  - {alertmanager: 'http://a:1', webhook: 'http://b:2'}\n", 2, 34,
     "a sink entry has one kind: 'alertmanager' and 'webhook' need two entries"},
    {"https_url", "sinks:\n  - webhook: https://x/\n", 2, 14,
     "'sinks[].webhook' must be an http:// URL: alert sinks speak plain HTTP, not https"},
    {"url_with_credentials", "sinks:\n  - webhook: http://u:p@x/\n", 2, 14,
     "must not hold user:password@"},
    {"url_port_zero", "sinks:\n  - webhook: http://x:0/\n", 2, 14,
     "has a port that is not 1 to 65535, got 'http://x:0/'"},
    {"hmac_on_alertmanager", "sinks:\n  - {alertmanager: 'http://a:9093', hmac_secret_file: s}\n",
     2, 37, "'hmac_secret_file' applies to 'webhook' entries only"},
    {"alertmanager_url_with_query", "sinks:\n  - alertmanager: 'http://a:9093/?x=1'\n", 2, 19,
     "an Alertmanager URL is a base (the sink adds /api/v2/alerts): no ?query"},
    {"hmac_secret_file_missing", "sinks:\n  - {webhook: 'http://a/', hmac_secret_file: nope}\n", 2,
     46, "cannot read the HMAC secret file"},
    {"header_set_by_the_sink", "sinks:\n  - webhook: 'http://a/'\n    headers: {Content-Type: x}\n",
     3, 15, "header 'Content-Type' is set by the sink itself"},
    {"header_name_not_a_token", "sinks:\n  - webhook: 'http://a/'\n    headers: {'a b': x}\n", 3,
     15, "header name 'a b' is not an HTTP token"},
    {"signature_header_not_a_token",
     "sinks:\n  - {webhook: 'http://a/', signature_header: 'X Sig'}\n", 2, 46,
     "header name 'X Sig' is not an HTTP token"},
    {"backoff_over_max_backoff",
     "sinks:\n  - {webhook: 'http://a/', backoff_ms: 50, max_backoff_ms: 10}\n", 2, 40,
     "'backoff_ms' (50) is larger than 'max_backoff_ms' (10)"},
    {"duplicate_default_sink_name",
     "sinks:\n  - webhook: 'http://a/x'\n  - webhook: 'http://a/y'\n", 3, 5,
     "duplicate sink name 'webhook a:80' (first at "},
    {"rule_label_not_for_alertmanager",
     "rules:\n  - {name: r, labels: {team-name: ops}}\nsinks:\n  - alertmanager: 'http://a:9093'\n",
     2, 24, "label name 'team-name' is not a Prometheus label name"},
    {"resolve_out_of_range", "rules:\n  - {name: r, resolve_ms: 0}\n", 2, 27,
     "'rules[].resolve_ms' must be 1 to 604800000, got 0"},
    // mqtt (the entry's `mqtt:` value is at column 11 of line 2)
    {"mqtt_without_host", "ingest:\n  - mqtt: {topics: a}\n", 2, 11,
     "missing required key 'host' in 'mqtt'"},
    {"mqtt_without_topics", "ingest:\n  - mqtt: {host: h}\n", 2, 11,
     "missing required key 'topics' in 'mqtt'"},
    {"mqtt_and_pull", "ingest:\n  - {pull: 'tcp://*:5555', mqtt: {host: h, topics: a}}\n", 2, 28,
     "an ingest entry has one source: 'pull' and 'mqtt' need two entries"},
    {"topic_on_mqtt", "ingest:\n  - {mqtt: {host: h, topics: a}, topic: x}\n", 2, 34,
     "'topic' applies to 'sub' entries only"},
    {"mqtt_bad_filter", "ingest:\n  - mqtt: {host: h, topics: [a/+, a/#/b]}\n", 2, 35,
     "topic filter 'a/#/b' is not valid MQTT ('+' must be a whole level, '#' the whole last one)"},
    {"mqtt_template_misfit",
     "ingest:\n  - mqtt: {host: h, topics: [a/#, b/+], stream_template: '{1}.{3}'}\n", 2, 35,
     "the topic filter 'b/+' matches topics of 2 levels, the stream template '{1}.{3}' uses "
     "level 3"},
    {"mqtt_bad_template", "ingest:\n  - mqtt: {host: h, topics: a, stream_template: 'x{2'}\n", 2,
     49, "stream template 'x{2', column 2: a '{' that is not closed (write '{{' for a brace)"},
    {"mqtt_qos_2", "ingest:\n  - mqtt: {host: h, topics: a, qos: 2}\n", 2, 37,
     "'ingest[].mqtt.qos' must be 0 to 1, got 2"},
    {"mqtt_bad_payload", "ingest:\n  - mqtt: {host: h, topics: a, payload: xml}\n", 2, 41,
     "'ingest[].mqtt.payload' must be one of `auto`, `frame`, `text`, `json`, got 'xml'"},
    {"mqtt_session_without_client_id",
     "ingest:\n  - mqtt: {host: h, topics: a, clean_session: false}\n", 2, 47,
     "'clean_session: false' needs a 'client_id'"},
    {"mqtt_inline_password", "ingest:\n  - mqtt: {host: h, topics: a, password: x}\n", 2, 32,
     "unknown key 'password' in 'ingest[].mqtt'"},
    {"mqtt_password_without_username",
     "ingest:\n  - mqtt: {host: h, topics: a, password_file: two.csv}\n", 2, 32,
     "'password_file' needs a 'username'"},
    {"mqtt_password_file_missing",
     "ingest:\n  - mqtt: {host: h, topics: a, username: u, password_file: nope}\n", 2, 60,
     "cannot read password file"},
    {"mqtt_password_file_empty",
     "ingest:\n  - mqtt: {host: h, topics: a, username: u, password_file: empty.txt}\n", 2, 60,
     "password file"},
    {"mqtt_ca_file_missing", "ingest:\n  - mqtt: {host: h, topics: a, tls: {ca_file: x.pem}}\n", 2,
     47, "cannot read"},
    {"mqtt_certificate_without_key",
     "ingest:\n  - mqtt: {host: h, topics: a, tls: {cert_file: two.csv}}\n", 2, 38,
     "a client certificate needs both 'cert_file' and 'key_file'"},
    {"kafka_without_group", "ingest:\n  - kafka: {brokers: 'b:9092', topic: t}\n", 2, 12,
     "missing required key 'group_id' in 'kafka'"},
    {"kafka_reserved_property",
     "ingest:\n  - kafka: {brokers: b, topic: t, group_id: g, properties: {group.id: x}}\n", 2, 60,
     "kafka properties: 'group.id' is set by warpwatch itself"},
    {"kafka_unknown_property",
     "ingest:\n  - kafka: {brokers: b, topic: t, group_id: g, properties: {no.such: x}}\n", 2, 60,
     "kafka properties: No such configuration property: \"no.such\""},
    {"kafka_short_session",
     "ingest:\n  - kafka: {brokers: b, topic: t, group_id: g, session_timeout_ms: 10}\n", 2, 68,
     "'ingest[].kafka.session_timeout_ms' must be 1000 to 3600000, got 10"},
    {"mqtt_reconnect_max_below_min",
     "ingest:\n  - mqtt: {host: h, topics: a, reconnect_min_ms: 500, reconnect_max_ms: 100}\n", 2,
     73, "'reconnect_max_ms' is less than 'reconnect_min_ms'"},
    // influx (line protocol): `  - {influx: ` puts the address at column 14, and after
    // `'tcp://127.0.0.1:0', ` the next key is at column 35
    {"influx_not_a_socket_address", "ingest:\n  - {influx: 'http://127.0.0.1:8094'}\n", 2, 14,
     "'ingest[].influx' must be tcp://host:port or udp://host:port (port 0 to 65535), got "
     "'http://127.0.0.1:8094'"},
    {"influx_port_out_of_range", "ingest:\n  - {influx: 'udp://127.0.0.1:65536'}\n", 2, 14,
     "must be tcp://host:port or udp://host:port"},
    {"influx_unknown_placeholder",
     "ingest:\n  - {influx: 'tcp://127.0.0.1:0', stream_template: '{host}'}\n", 2, 52,
     "unknown placeholder '{host}' (known: {measurement}, {field}, {tag:KEY}) in stream id "
     "template '{host}'"},
    {"influx_template_with_space",
     "ingest:\n  - {influx: 'tcp://127.0.0.1:0', stream_template: 'a {measurement}'}\n", 2, 52,
     "whitespace or NUL"},
    {"influx_fixed_without_fields",
     "ingest:\n  - {influx: 'tcp://127.0.0.1:0', stream_template: '{measurement}'}\n", 2, 14,
     "the stream id template has no {field}, so 'fields' must list the fields"},
    {"influx_field_twice",
     "ingest:\n  - {influx: 'tcp://127.0.0.1:0', stream_template: '{measurement}', fields: [a, "
     "a]}\n",
     2, 77, "field key 'a' is listed twice in 'fields'"},
    {"influx_key_on_pull", "ingest:\n  - {pull: 'tcp://*:5555', fields: [a]}\n", 2, 28,
     "'fields' applies to 'influx' entries only"},
    {"topic_on_influx", "ingest:\n  - {influx: 'tcp://127.0.0.1:0', topic: x}\n", 2, 35,
     "'topic' applies to 'sub' entries only"},
    {"max_connections_on_udp", "ingest:\n  - {influx: 'udp://127.0.0.1:0', max_connections: 5}\n",
     2, 35, "'max_connections' applies to tcp:// 'influx' entries only"},
    {"unknown_precision", "ingest:\n  - {influx: 'tcp://127.0.0.1:0', precision: sec}\n", 2, 46,
     "'ingest[].precision' must be one of `ns`, `us`, `ms`, `s`, got 'sec'"},
    {"influx_bound_twice",
     "ingest:\n  - {influx: 'tcp://127.0.0.1:8094'}\n  - {influx: 'tcp://127.0.0.1:8094'}\n", 3, 14,
     "duplicate influx address 'tcp://127.0.0.1:8094'"},
    {"influx_lines_over_budget",
     "limits: {memory_budget_bytes: 16777216, queue_bytes: 1048576, receive_hwm: 1}\ningest:\n"
     "  - {influx: 'tcp://127.0.0.1:0', max_connections: 1024}\n",
     1, 1,
     "queue_bytes 1048576 + receive_hwm 1 x max_message_bytes 1048576 + influx line buffers "
     "67174400 = 69271552"},
    // limits that do not fit the memory budget
    {"queue_over_budget", "limits:\n  memory_budget_bytes: 67108864\n  queue_bytes: 67108864\n", 1,
     1,
     "the ingest limits do not fit in limits.memory_budget_bytes (67108864): queue_bytes "
     "67108864 + receive_hwm 8 x max_message_bytes 1048576 = 75497472"},
    {"stream_queue_over_queue", "limits: {queue_bytes: 1000, stream_queue_bytes: 2000}\n", 1, 1,
     "limits.stream_queue_bytes (2000) is larger than limits.queue_bytes (1000)"},
};

class DaemonConfigError : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(DaemonConfigError, NamesFileLineColumn) {
  const ErrorCase& c = GetParam();
  const fs::path dir = test_dir();
  write_pattern_files(dir);
  warpwatch::testing::expect_config_error(write_file(dir / "warpwatch.yaml", c.yaml), c);
}

INSTANTIATE_TEST_SUITE_P(DaemonConfig, DaemonConfigError, ::testing::ValuesIn(error_cases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(DaemonConfig, PatternFileErrorNamesBothFiles) {
  const fs::path dir = test_dir();
  write_pattern_files(dir);
  const std::string path =
      write_file(dir / "warpwatch.yaml", PATTERNS "      - {id: p, file: bad.csv}\n");
  try {
    warpwatch::plugins::load_daemon_config(path);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    // The configuration's `file:` value, then the pattern file's row and field.
    EXPECT_EQ(std::string(e.what()),
              path + ":6:23: cannot load pattern file: " + (dir / "bad.csv").string() +
                  ":2:2: 'oops' is not a number; if this file has one series per column, use "
                  "`layout: columns`, with `value_columns: [...]` naming the numeric columns "
                  "(CLI: --layout columns --value-columns ...)");
  }
}

// `start`/`end`: samples [start, end) of the file's series; past the end, the error says
// the series' length and that `end` is exclusive.
TEST(DaemonConfig, PatternIsAPartOfARecording) {
  const fs::path dir = test_dir();
  write_file(dir / "rec.csv", "t,a,b\n0,1,10\n1,2,20\n2,3,30\n3,4,40\n4,5,50\n");
  const std::string path = write_file(
      dir / "warpwatch.yaml",
      "streams: {auto_create: true, auto_dims: 2}\nlibraries:\n  - name: lib\n"
      "    defaults: {threshold: 1}\n    patterns:\n"
      "      - {id: p, file: rec.csv, layout: columns, time_column: 0, start: 1, end: 4}\n"
      "      - {id: q, file: rec.csv, layout: columns, time_column: 0, value_columns: [2, "
      "1], start: 3}\n");
  const DaemonConfig c = warpwatch::plugins::load_daemon_config(path);
  ASSERT_EQ(c.live.libraries.size(), 1u);
  ASSERT_EQ(c.live.libraries[0].patterns.size(), 2u);
  const auto& p = c.live.libraries[0].patterns[0];
  EXPECT_EQ(p.dims, 2u);
  EXPECT_EQ(p.values, (std::vector<float>{2, 20, 3, 30, 4, 40}));
  EXPECT_EQ(p.times, (std::vector<double>{0, 1, 2}));  // relative to the part's start
  const auto& q = c.live.libraries[0].patterns[1];
  EXPECT_EQ(q.dims, 2u);
  EXPECT_EQ(q.values, (std::vector<float>{40, 4, 50, 5}));  // in the order named
  const std::string message = warpwatch::testing::config_error_of(
      "streams: {auto_create: true}\nlibraries:\n  - name: lib\n    defaults: {threshold: 1}\n"
      "    patterns:\n      - {id: p, file: " +
      (dir / "rec.csv").string() + ", layout: columns, value_columns: [1], end: 6}\n");
  EXPECT_NE(message.find("'end' 6 is beyond the series: rec in " + (dir / "rec.csv").string() +
                         " has 5 samples (indices 0 to 4); 'end' is exclusive, at most 5"),
            std::string::npos)
      << message;
}

// A replay entry reads its file as `warpwatch search` does: a multivariate CSV with a time
// column, the values of the columns named in their order, the samples at the file's times.
TEST(DaemonConfig, ReplayReadsColumnsOfAMultivariateFile) {
  using warpwatch::plugins::in_replay::ReplayOptions;
  const fs::path dir = test_dir();
  write_file(dir / "m.csv",
             "timestamp,x,y,z,label\n"
             "1970-01-01 00:00:01.000,1,2,3,a\n"
             "1970-01-01 00:00:01.500,4,5,6,b\n"
             "1970-01-01 00:00:02.250,7,8,9,c\n");
  const std::string path =
      write_file(dir / "warpwatch.yaml",
                 "streams: {auto_create: true, auto_dims: 2}\ningest:\n"
                 "  - {replay: m.csv, stream: s, layout: columns, time_column: 0, "
                 "value_columns: [3, 1]}\n");
  const DaemonConfig c = warpwatch::plugins::load_daemon_config(path);
  ASSERT_EQ(c.ingest.size(), 1u);
  const ReplayOptions& replay = c.ingest[0].options_as<ReplayOptions>();
  ASSERT_TRUE(replay.samples);
  EXPECT_EQ(replay.samples->dims, 2u);
  EXPECT_EQ(replay.samples->values, (std::vector<float>{3, 1, 6, 4, 9, 7}));
  EXPECT_EQ(replay.samples->times_ns,
            (std::vector<std::int64_t>{1'000'000'000, 1'500'000'000, 2'250'000'000}));
  // Without `layout: columns` the date in the first column says what to write.
  const std::string message = warpwatch::testing::config_error_of(
      "streams: {auto_create: true}\ningest:\n  - {replay: " + (dir / "m.csv").string() +
      ", stream: s}\n");
  EXPECT_NE(message.find(":3:14: cannot load replay file: " + (dir / "m.csv").string() +
                         ":2:1: '1970-01-01 00:00:01.000' is not a number; if this file has one "
                         "series per column with a time column, use `layout: columns` and "
                         "`time_column: 0` (CLI: --layout columns --time-column 0) (line 1 was "
                         "read as a header and skipped)"),
            std::string::npos)
      << message;
}

// `start: now` shifts the replayed times so that the first is the wall clock when the file
// is read, keeping their spacing (alerts carry real times, not 1970's).
TEST(DaemonConfig, ReplayStartNowShiftsTheTimesToTheWallClock) {
  using warpwatch::plugins::in_replay::ReplayOptions;
  const fs::path dir = test_dir();
  write_file(dir / "v.csv", "1,2,3\n");
  write_file(dir / "m.csv", "t,x\n10,1\n10.5,2\n12,3\n");
  const std::int64_t before = warpwatch::stream::wall_clock_ns();
  const DaemonConfig c = warpwatch::plugins::load_daemon_config(
      write_file(dir / "warpwatch.yaml",
                 "streams: {auto_create: true}\ningest:\n"
                 "  - {replay: v.csv, stream: a, period_ms: 10, start: now}\n"
                 "  - {replay: m.csv, stream: b, layout: columns, time_column: 0, start: now}\n"
                 "  - {replay: v.csv, stream: c, period_ms: 10}\n"));
  const std::int64_t after = warpwatch::stream::wall_clock_ns();
  ASSERT_EQ(c.ingest.size(), 3u);
  const auto times = [&](std::size_t k) {
    return c.ingest[k].options_as<ReplayOptions>().samples->times_ns;
  };
  const auto a = times(0), b = times(1);
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_GE(a[0], before);
  EXPECT_LE(a[0], after);
  EXPECT_EQ(a[1] - a[0], 10'000'000);
  EXPECT_EQ(a[2] - a[0], 20'000'000);
  EXPECT_GE(b[0], before);
  EXPECT_LE(b[0], after);
  EXPECT_EQ(b[1] - b[0], 500'000'000);
  EXPECT_EQ(b[2] - b[0], 2'000'000'000);
  // The default, `file`: as read.
  EXPECT_EQ(times(2), (std::vector<std::int64_t>{0, 10'000'000, 20'000'000}));
}

TEST(DaemonConfig, NoSuggestionForAFarMiss) {
  const fs::path dir = test_dir();
  const std::string path = write_file(dir / "warpwatch.yaml", "frobnicate: 1\n");
  try {
    warpwatch::plugins::load_daemon_config(path);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).find("did you mean"), std::string::npos) << e.what();
  }
}

TEST(DaemonConfig, EmptyFileGivesTheDefaultsAndTheImplicitRule) {
  const fs::path dir = test_dir();
  const DaemonConfig c =
      warpwatch::plugins::load_daemon_config(write_file(dir / "warpwatch.yaml", "# nothing\n"));
  EXPECT_EQ(c.instance, "warpwatch");
  EXPECT_EQ(c.backend, warpwatch::kernels::Backend::automatic);
  EXPECT_EQ(c.tick.count(), 10);
  EXPECT_EQ(c.batch_samples, 0u);  // the backend's: batch_samples_for
  EXPECT_EQ(batch_samples_for(c.batch_samples, warpwatch::kernels::Backend::cpu), 65536u);
  EXPECT_EQ(batch_samples_for(c.batch_samples, warpwatch::kernels::Backend::cuda), 1048576u);
  EXPECT_EQ(batch_samples_for(512, warpwatch::kernels::Backend::cuda), 512u);
  // The ingest limits, derived from the default budget of 1 GiB, are the struct's defaults.
  const DaemonConfig defaults;
  EXPECT_EQ(c.memory_budget_bytes, std::size_t{1} << 30);
  EXPECT_EQ(c.queue_bytes, std::size_t{256} << 20);
  EXPECT_EQ(c.stream_queue_bytes, std::size_t{16} << 20);
  EXPECT_EQ(c.receive_high_water_mark, 128);
  EXPECT_EQ(c.queue_bytes, defaults.queue_bytes);
  EXPECT_EQ(c.stream_queue_bytes, defaults.stream_queue_bytes);
  EXPECT_EQ(c.receive_high_water_mark, defaults.receive_high_water_mark);
  EXPECT_TRUE(c.ingest.empty());
  EXPECT_TRUE(c.live.streams.empty());
  EXPECT_TRUE(c.live.libraries.empty());
  ASSERT_EQ(c.live.rules.size(), 1u);
  EXPECT_EQ(c.live.rules[0].name, "default");
  EXPECT_EQ(c.live.rules[0].streams, std::vector<std::string>{"*"});
  EXPECT_EQ(c.live.rules[0].patterns, std::vector<std::string>{"*"});
  EXPECT_EQ(c.live.rules[0].libraries, std::vector<std::string>{"*"});
  EXPECT_FALSE(c.live.rules[0].threshold);
  EXPECT_EQ(c.live.rules[0].severity, Severity::info);
  EXPECT_EQ(c.publish_endpoint, "tcp://127.0.0.1:5556");
  EXPECT_FALSE(c.events_file);
}

TEST(DaemonConfig, EventStoreAndHistoryKeysAreReadAndDefaultSanely) {
  const fs::path dir = test_dir();
  const DaemonConfig defaults =
      warpwatch::plugins::load_daemon_config(write_file(dir / "warpwatch.yaml", "# nothing\n"));
  EXPECT_EQ(defaults.event_store.max_events, 10000u);
  EXPECT_EQ(defaults.event_store.max_bytes, std::size_t{64} << 20);
  EXPECT_EQ(defaults.event_store.context_samples, 256u);
  EXPECT_EQ(defaults.history.samples_per_stream, 4096u);
  EXPECT_EQ(defaults.history.max_bytes, std::size_t{256} << 20);
  const DaemonConfig c = warpwatch::plugins::load_daemon_config(
      write_file(dir / "warpwatch.yaml",
                 "event_store: {max_events: 5, max_bytes: 1000, context_samples: 0}\n"
                 "history: {samples_per_stream: 0, max_bytes: 99}\n"));
  EXPECT_EQ(c.event_store.max_events, 5u);
  EXPECT_EQ(c.event_store.max_bytes, 1000u);
  EXPECT_EQ(c.event_store.context_samples, 0u);
  EXPECT_EQ(c.history.samples_per_stream, 0u);
  EXPECT_EQ(c.history.max_bytes, 99u);
  // Read at start: a reload names them.
  EXPECT_EQ(warpwatch::config::startup_options_changed(defaults, c),
            (std::vector<std::string>{"event_store", "history"}));
}

TEST(DaemonConfig, LimitsDeriveFromTheBudgetUnlessSet) {
  const fs::path dir = test_dir();
  const DaemonConfig derived = warpwatch::plugins::load_daemon_config(
      write_file(dir / "derived.yaml",
                 "limits: {memory_budget_bytes: 268435456, max_message_bytes: 65536}\n"));
  EXPECT_EQ(derived.queue_bytes, std::size_t{64} << 20);
  EXPECT_EQ(derived.stream_queue_bytes, std::size_t{4} << 20);
  EXPECT_EQ(derived.receive_high_water_mark, 512);  // 32 MiB of 64 KiB messages
  const DaemonConfig set = warpwatch::plugins::load_daemon_config(
      write_file(dir / "set.yaml",
                 "limits: {queue_bytes: 1000000, stream_queue_bytes: 1000, receive_hwm: 7}\n"));
  EXPECT_EQ(set.queue_bytes, 1000000u);
  EXPECT_EQ(set.stream_queue_bytes, 1000u);
  EXPECT_EQ(set.receive_high_water_mark, 7);
  const DaemonConfig capped = warpwatch::plugins::load_daemon_config(
      write_file(dir / "capped.yaml", "limits: {max_message_bytes: 64}\n"));
  EXPECT_EQ(capped.receive_high_water_mark, 1000) << "at most 1000 messages per producer";
}

TEST(DaemonConfig, WildcardPortsNeverClash) {
  // Each tcp://host:* bind gets its own port, so these are three different endpoints.
  const fs::path dir = test_dir();
  const DaemonConfig c = warpwatch::plugins::load_daemon_config(
      write_file(dir / "warpwatch.yaml",
                 "ingest:\n  - pull: 'tcp://127.0.0.1:*'\n  - pull: 'tcp://127.0.0.1:*'\npublish: "
                 "{endpoint: 'tcp://127.0.0.1:*'}\n"));
  EXPECT_EQ(c.ingest.size(), 2u);
}

TEST(DaemonConfig, InfluxEntriesAreRead) {
  const fs::path dir = test_dir();
  const DaemonConfig c =
      warpwatch::plugins::load_daemon_config(write_file(dir / "warpwatch.yaml", R"(ingest:
  - influx: tcp://127.0.0.1:8094
  - influx: udp://127.0.0.1:8094
    stream_template: "{tag:site}/{measurement}"
    fields: [x, y, z]
    precision: ms
    max_line_bytes: 4096
  - {influx: 'tcp://127.0.0.1:0', max_connections: 8}
  - {influx: 'tcp://127.0.0.1:0'}
)"));
  ASSERT_EQ(c.ingest.size(), 4u);
  using warpwatch::plugins::in_influx::InfluxOptions;
  EXPECT_EQ(c.ingest[0].kind, "influx");
  const InfluxOptions& tcp = c.ingest[0].options_as<InfluxOptions>();
  EXPECT_EQ(tcp.endpoint, "tcp://127.0.0.1:8094");
  EXPECT_EQ(tcp.mapping.stream_template, "{measurement}.{field}") << "the default";
  EXPECT_TRUE(tcp.mapping.fields.empty());
  EXPECT_EQ(tcp.mapping.precision, warpwatch::stream::Precision::ns);
  EXPECT_EQ(tcp.max_line_bytes, 65536u);
  EXPECT_EQ(tcp.max_connections, 256u);
  const InfluxOptions& udp = c.ingest[1].options_as<InfluxOptions>();
  EXPECT_EQ(udp.endpoint, "udp://127.0.0.1:8094") << "another protocol: the same port is free";
  EXPECT_EQ(udp.mapping.stream_template, "{tag:site}/{measurement}");
  EXPECT_EQ(udp.mapping.fields, (std::vector<std::string>{"x", "y", "z"}));
  EXPECT_EQ(udp.mapping.precision, warpwatch::stream::Precision::ms);
  EXPECT_EQ(udp.max_line_bytes, 4096u);
  EXPECT_EQ(c.ingest[2].options_as<InfluxOptions>().max_connections, 8u);
  EXPECT_EQ(c.ingest[3].options_as<InfluxOptions>().endpoint, "tcp://127.0.0.1:0")
      << "port 0 twice: two ports";

  DaemonConfig changed = c;
  InfluxOptions other = udp;
  other.mapping.precision = warpwatch::stream::Precision::s;
  changed.ingest[1] = warpwatch::plugins::source_entry(other, c.ingest[1].where);
  EXPECT_EQ(startup_options_changed(c, changed), std::vector<std::string>{"ingest"})
      << "a mapping is taken at start";
}

TEST(DaemonConfig, ExampleConfigLoads) {
  const DaemonConfig c = warpwatch::plugins::load_daemon_config(example_yaml.string());
  EXPECT_EQ(c.instance, "example");
  ASSERT_EQ(c.ingest.size(), 5u);
  EXPECT_EQ(c.ingest[3].kind, "mqtt");
  EXPECT_EQ(c.ingest[4].kind, "influx");
  EXPECT_EQ(c.live.streams.size(), 2u);
  EXPECT_EQ(c.live.auto_period_ns, 10'000'000);
  ASSERT_EQ(c.live.libraries.size(), 2u);
  EXPECT_EQ(c.live.libraries[0].patterns.size(), 4u);  // shape:0, shape:1, dip, ramp
  EXPECT_EQ(c.live.libraries[1].patterns.size(), 2u);
  EXPECT_EQ(c.live.rules.size(), 3u);
  EXPECT_EQ(c.sinks.size(), 2u);
}

// Every option set away from its default; defaults, library defaults and per-pattern
// overrides, inline and file patterns, relative paths.
const char* full_config = R"(instance: plant-1
backend: cpu
cpu_threads: 3
scheduler: {tick_ms: 25, batch_samples: 512}
ingest:
  - pull: tcp://127.0.0.1:7001
  - {sub: "tcp://10.0.0.2:7002", topic: pump-}
  - {replay: data/r.csv, stream: pump-1, rate_hz: 50, period_ms: 2.5}
limits: {max_message_bytes: 4096, max_streams: 20}
streams:
  auto_create: true
  auto_dims: 3
  auto_period_ms: 0.5
  declared:
    - {id: pump-1, period_ms: 10}
    - {id: arm, dims: 2}
libraries:
  - name: shapes
    defaults: {threshold: 2.5, cost: abs, band: 3}
    patterns:
      - {id: rows, file: patterns/two.csv}
      - {id: picked, file: patterns/two.csv, row: 1, metric: twed, mode: window, nu: 0.5,
         lambda: 2, p: 1.5, window: 16, hop: 4, znorm: true, threshold: 7}
      - {id: swing, file: patterns/swing.csv, layout: columns, time_column: 0, time_unit: ms}
  - name: inline
    defaults: {metric: softdtw, mode: window, gamma: 0.25, threshold: -1}
    patterns:
      - {id: ramp, values: [0, 1, 2]}
      - {id: wave, values: [[0, 0, 0], [1, 1, 1]], times: [0, 0.5], metric: dk, mode: stream,
         threshold: 0.5}
rules:
  - {name: hot, streams: "pump-*", patterns: [ramp, "picked*"], libraries: [shapes, inline],
     threshold: 1.5, cooldown_ms: 250, severity: critical, labels: {team: ops, site: "7"}}
  - name: quiet
publish: {endpoint: "ipc:///tmp/ww.sock", send_hwm: 0, events_file: out/events.jsonl}
metrics: {listen: "127.0.0.1:9464", stale_after_ms: 750}
log: {level: warning}
shutdown: {drain_grace_ms: 0}
)";

TEST(DaemonConfig, FullConfigReadsIntoTheExpectedValues) {
  const fs::path dir = test_dir();
  fs::create_directories(dir / "patterns");
  fs::create_directories(dir / "data");
  write_file(dir / "patterns" / "two.csv", "0,1,2,1,0\n1,2,3,2,1\n");
  write_file(dir / "patterns" / "swing.csv", "t_ms,x,y\n100,0,1\n120,1,0\n150,0,-1\n");
  write_file(dir / "data" / "r.csv", "1,2,3\n");
  const std::string path = write_file(dir / "warpwatch.yaml", full_config);
  const DaemonConfig c = warpwatch::plugins::load_daemon_config(path);

  EXPECT_EQ(c.source_file, path);
  EXPECT_EQ(c.instance, "plant-1");
  EXPECT_EQ(c.backend, warpwatch::kernels::Backend::cpu);
  EXPECT_EQ(c.cpu_threads, 3u);
  EXPECT_EQ(c.tick.count(), 25);
  EXPECT_EQ(c.batch_samples, 512u);
  ASSERT_EQ(c.ingest.size(), 3u);
  using warpwatch::plugins::in_pull::PullOptions;
  using warpwatch::plugins::in_replay::ReplayOptions;
  using warpwatch::plugins::in_sub::SubOptions;
  EXPECT_EQ(c.ingest[0].kind, "pull");
  EXPECT_EQ(c.ingest[0].options_as<PullOptions>().endpoint, "tcp://127.0.0.1:7001");
  EXPECT_EQ(c.ingest[0].where.line, 6);
  EXPECT_EQ(c.ingest[1].kind, "sub");
  EXPECT_EQ(c.ingest[1].options_as<SubOptions>().topic, "pump-");
  EXPECT_EQ(c.ingest[2].kind, "replay");
  const ReplayOptions& replay = c.ingest[2].options_as<ReplayOptions>();
  EXPECT_EQ(replay.file, (dir / "data" / "r.csv").string());
  EXPECT_EQ(replay.stream, "pump-1");
  EXPECT_EQ(replay.rate_hz, 50.0);
  EXPECT_EQ(replay.period_ns, 2'500'000);
  EXPECT_EQ(c.max_message_bytes, 4096u);
  EXPECT_EQ(c.live.max_streams, 20u);
  EXPECT_TRUE(c.live.auto_create_streams);
  EXPECT_EQ(c.live.auto_dims, 3u);
  EXPECT_EQ(c.live.auto_period_ns, 500'000);
  ASSERT_EQ(c.live.streams.size(), 2u);
  EXPECT_EQ(c.live.streams[0].def.id, "pump-1");
  EXPECT_EQ(c.live.streams[0].def.dims, 1u);
  EXPECT_EQ(c.live.streams[0].def.nominal_period_ns, 10'000'000);
  EXPECT_EQ(c.live.streams[1].def.dims, 2u);
  EXPECT_EQ(c.live.streams[1].def.nominal_period_ns, 1'000'000'000);

  ASSERT_EQ(c.live.libraries.size(), 2u);
  const auto& shapes = c.live.libraries[0].patterns;
  ASSERT_EQ(shapes.size(), 4u);
  EXPECT_EQ(shapes[0].id, "rows:0");
  EXPECT_EQ(shapes[1].id, "rows:1");
  EXPECT_EQ(shapes[1].values, (std::vector<float>{1, 2, 3, 2, 1}));
  const auto& p0 = shapes[0].params;  // library defaults over the table's
  EXPECT_EQ(p0.distance.metric, warpwatch::kernels::Metric::dtw);
  EXPECT_EQ(p0.distance.cost, warpwatch::kernels::Cost::abs);
  EXPECT_EQ(p0.distance.band, 3.0);
  EXPECT_EQ(p0.mode, warpwatch::kernels::Mode::stream);
  EXPECT_EQ(p0.threshold, 2.5);
  EXPECT_EQ(p0.window, 0u);
  EXPECT_EQ(p0.hop, 1u);
  EXPECT_EQ(p0.distance.nu, 0.001);
  const auto& picked = shapes[2];  // its own keys over the library's
  EXPECT_EQ(picked.id, "picked");
  EXPECT_EQ(picked.values, (std::vector<float>{1, 2, 3, 2, 1}));
  EXPECT_EQ(picked.params.distance.metric, warpwatch::kernels::Metric::twed);
  EXPECT_EQ(picked.params.mode, warpwatch::kernels::Mode::window);
  EXPECT_EQ(picked.params.distance.nu, 0.5);
  EXPECT_EQ(picked.params.distance.lambda, 2.0);
  EXPECT_EQ(picked.params.distance.p, 1.5);
  EXPECT_EQ(picked.params.window, 16u);
  EXPECT_EQ(picked.params.hop, 4u);
  EXPECT_EQ(picked.params.normalize, warpwatch::kernels::Normalize::znorm);
  EXPECT_EQ(picked.params.threshold, 7.0);
  EXPECT_EQ(picked.params.distance.cost, warpwatch::kernels::Cost::abs);  // inherited
  const auto& swing = shapes[3];
  EXPECT_EQ(swing.dims, 2u);
  EXPECT_EQ(swing.values, (std::vector<float>{0, 1, 1, 0, 0, -1}));
  ASSERT_EQ(swing.times.size(), 3u);  // relative to the first, in seconds
  EXPECT_EQ(swing.times[0], 0.0);
  EXPECT_NEAR(swing.times[1], 0.02, 1e-12);
  EXPECT_NEAR(swing.times[2], 0.05, 1e-12);

  const auto& inline_patterns = c.live.libraries[1].patterns;
  ASSERT_EQ(inline_patterns.size(), 2u);
  EXPECT_EQ(inline_patterns[0].values, (std::vector<float>{0, 1, 2}));
  EXPECT_TRUE(inline_patterns[0].times.empty());
  EXPECT_EQ(inline_patterns[0].params.distance.metric, warpwatch::kernels::Metric::softdtw);
  EXPECT_EQ(inline_patterns[0].params.distance.gamma, 0.25);
  EXPECT_EQ(inline_patterns[0].params.threshold, -1.0);
  const auto& wave = inline_patterns[1];
  EXPECT_EQ(wave.dims, 3u);
  EXPECT_EQ(wave.values, (std::vector<float>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(wave.times, (std::vector<double>{0, 0.5}));
  EXPECT_EQ(wave.params.distance.metric, warpwatch::kernels::Metric::dk);
  EXPECT_EQ(wave.params.mode, warpwatch::kernels::Mode::stream);
  EXPECT_EQ(wave.params.distance.gamma, 0.25);  // inherited, unused by dk

  ASSERT_EQ(c.live.rules.size(), 2u);
  const Rule& hot = c.live.rules[0];
  EXPECT_EQ(hot.name, "hot");
  EXPECT_EQ(hot.streams, std::vector<std::string>{"pump-*"});
  EXPECT_EQ(hot.patterns, (std::vector<std::string>{"ramp", "picked*"}));
  EXPECT_EQ(hot.libraries, (std::vector<std::string>{"shapes", "inline"}));
  EXPECT_EQ(hot.threshold, 1.5);
  EXPECT_EQ(hot.cooldown.count(), 250);
  EXPECT_EQ(hot.severity, Severity::critical);
  EXPECT_EQ(hot.labels, (std::map<std::string, std::string>{{"site", "7"}, {"team", "ops"}}));
  EXPECT_EQ(hot.where.line, 32);
  EXPECT_EQ(c.live.rules[1].streams, std::vector<std::string>{"*"});
  EXPECT_EQ(c.live.rules[1].severity, Severity::info);
  EXPECT_EQ(c.publish_endpoint, "ipc:///tmp/ww.sock");
  EXPECT_EQ(c.send_high_water_mark, 0);
  EXPECT_EQ(c.events_file, (dir / "out" / "events.jsonl").string());
  EXPECT_EQ(c.http.listen, "127.0.0.1:9464");
  EXPECT_EQ(c.metrics_stale_after.count(), 750);
  EXPECT_EQ(c.live.log_level, LogLevel::warning);
  EXPECT_EQ(c.drain_grace.count(), 0);
}

// ---- `warpwatch check-config`

TEST(CheckConfig, ValidFileExits0WithASummary) {
  const auto r = run_cli({"check-config", example_yaml.string()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  for (const char* part :
       {": OK\n", "ingest (5)", "replay ",
        "mqtt   127.0.0.1:1883 topics \"plant/+/+\" -> \"{2}-{3}\", payload "
        "auto, qos 1\n",
        "influx tcp://127.0.0.1:8094 -> {measurement}.{tag:host}.{field}, "
        "timestamps in ns",
        "declared streams (2)", "shapes: 4 patterns (dtw/stream 3, twed/window 1)",
        "motion: 2 patterns (dk/stream 1, softdtw/window 1)", "rules (3)",
        "pump-shapes: streams pump-*", "labels site=plant-1,team=ops",
        "publish tcp://127.0.0.1:5556",
        "http 127.0.0.1:9464, no tokens (loopback: every caller may do everything), no links",
        "auto-create on (dims 1, period 10 ms, max 1000)", "sinks (2)",
        "webhook 127.0.0.1:8080: webhook at 127.0.0.1:8080"})
    EXPECT_NE(r.out.find(part), std::string::npos) << part << "\n" << r.out;
}

TEST(CheckConfig, BadFileExits1WithFileLineColumn) {
  const fs::path dir = test_dir();
  const std::string path =
      write_file(dir / "bad.yaml", "instance: x\nscheduler:\n  tick_msec: 5\n");
  const auto r = run_cli({"check-config", path});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            path + ":3:3: unknown key 'tick_msec' in 'scheduler' (did you mean 'tick_ms'?)\n");
}

TEST(CheckConfig, MissingFileExits1) {
  const auto r = run_cli({"check-config", "/nonexistent/warpwatch.yaml"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "/nonexistent/warpwatch.yaml: cannot open file\n");
}

TEST(CheckConfig, ReferencePrintsTheOptionTable) {
  const auto r = run_cli({"check-config", "--reference"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, options_reference_markdown());
}

TEST(CheckConfig, NeedsAFile) {
  const auto r = run_cli({"check-config"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("FILE is required"), std::string::npos);
}

}  // namespace

// `metric: ed` (docs/spec.md §4.0): a window-mode pattern with its cost and znorm, w = m given or
// 0.
// msm, erp and lcss (docs/spec.md §4.4-4.6) in window mode: their parameters from the
// library's defaults and the pattern entry, the defaults of the table where neither sets
// them, erp's band accepted.
TEST(DaemonConfig, MsmErpLcssPatternsLoad) {
  const fs::path dir = test_dir();
  const std::string path = write_file(
      dir / "warpwatch.yaml",
      "streams: {auto_create: true}\nlibraries:\n  - name: lib\n"
      "    defaults: {mode: window, threshold: 0.5, c: 0.25, epsilon: 0.3}\n    patterns:\n"
      "      - {id: m, values: [0, 1, 2], metric: msm}\n"
      "      - {id: e, values: [0, 1, 2], metric: erp, g: -1.5, band: 1, cost: abs}\n"
      "      - {id: l, values: [0, 1, 2], metric: lcss, delta: 2, epsilon: 0.125}\n"
      "      - {id: d, values: [0, 1, 2], metric: lcss}\n");
  const auto c = warpwatch::plugins::load_daemon_config(path);
  ASSERT_EQ(c.live.libraries.size(), 1u);
  const auto& p = c.live.libraries[0].patterns;
  ASSERT_EQ(p.size(), 4u);
  using warpwatch::kernels::Metric;
  EXPECT_EQ(p[0].params.distance.metric, Metric::msm);
  EXPECT_EQ(p[0].params.distance.c, 0.25);
  EXPECT_EQ(p[1].params.distance.metric, Metric::erp);
  EXPECT_EQ(p[1].params.distance.g, -1.5);
  EXPECT_EQ(p[1].params.distance.band, 1.0);
  EXPECT_EQ(p[1].params.distance.cost, warpwatch::kernels::Cost::abs);
  EXPECT_EQ(p[2].params.distance.metric, Metric::lcss);
  EXPECT_EQ(p[2].params.distance.epsilon, 0.125);
  EXPECT_EQ(p[2].params.distance.delta, std::optional<std::size_t>{2});
  EXPECT_EQ(p[3].params.distance.epsilon, 0.3);  // the library's
  EXPECT_FALSE(p[3].params.distance.delta);      // unset: no limit
  EXPECT_EQ(p[3].params.distance.g, 0.0);        // the table's default
  EXPECT_EQ(run_cli({"check-config", path}).status, 0);
}

TEST(DaemonConfig, EdPatternsLoad) {
  const fs::path dir = test_dir();
  const std::string path = write_file(
      dir / "warpwatch.yaml",
      "streams: {auto_create: true, auto_dims: 2}\nlibraries:\n  - name: lib\n"
      "    defaults: {metric: ed, mode: window, threshold: 0.5, znorm: true}\n    patterns:\n"
      "      - {id: a, values: [[0, 1], [1, 0], [2, 2]], cost: abs}\n"
      "      - {id: b, values: [[0, 1], [1, 3], [2, 2]], window: 3}\n");
  const auto c = warpwatch::plugins::load_daemon_config(path);
  ASSERT_EQ(c.live.libraries.size(), 1u);
  const auto& patterns = c.live.libraries[0].patterns;
  ASSERT_EQ(patterns.size(), 2u);
  for (const auto& p : patterns) {
    EXPECT_EQ(p.params.distance.metric, warpwatch::kernels::Metric::ed);
    EXPECT_EQ(p.params.mode, warpwatch::kernels::Mode::window);
    EXPECT_EQ(p.params.normalize, warpwatch::kernels::Normalize::znorm);
    EXPECT_EQ(p.dims, 2u);
  }
  EXPECT_EQ(patterns[0].params.distance.cost, warpwatch::kernels::Cost::abs);
  EXPECT_EQ(patterns[1].params.window, 3u);
  EXPECT_EQ(run_cli({"check-config", path}).status, 0);
}
