// Decimal numbers in text input, one rule for all of them (text payloads, InfluxDB line
// protocol, series files): std::from_chars (locale-independent, exact rounding), and a value
// too close to zero for the type becomes its nearest value, as IEEE-754 rounds (0 or -0;
// from_chars rounds to the subnormals itself and reports only what rounds to zero as out
// of range); one too large for it is refused, not made infinite.
// In the stream core: the configuration's series loader reads numbers this way too.
#pragma once

#include <string_view>

namespace warpwatch::stream {

enum class DecimalRead {
  ok,
  malformed,  // not (all of `text`) a number of from_chars' general format
  overflow,   // beyond the type's range
};

// Reads all of `text` as from_chars reads a float ("-1.5", ".5", "1e-3", "inf", "nan"; no
// leading '+', no blanks) into `v`, which is left as it was unless the result is ok.
DecimalRead read_decimal(std::string_view text, float& v);
DecimalRead read_decimal(std::string_view text, double& v);

}  // namespace warpwatch::stream
