// Random inputs of the KL divergence family's tests, by distribution: typical log-probabilities and
// probabilities, wide exponent ranges, 16-bit values, hard labels, and inputs built so that a
// result cancels (x next to ln t, ln t + 1, t or t + 1).
#pragma once

#include <cmath>
#include <cstdint>
#include <random>

#include "base/dtype.h"
#include "kernels/element_inputs.h"

namespace openaclnn {

enum class Distribution { kTypical, kWide, kHalf, kHard, kCancelling };
inline constexpr Distribution kDistributions[] = {Distribution::kTypical, Distribution::kWide,
                                                  Distribution::kHalf, Distribution::kHard,
                                                  Distribution::kCancelling};
inline const char* DistributionName(Distribution d) {
  switch (d) {
    case Distribution::kTypical:
      return "typical";
    case Distribution::kWide:
      return "wide";
    case Distribution::kHalf:
      return "16-bit";
    case Distribution::kHard:
      return "hard labels";
    default:
      return "cancelling";
  }
}

class Sampler {
 public:
  explicit Sampler(uint64_t seed) : rng_(seed) {}

  double Unit() { return unit_(rng_); }
  double Uniform(double low, double high) { return low + (high - low) * Unit(); }
  int Int(int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng_); }
  float Signed(float v) { return Unit() < 0.5 ? -v : v; }
  // 2^e with e uniform in [low, high), as an fp32 (subnormals included).
  float Pow2(double low, double high) {
    return static_cast<float>(std::exp2(Uniform(low, high)) * Uniform(1.0, 2.0) / 1.5);
  }
  std::mt19937_64& Engine() { return rng_; }

  // Inputs of `variant` (0: t a probability, 1: a log-probability) drawn from `distribution`.
  ElementInputs Draw(int variant, Distribution distribution) {
    ElementInputs in;
    switch (distribution) {
      case Distribution::kTypical:
        in.x = Unit() < 0.5 ? static_cast<float>(std::log(Uniform(1e-9, 1.0)))
                            : static_cast<float>(Uniform(-10, 10));
        in.t = variant == 0 ? static_cast<float>(Unit())
                            : static_cast<float>(Unit() < 0.5 ? std::log(Uniform(1e-9, 1.0))
                                                              : Uniform(-10, 10));
        in.g = static_cast<float>(Uniform(-4, 4));
        break;
      case Distribution::kWide:
        in.x = Signed(Pow2(-149, 127.5));
        in.t = variant == 0    ? Pow2(-149, 127.5)
               : Unit() < 0.75 ? Signed(Pow2(-20, 9.5))
                               : static_cast<float>(Uniform(-800, 720));
        in.g = Signed(Pow2(-149, 127.5));
        break;
      case Distribution::kHalf: {
        const FloatType half = Unit() < 0.5 ? FloatType::kFloat16 : FloatType::kBFloat16;
        in = Draw(variant, Unit() < 0.5 ? Distribution::kTypical : Distribution::kWide);
        in.x = Narrowed(in.x, half);
        in.t = Narrowed(in.t, half);
        in.g = Narrowed(in.g, half);
        break;
      }
      case Distribution::kHard: {
        in = Draw(variant, Unit() < 0.5 ? Distribution::kTypical : Distribution::kWide);
        const double label = Unit();
        if (variant == 0) {
          in.t = label < 0.45 ? 0.0f : label < 0.9 ? 1.0f : -0.0f;
        } else {  // log-probabilities of 1 and of (nearly) 0
          in.t = label < 0.5    ? 0.0f
                 : label < 0.75 ? -100.0f
                                : static_cast<float>(-Uniform(90, 1e4));
        }
        break;
      }
      default: {  // x within a few fp32 units of the value that makes a result cancel
        in = Draw(variant, Unit() < 0.5 ? Distribution::kTypical : Distribution::kWide);
        const bool plus_one = Unit() < 0.5;  // the target gradient's zero, else the loss's
        if (variant == 0) {
          if (in.t == 0.0f) in.t = 0.5f;
          const double log = std::log(static_cast<double>(in.t));
          in.x = static_cast<float>(plus_one ? log + 1 : log);
        } else {
          in.x = plus_one ? in.t + 1.0f : in.t;
        }
        for (int step = Int(-3, 3); step != 0; step += step < 0 ? 1 : -1) {
          in.x = std::nextafter(in.x, step < 0 ? -INFINITY : INFINITY);
        }
        break;
      }
    }
    return in;
  }

 private:
  static float Narrowed(float v, FloatType type) {
    if (type == FloatType::kFloat16) {
      return Float16ToFloat(FloatToFloat16(std::fmax(std::fmin(v, 65504.0f), -65504.0f)));
    }
    return BFloat16ToFloat(FloatToBFloat16(v));
  }

  std::mt19937_64 rng_;
  std::uniform_real_distribution<double> unit_{0.0, 1.0};
};

}  // namespace openaclnn
