// A mean's gradients, RN(g f' / N), on and beside the midpoints of their output type
// (mean_gradient_boundaries.h), through the family's element function: the definition that the
// CPU's scalar path runs, that every SIMD lane left open reaches and that a GPU thread runs. Every
// result against the exact rational oracle; every tie must reach the exact path (no estimate can
// settle a value on a midpoint).
#include <gtest/gtest.h>

#include <cstdint>
#include <iostream>
#include <string>

#include "../../kernels/mean_gradient_boundaries.h"
#include "kernels/element_inputs.h"
#include "kernels/loss_problem.h"
#include "kernels/rounded_element.h"
#include "losses/binary_cross_entropy_with_logits/bce_with_logits_family.h"

namespace openaclnn {
namespace {

TEST(MeanGradient, OnAndBesideMidpointsEveryGradientIsTheQuotientRoundedOnce) {
  const struct {
    GradientForm form;
    LossKind kind;
    const char* name;
    int64_t least_ties;  // what the specs' slots allow, less a margin
  } forms[] = {
      {GradientForm::kWithLogitsSelf, LossKind::kGradSelf, "self gradient at x = 0", 1000},
      {GradientForm::kWithLogitsTarget, LossKind::kGradTarget, "target gradient, p = 1", 800}};
  for (const auto& [form, kind, name, least_ties] : forms) {
    BoundaryTally tally;
    int64_t settled_ties = 0;
    uint32_t seed = 1;
    for (const BoundarySpec& spec : BoundarySpecs(form)) {
      const ElementParameters parameters = DividedBy(spec.divisor);
      for (const BoundaryCase& c : BoundaryCases(spec, 24, seed++)) {
        Tally(tally, spec, c, BceElement(kind, parameters, c.in, spec.output));
        double settled = 0.0;
        if (c.tie && SettledIn(BceEstimate(kind, parameters.scale, c.in), spec.output, &settled)) {
          ++settled_ties;
        }
      }
    }
    std::cout << name << ": " << tally.ties << " ties, " << tally.besides << " beside them, "
              << tally.wrong << " wrong\n";
    EXPECT_EQ(tally.wrong, 0) << name << ": first " << tally.first_wrong;
    EXPECT_EQ(settled_ties, 0) << name << ": an estimate settled a tie";
    EXPECT_GE(tally.ties, least_ties) << name;
  }
}

}  // namespace
}  // namespace openaclnn
