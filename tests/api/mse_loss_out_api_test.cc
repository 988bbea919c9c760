// aclnnMseLossOut through its C API: CANN's UT cases (test_aclnn_mse_loss_out.cpp, 19 TEST_F) by
// their intent, OpenACLNN's decisions (docs/contract/checks-and-codes.md §18: the reduction over
// dimension 0, D9's empty and 0-D inputs), and values against the binary128 reference rounded
// once (mse_loss_reference.h).
#include "aclnnop/aclnn_mse_loss_out.h"

#include <cmath>
#include <limits>

#include "mse_loss_reference.h"
#include "op_tester.h"

namespace openaclnn::testing {
namespace {

using Api = SelfTargetLossApi<aclnnMseLossOutGetWorkspaceSize, aclnnMseLossOut>;

// The shape out has: the broadcast shape, without its first dimension for mean and sum.
Shape OutShape(const Shape& shape, int64_t reduction) {
  if (reduction == kNone || shape.empty()) return shape;
  return Shape(shape.begin() + 1, shape.end());
}

// Runs the op on contiguous self and target and compares every result with the reference.
void ExpectExact(const Shape& self_shape, aclDataType self_dtype, const std::vector<float>& x,
                 const Shape& target_shape, aclDataType target_dtype, const std::vector<float>& t,
                 int64_t reduction, aclDataType out_dtype) {
  const Shape shape = BroadcastOf(self_shape, target_shape);
  DeviceTensor self(self_shape, self_dtype, x), target(target_shape, target_dtype, t);
  DeviceTensor out(OutShape(shape, reduction), out_dtype, {});
  ASSERT_EQ(Api::Run(self, target, reduction, out), ACLNN_SUCCESS);
  const HostTensor xs = HostOf(self, self_shape), ts = HostOf(target, target_shape);
  const std::vector<float> expected =
      reduction == kNone ? ExpectedLosses(xs, ts, shape, out_dtype)
                         : ExpectedOverFirstDimension(xs, ts, shape, reduction, out_dtype);
  const std::vector<float> got = out.Read();
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_PRED2(SameValue, got[i], expected[i]) << "element " << i;
  }
}

// --- CANN's UT cases, by their intent ---

// aclnnMseLossOut_01_float_nd_none: broadcast inputs, none.
TEST(MseLossOutCann, BroadcastInputsGiveTheBroadcastShape) {
  ExpectExact({1, 2, 3, 2}, ACL_FLOAT, Spread(12, -1, 1), {2, 2, 1, 2}, ACL_FLOAT,
              Spread(8, -1, 1, 2), kNone, ACL_FLOAT);
}

// _02_float16_nchw_mean (out [3,2]), _03_float_float16_nhwc_sum and _04_float16_float_nhwc_mean
// (out [2]), ascend910B2_..._bf16_float_nhwc_mean: the mean or sum over dimension 0.
TEST(MseLossOutCann, MeansAndSumsReduceTheFirstDimension) {
  ExpectExact({2, 3, 2}, ACL_FLOAT16, Spread(12, -1, 1), {2, 3, 2}, ACL_FLOAT16,
              Spread(12, -1, 1, 3), kMean, ACL_FLOAT16);
  ExpectExact({2, 2}, ACL_FLOAT, Spread(4, -1, 1), {2, 2}, ACL_FLOAT16, Spread(4, -1, 1, 3), kSum,
              ACL_FLOAT);
  ExpectExact({2, 2}, ACL_FLOAT16, Spread(4, -1, 1), {2, 2}, ACL_FLOAT, Spread(4, -1, 1, 3), kMean,
              ACL_FLOAT);
  ExpectExact({2, 2}, ACL_BF16, Spread(4, -1, 1), {2, 2}, ACL_BF16, Spread(4, -1, 1, 3), kMean,
              ACL_BF16);
  const ScopedSocVersion profile("Ascend310P3");
  DeviceTensor bf16({2, 2}, ACL_BF16, {}), out({2}, ACL_BF16, {});
  EXPECT_EQ(Api::Plan(bf16, bf16, kMean, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(
      ErrorMentions("the promoted dtype DT_BF16 of self and target is not supported on "
                    "Ascend310P3"));
}

// _05/_06/_07: [1,0,1,2] (out [0,1,2] for mean and sum): success, workspace 0, nothing to write.
TEST(MseLossOutCann, EmptyInputsSucceedWithNothingToWrite) {
  const Shape empty{1, 0, 1, 2};
  DeviceTensor self(empty, ACL_FLOAT, {}), none(empty, ACL_FLOAT, {}),
      reduced({0, 1, 2}, ACL_FLOAT, {});
  for (int64_t reduction : {kNone, kMean, kSum}) {
    uint64_t workspace_size = 1;
    const DeviceTensor& out = reduction == kNone ? none : reduced;
    EXPECT_EQ(Api::Plan(self.get(), self.get(), reduction, out.get(), &workspace_size),
              ACLNN_SUCCESS);
    EXPECT_EQ(workspace_size, 0u);
    EXPECT_EQ(Api::Run(self, self, reduction, out), ACLNN_SUCCESS);
  }
}

// _11_float_hwcn_input_not_contiguous and _12_float_ncdhw_out_not_contiguous: views in place, for
// a sum over dimension 0 into a strided out too.
TEST(MseLossOutCann, NonContiguousInputsAndOutAreUsedInPlace) {
  const std::vector<float> x = Spread(20, -2, 2), t = Spread(20, -2, 2, 7);
  DeviceTensor self({5, 4}, ACL_FLOAT, x, {1, 5}, 0, {4, 5});
  DeviceTensor target({5, 4}, ACL_FLOAT, t);
  DeviceTensor none({5, 4}, ACL_FLOAT, std::vector<float>(20, -1), {1, 5}, 0, {4, 5});
  DeviceTensor sum({4}, ACL_FLOAT, std::vector<float>(8, -1), {2}, 1, {8});
  ASSERT_EQ(Api::Run(self, target, kNone, none), ACLNN_SUCCESS);
  ASSERT_EQ(Api::Run(self, target, kSum, sum), ACLNN_SUCCESS);
  const std::vector<float> got = none.Read(), sums = sum.Read();
  for (int col = 0; col < 4; ++col) {
    MseTotal column;
    for (int row = 0; row < 5; ++row) {
      const Term term = MseTerm(x[col * 5 + row], t[row * 4 + col], nullptr);
      MseTotal one;
      one.Add(term);
      column.Add(term);
      EXPECT_EQ(got[col * 5 + row], one.RoundedTo(1, ACL_FLOAT)) << row << "," << col;
    }
    EXPECT_EQ(sums[1 + 2 * col], column.RoundedTo(1, ACL_FLOAT)) << col;
    EXPECT_EQ(sums[2 * col], -1.0f);  // between the view's elements: untouched
  }
}

// _13_reduction_error and _14_input_out_nullptr.
TEST(MseLossOutCann, BadReductionIs161002AndNullTensors161001) {
  DeviceTensor tensor({8}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(tensor, tensor, 3, tensor), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("aclnnMseLossOut: reduction is 3; Reduction only support [0, 1, 2]"));
  EXPECT_EQ(Api::Plan(nullptr, tensor.get(), kNone, tensor.get()), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(
      ErrorMentions("aclnnMseLossOut: Expected a proper Tensor but got null for argument "
                    "self."));
  EXPECT_EQ(Api::Plan(tensor.get(), nullptr, kNone, tensor.get()), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("got null for argument target."));
  EXPECT_EQ(Api::Plan(tensor.get(), tensor.get(), kNone, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("got null for argument out."));
}

// _16_error_output_dtype, _17_error_input_dtype, _18_input_error_shape_len.
TEST(MseLossOutCann, IntegerDtypesAndRankNineAre161002) {
  DeviceTensor self({8, 2}, ACL_FLOAT, {}), int_out({8, 2}, ACL_INT32, {});
  EXPECT_EQ(Api::Plan(self, self, kNone, int_out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("out has dtype DT_INT32"));
  DeviceTensor ints({6, 2, 1, 2}, ACL_INT32, {}), shorts({6, 2, 1, 2}, ACL_INT16, {}),
      out({6, 2, 1, 2}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(ints, shorts, kNone, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("the promoted dtype DT_INT32 of self and target"));
  DeviceTensor nine({2, 1, 1, 1, 1, 1, 1, 1, 2}, ACL_FLOAT, {}), low({1, 2}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(low, nine, kSum, low), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("target (DT_FLOAT [2,1,1,1,1,1,1,1,2]) has rank 9; at most 8"));
}

// _19_float_hwcn_ndhwc_mean: mixed formats, out [2].
TEST(MseLossOutCann, FormatsAreTags) {
  DeviceTensor memory({2, 2}, ACL_FLOAT, {0, 1, 2, 3}), result({2}, ACL_FLOAT, {});
  FormattedTensor self({2, 2}, ACL_FLOAT, ACL_FORMAT_HWCN, memory.device()),
      target({2, 2}, ACL_FLOAT, ACL_FORMAT_NDHWC, memory.device()),
      out({2}, ACL_FLOAT, ACL_FORMAT_ND, result.device());
  EXPECT_EQ(Api::Plan(self.get(), target.get(), kMean, out.get()), ACLNN_SUCCESS);
}

// _20_output_error_shape_none ([123,8,2] for [8,2]) and _21_output_error_shape_mean (0-D for
// [8,2]: the mean keeps [2]).
TEST(MseLossOutCann, OutOfAnotherShapeIs161002) {
  DeviceTensor self({8, 2}, ACL_FLOAT, {}), big({123, 8, 2}, ACL_FLOAT, {}),
      scalar({}, ACL_FLOAT, {}), two({2}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(self, self, kNone, big), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(
      ErrorMentions("out shape [123,8,2] must be the broadcast shape of self and target, "
                    "[8,2]."));
  EXPECT_EQ(Api::Plan(self, self, kMean, scalar), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(
      ErrorMentions("aclnnMseLossOut: out shape [] must be the broadcast shape of self and "
                    "target without its first dimension (reduction mean or sum), [2]."));
  EXPECT_EQ(Api::Plan(self, self, kSum, two), ACLNN_SUCCESS);
}

// --- OpenACLNN's decisions ---

TEST(MseLossOutChecks, NullWorkspaceSizeOrExecutorIs161001First) {
  uint64_t workspace_size = 0;
  EXPECT_EQ(aclnnMseLossOutGetWorkspaceSize(nullptr, nullptr, 9, nullptr, &workspace_size, nullptr),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("aclnnMseLossOut: executor is nullptr."));
}

// The dim-0 shape is B's, the broadcast shape's: a target that enlarges self's first dimension
// enlarges what is summed; a one-element target ([1], 40 of CANN's ATK cases) broadcasts.
TEST(MseLossOutChecks, OutShapeFollowsTheBroadcastShape) {
  DeviceTensor self({1, 4}, ACL_FLOAT, {}), target({3, 4}, ACL_FLOAT, {}), four({4}, ACL_FLOAT, {}),
      one({1}, ACL_FLOAT, {}), three_four({3, 4}, ACL_FLOAT, {});
  EXPECT_EQ(Api::Plan(self, target, kMean, four), ACLNN_SUCCESS);
  EXPECT_EQ(Api::Plan(target, one, kSum, four), ACLNN_SUCCESS);
  EXPECT_EQ(Api::Plan(self, target, kNone, three_four), ACLNN_SUCCESS);
  EXPECT_EQ(Api::Plan(self, target, kNone, self), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(
      ErrorMentions("out shape [1,4] must be the broadcast shape of self and target, "
                    "[3,4]."));
}

TEST(MseLossOutValues, FirstDimensionOfTheBroadcastShape) {
  // target enlarges dimension 0; a one-element target; a column target; rank 1 (out 0-D).
  ExpectExact({1, 4}, ACL_FLOAT, Spread(4, -1, 1), {3, 4}, ACL_FLOAT, Spread(12, -1, 1, 2), kMean,
              ACL_FLOAT);
  ExpectExact({6, 5}, ACL_FLOAT16, Spread(30, -1, 1), {1}, ACL_BF16, {0.375f}, kSum, ACL_FLOAT);
  ExpectExact({7, 3, 5}, ACL_BF16, Spread(105, -1, 1), {3, 1}, ACL_FLOAT, Spread(3, -1, 1, 4),
              kMean, ACL_BF16);
  ExpectExact({33}, ACL_FLOAT, Spread(33, -1, 1), {33}, ACL_FLOAT, Spread(33, -1, 1, 5), kMean,
              ACL_FLOAT);
  // Rank 8: out has rank 7.
  ExpectExact({3, 1, 2, 1, 2, 1, 2, 2}, ACL_FLOAT, Spread(48, -1, 1), {2, 1, 1, 2}, ACL_FLOAT,
              Spread(4, -1, 1, 6), kSum, ACL_FLOAT16);
}

// Long columns (many blocks each) and many short ones.
TEST(MseLossOutValues, LongAndShortColumns) {
  ExpectExact({5003, 7}, ACL_FLOAT, Spread(5003 * 7, -3, 3), {7}, ACL_FLOAT, Spread(7, -3, 3, 2),
              kMean, ACL_FLOAT);
  ExpectExact({3, 20011}, ACL_FLOAT16, Spread(3 * 20011, -3, 3), {3, 20011}, ACL_FLOAT16,
              Spread(3 * 20011, -3, 3, 2), kSum, ACL_FLOAT16);
}

// D9: a 0-D input's mean or sum "over dimension 0" is its one loss (torch's mean(dim=0) of a 0-D
// tensor); out is 0-D.
TEST(MseLossOutValues, ZeroDInputsGiveTheirOneLoss) {
  for (int64_t reduction : {kNone, kMean, kSum}) {
    ExpectExact({}, ACL_FLOAT, {2.5f}, {}, ACL_FLOAT16, {-0.5f}, reduction, ACL_FLOAT);
  }
}

// D9: where B[0] = 0, out (B[1:], not empty) is filled: NaN for mean, 0 for sum, as torch's
// mean(0) and sum(0) (CANN writes nothing); an empty out stays so.
TEST(MseLossOutValues, EmptyFirstDimensionFillsOut) {
  DeviceTensor self({0, 3}, ACL_FLOAT, {}), target({3}, ACL_FLOAT, {1, 2, 3});
  DeviceTensor mean({3}, ACL_FLOAT16, {7, 7, 7}), sum({3}, ACL_BF16, {7, 7, 7});
  uint64_t workspace_size = 1;
  EXPECT_EQ(Api::Plan(self.get(), target.get(), kMean, mean.get(), &workspace_size), ACLNN_SUCCESS);
  EXPECT_EQ(workspace_size, 0u);
  ASSERT_EQ(Api::Run(self, target, kMean, mean), ACLNN_SUCCESS);
  ASSERT_EQ(Api::Run(self, target, kSum, sum), ACLNN_SUCCESS);
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(std::isnan(mean.Read()[i])) << i;
    EXPECT_EQ(sum.Read()[i], 0.0f) << i;
  }
}

// A column with an infinity is +inf, one with a NaN or inf - inf NaN; the others are untouched by
// them.
TEST(MseLossOutValues, SpecialValuesStayInTheirColumn) {
  const float inf = std::numeric_limits<float>::infinity();
  DeviceTensor self({2, 4}, ACL_FLOAT, {inf, NAN, inf, 1, 2, 3, 4, 5});
  DeviceTensor target({2, 4}, ACL_FLOAT, {0, 0, inf, 0, 0, 0, 0, 0}), out({4}, ACL_FLOAT, {});
  ASSERT_EQ(Api::Run(self, target, kSum, out), ACLNN_SUCCESS);
  const std::vector<float> got = out.Read();
  EXPECT_EQ(got[0], inf);
  EXPECT_TRUE(std::isnan(got[1]));
  EXPECT_TRUE(std::isnan(got[2]));
  EXPECT_EQ(got[3], 26.0f);
}

// CANN's sample: self [2,2] = 0..3, target 1, mean over dimension 0: [(1 + 1) / 2, (0 + 4) / 2].
TEST(MseLossOutValues, CannsSampleGivesItsDigits) {
  DeviceTensor self({2, 2}, ACL_FLOAT, {0, 1, 2, 3}), target({2, 2}, ACL_FLOAT, {1, 1, 1, 1}),
      out({2}, ACL_FLOAT, {});
  ASSERT_EQ(Api::Run(self, target, kMean, out), ACLNN_SUCCESS);
  EXPECT_EQ(out.Read(), (std::vector<float>{1.0f, 2.0f}));
}

}  // namespace
}  // namespace openaclnn::testing
