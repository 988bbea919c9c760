// aclnnMseLoss through its C API: CANN's UT cases (test_aclnn_mse_loss.cpp, 37 TEST_F: 18 cases on
// the default SoC and again on Ascend910B2) by their intent, OpenACLNN's decisions
// (docs/contract/checks-and-codes.md §17), every check's status code, order and message, and
// values against the binary128 reference rounded once (mse_loss_reference.h).
#include "aclnnop/aclnn_mse_loss.h"

#include <cmath>
#include <limits>

#include "mse_loss_reference.h"
#include "op_tester.h"

namespace openaclnn::testing {
namespace {

using Api = SelfTargetLossApi<aclnnMseLossGetWorkspaceSize, aclnnMseLoss>;

// Runs the op on contiguous self and target and compares every result with the reference.
void ExpectExact(const Shape& self_shape, aclDataType self_dtype, const std::vector<float>& x,
                 const Shape& target_shape, aclDataType target_dtype, const std::vector<float>& t,
                 int64_t reduction, aclDataType out_dtype) {
  const Shape shape = BroadcastOf(self_shape, target_shape);
  DeviceTensor self(self_shape, self_dtype, x), target(target_shape, target_dtype, t);
  DeviceTensor out(reduction == kNone ? shape : Shape{}, out_dtype, {});
  ASSERT_EQ(Api::Run(self, target, reduction, out), ACLNN_SUCCESS);
  const HostTensor xs = HostOf(self, self_shape), ts = HostOf(target, target_shape);
  const std::vector<float> got = out.Read();
  if (reduction != kNone) {
    EXPECT_PRED2(SameValue, got[0], ExpectedTotal(xs, ts, shape, reduction, out_dtype));
    return;
  }
  const std::vector<float> expected = ExpectedLosses(xs, ts, shape, out_dtype);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_PRED2(SameValue, got[i], expected[i]) << "element " << i;
  }
}

// --- CANN's UT cases, by their intent (each ran on the default SoC and on Ascend910B2) ---

// aclnnMseLoss_01_float_nd_none: self [1,2,3,2] and target [2,2,1,2] broadcast to [2,2,3,2].
TEST(MseLossCann, BroadcastInputsGiveTheBroadcastShape) {
  for (const char* soc : {"Ascend910B", "Ascend910B2"}) {
    const ScopedSocVersion profile(soc);
    ExpectExact({1, 2, 3, 2}, ACL_FLOAT, Spread(12, -1, 1), {2, 2, 1, 2}, ACL_FLOAT,
                Spread(8, -1, 1, 2), kNone, ACL_FLOAT);
  }
}

// _02_float16_nchw_mean and the bf16 mean of Ascend910B2; bf16 needs a SoC that has it.
TEST(MseLossCann, Fp16AndBf16MeansAreAcceptedWhereTheSocHasThem) {
  ExpectExact({2, 3, 2}, ACL_FLOAT16, Spread(12, -1, 1), {2, 3, 2}, ACL_FLOAT16,
              Spread(12, -1, 1, 3), kMean, ACL_FLOAT16);
  ExpectExact({2, 3, 2}, ACL_BF16, Spread(12, -1, 1), {2, 3, 2}, ACL_BF16, Spread(12, -1, 1, 3),
              kMean, ACL_BF16);
  const ScopedSocVersion profile("Ascend910A");
  DeviceTensor self({2, 3, 2}, ACL_BF16, {}), out({}, ACL_BF16, {}), half({}, ACL_FLOAT16, {});
  EXPECT_EQ(Api::Plan(self, self, kMean, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(
      ErrorMentions("aclnnMseLoss: the promoted dtype DT_BF16 of self and target is not "
                    "supported on Ascend910A; supported: DT_FLOAT, DT_FLOAT16."));
  DeviceTensor fp16({2, 3, 2}, ACL_FLOAT16, {});
  EXPECT_EQ(Api::Plan(fp16, fp16, kMean, half), ACLNN_SUCCESS);
  EXPECT_EQ(Api::Plan(fp16, fp16, kMean, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("out has dtype DT_BF16"));
}

// _03_float_float16_nhwc_sum and _04_float16_float_nhwc_mean: mixed dtypes promote to fp32.
TEST(MseLossCann, MixedDtypesPromote) {
  ExpectExact({2, 2}, ACL_FLOAT, Spread(4, -1, 1), {2, 2}, ACL_FLOAT16, Spread(4, -1, 1, 5), kSum,
              ACL_FLOAT);
  ExpectExact({2, 2}, ACL_FLOAT16, Spread(4, -1, 1), {2, 2}, ACL_FLOAT, Spread(4, -1, 1, 5), kMean,
              ACL_FLOAT);
}

// _05/_06/_07 empty tensors: success with workspace 0; mean writes NaN, sum 0, none nothing.
TEST(MseLossCann, EmptyInputsFillMeanAndSum) {
  const Shape empty{1, 0, 1, 2};
  DeviceTensor self(empty, ACL_FLOAT, {}), none(empty, ACL_FLOAT, {});
  DeviceTensor mean({}, ACL_FLOAT, {7.0f}), sum({}, ACL_FLOAT, {7.0f});
  uint64_t workspace_size = 1;
  EXPECT_EQ(Api::Plan(self.get(), self.get(), kNone, none.get(), &workspace_size), ACLNN_SUCCESS);
  EXPECT_EQ(workspace_size, 0u);
  EXPECT_EQ(Api::Plan(self.get(), self.get(), kMean, mean.get(), &workspace_size), ACLNN_SUCCESS);
  EXPECT_EQ(workspace_size, 0u);
  ASSERT_EQ(Api::Run(self, self, kNone, none), ACLNN_SUCCESS);
  ASSERT_EQ(Api::Run(self, self, kMean, mean), ACLNN_SUCCESS);
  EXPECT_TRUE(std::isnan(mean.Read()[0]));
  ASSERT_EQ(Api::Run(self, self, kSum, sum), ACLNN_SUCCESS);
  EXPECT_EQ(sum.Read()[0], 0.0f);
  // Only one input empty: the broadcast shape is empty too.
  DeviceTensor row({1, 2}, ACL_FLOAT, {1, 2}), total({}, ACL_FLOAT16, {7.0f});
  ASSERT_EQ(Api::Run(self, row, kSum, total), ACLNN_SUCCESS);
  EXPECT_EQ(total.Read()[0], 0.0f);
}

// _11_float_ncdhw_mean and _19_float_hwcn_ndhwc_mean: formats are tags, mixed ones too.
TEST(MseLossCann, FormatsAreAcceptedMixedOrNot) {
  const Shape shape{2, 2};
  DeviceTensor memory(shape, ACL_FLOAT, {0, 1, 2, 3}), result({}, ACL_FLOAT, {});
  for (aclFormat format : {ACL_FORMAT_NCDHW, ACL_FORMAT_HWCN, ACL_FORMAT_NHWC, ACL_FORMAT_NCHW,
                           ACL_FORMAT_FRACTAL_NZ}) {
    SCOPED_TRACE(format);
    FormattedTensor self(shape, ACL_FLOAT, format, memory.device()),
        target(shape, ACL_FLOAT, ACL_FORMAT_NDHWC, memory.device()),
        out({}, ACL_FLOAT, ACL_FORMAT_ND, result.device());
    EXPECT_EQ(Api::Plan(self.get(), target.get(), kMean, out.get()), ACLNN_SUCCESS);
  }
}

// _12_float_hwcn_input_not_contiguous: transposed views are read in place.
TEST(MseLossCann, NonContiguousInputsAreReadInPlace) {
  const std::vector<float> x = Spread(20, -2, 2), t = Spread(20, -2, 2, 7);
  DeviceTensor self({5, 4}, ACL_FLOAT, x, {1, 5}, 0, {4, 5});
  DeviceTensor target({5, 4}, ACL_FLOAT, t, {1, 5}, 0, {4, 5}), out({5, 4}, ACL_FLOAT, {});
  ASSERT_EQ(Api::Run(self, target, kNone, out), ACLNN_SUCCESS);
  const std::vector<float> got = out.Read();
  for (int row = 0; row < 5; ++row) {
    for (int col = 0; col < 4; ++col) {
      MseTotal one;
      one.Add(MseTerm(x[col * 5 + row], t[col * 5 + row], nullptr));
      EXPECT_EQ(got[row * 4 + col], one.RoundedTo(1, ACL_FLOAT)) << row << "," << col;
    }
  }
}

// _13_reduction_error.
TEST(MseLossCann, ReductionOutsideZeroToTwoIs161002) {
  DeviceTensor self({8}, ACL_FLOAT, {}), out({8}, ACL_FLOAT, {});
  for (int64_t reduction : {int64_t{3}, int64_t{-1}, std::numeric_limits<int64_t>::max()}) {
    EXPECT_EQ(Api::Plan(self, self, reduction, out), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(ErrorMentions("Reduction only support [0, 1, 2]"));
  }
}

// _14_input_out_nullptr.
TEST(MseLossCann, NullTensorsAre161001InParameterOrder) {
  DeviceTensor tensor({10, 5}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(nullptr, tensor.get(), kNone, tensor.get()), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(
      ErrorMentions("aclnnMseLoss: Expected a proper Tensor but got null for argument self."));
  EXPECT_EQ(Api::Plan(tensor.get(), nullptr, kNone, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("got null for argument target."));
  EXPECT_EQ(Api::Plan(tensor.get(), tensor.get(), kNone, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("got null for argument out."));
}

// _15_input_error_shape expects nothing (equal shapes); _16_error_output_dtype: an int32 out.
TEST(MseLossCann, IntegerOutIs161002) {
  DeviceTensor self({8, 2}, ACL_FLOAT, {}), out({8, 2}, ACL_INT32, {}), good({8, 2}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(self, self, kNone, good), ACLNN_SUCCESS);
  EXPECT_EQ(Api::Plan(self, self, kNone, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(
      ErrorMentions("aclnnMseLoss: out has dtype DT_INT32 (3), which Ascend910B does not "
                    "support; supported: DT_FLOAT, DT_FLOAT16, DT_BF16."));
}

// _17_error_input_dtype: int32 and int16 promote to int32, which is not in the list.
TEST(MseLossCann, IntegerInputsAre161002) {
  DeviceTensor self({8, 2}, ACL_INT32, {}), target({8, 2}, ACL_INT16, {}),
      out({8, 2}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(self, target, kNone, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("the promoted dtype DT_INT32 of self and target is not supported"));
}

// _18_input_error_shape_len: rank 9 self or target (CANN's case has integer dtypes too, which
// fail first; the rank alone here).
TEST(MseLossCann, RankNineIs161002) {
  const Shape nine{2, 1, 1, 1, 1, 1, 1, 1, 2}, four{1, 1, 1, 2};
  DeviceTensor high(nine, ACL_FLOAT, {}), low(four, ACL_FLOAT, {}), out(four, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(high, low, kNone, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("self (DT_FLOAT [2,1,1,1,1,1,1,1,2]) has rank 9; at most 8"));
  EXPECT_EQ(Api::Plan(low, high, kNone, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("target (DT_FLOAT [2,1,1,1,1,1,1,1,2]) has rank 9"));
  DeviceTensor ints(nine, ACL_INT32, {}), shorts(four, ACL_INT16, {});
  EXPECT_EQ(Api::Plan(ints, shorts, kNone, shorts), ACLNN_ERR_PARAM_INVALID);
}

// _20_output_error_shape_none.
TEST(MseLossCann, NoneOutOfAnotherShapeIs161002) {
  DeviceTensor self({11, 2}, ACL_FLOAT, {}), out({8, 2}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(self, self, kNone, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions(
      "aclnnMseLoss: out shape [8,2] must be the broadcast shape of self and target, [11,2]."));
}

// _21_output_error_shape_mean: out [2]; and [1], which CANN refuses too (D10): only 0-D.
TEST(MseLossCann, MeanOrSumOutMustBeZeroD) {
  DeviceTensor self({11, 2}, ACL_FLOAT, {}), two({2}, ACL_FLOAT, {}), one({1}, ACL_FLOAT, {}),
      scalar({}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(self, self, kMean, two), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("out must be 0-D (shape []), but its shape is [2]."));
  EXPECT_EQ(Api::Plan(self, self, kSum, one), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("but its shape is [1]."));
  EXPECT_EQ(Api::Plan(self, self, kSum, scalar), ACLNN_SUCCESS);
}

// --- OpenACLNN's checks and their order (checks-and-codes.md §17) ---

// As CANN's OP_CHECK_COMM_INPUT: before any tensor is looked at.
TEST(MseLossChecks, NullWorkspaceSizeOrExecutorIs161001First) {
  aclOpExecutor* executor = nullptr;
  uint64_t workspace_size = 0;
  EXPECT_EQ(aclnnMseLossGetWorkspaceSize(nullptr, nullptr, 7, nullptr, nullptr, &executor),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("aclnnMseLoss: workspaceSize is nullptr."));
  EXPECT_EQ(aclnnMseLossGetWorkspaceSize(nullptr, nullptr, 7, nullptr, &workspace_size, nullptr),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("aclnnMseLoss: executor is nullptr."));
}

// Nulls, dtypes (promoted, self, target, out), reduction, ranks and views, broadcast, out shape.
TEST(MseLossChecks, ChecksRunInCannsOrder) {
  DeviceTensor fp32({3}, ACL_FLOAT, {}), fp64({3}, ACL_DOUBLE, {}), wide({4}, ACL_FLOAT, {}),
      bad_out({5}, ACL_FLOAT, {}), int_out({3}, ACL_INT64, {});
  EXPECT_EQ(Api::Plan(fp32, fp64, 9, bad_out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("the promoted dtype DT_DOUBLE of self and target"));
  EXPECT_EQ(Api::Plan(fp32, fp32, 9, int_out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("out has dtype DT_INT64"));
  EXPECT_EQ(Api::Plan(fp32, wide, 9, bad_out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("reduction is 9"));
  EXPECT_EQ(Api::Plan(fp32, wide, kNone, bad_out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("self shape [3] and target shape [4] cannot broadcast"));
}

// The promoted dtype first: self fp16 with target double promotes to double; an unsigned 16-bit
// integer promotes with nothing (CANN's PromoteType has no such pair).
TEST(MseLossChecks, PromotedDtypeIsCheckedBeforeEachTensors) {
  DeviceTensor half({3}, ACL_FLOAT16, {}), fp64({3}, ACL_DOUBLE, {}), u16({3}, ACL_UINT16, {}),
      out({3}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(half, fp64, kNone, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("the promoted dtype DT_DOUBLE of self and target is not supported"));
  EXPECT_EQ(Api::Plan(u16, half, kNone, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("self and target dtypes DT_UINT16 and DT_FLOAT16 cannot be promoted"));
}

// No minimum rank: 0-D tensors everywhere; rank 8 with broadcasting.
TEST(MseLossChecks, RanksZeroToEightAreAccepted) {
  ExpectExact({}, ACL_FLOAT, {1.5f}, {}, ACL_FLOAT, {-0.25f}, kNone, ACL_FLOAT);
  ExpectExact({}, ACL_FLOAT, {1.5f}, {3}, ACL_FLOAT, {-0.25f, 1, 4}, kMean, ACL_FLOAT);
  ExpectExact({2, 1, 2, 1, 2, 1, 2, 1}, ACL_FLOAT, Spread(16, -1, 1), {3, 1, 1, 1, 1, 1, 2},
              ACL_FLOAT, Spread(6, -1, 1, 9), kNone, ACL_FLOAT);
}

TEST(MseLossChecks, ViewsOutsideTheirStorageAre161002) {
  DeviceTensor self({4, 4}, ACL_FLOAT, {}, {5, 1}, 0, {16}), target({4, 4}, ACL_FLOAT, {}),
      out({4, 4}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(self, target, kNone, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("the view of self"));
  EXPECT_EQ(Api::Plan(target, target, kNone, self), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("the view of out"));
}

// --- Values: the exact value rounded once ---

struct ValueCase {
  Shape self_shape, target_shape;
  aclDataType self_dtype, target_dtype, out_dtype;
  int64_t reduction;
};

class MseLossValues : public ::testing::TestWithParam<ValueCase> {};

TEST_P(MseLossValues, AreTheExactValueRoundedOnce) {
  const ValueCase c = GetParam();
  ExpectExact(c.self_shape, c.self_dtype, Spread(Count(c.self_shape), -3, 3), c.target_shape,
              c.target_dtype, Spread(Count(c.target_shape), -3, 3, 4), c.reduction, c.out_dtype);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MseLossValues,
    ::testing::Values(
        ValueCase{{7, 9}, {7, 9}, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, kNone},
        ValueCase{{3, 1000}, {3, 1000}, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, kMean},
        ValueCase{{5000}, {1}, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, kSum},
        ValueCase{{64, 70}, {70}, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16, kMean},
        ValueCase{{3, 4, 5}, {4, 1}, ACL_BF16, ACL_BF16, ACL_BF16, kNone},
        ValueCase{{9000}, {9000}, ACL_BF16, ACL_BF16, ACL_BF16, kSum},
        // Mixed inputs (computed exactly, as CANN computes them in fp32) and outs of any dtype.
        ValueCase{{6, 50}, {6, 1}, ACL_FLOAT16, ACL_BF16, ACL_FLOAT, kMean},
        ValueCase{{6, 50}, {50}, ACL_BF16, ACL_FLOAT, ACL_FLOAT16, kNone},
        ValueCase{{40, 100}, {40, 100}, ACL_FLOAT, ACL_FLOAT, ACL_BF16, kSum},
        // Many blocks of a mean, over the thread pool: one rounding of the whole sum.
        ValueCase{{100003}, {100003}, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT16, kMean},
        ValueCase{{17, 1, 4099}, {3, 1}, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, kSum}));

// Where a loss lies just beside a midpoint of a narrower out: x = 1 + 2^-12 gives
// d^2 = 1 + 2^-11 + 2^-24, above fp16's midpoint 1 + 2^-11 by less than fp32 can hold; an fp32
// result rounded again to fp16 would tie to 1, the exact value rounds up to 1 + 2^-10. Ties:
// d^2 exactly an fp32 midpoint goes to even.
TEST(MseLossValues, NearMidpointsRoundAsTheExactValue) {
  const float x = 1 + 0x1p-12f;
  DeviceTensor self({1}, ACL_FLOAT, {x}), zero({1}, ACL_FLOAT, {0}), half({}, ACL_FLOAT16, {}),
      single({}, ACL_FLOAT, {});
  ASSERT_EQ(Api::Run(self, zero, kSum, half), ACLNN_SUCCESS);
  EXPECT_EQ(half.Read()[0], 1 + 0x1p-10f);
  ASSERT_EQ(Api::Run(self, zero, kSum, single), ACLNN_SUCCESS);
  EXPECT_EQ(single.Read()[0], 1 + 0x1p-11f);  // the tie 1 + 2^-11 + 2^-24, to even
  // A mean's total beside a midpoint of fp16 in the same way.
  ExpectExact({4}, ACL_FLOAT, {x, x, x, 0x1p-12f}, {1}, ACL_FLOAT, {0}, kMean, ACL_FLOAT16);
}

// IEEE's classes where an input is not finite; exact values beyond fp32's range.
TEST(MseLossValues, SpecialAndExtremeInputs) {
  const float inf = std::numeric_limits<float>::infinity(), nan = NAN;
  const std::vector<float> x = {inf, inf, -inf, nan, 1, 3e38f, 0x1p-149f, -0.0f, 2};
  const std::vector<float> t = {inf, 1, -3, 0, -inf, -3e38f, 0, 0.0f, 2};
  const float expected[] = {nan, inf, inf, nan, inf, inf, 0, 0, 0};
  const Shape shape{static_cast<int64_t>(x.size())};
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    SCOPED_TRACE(dtype);
    DeviceTensor self(shape, ACL_FLOAT, x), target(shape, ACL_FLOAT, t), out(shape, dtype, {});
    ASSERT_EQ(Api::Run(self, target, kNone, out), ACLNN_SUCCESS);
    const std::vector<float> got = out.Read();
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_PRED2(SameValue, got[i], expected[i]) << i;
      EXPECT_FALSE(std::signbit(got[i]) && !std::isnan(got[i])) << i;  // the loss's zero is +0
    }
  }
  // 16-bit inputs carry their infinities and NaN too; a sum with one infinity is +inf, with a NaN
  // or inf - inf NaN.
  DeviceTensor half({3}, ACL_FLOAT16, {}), zeros({3}, ACL_FLOAT16, {0, 0, 0}),
      sum({}, ACL_FLOAT, {});
  UploadWithSpecials(half, ACL_FLOAT16, {1, -inf, 2});
  ASSERT_EQ(Api::Run(half, zeros, kSum, sum), ACLNN_SUCCESS);
  EXPECT_EQ(sum.Read()[0], inf);
  UploadWithSpecials(half, ACL_FLOAT16, {1, nan, 2});
  ASSERT_EQ(Api::Run(half, zeros, kMean, sum), ACLNN_SUCCESS);
  EXPECT_TRUE(std::isnan(sum.Read()[0]));
}

// A repeatable executor follows new tensor addresses (the contract every op keeps).
TEST(MseLossValues, ARepeatableExecutorFollowsNewAddresses) {
  DeviceTensor first({8}, ACL_FLOAT, Spread(8, -1, 1)), second({8}, ACL_FLOAT, Spread(8, -1, 1, 5));
  DeviceTensor target({8}, ACL_FLOAT, Spread(8, -1, 1, 6)), out({}, ACL_FLOAT, {});
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnMseLossGetWorkspaceSize(first.get(), target.get(), kMean, out.get(),
                                         &workspace_size, &executor),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
  void* workspace = nullptr;
  if (workspace_size > 0) aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST);
  for (const DeviceTensor* self : {&first, &second, &first}) {
    ASSERT_EQ(aclSetInputTensorAddr(executor, 0, first.get(), self->device()), ACLNN_SUCCESS);
    ASSERT_EQ(aclnnMseLoss(workspace, workspace_size, executor, AclEnvironment::stream),
              ACLNN_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(AclEnvironment::stream), ACL_SUCCESS);
    EXPECT_EQ(out.Read()[0],
              ExpectedTotal(HostOf(*self, {8}), HostOf(target, {8}), {8}, kMean, ACL_FLOAT));
  }
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
  if (workspace != nullptr) aclrtFree(workspace);
}

// CANN's sample: self [2,2] = 0..3, target 1, mean: (1 + 0 + 1 + 4) / 4.
TEST(MseLossValues, CannsSampleGivesItsDigits) {
  DeviceTensor self({2, 2}, ACL_FLOAT, {0, 1, 2, 3}), target({2, 2}, ACL_FLOAT, {1, 1, 1, 1}),
      out({}, ACL_FLOAT, {});
  ASSERT_EQ(Api::Run(self, target, kMean, out), ACLNN_SUCCESS);
  EXPECT_EQ(out.Read()[0], 1.5f);
}

}  // namespace
}  // namespace openaclnn::testing
