// aclnnMseLossBackward through its C API: CANN's UT cases (test_aclnn_mse_loss_backward.cpp, 20
// TEST_F) by their intent, OpenACLNN's decisions (docs/contract/checks-and-codes.md §19; D4: a
// mean divides by the element count of broadcast(self, target)), every check's status code and
// message, and values against the binary128 reference rounded once (mse_loss_reference.h).
#include "aclnnop/aclnn_mse_loss_backward.h"

#include <cmath>
#include <limits>
#include <string>

#include "mse_loss_reference.h"
#include "op_tester.h"

namespace openaclnn::testing {
namespace {

// The arguments of one call, as aclTensor pointers (null for an absent one).
struct Call {
  const aclTensor* grad = nullptr;
  const aclTensor* self = nullptr;
  const aclTensor* target = nullptr;
  int64_t reduction = kNone;
  aclTensor* out = nullptr;
};

aclnnStatus Phase1(const Call& c, uint64_t* workspace_size, aclOpExecutor** executor) {
  return aclnnMseLossBackwardGetWorkspaceSize(c.grad, c.self, c.target, c.reduction, c.out,
                                              workspace_size, executor);
}

aclnnStatus Plan(const Call& c, uint64_t* workspace_size = nullptr) {
  return PlanOnly([&](uint64_t* size, aclOpExecutor** e) { return Phase1(c, size, e); },
                  workspace_size);
}

aclnnStatus RunOp(const Call& c) {
  return RunPhases([&](uint64_t* size, aclOpExecutor** e) { return Phase1(c, size, e); },
                   aclnnMseLossBackward);
}

// Runs the op on contiguous inputs and compares every result with the reference, whose mean
// divides by numel(broadcast(self, target)) (D4).
void ExpectExact(const Shape& grad_shape, const Shape& self_shape, const Shape& target_shape,
                 aclDataType dtype, int64_t reduction, aclDataType out_dtype) {
  const Shape shape = BroadcastOf(grad_shape, BroadcastOf(self_shape, target_shape));
  DeviceTensor grad(grad_shape, dtype, Spread(Count(grad_shape), -2, 2, 8));
  DeviceTensor self(self_shape, dtype, Spread(Count(self_shape), -3, 3));
  DeviceTensor target(target_shape, dtype, Spread(Count(target_shape), -3, 3, 5));
  DeviceTensor out(shape, out_dtype, {});
  ASSERT_EQ(RunOp({grad.get(), self.get(), target.get(), reduction, out.get()}), ACLNN_SUCCESS);
  const int64_t divisor = reduction == kMean ? Count(BroadcastOf(self_shape, target_shape)) : 1;
  const std::vector<float> expected =
      ExpectedGradients(HostOf(grad, grad_shape), HostOf(self, self_shape),
                        HostOf(target, target_shape), shape, divisor, out_dtype);
  const std::vector<float> got = out.Read();
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_PRED2(SameValue, got[i], expected[i]) << "element " << i;
  }
}

// --- CANN's UT cases, by their intent ---

// aclnnMseLossBackward_01_float_nd_none: gradOutput [2,2,3,2], self [1,2,3,2], target [2,2,1,2].
TEST(MseLossBackwardCann, BroadcastInputsGiveTheBroadcastShape) {
  ExpectExact({2, 2, 3, 2}, {1, 2, 3, 2}, {2, 2, 1, 2}, ACL_FLOAT, kNone, ACL_FLOAT);
}

// _02_float16_nchw_mean and ascend910B2_..._02_bfloat16_nchw_mean: gradOutput [1,3,2], self
// [2,3,2], target [3,2]; refused without bf16 on the SoC.
TEST(MseLossBackwardCann, Fp16AndBf16MeansWithBroadcasting) {
  ExpectExact({1, 3, 2}, {2, 3, 2}, {3, 2}, ACL_FLOAT16, kMean, ACL_FLOAT16);
  ExpectExact({1, 3, 2}, {2, 3, 2}, {3, 2}, ACL_BF16, kMean, ACL_BF16);
  const ScopedSocVersion profile("Ascend910ProB");
  DeviceTensor bf16({2, 3, 2}, ACL_BF16, {});
  EXPECT_EQ(Plan({bf16.get(), bf16.get(), bf16.get(), kMean, bf16.get()}), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(
      ErrorMentions("aclnnMseLossBackward: self has dtype DT_BF16 (27), which "
                    "Ascend910ProB does not support; supported: DT_FLOAT, DT_FLOAT16."));
}

// _03_float_float16_nhwc_sum and _04_float16_float_nhwc_mean: out of another listed dtype.
TEST(MseLossBackwardCann, OutMayHaveAnyListedDtype) {
  ExpectExact({2, 2}, {2, 2}, {2, 2}, ACL_FLOAT, kSum, ACL_FLOAT16);
  ExpectExact({2, 2}, {2, 2}, {2, 2}, ACL_FLOAT16, kMean, ACL_FLOAT);
  ExpectExact({3, 5}, {3, 5}, {5}, ACL_BF16, kNone, ACL_FLOAT16);
}

// _05/_06/_07: gradOutput [1,0,1,2], self [1,1,0,2], target [1,0,1,2], out [1,0,0,2]: success,
// workspace 0, nothing written.
TEST(MseLossBackwardCann, EmptyInputsSucceedWithNothingToWrite) {
  DeviceTensor grad({1, 0, 1, 2}, ACL_FLOAT, {}), self({1, 1, 0, 2}, ACL_FLOAT, {}),
      out({1, 0, 0, 2}, ACL_FLOAT, {});
  for (int64_t reduction : {kNone, kMean, kSum}) {
    uint64_t workspace_size = 1;
    const Call call{grad.get(), self.get(), grad.get(), reduction, out.get()};
    EXPECT_EQ(Plan(call, &workspace_size), ACLNN_SUCCESS);
    EXPECT_EQ(workspace_size, 0u);
    EXPECT_EQ(RunOp(call), ACLNN_SUCCESS);
  }
}

// _11_float_hwcn_input_not_contiguous and _12_float_ncdhw_out_not_contiguous (CANN's own
// expectations are commented out there): views are read and written in place.
TEST(MseLossBackwardCann, NonContiguousTensorsAreUsedInPlace) {
  const std::vector<float> g = Spread(20, -2, 2, 3), x = Spread(20, -2, 2),
                           t = Spread(20, -2, 2, 7);
  DeviceTensor grad({5, 4}, ACL_FLOAT, g, {1, 5}, 0, {4, 5}),
      self({5, 4}, ACL_FLOAT, x, {1, 5}, 0, {4, 5}), target({5, 4}, ACL_FLOAT, t),
      out({5, 4}, ACL_FLOAT, std::vector<float>(40, -1), {1, 10}, 0, {4, 10});
  ASSERT_EQ(RunOp({grad.get(), self.get(), target.get(), kMean, out.get()}), ACLNN_SUCCESS);
  const std::vector<float> got = out.Read();
  for (int row = 0; row < 5; ++row) {
    for (int col = 0; col < 4; ++col) {
      MseTotal one;
      one.Add(MseTerm(x[col * 5 + row], t[row * 4 + col], &g[col * 5 + row]));
      EXPECT_EQ(got[col * 10 + row], one.RoundedTo(20, ACL_FLOAT)) << row << "," << col;
      EXPECT_EQ(got[col * 10 + 5 + row], -1.0f);  // outside the view: untouched
    }
  }
}

// _13_reduction_error and _14_input_out_nullptr.
TEST(MseLossBackwardCann, BadReductionIs161002AndNullTensors161001) {
  DeviceTensor t({8}, ACL_FLOAT, {});
  EXPECT_EQ(Plan({t.get(), t.get(), t.get(), 3, t.get()}), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("aclnnMseLossBackward: reduction is 3; Reduction only support"));
  const char* const names[] = {"gradOutput", "self", "target", "out"};
  for (int which = 0; which < 4; ++which) {
    SCOPED_TRACE(names[which]);
    const Call call{which == 0 ? nullptr : t.get(), which == 1 ? nullptr : t.get(),
                    which == 2 ? nullptr : t.get(), kNone, which == 3 ? nullptr : t.get()};
    EXPECT_EQ(Plan(call), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_TRUE(ErrorMentions(std::string("Expected a proper Tensor but got null for argument ") +
                              names[which] + "."));
  }
}

// _15_input_error_shape and _22_input_error_shape: target, or gradOutput and self, that do not
// broadcast; _21_output_error_shape_none: out not the broadcast shape.
TEST(MseLossBackwardCann, ShapesThatDoNotBroadcastAre161002) {
  DeviceTensor wide({123, 11, 2}, ACL_FLOAT, {}), narrow({123, 8, 2}, ACL_FLOAT, {}),
      column({123, 1, 2}, ACL_FLOAT, {}), last({123, 11, 1}, ACL_FLOAT, {});
  EXPECT_EQ(Plan({wide.get(), wide.get(), narrow.get(), kNone, wide.get()}),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(
      ErrorMentions("the broadcast of gradOutput and self shape [123,11,2] and target "
                    "shape [123,8,2] cannot broadcast"));
  EXPECT_EQ(Plan({wide.get(), narrow.get(), wide.get(), kNone, wide.get()}),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("gradOutput shape [123,11,2] and self shape [123,8,2] cannot"));
  EXPECT_EQ(Plan({wide.get(), column.get(), last.get(), kNone, narrow.get()}),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(
      ErrorMentions("out shape [123,8,2] must be the broadcast shape of gradOutput, self "
                    "and target, [123,11,2]."));
  EXPECT_EQ(Plan({wide.get(), column.get(), last.get(), kNone, wide.get()}), ACLNN_SUCCESS);
}

// _16_error_output_dtype, _17_error_input_dtype (all int32), _18_diff_input_dtype (gradOutput,
// then target, of another dtype than self's: no promotion here, unlike the forward).
TEST(MseLossBackwardCann, DtypesMustBeSelfsAndListed) {
  const Shape shape{6, 2, 1, 2};
  DeviceTensor fp32(shape, ACL_FLOAT, {}), int32(shape, ACL_INT32, {}),
      half(shape, ACL_FLOAT16, {});
  EXPECT_EQ(Plan({fp32.get(), fp32.get(), fp32.get(), kNone, int32.get()}),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("out has dtype DT_INT32"));
  EXPECT_EQ(Plan({int32.get(), int32.get(), int32.get(), kNone, fp32.get()}),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("self has dtype DT_INT32"));
  EXPECT_EQ(Plan({int32.get(), fp32.get(), fp32.get(), kNone, fp32.get()}),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("gradOutput dtype DT_INT32 must equal self dtype DT_FLOAT."));
  EXPECT_EQ(Plan({fp32.get(), fp32.get(), int32.get(), kNone, fp32.get()}),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("target dtype DT_INT32 must equal self dtype DT_FLOAT."));
  EXPECT_EQ(Plan({half.get(), fp32.get(), fp32.get(), kNone, fp32.get()}), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("gradOutput dtype DT_FLOAT16 must equal self dtype DT_FLOAT."));
}

// _19_input_error_shape_len: rank 9 gradOutput, self or target.
TEST(MseLossBackwardCann, RankNineIs161002) {
  DeviceTensor nine({2, 1, 1, 1, 1, 1, 1, 1, 2}, ACL_FLOAT, {}), low({1, 2}, ACL_FLOAT, {});
  const char* const names[] = {"gradOutput", "self", "target"};
  for (int which = 0; which < 3; ++which) {
    const Call call{(which == 0 ? nine : low).get(), (which == 1 ? nine : low).get(),
                    (which == 2 ? nine : low).get(), kNone, low.get()};
    EXPECT_EQ(Plan(call), ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(ErrorMentions(std::string(names[which]) + " (DT_FLOAT [2,1,1,1,1,1,1,1,2]) has "
                                                          "rank 9; at most 8"));
  }
}

// _20_float_hwcn_ndhwc_mean: formats are tags.
TEST(MseLossBackwardCann, FormatsAreTags) {
  DeviceTensor memory({2, 2}, ACL_FLOAT, {0, 1, 2, 3}), result({2, 2}, ACL_FLOAT, {});
  FormattedTensor self({2, 2}, ACL_FLOAT, ACL_FORMAT_HWCN, memory.device()),
      target({2, 2}, ACL_FLOAT, ACL_FORMAT_NDHWC, memory.device()),
      grad({2, 2}, ACL_FLOAT, ACL_FORMAT_ND, memory.device()),
      out({2, 2}, ACL_FLOAT, ACL_FORMAT_ND, result.device());
  EXPECT_EQ(Plan({grad.get(), self.get(), target.get(), kMean, out.get()}), ACLNN_SUCCESS);
}

// --- OpenACLNN's checks and decisions ---

// Pointers first (as CANN's OP_CHECK_COMM_INPUT); then nulls, dtypes, reduction, shapes.
TEST(MseLossBackwardChecks, ChecksRunInCannsOrder) {
  DeviceTensor fp32({3}, ACL_FLOAT, {}), half({3}, ACL_FLOAT16, {}), wide({4}, ACL_FLOAT, {});
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(aclnnMseLossBackwardGetWorkspaceSize(nullptr, nullptr, nullptr, 9, nullptr, nullptr,
                                                 &executor),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("aclnnMseLossBackward: workspaceSize is nullptr."));
  EXPECT_EQ(aclnnMseLossBackwardGetWorkspaceSize(nullptr, nullptr, nullptr, 9, nullptr,
                                                 &workspace_size, nullptr),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("executor is nullptr."));
  EXPECT_EQ(Plan({half.get(), fp32.get(), wide.get(), 9, wide.get()}), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("gradOutput dtype DT_FLOAT16 must equal self dtype DT_FLOAT."));
  EXPECT_EQ(Plan({fp32.get(), fp32.get(), wide.get(), 9, wide.get()}), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("reduction is 9"));
  EXPECT_EQ(Plan({fp32.get(), fp32.get(), wide.get(), kSum, wide.get()}), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("target shape [4] cannot broadcast"));
}

// D4: a mean divides by numel(broadcast(self, target)), the forward's N, whatever gradOutput's
// shape (CANN's 950 kernel and golden divide by numel(self)): self [1,3] with target [2,3]
// divides by 6; a gradOutput [4,3] larger than both divides by 3.
TEST(MseLossBackwardValues, MeanDividesByTheForwardsCount) {
  ExpectExact({2, 3}, {1, 3}, {2, 3}, ACL_FLOAT, kMean, ACL_FLOAT);
  ExpectExact({4, 3}, {3}, {3}, ACL_FLOAT, kMean, ACL_FLOAT);
  ExpectExact({4, 3}, {1}, {4, 1}, ACL_FLOAT16, kMean, ACL_FLOAT16);
  DeviceTensor grad({2, 3}, ACL_FLOAT, std::vector<float>(6, 1)),
      self({1, 3}, ACL_FLOAT, {3, 3, 3}), target({2, 3}, ACL_FLOAT, std::vector<float>(6, 0)),
      out({2, 3}, ACL_FLOAT, {});
  ASSERT_EQ(RunOp({grad.get(), self.get(), target.get(), kMean, out.get()}), ACLNN_SUCCESS);
  EXPECT_EQ(out.Read(), std::vector<float>(6, 1.0f));  // 2 * 3 / 6 (CANN: 2 * 3 / 3)
}

// gradOutput 0-D (as every mean and sum case of CANN's ATK file but a few) and all three 0-D
// (29 of its cases).
TEST(MseLossBackwardValues, ZeroDTensors) {
  for (int64_t reduction : {kNone, kMean, kSum}) {
    ExpectExact({}, {4, 5}, {4, 5}, ACL_FLOAT, reduction, ACL_FLOAT);
    ExpectExact({}, {}, {}, ACL_BF16, reduction, ACL_BF16);
  }
}

struct ValueCase {
  Shape grad_shape, self_shape, target_shape;
  aclDataType dtype, out_dtype;
  int64_t reduction;
};

class MseLossBackwardValuesOf : public ::testing::TestWithParam<ValueCase> {};

TEST_P(MseLossBackwardValuesOf, AreTheExactValueRoundedOnce) {
  const ValueCase c = GetParam();
  ExpectExact(c.grad_shape, c.self_shape, c.target_shape, c.dtype, c.reduction, c.out_dtype);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MseLossBackwardValuesOf,
    ::testing::Values(ValueCase{{7, 9}, {7, 9}, {7, 9}, ACL_FLOAT, ACL_FLOAT, kNone},
                      ValueCase{{}, {3, 1000}, {3, 1000}, ACL_FLOAT, ACL_FLOAT, kMean},
                      ValueCase{{1}, {5000}, {1}, ACL_FLOAT, ACL_FLOAT, kSum},
                      ValueCase{{64, 70}, {64, 70}, {70}, ACL_FLOAT16, ACL_FLOAT16, kMean},
                      ValueCase{{3, 4, 5}, {4, 1}, {3, 4, 5}, ACL_BF16, ACL_BF16, kNone},
                      ValueCase{{9000}, {9000}, {9000}, ACL_BF16, ACL_FLOAT, kSum},
                      // N = 3 * 7 * 11: ties and near-ties of an odd divisor.
                      ValueCase{{3, 7, 11}, {3, 7, 11}, {7, 1}, ACL_FLOAT16, ACL_FLOAT16, kMean},
                      // Many blocks over the thread pool, 2^k + 1 elements.
                      ValueCase{{65537}, {65537}, {65537}, ACL_FLOAT, ACL_BF16, kMean},
                      ValueCase{{2, 1, 1, 2, 1, 2, 1, 2},
                                {2, 1, 2, 1, 2, 1, 2},
                                {2, 1, 1, 1, 1, 1, 1, 1},
                                ACL_FLOAT,
                                ACL_FLOAT,
                                kMean}));

// IEEE's classes where an input is not finite (0 * inf and an infinite g with x = t are NaN);
// exact values where CANN's fp32 intermediates overflow (x - t beyond fp32's range with a small
// g is finite); zero signs of the formula (the sign of g times that of d, d = -0 only for
// (-0) - (+0)).
TEST(MseLossBackwardValues, SpecialValuesAndZeroSigns) {
  const float inf = std::numeric_limits<float>::infinity(), nan = NAN;
  const std::vector<float> g = {0, inf, inf, -inf, nan, 1e-30f, 1, -1, 1, -1, 0x1p-149f};
  const std::vector<float> x = {inf, 2, 2, 3, 1, 3e38f, -0.0f, 5, 5, -0.0f, 0x1p-149f};
  const std::vector<float> t = {1, 2, 1, 1, 1, -3e38f, 0.0f, 5, 5, -0.0f, 0};
  float expected[] = {nan, nan, inf, -inf, nan, 0, -0.0f, -0.0f, 0.0f, -0.0f, 0.0f};
  MseTotal exact;  // 2 g d = 2e-30 * 6e38, about 1.2e9 (CANN: inf)
  exact.Add(MseTerm(x[5], t[5], &g[5]));
  expected[5] = exact.RoundedTo(1, ACL_FLOAT);
  ASSERT_GT(expected[5], 1e9f);
  const Shape shape{static_cast<int64_t>(g.size())};
  DeviceTensor grad(shape, ACL_FLOAT, g), self(shape, ACL_FLOAT, x), target(shape, ACL_FLOAT, t),
      out(shape, ACL_FLOAT, {});
  ASSERT_EQ(RunOp({grad.get(), self.get(), target.get(), kNone, out.get()}), ACLNN_SUCCESS);
  const std::vector<float> got = out.Read();
  for (size_t i = 0; i < g.size(); ++i) {
    EXPECT_PRED2(SameValue, got[i], expected[i]) << i;
    if (!std::isnan(expected[i])) {
      EXPECT_EQ(std::signbit(got[i]), std::signbit(expected[i])) << i;
    }
  }
  // An infinite g over a tiny d and a large N stays infinite (CANN's d * fl32(2/N) underflows to
  // 0 there and gives NaN).
  DeviceTensor big_g({}, ACL_FLOAT, {}),
      tiny({1 << 12}, ACL_FLOAT, std::vector<float>(1 << 12, 0x1p-149f)),
      zeros({1 << 12}, ACL_FLOAT, {}), result({1 << 12}, ACL_FLOAT, {});
  UploadWithSpecials(big_g, ACL_FLOAT, {-inf});
  ASSERT_EQ(RunOp({big_g.get(), tiny.get(), zeros.get(), kMean, result.get()}), ACLNN_SUCCESS);
  EXPECT_EQ(result.Read()[0], -inf);
}

// CANN's sample: gradOutput = self = 0..3, target 1, mean: 2 g (x - t) / 4 = [0, 0, 1, 3].
TEST(MseLossBackwardValues, CannsSampleGivesItsDigits) {
  DeviceTensor grad({2, 2}, ACL_FLOAT, {0, 1, 2, 3}), self({2, 2}, ACL_FLOAT, {0, 1, 2, 3}),
      target({2, 2}, ACL_FLOAT, {1, 1, 1, 1}), out({2, 2}, ACL_FLOAT, {});
  ASSERT_EQ(RunOp({grad.get(), self.get(), target.get(), kMean, out.get()}), ACLNN_SUCCESS);
  EXPECT_EQ(out.Read(), (std::vector<float>{0, 0, 1, 3}));
}

}  // namespace
}  // namespace openaclnn::testing
