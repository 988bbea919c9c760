// The CUDA kernels' steps, as host/device functions: reading an operand at a flat index (in
// place, broadcast, or gathered through strides), one element's value, its store, one lane of a
// reduction block, and the final combine. The GPU runs exactly these; host tests run them too and
// compare with the CPU backend bit for bit.
#pragma once

#include <cstdint>

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
  Reduction reduction = Reduction::kNone;
  int rank = 0;
  int64_t shape[kMaxRank] = {};
  int64_t count = 0;
  double gradient_scale = 1.0;
  DeviceOperand operand[kOperandCount];
  ReductionWorkspace workspace{};  // mean and sum (reduction.h)
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
  device.reduction = problem.reduction;
  device.rank = problem.rank;
  for (int d = 0; d < kMaxRank; ++d) device.shape[d] = problem.shape[d];
  device.count = problem.count;
  device.gradient_scale = problem.gradient_scale;
  for (int which = 0; which < kOperandCount; ++which) {
    const StridedOperand& layout = problem.operands[which];
    DeviceOperand& operand = device.operand[which];
    operand.layout = layout;
    operand.base = layout.slot < 0 ? nullptr : launch.addresses[layout.slot];
    // A reduced output is one element, addressed by its offset alone.
    const bool reduced_out = which == kOut && problem.reduction != Reduction::kNone;
    operand.access = reduced_out ? Access::kSplat : Classify(layout, problem);
    if (operand.access == Access::kPeriodic) {
      operand.period = BroadcastPeriod(layout, problem.shape, problem.rank);
    }
    const uint64_t size = ElementSize(layout.type);
    const uint64_t first = reinterpret_cast<uintptr_t>(operand.base) + layout.offset * size;
    operand.vector_aligned = operand.access == Access::kFlat && first % (kVector * size) == 0;
  }
  if (problem.reduction != Reduction::kNone) {
    device.workspace = ReductionWorkspaceAt(launch.workspace, problem.count);
  }
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
  return LoadAs32(operand.base, operand.layout.type, ElementAt(launch, which, flat));
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

// The value of flat element `flat`, correctly rounded once to the output's type (as fp32).
OPENACLNN_HOST_DEVICE inline float EvaluateAt(const DeviceLaunch& launch, int64_t flat) {
  const ElementInputs in = InputsAt(launch, flat);
  return WithFamily(launch.family, [&](auto family) {
    return decltype(family)::Element(launch.kind, launch.gradient_scale, in,
                                     launch.operand[kOut].layout.type);
  });
}

// Whether the launch is the fused loss-and-gradient pass (kGradSelfOut present).
OPENACLNN_HOST_DEVICE inline bool Fused(const DeviceLaunch& launch) {
  return launch.operand[kGradSelfOut].access != Access::kAbsent;
}

// Whether the launch's mean or sum adds fp32 terms in its first pass (the family's
// SumsFp32Terms).
OPENACLNN_HOST_DEVICE inline bool SumsFp32Terms(const DeviceLaunch& launch) {
  return WithFamily(launch.family, [&](auto family) {
    return decltype(family)::SumsFp32Terms(launch.operand[kSelf].layout.type,
                                           launch.operand[kOut].layout.type, Fused(launch),
                                           launch.operand[kGradSelfOut].layout.type);
  });
}

// What a mean or sum adds for flat element `flat`: the family's fp32 term in a first pass that
// SumsFp32Terms, else its fp64 one.
OPENACLNN_HOST_DEVICE inline Partial LossTermAt(const DeviceLaunch& launch, int64_t flat,
                                                bool fp64_terms) {
  const ElementInputs in = InputsAt(launch, flat);
  const bool unweighted = launch.operand[kWeight].access == Access::kAbsent &&
                          launch.operand[kPosWeight].access == Access::kAbsent;
  const bool fp32_terms = !fp64_terms && SumsFp32Terms(launch);
  const ElementEstimate term = WithFamily(launch.family, [&](auto family) {
    return decltype(family)::LossTerm(in, fp32_terms, unweighted);
  });
  return {term.value, term.bound};
}

// The exact pass's term for flat element `flat` (tile_math.h: ExactTileSum's).
OPENACLNN_HOST_DEVICE inline math::exact::DD ExactLossAt(const DeviceLaunch& launch, int64_t flat) {
  const ElementInputs in = InputsAt(launch, flat);
  return WithFamily(launch.family,
                    [&](auto family) { return decltype(family)::ExactLossTerm(in); });
}

OPENACLNN_HOST_DEVICE inline void WriteAt(const DeviceLaunch& launch, int64_t flat, float value,
                                          int which = kOut) {
  const DeviceOperand& out = launch.operand[which];
  StoreFrom32(out.base, out.layout.type, ElementAt(launch, which, flat), value);
}

// The fused pass's second result at flat element `flat`: the self gradient (of the problem's
// gradOutput, times gradient_scale), bitwise what kind kGradSelf gives, stored to kGradSelfOut.
OPENACLNN_HOST_DEVICE inline void WriteGradientAt(const DeviceLaunch& launch, int64_t flat) {
  const ElementInputs in = InputsAt(launch, flat);
  const float value = WithFamily(launch.family, [&](auto family) {
    return decltype(family)::Element(LossKind::kGradSelf, launch.gradient_scale, in,
                                     launch.operand[kGradSelfOut].layout.type);
  });
  WriteAt(launch, flat, value, kGradSelfOut);
}

// Lane `lane` of a block's fixed summation order (reduction.h): its elements lane,
// lane + kBlockLanes, ... in index order, summed from zero (Partial or double-double).
template <class T>
OPENACLNN_HOST_DEVICE inline T LaneSum(const T* values, int count, int lane) {
  T sum{};
  for (int i = lane; i < count; i += kBlockLanes) sum = sum + values[i];
  return sum;
}

// The exact pass's sum of lane `lane` of block `block`, its terms computed in index order.
OPENACLNN_HOST_DEVICE inline math::exact::DD ExactLaneSum(const DeviceLaunch& launch, int64_t block,
                                                          int count, int lane) {
  math::exact::DD sum;
  for (int i = lane; i < count; i += kBlockLanes) {
    sum = sum + ExactLossAt(launch, block * kReductionBlock + i);
  }
  return sum;
}

// The elements block `block` holds (the last block may be short).
OPENACLNN_HOST_DEVICE inline int BlockLength(const DeviceLaunch& launch, int64_t block) {
  const int64_t rest = launch.count - block * kReductionBlock;
  return static_cast<int>(rest < kReductionBlock ? rest : kReductionBlock);
}

// Writes `value` rounded once to the operand's type at element `element`.
OPENACLNN_HOST_DEVICE inline void StoreRounded(void* base, FloatType type, int64_t element,
                                               double value) {
  const uint32_t bits = RoundOnce(value, type);
  if (type == FloatType::kFloat32) {
    static_cast<uint32_t*>(base)[element] = bits;
  } else {
    static_cast<uint16_t*>(base)[element] = static_cast<uint16_t>(bits);
  }
}

// The blocks' partials (of fp64 terms, or of the first pass's) combined in block order, divided
// for mean, stored once rounded where that rounding is certain; else the workspace's next_pass
// word asks for the next pass (ReductionPass).
OPENACLNN_HOST_DEVICE inline void FinishReduction(const DeviceLaunch& launch, bool fp64_terms) {
  const DeviceOperand& out = launch.operand[kOut];
  double total = 0.0;
  const bool settled = SettleReduction(launch.workspace.partials, ReductionBlocks(launch.count),
                                       launch.count, launch.reduction == Reduction::kMean,
                                       out.layout.type, LossTermError(launch.family), &total);
  *launch.workspace.next_pass = NextReductionPass(settled, !fp64_terms && SumsFp32Terms(launch));
  if (settled) StoreRounded(out.base, out.layout.type, out.layout.offset, total);
}

// The exact pass's combine and store, where FinishReduction asked for it.
OPENACLNN_HOST_DEVICE inline void FinishExactReduction(const DeviceLaunch& launch) {
  if (*launch.workspace.next_pass != ReductionPass::kExact) return;
  const DeviceOperand& out = launch.operand[kOut];
  const double total = ExactReduction(launch.workspace.exact, ReductionBlocks(launch.count),
                                      launch.count, launch.reduction == Reduction::kMean);
  StoreRounded(out.base, out.layout.type, out.layout.offset, total);
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
  StoreRounded(fill.base, fill.type, ElementOf(fill.layout, fill.shape, fill.rank, flat),
               fill.value);
}

}  // namespace openaclnn::cuda
