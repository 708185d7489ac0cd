// RAII owners of the CUDA resources the backend uses: device buffers, pinned host
// buffers, streams and events. Each frees what it owns in its destructor (errors there are
// ignored: a destructor must not throw, and the context may already be torn down), and
// grows by reallocating (contents are not kept) only when asked for more than it has.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "cuda/runtime/cuda_check.hpp"

namespace warpwatch::kernels::cuda {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) { reserve(count); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), capacity_(std::exchange(o.capacity_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      data_ = std::exchange(o.data_, nullptr);
      capacity_ = std::exchange(o.capacity_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  // At least `count` elements; the old contents are lost when it has to grow.
  void reserve(std::size_t count) {
    if (count <= capacity_) return;
    release();
    void* p = nullptr;
    WW_CUDA(cudaMalloc(&p, count * sizeof(T)));
    data_ = static_cast<T*>(p);
    capacity_ = count;
  }
  T* data() const { return data_; }
  std::size_t capacity() const { return capacity_; }
  std::size_t bytes() const { return capacity_ * sizeof(T); }

 private:
  void release() {
    if (data_) cudaFree(data_);
    data_ = nullptr;
    capacity_ = 0;
  }
  T* data_ = nullptr;
  std::size_t capacity_ = 0;
};

// A fixed size of device memory from the device's default memory pool, allocated and freed
// in the order of `stream` (cudaMallocAsync, cudaFreeAsync): about a microsecond each and
// no device-wide synchronization. For the many small buffers that come and go with
// streams and patterns: 20,000 stream-mode tiles through cudaMalloc stalled a daemon's
// first rounds while 10,000 auto-created streams arrived (and cudaFree waits for the
// device). The memory is used on `stream` only (other streams would need an event).
template <typename T>
class StreamOrderedBuffer {
 public:
  StreamOrderedBuffer() = default;
  StreamOrderedBuffer(std::size_t count, cudaStream_t stream) : stream_(stream) {
    void* p = nullptr;
    WW_CUDA(cudaMallocAsync(&p, count * sizeof(T), stream));
    data_ = static_cast<T*>(p);
    count_ = count;
  }
  ~StreamOrderedBuffer() {
    if (data_) cudaFreeAsync(data_, stream_);
  }
  StreamOrderedBuffer(StreamOrderedBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)),
        count_(std::exchange(o.count_, 0)),
        stream_(o.stream_) {}
  StreamOrderedBuffer& operator=(StreamOrderedBuffer&& o) noexcept {
    if (this != &o) {
      if (data_) cudaFreeAsync(data_, stream_);
      data_ = std::exchange(o.data_, nullptr);
      count_ = std::exchange(o.count_, 0);
      stream_ = o.stream_;
    }
    return *this;
  }
  StreamOrderedBuffer(const StreamOrderedBuffer&) = delete;
  StreamOrderedBuffer& operator=(const StreamOrderedBuffer&) = delete;

  T* data() const { return data_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
  cudaStream_t stream_ = nullptr;
};

// Page-locked host memory: the only kind an asynchronous copy overlaps with computing.
template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer() { release(); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  void reserve(std::size_t count) {
    if (count <= capacity_) return;
    release();
    void* p = nullptr;
    WW_CUDA(cudaMallocHost(&p, count * sizeof(T)));
    data_ = static_cast<T*>(p);
    capacity_ = count;
  }
  T* data() const { return data_; }
  T& operator[](std::size_t i) const { return data_[i]; }
  std::size_t capacity() const { return capacity_; }

 private:
  void release() {
    if (data_) cudaFreeHost(data_);
    data_ = nullptr;
    capacity_ = 0;
  }
  T* data_ = nullptr;
  std::size_t capacity_ = 0;
};

class Stream {
 public:
  Stream() { WW_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(stream_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }
  void synchronize() const { WW_CUDA(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  explicit Event(unsigned flags = cudaEventDefault) {
    WW_CUDA(cudaEventCreateWithFlags(&event_, flags));
  }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }
  void record(const Stream& s) const { record(s.get()); }
  void record(cudaStream_t s) const { WW_CUDA(cudaEventRecord(event_, s)); }
  void synchronize() const { WW_CUDA(cudaEventSynchronize(event_)); }
  // Seconds from `start` to this event (both recorded and complete).
  double seconds_since(const Event& start) const {
    float ms = 0.0f;
    WW_CUDA(cudaEventElapsedTime(&ms, start.event_, event_));
    return ms * 1e-3;
  }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace warpwatch::kernels::cuda
