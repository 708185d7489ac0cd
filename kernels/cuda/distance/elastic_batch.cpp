// ElasticBatcher (elastic_batch.hpp) on the shared engine: window mode hands it many
// windows against few patterns, so series are uploaded once per distinct (values, length,
// times) and params once per distinct value; jobs of another dims go in a separate run.
#include "elastic_batch.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "elastic_engine.hpp"

namespace warpwatch::kernels::cuda {

struct ElasticBatcher::Impl {
  detail::ElasticEngine& engine;
  std::vector<double> results;
};

ElasticBatcher::ElasticBatcher(detail::ElasticEngine& engine)
    : impl_(std::make_unique<Impl>(Impl{engine, {}})) {}
ElasticBatcher::~ElasticBatcher() = default;

void ElasticBatcher::run(std::span<const ElasticJob> jobs, DeviceTimings* timings) {
  std::vector<std::size_t> all_dims;
  for (const ElasticJob& j : jobs)
    if (std::find(all_dims.begin(), all_dims.end(), j.dims) == all_dims.end())
      all_dims.push_back(j.dims);
  DeviceTimings total;
  for (const std::size_t dims : all_dims) {
    detail::ElasticEngine& e = impl_->engine;
    e.clear();
    std::map<std::tuple<const float*, std::size_t, const float*>, std::uint32_t> seen;
    const auto series = [&](const float* v, std::size_t len, const float* t) {
      const auto [it, fresh] = seen.try_emplace({v, len, t}, 0);
      if (fresh) it->second = e.add_series(v, len, t);
      return it->second;
    };
    std::vector<double*> outs;
    for (const ElasticJob& j : jobs) {
      if (j.dims != dims) continue;
      const std::uint32_t a = series(j.a, j.n, j.a_times), b = series(j.b, j.m, j.b_times);
      e.add_job(a, b, e.add_params(*j.params));
      outs.push_back(j.out);
    }
    impl_->results.resize(outs.size());
    e.run(dims, impl_->results, detail::DistancePath::automatic, &total);
    for (std::size_t k = 0; k < outs.size(); ++k) *outs[k] = impl_->results[k];
  }
  if (timings) *timings = total;
}

std::size_t ElasticBatcher::device_bytes() const {
  return impl_->engine.device_bytes();
}

}  // namespace warpwatch::kernels::cuda
