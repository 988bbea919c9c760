// aclnnNLLLoss, aclnnNLLLoss2d and their Backwards through the C API: phase 1's codes as CANN's
// unit tests expect them, and every result against exact rationals (GMP, rounded once by integer
// arithmetic, tests/unit/kernels/rational_oracle.h): random cases in fp32, fp16 and bf16 with
// negative weights and ignored targets, strided views, other output dtypes, means and sums built on
// and beside rounding boundaries, and targets out of range (the stream reports them).
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../unit/kernels/rational_oracle.h"
#include "aclnnop/aclnn_nll_loss.h"
#include "aclnnop/aclnn_nll_loss2d.h"
#include "aclnnop/aclnn_nll_loss2d_backward.h"
#include "aclnnop/aclnn_nll_loss_backward.h"
#include "exact_expect.h"
#include "op_tester.h"
#include "openaclnn/op_table.h"

namespace openaclnn::testing {
namespace {

// The exact value rounded once to `dtype`; NaN where `defined` is false.
double Expected(const mpq_class& value, aclDataType dtype) {
  return RoundRational(value, FloatTypeOf(dtype));
}

// One problem's host values, as the device holds them (read back after rounding to the dtype).
struct Problem {
  std::vector<int64_t> self_shape;  // (C), (N, C) or (N, C, H, W)
  aclDataType dtype = ACL_FLOAT;
  aclDataType out_dtype = ACL_FLOAT;
  int64_t reduction = 0;
  int64_t ignore_index = -100;
  std::vector<float> self, weight, grad;  // grad: per position (none) or one value
  std::vector<int64_t> target;
  float total_weight = 1.0f;  // the Backward's divisor for a mean

  int64_t Classes() const { return self_shape.size() == 1 ? self_shape[0] : self_shape[1]; }
  int64_t Positions() const { return static_cast<int64_t>(target.size()); }
  std::vector<int64_t> TargetShape() const {
    std::vector<int64_t> shape;
    for (size_t d = 0; d < self_shape.size(); ++d) {
      if (d != (self_shape.size() == 1 ? 0u : 1u)) shape.push_back(self_shape[d]);
    }
    return shape;
  }
  // Self's flat index of (position, class) in a contiguous self.
  int64_t SelfIndex(int64_t position, int64_t c) const {
    if (self_shape.size() <= 2) return position * Classes() + c;
    const int64_t pixels = self_shape[2] * self_shape[3];
    return (position / pixels) * Classes() * pixels + c * pixels + position % pixels;
  }
  bool Counted(int64_t position) const { return target[position] != ignore_index; }
};

// Draws a problem: self in [-10, 0], weights in [-2, 2], targets in [0, C) with about one in five
// equal to ignore_index.
Problem Draw(std::vector<int64_t> self_shape, aclDataType dtype, int64_t reduction,
             int64_t ignore_index, unsigned seed) {
  Problem p;
  p.self_shape = std::move(self_shape);
  p.dtype = p.out_dtype = dtype;
  p.reduction = reduction;
  p.ignore_index = ignore_index;
  p.self = UniformValues(ElementCount(p.self_shape), -10.0f, 0.0f, seed);
  p.weight = UniformValues(p.Classes(), -2.0f, 2.0f, seed + 1);
  std::mt19937 rng(seed + 2);
  const int64_t positions = ElementCount(p.TargetShape());
  for (int64_t i = 0; i < positions; ++i) {
    p.target.push_back(rng() % 5 == 0 ? ignore_index : static_cast<int64_t>(rng() % p.Classes()));
  }
  p.grad = UniformValues(reduction == 0 ? positions : 1, -3.0f, 3.0f, seed + 3);
  p.total_weight = UniformValues(1, 0.5f, 7.0f, seed + 4)[0];
  return p;
}

// The forward's device tensors; the values read back as the dtype holds them.
struct Forward {
  explicit Forward(Problem& p)
      : self(p.self_shape, p.dtype, p.self),
        target(p.TargetShape(), ACL_INT64, {}),
        weight({p.Classes()}, p.dtype, p.weight),
        out(p.reduction == 0 && p.self_shape.size() > 1 ? p.TargetShape() : std::vector<int64_t>{},
            p.out_dtype, {}),
        total_weight({1}, p.out_dtype, {}) {
    if (!p.target.empty()) UploadInt64(target, p.target);
    p.self = self.Read();
    p.weight = weight.Read();
  }
  DeviceTensor self, target, weight, out, total_weight;
};

aclnnStatus RunForward(const Problem& p, Forward& t) {
  const bool two_d = p.self_shape.size() == 4;
  return RunPhases(
      [&](uint64_t* size, aclOpExecutor** executor) {
        return two_d ? aclnnNLLLoss2dGetWorkspaceSize(t.self.get(), t.target.get(), t.weight.get(),
                                                      p.reduction, p.ignore_index, t.out.get(),
                                                      t.total_weight.get(), size, executor)
                     : aclnnNLLLossGetWorkspaceSize(t.self.get(), t.target.get(), t.weight.get(),
                                                    p.reduction, p.ignore_index, t.out.get(),
                                                    t.total_weight.get(), size, executor);
      },
      two_d ? aclnnNLLLoss2d : aclnnNLLLoss);
}

// The forward's results against the exact values.
void ExpectForward(const Problem& p, const Forward& t) {
  mpq_class sum = 0, weights = 0;
  const std::vector<float> out = t.out.Read();
  for (int64_t i = 0; i < p.Positions(); ++i) {
    mpq_class term = 0;
    if (p.Counted(i)) {
      term = -Rational(p.weight[p.target[i]]) * Rational(p.self[p.SelfIndex(i, p.target[i])]);
      sum += term;
      weights += Rational(p.weight[p.target[i]]);
    }
    if (p.reduction == 0) {
      ASSERT_TRUE(
          SameAsExact(out[i], Expected(term, p.out_dtype), "position " + std::to_string(i)));
    }
  }
  if (p.reduction != 0) {
    double expected = Expected(sum, p.out_dtype);
    if (p.reduction == 1) {
      expected = weights != 0 ? Expected(sum / weights, p.out_dtype)
                              : (sum == 0 ? NAN : std::copysign(HUGE_VAL, sum.get_d()));
    }
    EXPECT_TRUE(SameAsExact(out[0], expected, "reduced loss"));
  }
  EXPECT_TRUE(SameAsExact(t.total_weight.Read()[0],
                          p.reduction == 0 ? 0.0 : Expected(weights, p.out_dtype), "total weight"));
}

void CheckForward(Problem p) {
  Forward t(p);
  ASSERT_EQ(RunForward(p, t), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ExpectForward(p, t);
}

struct Backward {
  explicit Backward(Problem& p)
      : grad(p.reduction == 0 && p.self_shape.size() > 1 ? p.TargetShape() : std::vector<int64_t>{},
             p.dtype, p.grad),
        self(p.self_shape, p.dtype, p.self),
        target(p.TargetShape(), ACL_INT64, {}),
        weight({p.Classes()}, p.dtype, p.weight),
        total_weight({1}, p.dtype, {p.total_weight}),
        out(p.self_shape, p.out_dtype, std::vector<float>(ElementCount(p.self_shape), 7.0f)) {
    if (!p.target.empty()) UploadInt64(target, p.target);
    p.grad = grad.Read();
    p.self = self.Read();
    p.weight = weight.Read();
    p.total_weight = total_weight.Read()[0];
  }
  DeviceTensor grad, self, target, weight, total_weight, out;
};

aclnnStatus RunBackward(const Problem& p, Backward& t) {
  const bool two_d = p.self_shape.size() == 4;
  return RunPhases(
      [&](uint64_t* size, aclOpExecutor** executor) {
        return two_d ? aclnnNLLLoss2dBackwardGetWorkspaceSize(
                           t.grad.get(), t.self.get(), t.target.get(), t.weight.get(), p.reduction,
                           p.ignore_index, t.total_weight.get(), t.out.get(), size, executor)
                     : aclnnNLLLossBackwardGetWorkspaceSize(
                           t.grad.get(), t.self.get(), t.target.get(), t.weight.get(), p.reduction,
                           p.ignore_index, t.total_weight.get(), t.out.get(), size, executor);
      },
      two_d ? aclnnNLLLoss2dBackward : aclnnNLLLossBackward);
}

void ExpectBackward(const Problem& p, const Backward& t) {
  const std::vector<float> out = t.out.Read();
  for (int64_t i = 0; i < p.Positions(); ++i) {
    const double g = p.grad[p.reduction == 0 ? i : 0];
    for (int64_t c = 0; c < p.Classes(); ++c) {
      mpq_class value = 0;
      if (p.Counted(i) && c == p.target[i]) {
        value = -Rational(g) * Rational(p.weight[c]);
        if (p.reduction == 1) value /= Rational(p.total_weight);
      }
      ASSERT_TRUE(SameAsExact(out[p.SelfIndex(i, c)], Expected(value, p.out_dtype),
                              "position " + std::to_string(i) + " class " + std::to_string(c)));
    }
  }
}

void CheckBackward(Problem p) {
  Backward t(p);
  ASSERT_EQ(RunBackward(p, t), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ExpectBackward(p, t);
}

constexpr aclDataType kDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};

TEST(NllLossValues, EveryResultIsTheExactValueRoundedOnce) {
  unsigned seed = 1;
  for (aclDataType dtype : kDtypes) {
    for (int64_t reduction : {0, 1, 2}) {
      for (const std::vector<int64_t>& shape :
           {std::vector<int64_t>{11}, {37, 11}, {1, 1}, {2, 5, 3, 4}}) {
        SCOPED_TRACE(::testing::Message() << "dtype " << dtype << " reduction " << reduction
                                          << " rank " << shape.size());
        CheckForward(Draw(shape, dtype, reduction, 3, seed++));
        CheckForward(Draw(shape, dtype, reduction, -100, seed++));
        CheckBackward(Draw(shape, dtype, reduction, 3, seed++));
        CheckBackward(Draw(shape, dtype, reduction, -100, seed++));
      }
    }
  }
}

// Many positions: blocks shared by the pool's threads, the sums exact whatever the order.
TEST(NllLossValues, LargeProblemsAreExactToo) {
  for (int64_t reduction : {1, 2}) {
    CheckForward(Draw({300007, 3}, ACL_FLOAT, reduction, 1, 90 + reduction));
  }
  CheckBackward(Draw({5003, 257}, ACL_FLOAT, 1, 1, 93));
}

// fp32 self into fp16 and bf16 results (CANN casts self's type to out's): one rounding, from the
// exact value, never through fp32.
TEST(NllLossValues, OtherOutputTypesRoundOnce) {
  for (aclDataType out : {ACL_FLOAT16, ACL_BF16}) {
    for (int64_t reduction : {0, 1, 2}) {
      Problem p = Draw({29, 7}, ACL_FLOAT, reduction, 2, 40 + reduction);
      p.out_dtype = out;
      CheckForward(p);
      Problem q = Draw({29, 7}, ACL_FLOAT, reduction, 2, 50 + reduction);
      q.out_dtype = out;
      CheckBackward(q);
    }
  }
}

// A negative ignoreIndex masks an equal target (as torch and CANN's A2/A3 kernels); a mean of no
// counted position is NaN with a total weight of 0; a sum is 0.
TEST(NllLossValues, IgnoredTargetsCountForNothing) {
  Problem p = Draw({4, 3}, ACL_FLOAT, 1, -1, 60);
  p.target = {-1, -1, -1, -1};
  CheckForward(p);
  p.reduction = 2;
  CheckForward(p);
  p.target = {-1, 2, -1, 0};
  p.reduction = 1;
  CheckForward(p);
}

// The exact mean (-sum w x) / (sum w) next to a midpoint m = 1 + 2^-P of the output's precision P:
// three unit-weight positions whose terms add to exactly 3m (a tie: the even neighbour, 1), and a
// fourth, weight 2^-100, term 2^-99, which moves the quotient 2^-100 (2 - m) / 3 above m (up:
// 1 + 2^(1-P)). fp64 arithmetic loses the fourth term and returns the tie's result.
TEST(NllLossBoundaries, MeansBesideAMidpointRoundTheRightWay) {
  for (aclDataType out : kDtypes) {
    const int precision = out == ACL_FLOAT ? 24 : out == ACL_FLOAT16 ? 11 : 8;
    for (bool beside : {false, true}) {
      Problem p = Draw({beside ? 4 : 3, 2}, ACL_FLOAT, 1, -100, 70);
      p.out_dtype = out;
      const float terms[] = {2.0f, 1.0f + std::ldexp(1.0f, 2 - precision),
                             -std::ldexp(1.0f, -precision), 2.0f};
      p.weight = {1.0f, std::ldexp(1.0f, -100)};
      for (int64_t i = 0; i < p.Positions(); ++i) {
        p.target[i] = i < 3 ? 0 : 1;
        p.self[p.SelfIndex(i, p.target[i])] = -terms[i];
      }
      Forward t(p);
      ASSERT_EQ(RunForward(p, t), ACLNN_SUCCESS) << aclGetRecentErrMsg();
      ExpectForward(p, t);
      const double rounded = t.out.Read()[0];
      EXPECT_EQ(rounded, beside ? 1.0 + std::ldexp(1.0, 1 - precision) : 1.0);
    }
  }
}

// A sum beside a midpoint: 1 + 2^-24 (a tie) plus 2^-80 rounds up, which an fp64 sum misses.
TEST(NllLossBoundaries, SumsBesideAMidpointRoundTheRightWay) {
  Problem p = Draw({3, 1}, ACL_FLOAT, 2, -100, 80);
  p.weight = {1.0f};
  p.target = {0, 0, 0};
  p.self = {-1.0f, -std::ldexp(1.0f, -24), -std::ldexp(1.0f, -80)};
  Forward t(p);
  ASSERT_EQ(RunForward(p, t), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ExpectForward(p, t);
  EXPECT_EQ(t.out.Read()[0], 1.0f + std::ldexp(1.0f, -23));
}

// The Backward's mean -g w / totalWeight exactly on a midpoint with totalWeight 3, 5 and 7: g w =
// tau (2^24 + 1) with 2^24 + 1 = 97 * 257 * 673 (a tie between 2^24 and 2^24 + 2: the even one,
// 2^24), and one unit of g away (no tie).
TEST(NllLossBoundaries, GradientQuotientsOnAMidpointRoundToEven) {
  for (float tau : {3.0f, 5.0f, 7.0f}) {
    for (float nudge : {0.0f, 1.0f}) {
      Problem p = Draw({1, 2}, ACL_FLOAT, 1, -100, 85);
      p.target = {1};
      p.weight = {1.0f, 673.0f};
      p.grad = {tau * 24929.0f + nudge};
      p.total_weight = tau;
      Backward t(p);
      ASSERT_EQ(RunBackward(p, t), ACLNN_SUCCESS) << aclGetRecentErrMsg();
      ExpectBackward(p, t);
      if (nudge == 0.0f) {
        EXPECT_EQ(t.out.Read()[1], -16777216.0f);
      }
    }
  }
}

// A strided self (a transposed view of a (C, N) block) and a strided out.
TEST(NllLossValues, StridedViewsAreReadInPlace) {
  for (int64_t reduction : {0, 1}) {
    Problem p = Draw({6, 4}, ACL_FLOAT, reduction, 2, 100 + reduction);
    DeviceTensor self({6, 4}, ACL_FLOAT, p.self, {1, 6}, 0, {4, 6});  // self[n][c] = block[c][n]
    Forward t(p);
    std::vector<float> logical(24);
    const std::vector<float> block = self.Read();
    for (int n = 0; n < 6; ++n) {
      for (int c = 0; c < 4; ++c) logical[n * 4 + c] = block[c * 6 + n];
    }
    p.self = logical;
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    ASSERT_EQ(aclnnNLLLossGetWorkspaceSize(self.get(), t.target.get(), t.weight.get(), reduction,
                                           p.ignore_index, t.out.get(), t.total_weight.get(), &size,
                                           &executor),
              ACLNN_SUCCESS);
    ASSERT_EQ(LaunchAndWait(aclnnNLLLoss, size, executor), ACLNN_SUCCESS);
    ExpectForward(p, t);
  }
}

// A target outside [0, C) that is not ignoreIndex: phase 2 queues the work, the stream's
// synchronization fails with the AI Core exception code and names the position and the value,
// the position's results are NaN, and the stream works on afterwards.
TEST(NllLossFaults, TargetsOutOfRangeFailTheSynchronization) {
  for (bool backward : {false, true}) {
    Problem p = Draw({3, 4}, ACL_FLOAT, 0, -100, 110);
    p.target = {1, 7, 2};
    Forward f(p);
    Backward b(p);
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus planned =
        backward
            ? aclnnNLLLossBackwardGetWorkspaceSize(b.grad.get(), b.self.get(), b.target.get(),
                                                   b.weight.get(), 0, -100, b.total_weight.get(),
                                                   b.out.get(), &size, &executor)
            : aclnnNLLLossGetWorkspaceSize(f.self.get(), f.target.get(), f.weight.get(), 0, -100,
                                           f.out.get(), f.total_weight.get(), &size, &executor);
    ASSERT_EQ(planned, ACLNN_SUCCESS);
    ASSERT_EQ((backward ? aclnnNLLLossBackward : aclnnNLLLoss)(nullptr, size, executor,
                                                               AclEnvironment::stream),
              ACLNN_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(AclEnvironment::stream), ACL_ERROR_RT_AICORE_EXCEPTION);
    const std::string message = aclGetRecentErrMsg();
    EXPECT_NE(message.find("target 7 of position 1"), std::string::npos) << message;
    EXPECT_NE(message.find(backward ? "aclnnNLLLossBackward" : "aclnnNLLLoss"), std::string::npos)
        << message;
    EXPECT_EQ(aclrtSynchronizeStream(AclEnvironment::stream), ACL_SUCCESS);
    const std::vector<float> out = backward ? b.out.Read() : f.out.Read();
    EXPECT_TRUE(std::isnan(out[backward ? 4 : 1]));
    EXPECT_FALSE(std::isnan(out[0]));
  }
}

// Empty batches: none writes nothing, mean NaN, sum 0, the total weight 0; a Backward writes
// nothing.
TEST(NllLossValues, EmptyBatches) {
  for (int64_t reduction : {1, 2}) {
    Problem p = Draw({0, 4}, ACL_FLOAT, reduction, -100, 120);
    CheckForward(p);
  }
  Problem p = Draw({0, 4}, ACL_FLOAT, 0, -100, 121);
  CheckForward(p);
  CheckBackward(p);
}

// --- Phase 1: CANN's unit tests (spec §6.1) and the checks' order ---

struct Shapes {
  std::vector<int64_t> self, target, weight, out, total;
};

aclnnStatus PlanForward(const Shapes& s, aclDataType self_type, aclDataType target_type,
                        aclDataType weight_type, aclDataType out_type, int64_t reduction,
                        bool two_d = false) {
  DeviceTensor self(s.self, self_type, {}), target(s.target, target_type, {}),
      weight(s.weight, weight_type, {}), out(s.out, out_type, {}), total(s.total, out_type, {});
  uint64_t size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status =
      two_d ? aclnnNLLLoss2dGetWorkspaceSize(self.get(), target.get(), weight.get(), reduction,
                                             -100, out.get(), total.get(), &size, &executor)
            : aclnnNLLLossGetWorkspaceSize(self.get(), target.get(), weight.get(), reduction, -100,
                                           out.get(), total.get(), &size, &executor);
  return PlanOnly(status, executor);
}

TEST(NllLossChecks, CannsUnitTestCasesGiveTheirCodes) {
  const Shapes nc{{2, 3}, {2}, {3}, {2}, {}};
  EXPECT_EQ(PlanForward(nc, ACL_FLOAT, ACL_INT64, ACL_FLOAT, ACL_FLOAT, 0), ACLNN_SUCCESS);
  EXPECT_EQ(PlanForward({{2, 3}, {2}, {3}, {}, {}}, ACL_FLOAT, ACL_UINT8, ACL_FLOAT, ACL_FLOAT, 1),
            ACLNN_SUCCESS);
  EXPECT_EQ(PlanForward({{3}, {}, {3}, {}, {1}}, ACL_FLOAT, ACL_INT32, ACL_FLOAT, ACL_FLOAT, 0),
            ACLNN_SUCCESS);
  EXPECT_EQ(PlanForward(nc, ACL_FLOAT, ACL_INT64, ACL_FLOAT, ACL_FLOAT16, 0), ACLNN_SUCCESS);
  EXPECT_EQ(PlanForward({{0, 4}, {0}, {4}, {}, {}}, ACL_FLOAT, ACL_INT64, ACL_FLOAT, ACL_FLOAT, 1),
            ACLNN_SUCCESS);
  EXPECT_EQ(PlanForward({{3}, {3}, {3}, {}, {}}, ACL_FLOAT, ACL_INT64, ACL_FLOAT, ACL_FLOAT, 0),
            ACLNN_ERR_PARAM_INVALID);  // a 1-D self takes a 0-D target
  EXPECT_EQ(PlanForward(nc, ACL_FLOAT, ACL_INT64, ACL_FLOAT, ACL_FLOAT, 3),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(
      PlanForward({{2, 3, 1, 1}, {2}, {3}, {2}, {}}, ACL_FLOAT, ACL_INT64, ACL_FLOAT, ACL_FLOAT, 0),
      ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(PlanForward({{2, 3}, {4}, {3}, {4}, {}}, ACL_FLOAT, ACL_INT64, ACL_FLOAT, ACL_FLOAT, 0),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(PlanForward(nc, ACL_INT32, ACL_INT64, ACL_INT32, ACL_FLOAT, 0),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(PlanForward(nc, ACL_FLOAT, ACL_INT64, ACL_FLOAT16, ACL_FLOAT, 0),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(PlanForward(nc, ACL_FLOAT, ACL_INT64, ACL_FLOAT, ACL_INT32, 0),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(PlanForward({{2, 0}, {2}, {0}, {2}, {}}, ACL_FLOAT, ACL_INT64, ACL_FLOAT, ACL_FLOAT, 0),
            ACLNN_ERR_PARAM_INVALID);  // no class for a target to index
  // aclnnNLLLoss2d's.
  const Shapes nchw{{2, 3, 4, 5}, {2, 4, 5}, {3}, {2, 4, 5}, {}};
  EXPECT_EQ(PlanForward(nchw, ACL_FLOAT, ACL_INT64, ACL_FLOAT, ACL_FLOAT, 0, true), ACLNN_SUCCESS);
  EXPECT_EQ(PlanForward({{2, 3, 4, 5}, {2, 4, 5}, {3}, {}, {}}, ACL_FLOAT16, ACL_INT32, ACL_FLOAT16,
                        ACL_FLOAT16, 2, true),
            ACLNN_SUCCESS);
  EXPECT_EQ(PlanForward(nchw, ACL_INT8, ACL_INT64, ACL_INT8, ACL_FLOAT, 0, true),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(
      PlanForward({{2, 3}, {2}, {3}, {2}, {}}, ACL_FLOAT, ACL_INT64, ACL_FLOAT, ACL_FLOAT, 0, true),
      ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(PlanForward({{2, 3, 4, 5}, {2, 4, 5}, {4}, {2, 4, 5}, {}}, ACL_FLOAT, ACL_INT64,
                        ACL_FLOAT, ACL_FLOAT, 0, true),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(PlanForward(nchw, ACL_FLOAT, ACL_INT64, ACL_FLOAT, ACL_FLOAT, 3, true),
            ACLNN_ERR_PARAM_INVALID);
}

TEST(NllLossChecks, NullTensorsAreNamedInCannsOrder) {
  DeviceTensor self({2, 3}, ACL_FLOAT, {}), target({2}, ACL_INT64, {}), weight({3}, ACL_FLOAT, {}),
      out({2}, ACL_FLOAT, {}), total({}, ACL_FLOAT, {}), grad({2}, ACL_FLOAT, {}),
      grad_in({2, 3}, ACL_FLOAT, {});
  uint64_t size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(aclnnNLLLossGetWorkspaceSize(self.get(), target.get(), nullptr, 0, -100, out.get(),
                                         total.get(), &size, &executor),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("weight"));
  EXPECT_EQ(aclnnNLLLossGetWorkspaceSize(self.get(), target.get(), weight.get(), 0, -100, out.get(),
                                         nullptr, &size, &executor),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("totalWeightOut"));
  EXPECT_EQ(aclnnNLLLossBackwardGetWorkspaceSize(grad.get(), self.get(), target.get(), weight.get(),
                                                 0, -100, nullptr, grad_in.get(), &size, &executor),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("totalWeight"));
  // The 2d Backward names out before totalWeight.
  DeviceTensor self4({1, 3, 1, 2}, ACL_FLOAT, {}), target3({1, 1, 2}, ACL_INT64, {});
  EXPECT_EQ(
      aclnnNLLLoss2dBackwardGetWorkspaceSize(grad.get(), self4.get(), target3.get(), weight.get(),
                                             0, -100, nullptr, nullptr, &size, &executor),
      ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("out"));
}

TEST(NllLossChecks, BackwardShapesAndTypes) {
  const auto plan = [](std::vector<int64_t> grad_shape, std::vector<int64_t> self_shape,
                       std::vector<int64_t> target_shape, aclDataType grad_type, int64_t reduction,
                       bool two_d) {
    const int64_t classes = self_shape.size() == 1 ? self_shape[0] : self_shape[1];
    DeviceTensor grad(grad_shape, grad_type, {}), self(self_shape, ACL_FLOAT, {}),
        target(target_shape, ACL_INT64, {}), weight({classes}, ACL_FLOAT, {}),
        total({1}, ACL_FLOAT, {}), out(self_shape, ACL_FLOAT, {});
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status =
        two_d ? aclnnNLLLoss2dBackwardGetWorkspaceSize(grad.get(), self.get(), target.get(),
                                                       weight.get(), reduction, -100, total.get(),
                                                       out.get(), &size, &executor)
              : aclnnNLLLossBackwardGetWorkspaceSize(grad.get(), self.get(), target.get(),
                                                     weight.get(), reduction, -100, total.get(),
                                                     out.get(), &size, &executor);
    return PlanOnly(status, executor);
  };
  EXPECT_EQ(plan({2}, {2, 3}, {2}, ACL_FLOAT, 0, false), ACLNN_SUCCESS);
  EXPECT_EQ(plan({}, {2, 3}, {2}, ACL_FLOAT, 1, false), ACLNN_SUCCESS);
  EXPECT_EQ(plan({}, {3}, {}, ACL_FLOAT, 0, false), ACLNN_SUCCESS);
  EXPECT_EQ(plan({}, {0, 3}, {0}, ACL_FLOAT, 1, false), ACLNN_SUCCESS);
  EXPECT_EQ(plan({2}, {2, 3}, {2}, ACL_FLOAT, 3, false), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(plan({2}, {2, 3}, {2}, ACL_FLOAT16, 0, false), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(plan({3}, {3}, {3}, ACL_FLOAT, 0, false), ACLNN_ERR_PARAM_INVALID);  // D57
  EXPECT_EQ(plan({2, 4, 5}, {2, 3, 4, 5}, {2, 4, 5}, ACL_FLOAT, 0, true), ACLNN_SUCCESS);
  EXPECT_EQ(plan({1}, {2, 3, 4, 5}, {2, 4, 5}, ACL_FLOAT, 1, true), ACLNN_SUCCESS);
  EXPECT_EQ(plan({2, 4, 5}, {2, 3, 4, 5}, {2, 4, 5}, ACL_FLOAT16, 0, true),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(plan({1}, {2, 3, 4, 5, 1}, {2, 4, 5}, ACL_FLOAT, 1, true), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(plan({1}, {2, 3, 4, 5}, {2, 4, 5}, ACL_FLOAT, 3, true), ACLNN_ERR_PARAM_INVALID);
}

// The op table lists the four as class-axis ops with an int64 ignoreIndex (torch's default, -100);
// through the table, ignoreIndex is a double that must hold a whole number within +-2^53, and the
// result is the named API's.
TEST(NllLossOpTable, RowsAndTheIgnoreIndexAttribute) {
  for (const char* api :
       {"aclnnNLLLoss", "aclnnNLLLoss2d", "aclnnNLLLossBackward", "aclnnNLLLoss2dBackward"}) {
    const openaclnnOpDescriptor* op = openaclnnFindOp(api);
    ASSERT_NE(op, nullptr) << api;
    EXPECT_EQ(op->layout, OPENACLNN_LAYOUT_CLASS_AXIS) << api;
    ASSERT_EQ(op->attributeCount, 1u) << api;
    EXPECT_STREQ(op->attributes[0].name, "ignoreIndex");
    EXPECT_EQ(op->attributes[0].type, OPENACLNN_ATTRIBUTE_INT64);
    EXPECT_EQ(op->attributes[0].defaultValue, -100.0);
  }
  EXPECT_EQ(openaclnnFindOp("aclnnMseLoss")->layout, OPENACLNN_LAYOUT_ELEMENTWISE);
  Problem p = Draw({5, 4}, ACL_FLOAT, 2, 2, 130);
  Forward t(p);
  const aclTensor* operands[] = {t.self.get(), t.target.get(), t.weight.get(), t.out.get(),
                                 t.total_weight.get()};
  const openaclnnOpDescriptor* op = openaclnnFindOp("aclnnNLLLoss");
  uint64_t size = 0;
  aclOpExecutor* executor = nullptr;
  for (double refused : {0.5, 0x1p53 + 2.0, static_cast<double>(NAN)}) {
    EXPECT_EQ(op->getWorkspaceSize(operands, 2, &refused, &size, &executor),
              ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(ErrorMentions("ignoreIndex"));
  }
  const double ignore = 2.0;
  ASSERT_EQ(op->getWorkspaceSize(operands, 2, &ignore, &size, &executor), ACLNN_SUCCESS);
  ASSERT_EQ(LaunchAndWait(op->launch, size, executor), ACLNN_SUCCESS);
  ExpectForward(p, t);
}

}  // namespace
}  // namespace openaclnn::testing
