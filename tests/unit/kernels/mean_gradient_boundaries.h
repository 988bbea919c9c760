// A mean's gradient on and beside the rounding boundaries of its output type, for the tests of its
// definition, RN(g f' / N): the exact value divided by N and rounded once. The inputs are built so
// that g f' / N is exactly a midpoint of the output type (a tie), or one unit of the inputs' type
// beside one. On a tie the definition rounds to even, where the former g f' fl64(1/N) rounded off
// the midpoint toward fl64(1/N)'s own error; beside one, within 2^-53 of it, that error could
// round it to the wrong side. The cases stand on the two families' rational gradients:
//   the with-logits self gradient at x = 0 (sigmoid 1/2), g w (1 - t (1 + p)) / 2;
//   its target gradient without pos_weight (p = 1), -g w x;
//   the probability family's gradient at x = 1/2, g w (x - t) / (1/4) = 2 g w (1 - 2t);
// each a product of slots (g, w, x, or 1 - 2t = U / 2^(P-1) for t = (2^(P-1) - U) / 2^P, P the
// inputs' precision), whose odd parts are chosen to hold N's prime factors and, between them, the
// midpoint's odd significand M (of the output's precision plus one bit): g f' = N M 2^E. The exact
// values come from GMP (rational_oracle.h), independently of the library's rounding code. A test
// that includes this links GMP.
#pragma once

#include <gmpxx.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "base/dtype.h"
#include "kernels/element_inputs.h"
#include "rational_oracle.h"

namespace openaclnn {

enum class GradientForm {
  kWithLogitsSelf,    // x = 0: g w (1 - t (1 + p)) / 2, p = 1
  kWithLogitsTarget,  // p = 1: -g w x
  kProbabilitySelf,   // x = 1/2: 2 g w (1 - 2t)
};

// What the cases are built for: every operand of type `input` (the inputs of a tensor of that
// dtype), the result rounded to `output`, divided by the odd `divisor` (N); `weighted`: a weight
// operand (else w = 1); `grad_output`: a gradOutput operand per element (else g = 1, as the fused
// op's gradient of a mean takes it: one value for all).
struct BoundarySpec {
  GradientForm form;
  FloatType input, output;
  int64_t divisor;
  bool weighted = true;
  bool grad_output = true;
};

struct BoundaryCase {
  ElementInputs in;
  bool tie;  // g f' / N on a midpoint; else one unit of an input beside such a case
};

// The exact gradient (before the division by N) of `form` at `in`.
inline mpq_class ExactGradient(GradientForm form, const ElementInputs& in) {
  const mpq_class x = Rational(in.x), t = Rational(in.t), w = Rational(in.w), g = Rational(in.g);
  switch (form) {
    case GradientForm::kWithLogitsSelf:  // (1 - t) sigmoid(0) - p t sigmoid(0), sigmoid(0) = 1/2
      return g * w * (1 - t - Rational(in.p) * t) / 2;
    case GradientForm::kWithLogitsTarget:  // p softplus(-x) - softplus(x) = -x for p = 1
      return -g * w * x;
    default: {  // g w (x - t) / max(x (1 - x), fl32(1e-12))
      const mpq_class product = x * (1 - x), floor = Rational(static_cast<double>(1e-12f));
      return g * w * (x - t) / (product > floor ? product : floor);
    }
  }
}

// The exact gradient divided by `divisor` (any int64, exactly).
inline mpq_class ExactGradient(GradientForm form, const ElementInputs& in, int64_t divisor) {
  return ExactGradient(form, in) / mpq_class(mpz_class(static_cast<long>(divisor)));
}

// The correctly rounded result; every case is nonzero.
inline float ExpectedGradient(GradientForm form, const ElementInputs& in, int64_t divisor,
                              FloatType output) {
  return static_cast<float>(RoundRational(ExactGradient(form, in, divisor), output));
}

// Whether v (nonzero) is a midpoint of `type` within its normal range.
inline bool IsMidpoint(const mpq_class& v, FloatType type) {
  const Format format = FormatOf(type);
  const mpq_class magnitude = abs(v);
  const long exponent = FloorLog2(magnitude);
  if (exponent < format.min_exponent || exponent > format.max_exponent) return false;
  const mpq_class units = TimesPow2(magnitude, format.precision - exponent);  // 2 / ulp
  return units.get_den() == 1 && mpz_odd_p(units.get_num_mpz_t()) != 0;
}

// Whether the fp32 value v is a value of `type` (its one rounding to it changes nothing).
inline bool OfType(float v, FloatType type) {
  return std::isfinite(v) && static_cast<float>(RoundRational(Rational(v), type)) == v;
}

// The neighbour of `type` value v one unit away from zero (`away`) or toward it (v not 0).
inline float NextInType(float v, FloatType type, bool away) {
  if (type == FloatType::kFloat32) {
    return std::nextafter(v, away == (v > 0) ? HUGE_VALF : -HUGE_VALF);
  }
  const bool fp16 = type == FloatType::kFloat16;
  const uint16_t bits = fp16 ? FloatToFloat16(v) : FloatToBFloat16(v);
  const auto next = static_cast<uint16_t>(away ? bits + 1 : bits - 1);  // the sign bit stays
  return fp16 ? Float16ToFloat(next) : BFloat16ToFloat(next);
}

// The least positive value of `type` (its least subnormal).
inline float LeastPositive(FloatType type) {
  return type == FloatType::kFloat32   ? 0x1p-149f
         : type == FloatType::kFloat16 ? 0x1p-24f
                                       : 0x1p-133f;
}

namespace boundaries {

inline int BitLength(uint64_t v) { return v == 0 ? 0 : 64 - __builtin_clzll(v); }

// The prime factors of an odd n >= 1, with multiplicity (n below 2^40 or with small factors).
inline std::vector<uint64_t> PrimeFactors(uint64_t n) {
  std::vector<uint64_t> factors;
  for (uint64_t p = 3; p * p <= n; p += 2) {
    while (n % p == 0) factors.push_back(p), n /= p;
  }
  if (n > 1) factors.push_back(n);
  return factors;
}

// An odd integer uniform in [low, high] (0 where there is none).
inline uint64_t OddIn(std::mt19937_64& rng, uint64_t low, uint64_t high) {
  low |= 1;
  if (high % 2 == 0) {
    if (high == 0) return 0;
    --high;
  }
  if (low > high) return 0;
  return low + 2 * std::uniform_int_distribution<uint64_t>(0, (high - low) / 2)(rng);
}

enum class Slot { kG, kW, kX, kOneMinusTwoT };

// One tie of `spec`, with t = 0 or (`t_slot`) t = (2^(P-1) - U) / 2^P; false where this draw did
// not fit (the caller draws again).
inline bool DrawTie(const BoundarySpec& spec, bool t_slot, std::mt19937_64& rng,
                    ElementInputs* in) {
  const int precision = FormatOf(spec.input).precision;
  const int out_bits = FormatOf(spec.output).precision + 1;  // M: a midpoint's odd significand
  std::vector<Slot> slots;
  if (spec.grad_output) slots.push_back(Slot::kG);
  if (spec.weighted) slots.push_back(Slot::kW);
  if (spec.form == GradientForm::kWithLogitsTarget) slots.push_back(Slot::kX);
  if (t_slot) slots.push_back(Slot::kOneMinusTwoT);
  std::shuffle(slots.begin(), slots.end(), rng);
  const size_t count = slots.size();
  const auto capacity = [&](size_t i) {  // the largest odd part of the slot's value
    return (uint64_t{1} << (slots[i] == Slot::kOneMinusTwoT ? precision - 1 : precision)) - 1;
  };
  // N's factors among the slots, then M's: each slot's odd part n_i u_i within its capacity.
  std::vector<uint64_t> n(count, 1), u(count, 1);
  for (const uint64_t prime : PrimeFactors(static_cast<uint64_t>(spec.divisor))) {
    std::vector<size_t> fits;
    for (size_t i = 0; i < count; ++i) {
      if (n[i] * prime <= capacity(i)) fits.push_back(i);
    }
    if (fits.empty()) return false;
    n[fits[rng() % fits.size()]] *= prime;
  }
  // Each slot but the last a random share of M's bits (a bit length uniform up to what its room
  // and M leave), the last what completes M.
  uint64_t m = 1;
  for (size_t i = 0; i + 1 < count; ++i) {
    const int room = std::min(BitLength(capacity(i) / n[i]), out_bits - BitLength(m));
    if (room < 1) return false;
    const int bits = 1 + static_cast<int>(rng() % static_cast<uint64_t>(room));
    u[i] = OddIn(rng, uint64_t{1} << (bits - 1),
                 std::min((uint64_t{1} << bits) - 1, capacity(i) / n[i]));
    if (u[i] == 0) return false;
    m *= u[i];
  }
  const uint64_t low = ((uint64_t{1} << (out_bits - 1)) + m - 1) / m;
  const uint64_t high =
      std::min(((uint64_t{1} << out_bits) - 1) / m, capacity(count - 1) / n.back());
  u.back() = OddIn(rng, low, high);
  if (u.back() == 0) return false;
  m *= u.back();
  // Exponents: the midpoint about 2^e, e in [-3, 3]; each free slot about 1, times a share of
  // what the midpoint needs beyond the slots' odd parts; 1 - 2t is U 2^-(P-1).
  // The form's constant: 1/2 (with logits), -1 (target), 2 (probabilities).
  const int constant = spec.form == GradientForm::kWithLogitsSelf    ? -1
                       : spec.form == GradientForm::kProbabilitySelf ? 1
                                                                     : 0;
  const int target = static_cast<int>(rng() % 7) - 3;  // the midpoint's binade
  // g f' = N M 2^E, the midpoint M 2^E in [2^target, 2^(target+1)): E = target - (out_bits - 1).
  int exponents_left = target - (out_bits - 1) - constant;  // what the slots' 2^e_i must give
  std::vector<int> exponent(count);
  int free_slots = 0;
  for (size_t i = 0; i < count; ++i) {
    const int bits = BitLength(n[i] * u[i]);
    if (slots[i] == Slot::kOneMinusTwoT) {
      exponent[i] = -(precision - 1);
    } else {
      exponent[i] = 1 - bits;  // the slot's value in [1, 2)
      ++free_slots;
    }
    exponents_left -= exponent[i];
  }
  // Without a free slot (1 - 2t alone) the exponent is the form's: the check below keeps it only
  // where that lies in the output's normal range.
  for (size_t i = 0, given = 0; i < count; ++i) {
    if (slots[i] == Slot::kOneMinusTwoT) continue;
    ++given;
    const int share = given == static_cast<size_t>(free_slots)
                          ? exponents_left
                          : exponents_left / (free_slots - static_cast<int>(given) + 1);
    exponent[i] += share;
    exponents_left -= share;
  }
  ElementInputs built;
  built.x = spec.form == GradientForm::kWithLogitsSelf    ? 0.0f
            : spec.form == GradientForm::kProbabilitySelf ? 0.5f
                                                          : 1.0f;
  built.t = 0.0f;
  for (size_t i = 0; i < count; ++i) {
    const double odd = static_cast<double>(n[i] * u[i]);
    const bool negative = slots[i] != Slot::kW && rng() % 2 == 0;  // weights stay positive
    const float value = static_cast<float>(std::ldexp(negative ? -odd : odd, exponent[i]));
    switch (slots[i]) {
      case Slot::kG:
        built.g = value;
        break;
      case Slot::kW:
        built.w = value;
        break;
      case Slot::kX:
        built.x = value;
        break;
      case Slot::kOneMinusTwoT: {  // t = (2^(P-1) - U) / 2^P, in (0, 1)
        const double units = std::ldexp(1.0, precision - 1) - (negative ? -odd : odd);
        built.t = static_cast<float>(std::ldexp(units, -precision));
        break;
      }
    }
  }
  for (const float v : {built.x, built.t, built.w, built.g}) {
    if (!OfType(v, spec.input)) return false;
  }
  // The construction's own check: exactly a midpoint of the output's normal range.
  if (!IsMidpoint(ExactGradient(spec.form, built, spec.divisor), spec.output)) return false;
  *in = built;
  return true;
}

}  // namespace boundaries

// Up to `ties` ties of `spec` (fewer, or none, where its slots cannot hold N and a midpoint: a
// 16-bit input has 11 or 8 bits a slot), drawn with t = 0 and with 1 - 2t a slot in turn where
// the form has t, each followed by the cases one unit beside it: the first slot input among g, w, x
// one unit of its type away from zero and toward it, and where t = 0, t = +-the type's least
// positive value (g f' / N then within 2^-148 of the midpoint in fp32).
inline std::vector<BoundaryCase> BoundaryCases(const BoundarySpec& spec, int ties, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<BoundaryCase> cases;
  const bool has_t = spec.form != GradientForm::kWithLogitsTarget;
  for (int made = 0, draws = 0; made < ties && draws < 200 * ties; ++draws) {
    const bool t_slot = has_t && draws % 2 == 1;
    ElementInputs tie;
    if (!boundaries::DrawTie(spec, t_slot, rng, &tie)) continue;
    ++made;
    cases.push_back({tie, true});
    // The input nudged one unit: g, else w, else x (none for 1 - 2t alone).
    float ElementInputs::*nudged = spec.grad_output ? &ElementInputs::g
                                   : spec.weighted  ? &ElementInputs::w
                                   : spec.form == GradientForm::kWithLogitsTarget
                                       ? &ElementInputs::x
                                       : nullptr;
    for (const bool away : {true, false}) {
      if (nudged != nullptr) {
        ElementInputs beside = tie;
        beside.*nudged = NextInType(tie.*nudged, spec.input, away);
        cases.push_back({beside, false});
      }
      if (has_t && tie.t == 0.0f) {
        ElementInputs beside = tie;
        beside.t = away ? LeastPositive(spec.input) : -LeastPositive(spec.input);
        cases.push_back({beside, false});
      }
    }
  }
  return cases;
}

// The divisors of the tests: 3, 5, 7 and a large odd one, as large as ties allow for the inputs'
// type: 1000001 = 101 * 9901 for fp32 inputs, 4095 = 3^2 * 5 * 7 * 13 for 16-bit ones.
inline std::vector<int64_t> BoundaryDivisors(FloatType input) {
  return {3, 5, 7, input == FloatType::kFloat32 ? 1000001 : 4095};
}

// The (input, output) type pairs: fp32 inputs to every output type (promotion), and 16-bit inputs
// to their own type.
inline std::vector<std::pair<FloatType, FloatType>> BoundaryTypes() {
  using enum FloatType;
  return {{kFloat32, kFloat32},
          {kFloat32, kFloat16},
          {kFloat32, kBFloat16},
          {kFloat16, kFloat16},
          {kBFloat16, kBFloat16}};
}

// Every spec of `form` the tests run: each type pair, divisor, with and without a weight; with a
// gradOutput per element, and (the with-logits self gradient: the fused op's) without one.
inline std::vector<BoundarySpec> BoundarySpecs(GradientForm form) {
  std::vector<BoundarySpec> specs;
  for (const auto& [input, output] : BoundaryTypes()) {
    for (const int64_t divisor : BoundaryDivisors(input)) {
      for (const bool weighted : {true, false}) {
        for (const bool grad_output : {true, false}) {
          if (!grad_output && form != GradientForm::kWithLogitsSelf) continue;
          specs.push_back({form, input, output, divisor, weighted, grad_output});
        }
      }
    }
  }
  return specs;
}

// The cases' results against the oracle, bit for bit.
struct BoundaryTally {
  int64_t ties = 0, besides = 0, wrong = 0;
  std::string first_wrong;
};
inline void Tally(BoundaryTally& tally, const BoundarySpec& spec, const BoundaryCase& c,
                  float got) {
  ++(c.tie ? tally.ties : tally.besides);
  const float expected = ExpectedGradient(spec.form, c.in, spec.divisor, spec.output);
  if (BitCast<uint32_t>(got) == BitCast<uint32_t>(expected) || tally.wrong++ > 0) return;
  char text[300];
  std::snprintf(text, sizeof text,
                "%s x=%a t=%a w=%a p=%a g=%a N=%lld output %d: got %a, expected %a",
                c.tie ? "tie" : "beside", c.in.x, c.in.t, c.in.w, c.in.p, c.in.g,
                static_cast<long long>(spec.divisor), static_cast<int>(spec.output), got, expected);
  tally.first_wrong = text;
}

}  // namespace openaclnn
