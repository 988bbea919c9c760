// The error budget of the binary cross entropy loss (binary_cross_entropy_loss.h): the relative
// error bound of the loss's estimate, with its derivation from the fp64 logarithm's
// (kernels/transcendentals_error_budget.h: kLogError64) and its roundings. The rounding tests are
// exactly as sound as these bounds; binary_cross_entropy_loss_test.cc measures each against
// binary128.
#pragma once

#include "kernels/transcendentals_error_budget.h"

namespace openaclnn::math {

// ---- The loss estimate (BinaryCrossEntropyLoss64): -(a*L1) - b*L2, a = w*t exact (two fp32
// significands, between 2^-298 and 2^256), b = fl(w * fl(1 - t)) within two roundings of
// w*(1 - t), L1 and L2 the clamped logarithms within kLogError64 of themselves (-100 and 0 are
// exact), b*L2 rounded, and one fused rounding of the difference: within
// kLogError64 + 4 * 2^-53 < 2^-46.9 of the terms |a*L1| + |b*L2| before any cancellation (t
// outside [0, 1] gives the two terms opposite signs). The bound, formed as this fraction of the
// terms in fp64 (the terms themselves within 3 roundings and kLogError64, low), needs at most
// 2^-46.8; 2^-45 leaves a margin of 3.5. It is also the term error of a mean or sum
// (reduction.h: SettleReduction): every term's bound is this fraction of its terms, which are at
// least its value.
inline constexpr double kBinaryCrossEntropyLossError64 = 0x1p-45;
static_assert(kBinaryCrossEntropyLossError64 >= 3 * (kLogError64 + 4 * 0x1p-53));

}  // namespace openaclnn::math
