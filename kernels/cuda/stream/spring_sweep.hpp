// Stream mode, thread per pair, a block of columns per pass (docs/spec.md §3.1): the lane logic
// of spring_sweep.cu, in host-and-device code so that tests/kernels/cuda_host/ runs these
// very lines on the CPU against the reference.
//
// Why a block. A thread that runs its pair column by column (the reference's loop) reads
// and writes the pair's whole column of D and S in global memory for every sample: 16
// bytes a cell, and a chain of dependent loads. Live ticks bring a few samples a stream,
// too few for the register wavefront. A sweep takes a block of up to C columns at once: it
// walks the rows top to bottom, reads row i of the old column, computes the block's C cells
// of row i from row i-1's (in registers), and writes row i of the block's last column:
// 16 bytes per C cells, the next rows' loads issued while this row computes. The state has
// two sides (spring_launch.hpp): a sweep reads one and writes the other, so that it can
// sweep a block again, and the pair's side flips once the block is decided.
//
// The rules. Rule 2 needs the last row only. Rule 1 at column j asks whether every cell
// with S <= t_e (the candidate's end before column j) has D >= d_min; the sweep cannot
// know t_e for every column before it has the block's last rows, so it folds two minima
// per column: `lo` over the cells with S <= te_lo (the candidate's t_e at the block's start,
// or the column before the block: every later t_e is at least that) and `hi` over the
// cells with S <= t - 1 (every start but the column's own: every t_e is at most that).
// Deciding column j in order with the true candidate C:
//  - C.t_e == te_lo: final iff lo >= d_min; C.t_e == t - 1: final iff hi >= d_min
//    (the usual cases: a candidate that stays, or one that improved at the column before);
//  - otherwise hi >= d_min proves final and lo < d_min proves not final (superset and
//    subset of C's cells); failing both, the block is swept again with te_lo = C.t_e, which
//    decides column j exactly.
// A report resets the cells of its column with S <= t_e, which changes every later column
// and the stored one: the block is swept again with that reset applied in place. Columns
// already decided are not decided again, so each sweep decides at least one more column.
// A block's reports are handed over once it is decided; when they do not fit the report
// buffer, the pair stops at the block's start with its state and candidate as they were.
#pragma once

#include <cstdint>
#include <type_traits>

#include "spring_cell.cuh"

namespace warpwatch::kernels::cuda::sweep {

inline constexpr int kColumns = 8;  // C: columns a sweep takes

struct Candidate {
  float d_min;  // +inf or above eps: none pending
  std::int32_t t_s, t_e;
};

struct Report {
  std::uint32_t step;  // the chunk step of the column that made it final
  Candidate c;
};

// What a sweep of one block needs to know beyond the state.
template <int C>
struct Plan {
  int n;               // columns in the block, 1..C
  std::int32_t t0;     // low 32 bits of the index of its first column
  std::int32_t te_lo;  // the `lo` fold's t_e
  unsigned resets;     // bit j: column j reported; its cells with S <= reset_te[j] forgotten
  std::int32_t reset_te[C];
};

// What a sweep tells the decisions, per column of the block.
template <int C>
struct Folds {
  float lo[C], hi[C];  // min D over cells with S <= te_lo, and with S <= t - 1 (+inf: none)
  float last_d[C];     // the last row, before any reset of the column
  std::int32_t last_s[C];
};

// One pair as a sweep sees it: its two sides (rows `stride` apart), its pattern and chunk.
struct PairView {
  float* d[2];
  std::int32_t* s[2];
  int stride;
  const float* pattern;  // m x dims
  int m, dims;
  float eps;
  const float* x;      // the chunk's samples, count x dims
  std::int32_t first;  // low 32 bits of the chunk's first sample index
};

WW_HD float fold_min(float f, float v) {
  return v < f ? v : f;
}

// A load from memory no thread writes while the kernel runs (the side a sweep reads).
template <typename T>
WW_HD T read_only(const T* p) {
#if defined(__CUDA_ARCH__)
  return __ldg(p);
#else
  return *p;
#endif
}

// How a sweep's code is laid out for its block's width n (chosen per warp on the device:
// code without tests interleaves the cells of several rows and columns, which a thread
// per pair needs, with few warps an SM, to keep issuing).
enum class Width {
  full,  // n == C: no column tests
  one,   // n == 1: one column (live ticks of one sample)
  any,   // 1 <= n <= C: a test per column
};

// One pass over the rows for the block in `plan`: reads the column before the block from
// `src`, writes the block's last column (resets applied) to `dst`. kDims1: one dimension,
// the block's samples in registers.
template <int C, Width kWidth, bool kDk, bool kAbs, bool kResets, bool kDims1>
WW_HD void sweep_block(const float* __restrict__ src_d, const std::int32_t* __restrict__ src_s,
                       float* __restrict__ dst_d, std::int32_t* __restrict__ dst_s,
                       const PairView& v, const float* __restrict__ x, const Plan<C>& plan,
                       Folds<C>& out) {
  const float inf = float_inf();
  const int stride = v.stride, m = v.m, dims = v.dims;
  const float* __restrict__ p = v.pattern;
  // The plan and the folds in registers (every index below is a compile-time one).
  const int n = plan.n;
  const std::int32_t t0 = plan.t0, te_lo = plan.te_lo;
  const unsigned resets = plan.resets;
  constexpr int K = kWidth == Width::one ? 1 : C;  // columns the code has
  std::int32_t reset_te[K], t[K];
  float xs[K], lo[C], hi[C];
  // Per column, its latest row (cur) and the one before (prev): D raw (the up input: a
  // reset applies after its column), D as stored (the next column's left and diagonal
  // inputs; differs from raw only with resets) and S. Row -1 is the boundary D = 0 with
  // S = t; a column's up input then always wins the choice at row 0, so the diagonal's
  // start there does not matter.
  float raw[K], cur[K], prev[K];
  std::int32_t cur_s[K], prev_s[K];
  WW_UNROLL
  for (int j = 0; j < C; ++j) {
    lo[j] = inf;
    hi[j] = inf;
  }
  WW_UNROLL
  for (int j = 0; j < K; ++j) {
    reset_te[j] = kResets ? plan.reset_te[j] : 0;
    xs[j] = kDims1 && j < n ? x[j] : 0.0f;
    t[j] =
        static_cast<std::int32_t>(static_cast<std::uint32_t>(t0) + static_cast<std::uint32_t>(j));
    raw[j] = cur[j] = prev[j] = 0.0f;
    cur_s[j] = prev_s[j] = t[j];
  }

  // Rows go U at a time, the next U loaded (from rows clamped to the column, so that no
  // load waits on a test) before these compute: enough rows that a group's cells take
  // about as long as a load (one column: more rows, as each costs little). The side read
  // is not written during the sweep: read-only loads. Within a group the cells go by
  // anti-diagonals (row u + column j), whose cells do not depend on each other: a thread
  // per pair has few warps beside it, and issues only as fast as its cells overlap.
  constexpr int U = !kDims1 ? 4 : kWidth == Width::one ? 16 : 8;
  float cd[U], cp[U];  // the old column's rows and the pattern's, this group
  std::int32_t cs[U];
  float old_pd = 0.0f;  // the old column at the row before the group: column 0's diagonal
  std::int32_t old_ps = t0;
  const auto load = [&](int i0, float(&d)[U], std::int32_t(&s)[U], float(&pp)[U]) {
    WW_UNROLL
    for (int u = 0; u < U; ++u) {
      const int i = i0 + u < m ? i0 + u : m - 1;
      d[u] = read_only(src_d + i * stride);
      s[u] = read_only(src_s + i * stride);
      pp[u] = kDims1 ? read_only(p + i) : 0.0f;  // the same for every lane: cached
    }
  };
  // Rows i0 + [0, U) of the group; kTail: only those below m.
  const auto group = [&](int i0, auto tail) {
    constexpr bool kTail = decltype(tail)::value;
    float st_d[U];  // Width::any: column n-1's rows, stored after the group
    std::int32_t st_s[U];
    WW_UNROLL
    for (int diag = 0; diag < U + K - 1; ++diag) {
      WW_UNROLL
      for (int j = K - 1; j >= 0; --j) {  // right to left: column j-1 is still at row u
        const int u = diag - j;
        if (u < 0 || u >= U) continue;
        if (kTail && i0 + u >= m) continue;
        if (kWidth == Width::any && j >= n) continue;
        const float left_d = j == 0 ? cd[u] : cur[j - 1];
        const std::int32_t left_s = j == 0 ? cs[u] : cur_s[j - 1];
        const float dg_d = j == 0 ? (u == 0 ? old_pd : cd[u == 0 ? 0 : u - 1]) : prev[j - 1];
        const std::int32_t dg_s =
            j == 0 ? (u == 0 ? old_ps : cs[u == 0 ? 0 : u - 1]) : prev_s[j - 1];
        const float up_d = kResets ? raw[j] : cur[j];
        const std::int32_t up_s = cur_s[j];
        const std::int32_t pre = spring_pre_s(dg_d, dg_s, left_d, left_s);
        const float best = spring_min3(up_d, dg_d, left_d);
        const std::int32_t bs = spring_best_s(best, up_d, up_s, pre);
        float c = 0.0f;
        if constexpr (kDims1) {
          c = c + spring_term<kAbs>(xs[j], cp[u]);
        } else {
          const int i = i0 + u;
          for (int k = 0; k < dims; ++k)
            c = c + spring_term<kAbs>(x[j * dims + k], p[i * dims + k]);
        }
        const float val = spring_combine<kDk>(c, best);
        if (bs != t[j]) hi[j] = fold_min(hi[j], val);
        if (!starts_after(bs, te_lo)) lo[j] = fold_min(lo[j], val);
        float o = val;
        if constexpr (kResets)
          if (((resets >> j) & 1u) != 0 && !starts_after(bs, reset_te[j])) o = inf;
        prev[j] = cur[j];
        prev_s[j] = cur_s[j];
        cur[j] = o;
        raw[j] = val;
        cur_s[j] = bs;
        if (kWidth != Width::any && j == K - 1) {  // the block's last column as stored
          dst_d[(i0 + u) * stride] = o;
          dst_s[(i0 + u) * stride] = bs;
        }
        if (kWidth == Width::any && j == n - 1) {
          st_d[u] = o;
          st_s[u] = bs;
        }
      }
    }
    if constexpr (kWidth == Width::any) {
      WW_UNROLL
      for (int u = 0; u < U; ++u) {
        if (kTail && i0 + u >= m) continue;
        dst_d[(i0 + u) * stride] = st_d[u];
        dst_s[(i0 + u) * stride] = st_s[u];
      }
    }
    old_pd = cd[U - 1];
    old_ps = cs[U - 1];
  };
  load(0, cd, cs, cp);
  const int whole = m - m % U;  // rows in whole groups: no row tests
  for (int i0 = 0; i0 < whole; i0 += U) {
    float nd[U], np[U];
    std::int32_t ns[U];
    load(i0 + U, nd, ns, np);
    group(i0, std::false_type{});
    WW_UNROLL
    for (int u = 0; u < U; ++u) {
      cd[u] = nd[u];
      cs[u] = ns[u];
      cp[u] = np[u];
    }
  }
  if (whole < m) group(whole, std::true_type{});
  WW_UNROLL
  for (int j = 0; j < C; ++j) {
    out.lo[j] = lo[j];
    out.hi[j] = hi[j];
    out.last_d[j] = j < K ? raw[j < K ? j : 0] : 0.0f;
    out.last_s[j] = j < K ? cur_s[j < K ? j : 0] : 0;
  }
}

// A block being decided. Its reports are its reset columns (plan.resets): column j's
// candidate was rep_d[j], rep_ts[j] and plan.reset_te[j].
template <int C>
struct Block {
  Plan<C> plan;
  Candidate start;  // the candidate before the block
  int decided;      // columns decided
  float rep_d[C];
  std::int32_t rep_ts[C];
};

// Calls f(Report) for each report of a decided block, in column order; the block's first
// column is chunk step step0.
template <int C, typename F>
WW_HD void each_report(const Block<C>& bl, std::uint32_t step0, F&& f) {
  WW_UNROLL
  for (int j = 0; j < C; ++j)
    if (((bl.plan.resets >> j) & 1u) != 0)
      f(Report{step0 + static_cast<std::uint32_t>(j),
               Candidate{bl.rep_d[j], bl.rep_ts[j], bl.plan.reset_te[j]}});
}

// Applies the rules to the block's undecided columns in order, as far as the folds allow;
// `c` is the candidate before column `decided`. Returns whether the block must be swept
// again (an unknown answer, or a report: its reset changes the later columns and the
// stored one).
template <int C>
WW_HD bool decide(Block<C>& bl, Candidate& c, const Folds<C>& f, float eps) {
  const float inf = float_inf();
  WW_UNROLL
  for (int j = 0; j < C; ++j) {
    if (j < bl.decided || j >= bl.plan.n) continue;
    const std::int32_t t = static_cast<std::int32_t>(static_cast<std::uint32_t>(bl.plan.t0) +
                                                     static_cast<std::uint32_t>(j));
    bool final = false;
    if (c.d_min <= eps) {
      const float d = c.d_min;
      if (c.t_e == bl.plan.te_lo) {
        final = !(f.lo[j] < d);
      } else if (c.t_e == static_cast<std::int32_t>(static_cast<std::uint32_t>(t) - 1u)) {
        final = !(f.hi[j] < d);
      } else if (!(f.hi[j] < d)) {
        final = true;
      } else if (!(f.lo[j] < d)) {  // unknown: the next sweep folds with C's t_e
        bl.plan.te_lo = c.t_e;
        return true;
      }
    }
    float d_m = f.last_d[j];
    if (final) {  // rule 1
      bl.rep_d[j] = c.d_min;
      bl.rep_ts[j] = c.t_s;
      bl.plan.resets |= 1u << j;
      bl.plan.reset_te[j] = c.t_e;
      if (!starts_after(f.last_s[j], c.t_e)) d_m = inf;
      c.d_min = inf;
    }
    if (d_m <= eps && d_m < c.d_min) c = Candidate{d_m, f.last_s[j], t};  // rule 2
    bl.decided = j + 1;
    if (final) {
      bl.plan.te_lo = c.d_min <= eps ? c.t_e : t;
      return true;
    }
  }
  return false;
}

// A pair's progress through its chunk.
template <int C>
struct Lane {
  int t, count;  // chunk steps done (the next block starts there), and the chunk's length
  int side;      // the side holding the column before step t
  Candidate c;   // before step t, or within an open block: before column bl.decided
  bool in_block;
  bool stopped;  // its reports did not fit: stopped at the block's start
  Block<C> bl;
};

template <int C>
WW_HD void lane_begin(Lane<C>& l, int t, int count, int side, Candidate c) {
  l.t = t;
  l.count = count;
  l.side = side;
  l.c = c;
  l.in_block = false;
  l.stopped = false;
}

// Whether the next step sweeps with resets (an open block with a reported column).
template <int C>
WW_HD bool lane_needs_resets(const Lane<C>& l) {
  return l.in_block && l.bl.plan.resets != 0;
}

// The width of the block the next step sweeps.
template <int C>
WW_HD int lane_width(const Lane<C>& l) {
  if (l.in_block) return l.bl.plan.n;
  return l.count - l.t < C ? l.count - l.t : C;
}

// One sweep: opens a block if none is, sweeps and decides it, and closes it once decided,
// handing it to commit(const Block<C>&, std::uint32_t step0) -> bool when it has reports
// (each_report lists them; false: they do not fit, and the lane stops). Returns whether
// the pair has more to do. kResets must be true when
// lane_needs_resets says so (and may be otherwise), and kWidth must fit lane_width.
template <int C, Width kWidth, bool kDk, bool kAbs, bool kResets, bool kDims1, typename Commit>
WW_HD bool lane_step(Lane<C>& l, const PairView& v, Commit&& commit) {
  Block<C>& bl = l.bl;
  if (!l.in_block) {
    bl.plan.n = lane_width(l);
    bl.plan.t0 = static_cast<std::int32_t>(static_cast<std::uint32_t>(v.first) +
                                           static_cast<std::uint32_t>(l.t));
    bl.plan.te_lo = l.c.d_min <= v.eps
                        ? l.c.t_e
                        : static_cast<std::int32_t>(static_cast<std::uint32_t>(bl.plan.t0) - 1u);
    bl.plan.resets = 0;
    bl.start = l.c;
    bl.decided = 0;
    l.in_block = true;
  }
  const float* x = v.x + static_cast<std::uint64_t>(l.t) * static_cast<std::uint64_t>(v.dims);
  Folds<C> f;
  sweep_block<C, kWidth, kDk, kAbs, kResets, kDims1>(v.d[l.side], v.s[l.side], v.d[l.side ^ 1],
                                                     v.s[l.side ^ 1], v, x, bl.plan, f);
  if (decide<C>(bl, l.c, f, v.eps)) return true;
  l.in_block = false;
  if (bl.plan.resets != 0 &&
      !commit(static_cast<const Block<C>&>(bl), static_cast<std::uint32_t>(l.t))) {
    l.c = bl.start;
    l.stopped = true;
    return false;
  }
  l.side ^= 1;
  l.t += bl.plan.n;
  return l.t < l.count;
}

// lane_step in the variant for `resets` (lane_needs_resets of some lane) and `width` (what
// every lane's lane_width allows); several dimensions take the tested width.
template <int C, bool kDk, bool kAbs, bool kDims1, typename Commit>
WW_HD bool lane_step_as(Lane<C>& l, const PairView& v, bool resets, Width width, Commit&& commit) {
  if (!kDims1 || width == Width::any)
    return resets ? lane_step<C, Width::any, kDk, kAbs, true, kDims1>(l, v, commit)
                  : lane_step<C, Width::any, kDk, kAbs, false, kDims1>(l, v, commit);
  if (width == Width::full)
    return resets ? lane_step<C, Width::full, kDk, kAbs, true, kDims1>(l, v, commit)
                  : lane_step<C, Width::full, kDk, kAbs, false, kDims1>(l, v, commit);
  return resets ? lane_step<C, Width::one, kDk, kAbs, true, kDims1>(l, v, commit)
                : lane_step<C, Width::one, kDk, kAbs, false, kDims1>(l, v, commit);
}

}  // namespace warpwatch::kernels::cuda::sweep
