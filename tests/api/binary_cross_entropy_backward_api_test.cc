// aclnnBinaryCrossEntropyBackward through its C API: CANN's UT cases by their intent,
// OpenACLNN's decisions (docs/contract/checks-and-codes.md §11), every check's status code and
// message, and values against a long-double reference.
#include "aclnnop/aclnn_binary_cross_entropy_backward.h"

#include <cmath>
#include <memory>

#include "op_tester.h"

// As CANN's own test of this op does: its header must leave the name free.
enum Reduction { None, Mean, Sum, END };

namespace openaclnn::testing {
namespace {

using Shape = std::vector<int64_t>;

std::vector<float> Probabilities(int64_t count, float start = 0.013f) {
  std::vector<float> values(count);
  for (int64_t i = 0; i < count; ++i) values[i] = std::fmod(start + 0.0371f * i, 1.0f);
  return values;
}

// The arguments of one call, as aclTensor pointers (null for an absent one).
struct Call {
  const aclTensor* grad = nullptr;
  const aclTensor* self = nullptr;
  const aclTensor* target = nullptr;
  const aclTensor* weight = nullptr;
  int64_t reduction = None;
  aclTensor* out = nullptr;
};

// Phase 1 only; a successful executor is destroyed after its workspace was checked to be 0.
aclnnStatus Plan(const Call& c) {
  uint64_t workspace_size = 1;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnBinaryCrossEntropyBackwardGetWorkspaceSize(
      c.grad, c.self, c.target, c.weight, c.reduction, c.out, &workspace_size, &executor);
  if (status == ACLNN_SUCCESS) {
    EXPECT_EQ(workspace_size, 0u);
    aclDestroyAclOpExecutor(executor);
  }
  return status;
}

// Both phases and a sync.
aclnnStatus RunOp(const Call& c) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  if (aclnnStatus status = aclnnBinaryCrossEntropyBackwardGetWorkspaceSize(
          c.grad, c.self, c.target, c.weight, c.reduction, c.out, &workspace_size, &executor)) {
    return status;
  }
  const aclnnStatus status =
      aclnnBinaryCrossEntropyBackward(nullptr, workspace_size, executor, AclEnvironment::stream);
  EXPECT_EQ(aclrtSynchronizeStream(AclEnvironment::stream), ACL_SUCCESS);
  return status;
}

// The tensors of CANN's usual case: [1,2,3,4,5] of one dtype, target 1, weight 2.
struct UsualTensors {
  explicit UsualTensors(aclDataType dtype, aclDataType out_dtype)
      : grad(shape, dtype, Probabilities(120)),
        self(shape, dtype, Probabilities(120, 0.5f)),
        target(shape, dtype, std::vector<float>(120, 1.0f)),
        weight(shape, dtype, std::vector<float>(120, 2.0f)),
        out(shape, out_dtype, {}) {}
  Call Args(bool weighted, int64_t reduction) const {
    return {grad.get(), self.get(), target.get(), weighted ? weight.get() : nullptr,
            reduction,  out.get()};
  }
  const Shape shape{1, 2, 3, 4, 5};
  DeviceTensor grad, self, target, weight, out;
};

// --- CANN's UT cases (22 TEST_F, 28 calls), by their intent ---

// case_f16/f32_reduce_none/mean/sum[_no_weight]: 12 calls.
TEST(BinaryCrossEntropyBackwardCann, EveryDtypeAndReductionWithAndWithoutWeightIsAccepted) {
  for (aclDataType dtype : {ACL_FLOAT16, ACL_FLOAT}) {
    UsualTensors tensors(dtype, dtype);
    for (bool weighted : {true, false}) {
      for (int64_t reduction : {None, Mean, Sum}) {
        SCOPED_TRACE(::testing::Message() << dtype << " " << weighted << " " << reduction);
        EXPECT_EQ(Plan(tensors.Args(weighted, reduction)), ACLNN_SUCCESS);
      }
    }
  }
}

TEST(BinaryCrossEntropyBackwardCann, EmptySelfIsAccepted) {
  DeviceTensor empty({2, 0}, ACL_FLOAT, {});
  EXPECT_EQ(Plan({empty.get(), empty.get(), empty.get(), empty.get(), None, empty.get()}),
            ACLNN_SUCCESS);
}

TEST(BinaryCrossEntropyBackwardCann, IntegerDtypesAre161002) {
  const Shape shape{1, 2, 3, 4, 5};
  DeviceTensor f(shape, ACL_FLOAT, {}), i(shape, ACL_INT64, {});
  EXPECT_EQ(Plan({i.get(), i.get(), i.get(), nullptr, None, i.get()}), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("self has dtype DT_INT64"));  // self is checked first
  EXPECT_EQ(Plan({i.get(), f.get(), i.get(), nullptr, None, i.get()}), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("gradOutput has dtype DT_INT64"));
  EXPECT_EQ(Plan({f.get(), f.get(), i.get(), nullptr, None, i.get()}), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("target has dtype DT_INT64"));
  EXPECT_EQ(Plan({f.get(), f.get(), f.get(), nullptr, None, i.get()}), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("out has dtype DT_INT64"));
}

TEST(BinaryCrossEntropyBackwardCann, RankNineIs161002) {
  const Shape shape{1, 2, 3, 4, 5, 6, 7, 8, 9};
  DeviceTensor t(shape, ACL_FLOAT, {});
  EXPECT_EQ(Plan({t.get(), t.get(), t.get(), nullptr, Sum, t.get()}), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("has rank 9; at most 8 is supported."));
}

TEST(BinaryCrossEntropyBackwardCann, Fp16InputsWithFp32OutAreAccepted) {
  UsualTensors tensors(ACL_FLOAT16, ACL_FLOAT);
  EXPECT_EQ(Plan(tensors.Args(true, None)), ACLNN_SUCCESS);
}

TEST(BinaryCrossEntropyBackwardCann, ShapesThatDoNotBroadcastIntoSelfAre161002) {
  DeviceTensor grad({3, 1, 4, 2, 5}, ACL_FLOAT, {}), self({1, 2, 3, 4, 5}, ACL_FLOAT, {}),
      target({5, 4, 3, 2, 1}, ACL_FLOAT, {}), out({}, ACL_FLOAT, {});
  EXPECT_EQ(Plan({grad.get(), self.get(), target.get(), nullptr, Sum, out.get()}),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("out shape [] must equal self shape [1,2,3,4,5]."));
}

TEST(BinaryCrossEntropyBackwardCann, NullTensorsAre161001) {
  UsualTensors tensors(ACL_FLOAT, ACL_FLOAT);
  const Call call = tensors.Args(false, Sum);
  const char* const names[] = {"gradOutput", "self", "target", "out"};
  for (int which = 0; which < 4; ++which) {
    Call c = call;
    const aclTensor** inputs[] = {&c.grad, &c.self, &c.target};
    if (which < 3) {
      *inputs[which] = nullptr;
    } else {
      c.out = nullptr;
    }
    EXPECT_EQ(Plan(c), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_TRUE(ErrorMentions(std::string("aclnnBinaryCrossEntropyBackward: Expected a proper "
                                          "Tensor but got null for argument ") +
                              names[which] + "."));
  }
}

TEST(BinaryCrossEntropyBackwardCann, Nc1hwc0IsAccepted) {
  const Shape shape{1, 2, 3, 4, 16};
  DeviceTensor memory(shape, ACL_FLOAT, Probabilities(384));
  FormattedTensor t(shape, ACL_FLOAT, ACL_FORMAT_NC1HWC0, memory.device());
  EXPECT_EQ(Plan({t.get(), t.get(), t.get(), t.get(), Mean, t.get()}), ACLNN_SUCCESS);
}

TEST(BinaryCrossEntropyBackwardCann, FractalZIsAccepted) {
  const Shape shape{16, 16, 16, 16};
  DeviceTensor memory(shape, ACL_FLOAT, Probabilities(65536));
  FormattedTensor t(shape, ACL_FLOAT, ACL_FORMAT_FRACTAL_Z, memory.device());
  EXPECT_EQ(Plan({t.get(), t.get(), t.get(), t.get(), Mean, t.get()}), ACLNN_SUCCESS);
}

TEST(BinaryCrossEntropyBackwardCann, NonContiguousInputsAreAccepted) {
  const Shape shape{5, 4}, storage{4, 5}, strides{1, 5};
  DeviceTensor grad(shape, ACL_FLOAT, Probabilities(20), strides, 0, storage),
      self(shape, ACL_FLOAT, Probabilities(20, 0.3f), strides, 0, storage),
      target(shape, ACL_FLOAT, std::vector<float>(20, 1.0f), strides, 0, storage),
      weight(shape, ACL_FLOAT, std::vector<float>(20, 2.0f), strides, 0, storage),
      out(shape, ACL_FLOAT, {});
  EXPECT_EQ(Plan({grad.get(), self.get(), target.get(), weight.get(), Mean, out.get()}),
            ACLNN_SUCCESS);
}

// ascend910B2_case_bf16_reduce_sum: the default SoC profile (Ascend910B) has bf16.
TEST(BinaryCrossEntropyBackwardCann, Bf16IsAcceptedOnAscend910B) {
  UsualTensors tensors(ACL_BF16, ACL_BF16);
  EXPECT_EQ(Plan(tensors.Args(true, Sum)), ACLNN_SUCCESS);
}

// --- OpenACLNN's decisions and the remaining checks ---

TEST(BinaryCrossEntropyBackwardChecks, MixedDtypesPromoteAndAnyFloatOutIsAccepted) {
  const Shape shape{2, 3};
  DeviceTensor f(shape, ACL_FLOAT, Probabilities(6)), h(shape, ACL_FLOAT16, Probabilities(6)),
      b(shape, ACL_BF16, Probabilities(6)), out_h(shape, ACL_FLOAT16, {});
  EXPECT_EQ(Plan({h.get(), b.get(), f.get(), h.get(), None, out_h.get()}), ACLNN_SUCCESS);
  EXPECT_EQ(Plan({f.get(), f.get(), f.get(), b.get(), Mean, out_h.get()}), ACLNN_SUCCESS);
}

TEST(BinaryCrossEntropyBackwardChecks, GradOutputTargetAndWeightBroadcastIntoSelf) {
  DeviceTensor self({4, 5}, ACL_FLOAT, Probabilities(20)), out({4, 5}, ACL_FLOAT, {}),
      scalar({}, ACL_FLOAT, {1}), one({1}, ACL_FLOAT, {1}), row({5}, ACL_FLOAT, {}),
      column({4, 1}, ACL_FLOAT, {}), enlarging({2, 4, 5}, ACL_FLOAT, {});
  EXPECT_EQ(Plan({scalar.get(), self.get(), row.get(), column.get(), Mean, out.get()}),
            ACLNN_SUCCESS);
  EXPECT_EQ(Plan({one.get(), self.get(), column.get(), scalar.get(), Sum, out.get()}),
            ACLNN_SUCCESS);
  EXPECT_EQ(Plan({enlarging.get(), self.get(), self.get(), nullptr, None, out.get()}),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("gradOutput shape [2,4,5] cannot broadcast into self shape [4,5]"));
  EXPECT_EQ(Plan({self.get(), self.get(), enlarging.get(), nullptr, None, out.get()}),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("target shape [2,4,5] cannot broadcast"));
  EXPECT_EQ(Plan({self.get(), self.get(), self.get(), row.get(), None, one.get()}),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("out shape [1] must equal self shape [4,5]."));
}

// The docs' "self a scalar, gradOutput not": the same rule, gradOutput would enlarge self.
TEST(BinaryCrossEntropyBackwardChecks, ScalarSelfWithNonScalarGradOutputIs161002) {
  DeviceTensor self({}, ACL_FLOAT, {0.5f}), grad({1}, ACL_FLOAT, {1});
  EXPECT_EQ(Plan({grad.get(), self.get(), self.get(), nullptr, Mean, self.get()}),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("gradOutput shape [1] cannot broadcast into self shape []"));
  EXPECT_EQ(Plan({self.get(), self.get(), self.get(), nullptr, Mean, self.get()}), ACLNN_SUCCESS);
}

TEST(BinaryCrossEntropyBackwardChecks, EmptySelfSkipsTheShapeChecks) {
  DeviceTensor empty({2, 0}, ACL_FLOAT, {}), other({3, 7}, ACL_FLOAT, {});
  EXPECT_EQ(Plan({other.get(), empty.get(), other.get(), other.get(), Mean, other.get()}),
            ACLNN_SUCCESS);
}

TEST(BinaryCrossEntropyBackwardChecks, FormatsOfTargetAndWeightMustEqualSelfs) {
  const Shape shape{2, 3, 4, 5};
  DeviceTensor memory(shape, ACL_FLOAT, Probabilities(120));
  FormattedTensor nchw(shape, ACL_FLOAT, ACL_FORMAT_NCHW, memory.device());
  const aclTensor* nd = memory.get();
  EXPECT_EQ(Plan({nd, nd, nchw.get(), nullptr, None, memory.get()}), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("target format 0 must equal self format 2."));
  EXPECT_EQ(Plan({nd, nd, nd, nchw.get(), None, memory.get()}), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(ErrorMentions("weight format 0 must equal self format 2."));
  // gradOutput's and out's formats are not compared (as CANN).
  EXPECT_EQ(Plan({nchw.get(), nd, nd, nullptr, None, nchw.get()}), ACLNN_SUCCESS);
}

TEST(BinaryCrossEntropyBackwardChecks, ReductionOutsideZeroToTwoIs161002) {
  DeviceTensor t({3}, ACL_FLOAT, {});
  for (int64_t reduction : {-1, 3}) {
    EXPECT_EQ(Plan({t.get(), t.get(), t.get(), nullptr, reduction, t.get()}),
              ACLNN_ERR_PARAM_INVALID);
    EXPECT_TRUE(ErrorMentions("Reduction only support [0, 1, 2]"));
  }
}

// --- Values against the long-double reference ---

struct ValueCase {
  aclDataType dtype, out_dtype;
  int64_t reduction;
  Shape shape;
  bool weighted;
};

class BinaryCrossEntropyBackwardValues : public ::testing::TestWithParam<ValueCase> {};

TEST_P(BinaryCrossEntropyBackwardValues, AreTheExactGradientCorrectlyRounded) {
  const ValueCase c = GetParam();
  int64_t count = 1;
  for (int64_t dim : c.shape) count *= dim;
  const int64_t columns = c.shape.back();
  // gradOutput: self's shape for none, one element otherwise; weight one per column.
  const Shape grad_shape = c.reduction == None ? c.shape : Shape{1};
  DeviceTensor grad(grad_shape, c.dtype, Probabilities(count, 0.6f)),
      self(c.shape, c.dtype, Probabilities(count)),
      target(c.shape, c.dtype, Probabilities(count, 0.37f)),
      weight({columns}, c.dtype, Probabilities(columns, 0.2f)), out(c.shape, c.out_dtype, {});
  ASSERT_EQ(RunOp({grad.get(), self.get(), target.get(), c.weighted ? weight.get() : nullptr,
                   c.reduction, out.get()}),
            ACLNN_SUCCESS);
  const std::vector<float> g = grad.Read(), x = self.Read(), t = target.Read(), w = weight.Read(),
                           got = out.Read();
  for (int64_t i = 0; i < count; ++i) {
    long double exact = ExactProbabilityGradient(x[i], t[i], c.weighted ? w[i % columns] : 1.0f,
                                                 g[c.reduction == None ? i : 0]);
    if (c.reduction == Mean) exact /= count;
    EXPECT_TRUE(CorrectlyRounded(got[i], exact, c.out_dtype)) << "element " << i;
  }
}

std::string ValueCaseName(const ::testing::TestParamInfo<ValueCase>& param) {
  static const char* const kReductions[] = {"None", "Mean", "Sum"};
  return std::string(kReductions[param.param.reduction]) + "Case" + std::to_string(param.index);
}

INSTANTIATE_TEST_SUITE_P(Cases, BinaryCrossEntropyBackwardValues,
                         ::testing::Values(ValueCase{ACL_FLOAT, ACL_FLOAT, None, {2, 2}, true},
                                           ValueCase{ACL_FLOAT, ACL_FLOAT, Mean, {7, 300}, true},
                                           ValueCase{ACL_FLOAT, ACL_FLOAT, Sum, {5000}, false},
                                           ValueCase{
                                               ACL_FLOAT16, ACL_FLOAT16, Mean, {64, 70}, true},
                                           ValueCase{ACL_FLOAT16, ACL_FLOAT, None, {9, 9}, true},
                                           ValueCase{ACL_BF16, ACL_BF16, None, {3, 4, 5}, false},
                                           ValueCase{ACL_BF16, ACL_FLOAT16, Sum, {1000}, true}),
                         ValueCaseName);

// CANN's example's data: gradOutput 0.1, self 0.3, target 0.5, weight 1, none -> -0.095238.
TEST(BinaryCrossEntropyBackwardValues, CannsExampleGivesItsDigits) {
  const auto filled = [](float value) { return std::vector<float>(4, value); };
  DeviceTensor grad({2, 2}, ACL_FLOAT, filled(0.1f)), self({2, 2}, ACL_FLOAT, filled(0.3f)),
      target({2, 2}, ACL_FLOAT, filled(0.5f)), weight({2, 2}, ACL_FLOAT, filled(1.0f)),
      out({2, 2}, ACL_FLOAT, {});
  ASSERT_EQ(RunOp({grad.get(), self.get(), target.get(), weight.get(), None, out.get()}),
            ACLNN_SUCCESS);
  for (float value : out.Read()) {
    EXPECT_EQ(std::round(value * 1e6f), -95238.0f);
    EXPECT_TRUE(CorrectlyRounded(value, ExactProbabilityGradient(0.3f, 0.5L, 1, 0.1f), ACL_FLOAT));
  }
}

// x at 0 and 1 (the fl32(1e-12) floor: 1e12 and beyond fp16's range), x(1-x) just above and
// below the floor, and x outside [0, 1] (finite: the formula has no log).
TEST(BinaryCrossEntropyBackwardValues, BoundaryInputs) {
  const std::vector<float> x = {0, 0, 1, 1, 1e-12f, 2e-12f, 1e-30f, 0.5f, -0.25f, 1.5f};
  const std::vector<float> t = {0, 1, 0, 1, 0, 1, 1, 0.5f, 0, 1};
  const Shape shape{static_cast<int64_t>(x.size())};
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    SCOPED_TRACE(dtype);
    DeviceTensor grad({}, dtype, {0.75f}), self(shape, dtype, x), target(shape, dtype, t),
        out(shape, dtype, {});
    ASSERT_EQ(RunOp({grad.get(), self.get(), target.get(), nullptr, Sum, out.get()}),
              ACLNN_SUCCESS);
    const std::vector<float> xs = self.Read(), got = out.Read();
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_TRUE(CorrectlyRounded(got[i], ExactProbabilityGradient(xs[i], t[i], 1, 0.75f), dtype))
          << i;
    }
  }
}

TEST(BinaryCrossEntropyBackwardValues, EmptySelfWritesNothing) {
  DeviceTensor empty({2, 0}, ACL_FLOAT, {}), untouched({3}, ACL_FLOAT, {5, 5, 5});
  EXPECT_EQ(RunOp({untouched.get(), empty.get(), empty.get(), nullptr, Mean, untouched.get()}),
            ACLNN_SUCCESS);
  EXPECT_EQ(untouched.Read(), std::vector<float>(3, 5.0f));
}

TEST(BinaryCrossEntropyBackwardValues, NonContiguousTensorsAreReadInPlace) {
  const Shape shape{5, 4}, storage{4, 5}, strides{1, 5};
  const std::vector<float> xs = Probabilities(20, 0.3f), ts = Probabilities(20, 0.8f);
  DeviceTensor grad({}, ACL_FLOAT, {2.0f}), self(shape, ACL_FLOAT, xs, strides, 0, storage),
      target(shape, ACL_FLOAT, ts, strides, 0, storage), out(shape, ACL_FLOAT, {});
  ASSERT_EQ(RunOp({grad.get(), self.get(), target.get(), nullptr, Mean, out.get()}), ACLNN_SUCCESS);
  const std::vector<float> got = out.Read();
  for (int row = 0; row < 5; ++row) {
    for (int col = 0; col < 4; ++col) {
      const int at = col * 5 + row;
      const long double exact = ExactProbabilityGradient(xs[at], ts[at], 1, 2) / 20;
      EXPECT_TRUE(CorrectlyRounded(got[row * 4 + col], exact, ACL_FLOAT));
    }
  }
}

}  // namespace
}  // namespace openaclnn::testing
