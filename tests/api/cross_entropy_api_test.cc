// aclnnCrossEntropyLoss and aclnnCrossEntropyLossGrad through the C API: phase 1's codes, and
// every result against MPFR at 400 bits rounded once (exactly, through GMP rationals:
// tests/unit/kernels/rational_oracle.h): CANN's sample, random rows in fp32, fp16 and bf16 with
// and without weights (negative ones too), label smoothing and ignored targets; the hard rows (the
// target the row's maximum with a probability next to 1, results in fp32's subnormal range,
// -inf and +inf logits, one class); rows built so that a log-probability lies within 2^-70 of an
// fp32 rounding boundary (the fp64 estimate cannot settle it); and out-of-range targets.
#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../unit/kernels/rational_oracle.h"
#include "aclnnop/aclnn_cross_entropy_loss.h"
#include "aclnnop/aclnn_cross_entropy_loss_grad.h"
#include "exact_expect.h"
#include "op_tester.h"

namespace openaclnn::testing {
namespace {

constexpr mpfr_prec_t kBits = 400;

// An MPFR number that cleans up after itself.
class Real {
 public:
  Real() { mpfr_init2(v_, kBits); }
  explicit Real(double value) : Real() { mpfr_set_d(v_, value, MPFR_RNDN); }
  Real(const Real& other) : Real() { mpfr_set(v_, other.v_, MPFR_RNDN); }
  Real& operator=(const Real& other) {
    mpfr_set(v_, other.v_, MPFR_RNDN);
    return *this;
  }
  ~Real() { mpfr_clear(v_); }
  mpfr_ptr get() { return v_; }
  mpfr_srcptr get() const { return v_; }
  friend Real operator+(const Real& a, const Real& b) { return Apply(mpfr_add, a, b); }
  friend Real operator-(const Real& a, const Real& b) { return Apply(mpfr_sub, a, b); }
  friend Real operator*(const Real& a, const Real& b) { return Apply(mpfr_mul, a, b); }
  friend Real operator/(const Real& a, const Real& b) { return Apply(mpfr_div, a, b); }
  Real Exp() const {
    Real r;
    mpfr_exp(r.v_, v_, MPFR_RNDN);
    return r;
  }
  Real Log() const {
    Real r;
    mpfr_log(r.v_, v_, MPFR_RNDN);
    return r;
  }
  bool IsNaN() const { return mpfr_nan_p(v_) != 0; }
  bool IsInf() const { return mpfr_inf_p(v_) != 0; }

 private:
  template <class Op>
  static Real Apply(Op op, const Real& a, const Real& b) {
    Real r;
    op(r.v_, a.v_, b.v_, MPFR_RNDN);
    return r;
  }
  mpfr_t v_;
};

// The value rounded once to `dtype` (through an exact rational: 400 bits put it within 2^-390 of
// the exact value, which is never a rounding boundary but in degenerate rows, where it is exact).
double Rounded(const Real& value, aclDataType dtype) {
  if (value.IsNaN()) return NAN;
  if (value.IsInf()) return mpfr_sgn(value.get()) > 0 ? INFINITY : -INFINITY;
  mpq_class q;
  mpfr_get_q(q.get_mpq_t(), value.get());
  return RoundRational(q, FloatTypeOf(dtype));
}

// One problem's host values, as the device holds them (read back after rounding to the dtype).
struct Problem {
  int64_t rows = 0, classes = 0;
  aclDataType dtype = ACL_FLOAT;
  const char* reduction = "mean";
  int64_t ignore_index = -100;
  double smoothing = 0.0;
  bool weighted = false;
  std::vector<float> logits, weight, grad, log_prob;  // log_prob: the gradient's input
  std::vector<int64_t> target;

  int64_t Reduction() const {
    return std::strcmp(reduction, "none") == 0 ? 0 : std::strcmp(reduction, "sum") == 0 ? 2 : 1;
  }
  bool Counted(int64_t n) const { return target[n] != ignore_index; }
  double Weight(int64_t c) const { return weighted ? weight[c] : 1.0; }
};

// Random logits in [-8, 8], weights in [-1, 2] (or none), about one target in six ignored.
Problem Draw(int64_t rows, int64_t classes, aclDataType dtype, const char* reduction,
             double smoothing, bool weighted, unsigned seed) {
  Problem p;
  p.rows = rows;
  p.classes = classes;
  p.dtype = dtype;
  p.reduction = reduction;
  p.smoothing = smoothing;
  p.weighted = weighted;
  p.logits = UniformValues(rows * classes, -8.0f, 8.0f, seed);
  p.weight = UniformValues(classes, -1.0f, 2.0f, seed + 1);
  std::mt19937 rng(seed + 2);
  for (int64_t n = 0; n < rows; ++n) {
    p.target.push_back(rng() % 6 == 0 ? p.ignore_index : static_cast<int64_t>(rng() % classes));
  }
  p.grad = UniformValues(p.Reduction() == 0 ? rows : 1, -3.0f, 3.0f, seed + 3);
  p.log_prob = UniformValues(rows * classes, -10.0f, -1e-9f, seed + 4);
  return p;
}

// The exact log-sum-exp of row n (NaN for a row with a NaN or +inf, or all -inf).
Real LogSumExp(const Problem& p, int64_t n) {
  double max = -INFINITY;
  for (int64_t c = 0; c < p.classes; ++c) {
    const double x = p.logits[n * p.classes + c];
    if (!(x < INFINITY)) return Real(NAN);
    max = std::fmax(max, x);
  }
  if (max == -INFINITY) return Real(NAN);
  Real sum(0.0);
  for (int64_t c = 0; c < p.classes; ++c) {
    sum = sum + (Real(p.logits[n * p.classes + c]) - Real(max)).Exp();
  }
  return Real(max) + sum.Log();
}

// Row n's loss (0 where ignored): (1 - eps) w_t (lse - x_t) + eps/C sum_c w_c (lse - x_c).
Real RowLoss(const Problem& p, int64_t n, const Real& lse) {
  if (!p.Counted(n)) return Real(0.0);
  const int64_t t = p.target[n];
  Real loss = Real(p.Weight(t)) * (lse - Real(p.logits[n * p.classes + t]));
  if (p.smoothing == 0.0) return loss;
  Real smooth(0.0);
  for (int64_t c = 0; c < p.classes; ++c) {
    smooth = smooth + Real(p.Weight(c)) * (lse - Real(p.logits[n * p.classes + c]));
  }
  return (Real(1.0) - Real(p.smoothing)) * loss +
         Real(p.smoothing) / Real(static_cast<double>(p.classes)) * smooth;
}

// The forward's device tensors.
struct Forward {
  explicit Forward(Problem& p)
      : input({p.rows, p.classes}, p.dtype, p.logits),
        target({p.rows}, ACL_INT64, {}),
        weight({p.classes}, ACL_FLOAT, p.weight),
        loss(p.Reduction() == 0 ? std::vector<int64_t>{p.rows} : std::vector<int64_t>{1}, p.dtype,
             {}),
        log_prob({p.rows, p.classes}, p.dtype, {}),
        zloss({1}, p.dtype, {}),
        lse({p.rows}, p.dtype, {}) {
    if (!p.target.empty()) UploadInt64(target, p.target);
    p.logits = input.Read();
    p.weight = weight.Read();
  }
  DeviceTensor input, target, weight, loss, log_prob, zloss, lse;
};

aclnnStatus RunForward(const Problem& p, Forward& t) {
  return RunPhases(
      [&](uint64_t* size, aclOpExecutor** executor) {
        return aclnnCrossEntropyLossGetWorkspaceSize(
            t.input.get(), t.target.get(), p.weighted ? t.weight.get() : nullptr,
            const_cast<char*>(p.reduction), p.ignore_index, p.smoothing, 0.0, false, t.loss.get(),
            t.log_prob.get(), t.zloss.get(), t.lse.get(), size, executor);
      },
      aclnnCrossEntropyLoss);
}

void ExpectForward(const Problem& p, const Forward& t) {
  const std::vector<float> loss = t.loss.Read(), log_prob = t.log_prob.Read();
  Real sum(0.0), weights(0.0);
  for (int64_t n = 0; n < p.rows; ++n) {
    const Real lse = LogSumExp(p, n);
    for (int64_t c = 0; c < p.classes; ++c) {
      const Real lp = Real(p.logits[n * p.classes + c]) - lse;
      ASSERT_TRUE(SameAsExact(log_prob[n * p.classes + c], Rounded(lp, p.dtype),
                              "logProb (" + std::to_string(n) + ", " + std::to_string(c) + ")"));
    }
    const Real row = RowLoss(p, n, lse);
    if (p.Reduction() == 0) {
      ASSERT_TRUE(SameAsExact(loss[n], Rounded(row, p.dtype), "loss " + std::to_string(n)));
    }
    sum = sum + row;
    if (p.Counted(n)) weights = weights + Real(p.Weight(p.target[n]));
  }
  if (p.Reduction() == 2) {
    EXPECT_TRUE(SameAsExact(loss[0], Rounded(sum, p.dtype), "sum"));
  } else if (p.Reduction() == 1) {
    EXPECT_TRUE(SameAsExact(loss[0], Rounded(sum / weights, p.dtype), "mean"));
  }
}

void CheckForward(Problem p) {
  Forward t(p);
  ASSERT_EQ(RunForward(p, t), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ExpectForward(p, t);
}

// The gradient's device tensors: logProb given (the drawn log_prob, or the forward's).
struct Backward {
  explicit Backward(Problem& p)
      : grad(p.Reduction() == 0 ? std::vector<int64_t>{p.rows} : std::vector<int64_t>{}, p.dtype,
             p.grad),
        log_prob({p.rows, p.classes}, p.dtype, p.log_prob),
        target({p.rows}, ACL_INT64, {}),
        weight({p.classes}, ACL_FLOAT, p.weight),
        out({p.rows, p.classes}, p.dtype,
            std::vector<float>(static_cast<size_t>(p.rows * p.classes), 7.0f)) {
    if (!p.target.empty()) UploadInt64(target, p.target);
    p.grad = grad.Read();
    p.log_prob = log_prob.Read();
    p.weight = weight.Read();
  }
  DeviceTensor grad, log_prob, target, weight, out;
};

aclnnStatus RunBackward(const Problem& p, Backward& t) {
  return RunPhases(
      [&](uint64_t* size, aclOpExecutor** executor) {
        return aclnnCrossEntropyLossGradGetWorkspaceSize(
            t.grad.get(), t.log_prob.get(), t.target.get(), p.weighted ? t.weight.get() : nullptr,
            nullptr, nullptr, const_cast<char*>(p.reduction), p.ignore_index, p.smoothing, 0.0,
            t.out.get(), size, executor);
      },
      aclnnCrossEntropyLossGrad);
}

// out = (e^lp (a + b Omega) - a [c = t] - b w_c) / W, a = s (1 - eps) w_t, b = s eps / C.
void ExpectBackward(const Problem& p, const Backward& t) {
  const std::vector<float> out = t.out.Read();
  Real omega(0.0), total(0.0);
  for (int64_t c = 0; c < p.classes; ++c) omega = omega + Real(p.Weight(c));
  for (int64_t n = 0; n < p.rows; ++n) {
    if (p.Counted(n)) total = total + Real(p.Weight(p.target[n]));
  }
  for (int64_t n = 0; n < p.rows; ++n) {
    const Real s(p.grad[p.Reduction() == 0 ? n : 0]);
    for (int64_t c = 0; c < p.classes; ++c) {
      Real value(0.0);
      if (p.Counted(n)) {
        const int64_t target = p.target[n];
        const Real a = s * (Real(1.0) - Real(p.smoothing)) * Real(p.Weight(target));
        const Real b = s * Real(p.smoothing) / Real(static_cast<double>(p.classes));
        const Real e = Real(p.log_prob[n * p.classes + c]).Exp();
        value = e * (a + b * omega) - (c == target ? a : Real(0.0)) - b * Real(p.Weight(c));
        if (p.Reduction() == 1) value = value / total;
      }
      ASSERT_TRUE(SameAsExact(out[n * p.classes + c], Rounded(value, p.dtype),
                              "gradient (" + std::to_string(n) + ", " + std::to_string(c) + ")"));
    }
  }
}

void CheckBackward(Problem p) {
  Backward t(p);
  ASSERT_EQ(RunBackward(p, t), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ExpectBackward(p, t);
}

TEST(CrossEntropyLoss, CannSampleIsCorrectlyRounded) {
  Problem p;
  p.rows = 2;
  p.classes = 5;
  p.logits = {5, 0, 3, 3, 7, 9, 3, 5, 2, 4};
  p.target = {0, 0};
  CheckForward(p);
}

TEST(CrossEntropyLoss, RandomRowsEveryTypeReductionAndWeighting) {
  unsigned seed = 1;
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (const char* reduction : {"none", "mean", "sum"}) {
      for (bool weighted : {false, true}) {
        for (double smoothing : {0.0, 0.1, 1.0}) {
          SCOPED_TRACE(std::string(reduction) + " weighted " + std::to_string(weighted) +
                       " smoothing " + std::to_string(smoothing));
          CheckForward(Draw(13, 7, dtype, reduction, smoothing, weighted, seed++));
          CheckForward(Draw(3, 300, dtype, reduction, smoothing, weighted, seed++));
        }
      }
    }
  }
}

TEST(CrossEntropyLoss, LongRowsAndManyRowsOverTheThreadPool) {
  CheckForward(Draw(4, 32768, ACL_FLOAT, "none", 0.0, false, 11));
  CheckForward(Draw(2, 65537, ACL_FLOAT, "mean", 0.2, true, 12));
  CheckForward(Draw(20000, 10, ACL_FLOAT, "mean", 0.0, true, 13));
  CheckForward(Draw(20000, 3, ACL_BF16, "sum", 0.05, false, 14));
}

// The target the row's maximum, its probability next to 1: the loss is tiny (torch and CANN in
// fp32 give 0), down to fp32's subnormals; one class; -inf logits that drop out; NaN rows.
TEST(CrossEntropyLoss, HardRows) {
  Problem p;
  p.rows = 8;
  p.classes = 11;
  p.reduction = "none";
  p.logits.assign(p.rows * p.classes, 0.0f);
  p.logits[0] = 20.0f;    // loss 2.06e-9 * 10
  p.logits[11] = 100.0f;  // loss 3.72e-43 * 10: subnormal
  p.logits[22] = 16.0f;   // target not the maximum below
  for (int c = 0; c < 11; ++c) p.logits[33 + c] = -INFINITY;
  p.logits[33] = 3.0f;                                        // one finite logit: loss 0 exactly
  p.logits[44 + 5] = -INFINITY;                               // target at -inf: +inf
  p.logits[55 + 2] = INFINITY;                                // +inf: the row NaN
  p.logits[66 + 4] = NAN;                                     // NaN: the row NaN
  for (int c = 0; c < 11; ++c) p.logits[77 + c] = -INFINITY;  // all -inf: NaN
  p.target = {0, 0, 3, 0, 5, 1, 1, 1};
  for (const char* reduction : {"none", "sum", "mean"}) {
    for (double smoothing : {0.0, 0.5}) {  // eps: a -inf logit's term is infinite, not NaN
      p.reduction = reduction;
      p.smoothing = smoothing;
      CheckForward(p);
    }
  }
  Problem one = Draw(5, 1, ACL_FLOAT, "none", 0.0, false, 3);
  one.target = {0, 0, 0, 0, 0};
  CheckForward(one);
}

// Rows shorter than a vector of doubles' worth of 32 are estimated a vector of rows at a time (one
// row per lane): ties for the maximum (its first index counts), rows of equal logits (rest above
// 1), dominant targets, -inf logits, and a NaN, a +inf and an all -inf row inside vector groups,
// whose other rows must not be disturbed by them.
TEST(CrossEntropyLoss, ShortRowsAVectorOfRowsAtATime) {
  for (int64_t classes : {1, 2, 5, 16, 31}) {
    SCOPED_TRACE("classes " + std::to_string(classes));
    Problem p = Draw(40, classes, ACL_FLOAT, "none", 0.0, false, 40 + classes);
    for (int64_t n = 0; n < p.rows; ++n) {
      float* row = p.logits.data() + n * classes;
      const int64_t last = classes - 1;
      switch (n % 5) {
        case 0:
          std::fill(row, row + classes, 1.5f);
          break;  // all tied
        case 1:
          row[p.target[n] < 0 ? 0 : p.target[n]] = 100.0f;
          break;  // dominant
        case 2:
          row[last] = -INFINITY;
          break;
        case 3:
          row[0] = row[last] = 8.0f;
          break;  // a tie at the top, first index 0
        default:
          break;
      }
    }
    p.logits[17 * classes] = NAN;
    p.logits[26 * classes + classes / 2] = INFINITY;
    std::fill(p.logits.begin() + 33 * classes, p.logits.begin() + 34 * classes, -INFINITY);
    CheckForward(p);
    p.reduction = "mean";
    p.smoothing = 0.25;
    p.logits[17 * classes] = 0.0f;
    p.logits[26 * classes + classes / 2] = 0.0f;
    std::fill(p.logits.begin() + 33 * classes, p.logits.begin() + 34 * classes, 0.0f);
    CheckForward(p);
  }
}

// A row [0, y1, y2, y3] whose log-probability at class 0, -log1p(e^y1 + e^y2 + e^y3), lies within
// about 2^-70 of the fp32 midpoint m (16 logits of -1000 after it move it by e^-1000): each y_k is
// chosen (rounded down in fp32) to take most of what the terms before left of e^-m - 1. The fp64
// estimate (about 2^-45) cannot settle its rounding: the double-double path does, for the
// log-probability and the loss.
std::vector<float> RowBesideMidpoint(double midpoint) {
  Real rest = (Real(-midpoint)).Exp() - Real(1.0);
  std::vector<float> row = {0.0f};
  for (int k = 0; k < 3; ++k) {
    float y = static_cast<float>(mpfr_get_d(rest.Log().get(), MPFR_RNDD));
    while (mpfr_cmp((Real(y)).Exp().get(), rest.get()) > 0) y = std::nextafter(y, -INFINITY);
    row.push_back(y);
    rest = rest - Real(y).Exp();
  }
  return row;
}

TEST(CrossEntropyLoss, LogProbabilitiesBesideRoundingBoundaries) {
  Problem p;
  p.classes = 20;  // 4 and 16 logits of -1000: whole vectors on every SIMD target
  p.reduction = "none";
  std::mt19937 rng(5);
  for (int i = 0; i < 60; ++i) {
    // fp32 midpoints in [-4, -2^-20]: a value with an extra half ulp.
    const int exponent = -static_cast<int>(rng() % 22);
    const float base = -std::ldexp(1.0f + static_cast<float>(rng() % 4096) / 4096.0f, exponent);
    const double midpoint = static_cast<double>(base) - std::ldexp(1.0, exponent - 24);
    for (float y : RowBesideMidpoint(midpoint)) p.logits.push_back(y);
    p.logits.insert(p.logits.end(), 16, -1000.0f);
    p.target.push_back(0);
    ++p.rows;
  }
  CheckForward(p);
  p.reduction = "sum";
  p.rows = 1;
  p.logits.resize(20);
  p.target.resize(1);
  CheckForward(p);
}

TEST(CrossEntropyLossGrad, RandomRowsEveryTypeReductionAndWeighting) {
  unsigned seed = 100;
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (const char* reduction : {"none", "mean", "sum"}) {
      for (bool weighted : {false, true}) {
        for (double smoothing : {0.0, 0.3}) {
          SCOPED_TRACE(std::string(reduction) + " weighted " + std::to_string(weighted) +
                       " smoothing " + std::to_string(smoothing));
          CheckBackward(Draw(9, 6, dtype, reduction, smoothing, weighted, seed++));
          CheckBackward(Draw(2, 500, dtype, reduction, smoothing, weighted, seed++));
        }
      }
    }
  }
}

// Log-probabilities next to 0: e^lp - 1 at the target cancels in fp64; positive ones (not
// log-probabilities, but accepted; e^701 overflows fp32 whatever its sign); -inf; NaN.
TEST(CrossEntropyLossGrad, LogProbabilitiesNextToZero) {
  Problem p = Draw(6, 20, ACL_FLOAT, "none", 0.0, true, 7);  // whole vectors on every target
  const float near_zero[] = {-1e-9f, -3e-8f, -1e-30f, 0.0f, 0.5f, -INFINITY, NAN, 701.0f};
  for (int n = 0; n < 6; ++n) {
    p.target[n] = n % 4;
    for (int c = 0; c < 4; ++c) p.log_prob[n * 20 + c] = near_zero[(n + c) % 8];
  }
  CheckBackward(p);
  p.smoothing = 0.25;
  CheckBackward(p);
}

TEST(CrossEntropyLoss, TargetOutOfRangeIsReportedByTheStream) {
  Problem p = Draw(4, 3, ACL_FLOAT, "mean", 0.0, false, 9);
  p.target = {0, 3, 1, -1};
  Forward t(p);
  uint64_t size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnCrossEntropyLossGetWorkspaceSize(t.input.get(), t.target.get(), nullptr,
                                                  const_cast<char*>("mean"), -100, 0.0, 0.0, false,
                                                  t.loss.get(), t.log_prob.get(), t.zloss.get(),
                                                  t.lse.get(), &size, &executor),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclnnCrossEntropyLoss(nullptr, size, executor, AclEnvironment::stream), ACLNN_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(AclEnvironment::stream), ACL_ERROR_RT_AICORE_EXCEPTION);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("target 3 of position 1"), std::string::npos)
      << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtSynchronizeStream(AclEnvironment::stream), ACL_SUCCESS);
}

// Phase 1's codes: nulls 161001 (in parameter order), dtypes, reduction strings, labelSmoothing and
// shapes 161002.
TEST(CrossEntropyLoss, PhaseOneCodes) {
  Problem p = Draw(3, 4, ACL_FLOAT, "mean", 0.0, true, 10);
  Forward t(p);
  DeviceTensor int32_target({3}, ACL_INT32, {});
  DeviceTensor half_loss({1}, ACL_FLOAT16, {});
  DeviceTensor wrong_rows({2}, ACL_INT64, {});
  DeviceTensor fp16_weight({4}, ACL_FLOAT16, {});
  auto phase1 = [&](const aclTensor* input, const aclTensor* target, const aclTensor* weight,
                    const char* reduction, double smoothing, const aclTensor* loss,
                    const aclTensor* zloss) {
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    // Phase 1 before PlanOnly reads the executor it made (argument order is unspecified).
    const aclnnStatus status = aclnnCrossEntropyLossGetWorkspaceSize(
        input, target, weight, const_cast<char*>(reduction), -100, smoothing, 0.0, true, loss,
        t.log_prob.get(), zloss, t.lse.get(), &size, &executor);
    return PlanOnly(status, executor);
  };
  EXPECT_EQ(phase1(t.input.get(), t.target.get(), t.weight.get(), "mean", 0.0, t.loss.get(),
                   t.zloss.get()),
            ACLNN_SUCCESS);
  EXPECT_EQ(
      phase1(t.input.get(), t.target.get(), nullptr, nullptr, 0.5, t.loss.get(), t.zloss.get()),
      ACLNN_SUCCESS);
  EXPECT_EQ(
      phase1(t.input.get(), int32_target.get(), nullptr, "sum", 0.0, t.loss.get(), t.zloss.get()),
      ACLNN_SUCCESS);
  EXPECT_EQ(phase1(nullptr, t.target.get(), nullptr, "mean", 0.0, t.loss.get(), t.zloss.get()),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(phase1(t.input.get(), t.target.get(), nullptr, "mean", 0.0, t.loss.get(), nullptr),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(phase1(t.input.get(), t.target.get(), nullptr, "avg", 0.0, t.loss.get(), t.zloss.get()),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("\"none\", \"mean\" or \"sum\""),
            std::string::npos);
  for (double smoothing : {-0.1, 1.5, static_cast<double>(NAN)}) {
    EXPECT_EQ(phase1(t.input.get(), t.target.get(), nullptr, "mean", smoothing, t.loss.get(),
                     t.zloss.get()),
              ACLNN_ERR_PARAM_INVALID);
  }
  EXPECT_EQ(phase1(t.input.get(), t.target.get(), fp16_weight.get(), "mean", 0.0, t.loss.get(),
                   t.zloss.get()),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(
      phase1(t.input.get(), t.target.get(), nullptr, "mean", 0.0, half_loss.get(), t.zloss.get()),
      ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(
      phase1(t.input.get(), wrong_rows.get(), nullptr, "mean", 0.0, t.loss.get(), t.zloss.get()),
      ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(
      phase1(t.input.get(), t.target.get(), nullptr, "none", 0.0, t.loss.get(), t.zloss.get()),
      ACLNN_ERR_PARAM_INVALID);  // none's lossOut is (N)
}

TEST(CrossEntropyLossGrad, PhaseOneCodes) {
  Problem p = Draw(3, 4, ACL_FLOAT, "none", 0.0, true, 20);
  Backward t(p);
  DeviceTensor scalar_grad({}, ACL_FLOAT, {1.0f});
  DeviceTensor half_out({3, 4}, ACL_FLOAT16, {});
  auto phase1 = [&](const aclTensor* grad, const aclTensor* log_prob, const char* reduction,
                    const aclTensor* out) {
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = aclnnCrossEntropyLossGradGetWorkspaceSize(
        grad, log_prob, t.target.get(), nullptr, nullptr, nullptr, const_cast<char*>(reduction),
        -100, 0.0, 0.0, out, &size, &executor);
    return PlanOnly(status, executor);
  };
  EXPECT_EQ(phase1(t.grad.get(), t.log_prob.get(), "none", t.out.get()), ACLNN_SUCCESS);
  EXPECT_EQ(phase1(scalar_grad.get(), t.log_prob.get(), nullptr, t.out.get()), ACLNN_SUCCESS);
  EXPECT_EQ(phase1(nullptr, t.log_prob.get(), "none", t.out.get()), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(phase1(t.grad.get(), t.log_prob.get(), "none", nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(phase1(t.grad.get(), t.log_prob.get(), "mean", t.out.get()), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(phase1(t.grad.get(), t.log_prob.get(), "none", half_out.get()),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(phase1(t.grad.get(), t.log_prob.get(), "bogus", t.out.get()), ACLNN_ERR_PARAM_INVALID);
}

}  // namespace
}  // namespace openaclnn::testing
