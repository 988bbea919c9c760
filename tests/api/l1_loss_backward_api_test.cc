// aclnnL1LossBackward through its C API: CANN's UT cases by their intent, OpenACLNN's decisions
// (docs/contract/checks-and-codes.md §13), every check's status code, message and order, and
// values against g sign(x - t) / N in long double, rounded once.
#include "aclnnop/aclnn_l1_loss_backward.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "op_tester.h"

namespace openaclnn::testing {
namespace {

using Shape = std::vector<int64_t>;

constexpr int64_t kNone = 0, kMean = 1, kSum = 2;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

int64_t Count(const Shape& shape) {
  int64_t count = 1;
  for (int64_t dim : shape) count *= dim;
  return count;
}

std::vector<float> Values(int64_t count, float start, float step) {
  std::vector<float> values(count);
  for (int64_t i = 0; i < count; ++i) values[i] = std::fmod(start + step * i, 10.0f) - 5.0f;
  return values;
}

aclnnStatus Plan(const aclTensor* grad, const aclTensor* self, const aclTensor* target,
                 int64_t reduction, aclTensor* out, uint64_t* workspace_size = nullptr) {
  uint64_t size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status =
      aclnnL1LossBackwardGetWorkspaceSize(grad, self, target, reduction, out, &size, &executor);
  if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
  if (workspace_size != nullptr) *workspace_size = size;
  return status;
}

aclnnStatus Plan(const DeviceTensor& grad, const DeviceTensor& self, const DeviceTensor& target,
                 int64_t reduction, const DeviceTensor& out) {
  return Plan(grad.get(), self.get(), target.get(), reduction, out.get());
}

aclnnStatus RunOp(const DeviceTensor& grad, const DeviceTensor& self, const DeviceTensor& target,
                  int64_t reduction, const DeviceTensor& out) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  if (aclnnStatus status = aclnnL1LossBackwardGetWorkspaceSize(
          grad.get(), self.get(), target.get(), reduction, out.get(), &workspace_size, &executor)) {
    return status;
  }
  EXPECT_EQ(workspace_size, 0u);  // element-wise: no reduction blocks
  const aclnnStatus status =
      aclnnL1LossBackward(nullptr, workspace_size, executor, AclEnvironment::stream);
  EXPECT_EQ(aclrtSynchronizeStream(AclEnvironment::stream), ACL_SUCCESS);
  return status;
}

// g sign(x - t) / n; sign(NaN) is NaN (OpenACLNN's D6), sign(0) is 0.
long double ExactGradient(float g, float x, float t, int64_t n) {
  if (std::isnan(x) || std::isnan(t)) return std::numeric_limits<long double>::quiet_NaN();
  const long double sign = x > t ? 1 : x < t ? -1 : 0;
  return static_cast<long double>(g) * sign / n;
}

int64_t BroadcastIndex(const Shape& shape, const Shape& full, int64_t flat) {
  int64_t index = 0, stride = 1;
  for (size_t d = full.size(); d-- > 0;) {
    const int64_t coordinate = flat % full[d];
    flat /= full[d];
    const size_t offset = full.size() - shape.size();
    if (d < offset) continue;
    const int64_t dim = shape[d - offset];
    if (dim != 1) index += coordinate * stride;
    stride *= dim;
  }
  return index;
}

// NumPy's broadcast of two shapes that broadcast.
Shape Broadcast(const Shape& a, const Shape& b) {
  Shape result(std::max(a.size(), b.size()), 1);
  for (size_t d = 0; d < result.size(); ++d) {
    const size_t from_end = result.size() - 1 - d;
    for (const Shape* shape : {&a, &b}) {
      if (from_end < shape->size()) {
        const int64_t dim = (*shape)[shape->size() - 1 - from_end];
        if (dim != 1) result[d] = dim;
      }
    }
  }
  return result;
}

// --- CANN's UT cases (22 TEST_F, 29 calls), by their intent ---

// aclnnL1LossBackward_01 and _02: gradOutput, self and target broadcast into gradInput, any
// formats; a mean's divisor is the element count of broadcast(self, target).
TEST(L1LossBackwardCann, InputsBroadcastIntoGradInput) {
  DeviceTensor grad({2, 2, 3, 2}, ACL_FLOAT, Values(24, 0.4f, 0.77f)),
      self({1, 2, 3, 2}, ACL_FLOAT, Values(12, 0.1f, 0.5f)),
      target({2, 2, 1, 2}, ACL_FLOAT, Values(8, 2.3f, 0.9f)), out({2, 2, 3, 2}, ACL_FLOAT, {});
  for (int64_t reduction : {kNone, kMean, kSum}) {
    ASSERT_EQ(RunOp(grad, self, target, reduction, out), ACLNN_SUCCESS);
    const std::vector<float> g = grad.Read(), x = self.Read(), t = target.Read(), got = out.Read();
    const Shape full{2, 2, 3, 2};
    for (int64_t i = 0; i < 24; ++i) {
      const long double exact =
          ExactGradient(g[i], x[BroadcastIndex({1, 2, 3, 2}, full, i)],
                        t[BroadcastIndex({2, 2, 1, 2}, full, i)], reduction == kMean ? 24 : 1);
      EXPECT_TRUE(CorrectlyRounded(got[i], exact, ACL_FLOAT)) << i;
    }
  }
  DeviceTensor g16({1, 3, 2}, ACL_FLOAT16, {}), x16({2, 3, 2}, ACL_FLOAT16, {}),
      t16({3, 2}, ACL_FLOAT16, {}), out16({2, 3, 2}, ACL_FLOAT16, {});
  EXPECT_EQ(Plan(g16, x16, t16, kMean, out16), ACLNN_SUCCESS);
}

// aclnnL1LossBackward_03, _04 and _19: fp32 inputs into an fp16 gradInput and back.
TEST(L1LossBackwardCann, GradInputMayHaveAnotherListedDtype) {
  for (aclDataType in : {ACL_FLOAT, ACL_FLOAT16}) {
    const aclDataType out_dtype = in == ACL_FLOAT ? ACL_FLOAT16 : ACL_FLOAT;
    DeviceTensor grad({2, 2}, in, {0.3f, -1, 2, 0.1f}), self({2, 2}, in, {1, 2, 3, 4}),
        target({2, 2}, in, {0, 2, 5, 1}), out({2, 2}, out_dtype, {});
    ASSERT_EQ(RunOp(grad, self, target, kMean, out), ACLNN_SUCCESS);
    const std::vector<float> g = grad.Read(), got = out.Read();
    const float sign[] = {1, 0, -1, 1};
    for (int i = 0; i < 4; ++i) {
      EXPECT_TRUE(CorrectlyRounded(got[i], g[i] * sign[i] / 4.0L, out_dtype)) << i;
    }
  }
}

// aclnnL1LossBackward_05 to _07: empty inputs succeed with nothing to do; _08: a wrong gradInput
// shape is refused also then.
TEST(L1LossBackwardCann, EmptyInputsSucceedWithoutWork) {
  DeviceTensor grad({1, 0, 1, 2}, ACL_FLOAT, {}), self({1, 1, 0, 2}, ACL_FLOAT, {}),
      target({1, 0, 1, 2}, ACL_FLOAT, {}), out({1, 0, 0, 2}, ACL_FLOAT, {}),
      one({1, 1, 1, 2}, ACL_FLOAT, {});
  for (int64_t reduction : {kNone, kMean, kSum}) {
    uint64_t workspace_size = 1;
    EXPECT_EQ(Plan(grad.get(), self.get(), target.get(), reduction, out.get(), &workspace_size),
              ACLNN_SUCCESS);
    EXPECT_EQ(workspace_size, 0u);
  }
  EXPECT_EQ(Plan(one, one, one, kSum, out), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(
      ErrorMentions("gradInput shape [1,0,0,2] must be the broadcast shape of gradOutput, "
                    "self and target, [1,1,1,2]."));
}

// aclnnL1LossBackward_09 to _11: transposed inputs and gradInput, used in place.
TEST(L1LossBackwardCann, NonContiguousTensorsAreUsedInPlace) {
  const std::vector<float> gs = Values(20, 0.2f, 0.9f), xs = Values(20, 1.1f, 0.3f),
                           ts = Values(20, 4.0f, 0.61f);
  DeviceTensor grad({5, 4}, ACL_FLOAT, gs, {1, 5}, 0, {4, 5}),
      self({5, 4}, ACL_FLOAT, xs, {1, 5}, 0, {4, 5}), target({5, 4}, ACL_FLOAT, ts),
      out({5, 4}, ACL_FLOAT, std::vector<float>(20, -7.0f), {1, 5}, 0, {4, 5});
  ASSERT_EQ(RunOp(grad, self, target, kNone, out), ACLNN_SUCCESS);
  const std::vector<float> got = out.Read();
  for (int row = 0; row < 5; ++row) {
    for (int col = 0; col < 4; ++col) {
      const long double exact =
          ExactGradient(gs[col * 5 + row], xs[col * 5 + row], ts[row * 4 + col], 1);
      EXPECT_TRUE(CorrectlyRounded(got[col * 5 + row], exact, ACL_FLOAT));
    }
  }
}

// aclnnL1LossBackward_12 and _13: reduction 3; a null tensor of each parameter.
TEST(L1LossBackwardCann, BadReductionIs161002AndNullTensors161001) {
  DeviceTensor tensor({8}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(tensor, tensor, tensor, 3, tensor), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("aclnnL1LossBackward: reduction is 3"));
  const aclTensor* t = tensor.get();
  EXPECT_EQ(Plan(nullptr, t, t, kNone, tensor.get()), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("got null for argument gradOutput."));
  EXPECT_EQ(Plan(t, nullptr, t, kNone, tensor.get()), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("got null for argument self."));
  EXPECT_EQ(Plan(t, t, nullptr, kNone, tensor.get()), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("got null for argument target."));
  EXPECT_EQ(Plan(t, t, t, kNone, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("got null for argument gradInput."));
}

// aclnnL1LossBackward_14, _20 and _21: shapes that do not broadcast, a gradInput of another shape.
TEST(L1LossBackwardCann, ShapesAreChecked) {
  DeviceTensor full({123, 11, 2}, ACL_FLOAT, {}), eight({123, 8, 2}, ACL_FLOAT, {}),
      column({123, 1, 2}, ACL_FLOAT, {}), row({123, 11, 1}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(full, full, eight, kNone, full), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(
      ErrorMentions("the broadcast of self and gradOutput shape [123,11,2] and target "
                    "shape [123,8,2] cannot broadcast"));
  EXPECT_EQ(Plan(full, eight, full, kNone, full), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("self shape [123,8,2] and gradOutput shape [123,11,2] cannot"));
  EXPECT_EQ(Plan(full, column, row, kNone, eight), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("gradInput shape [123,8,2] must be"));
  EXPECT_EQ(Plan(full, column, row, kNone, full), ACLNN_SUCCESS);
}

// aclnnL1LossBackward_15, _16 and _18: an INT32 gradInput; integer inputs whose promotion is not
// listed, refused before their rank.
TEST(L1LossBackwardCann, UnlistedDtypesAre161002) {
  DeviceTensor fp32({6, 2, 1, 2}, ACL_FLOAT, {}), ints({6, 2, 1, 2}, ACL_INT32, {}),
      nine({2, 3, 4, 5, 6, 7, 8, 9, 10}, ACL_INT32, {}), shorts({7, 8, 9, 10}, ACL_INT16, {});
  EXPECT_EQ(Plan(fp32, fp32, fp32, kNone, ints), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(
      ErrorMentions("the result of dtype DT_FLOAT cannot be cast to gradInput dtype "
                    "DT_INT32."));
  EXPECT_EQ(Plan(ints, ints, ints, kNone, fp32), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("the promoted dtype DT_INT32 of gradOutput, self and target"));
  EXPECT_EQ(Plan(nine, shorts, shorts, kNone, shorts), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("the promoted dtype DT_INT32"));
}

// aclnnL1LossBackward_22: rank 9 for each input.
TEST(L1LossBackwardCann, RankNineIs161002) {
  DeviceTensor nine({2, 3, 4, 5, 6, 7, 8, 9, 10}, ACL_FLOAT, {}),
      four({7, 8, 9, 10}, ACL_FLOAT, {});
  EXPECT_EQ(Plan(nine, four, four, kNone, four), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("gradOutput (DT_FLOAT [2,3,4,5,6,7,8,9,10]) has rank 9"));
  EXPECT_EQ(Plan(four, nine, four, kNone, four), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("self (DT_FLOAT"));
  EXPECT_EQ(Plan(four, four, nine, kNone, four), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("target (DT_FLOAT"));
}

// ascend950_aclnnL1LossBackward_input_scalar_grads: a 0-D gradOutput with mean.
TEST(L1LossBackwardCann, ZeroDimensionalGradOutput) {
  DeviceTensor grad({}, ACL_FLOAT, {0.6f}), self({2, 2}, ACL_FLOAT, {0, 1, 2, 3}),
      target({2, 2}, ACL_FLOAT, {1, 1, 1, 1}), out({2, 2}, ACL_FLOAT, {});
  ASSERT_EQ(RunOp(grad, self, target, kMean, out), ACLNN_SUCCESS);
  const std::vector<float> got = out.Read();
  EXPECT_TRUE(CorrectlyRounded(got[0], -0.6f / 4.0L, ACL_FLOAT));
  EXPECT_EQ(got[1], 0.0f);
  EXPECT_TRUE(CorrectlyRounded(got[2], 0.6f / 4.0L, ACL_FLOAT));
}

// --- OpenACLNN's decisions and the checks' order ---

TEST(L1LossBackwardChecks, OutputPointersThenNullsThenReductionThenDtypesThenShapes) {
  DeviceTensor fp32({3}, ACL_FLOAT, {}), wide({4}, ACL_FLOAT, {}), doubles({3}, ACL_DOUBLE, {});
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(aclnnL1LossBackwardGetWorkspaceSize(nullptr, nullptr, nullptr, 9, nullptr, nullptr,
                                                &executor),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(ErrorMentions("aclnnL1LossBackward: workspaceSize is nullptr."));
  EXPECT_EQ(Plan(nullptr, fp32.get(), wide.get(), 9, doubles.get()), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(Plan(doubles, fp32, wide, 9, wide), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("reduction is 9"));
  EXPECT_EQ(Plan(doubles, fp32, wide, kSum, wide), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("the promoted dtype DT_DOUBLE"));
  EXPECT_EQ(Plan(fp32, fp32, wide, kSum, wide), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("cannot broadcast"));
}

// D12: gradInput's dtype is in the SoC list (CANN takes any the promoted dtype casts to), and the
// inputs' promoted dtype must be too: integer inputs are fine beside a floating one.
TEST(L1LossBackwardChecks, DtypesFollowThePromotionAndTheSocList) {
  const Shape shape{3};
  DeviceTensor fp32(shape, ACL_FLOAT, {}), fp16(shape, ACL_FLOAT16, {}), bf16(shape, ACL_BF16, {}),
      ints(shape, ACL_INT32, {}), flags(shape, ACL_BOOL, {}), doubles(shape, ACL_DOUBLE, {}),
      longs(shape, ACL_INT64, {}), unsigned16(shape, ACL_UINT16, {});
  EXPECT_EQ(Plan(fp16, ints, flags, kNone, fp16), ACLNN_SUCCESS);
  EXPECT_EQ(Plan(ints, longs, bf16, kMean, fp32), ACLNN_SUCCESS);
  EXPECT_EQ(Plan(fp16, bf16, fp16, kSum, bf16), ACLNN_SUCCESS);  // promoted fp32, narrowed
  EXPECT_EQ(Plan(fp32, fp32, fp32, kNone, doubles), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("gradInput has dtype DT_DOUBLE"));
  EXPECT_EQ(Plan(unsigned16, fp32, fp32, kNone, fp32), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(
      ErrorMentions("gradOutput and self dtypes DT_UINT16 and DT_FLOAT cannot be promoted"));
  EXPECT_EQ(Plan(fp32, fp32, unsigned16, kNone, fp32), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("target and (gradOutput, self) dtypes DT_UINT16 and DT_FLOAT"));
  EXPECT_EQ(Plan(longs, longs, longs, kNone, fp32), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("the promoted dtype DT_INT64"));
  for (const char* soc : {"Ascend910A", "Ascend310P3"}) {
    const ScopedSocVersion pose(soc);
    EXPECT_EQ(Plan(bf16, bf16, bf16, kNone, fp32), ACLNN_ERR_PARAM_INVALID) << soc;
    EXPECT_TRUE(ErrorMentions(soc));
    EXPECT_EQ(Plan(fp32, fp32, fp32, kNone, bf16), ACLNN_ERR_PARAM_INVALID) << soc;
    EXPECT_EQ(Plan(fp16, fp32, fp16, kNone, fp16), ACLNN_SUCCESS) << soc;
  }
}

// --- Values ---

struct ValueCase {
  aclDataType dtype;
  int64_t reduction;
  Shape grad, self, target;
};

class L1LossBackwardValues : public ::testing::TestWithParam<ValueCase> {};

// D4: a mean divides by the element count of broadcast(self, target), also where gradOutput is
// larger (CANN divides by that of all three).
TEST_P(L1LossBackwardValues, AreTheExactGradientRoundedOnce) {
  const ValueCase c = GetParam();
  const Shape pair = Broadcast(c.self, c.target), full = Broadcast(c.grad, pair);
  DeviceTensor grad(c.grad, c.dtype, Values(Count(c.grad), 0.3f, 0.913f)),
      self(c.self, c.dtype, Values(Count(c.self), 0.0f, 1.0f)),  // whole numbers: ties with t
      target(c.target, c.dtype, Values(Count(c.target), 1.0f, 3.0f)), out(full, c.dtype, {});
  ASSERT_EQ(RunOp(grad, self, target, c.reduction, out), ACLNN_SUCCESS);
  const std::vector<float> g = grad.Read(), x = self.Read(), t = target.Read(), got = out.Read();
  const int64_t n = c.reduction == kMean ? Count(pair) : 1;
  for (int64_t i = 0; i < Count(full); ++i) {
    const long double exact =
        ExactGradient(g[BroadcastIndex(c.grad, full, i)], x[BroadcastIndex(c.self, full, i)],
                      t[BroadcastIndex(c.target, full, i)], n);
    ASSERT_TRUE(CorrectlyRounded(got[i], exact, c.dtype)) << "element " << i;
  }
}

std::vector<ValueCase> ValueCases() {
  std::vector<ValueCase> cases;
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (int64_t reduction : {kNone, kMean, kSum}) {
      cases.push_back({dtype, reduction, {7, 9}, {7, 9}, {7, 9}});
      cases.push_back({dtype, reduction, {}, {3, 1, 5}, {4, 1}});        // a 0-D gradOutput
      cases.push_back({dtype, reduction, {3, 4, 5}, {5}, {4, 1}});       // gradOutput the largest
      cases.push_back({dtype, reduction, {1}, {3, 7, 11}, {3, 7, 11}});  // N = 231
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Cases, L1LossBackwardValues, ::testing::ValuesIn(ValueCases()));

// D6: sign(NaN) is NaN (CANN and PyTorch give 0); zeros keep IEEE's sign of g sign(d).
TEST(L1LossBackwardValues, SpecialValuesAndZeroSigns) {
  const std::vector<float> g = {1, 2, kInf, kInf, 3, -2, 0, -0.0f, kNaN, 5};
  const std::vector<float> x = {kNaN, 1, 1, 1, kInf, 2, 1, 3, 1, kInf};
  const std::vector<float> t = {0, kNaN, 0, 1, 0, 2, 2, 1, 0, kInf};
  const Shape shape{static_cast<int64_t>(g.size())};
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    SCOPED_TRACE(dtype);
    DeviceTensor grad(shape, dtype, {}), self(shape, dtype, {}), target(shape, dtype, {}),
        out(shape, dtype, {});
    UploadWithSpecials(grad, dtype, g);
    UploadWithSpecials(self, dtype, x);
    UploadWithSpecials(target, dtype, t);
    ASSERT_EQ(RunOp(grad, self, target, kNone, out), ACLNN_SUCCESS);
    const std::vector<float> got = out.Read();
    EXPECT_TRUE(std::isnan(got[0]));  // sign(NaN)
    EXPECT_TRUE(std::isnan(got[1]));
    EXPECT_EQ(got[2], kInf);
    EXPECT_TRUE(std::isnan(got[3]));  // inf * sign(0)
    EXPECT_EQ(got[4], 3.0f);          // an infinite x with a finite g: +-g
    EXPECT_EQ(got[5], 0.0f);
    EXPECT_TRUE(std::signbit(got[5]));  // -2 * 0
    EXPECT_EQ(got[6], 0.0f);
    EXPECT_TRUE(std::signbit(got[6]));  // +0 * -1
    EXPECT_TRUE(std::signbit(got[7]));  // -0 * +1
    EXPECT_TRUE(std::isnan(got[8]));
    EXPECT_TRUE(std::isnan(got[9]));  // inf - inf
  }
}

// Integer inputs beside floating ones are read rounded once to the promoted dtype.
TEST(L1LossBackwardValues, IntegerInputsAreRoundedToThePromotedDtype) {
  DeviceTensor grad({4}, ACL_FLOAT16, {1, 1, 1, 1}), self({4}, ACL_INT32, {2049, 5, -1, 0}),
      target({4}, ACL_INT32, {2048, 5, 0, 0}), out({4}, ACL_FLOAT, {});
  ASSERT_EQ(RunOp(grad, self, target, kMean, out), ACLNN_SUCCESS);
  // 2049 is 2048 in fp16: sign 0.
  EXPECT_EQ(out.Read(), (std::vector<float>{0.0f, 0.0f, -0.25f, 0.0f}));
}

// CANN's sample: gradOutput 0..3, self 0..3, target 1, mean: -0, 0, 0.5, 0.75.
TEST(L1LossBackwardValues, CannsSample) {
  DeviceTensor grad({2, 2}, ACL_FLOAT, {0, 1, 2, 3}), self({2, 2}, ACL_FLOAT, {0, 1, 2, 3}),
      target({2, 2}, ACL_FLOAT, {1, 1, 1, 1}), out({2, 2}, ACL_FLOAT, {});
  ASSERT_EQ(RunOp(grad, self, target, kMean, out), ACLNN_SUCCESS);
  const std::vector<float> got = out.Read();
  EXPECT_EQ(got, (std::vector<float>{0.0f, 0.0f, 0.5f, 0.75f}));
  EXPECT_TRUE(std::signbit(got[0]));
}

}  // namespace
}  // namespace openaclnn::testing
