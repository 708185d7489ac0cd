// JSON payloads (docs/ingest.md §5): one sample {"t": T, "v": V}, or an array of them. T
// is the sample's time as an integer count of nanoseconds since the Unix epoch, as a text
// line's t_ns is; V a number (one value) or an array of 1 to 64 numbers. Other keys are
// ignored. Each element is judged on its own, as a text line is: a bad one is counted
// under its reason and the others are kept.
//
// nlohmann-json builds the document in memory: a payload is at most
// limits.max_message_bytes, and its document costs some ten times that while it is read.
#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "payload_parts.hpp"

namespace warpwatch::stream {
namespace {

using nlohmann::json;

// Why an element is bad; the description is built for the first of each reason only.
struct ElementError {
  enum class What {
    not_object,
    no_t,
    t_not_integer,
    t_out_of_range,
    no_v,
    v_not_numbers,
    v_size,
    v_out_of_range,
    wrong_count
  } what;
  std::size_t count = 0, dims = 0;

  RejectReason reason() const {
    return what == What::wrong_count ? RejectReason::wrong_dims : RejectReason::malformed_frame;
  }
  std::string describe() const {
    switch (what) {
      case What::not_object:
        return "not an object {\"t\": ..., \"v\": ...}";
      case What::no_t:
        return "no \"t\" (the time in ns since the Unix epoch)";
      case What::t_not_integer:
        return "\"t\" is not an integer (the time in ns since the Unix epoch)";
      case What::t_out_of_range:
        return "\"t\" is beyond int64";
      case What::no_v:
        return "no \"v\" (a number, or an array of numbers)";
      case What::v_not_numbers:
        return "\"v\" is not a number or an array of numbers";
      case What::v_size:
        return cat({"\"v\" has ", std::to_string(count), " values, a sample has 1 to 64"});
      case What::v_out_of_range:
        return "a value of \"v\" is beyond the float32 range";
      case What::wrong_count:
        return cat({std::to_string(count), " values, expected ", std::to_string(dims)});
    }
    return "bad element";
  }
};

ElementError bad(ElementError::What what, std::size_t count = 0, std::size_t dims = 0) {
  return {what, count, dims};
}

bool read_value(const json& v, float& out) {
  return v.is_number() && to_float32(v.get<double>(), out);
}

// One element into `t` and `vals[0, n)`; the error when it is bad.
std::optional<ElementError> parse_element(const json& e, std::size_t dims, std::int64_t& t,
                                          std::array<float, max_dims>& vals, std::size_t& n) {
  using What = ElementError::What;
  if (!e.is_object()) return bad(What::not_object);
  const auto t_at = e.find("t");
  if (t_at == e.end()) return bad(What::no_t);
  if (t_at->is_number_unsigned()) {
    const auto u = t_at->get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      return bad(What::t_out_of_range);
    t = static_cast<std::int64_t>(u);
  } else if (t_at->is_number_integer()) {
    t = t_at->get<std::int64_t>();
  } else {
    return bad(What::t_not_integer);
  }
  const auto v_at = e.find("v");
  if (v_at == e.end()) return bad(What::no_v);
  const json& v = *v_at;
  if (v.is_number()) {
    n = 1;
    if (!read_value(v, vals[0])) return bad(What::v_out_of_range);
  } else if (v.is_array()) {
    if (v.empty() || v.size() > max_dims) return bad(What::v_size, v.size());
    n = v.size();
    for (std::size_t k = 0; k < n; ++k) {
      if (!v[k].is_number()) return bad(What::v_not_numbers);
      if (!read_value(v[k], vals[k])) return bad(What::v_out_of_range);
    }
  } else {
    return bad(What::v_not_numbers);
  }
  if (dims != 0 && n != dims) return bad(What::wrong_count, n, dims);
  return std::nullopt;
}

}  // namespace

std::variant<Decoded, DecodeError> decode_json(std::string_view text, std::size_t dims) {
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    // The byte, not nlohmann's message: that quotes the payload, which is untrusted.
    return DecodeError{RejectReason::malformed_frame,
                       cat({"not valid JSON (error at byte ", std::to_string(e.byte), ")"})};
  } catch (const json::out_of_range&) {
    // A number beyond the float64 range (1e400): nlohmann-json stops parsing there, so the
    // whole payload is rejected, as one that does not parse (the fuzzer's first finding:
    // uncaught, it ended the ingest thread).
    return DecodeError{RejectReason::malformed_frame,
                       "a JSON number beyond the float64 range: the payload does not parse"};
  }
  const bool single = doc.is_object();
  if (!single && !doc.is_array())
    return DecodeError{RejectReason::malformed_frame,
                       cat({"a JSON payload is an object {\"t\": ..., \"v\": ...} or an array "
                            "of them, not ",
                            doc.type_name()})};
  Decoded out;
  std::array<float, max_dims> vals{};
  const auto decode_one = [&](const json& element, std::size_t index) {
    std::int64_t t = 0;
    std::size_t n = 0;
    if (auto err = parse_element(element, dims, t, vals, n)) {
      count_bad_part(out.line_errors, err->reason(), [&] {
        return single ? err->describe()
                      : cat({"element ", std::to_string(index + 1), ": ", err->describe()});
      });
      return;
    }
    dims = n;  // the first good element fixes dims when the caller did not
    out.samples.times_ns.push_back(t);
    out.samples.values.insert(out.samples.values.end(), vals.begin(),
                              vals.begin() + static_cast<std::ptrdiff_t>(n));
  };
  if (single) {
    decode_one(doc, 0);
  } else {
    for (std::size_t i = 0; i < doc.size(); ++i) decode_one(doc[i], i);
  }
  out.samples.dims = dims;
  return out;
}

}  // namespace warpwatch::stream
