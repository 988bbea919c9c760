// What the MSE ops' API tests expect, computed apart from the library: each term (x - t)^2 or
// 2 g (x - t) exactly in binary128 (exact for fp32 inputs whose exponents are at most 32 apart),
// sums of them in binary128, one division, and one rounding to the output's dtype (RoundedTo);
// where an input is not finite, the class IEEE double arithmetic gives the formula.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "op_tester.h"

namespace openaclnn::testing {

using Shape = std::vector<int64_t>;

// The reductions as the MSE ops take them (their headers, as CANN's, name none).
constexpr int64_t kNone = 0, kMean = 1, kSum = 2;

inline int64_t Count(const Shape& shape) {
  int64_t count = 1;
  for (int64_t dim : shape) count *= dim;
  return count;
}

// The NumPy broadcast of two shapes that broadcast.
inline Shape BroadcastOf(const Shape& a, const Shape& b) {
  Shape shape = a.size() >= b.size() ? a : b;
  const Shape& shorter = a.size() >= b.size() ? b : a;
  for (size_t d = 0; d < shorter.size(); ++d) {
    int64_t& dim = shape[shape.size() - shorter.size() + d];
    if (dim == 1) dim = shorter[d];
  }
  return shape;
}

// A contiguous host tensor: its shape and values (as DeviceTensor::Read gives them).
struct HostTensor {
  Shape shape;
  std::vector<float> values;
};

// A device tensor's contiguous contents as the op reads them (after the rounding to its dtype).
inline HostTensor HostOf(const DeviceTensor& tensor, const Shape& shape) {
  return {shape, tensor.Read()};
}

// The value of `tensor`, broadcast into `shape`, at flat index `flat` of `shape`.
inline float ValueAt(const HostTensor& tensor, const Shape& shape, int64_t flat) {
  const size_t lead = shape.size() - tensor.shape.size();
  int64_t index = 0, stride = 1;
  for (size_t d = shape.size(); d-- > lead;) {
    const int64_t coordinate = flat % shape[d];
    flat /= shape[d];
    const int64_t dim = tensor.shape[d - lead];
    if (dim != 1) index += coordinate * stride;
    stride *= dim;
  }
  return tensor.values[index];
}

// One term (the loss's, or with gradOutput g the gradient's) exactly; where an input is not
// finite, `special`: its IEEE double value, whose class is the term's.
struct Term {
  Binary128 exact = 0;
  bool finite = true;
  double special = 0;
};
inline Term MseTerm(float x, float t, const float* g) {
  Term term;
  if (!std::isfinite(x) || !std::isfinite(t) || (g != nullptr && !std::isfinite(*g))) {
    const double d = static_cast<double>(x) - t;
    term.finite = false;
    term.special = g == nullptr ? d * d : 2.0 * *g * d;
    return term;
  }
  const Binary128 d = static_cast<Binary128>(x) - static_cast<Binary128>(t);
  term.exact = g == nullptr ? d * d : 2 * static_cast<Binary128>(*g) * d;
  return term;
}

// A sum of terms divided by `divisor`, rounded once to `dtype` (or the class of its specials).
class MseTotal {
 public:
  void Add(const Term& term) {
    if (term.finite) {
      exact_ += term.exact;
    } else {
      special_ += term.special, finite_ = false;
    }
  }
  float RoundedTo(int64_t divisor, aclDataType dtype) const {
    if (!finite_) return static_cast<float>(special_);
    return testing::RoundedTo(exact_ / static_cast<Binary128>(divisor), dtype);
  }

 private:
  Binary128 exact_ = 0;
  double special_ = 0;
  bool finite_ = true;
};

// aclnnMseLoss's and aclnnMseLossOut's none: every element of the broadcast shape `shape`.
inline std::vector<float> ExpectedLosses(const HostTensor& self, const HostTensor& target,
                                         const Shape& shape, aclDataType dtype) {
  std::vector<float> expected(Count(shape));
  for (int64_t i = 0; i < Count(shape); ++i) {
    MseTotal one;
    one.Add(MseTerm(ValueAt(self, shape, i), ValueAt(target, shape, i), nullptr));
    expected[i] = one.RoundedTo(1, dtype);
  }
  return expected;
}

// aclnnMseLoss's mean (reduction 1) or sum (2) over the broadcast shape.
inline float ExpectedTotal(const HostTensor& self, const HostTensor& target, const Shape& shape,
                           int64_t reduction, aclDataType dtype) {
  MseTotal total;
  for (int64_t i = 0; i < Count(shape); ++i) {
    total.Add(MseTerm(ValueAt(self, shape, i), ValueAt(target, shape, i), nullptr));
  }
  if (Count(shape) == 0) return reduction == 1 ? NAN : 0.0f;
  return total.RoundedTo(reduction == 1 ? Count(shape) : 1, dtype);
}

// aclnnMseLossOut's mean or sum over the first dimension of `shape` (a 0-D shape: its one loss).
inline std::vector<float> ExpectedOverFirstDimension(const HostTensor& self,
                                                     const HostTensor& target, const Shape& shape,
                                                     int64_t reduction, aclDataType dtype) {
  if (shape.empty()) return ExpectedLosses(self, target, shape, dtype);
  const int64_t rows = shape[0], columns = Count(shape) / std::max<int64_t>(rows, 1);
  std::vector<float> expected(Count(Shape(shape.begin() + 1, shape.end())));
  for (size_t column = 0; column < expected.size(); ++column) {
    MseTotal total;
    for (int64_t row = 0; row < rows; ++row) {
      const int64_t i = row * columns + static_cast<int64_t>(column);
      total.Add(MseTerm(ValueAt(self, shape, i), ValueAt(target, shape, i), nullptr));
    }
    expected[column] = rows == 0 ? (reduction == 1 ? NAN : 0.0f)
                                 : total.RoundedTo(reduction == 1 ? rows : 1, dtype);
  }
  return expected;
}

// aclnnMseLossBackward: 2 g (x - t) over the broadcast shape of the three, divided by `divisor`.
inline std::vector<float> ExpectedGradients(const HostTensor& grad, const HostTensor& self,
                                            const HostTensor& target, const Shape& shape,
                                            int64_t divisor, aclDataType dtype) {
  std::vector<float> expected(Count(shape));
  for (int64_t i = 0; i < Count(shape); ++i) {
    const float g = ValueAt(grad, shape, i);
    MseTotal one;
    one.Add(MseTerm(ValueAt(self, shape, i), ValueAt(target, shape, i), &g));
    expected[i] = one.RoundedTo(divisor, dtype);
  }
  return expected;
}

// Deterministic values in [low, high): a fixed linear congruential sequence, so that every run
// and platform checks the same numbers.
inline std::vector<float> Spread(int64_t count, float low, float high, uint32_t seed = 1) {
  std::vector<float> values(count);
  uint32_t state = seed * 2654435761u + 12345u;
  for (float& value : values) {
    state = state * 1664525u + 1013904223u;
    value = low + (high - low) * static_cast<float>(state >> 8) * 0x1p-24f;
  }
  return values;
}

}  // namespace openaclnn::testing
