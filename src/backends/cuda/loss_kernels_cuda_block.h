// The CUDA kernels' steps, as host/device functions: reading an operand at a flat index (in
// place, broadcast, or gathered through strides), one element's value, its store, one lane of a
// reduction block, and the final combine. The GPU runs exactly these; host tests run them too and
// compare with the CPU backend bit for bit.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/loss_families.h"
#include "kernels/loss_problem.h"
#include "kernels/reduction.h"
#include "kernels/strided_operand.h"

namespace openaclnn::cuda {

enum class Access : uint8_t {
  kAbsent,    // reads as 1
  kFlat,      // flat index i is element offset + i
  kSplat,     // one value, broadcast
  kPeriodic,  // broadcast over leading dimensions: flat index i is element offset + i % period
  kGather,    // any other strides: the element is computed from the index
};

// One operand as a GPU thread reads or writes it.
struct DeviceOperand {
  void* base = nullptr;  // the tensor's storage address
  Access access = Access::kAbsent;
  bool vector_aligned = false;  // kFlat, and every 4-element group starts 4-element aligned
  int64_t period = 0;           // kPeriodic
  StridedOperand layout;
};

// Everything a kernel needs, passed by value as the kernel's argument.
struct DeviceLaunch {
  LossFamily family = LossFamily::kBceWithLogits;
  LossKind kind = LossKind::kLoss;
  int rank = 0;
  int64_t shape[kMaxRank] = {};
  int64_t count = 0;
  int64_t segment = 1;  // elements each output element sums (LossProblem)
  bool integer = false;
  ElementParameters parameters;
  DeviceOperand operand[kOperandCount];
  ReductionWorkspace workspace{};  // a total's (reduction.h)

  OPENACLNN_HOST_DEVICE bool Reduces() const { return segment > 1; }
  OPENACLNN_HOST_DEVICE bool Total() const { return Reduces() && segment == count; }
};

// Elements each thread of the element-wise kernel handles together (one 16-byte fp32 load).
inline constexpr int kVector = 4;

inline Access Classify(const StridedOperand& operand, const LossProblem& problem) {
  if (operand.slot < 0) return Access::kAbsent;
  if (IsSplat(operand, problem.rank)) return Access::kSplat;
  if (IsFlat(operand, problem.shape, problem.rank)) return Access::kFlat;
  if (BroadcastPeriod(operand, problem.shape, problem.rank) != 0) return Access::kPeriodic;
  return Access::kGather;
}

inline DeviceLaunch MakeDeviceLaunch(const LossProblem& problem, const LaunchContext& launch) {
  DeviceLaunch device;
  device.family = problem.family;
  device.kind = problem.kind;
  device.rank = problem.rank;
  for (int d = 0; d < kMaxRank; ++d) device.shape[d] = problem.shape[d];
  device.count = problem.count;
  device.segment = problem.segment;
  device.integer = problem.integer;
  device.parameters = problem.parameters;
  for (int which = 0; which < kOperandCount; ++which) {
    const StridedOperand& layout = problem.operands[which];
    DeviceOperand& operand = device.operand[which];
    operand.layout = layout;
    operand.base = layout.slot < 0 ? nullptr : launch.addresses[layout.slot];
    // A total is one element, addressed by its offset alone; an output that sums segments is
    // reached through its strides (0 along the summed dimensions).
    const bool total_out = which == kOut && problem.Total();
    operand.access = total_out ? Access::kSplat : Classify(layout, problem);
    if (operand.access == Access::kPeriodic) {
      operand.period = BroadcastPeriod(layout, problem.shape, problem.rank);
    }
    const uint64_t size = StoredSize(layout);
    const uint64_t first = reinterpret_cast<uintptr_t>(operand.base) + layout.offset * size;
    // Vector loads read floating operands only; integers go one element at a time.
    operand.vector_aligned = operand.access == Access::kFlat && first % (kVector * size) == 0 &&
                             layout.integer == IntegerType::kNone;
  }
  if (problem.Total()) device.workspace = ReductionWorkspaceAt(launch.workspace, problem.count);
  return device;
}

OPENACLNN_HOST_DEVICE inline int64_t ElementAt(const DeviceLaunch& launch, int which,
                                               int64_t flat) {
  const DeviceOperand& operand = launch.operand[which];
  switch (operand.access) {
    case Access::kFlat:
      return operand.layout.offset + flat;
    case Access::kSplat:
      return operand.layout.offset;
    case Access::kPeriodic:
      return operand.layout.offset + flat % operand.period;
    default:
      return ElementOf(operand.layout, launch.shape, launch.rank, flat);
  }
}

OPENACLNN_HOST_DEVICE inline float ReadAt(const DeviceLaunch& launch, int which, int64_t flat) {
  const DeviceOperand& operand = launch.operand[which];
  if (operand.access == Access::kAbsent) return 1.0f;
  return LoadAs32(operand.base, operand.layout, ElementAt(launch, which, flat));
}

OPENACLNN_HOST_DEVICE inline ElementInputs InputsAt(const DeviceLaunch& launch, int64_t flat) {
  ElementInputs in;
  in.x = ReadAt(launch, kSelf, flat);
  in.t = ReadAt(launch, kTarget, flat);
  in.w = ReadAt(launch, kWeight, flat);
  in.p = ReadAt(launch, kPosWeight, flat);
  in.g = ReadAt(launch, kGradOutput, flat);
  return in;
}

// The helpers below take the family as a type: a kernel instantiated for one family holds that
// family's code alone (the default, AnyFamily, picks the launch's family at run time).
struct AnyFamily {};

template <class Family, class Function>
OPENACLNN_HOST_DEVICE decltype(auto) WithLaunchFamily(const DeviceLaunch& launch, Function&& f) {
  if constexpr (std::is_same_v<Family, AnyFamily>) {
    return WithFamily(launch.family, f);
  } else {
    return f(Family{});
  }
}

// The value of flat element `flat`, correctly rounded once to the output's type (as fp32).
template <class Family = AnyFamily>
OPENACLNN_HOST_DEVICE inline float EvaluateAt(const DeviceLaunch& launch, int64_t flat) {
  const ElementInputs in = InputsAt(launch, flat);
  return WithLaunchFamily<Family>(launch, [&](auto family) {
    return decltype(family)::Element(launch.kind, launch.parameters, in,
                                     launch.operand[kOut].layout.type);
  });
}

// Whether the launch is the fused loss-and-gradient pass (kGradSelfOut present).
OPENACLNN_HOST_DEVICE inline bool Fused(const DeviceLaunch& launch) {
  return launch.operand[kGradSelfOut].access != Access::kAbsent;
}

// Whether the launch's mean or sum adds fp32 terms in its first pass (the family's
// SumsFp32Terms).
template <class Family = AnyFamily>
OPENACLNN_HOST_DEVICE inline bool SumsFp32Terms(const DeviceLaunch& launch) {
  return WithLaunchFamily<Family>(launch, [&](auto family) {
    return decltype(family)::SumsFp32Terms(launch.operand[kSelf].layout.type,
                                           launch.operand[kOut].layout.type, Fused(launch),
                                           launch.operand[kGradSelfOut].layout.type);
  });
}

// What a sum adds for flat element `flat`: the family's fp32 term in a first pass that
// SumsFp32Terms, else its fp64 one.
template <class Family = AnyFamily>
OPENACLNN_HOST_DEVICE inline Partial TermAt(const DeviceLaunch& launch, int64_t flat,
                                            bool fp64_terms) {
  const ElementInputs in = InputsAt(launch, flat);
  const bool unweighted = launch.operand[kWeight].access == Access::kAbsent &&
                          launch.operand[kPosWeight].access == Access::kAbsent;
  const bool fp32_terms = !fp64_terms && SumsFp32Terms<Family>(launch);
  const ElementEstimate term = WithLaunchFamily<Family>(launch, [&](auto family) {
    return decltype(family)::Term(launch.kind, launch.parameters, in, fp32_terms, unweighted);
  });
  return {term.value, term.bound};
}

// The exact pass's term for flat element `flat`, added to `sum`.
template <class Family = AnyFamily>
OPENACLNN_HOST_DEVICE inline void AddExactTermAt(const DeviceLaunch& launch, int64_t flat,
                                                 math::exact::ExactSum& sum) {
  const ElementInputs in = InputsAt(launch, flat);
  WithLaunchFamily<Family>(launch, [&](auto family) {
    decltype(family)::AddExactTerm(launch.kind, launch.parameters, in, sum);
  });
}

// The exact divisor of a sum: the family's common denominator times the problem's divisor.
template <class Family = AnyFamily>
OPENACLNN_HOST_DEVICE inline math::exact::ExactDivisor ExactDivisorOf(const DeviceLaunch& launch) {
  const double denominator = WithLaunchFamily<Family>(
      launch, [&](auto family) { return decltype(family)::TermDenominator(launch.parameters); });
  return math::exact::DivisorOf(denominator, launch.parameters.divisor);
}

OPENACLNN_HOST_DEVICE inline void WriteAt(const DeviceLaunch& launch, int64_t flat, float value,
                                          int which = kOut) {
  const DeviceOperand& out = launch.operand[which];
  StoreFrom32(out.base, out.layout.type, ElementAt(launch, which, flat), value);
}

// The fused pass's second result at flat element `flat`: the self gradient (of the problem's
// gradOutput, divided by its divisor), bitwise what kind kGradSelf gives, stored to kGradSelfOut.
template <class Family = AnyFamily>
OPENACLNN_HOST_DEVICE inline void WriteGradientAt(const DeviceLaunch& launch, int64_t flat) {
  const ElementInputs in = InputsAt(launch, flat);
  const float value = WithLaunchFamily<Family>(launch, [&](auto family) {
    return decltype(family)::Element(LossKind::kGradSelf, launch.parameters, in,
                                     launch.operand[kGradSelfOut].layout.type);
  });
  WriteAt(launch, flat, value, kGradSelfOut);
}

// Lane `lane` of a block's fixed summation order (reduction.h): its elements lane,
// lane + kBlockLanes, ... in index order, summed from zero.
OPENACLNN_HOST_DEVICE inline double LaneSum(const double* values, int count, int lane) {
  double sum = 0.0;
  for (int i = lane; i < count; i += kBlockLanes) sum = sum + values[i];
  return sum;
}

// The exact terms of flat elements [begin, begin + count) added to `sum`.
template <class Family = AnyFamily>
OPENACLNN_HOST_DEVICE inline void AddExactTerms(const DeviceLaunch& launch, int64_t begin,
                                                int64_t count, math::exact::ExactSum& sum) {
  for (int64_t i = 0; i < count; ++i) AddExactTermAt<Family>(launch, begin + i, sum);
}

// The elements block `block` holds (the last block may be short).
OPENACLNN_HOST_DEVICE inline int BlockLength(const DeviceLaunch& launch, int64_t block) {
  const int64_t rest = launch.count - block * kReductionBlock;
  return static_cast<int>(rest < kReductionBlock ? rest : kReductionBlock);
}

// Writes `value` rounded once to the operand's type at element `element` (an integer operand's
// value is a whole number, written as it is).
OPENACLNN_HOST_DEVICE inline void StoreRounded(void* base, const StridedOperand& layout,
                                               int64_t element, double value) {
  if (layout.integer == IntegerType::kInt64) {
    static_cast<int64_t*>(base)[element] = static_cast<int64_t>(value);
    return;
  }
  const uint32_t bits = RoundOnce(value, layout.type);
  if (layout.type == FloatType::kFloat32) {
    static_cast<uint32_t*>(base)[element] = bits;
  } else {
    static_cast<uint16_t*>(base)[element] = static_cast<uint16_t>(bits);
  }
}

// The blocks' partials (of fp64 terms, or of the first pass's) combined in block order, divided,
// stored once rounded where that rounding is certain; else the workspace's next_pass word asks
// for the next pass (ReductionPass), and before the exact pass its ExactSum is cleared.
template <class Family = AnyFamily>
OPENACLNN_HOST_DEVICE inline void FinishReduction(const DeviceLaunch& launch, bool fp64_terms) {
  const DeviceOperand& out = launch.operand[kOut];
  double total = 0.0;
  const bool settled =
      SettleReduction(launch.workspace.partials, ReductionBlocks(launch.count),
                      launch.parameters.divisor, out.layout.type, TermError(launch.family), &total);
  const ReductionPass next =
      NextReductionPass(settled, !fp64_terms && SumsFp32Terms<Family>(launch));
  *launch.workspace.next_pass = next;
  if (next == ReductionPass::kExact) *launch.workspace.exact = math::exact::ExactSum();
  if (settled) StoreRounded(out.base, out.layout, out.layout.offset, total);
}

// The exact pass's rounding and store, where FinishReduction asked for it.
template <class Family = AnyFamily>
OPENACLNN_HOST_DEVICE inline void FinishExactReduction(const DeviceLaunch& launch) {
  if (*launch.workspace.next_pass != ReductionPass::kExact) return;
  const DeviceOperand& out = launch.operand[kOut];
  StoreRounded(out.base, out.layout, out.layout.offset,
               math::exact::RoundedQuotient(*launch.workspace.exact, ExactDivisorOf<Family>(launch),
                                            out.layout.type));
}

// The sum of `count` flat elements from `begin` (at most a block) in the block order: its terms
// (fp64 ones in the fp64 pass) into kBlockLanes lanes, folded.
template <class Family = AnyFamily>
OPENACLNN_HOST_DEVICE inline Partial RunPartial(const DeviceLaunch& launch, int64_t begin,
                                                int64_t count, bool fp64_terms) {
  Partial lanes[kBlockLanes];
  for (int64_t i = 0; i < count; ++i) {
    lanes[i % kBlockLanes] = lanes[i % kBlockLanes] + TermAt<Family>(launch, begin + i, fp64_terms);
  }
  return FoldLanes(lanes);
}

// Output element `element` of a launch whose output elements each sum a segment (one GPU thread
// each): its blocks' partials, their rounding test, the fp64 pass where the first had fp32 terms,
// and the exact pass, as the CPU's; stored once rounded.
template <class Family = AnyFamily>
OPENACLNN_HOST_DEVICE inline void SegmentAt(const DeviceLaunch& launch, int64_t element) {
  const int64_t first = element * launch.segment, end = first + launch.segment;
  const DeviceOperand& out = launch.operand[kOut];
  const FloatType type = out.layout.type;
  const double term_error = TermError(launch.family);
  const auto settled = [&](bool fp64_terms, double* value) {
    PartialsTotal total;
    for (int64_t begin = first; begin < end; begin += kReductionBlock) {
      const int64_t count = end - begin < kReductionBlock ? end - begin : kReductionBlock;
      total.Add(RunPartial<Family>(launch, begin, count, fp64_terms));
    }
    return total.Settle(launch.parameters.divisor, type, term_error, value);
  };
  double value = 0.0;
  if (!settled(false, &value) && !(SumsFp32Terms<Family>(launch) && settled(true, &value))) {
    math::exact::ExactSum sum;
    AddExactTerms<Family>(launch, first, launch.segment, sum);
    value = math::exact::RoundedQuotient(sum, ExactDivisorOf<Family>(launch), type);
  }
  StoreRounded(out.base, out.layout, ElementAt(launch, kOut, first), value);
}

// An integer launch's value at flat element `flat` (the family's IntegerElement).
template <class Family = AnyFamily>
OPENACLNN_HOST_DEVICE inline int64_t IntegerAt(const DeviceLaunch& launch, int64_t flat) {
  const auto read = [&](int which) {
    const DeviceOperand& operand = launch.operand[which];
    return LoadInteger(operand.base, operand.layout.integer, ElementAt(launch, which, flat));
  };
  return WithLaunchFamily<Family>(launch, [&](auto family) -> int64_t {
    if constexpr (requires { decltype(family)::IntegerElement(int64_t{}, int64_t{}); }) {
      return decltype(family)::IntegerElement(read(kSelf), read(kTarget));
    } else {
      return 0;  // never planned: only a family with integer arithmetic gets integer problems
    }
  });
}

// An integer value stored to the output: as it is, or rounded once to a floating output.
OPENACLNN_HOST_DEVICE inline void WriteIntegerAt(const DeviceLaunch& launch, int64_t element,
                                                 int64_t value) {
  const DeviceOperand& out = launch.operand[kOut];
  if (out.layout.integer == IntegerType::kInt64) {
    static_cast<int64_t*>(out.base)[element] = value;
  } else {
    StoreFrom32(out.base, out.layout.type, element, IntegerToFloat(value, out.layout.type));
  }
}

// A fill of every element of a strided output with one rounded value.
struct DeviceFill {
  void* base = nullptr;
  FloatType type = FloatType::kFloat32;
  StridedOperand layout;
  int rank = 0;
  int64_t shape[kMaxRank] = {};
  int64_t count = 0;
  double value = 0.0;
};

inline DeviceFill MakeDeviceFill(const StridedOperand& out, const int64_t* shape, int rank,
                                 double value, const LaunchContext& launch) {
  DeviceFill fill;
  fill.base = launch.addresses[out.slot];
  fill.type = out.type;
  fill.layout = out;
  fill.rank = rank;
  fill.count = 1;
  for (int d = 0; d < rank; ++d) {
    fill.shape[d] = shape[d];
    fill.count *= shape[d];
  }
  fill.value = value;
  return fill;
}

OPENACLNN_HOST_DEVICE inline void FillAt(const DeviceFill& fill, int64_t flat) {
  StoreRounded(fill.base, fill.layout, ElementOf(fill.layout, fill.shape, fill.rank, flat),
               fill.value);
}

}  // namespace openaclnn::cuda
