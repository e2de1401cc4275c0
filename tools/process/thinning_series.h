// Points measured over a run of unknown length (cumulative bytes allocated
// against time or work done), at most a fixed number, spread evenly over
// the whole run: every offered point is kept while there is room; when the
// series is full, every other point is dropped and from then on only every
// second offer is kept (then every fourth, ...). Storage is reserved up
// front, so neither Due nor Add allocates: the series can be filled inside
// the window it measures. Not thread-safe: one filler at a time.
#ifndef ROCKPOOL_TOOLS_PROCESS_THINNING_SERIES_H_
#define ROCKPOOL_TOOLS_PROCESS_THINNING_SERIES_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rockpool::process {

template <typename Point>
class ThinningSeries {
 public:
  // `capacity` is raised to 2: thinning needs two points to keep one.
  explicit ThinningSeries(size_t capacity) : capacity_(std::max<size_t>(capacity, 2)) {
    points_.reserve(capacity_);
  }

  // Counts an offer; true if this one is kept. The caller measures only
  // then, and passes the point to Add.
  bool Due() { return offers_++ % stride_ == 0; }

  // Keeps `p` (thinning first if full), whether due or not: the run's first
  // and last points are always wanted.
  void Add(const Point& p) {
    if (points_.size() == capacity_) {
      for (size_t i = 0; i < capacity_ / 2; ++i) points_[i] = points_[2 * i];
      points_.resize(capacity_ / 2);
      stride_ *= 2;
    }
    points_.push_back(p);
  }

  const std::vector<Point>& points() const { return points_; }

 private:
  const size_t capacity_;
  uint64_t stride_ = 1;  // one offer kept in `stride_`
  uint64_t offers_ = 0;
  std::vector<Point> points_;
};

}  // namespace rockpool::process

#endif  // ROCKPOOL_TOOLS_PROCESS_THINNING_SERIES_H_
