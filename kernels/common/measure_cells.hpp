// The cells of the whole-series measures msm, erp and lcss (docs/spec.md §4.4, §4.5, §4.6),
// written once and compiled by every backend: the reference (float64 scalars), the cpu
// (Highway lane-vectors, one series of B a lane) and the CUDA generic kernel (float64, a
// thread a pair). The model is faiss's GeneralDistance: a kernel is generic over a
// distance op, and the op says what one cell is.
//
// - `Ops` is the arithmetic a backend runs the cell in: a value type V (a scalar or a
//   lane-vector), a mask type M, and set/inf/add/sub/abs/min/max/le/and_/select. ScalarOps
//   below is the scalar one (host and device); the cpu defines its own over Highway.
// - A measure is a struct holding its parameters (MsmCell, ErpCell, LcssCell; CellOf names
//   each by its Metric, with_cell builds the one a Metric names from MeasureParams) with
//   corner/top/side (row 0 and column 0 of its table) and cell (D(i, j) from D(i-1, j-1),
//   D(i-1, j), D(i, j-1)), and `distance`, which sweeps its table(s) with sweep_table and
//   turns the last cell into the distance.
// - Samples are read through accessors: a(i, k) and b(j, k) give component k of sample i of
//   a (1-based) as a V; the row kept in memory through Row::load(j) / Row::store(j, v).
//
// C++17, no standard headers beyond <cstddef>: the .cu files include it. The definitions are in
// measure_cells-inl.h, included here into namespace cells, and by the cpu backend once per
// SIMD target inside that target's namespace (cpu/elastic_kernel.cpp): a function that
// passes a 512-bit vector must be compiled for the target that has it.
#pragma once

#include <cstddef>

#include "warpwatch/kernels/measures.hpp"

#if defined(__CUDACC__)
#define WW_HOST_DEVICE __host__ __device__
#else
#define WW_HOST_DEVICE
#endif

namespace warpwatch::kernels::cells {
// clang-format off
#include "common/measure_cells-inl.h"  // IWYU pragma: export
// clang-format on
}  // namespace warpwatch::kernels::cells
