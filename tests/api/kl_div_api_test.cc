// aclnnKlDiv through its C API: CANN's UT cases by their intent, OpenACLNN's decisions
// (docs/contract/checks-and-codes.md §14), every check's status code and message, and values
// against a long-double reference (kl_div_reference.h).
#include "aclnnop/aclnn_kl_div.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "kl_div_reference.h"
#include "op_tester.h"

namespace openaclnn::testing {
namespace {

constexpr int64_t kNone = 0, kMean = 1, kSum = 2, kBatchMean = 3;

// Phase 1 only; a successful executor is destroyed.
aclnnStatus Plan(const aclTensor* self, const aclTensor* target, int64_t reduction, bool log_target,
                 aclTensor* out, uint64_t* workspace_size = nullptr) {
  uint64_t size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status =
      aclnnKlDivGetWorkspaceSize(self, target, reduction, log_target, out, &size, &executor);
  if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
  if (workspace_size != nullptr) *workspace_size = size;
  return status;
}

aclnnStatus Plan(const DeviceTensor& self, const DeviceTensor& target, int64_t reduction,
                 const DeviceTensor& out, bool log_target = false) {
  return Plan(self.get(), target.get(), reduction, log_target, out.get());
}

aclnnStatus RunKlDiv(const DeviceTensor& self, const DeviceTensor& target, int64_t reduction,
                     bool log_target, const DeviceTensor& out) {
  return RunPhases(
      [&](uint64_t* size, aclOpExecutor** executor) {
        return aclnnKlDivGetWorkspaceSize(self.get(), target.get(), reduction, log_target,
                                          out.get(), size, executor);
      },
      aclnnKlDiv);
}

// --- CANN's UT cases (19 TEST_F, 21 calls), by their intent ---

// case_003 to case_010: double, uint8, int8, int16, int32, int64, bool, complex64 inputs.
TEST(KlDivCann, UnsupportedDtypesAre161002) {
  const aclDataType dtypes[] = {ACL_DOUBLE, ACL_UINT8, ACL_INT8, ACL_INT16,
                                ACL_INT32,  ACL_INT64, ACL_BOOL, ACL_COMPLEX64};
  for (aclDataType dtype : dtypes) {
    SCOPED_TRACE(dtype);
    const aclDataType out_dtype = dtype == ACL_DOUBLE || dtype == ACL_COMPLEX64 ? dtype : ACL_FLOAT;
    DeviceTensor self({3, 5}, dtype, {}), target({3, 5}, dtype, {1, 2, 3}),
        out({3, 5}, out_dtype, {});
    EXPECT_EQ(Plan(self, target, kNone, out), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(ErrorMentions("aclnnKlDiv: self has dtype"));
  }
}

// case_011: a null self, target or out.
TEST(KlDivCann, NullTensorsAre161001InParameterOrder) {
  const Shape shape{10, 3, 5, 24};
  DeviceTensor self(shape, ACL_FLOAT, {}), target(shape, ACL_FLOAT, {}), out(shape, ACL_FLOAT, {});
  EXPECT_EQ(Plan(nullptr, target.get(), kNone, true, out.get()), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(
      ErrorMentions("aclnnKlDiv: Expected a proper Tensor but got null for argument self."));
  EXPECT_EQ(Plan(self.get(), nullptr, kNone, true, out.get()), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("got null for argument target."));
  EXPECT_EQ(Plan(self.get(), target.get(), kNone, true, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("got null for argument out."));
  EXPECT_EQ(Plan(nullptr, nullptr, kNone, true, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("argument self."));
}

// case_012, case_022, case_023: empty inputs, none, mean and sum.
TEST(KlDivCann, EmptyInputsAreAccepted) {
  DeviceTensor empty({3, 1, 0, 5}, ACL_FLOAT, {}), row({1, 0}, ACL_FLOAT, {}),
      flat({0}, ACL_FLOAT, {}), scalar({}, ACL_FLOAT, {});
  uint64_t workspace_size = 1;
  EXPECT_EQ(Plan(empty.get(), empty.get(), kNone, true, empty.get(), &workspace_size),
            ACLNN_SUCCESS);
  EXPECT_EQ(workspace_size, 0u);
  EXPECT_EQ(Plan(row, row, kMean, scalar), ACLNN_SUCCESS);
  EXPECT_EQ(Plan(flat, flat, kSum, scalar), ACLNN_SUCCESS);
}

// case_013: rank 9 (CANN's [10,24,3,5,10,22,42,30,24], here with small dimensions).
TEST(KlDivCann, RankNineIs161002) {
  const Shape nine{1, 2, 1, 2, 1, 2, 1, 2, 1};
  DeviceTensor self(nine, ACL_FLOAT, {}), out(nine, ACL_FLOAT, {});
  EXPECT_EQ(Plan(self, self, kNone, out, true), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("self (DT_FLOAT [1,2,1,2,1,2,1,2,1]) has rank 9; at most 8"));
}

// case_015 and case_016: self and target that do not broadcast; out of another shape than theirs.
TEST(KlDivCann, ShapesThatDoNotBroadcastAre161002) {
  DeviceTensor self({3, 4, 6, 3}, ACL_FLOAT, {}), target({3, 4, 6, 4}, ACL_FLOAT16, {}),
      column({3, 4, 6, 1}, ACL_FLOAT, {}), out({3, 4, 6, 3}, ACL_FLOAT, {}),
      wide({3, 4, 6, 5}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(self, target, kNone, out, true), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("self shape [3,4,6,3] and target shape [3,4,6,4] cannot broadcast"));
  EXPECT_EQ(Plan(self, column, kNone, wide, true), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions(
      "out shape [3,4,6,5] must be the broadcast shape of self and target, [3,4,6,3]."));
  EXPECT_EQ(Plan(self, column, kNone, out, true), ACLNN_SUCCESS);
}

// case_017, case_018, case_024, case_025: mean and sum into a 0-D out, of ranks 0 to 5, formats
// NCDHW and ND.
TEST(KlDivCann, MeanAndSumOfAnyRankAreAccepted) {
  DeviceTensor four({3, 5, 2, 4}, ACL_FLOAT, {}), one({2}, ACL_FLOAT, {}), zero({}, ACL_FLOAT, {}),
      out({}, ACL_FLOAT, {}), memory({1, 2, 3, 4, 5}, ACL_FLOAT, Targets(120, false));
  EXPECT_EQ(Plan(four, four, kMean, out), ACLNN_SUCCESS);
  EXPECT_EQ(Plan(one, one, kMean, out), ACLNN_SUCCESS);
  EXPECT_EQ(Plan(zero, zero, kMean, out), ACLNN_SUCCESS);
  FormattedTensor self({1, 2, 3, 4, 5}, ACL_FLOAT, ACL_FORMAT_NCDHW, memory.device()),
      sum({}, ACL_FLOAT, ACL_FORMAT_NCDHW, out.device());
  EXPECT_EQ(Plan(self.get(), self.get(), kSum, false, sum.get()), ACLNN_SUCCESS);
}

// --- OpenACLNN's decisions (docs/contract/differences-from-cann.md) ---

TEST(KlDivChecks, NullWorkspaceSizeOrExecutorIs161001) {
  DeviceTensor self({3}, ACL_FLOAT, {}), out({3}, ACL_FLOAT, {});
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(aclnnKlDivGetWorkspaceSize(self.get(), self.get(), kNone, false, out.get(), nullptr,
                                       &executor),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("aclnnKlDiv: workspaceSize is nullptr."));
  EXPECT_EQ(aclnnKlDivGetWorkspaceSize(self.get(), self.get(), kNone, false, out.get(),
                                       &workspace_size, nullptr),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("executor is nullptr."));
}

TEST(KlDivChecks, ReductionOutsideZeroToThreeIs161002) {
  DeviceTensor self({3}, ACL_FLOAT, {}), out({}, ACL_FLOAT, {});
  for (int64_t reduction : {int64_t{-1}, int64_t{4}, int64_t{1} << 40}) {
    EXPECT_EQ(Plan(self, self, reduction, out), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(ErrorMentions("Reduction only support [0, 1, 2, 3]"));
  }
  EXPECT_EQ(Plan(self, self, kBatchMean, out), ACLNN_SUCCESS);
}

// The checks in CANN's order: nulls, dtypes, promotion, ranks, reduction, shapes.
TEST(KlDivChecks, TheFirstFailingCheckDecides) {
  const Shape nine{1, 1, 1, 1, 1, 1, 1, 1, 1};
  DeviceTensor ints({3}, ACL_INT32, {}), rank9(nine, ACL_FLOAT, {}), three({3}, ACL_FLOAT, {}),
      four({4}, ACL_FLOAT, {}), wrong_out({2}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(ints, rank9, 7, wrong_out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("self has dtype DT_INT32"));
  EXPECT_EQ(Plan(rank9, three, 7, wrong_out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("has rank 9"));
  EXPECT_EQ(Plan(three, four, 7, wrong_out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("reduction is 7"));
  EXPECT_EQ(Plan(three, four, kSum, wrong_out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("cannot broadcast"));
  EXPECT_EQ(Plan(three, three, kSum, wrong_out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("out must hold exactly one element"));
}

// D10: a reduced out holds one element, any rank, checked before any work.
TEST(KlDivChecks, AReducedOutHoldsOneElementOfAnyRank) {
  DeviceTensor self({4, 5}, ACL_FLOAT, {}), scalar({}, ACL_FLOAT, {}), one({1}, ACL_FLOAT, {}),
      one_by_one({1, 1}, ACL_FLOAT, {}), two({2}, ACL_FLOAT, {}), full({4, 5}, ACL_FLOAT, {});
  for (int64_t reduction : {kMean, kSum, kBatchMean}) {
    for (const DeviceTensor* out : {&scalar, &one, &one_by_one}) {
      EXPECT_EQ(Plan(self, self, reduction, *out), ACLNN_SUCCESS);
    }
    EXPECT_EQ(Plan(self, self, reduction, two), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(ErrorMentions("out must hold exactly one element"));
    EXPECT_EQ(Plan(self, self, reduction, full), ACLNN_ERR_PARAM_INVALID);
  }
}

// Reduction none: out has the broadcast shape, [] where both inputs are 0-D.
TEST(KlDivChecks, NoneWritesTheBroadcastShape) {
  DeviceTensor column({3, 1}, ACL_FLOAT, {}), row({4}, ACL_FLOAT, {}), scalar({}, ACL_FLOAT, {}),
      out({3, 4}, ACL_FLOAT, {}), one({1}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(column, row, kNone, out), ACLNN_SUCCESS);
  EXPECT_EQ(Plan(row, column, kNone, out), ACLNN_SUCCESS);
  EXPECT_EQ(Plan(scalar, scalar, kNone, scalar), ACLNN_SUCCESS);
  EXPECT_EQ(Plan(scalar, scalar, kNone, one), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(Plan(scalar, one, kNone, one), ACLNN_SUCCESS);
  EXPECT_EQ(Plan(column, row, kNone, column), ACLNN_ERR_PARAM_INVALID);
}

// D11: CANN returns success for empty inputs before comparing shapes; OpenACLNN checks them.
TEST(KlDivChecks, EmptyInputsAreCheckedToo) {
  DeviceTensor empty({0, 3}, ACL_FLOAT, {}), other({0, 4}, ACL_FLOAT, {}),
      out({0, 3}, ACL_FLOAT, {}), two({2}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(empty, other, kNone, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(Plan(empty, empty, kNone, other), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(Plan(empty, empty, kMean, two), ACLNN_ERR_PARAM_INVALID);
}

// The dtypes per SoC profile: bf16 on the SoCs with bf16 only; inputs promote, out takes any
// supported dtype.
TEST(KlDivChecks, DtypesFollowTheSocProfile) {
  DeviceTensor f32({4}, ACL_FLOAT, {}), f16({4}, ACL_FLOAT16, {}), bf16({4}, ACL_BF16, {});
  for (const char* soc : {"Ascend910B2", "Ascend910_9391", "Ascend950PR"}) {
    ScopedSocVersion profile(soc);
    EXPECT_EQ(Plan(bf16, f16, kNone, f16), ACLNN_SUCCESS) << soc;
    EXPECT_EQ(Plan(f32, bf16, kNone, bf16), ACLNN_SUCCESS) << soc;
  }
  for (const char* soc : {"Ascend910ProB", "Ascend310P3"}) {
    ScopedSocVersion profile(soc);
    EXPECT_EQ(Plan(f16, f32, kNone, f16), ACLNN_SUCCESS) << soc;
    EXPECT_EQ(Plan(bf16, f32, kNone, f32), ACLNN_ERR_PARAM_INVALID) << soc;
    EXPECT_TRUE(ErrorMentions("self has dtype DT_BF16 (" + std::to_string(ACL_BF16) + "), which " +
                              soc + " does not support"));
    EXPECT_EQ(Plan(f32, f32, kNone, bf16), ACLNN_ERR_PARAM_INVALID) << soc;
    EXPECT_TRUE(ErrorMentions("out has dtype DT_BF16"));
  }
}

TEST(KlDivChecks, ViewsOutsideTheirStorageAre161002) {
  DeviceTensor self({4, 4}, ACL_FLOAT, {}, {5, 1}, 0, {16}), out({4, 4}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(self, out, kNone, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("the view of self"));
}

// --- Values against the long-double reference ---

struct ValueCase {
  aclDataType self_dtype, target_dtype, out_dtype;
  int64_t reduction;
  bool log_target;
  Shape self_shape, target_shape;
};

class KlDivValues : public ::testing::TestWithParam<ValueCase> {};

TEST_P(KlDivValues, AreTheExactLossCorrectlyRounded) {
  const ValueCase c = GetParam();
  const Shape space = BroadcastShapeOf(c.self_shape, c.target_shape);
  DeviceTensor self(c.self_shape, c.self_dtype, LogProbabilities(ElementCount(c.self_shape)));
  DeviceTensor target(c.target_shape, c.target_dtype,
                      Targets(ElementCount(c.target_shape), c.log_target));
  const Shape out_shape = c.reduction == kNone ? space : Shape{1};
  DeviceTensor out(out_shape, c.out_dtype, {});
  ASSERT_EQ(RunKlDiv(self, target, c.reduction, c.log_target, out), ACLNN_SUCCESS);
  const KlOperands in{{}, c.self_shape, c.target_shape, {}, self.Read(), target.Read()};
  const long double divisor = c.reduction == kMean ? ElementCount(space)
                              : c.reduction == kBatchMean
                                  ? c.self_shape.empty() ? 1 : c.self_shape[0]
                                  : 1;
  const std::vector<long double> exact = KlReference(
      KlKind::kLoss, c.log_target, in, space, c.reduction == kNone ? space : Shape{}, divisor);
  const std::vector<float> got = out.Read();
  ASSERT_EQ(got.size(), exact.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_TRUE(CorrectlyRounded(got[i], exact[i], c.out_dtype)) << "element " << i;
  }
}

constexpr aclDataType kF32 = ACL_FLOAT, kF16 = ACL_FLOAT16, kBf16 = ACL_BF16;

INSTANTIATE_TEST_SUITE_P(
    Cases, KlDivValues,
    ::testing::Values(
        // Every reduction and both target kinds, fp32.
        ValueCase{kF32, kF32, kF32, kNone, false, {6, 7}, {6, 7}},
        ValueCase{kF32, kF32, kF32, kNone, true, {6, 7}, {6, 7}},
        ValueCase{kF32, kF32, kF32, kMean, false, {30, 41}, {30, 41}},
        ValueCase{kF32, kF32, kF32, kMean, true, {30, 41}, {30, 41}},
        ValueCase{kF32, kF32, kF32, kSum, false, {5000}, {5000}},
        ValueCase{kF32, kF32, kF32, kSum, true, {9, 600}, {9, 600}},
        ValueCase{kF32, kF32, kF32, kBatchMean, false, {9, 600}, {9, 600}},
        ValueCase{kF32, kF32, kF32, kBatchMean, true, {12, 5}, {12, 5}},
        // Broadcasting both ways; batchmean divides by self's first dimension (D3), 1 for a
        // broadcast one, its length for a 1-D self.
        ValueCase{kF32, kF32, kF32, kNone, false, {4, 1}, {3, 1, 6}},
        ValueCase{kF32, kF32, kF32, kMean, true, {1, 6}, {5, 1}},
        ValueCase{kF32, kF32, kF32, kBatchMean, false, {1, 6}, {5, 6}},
        ValueCase{kF32, kF32, kF32, kBatchMean, true, {6}, {5, 6}},
        ValueCase{kF32, kF32, kF32, kBatchMean, false, {}, {4, 3}},
        // 16-bit inputs and results, mixed dtypes (promoted) and narrowed outs.
        ValueCase{kF16, kF16, kF16, kNone, false, {7, 9}, {7, 9}},
        ValueCase{kF16, kF16, kF16, kMean, true, {64, 70}, {64, 70}},
        ValueCase{kBf16, kBf16, kBf16, kNone, true, {3, 4, 5}, {3, 4, 5}},
        ValueCase{kBf16, kBf16, kBf16, kSum, false, {9000}, {9000}},
        ValueCase{kF16, kBf16, kF32, kBatchMean, true, {8, 16}, {16}},
        ValueCase{kF32, kF16, kBf16, kNone, false, {5, 8}, {5, 8}},
        ValueCase{kBf16, kF32, kF16, kMean, false, {33}, {2, 33}},
        // Rank 8, and 0-D inputs.
        ValueCase{kF32, kF32, kF32, kSum, true, {2, 1, 2, 1, 2, 1, 2, 3}, {1, 2, 1, 2, 1, 2, 1, 3}},
        ValueCase{kF32, kF32, kF32, kNone, false, {}, {}},
        ValueCase{kF32, kF32, kF32, kMean, true, {}, {}}));

// CANN's example's data: fp32 [4,2], self 0..7, target {1,1,1,2,2,2,3,3}, mean ->
// (6 ln 6 - 66) / 8 = -6.906180.
TEST(KlDivValues, CannsExampleGivesItsDigits) {
  DeviceTensor self({4, 2}, ACL_FLOAT, {0, 1, 2, 3, 4, 5, 6, 7}),
      target({4, 2}, ACL_FLOAT, {1, 1, 1, 2, 2, 2, 3, 3}), out({1}, ACL_FLOAT, {});
  ASSERT_EQ(RunKlDiv(self, target, kMean, false, out), ACLNN_SUCCESS);
  const float got = out.Read()[0];
  char printed[32];
  std::snprintf(printed, sizeof printed, "%f", got);
  EXPECT_STREQ(printed, "-6.906180");
  EXPECT_TRUE(CorrectlyRounded(got, (6 * std::log(6.0L) - 66) / 8, ACL_FLOAT));
}

// D2 and the special classes: t = 0 gives 0 (not NaN), t < 0 NaN; log targets beyond fp32's exp.
TEST(KlDivValues, ZeroAndNegativeTargetsAndLargeLogTargets) {
  const float inf = std::numeric_limits<float>::infinity();
  // x[6] is the fp32 after 95: e^95 (95 - x) = -1.4e36, where fp32's e^95 is inf.
  const std::vector<float> x = {-3, 5, 0, -1, 2, 100, std::nextafter(95.0f, 96.0f), 1, -inf};
  const std::vector<float> t = {0, 0, -0.5f, 1, 2, 100, 95, -inf, 0.5f};
  DeviceTensor self({9}, ACL_FLOAT, x), target({9}, ACL_FLOAT, {}), out({9}, ACL_FLOAT, {});
  UploadWithSpecials(self, ACL_FLOAT, x);
  UploadWithSpecials(target, ACL_FLOAT, t);
  ASSERT_EQ(RunKlDiv(self, target, kNone, false, out), ACLNN_SUCCESS);
  std::vector<float> got = out.Read();
  EXPECT_EQ(got[0], 0.0f);
  EXPECT_EQ(got[1], 0.0f);
  EXPECT_TRUE(std::signbit(got[1]));  // 0 (0 - 5) = -0
  EXPECT_TRUE(std::isnan(got[2]));
  EXPECT_TRUE(std::isnan(got[7]));  // t = -inf < 0
  EXPECT_EQ(got[8], inf);
  for (int i : {3, 4, 5, 6}) EXPECT_TRUE(CorrectlyRounded(got[i], KlLoss(x[i], t[i], false), kF32));
  ASSERT_EQ(RunKlDiv(self, target, kNone, true, out), ACLNN_SUCCESS);
  got = out.Read();
  EXPECT_EQ(got[5], 0.0f);  // e^100 (100 - 100): 0, where fp32's e^100 gives inf * 0 = NaN
  EXPECT_TRUE(std::isfinite(got[6]));
  EXPECT_TRUE(std::isnan(got[7]));  // 0 (-inf - 1)
  for (int i : {0, 1, 2, 3, 4, 6, 8}) {
    EXPECT_TRUE(CorrectlyRounded(got[i], KlLoss(x[i], t[i], true), kF32)) << i;
  }
}

// D11: an empty input's mean is NaN, its sum 0, its batchmean NaN where self's first dimension is
// 0, else 0 (a 0-D self counts 1).
TEST(KlDivValues, EmptyInputsFillTheReducedOut) {
  DeviceTensor rows0({0, 3}, ACL_FLOAT16, {}), cols0({2, 0}, ACL_FLOAT16, {}),
      scalar({}, ACL_FLOAT16, {}), empty({0}, ACL_FLOAT16, {}), out({1}, ACL_FLOAT16, {7.0f});
  ASSERT_EQ(RunKlDiv(rows0, rows0, kMean, false, out), ACLNN_SUCCESS);
  EXPECT_TRUE(std::isnan(out.Read()[0]));
  ASSERT_EQ(RunKlDiv(rows0, rows0, kSum, false, out), ACLNN_SUCCESS);
  EXPECT_EQ(out.Read()[0], 0.0f);
  ASSERT_EQ(RunKlDiv(rows0, rows0, kBatchMean, true, out), ACLNN_SUCCESS);
  EXPECT_TRUE(std::isnan(out.Read()[0]));
  ASSERT_EQ(RunKlDiv(cols0, cols0, kBatchMean, true, out), ACLNN_SUCCESS);
  EXPECT_EQ(out.Read()[0], 0.0f);
  ASSERT_EQ(RunKlDiv(scalar, empty, kBatchMean, false, out), ACLNN_SUCCESS);
  EXPECT_EQ(out.Read()[0], 0.0f);
}

TEST(KlDivValues, NonContiguousTensorsAreReadInPlace) {
  // self is the transpose of a [10,5] storage; out a strided view of a [5,20] one.
  const std::vector<float> storage = LogProbabilities(50);
  DeviceTensor self({5, 10}, ACL_FLOAT, storage, {1, 5}, 0, {10, 5});
  DeviceTensor target({5, 10}, ACL_FLOAT, Targets(50, false));
  DeviceTensor out({5, 10}, ACL_FLOAT, std::vector<float>(100, -1.0f), {20, 2}, 1, {5, 20});
  ASSERT_EQ(RunKlDiv(self, target, kNone, false, out), ACLNN_SUCCESS);
  const std::vector<float> t = target.Read(), got = out.Read();
  for (int row = 0; row < 5; ++row) {
    for (int col = 0; col < 10; ++col) {
      const long double exact = KlLoss(storage[col * 5 + row], t[row * 10 + col], false);
      EXPECT_TRUE(CorrectlyRounded(got[row * 20 + 1 + 2 * col], exact, ACL_FLOAT));
      EXPECT_EQ(got[row * 20 + 2 * col], -1.0f);  // between the view's elements: untouched
    }
  }
}

// A repeatable executor follows new tensor addresses, and its results are bitwise repeatable.
TEST(KlDivValues, ARepeatableExecutorFollowsNewAddresses) {
  DeviceTensor first({8}, ACL_FLOAT, LogProbabilities(8)),
      second({8}, ACL_FLOAT, LogProbabilities(8, 2.5f));
  DeviceTensor target({8}, ACL_FLOAT, Targets(8, true)), out({}, ACL_FLOAT, {});
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnKlDivGetWorkspaceSize(first.get(), target.get(), kBatchMean, true, out.get(),
                                       &workspace_size, &executor),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
  void* workspace = nullptr;
  if (workspace_size > 0) aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST);
  const std::vector<float> t = target.Read();
  for (const DeviceTensor* self : {&first, &second, &first}) {
    ASSERT_EQ(aclSetInputTensorAddr(executor, 0, first.get(), self->device()), ACLNN_SUCCESS);
    ASSERT_EQ(aclnnKlDiv(workspace, workspace_size, executor, AclEnvironment::stream),
              ACLNN_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(AclEnvironment::stream), ACL_SUCCESS);
    const std::vector<float> x = self->Read();
    long double total = 0;
    for (int i = 0; i < 8; ++i) total += KlLoss(x[i], t[i], true);
    EXPECT_TRUE(CorrectlyRounded(out.Read()[0], total / 8, ACL_FLOAT));
  }
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
  if (workspace != nullptr) aclrtFree(workspace);
}

}  // namespace
}  // namespace openaclnn::testing
