// Builds /metrics families in order (prometheus-cpp's model, rendered by its text
// serializer): what the daemon's metrics (daemon/service/metrics.cpp) and each plugin's
// families are written with. Every name gets the prefix `warpwatch_`.
#pragma once

#include <prometheus/client_metric.h>
#include <prometheus/metric_family.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace warpwatch::plugins {

class MetricFamilies {
 public:
  using Labels = std::initializer_list<std::pair<std::string, std::string>>;

  MetricFamilies& counter(std::string name, std::string help);
  MetricFamilies& gauge(std::string name, std::string help);
  // One histogram, as prometheus::Histogram::Collect() gives it.
  MetricFamilies& histogram(std::string name, std::string help, prometheus::ClientMetric metric);
  // One sample of the family begun last.
  MetricFamilies& add(double value, Labels labels = {});
  // Families built elsewhere (a plugin's), appended as they are.
  MetricFamilies& append(std::vector<prometheus::MetricFamily> families);

  std::vector<prometheus::MetricFamily> take() { return std::move(families_); }

 private:
  MetricFamilies& begin(std::string name, std::string help, prometheus::MetricType type);
  std::vector<prometheus::MetricFamily> families_;
};

// A counter's value as the model holds it.
inline double metric_value(std::uint64_t n) {
  return static_cast<double>(n);
}

}  // namespace warpwatch::plugins
