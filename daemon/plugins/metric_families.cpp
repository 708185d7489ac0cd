#include "warpwatch/plugins/metric_families.hpp"

namespace warpwatch::plugins {

MetricFamilies& MetricFamilies::counter(std::string name, std::string help) {
  return begin(std::move(name), std::move(help), prometheus::MetricType::Counter);
}

MetricFamilies& MetricFamilies::gauge(std::string name, std::string help) {
  return begin(std::move(name), std::move(help), prometheus::MetricType::Gauge);
}

MetricFamilies& MetricFamilies::histogram(std::string name, std::string help,
                                          prometheus::ClientMetric metric) {
  begin(std::move(name), std::move(help), prometheus::MetricType::Histogram);
  families_.back().metric.push_back(std::move(metric));
  return *this;
}

MetricFamilies& MetricFamilies::add(double value, Labels labels) {
  prometheus::ClientMetric metric;
  for (const auto& [name, label_value] : labels) metric.label.push_back({name, label_value});
  if (families_.back().type == prometheus::MetricType::Counter)
    metric.counter.value = value;
  else
    metric.gauge.value = value;
  families_.back().metric.push_back(std::move(metric));
  return *this;
}

MetricFamilies& MetricFamilies::append(std::vector<prometheus::MetricFamily> families) {
  for (auto& family : families) families_.push_back(std::move(family));
  return *this;
}

MetricFamilies& MetricFamilies::begin(std::string name, std::string help,
                                      prometheus::MetricType type) {
  families_.push_back({"warpwatch_" + std::move(name), std::move(help), type, {}});
  return *this;
}

}  // namespace warpwatch::plugins
