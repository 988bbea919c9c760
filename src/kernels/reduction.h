// The deterministic reduction of mean and sum, defined once for every backend: a result never
// depends on the thread count, the SIMD width or the device, because every backend cuts the
// elements into the same blocks, sums each block in the same order, and combines the blocks'
// sums in the same order. And it is the exact sum of the exact terms, rounded once: the fp64 sum
// carries an error bound, and where that bound leaves the rounding in doubt (rarely: a total near
// a rounding boundary of the output type) every term is added again exactly, into an ExactSum
// (exact_sum.h: no rounding, so no order), and that sum divided and rounded once (the exact
// pass).
#pragma once

#include <cmath>
#include <cstdint>

#include "base/dtype.h"
#include "kernels/double_double.h"
#include "kernels/exact_sum.h"

namespace openaclnn {

// Elements per reduction block: block b holds flat elements [b * kReductionBlock, ...).
inline constexpr int64_t kReductionBlock = 4096;

// Lanes of the in-block order: element i of a block is added to lane i % kBlockLanes.
inline constexpr int kBlockLanes = 16;

// Written without count + kReductionBlock - 1, which overflows for counts near INT64_MAX.
OPENACLNN_HOST_DEVICE inline constexpr int64_t ReductionBlocks(int64_t count) {
  return count / kReductionBlock + (count % kReductionBlock != 0 ? 1 : 0);
}

// A lane's or a block's share of a mean or sum: the fp64 sum of its elements' term estimates and
// the sum of their error bounds (NaN if an element had an input that is not finite).
struct Partial {
  double sum = 0.0;
  double bound = 0.0;
};

OPENACLNN_HOST_DEVICE inline Partial operator+(Partial a, Partial b) {
  return {a.sum + b.sum, a.bound + b.bound};
}

// The fixed summation order of a block: kBlockLanes lanes, element i going to lane i % 16, each
// lane summed in index order from +0.0, then the lanes folded pairwise (8, 4, 2, 1).
template <class T>
OPENACLNN_HOST_DEVICE inline T FoldLanes(T* lanes) {
  for (int width = kBlockLanes / 2; width >= 1; width /= 2) {
    for (int lane = 0; lane < width; ++lane) lanes[lane] = lanes[lane] + lanes[lane + width];
  }
  return lanes[0];
}

// What a total's combine (SettleReduction) leaves to do: nothing (its rounding is certain); the
// blocks' partials again with fp64 terms, where they had fp32 ones (a family's rule: its family
// struct's SumsFp32Terms); or the exact pass.
enum class ReductionPass : uint64_t { kSettled = 0, kFp64Terms = 1, kExact = 2 };

OPENACLNN_HOST_DEVICE inline ReductionPass NextReductionPass(bool settled, bool fp32_terms) {
  if (settled) return ReductionPass::kSettled;
  return fp32_terms ? ReductionPass::kFp64Terms : ReductionPass::kExact;
}

// The workspace of a total (ReductionWorkspaceBytes): each block's Partial, then one ExactSum a
// device's blocks may add the exact pass's terms into (the CPU keeps its own), a word a backend
// may use to tell its device which pass runs next (a ReductionPass), and an integer total's
// wrapping sum (LossProblem::integer).
struct ReductionWorkspace {
  Partial* partials;
  math::exact::ExactSum* exact;
  ReductionPass* next_pass;
  uint64_t* integer_total;
};

OPENACLNN_HOST_DEVICE inline uint64_t ReductionWorkspaceBytesFor(int64_t count) {
  const auto blocks = static_cast<uint64_t>(ReductionBlocks(count));
  return blocks * sizeof(Partial) + sizeof(math::exact::ExactSum) + sizeof(ReductionPass) +
         sizeof(uint64_t);
}

OPENACLNN_HOST_DEVICE inline ReductionWorkspace ReductionWorkspaceAt(void* workspace,
                                                                     int64_t count) {
  const int64_t blocks = ReductionBlocks(count);
  auto* partials = static_cast<Partial*>(workspace);
  auto* exact = reinterpret_cast<math::exact::ExactSum*>(partials + blocks);
  auto* next_pass = reinterpret_cast<ReductionPass*>(exact + 1);
  return {partials, exact, next_pass, reinterpret_cast<uint64_t*>(next_pass + 1)};
}

// Every element's partial sums within its block (256 in its lane, 4 folds), each fp64 addition
// erring by at most 2^-53 of its result.
inline constexpr double kBlockSumDepth = 260.0;
static_assert(kBlockSumDepth == kReductionBlock / kBlockLanes + 4 && kBlockLanes == 16);

// N >= 0 as a double-double (exact for any int64): its high and low 32 bits, each exact.
OPENACLNN_HOST_DEVICE inline math::exact::DD CountAsDD(int64_t count) {
  return math::exact::TwoSum(static_cast<double>(count >> 32) * 0x1p32,
                             static_cast<double>(count & 0xffffffff));
}

// The blocks' partials of one output element combined in block order 0, 1, 2, ... in
// double-double, and the rounding test of that sum divided by a divisor (1 for a sum).
struct PartialsTotal {
  math::exact::DD total;
  double bound = 0.0;
  // A partial that is not finite (an element's input was not) makes the total the plain fp64
  // sum, IEEE's class of it: TwoSum's error term of an infinity is inf - inf, a NaN.
  OPENACLNN_HOST_DEVICE void Add(const Partial& partial) {
    if (std::isfinite(total.hi) && std::isfinite(partial.sum)) {
      total = math::exact::Add(total, math::exact::DD{partial.sum, 0.0});
    } else {
      total = {total.hi + partial.sum, 0.0};
    }
    bound += partial.bound;
  }

  // True where the rounding of total / divisor to `type` is certain, with *value a double whose
  // one rounding to `type` (RoundOnce) is the result; false where the exact pass must decide.
  // The error bound: the elements' own bounds, each element's in-block additions (at most
  // kBlockSumDepth of them, each within 2^-53 of a partial sum, and a partial sum is at most the
  // terms its elements' bounds are `term_error` of: the family's kTermError), the double-double
  // combine and the division (2^-100 of the result, generously), and the two roundings of value
  // -+ bound (2^-52).
  OPENACLNN_HOST_DEVICE bool Settle(int64_t divisor, FloatType type, double term_error,
                                    double* value) const {
    // An element whose input was not finite: the total's class (NaN, +-inf) is the result
    // (divided as a double: the double-double quotient of an infinity is NaN).
    if (!std::isfinite(total.hi)) {
      *value = total.hi / static_cast<double>(divisor);
      return true;
    }
    math::exact::DD quotient = total;
    if (divisor != 1) quotient = math::exact::Div(total, CountAsDD(divisor));
    *value = quotient.hi + quotient.lo;
    if (std::isnan(bound)) return false;  // a finite total with a reference term: the exact pass
    const double scaled_bound = divisor != 1 ? bound / static_cast<double>(divisor) : bound;
    const double magnitude = std::fabs(*value);
    const double error = scaled_bound * (1.0 + kBlockSumDepth * 0x1p-53 / term_error) +
                         magnitude * (0x1p-100 + 0x1p-52);
    const double widened = error * (1.0 + 0x1p-40);  // the rounding of this bound's arithmetic
    return RoundOnce(*value - widened, type) == RoundOnce(*value + widened, type);
  }
};

// PartialsTotal of `blocks` partials in an array (a total's workspace).
OPENACLNN_HOST_DEVICE inline bool SettleReduction(const Partial* partials, int64_t blocks,
                                                  int64_t divisor, FloatType type,
                                                  double term_error, double* value) {
  PartialsTotal total;
  for (int64_t block = 0; block < blocks; ++block) total.Add(partials[block]);
  return total.Settle(divisor, type, term_error, value);
}

}  // namespace openaclnn
