// How close ln t and ln t + 1 come to an fp32 value, over every positive finite fp32 t: the
// one-off search behind the KL divergence family's exact paths (src/losses/kl_div/
// kl_div_error_budget.h, kKlDivLogCancellation). Those paths form t (ln t - x) and
// g (ln t - x + 1) from a double-double ln t within 2^-98 of |ln t|; their error relative to their
// own value is 2^-98 |ln t| / |ln t - x| (or / |ln t + 1 - x|), and this program finds the least
// |ln t - x| / |ln t| and |ln t + 1 - x| / |ln t| over every fp32 t != 1 and fp32 x: the distance
// of ln t (ln t + 1) from the fp32 grid, in units of |ln t|.
//
// ln t = k ln 2 + ln m with m = 1 + i 2^-23: ln m for every i from binary128 (log1pq), k ln 2 and
// the sum in double-double (error below 2^-104 of |k ln 2| + |ln m|, far below any distance it
// reports); the 24 smallest of each kind are computed again in binary128 alone (logq).
// Single-threaded. Build and run (x86-64, GCC):
//   g++ -O2 -std=c++20 scripts/kl-div-log-distance.cc -lquadmath -o /tmp/kl-div-log-distance
//   /tmp/kl-div-log-distance
#include <quadmath.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

struct DD {
  double hi, lo;
};

DD TwoSum(double a, double b) {
  const double s = a + b, bb = s - a;
  return {s, (a - (s - bb)) + (b - bb)};
}
DD FastTwoSum(double a, double b) {
  const double s = a + b;
  return {s, b - (s - a)};
}
DD Add(DD a, DD b) {
  const DD high = TwoSum(a.hi, b.hi), low = TwoSum(a.lo, b.lo);
  const DD sum = FastTwoSum(high.hi, high.lo + low.hi);
  return FastTwoSum(sum.hi, sum.lo + low.lo);
}
DD OfQuad(__float128 v) {
  const double hi = static_cast<double>(v);
  return {hi, static_cast<double>(v - hi)};
}

float Float(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// |v - nearest fp32|, v a double-double well inside fp32's normal range.
double GridDistance(DD v) {
  const float f = static_cast<float>(v.hi);
  double best = INFINITY;
  for (const float c : {std::nextafter(f, -INFINITY), f, std::nextafter(f, INFINITY)}) {
    // v.hi - c is exact: c is within a few fp32 ulps of v.hi (Sterbenz).
    best = std::min(best, std::fabs((v.hi - static_cast<double>(c)) + v.lo));
  }
  return best;
}

struct Hit {
  double ratio;
  uint32_t t_bits;
};

// The `kKeep` smallest ratios seen, unordered (a small max-heap by hand).
constexpr size_t kKeep = 24;
void Keep(std::vector<Hit>& hits, Hit hit) {
  if (hits.size() < kKeep) {
    hits.push_back(hit);
    std::push_heap(hits.begin(), hits.end(), [](Hit a, Hit b) { return a.ratio < b.ratio; });
  } else if (hit.ratio < hits.front().ratio) {
    std::pop_heap(hits.begin(), hits.end(), [](Hit a, Hit b) { return a.ratio < b.ratio; });
    hits.back() = hit;
    std::push_heap(hits.begin(), hits.end(), [](Hit a, Hit b) { return a.ratio < b.ratio; });
  }
}

// The ratio again in binary128 alone: |ln t + offset - nearest fp32| / |ln t|.
double QuadRatio(uint32_t t_bits, int offset) {
  const __float128 log = logq(static_cast<__float128>(Float(t_bits)));
  const __float128 v = log + offset;
  const float f = static_cast<float>(static_cast<double>(v));
  __float128 best = 1;
  for (const float c : {std::nextafter(f, -INFINITY), f, std::nextafter(f, INFINITY)}) {
    best = std::min(best, fabsq(v - static_cast<__float128>(c)));
  }
  return static_cast<double>(best / fabsq(log));
}

void Print(const char* what, std::vector<Hit> hits, int offset) {
  std::sort(hits.begin(), hits.end(), [](Hit a, Hit b) { return a.ratio < b.ratio; });
  std::printf("%s: least 2^%.2f\n", what, std::log2(hits.front().ratio));
  for (const Hit& hit : hits) {
    const double log = std::log(static_cast<double>(Float(hit.t_bits)));
    std::printf("  t = %a (0x%08x), ln t%s = %.9g: 2^%.3f (binary128 alone: 2^%.3f)\n",
                Float(hit.t_bits), hit.t_bits, offset ? " + 1" : "", log + offset,
                std::log2(hit.ratio), std::log2(QuadRatio(hit.t_bits, offset)));
  }
}

}  // namespace

int main() {
  const auto start = std::chrono::steady_clock::now();
  constexpr uint32_t kMantissas = 1u << 23;
  std::vector<DD> log_m(kMantissas);
  for (uint32_t i = 0; i < kMantissas; ++i) {
    log_m[i] = OfQuad(log1pq(static_cast<__float128>(i) / kMantissas));
  }
  const DD ln2 = OfQuad(logq(static_cast<__float128>(2)));
  std::vector<Hit> least_log, least_log_plus_one, least_own;
  // Counts of t whose ln t (ln t + 1) lies within 2^-k |ln t| of an fp32, k = 40..63.
  int64_t below_log[24] = {}, below_plus_one[24] = {};
  int64_t count = 0;
  for (uint32_t bits = 1; bits < 0x7f800000u; ++bits) {
    if (bits == 0x3f800000u) continue;  // t = 1: ln t = 0, the exact case
    int k;
    uint32_t i;
    if (bits >= 0x00800000u) {
      k = static_cast<int>(bits >> 23) - 127;
      i = bits & (kMantissas - 1);
    } else {  // a subnormal j 2^-149, normalized
      uint32_t j = bits;
      int shift = 0;
      while (j < kMantissas) j <<= 1, ++shift;
      k = -126 - shift;
      i = j - kMantissas;
    }
    // k ln 2 exactly as k * ln2.hi (TwoProd) + k * ln2.lo (within 2^-106 of ln 2 times |k|).
    const double p = k * ln2.hi;
    const DD k_ln2 = FastTwoSum(p, std::fma(k, ln2.hi, -p) + k * ln2.lo);
    const DD log = Add(k_ln2, log_m[i]);
    const double magnitude = std::fabs(log.hi);
    const double ratio = GridDistance(log) / magnitude;
    const DD plus_one = Add(log, DD{1.0, 0.0});
    const double distance_plus_one = GridDistance(plus_one);
    const double ratio_plus_one = distance_plus_one / magnitude;
    Keep(least_log, {ratio, bits});
    Keep(least_log_plus_one, {ratio_plus_one, bits});
    Keep(least_own, {distance_plus_one / std::fabs(plus_one.hi), bits});
    // Counted once, in the bucket of the ratio's exponent; summed into "below 2^-k" at the end.
    int exponent;
    std::frexp(ratio, &exponent);  // ratio in [2^(exponent-1), 2^exponent)
    if (exponent <= -40) ++below_log[std::min(-exponent - 40, 23)];
    std::frexp(ratio_plus_one, &exponent);
    if (exponent <= -40) ++below_plus_one[std::min(-exponent - 40, 23)];
    ++count;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%lld positive finite fp32 t (t = 1 left out), %.1f s\n",
              static_cast<long long>(count), seconds);
  Print("|ln t - x| / |ln t|", least_log, 0);
  Print("|ln t + 1 - x| / |ln t|", least_log_plus_one, 0 + 1);
  std::printf("(and in units of |ln t + 1| itself: least 2^%.2f)\n",
              std::log2(std::min_element(least_own.begin(), least_own.end(), [](Hit a, Hit b) {
                          return a.ratio < b.ratio;
                        })->ratio));
  std::printf("t within 2^-k |ln t| of an fp32, k: ln t, ln t + 1\n");
  for (int b = 22; b >= 0; --b) {  // bucket b holds ratios below 2^-(40 + b) (the last: and less)
    below_log[b] += below_log[b + 1];
    below_plus_one[b] += below_plus_one[b + 1];
  }
  for (int b = 0; b < 24; ++b) {
    std::printf("  %d: %lld, %lld\n", 40 + b, static_cast<long long>(below_log[b]),
                static_cast<long long>(below_plus_one[b]));
  }
  return 0;
}
