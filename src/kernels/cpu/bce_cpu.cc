// CPU execution of BceProblem: cut the flat index space into reduction blocks, bring each
// operand's block into contiguous fp32 (or read it in place when it already is), evaluate the
// element math on the tile, then store or reduce it.
#include <cmath>
#include <cstring>

#include "kernels/bce.h"
#include "kernels/cpu/strided.h"
#include "kernels/cpu/tile_math.h"

namespace openaclnn {
namespace {

using cpu::ForEachRun;

struct Tiles {
  float input[kOperandCount][kReductionBlock];
  float result[kReductionBlock];
};

// Returns the block's values of operand `which` as contiguous fp32: in place when the operand
// is flat fp32, else gathered (and widened) into `buffer`. nullptr for an absent operand.
const float* ReadBlock(const BceProblem& problem, const TensorAddresses& addresses,
                       const bool* flat, int which, int64_t begin, int64_t count, float* buffer) {
  const StridedOperand& operand = problem.operands[which];
  if (operand.slot < 0) return nullptr;
  const void* base = addresses[operand.slot];
  if (flat[which] && operand.type == FloatType::kFloat32) {
    return static_cast<const float*>(base) + operand.offset + begin;
  }
  float* next = buffer;
  ForEachRun(operand, problem.shape, problem.rank, begin, count,
             [&](int64_t element, int64_t length, int64_t stride) {
               for (int64_t i = 0; i < length; ++i) {
                 next[i] = cpu::LoadAs32(base, operand.type, element + i * stride);
               }
               next += length;
             });
  return buffer;
}

void WriteBlock(const BceProblem& problem, const TensorAddresses& addresses, int64_t begin,
                int64_t count, const float* values) {
  const StridedOperand& out = problem.operands[kOut];
  void* base = addresses[out.slot];
  ForEachRun(out, problem.shape, problem.rank, begin, count,
             [&](int64_t element, int64_t length, int64_t stride) {
               for (int64_t i = 0; i < length; ++i) {
                 cpu::StoreFrom32(base, out.type, element + i * stride, values[i]);
               }
               values += length;
             });
}

// The block's sum in the one order every backend uses: 16 fp64 lanes, element i of the block
// going to lane i % 16, then the lanes folded pairwise (8, 4, 2, 1).
double BlockSum(const float* values, int64_t count) {
  double lanes[16] = {};
  for (int64_t i = 0; i < count; ++i) lanes[i % 16] += static_cast<double>(values[i]);
  for (int width = 8; width >= 1; width /= 2) {
    for (int lane = 0; lane < width; ++lane) lanes[lane] += lanes[lane + width];
  }
  return lanes[0];
}

void RunBlock(const BceProblem& problem, const TensorAddresses& addresses, const bool* flat,
              int64_t block, double* partials) {
  thread_local Tiles tiles;
  const int64_t begin = block * kReductionBlock;
  const int64_t count = std::min(kReductionBlock, problem.count - begin);
  TileInputs inputs;
  for (int which = kSelf; which < kOut; ++which) {
    inputs.operand[which] =
        ReadBlock(problem, addresses, flat, which, begin, count, tiles.input[which]);
  }
  const bool store_in_place = problem.reduction == Reduction::kNone && flat[kOut] &&
                              problem.operands[kOut].type == FloatType::kFloat32;
  float* result = store_in_place ? static_cast<float*>(addresses[problem.operands[kOut].slot]) +
                                       problem.operands[kOut].offset + begin
                                 : tiles.result;
  EvaluateTile(problem.kind, problem.gradient_scale, inputs, count, result);
  if (problem.reduction != Reduction::kNone) {
    partials[block] = BlockSum(result, count);
  } else if (!store_in_place) {
    WriteBlock(problem, addresses, begin, count, result);
  }
}

}  // namespace

uint64_t BceWorkspaceBytes(const BceProblem& problem) {
  if (problem.reduction == Reduction::kNone) return 0;
  const int64_t blocks = (problem.count + kReductionBlock - 1) / kReductionBlock;
  return static_cast<uint64_t>(blocks) * sizeof(double);
}

void RunBce(const BceProblem& problem, const TensorAddresses& addresses, void* workspace) {
  bool flat[kOperandCount];
  for (int which = 0; which < kOperandCount; ++which) {
    flat[which] = cpu::IsFlat(problem.operands[which], problem.shape, problem.rank);
  }
  auto* partials = static_cast<double*>(workspace);
  const int64_t blocks = (problem.count + kReductionBlock - 1) / kReductionBlock;
  for (int64_t block = 0; block < blocks; ++block) {
    RunBlock(problem, addresses, flat, block, partials);
  }
  if (problem.reduction == Reduction::kNone) return;
  double total = 0.0;
  for (int64_t block = 0; block < blocks; ++block) total += partials[block];
  if (problem.reduction == Reduction::kMean) total /= static_cast<double>(problem.count);
  FillStrided(problem.operands[kOut], nullptr, 0, total, addresses);
}

void FillStrided(const StridedOperand& out, const int64_t* shape, int rank, double value,
                 const TensorAddresses& addresses) {
  static constexpr int64_t kOneElement[] = {1};
  if (rank == 0) {  // a rank-0 tensor is one element, reached through no stride
    shape = kOneElement;
    rank = 1;
  }
  int64_t count = 1;
  for (int d = 0; d < rank; ++d) count *= shape[d];
  const uint32_t bits = RoundOnce(value, out.type);
  const uint16_t half_bits = static_cast<uint16_t>(bits);
  const void* pattern = out.type == FloatType::kFloat32 ? static_cast<const void*>(&bits)
                                                        : static_cast<const void*>(&half_bits);
  const size_t size = ElementSize(out.type);
  char* base = static_cast<char*>(addresses[out.slot]);
  ForEachRun(out, shape, rank, 0, count, [&](int64_t element, int64_t length, int64_t stride) {
    for (int64_t i = 0; i < length; ++i) {
      std::memcpy(base + (element + i * stride) * static_cast<int64_t>(size), pattern, size);
    }
  });
}

}  // namespace openaclnn
