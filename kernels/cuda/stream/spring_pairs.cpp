#include "spring_pairs.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>

#include "warpwatch/kernels/errors.hpp"

namespace warpwatch::kernels::cuda {
namespace {

constexpr float inf = std::numeric_limits<float>::infinity();

template <typename T>
void upload(DeviceBuffer<T>& buffer, const std::vector<T>& host, const Stream& stream) {
  buffer.reserve(std::max<std::size_t>(host.size(), 1));
  if (!host.empty())
    WW_CUDA(cudaMemcpyAsync(buffer.data(), host.data(), host.size() * sizeof(T),
                            cudaMemcpyHostToDevice, stream.get()));
}

std::size_t tile_bytes(std::size_t m) {  // two sides of D and S, then 4 words a lane
  return 4 * m * tile_lanes * 4 + 4 * tile_lanes * 4;
}

// Points dev's arrays into a tile's tile_bytes(m) at `base` (its device memory, or a host
// copy of it): D and S of side 0, D and S of side 1, then d_min, t_s, t_e (back to back:
// flush_lanes copies them at once) and side of the 32 lanes.
void lay_out_tile(SpringTileDev& dev, unsigned char* base, std::size_t m) {
  const std::size_t column = m * tile_lanes * 4;  // bytes of one side's D (or S)
  for (std::size_t side = 0; side < 2; ++side) {
    dev.d[side] = reinterpret_cast<float*>(base + 2 * side * column);
    dev.s[side] = reinterpret_cast<std::int32_t*>(base + (2 * side + 1) * column);
  }
  unsigned char* lanes = base + 4 * column;
  dev.d_min = reinterpret_cast<float*>(lanes);
  dev.t_s = reinterpret_cast<std::int32_t*>(lanes + tile_lanes * 4);
  dev.t_e = reinterpret_cast<std::int32_t*>(lanes + tile_lanes * 8);
  dev.side = reinterpret_cast<std::uint32_t*>(lanes + tile_lanes * 12);
}

}  // namespace

void SpringPairs::push_tile(Pattern& p) {
  const std::size_t m = p.state->def->length();
  const std::size_t bytes = tile_bytes(m);
  // Everything that may throw before the slab: a failure leaves no empty slab behind.
  auto tile = std::make_unique<Tile>();
  tile->m = static_cast<std::uint32_t>(m);
  tile->lanes.reserve(tile_lanes);
  p.tiles.reserve(p.tiles.size() + 1);
  p.slabs.reserve(p.slabs.size() + 1);
  if (p.slabs.empty() || p.slabs.back().used == p.slabs.back().capacity) {
    // Doubling, up to kMaxSlabTiles tiles or kMaxSlabBytes (a slab of long patterns is
    // one tile): the slack of a pattern's last slab stays small.
    const std::size_t most =
        std::clamp<std::size_t>(kMaxSlabBytes / bytes, 1, std::size_t{kMaxSlabTiles});
    const auto capacity =
        static_cast<std::uint32_t>(std::clamp<std::size_t>(p.tiles.size(), 1, most));
    Slab slab{StreamOrderedBuffer<unsigned char>(capacity * bytes, compute_.get()), capacity, 0};
    // Zeroed once: a tile's lanes past its pairs and the side a lane is not on are never
    // written, yet move whole with the tile (download_tiles, import_pairs); compute-sanitizer
    // initcheck reads copying them as a use. A lane is set fresh before it is read.
    WW_CUDA(cudaMemsetAsync(slab.memory.data(), 0, capacity * bytes, compute_.get()));
    p.slabs.push_back(std::move(slab));  // reserved: cannot throw
  }
  Slab& slab = p.slabs.back();
  // bytes: a multiple of 128
  lay_out_tile(tile->dev, slab.memory.data() + slab.used * bytes, m);
  p.tiles.push_back(std::move(tile));  // reserved: cannot throw
  ++slab.used;
}

void SpringPairs::pop_tile(Pattern& p) {
  p.tiles.pop_back();
  // Freed in the compute stream's order: after any move out of the tile queued before.
  if (--p.slabs.back().used == 0) p.slabs.pop_back();
}

void SpringPairs::add_pattern(const common::PatternState& pattern) {
  patterns_.emplace(pattern.def->id, Pattern{&pattern, {}, {}});
  dirty_ = true;
}

void SpringPairs::add_pair(common::Pair* pair) {
  Pattern& p = patterns_.find(pair->pattern->def->id)->second;
  // Nothing changes before the allocations succeeded: a failed one leaves the pattern's
  // tiles as they were. The lane is set fresh on the device later, with every lane added
  // meanwhile (set_fresh_lanes).
  if (fresh_tiles_.size() == fresh_tiles_.capacity())  // geometric: O(1) a pair
    fresh_tiles_.reserve(std::max<std::size_t>(16, 2 * fresh_tiles_.capacity()));
  if (p.tiles.empty() || p.tiles.back()->lanes.size() == tile_lanes) push_tile(p);
  Tile& tile = *p.tiles.back();
  if (tile.fresh == 0) fresh_tiles_.push_back(&tile);
  tile.fresh |= 1u << tile.lanes.size();
  pair->handle = static_cast<std::uint32_t>((p.tiles.size() - 1) * tile_lanes + tile.lanes.size());
  tile.lanes.push_back(pair);
  dirty_ = true;
}

void SpringPairs::set_fresh_lanes() {
  if (fresh_tiles_.empty()) return;
  std::vector<SpringFreshTileDev> list;
  list.reserve(fresh_tiles_.size());
  for (const Tile* t : fresh_tiles_)
    list.push_back({t->dev.d[0], t->dev.s[0], t->dev.side, t->dev.d_min, t->dev.t_s, t->dev.t_e,
                    t->m, t->fresh});
  upload(fresh_dev_, list, compute_);
  launch_spring_fresh_lanes(fresh_dev_.data(), static_cast<std::uint32_t>(list.size()),
                            compute_.get());
  compute_.synchronize();  // the upload reads `list`
  // Only now: a failed allocation or launch leaves the lanes pending (setting a lane fresh
  // twice is harmless), never a lane whose memory was never set.
  for (Tile* t : fresh_tiles_) t->fresh = 0;
  fresh_tiles_.clear();
}

void SpringPairs::flush_lanes(const Pattern& p, const Tile& tile, std::uint32_t first,
                              std::uint32_t last, std::vector<RawMatch>& out) {
  set_fresh_lanes();
  candidates_host_.reserve(3 * tile_lanes);
  float* d_min = candidates_host_.data();
  auto* t_s = reinterpret_cast<std::int32_t*>(d_min + tile_lanes);
  auto* t_e = t_s + tile_lanes;
  const cudaStream_t s = compute_.get();
  // d_min, t_s and t_e of the lanes [first, last) only: a tile's lanes past its pairs
  // were never set (compute-sanitizer initcheck reads a copy of them as a use).
  const std::size_t lanes = last - first;
  if (lanes == 0) return;
  for (std::size_t array = 0; array < 3; ++array)
    WW_CUDA(cudaMemcpyAsync(d_min + array * tile_lanes + first,
                            tile.dev.d_min + array * tile_lanes + first, lanes * 4,
                            cudaMemcpyDeviceToHost, s));
  compute_.synchronize();
  bool cleared = false;
  for (std::uint32_t lane = first; lane < last; ++lane) {
    if (!(d_min[lane] <= p.state->eps)) continue;
    const common::Pair& pair = *tile.lanes[lane];
    const common::MatchSpan span =
        common::unwrap_match(pair.stream->next_index() - 1, t_s[lane], t_e[lane]);
    out.push_back(common::make_match(pair, d_min[lane], span.start, span.end));
    d_min[lane] = inf;
    cleared = true;
  }
  if (cleared) {
    WW_CUDA(cudaMemcpyAsync(tile.dev.d_min + first, d_min + first, lanes * 4,
                            cudaMemcpyHostToDevice, s));
    compute_.synchronize();  // before the pinned buffer is used again
  }
}

SpringPairs::TileImages SpringPairs::download_tiles(std::span<common::Pair* const> pairs) {
  WW_ASSERT(launches_ == 0, "no batch launched while lane state moves");
  set_fresh_lanes();
  TileImages t;
  std::map<const Tile*, std::size_t> index;
  t.tile_of.reserve(pairs.size());
  for (const common::Pair* pair : pairs) {
    const Pattern& p = patterns_.find(pair->pattern->def->id)->second;
    const Tile* tile = p.tiles[pair->handle / tile_lanes].get();
    const auto [it, added] = index.emplace(tile, t.tiles.size());
    if (added) t.tiles.push_back(tile);
    t.tile_of.push_back(it->second);
  }
  t.images.resize(t.tiles.size());
  for (std::size_t k = 0; k < t.tiles.size(); ++k) {
    t.images[k].resize(tile_bytes(t.tiles[k]->m));
    WW_CUDA(cudaMemcpyAsync(t.images[k].data(), t.tiles[k]->dev.d[0], t.images[k].size(),
                            cudaMemcpyDeviceToHost, compute_.get()));
  }
  compute_.synchronize();
  return t;
}

void SpringPairs::export_pairs(std::span<common::Pair* const> pairs,
                               std::span<common::SpringLaneState> out) {
  TileImages t = download_tiles(pairs);
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const std::size_t m = t.tiles[t.tile_of[k]]->m;
    SpringTileDev host;  // the tile's arrays in its host image
    lay_out_tile(host, t.images[t.tile_of[k]].data(), m);
    const std::uint32_t lane = pairs[k]->handle % tile_lanes, side = host.side[lane];
    common::SpringLaneState& o = out[k];
    o.d.resize(m);
    o.s.resize(m);
    for (std::size_t i = 0; i < m; ++i) {
      o.d[i] = host.d[side][i * tile_lanes + lane];
      o.s[i] = host.s[side][i * tile_lanes + lane];
    }
    o.d_min = host.d_min[lane];
    o.t_s = host.t_s[lane];
    o.t_e = host.t_e[lane];
  }
}

void SpringPairs::import_pairs(std::span<common::Pair* const> pairs,
                               std::span<const common::SpringLaneState> in) {
  TileImages t = download_tiles(pairs);  // the other lanes of the tiles stay as they are
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const std::size_t m = t.tiles[t.tile_of[k]]->m;
    const common::SpringLaneState& from = in[k];
    WW_ASSERT(from.d.size() == m && from.s.size() == m, "a lane state of the pattern's rows");
    SpringTileDev host;  // the tile's arrays in its host image; the lane goes to side 0
    lay_out_tile(host, t.images[t.tile_of[k]].data(), m);
    const std::uint32_t lane = pairs[k]->handle % tile_lanes;
    for (std::size_t i = 0; i < m; ++i) {
      host.d[0][i * tile_lanes + lane] = from.d[i];
      host.s[0][i * tile_lanes + lane] = from.s[i];
    }
    host.d_min[lane] = from.d_min;
    host.t_s[lane] = from.t_s;
    host.t_e[lane] = from.t_e;
    host.side[lane] = 0;
  }
  for (std::size_t k = 0; k < t.tiles.size(); ++k)
    WW_CUDA(cudaMemcpyAsync(t.tiles[k]->dev.d[0], t.images[k].data(), t.images[k].size(),
                            cudaMemcpyHostToDevice, compute_.get()));
  compute_.synchronize();  // the images go with this call
}

void SpringPairs::remove_pair(common::Pair* pair, std::vector<RawMatch>& out) {
  Pattern& p = patterns_.find(pair->pattern->def->id)->second;
  Tile& tile = *p.tiles[pair->handle / tile_lanes];
  const std::uint32_t lane = pair->handle % tile_lanes;
  flush_lanes(p, tile, lane, lane + 1, out);  // sets fresh lanes first: none is pending below
  Tile& last = *p.tiles.back();
  const auto from = static_cast<std::uint32_t>(last.lanes.size() - 1);
  if (&last != &tile || from != lane) {  // fill the hole with the pattern's last pair
    launch_spring_move_lane(last.dev, from, tile.dev, lane,
                            static_cast<std::uint32_t>(p.state->def->length()), compute_.get());
    tile.lanes[lane] = last.lanes[from];
    tile.lanes[lane]->handle = pair->handle;
  }
  last.lanes.pop_back();
  if (last.lanes.empty()) pop_tile(p);
  dirty_ = true;
}

void SpringPairs::remove_pattern(const common::PatternState& pattern, std::vector<RawMatch>& out) {
  const auto it = patterns_.find(pattern.def->id);
  for (auto& tile : it->second.tiles)
    flush_lanes(it->second, *tile, 0, static_cast<std::uint32_t>(tile->lanes.size()), out);
  patterns_.erase(it);
  dirty_ = true;
  release_freed_memory();
}

void SpringPairs::drop_pattern(const common::PatternState& pattern) {
  patterns_.erase(pattern.def->id);
  dirty_ = true;
  if (patterns_.empty()) release_freed_memory();
}

void SpringPairs::release_freed_memory() {
  // The freed tiles go back to the driver, not only to the pool (which keeps what is freed
  // for new tiles, and which cudaMalloc cannot draw from): once the frees have run.
  compute_.synchronize();
  cudaMemPool_t pool = nullptr;
  int device = 0;
  WW_CUDA(cudaGetDevice(&device));
  WW_CUDA(cudaDeviceGetDefaultMemPool(&pool, device));
  WW_CUDA(cudaMemPoolTrimTo(pool, 0));
}

void SpringPairs::build_tables() {
  std::vector<SpringPatternDev> patterns;
  std::vector<float> values;
  tile_order_.clear();
  for (auto& [id, p] : patterns_) {
    const PatternDef& def = *p.state->def;
    SpringPatternDev pd;
    pd.value_offset = static_cast<std::uint32_t>(values.size());
    pd.m = static_cast<std::uint32_t>(def.length());
    pd.dims = static_cast<std::uint32_t>(def.dims);
    // Stream mode's measures only (validate()): dk, else dtw.
    WW_ASSERT(measure_info(def.params.distance.metric).stream,
              "spring pairs: a pattern of a measure without stream mode");
    pd.dk = def.params.distance.metric == Metric::dk;
    pd.abs_cost = def.params.distance.cost == Cost::abs;
    pd.eps = p.state->eps;
    values.insert(values.end(), def.values.begin(), def.values.end());
    patterns.push_back(pd);
    for (auto& tile : p.tiles) tile_order_.push_back(tile.get());
  }
  tile_count_ = static_cast<std::uint32_t>(tile_order_.size());
  done_.reserve(std::max<std::size_t>(tile_count_ * tile_lanes, 1));
  aborted_.reserve(std::max<std::size_t>(tile_count_ * tile_lanes, 1));
  WW_CUDA(cudaMemsetAsync(aborted_.data(), 0, aborted_.bytes(), compute_.get()));
  std::vector<SpringTileDev> tiles;
  pair_slot_.assign(std::size_t{tile_count_} * tile_lanes, no_slot);
  for (auto& v : variants_) v.pairs.clear();
  std::uint32_t pattern_index = 0;
  std::size_t t = 0;
  for (auto& [id, p] : patterns_) {
    const PatternDef& def = *p.state->def;
    const auto m = static_cast<std::uint32_t>(def.length()),
               dims = static_cast<std::uint32_t>(def.dims);
    Variant* variant = nullptr;  // none: SpringSweep alone runs the pattern
    const std::size_t shared = dims > 1 ? SpringWavefront::multi_dynamic_limit() : 0;
    if (SpringWavefront::can_implement(m, dims, shared)) {
      const WavefrontShape shape = SpringWavefront::shape(m, dims, shared);
      const bool dk = def.params.distance.metric == Metric::dk;
      const bool abs_cost = def.params.distance.cost == Cost::abs;
      for (auto& v : variants_)
        if (v.shape == shape && v.dk == dk && v.abs_cost == abs_cost && v.dims == dims)
          variant = &v;
      if (!variant) variant = &variants_.emplace_back(Variant{shape, dk, abs_cost, dims, {}, {}});
    }
    for (auto& tile : p.tiles) {
      SpringTileDev dev = tile->dev;
      dev.done = done_.data() + t * tile_lanes;
      dev.pattern = pattern_index;
      dev.lanes = static_cast<std::uint32_t>(tile->lanes.size());
      for (std::uint32_t lane = 0; lane < dev.lanes; ++lane) {
        dev.stream[lane] = tile->lanes[lane]->stream->slot;
        pair_slot_[t * tile_lanes + lane] = dev.stream[lane];
        if (variant) variant->pairs.push_back(static_cast<std::uint32_t>(t * tile_lanes + lane));
      }
      tiles.push_back(dev);
      ++t;
    }
    ++pattern_index;
  }
  upload(patterns_dev_, patterns, compute_);
  upload(pattern_values_, values, compute_);
  upload(tiles_dev_, tiles, compute_);
  std::erase_if(variants_, [](const Variant& v) { return v.pairs.empty(); });
  std::size_t workspace = 0;  // the variants run one after another on the compute stream
  for (auto& v : variants_) {
    upload(v.device_pairs, v.pairs, compute_);
    workspace =
        std::max(workspace, SpringWavefront::workspace_bytes(
                                v.shape, v.dims, static_cast<std::uint32_t>(v.pairs.size())));
  }
  wavefront_workspace_.reserve(workspace / sizeof(float));
  // The uploads read host vectors that go out of scope here.
  compute_.synchronize();
  dirty_ = false;
}

SpringBatchDev SpringPairs::batch_view(const SpringChunkDev* chunks, const float* values) const {
  SpringBatchDev b;
  b.tiles = tiles_dev_.data();
  b.tile_count = tile_count_;
  b.patterns = patterns_dev_.data();
  b.pattern_values = pattern_values_.data();
  b.chunks = chunks;
  b.values = values;
  b.reports = reports_.data();
  b.report_capacity = static_cast<std::uint32_t>(reports_.capacity());
  b.report_count = report_counters_.data();
  b.aborted = aborted_.data();
  return b;
}

void SpringPairs::synchronize() {
  const auto began = std::chrono::steady_clock::now();
  compute_.synchronize();
  wait_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
}

void SpringPairs::launch(const SpringChunkDev* chunks, const float* values, std::uint32_t max_count,
                         const Event& uploaded) {
  WW_ASSERT(launches_ < launch_ring_.size(), "SpringPairs: a third batch launched");
  if (launches_ == 1) settle(launch_ring_[ring_head_]);
  // Tables change only with no batch outstanding (the Matcher's hot changes need none).
  set_fresh_lanes();
  if (dirty_) build_tables();
  // Allocations first: a batch that cannot have its memory takes no place in the ring.
  // Room for one reservation per pair and then some; grown when a batch needs more.
  reports_.reserve(std::size_t{tile_count_} * tile_lanes + 4096);
  report_counters_.reserve(2);
  counters_host_.reserve(2);
  Launch& l = launch_ring_[(ring_head_ + launches_) % launch_ring_.size()];
  ++launches_;
  l.launched = tile_count_ != 0 && max_count != 0;
  l.settled = !l.launched;
  l.reports.clear();
  l.seconds = 0.0;
  if (!l.launched) return;
  l.chunks = chunks;
  l.values = values;
  const cudaStream_t s = compute_.get();
  WW_CUDA(cudaStreamWaitEvent(s, uploaded.get(), 0));
  l.started.record(compute_);
  WW_CUDA(cudaMemsetAsync(done_.data(), 0, std::size_t{tile_count_} * tile_lanes * 4, s));
  launch_round(l, max_count >= SpringWavefront::min_count ? Round::all : Round::sweep_only);
}

void SpringPairs::launch_round(Launch& l, Round round) {
  const cudaStream_t s = compute_.get();
  WW_CUDA(cudaMemsetAsync(report_counters_.data(), 0, 8, s));  // the wavefront reports too
  if (round != Round::sweep_only)
    for (std::size_t v = 0; v < variants_.size(); ++v) {
      const bool retry = round == Round::retry;
      const std::uint32_t* pairs =
          retry ? retry_dev_.data() + retry_from_[v] : variants_[v].device_pairs.data();
      const auto count =
          retry ? retry_count_[v] : static_cast<std::uint32_t>(variants_[v].pairs.size());
      if (count)
        SpringWavefront::run(batch_view(l.chunks, l.values), pairs, count, variants_[v].shape,
                             variants_[v].dk, variants_[v].abs_cost, variants_[v].dims,
                             wavefront_workspace_.data(), s);
    }
  SpringSweep::run(batch_view(l.chunks, l.values), s);
  l.finished.record(compute_);
  WW_CUDA(cudaMemcpyAsync(counters_host_.data(), report_counters_.data(), 8, cudaMemcpyDeviceToHost,
                          s));
}

void SpringPairs::settle(Launch& l) {
  if (l.settled) return;
  for (bool wavefront_round = true;;) {
    synchronize();  // the last work on the compute stream is this batch's (the next waits)
    const std::size_t round_from = l.reports.size();
    const std::uint32_t reserved = counters_host_[0];
    const std::size_t n = std::min<std::size_t>(reserved, reports_.capacity());
    if (n) {
      reports_host_.reserve(n);
      WW_CUDA(cudaMemcpyAsync(reports_host_.data(), reports_.data(), n * sizeof(SpringReportDev),
                              cudaMemcpyDeviceToHost, compute_.get()));
      synchronize();
      l.reports.insert(l.reports.end(), reports_host_.data(), reports_host_.data() + n);
    }
    // (A failure from here on loses the batch: collect() has consumed it.)
    if (!counters_host_[1]) break;
    // The buffer filled up: the sweep's pairs stopped where they were, and the
    // wavefront gave up the pairs that did not fit. Their reports of this round are void
    // (the sweep's stopped pairs never wrote theirs), and those pairs run their chunks
    // again on the wavefront, then the sweep goes on, with a larger buffer.
    const bool retry = wavefront_round && drop_aborted(l.reports, round_from);
    reports_.reserve(2 * std::max<std::size_t>(reserved, reports_.capacity()));
    launch_round(l, retry ? Round::retry : Round::sweep_only);
    wavefront_round = retry;
  }
  // The next batch likely reports about as many: room for twice that, so that the
  // wavefront does not give pairs up batch after batch.
  reports_.reserve(2 * l.reports.size());
  l.seconds = l.finished.seconds_since(l.started);
  l.settled = true;
}

bool SpringPairs::drop_aborted(std::vector<SpringReportDev>& reports, std::size_t from) {
  const std::size_t pairs = std::size_t{tile_count_} * tile_lanes;
  aborted_host_.resize(pairs);
  WW_CUDA(cudaMemcpyAsync(aborted_host_.data(), aborted_.data(), pairs * 4, cudaMemcpyDeviceToHost,
                          compute_.get()));
  synchronize();
  reports.erase(std::remove_if(reports.begin() + static_cast<std::ptrdiff_t>(from), reports.end(),
                               [&](const SpringReportDev& r) {
                                 return r.pair != no_pair && aborted_host_[r.pair] != 0;
                               }),
                reports.end());
  retry_host_.clear();
  retry_from_.assign(variants_.size(), 0);
  retry_count_.assign(variants_.size(), 0);
  for (std::size_t v = 0; v < variants_.size(); ++v) {
    retry_from_[v] = static_cast<std::uint32_t>(retry_host_.size());
    for (const std::uint32_t pair : variants_[v].pairs)
      if (aborted_host_[pair]) retry_host_.push_back(pair);
    retry_count_[v] = static_cast<std::uint32_t>(retry_host_.size()) - retry_from_[v];
  }
  WW_CUDA(cudaMemsetAsync(aborted_.data(), 0, pairs * 4, compute_.get()));
  if (retry_host_.empty()) return false;
  upload(retry_dev_, retry_host_, compute_);  // retry_host_ stays until the next settle
  return true;
}

double SpringPairs::collect(std::span<const std::uint64_t> first, std::vector<RawMatch>& out) {
  WW_ASSERT(launches_ != 0, "SpringPairs: collect without a launched batch");
  Launch& l = launch_ring_[ring_head_];
  ring_head_ = (ring_head_ + 1) % launch_ring_.size();
  --launches_;
  if (!l.launched) return 0.0;
  settle(l);
  for (const SpringReportDev& r : l.reports) {
    if (r.pair == no_pair) continue;
    const common::Pair& pair = *tile_order_[r.pair / tile_lanes]->lanes[r.pair % tile_lanes];
    const common::MatchSpan span =
        common::unwrap_match(first[pair.stream->slot] + r.step, r.t_s, r.t_e);
    out.push_back(common::make_match(pair, r.distance, span.start, span.end));
  }
  return l.seconds;
}

void SpringPairs::flush(std::vector<RawMatch>& out) {
  for (auto& [id, p] : patterns_)
    for (auto& tile : p.tiles)
      flush_lanes(p, *tile, 0, static_cast<std::uint32_t>(tile->lanes.size()), out);
}

void SpringPairs::lower_to_live_starts(const SpringChunkDev* next_chunks,
                                       std::span<const std::uint64_t> next_index,
                                       std::span<std::uint64_t> keep_from) {
  set_fresh_lanes();
  if (dirty_) build_tables();
  if (tile_count_ == 0) return;
  const std::size_t pairs = std::size_t{tile_count_} * tile_lanes;
  ages_.reserve(pairs);
  ages_host_.resize(pairs);
  // The kernel sets the ages of the tiles' pairs; a tile's lanes past its pairs are read
  // back with them (one copy) and skipped below, but never left unset (initcheck).
  WW_CUDA(cudaMemsetAsync(ages_.data(), 0, pairs * 4, compute_.get()));
  launch_spring_live_age(batch_view(next_chunks, nullptr), ages_.data(), compute_.get());
  WW_CUDA(cudaMemcpyAsync(ages_host_.data(), ages_.data(), pairs * 4, cudaMemcpyDeviceToHost,
                          compute_.get()));
  compute_.synchronize();
  for (std::size_t pair = 0; pair < pairs; ++pair) {
    const std::uint32_t slot = pair_slot_[pair];
    if (slot == no_slot) continue;
    keep_from[slot] = std::min(keep_from[slot], next_index[slot] - ages_host_[pair]);
  }
}

std::size_t SpringPairs::device_bytes() const {
  std::size_t bytes = patterns_dev_.bytes() + pattern_values_.bytes() + tiles_dev_.bytes() +
                      done_.bytes() + aborted_.bytes() + retry_dev_.bytes() + reports_.bytes() +
                      report_counters_.bytes() + ages_.bytes() + fresh_dev_.bytes() +
                      wavefront_workspace_.bytes();
  for (const auto& [id, p] : patterns_)
    for (const Slab& slab : p.slabs) bytes += slab.memory.bytes();
  for (const auto& v : variants_) bytes += v.device_pairs.bytes();
  return bytes;
}

}  // namespace warpwatch::kernels::cuda
