// A mean's gradient, RN(g w (x - t) / (x (1 - x)) / N), on and beside the midpoints of its output
// type (mean_gradient_boundaries.h: x = 1/2), through the family's element function, the
// definition every backend's paths reproduce: every result against the exact rational oracle;
// every tie must reach the exact path.
#include <gtest/gtest.h>

#include <cstdint>
#include <iostream>

#include "../../kernels/mean_gradient_boundaries.h"
#include "kernels/element_inputs.h"
#include "kernels/rounded_element.h"
#include "losses/binary_cross_entropy/binary_cross_entropy_gradient.h"

namespace openaclnn {
namespace {

TEST(MeanGradient, OnAndBesideMidpointsEveryGradientIsTheQuotientRoundedOnce) {
  BoundaryTally tally;
  int64_t settled_ties = 0;
  uint32_t seed = 1;
  for (const BoundarySpec& spec : BoundarySpecs(GradientForm::kProbabilitySelf)) {
    const ElementParameters parameters = DividedBy(spec.divisor);
    for (const BoundaryCase& c : BoundaryCases(spec, 24, seed++)) {
      Tally(tally, spec, c, BinaryCrossEntropyGradient(c.in, parameters, spec.output));
      double settled = 0.0;
      const ElementEstimate estimate = BinaryCrossEntropyGradientEstimate(c.in, parameters.scale);
      if (c.tie && SettledIn(estimate, spec.output, &settled)) ++settled_ties;
    }
  }
  std::cout << "gradient at x = 1/2: " << tally.ties << " ties, " << tally.besides
            << " beside them, " << tally.wrong << " wrong\n";
  EXPECT_EQ(tally.wrong, 0) << "first " << tally.first_wrong;
  EXPECT_EQ(settled_ties, 0) << "an estimate settled a tie";
  EXPECT_GE(tally.ties, 800);
}

}  // namespace
}  // namespace openaclnn
