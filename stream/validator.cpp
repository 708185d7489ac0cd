#include "warpwatch/stream/validator.hpp"

#include <bit>
#include <cmath>
#include <initializer_list>
#include <stdexcept>
#include <string_view>

namespace warpwatch::stream {
namespace {

// Concatenation by appending: GCC 12 warns falsely (-Wrestrict) on `"x" + std::string`.
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out.append(p);
  return out;
}

std::string describe_sample(std::size_t index, std::int64_t t) {
  return cat({"sample ", std::to_string(index), " (t_ns ", std::to_string(t), ")"});
}

}  // namespace

std::uint64_t RejectCounts::total() const {
  std::uint64_t sum = 0;
  for (std::uint64_t n : by_reason) sum += n;
  return sum;
}

RejectCounts& RejectCounts::operator+=(const RejectCounts& other) {
  for (std::size_t i = 0; i < by_reason.size(); ++i) by_reason[i] += other.by_reason[i];
  return *this;
}

StreamValidator::StreamValidator(std::size_t dims) : dims_(dims) {
  if (dims < 1 || dims > max_dims)
    throw std::invalid_argument("StreamValidator: dims outside 1..64");
}

bool StreamValidator::accept_all(const Samples& in) {
  const std::size_t n = in.size();
  if (in.dims != dims_ || n == 0 || in.values.size() != n * dims_) return false;
  // Branch-free over the whole message (it vectorizes); accept() finds the culprits.
  bool increasing = !last_ns_ || in.times_ns[0] > *last_ns_;
  for (std::size_t i = 1; i < n; ++i) increasing &= in.times_ns[i] > in.times_ns[i - 1];
  bool finite = true;  // a float is finite unless its exponent bits are all ones
  for (float v : in.values)
    finite &= (std::bit_cast<std::uint32_t>(v) & 0x7f800000u) != 0x7f800000u;
  if (!increasing || !finite) return false;
  last_ns_ = in.times_ns[n - 1];
  return true;
}

Accepted StreamValidator::accept(const Samples& in, RejectCounts& counts) {
  if (in.values.size() != in.size() * in.dims) {
    throw std::invalid_argument("StreamValidator::accept: values.size() != size() * dims");
  }
  Accepted out;
  out.samples.dims = dims_;
  if (in.dims != dims_) {
    counts.add(RejectReason::wrong_dims);
    out.dropped.push_back({RejectReason::wrong_dims, 1,
                           cat({"message has ", std::to_string(in.dims),
                                " values per sample, the stream has ", std::to_string(dims_)})});
    return out;
  }
  out.samples.times_ns.reserve(in.size());
  out.samples.values.reserve(in.values.size());
  Dropped late{RejectReason::non_increasing_timestamp, 0, {}};
  Dropped non_finite{RejectReason::non_finite_value, 0, {}};
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::int64_t t = in.times_ns[i];
    const float* v = in.values.data() + i * dims_;
    if (last_ns_ && t <= *last_ns_) {
      if (late.count++ == 0) {
        late.first = cat({describe_sample(i, t), ": not after the last accepted timestamp ",
                          std::to_string(*last_ns_)});
      }
      continue;
    }
    std::size_t bad = dims_;
    for (std::size_t k = 0; k < dims_ && bad == dims_; ++k) {
      if (!std::isfinite(v[k])) bad = k;
    }
    if (bad != dims_) {
      if (non_finite.count++ == 0) {
        non_finite.first = cat({describe_sample(i, t), ": component ", std::to_string(bad), " is ",
                                std::isnan(v[bad]) ? "NaN" : "infinite"});
      }
      continue;
    }
    out.samples.times_ns.push_back(t);
    out.samples.values.insert(out.samples.values.end(), v, v + dims_);
    last_ns_ = t;
  }
  // Reason order (the enum's), so that callers and tests see a stable sequence.
  for (Dropped* d : {&late, &non_finite}) {
    if (d->count == 0) continue;
    counts.add(d->reason, d->count);
    out.dropped.push_back(std::move(*d));
  }
  return out;
}

}  // namespace warpwatch::stream
