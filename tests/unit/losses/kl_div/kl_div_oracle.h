// The KL divergence family's oracle, written independently of the library: each result's exact
// value as a binary128 pair (binary128_oracle.h's Exact: the rational parts exact, the rest added
// by TwoSum) from logq and expq, or as an exact GMP rational where the result is rational (-g t,
// and ln t = 0 at t = 1, e^t = 1 at t = 0); that value divided by D and rounded once to the output
// type; the zero signs and the classes of special inputs by the contract's rules
// (docs/contract/numerics-kl-div.md), restated here from the formulas.
#pragma once

#include <cmath>
#include <cstdint>

#include "../../kernels/binary128_oracle.h"
#include "../../kernels/rational_oracle.h"
#include "base/dtype.h"
#include "kernels/element_inputs.h"
#include "kernels/loss_problem.h"

#if defined(__x86_64__) && !__has_include(<quadmath.h>)
extern "C" __float128 logq(__float128);
extern "C" __float128 expm1q(__float128);
#endif

namespace openaclnn {

#if defined(__x86_64__)
inline Quad LogQ(Quad v) { return logq(v); }
inline Quad ExpM1Q(Quad v) { return expm1q(v); }
#else
inline Quad LogQ(Quad v) { return logl(v); }
inline Quad ExpM1Q(Quad v) { return expm1l(v); }
#endif

// e^t as a pair: 1 + expm1(t) for |t| < 1, whose rest binary128's e^t alone would round away for a
// tiny t (e^(2^-149) = 1 + 2^-149 decides a tie of -g e^t).
inline Exact ExpPair(float t) {
  if (std::fabs(t) < 1) return TwoSum(Quad(1), ExpM1Q(t));
  return {Exp(t), 0};
}

// a b for pairs, within 2^-112 of itself.
inline Exact Times(Exact a, Exact b) {
  return Plus(TwoSum(a.hi * b.hi, a.hi * b.lo), TwoSum(a.lo * b.hi, a.lo * b.lo));
}

inline constexpr LossKind kKinds[] = {LossKind::kLoss, LossKind::kGradSelf, LossKind::kGradTarget};
inline constexpr FloatType kTypes[] = {FloatType::kFloat32, FloatType::kFloat16,
                                       FloatType::kBFloat16};
inline constexpr int64_t kDivisors[] = {1, 2, 4096, 3, 5, 7, 1000003, (int64_t{1} << 40) + 1};

inline const char* KindName(LossKind kind) {
  return kind == LossKind::kLoss ? "loss" : kind == LossKind::kGradSelf ? "self" : "target";
}
inline const char* TypeName(FloatType type) {
  return type == FloatType::kFloat32 ? "fp32" : type == FloatType::kFloat16 ? "fp16" : "bf16";
}

// v as a tensor of `type` holds it (fp16 overflows to inf).
inline float InType(float v, FloatType type) {
  if (type == FloatType::kFloat32) return v;
  return type == FloatType::kFloat16 ? Float16ToFloat(FloatToFloat16(v))
                                     : BFloat16ToFloat(FloatToBFloat16(v));
}

// The numerator of a result (its value times D), exactly: a rational (and its binary128 pair,
// within 2^-112 of it), or a binary128 pair.
struct Numerator {
  bool rational = false;
  mpq_class q;
  Exact pair;
  // The sign of an exact zero numerator (the contract's zero rule), -0 as true.
  bool negative_zero = false;
};

inline Exact Scaled(Exact a, Quad f) { return {a.hi * f, a.lo * f}; }

// Whether an inner factor is below zero (an exact zero counts as +0, as IEEE's sum gives it).
inline bool InnerNegative(Exact inner) { return inner.hi < 0 || (inner.hi == 0 && inner.lo < 0); }

// ln t and e^t of one t, each formed once where asked for (the kinds of one input share them).
class Transcendentals {
 public:
  explicit Transcendentals(float t) : t_(t) {}
  Quad Log() {
    if (!has_log_) log_ = LogQ(t_), has_log_ = true;
    return log_;
  }
  Exact Exp() {
    if (!has_exp_) exp_ = ExpPair(t_), has_exp_ = true;
    return exp_;
  }

 private:
  float t_;
  bool has_log_ = false, has_exp_ = false;
  Quad log_ = 0;
  Exact exp_;
};

// ln t - x + 1 (probabilities) or t - x + 1 (log targets) as a pair: 1 - x and t - x + 1 exact
// (TwoSum; the three-term sum's rest rounded once, far below its own size), ln t from logq.
inline Exact InnerPair(int variant, float x, float t, Transcendentals* pieces = nullptr) {
  if (variant == 0) {
    const Quad log = pieces != nullptr ? pieces->Log() : LogQ(t);
    return Plus(TwoSum(Quad(1), -static_cast<Quad>(x)), Exact{log, 0});
  }
  const Exact difference = TwoSum(static_cast<Quad>(t), -static_cast<Quad>(x));
  const Exact with_one = TwoSum(difference.hi, Quad(1));
  return TwoSum(with_one.hi, with_one.lo + difference.lo);
}

// The numerator of `kind` for finite inputs in the formulas' domain (t >= 0, t > 0 for the target
// gradient of probabilities; any t of log targets: binary128's exp holds e^t up to 11356).
// `with_rational`: the rational ones' GMP value too (else their pair alone); `pieces`: ln t and e^t
// shared with other kinds of the same input.
inline Numerator ExactNumerator(LossKind kind, int variant, const ElementInputs& in,
                                bool with_rational = true, Transcendentals* pieces = nullptr) {
  Transcendentals own(in.t);
  if (pieces == nullptr) pieces = &own;
  const Quad x = in.x, t = in.t, g = in.g;
  Numerator n;
  const bool product = kind == LossKind::kGradSelf && variant == 0;
  const bool unit = variant == 0 ? in.t == 1.0f : in.t == 0.0f;  // ln 1 = 0, e^0 = 1
  if (product || unit) {
    n.rational = with_rational;
    n.pair = kind == LossKind::kGradSelf ? Exact{variant == 0 ? -(g * t) : -g, 0}  // g t exact
             : kind == LossKind::kLoss   ? Exact{variant == 0 ? -x : t - x, 0}
                                         : Scaled(TwoSum(Quad(1), -x), g);
    if (!with_rational) return n;
    // An input the kind does not read may be anything (GMP traps on a double that is not finite).
    const auto rational = [](float v) { return std::isfinite(v) ? Rational(v) : mpq_class(0); };
    const mpq_class qx = rational(in.x), qt = rational(in.t), qg = rational(in.g);
    if (kind == LossKind::kGradSelf) {
      n.q = variant == 0 ? mpq_class(-qg * qt) : mpq_class(-qg);
      n.negative_zero =
          variant == 0 ? std::signbit(-(static_cast<double>(in.g) * in.t)) : !std::signbit(in.g);
    } else if (kind == LossKind::kLoss) {
      n.q = variant == 0 ? mpq_class(-qx)
                         : mpq_class(qt - qx);  // t (0 - x) at t = 1; (t - x) at t = 0
      n.negative_zero = std::signbit(variant == 0 ? 0.0 - static_cast<double>(in.x)
                                                  : static_cast<double>(in.t) - in.x);
    } else {  // g (1 - x): ln 1 = 0, or e^0 (0 - x + 1)
      n.q = qg * (1 - qx);
      n.negative_zero = std::signbit(in.g) != (1 - qx < 0);
    }
    return n;
  }
  if (variant == 0) {
    if (kind == LossKind::kLoss) {
      if (in.t == 0.0f) {  // t (0 - x): +-0
        n.rational = true;
        n.q = 0;
        n.negative_zero = std::signbit(static_cast<double>(in.t) * (0.0 - in.x));
        return n;
      }
      n.pair = TwoSum(t * pieces->Log(), -(t * x));  // t x exact
      return n;
    }
    const Exact inner = InnerPair(0, in.x, in.t, pieces);  // kGradTarget
    n.pair = Scaled(inner, g);
    n.negative_zero = std::signbit(in.g) != InnerNegative(inner);
    return n;
  }
  const Exact exp = pieces->Exp();
  if (kind == LossKind::kLoss) {
    n.pair = Times(exp, TwoSum(t, -x));
    n.negative_zero = std::signbit(static_cast<double>(in.t) - in.x);
  } else if (kind == LossKind::kGradSelf) {
    n.pair = Scaled(exp, -g);
    n.negative_zero = !std::signbit(in.g);
  } else {
    const Exact inner = InnerPair(1, in.x, in.t, pieces);
    n.pair = Scaled(Times(exp, inner), g);
    n.negative_zero = std::signbit(in.g) != InnerNegative(inner);
  }
  return n;
}

// The numerator divided by D, rounded once to `type` (as a double holding that value).
inline double RoundedQuotientOf(const Numerator& n, int64_t divisor, FloatType type) {
  if (n.rational) {
    return RoundRational(n.q / mpq_class(static_cast<double>(divisor)), type, n.negative_zero);
  }
  if (n.pair.hi == 0 && n.pair.lo == 0) return n.negative_zero ? -0.0 : 0.0;
  // Each part divided in binary128: within 2^-112 of the quotient, far closer than a result that is
  // not rational lies to a rounding boundary (the tests' built cases stay 2^-70 away or more).
  const Quad d = static_cast<Quad>(divisor);
  return RoundedOnce({n.pair.hi / d, n.pair.lo / d}, type);
}

// Where the formulas' domain ends or an input is not finite: the contract's class (NaN as
// kCanonicalNaN), restated. Returns false where the inputs are in the domain.
inline bool SpecialResult(LossKind kind, int variant, const ElementInputs& in, double* result) {
  const double x = in.x, t = in.t, g = in.g;
  const bool finite_x = std::isfinite(x), finite_t = std::isfinite(t), finite_g = std::isfinite(g);
  const double nan = kCanonicalNaN, inf = HUGE_VAL;
  const auto sign_of = [](double v) { return std::signbit(v) ? -1.0 : 1.0; };
  if (variant == 0) {
    if (kind == LossKind::kGradSelf) {
      if (finite_g && finite_t) return false;
      *result = CanonicalNaN(-(g * t));
      return true;
    }
    if (std::isnan(t) || t < 0 || (kind == LossKind::kGradTarget && t == 0)) {
      *result = nan;
      return true;
    }
    if (kind == LossKind::kLoss) {
      if (finite_x && finite_t) return false;
      // t (ln t - x): t = +inf gives +inf unless x = +inf; t finite: -x's infinity times t.
      if (std::isnan(x))
        *result = nan;
      else if (!finite_t)
        *result = x == inf ? nan : inf;
      else
        *result = t == 0 ? nan : -sign_of(x) * inf;
      return true;
    }
    if (finite_x && finite_t && finite_g) return false;
    if (std::isnan(x) || std::isnan(g)) {
      *result = nan;
    } else if (!finite_t || !finite_x) {
      // inner = ln t - x + 1 is +inf (t = inf, x < inf), NaN (t = x = inf) or -x's infinity.
      const double inner = !finite_t ? (x == inf ? nan : inf) : -sign_of(x) * inf;
      *result = CanonicalNaN(g * inner);
    } else {  // g infinite, t and x finite: the exact sign of ln t - x + 1
      const Exact inner = InnerPair(0, in.x, in.t);
      *result = inner.hi == 0 && inner.lo == 0 ? nan : g * (InnerNegative(inner) ? -1.0 : 1.0);
    }
    return true;
  }
  const bool finite = kind == LossKind::kLoss       ? finite_x && finite_t
                      : kind == LossKind::kGradSelf ? finite_g && finite_t
                                                    : finite_x && finite_t && finite_g;
  if (finite) {
    if (t <= 700) return false;
    // e^t beyond 2^1009: +-inf, or the exact zero of a zero factor.
    const double factor = kind == LossKind::kLoss       ? t - x
                          : kind == LossKind::kGradSelf ? -g
                                                        : g * ((t - x) + 1);
    *result = factor == 0 ? factor : sign_of(factor) * inf;
    return true;
  }
  const double exp = std::isnan(t) ? nan : t == inf ? inf : t == -inf ? 0.0 : 1.0;
  if (kind == LossKind::kLoss) {
    *result = CanonicalNaN(exp * (t - x));
  } else if (kind == LossKind::kGradSelf) {
    *result = CanonicalNaN(-(g * exp));
  } else if (finite_t && finite_x) {
    const Exact inner = InnerPair(1, in.x, in.t);
    *result = inner.hi == 0 && inner.lo == 0 ? nan : g * (InnerNegative(inner) ? -1.0 : 1.0);
  } else {
    *result = CanonicalNaN(g * exp * ((t - x) + 1));
  }
  return true;
}

// The expected result of `kind` for the inputs, divisor and type, as a double holding it.
inline double Expected(LossKind kind, int variant, const ElementInputs& in, int64_t divisor,
                       FloatType type) {
  double special = 0;
  if (SpecialResult(kind, variant, in, &special)) return special;  // +-inf, NaN or +-0
  return RoundedQuotientOf(ExactNumerator(kind, variant, in), divisor, type);
}

}  // namespace openaclnn
