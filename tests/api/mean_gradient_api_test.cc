// A mean's gradients through the C API: with reduction mean, each element of the gradient is
// RN(g f' / N), N the element count, the exact value divided by N and rounded once. The Backward
// ops of both families and the fused loss-and-gradient op, in fp32, fp16 and bf16, on and beside
// the midpoints of the output type (tests/unit/kernels/mean_gradient_boundaries.h: tensors of N
// such elements, N = 3, 5, 7 and a large odd one), each result against the exact GMP oracle.
#include <algorithm>
#include <iostream>
#include <vector>

#include "../unit/kernels/mean_gradient_boundaries.h"
#include "aclnnop/aclnn_binary_cross_entropy_backward.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_target_backward.h"
#include "op_tester.h"
#include "openaclnn/aclnn_binary_cross_entropy_with_logits_and_grad.h"

namespace openaclnn::testing {
namespace {

// One op's tensors: `out` its gradient (the fused op's gradSelfOut), `loss` the fused op's out.
struct Tensors {
  DeviceTensor *self, *target, *weight, *grad_output, *out, *loss;
};
using Call = aclnnStatus (*)(const Tensors& tensors, uint64_t* size, aclOpExecutor** executor);
using Launch = aclnnStatus (*)(void*, uint64_t, aclOpExecutor*, aclrtStream);

aclTensor* Get(const DeviceTensor* tensor) { return tensor == nullptr ? nullptr : tensor->get(); }

// An op whose gradient with reduction mean is `form` divided by N. `grad_output`: it takes a
// gradOutput per element; else (the fused op: its mean loss's gradOutput is one value) none, 1.
struct Api {
  const char* name;
  GradientForm form;
  bool grad_output;
  Call plan;
  Launch launch;
};

const Api kApis[] = {
    {"aclnnBinaryCrossEntropyWithLogitsBackward", GradientForm::kWithLogitsSelf, true,
     [](const Tensors& t, uint64_t* size, aclOpExecutor** executor) {
       return aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
           Get(t.grad_output), Get(t.self), Get(t.target), Get(t.weight), nullptr, 1, Get(t.out),
           size, executor);
     },
     aclnnBinaryCrossEntropyWithLogitsBackward},
    {"aclnnBinaryCrossEntropyWithLogitsTargetBackward", GradientForm::kWithLogitsTarget, true,
     [](const Tensors& t, uint64_t* size, aclOpExecutor** executor) {
       return aclnnBinaryCrossEntropyWithLogitsTargetBackwardGetWorkspaceSize(
           Get(t.grad_output), Get(t.self), Get(t.target), Get(t.weight), nullptr, 1, Get(t.out),
           size, executor);
     },
     aclnnBinaryCrossEntropyWithLogitsTargetBackward},
    {"aclnnBinaryCrossEntropyBackward", GradientForm::kProbabilitySelf, true,
     [](const Tensors& t, uint64_t* size, aclOpExecutor** executor) {
       return aclnnBinaryCrossEntropyBackwardGetWorkspaceSize(Get(t.grad_output), Get(t.self),
                                                              Get(t.target), Get(t.weight), 1,
                                                              Get(t.out), size, executor);
     },
     aclnnBinaryCrossEntropyBackward},
    {"aclnnBinaryCrossEntropyWithLogitsAndGrad", GradientForm::kWithLogitsSelf, false,
     [](const Tensors& t, uint64_t* size, aclOpExecutor** executor) {
       return aclnnBinaryCrossEntropyWithLogitsAndGradGetWorkspaceSize(
           Get(t.self), Get(t.target), Get(t.weight), nullptr, nullptr, 1, Get(t.loss), Get(t.out),
           size, executor);
     },
     aclnnBinaryCrossEntropyWithLogitsAndGrad},
};

aclDataType DtypeOf(FloatType type) {
  return type == FloatType::kFloat32   ? ACL_FLOAT
         : type == FloatType::kFloat16 ? ACL_FLOAT16
                                       : ACL_BF16;
}

// Runs phase 1 and phase 2 with a workspace of the size phase 1 asks for.
void RunOp(const Api& api, const Tensors& tensors) {
  uint64_t size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(api.plan(tensors, &size, &executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  void* workspace = nullptr;
  if (size > 0) {
    ASSERT_EQ(aclrtMalloc(&workspace, size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
  EXPECT_EQ(api.launch(workspace, size, executor, AclEnvironment::stream), ACLNN_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(AclEnvironment::stream), ACL_SUCCESS);
  if (workspace != nullptr) aclrtFree(workspace);
}

// The cases of `spec` through `api`, in tensors of N elements: for N below their count, calls of
// N cases each (the last filled from the first again); else one call, the elements after the
// cases ordinary ones (x = 1/4, t = 1/2, which settle at once). Each case's result against the
// oracle.
void CheckSpec(const BoundarySpec& spec, const Api& api, uint32_t seed, BoundaryTally& tally) {
  const std::vector<BoundaryCase> cases = BoundaryCases(spec, 6, seed);
  if (cases.empty()) return;
  const int64_t n = spec.divisor;
  const auto size = static_cast<int64_t>(cases.size());
  const int64_t calls = (size + n - 1) / n;
  const aclDataType dtype = DtypeOf(spec.input);
  std::vector<bool> seen(cases.size(), false);
  for (int64_t call = 0; call < calls; ++call) {
    std::vector<float> x, t, w, g;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = n < size ? (call * n + i) % size : i;
      ElementInputs in{0.25f, 0.5f, 1.0f, 1.0f, 1.0f};
      if (k < size) in = cases[k].in;
      x.push_back(in.x), t.push_back(in.t), w.push_back(in.w), g.push_back(in.g);
    }
    const std::vector<int64_t> shape{n};
    DeviceTensor self(shape, dtype, x), target(shape, dtype, t), weight(shape, dtype, w);
    DeviceTensor grad(shape, dtype, g), out(shape, dtype, {}), loss({}, dtype, {});
    RunOp(api, {&self, &target, spec.weighted ? &weight : nullptr,
                spec.grad_output ? &grad : nullptr, &out, &loss});
    const std::vector<float> got = out.Read();
    for (int64_t i = 0; i < std::min(n, size); ++i) {
      const int64_t k = n < size ? (call * n + i) % size : i;
      if (!seen[k]) {  // each case tallied once; its repeats must give its bits too
        seen[k] = true;
        Tally(tally, spec, cases[k], got[i]);
      } else if (got[i] != ExpectedGradient(spec.form, cases[k].in, n, spec.output)) {
        ++tally.wrong;
      }
    }
  }
}

// Every op, with and without a weight (the Backwards with a gradOutput per element, the fused op
// with none), each dtype: every case's result correctly rounded.
TEST(MeanGradientApi, EachElementIsTheQuotientByTheCountRoundedOnce) {
  uint32_t seed = 300;
  for (const Api& api : kApis) {
    BoundaryTally tally;
    for (const BoundarySpec& spec : BoundarySpecs(api.form)) {
      if (spec.input != spec.output || spec.grad_output != api.grad_output) continue;
      CheckSpec(spec, api, seed++, tally);
    }
    std::cout << api.name << ": " << tally.ties << " ties, " << tally.besides << " beside them, "
              << tally.wrong << " wrong\n";
    EXPECT_EQ(tally.wrong, 0) << api.name << ": first " << tally.first_wrong;
    EXPECT_GT(tally.ties, 50) << api.name;
  }
}

}  // namespace
}  // namespace openaclnn::testing
