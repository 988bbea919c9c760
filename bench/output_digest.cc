// Every op's outputs over a fixed catalogue of problems, one digest line per problem: run against
// two builds of the library (bench/outputs_ab.sh), a refactor that must not change a bit shows
// every line equal. Only the public C API is used, so one binary serves any build with the same
// ABI (the library is found through LD_LIBRARY_PATH).
//
// The catalogue: the four ops (forward, gradient with respect to self, to target, the one-pass
// loss and gradient) x fp32, fp16, bf16 x no weights, weight, pos_weight, both, per-class
// (broadcast) weights x reductions none, mean, sum x contiguous and transposed logits, each over
// input sets drawn as the rounding test draws them: random (the issue-16 distribution with its
// tails), special values, and inputs next to a rounding boundary of the output type (from a
// million draws, those whose value, in long double, lies nearest a midpoint of the output grid),
// next to the target gradient's zero, and the exact zeros of label smoothing at x = 0.
//
//   output_digest [--list]        prints "<problem> <fnv1a-64 of the output bytes> <status>"
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_target_backward.h"
#include "openaclnn/aclnn_binary_cross_entropy_with_logits_and_grad.h"

namespace {

constexpr int64_t kColumns = 16;  // problems are [rows, 16]; per-class weights are [16]

struct InputSet {
  std::string name;
  std::vector<float> x, t, w, p, g;  // g: the gradient ops' gradOutput, element-wise
};

// fp32 -> fp16 / bf16 and back, rounded to nearest even, infinities and NaN kept.
uint16_t ToHalfBits(float v) {
  const _Float16 h = static_cast<_Float16>(v);
  uint16_t bits;
  std::memcpy(&bits, &h, 2);
  return bits;
}
float FromHalfBits(uint16_t bits) {
  _Float16 h;
  std::memcpy(&h, &bits, 2);
  return static_cast<float>(h);
}
uint16_t ToBf16Bits(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  if (std::isnan(v)) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}
float FromBf16Bits(uint16_t bits) {
  const uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float v;
  std::memcpy(&v, &wide, 4);
  return v;
}
float InType(float v, aclDataType type) {
  if (type == ACL_FLOAT16) return FromHalfBits(ToHalfBits(v));
  if (type == ACL_BF16) return FromBf16Bits(ToBf16Bits(v));
  return v;
}

// The issue-16 distribution (rounding_test.cc: RandomInputs): |x| log-uniform over [1e-6, 120]
// with either sign, t uniform in [0, 1] with a third hard labels, w in [0, 4], p in [0, 8], g in
// [-2, 2]; one in 16 with |x| up to 1e4, one in 16 with p = 1 or w = 0.
InputSet RandomSet(uint32_t seed, int64_t count) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  InputSet set{"random", {}, {}, {}, {}, {}};
  for (int64_t i = 0; i < count; ++i) {
    const double magnitude = (rng() % 16 == 0) ? std::exp(unit(rng) * std::log(1e4))
                                               : 1e-6 * std::exp(unit(rng) * std::log(120e6));
    set.x.push_back(static_cast<float>(rng() % 2 ? magnitude : -magnitude));
    set.t.push_back(rng() % 3 == 0 ? static_cast<float>(rng() % 2) : static_cast<float>(unit(rng)));
    const uint32_t tail = rng() % 16;
    set.w.push_back(tail == 0 ? 0.0f : static_cast<float>(4 * unit(rng)));
    set.p.push_back(tail == 1 ? 1.0f : static_cast<float>(8 * unit(rng)));
    set.g.push_back(static_cast<float>(4 * unit(rng) - 2));
  }
  return set;
}

// Special values in every operand, each among ordinary ones.
InputSet SpecialSet() {
  const float inf = INFINITY, nan = NAN;
  const std::vector<float> specials = {0.0f,       -0.0f,  inf,   -inf,   nan,      0x1p-149f,
                                       -0x1p-149f, 1e-30f, 1e30f, -1e30f, 80.0f,    -80.0f,
                                       90.0f,      700.0f, -1.5f, 2.0f,   0x1p-24f, 65504.0f};
  InputSet set = RandomSet(7, 0);
  set.name = "special";
  std::mt19937 rng(11);
  for (int operand = 0; operand < 5; ++operand) {
    for (float special : specials) {
      for (int copy = 0; copy < kColumns; ++copy) {
        const bool put = copy == static_cast<int>(rng() % kColumns);
        const float ordinary = static_cast<float>(rng() % 1000) / 250.0f - 2.0f;
        set.x.push_back(put && operand == 0 ? special : ordinary);
        set.t.push_back(put && operand == 1 ? special : std::fabs(ordinary) / 4);
        set.w.push_back(put && operand == 2 ? special : std::fabs(ordinary));
        set.p.push_back(put && operand == 3 ? special : std::fabs(ordinary) * 2);
        set.g.push_back(put && operand == 4 ? special : ordinary);
      }
    }
  }
  return set;
}

// The exact values the ops approximate, in long double (accurate far beyond what choosing inputs
// near a rounding boundary needs).
long double SoftplusNeg(long double a) { return log1pl(expl(-a)); }
long double LossOf(float x, float t, float w, float p) {
  const long double a = std::fabs(static_cast<long double>(x)),
                    pt = static_cast<long double>(p) * t;
  const long double c = x < 0 ? pt : 1.0L - t;
  return w * (c * a + (pt + 1.0L - t) * SoftplusNeg(a));
}
long double GradSelfOf(float x, float t, float w, float p, float g) {
  const long double sig = 1.0L / (1.0L + expl(-static_cast<long double>(x)));
  return static_cast<long double>(g) * w * ((1.0L + (p - 1.0L) * t) * sig - p * t);
}
long double GradTargetOf(float x, float w, float p, float g) {
  const long double a = std::fabs(static_cast<long double>(x));
  return static_cast<long double>(g) * w * ((p - 1.0L) * SoftplusNeg(a) + (x < 0 ? p * a : -a));
}

// |v|'s distance from the nearest midpoint of `type`'s grid, in grid spacings (0: on one).
double FromMidpoint(long double v, aclDataType type) {
  const int precision = type == ACL_FLOAT ? 24 : type == ACL_FLOAT16 ? 11 : 8;
  const int min_exponent = type == ACL_FLOAT ? -126 : type == ACL_FLOAT16 ? -14 : -126;
  v = std::fabs(v);
  if (!(v > 0) || !std::isfinite(static_cast<double>(v))) return 1;
  int exponent = std::ilogb(static_cast<double>(v));
  if (exponent < min_exponent) exponent = min_exponent;
  const long double spacing = ldexpl(1.0L, exponent - (precision - 1));
  const long double position = v / spacing;
  return static_cast<double>(std::fabs(position - floorl(position) - 0.5L));
}

// From `draws` random inputs in `type`, the `keep` whose value (kind 0: loss, 1: self gradient,
// 2: target gradient) lies nearest a midpoint of `type`.
InputSet NearMidpoints(int kind, aclDataType type, bool weighted, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  const double threshold = type == ACL_FLOAT ? 0x1p-14 : type == ACL_FLOAT16 ? 0x1p-9 : 0x1p-7;
  InputSet set{"near_midpoint", {}, {}, {}, {}, {}};
  for (int draw = 0; draw < 1000000 && set.x.size() < 4096; ++draw) {
    const float x = InType((unit(rng) * 16 - 8) * (rng() % 8 == 0 ? 8 : 1), type);
    const float t = InType(rng() % 4 == 0 ? static_cast<float>(rng() % 2) : unit(rng), type);
    const float w = weighted ? InType(unit(rng) * 4, type) : 1.0f;
    const float p = weighted ? InType(unit(rng) * 8, type) : 1.0f;
    const float g = InType(unit(rng) * 4 - 2, type);
    const long double value = kind == 0   ? LossOf(x, t, w, p)
                              : kind == 1 ? GradSelfOf(x, t, w, p, g)
                                          : GradTargetOf(x, w, p, g);
    if (FromMidpoint(value, type) > threshold) continue;
    set.x.push_back(x), set.t.push_back(t), set.w.push_back(w), set.p.push_back(p);
    set.g.push_back(g);
  }
  return set;
}

// Next to the target gradient's zero: p = softplus(x) / softplus(-x) rounded to fp32.
InputSet NearTargetZero(uint32_t seed, int64_t count) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  InputSet set{"near_target_zero", {}, {}, {}, {}, {}};
  for (int64_t i = 0; i < count; ++i) {
    const float x = (unit(rng) - 0.5f) * 20;
    const long double a = std::fabs(static_cast<long double>(x));
    const long double pos = (x > 0 ? a : 0) + SoftplusNeg(a),
                      neg = (x < 0 ? a : 0) + SoftplusNeg(a);
    set.x.push_back(x), set.t.push_back(unit(rng)), set.w.push_back(unit(rng) * 4);
    set.p.push_back(static_cast<float>(pos / neg)), set.g.push_back(unit(rng) * 4 - 2);
  }
  return set;
}

// x = 0 and t*(1 + p) = 1: the self gradient is exactly 0 (label smoothing, zero logits).
InputSet ExactZeros(int64_t count) {
  InputSet set{"exact_zero", {}, {}, {}, {}, {}};
  for (int64_t i = 0; i < count; ++i) {
    set.x.push_back(i % 5 == 0 ? -0.0f : 0.0f), set.t.push_back(0.5f), set.w.push_back(1.0f);
    set.p.push_back(1.0f), set.g.push_back(i % 3 == 0 ? 0.0f : 1.0f);
  }
  return set;
}

// A device buffer and its tensor: [rows, 16] (or `shape`), contiguous or transposed (a [16, rows]
// block viewed through strides [1, rows]).
class Tensor {
 public:
  Tensor(const std::vector<float>& values, std::vector<int64_t> shape, aclDataType type,
         bool transposed = false) {
    const int64_t count = static_cast<int64_t>(values.size());
    const size_t size = aclDataTypeSize(type);
    std::vector<unsigned char> host(count * size + 1);
    std::vector<int64_t> strides, storage = shape;
    if (transposed) {
      strides = {1, shape[0]};
      storage = {shape[1], shape[0]};
    }
    for (int64_t i = 0; i < count; ++i) {
      // Element (r, c) of the view lies at c * rows + r when transposed.
      const int64_t at = transposed ? (i % shape[1]) * shape[0] + i / shape[1] : i;
      Put(host.data() + at * size, values[i], type);
    }
    bytes_ = count * size;
    aclrtMalloc(&device_, bytes_ + 64, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(device_, bytes_ + 1, host.data(), bytes_ + 1, ACL_MEMCPY_HOST_TO_DEVICE);
    tensor_ =
        aclCreateTensor(shape.data(), shape.size(), type, transposed ? strides.data() : nullptr, 0,
                        ACL_FORMAT_ND, storage.data(), storage.size(), device_);
  }
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
  ~Tensor() {
    aclDestroyTensor(tensor_);
    aclrtFree(device_);
  }
  aclTensor* get() const { return tensor_; }
  std::vector<unsigned char> Bytes() const {
    std::vector<unsigned char> host(bytes_);
    aclrtMemcpy(host.data(), bytes_, device_, bytes_, ACL_MEMCPY_DEVICE_TO_HOST);
    return host;
  }

 private:
  static void Put(unsigned char* at, float v, aclDataType type) {
    if (type == ACL_FLOAT) {
      std::memcpy(at, &v, 4);
    } else {
      const uint16_t bits = type == ACL_FLOAT16 ? ToHalfBits(v) : ToBf16Bits(v);
      std::memcpy(at, &bits, 2);
    }
  }
  void* device_ = nullptr;
  aclTensor* tensor_ = nullptr;
  size_t bytes_ = 0;
};

uint64_t Fnv1a(const std::vector<unsigned char>& bytes, uint64_t hash = 1469598103934665603ull) {
  for (unsigned char byte : bytes) hash = (hash ^ byte) * 1099511628211ull;
  return hash;
}

enum Weighting { kNoWeights, kWeight, kPosWeight, kBoth, kPerClass };
const char* const kWeightingNames[] = {"noweight", "weight", "pos_weight", "both", "perclass"};
const char* const kOpNames[] = {"loss", "grad_self", "grad_target", "loss_and_grad"};

struct Problem {
  int op;
  aclDataType type;
  Weighting weighting;
  int64_t reduction;
  bool transposed;
};

std::string TypeName(aclDataType type) {
  return type == ACL_FLOAT ? "fp32" : type == ACL_FLOAT16 ? "fp16" : "bf16";
}

// Runs one op on `set` (padded to whole rows) and prints its digest line.
void Run(const Problem& problem, InputSet set, aclrtStream stream) {
  const int64_t rows = (static_cast<int64_t>(set.x.size()) + kColumns - 1) / kColumns;
  const int64_t count = rows * kColumns;
  for (auto* v : {&set.x, &set.t, &set.w, &set.p, &set.g}) v->resize(count, 0.5f);
  const std::vector<int64_t> shape = {rows, kColumns}, per_class = {kColumns};
  const aclDataType type = problem.type;
  const bool reduced = problem.reduction != 0;
  Tensor self(set.x, shape, type, problem.transposed), target(set.t, shape, type);
  const std::vector<float> w16(set.w.begin(), set.w.begin() + kColumns),
      p16(set.p.begin(), set.p.begin() + kColumns);
  const bool per = problem.weighting == kPerClass;
  Tensor weight(per ? w16 : set.w, per ? per_class : shape, type);
  Tensor pos_weight(per ? p16 : set.p, per ? per_class : shape, type);
  const bool has_weight = problem.weighting != kNoWeights && problem.weighting != kPosWeight;
  const bool has_pos = problem.weighting != kNoWeights && problem.weighting != kWeight;
  aclTensor* w = has_weight ? weight.get() : nullptr;
  aclTensor* p = has_pos ? pos_weight.get() : nullptr;
  // Gradients take gradOutput element-wise for reduction none, one value for mean and sum.
  Tensor grad_output(reduced ? std::vector<float>{set.g[0]} : set.g,
                     reduced ? std::vector<int64_t>{} : shape, type);
  Tensor loss_out(std::vector<float>(reduced ? 1 : count, 0.0f),
                  reduced ? std::vector<int64_t>{} : shape, type);
  Tensor grad_out(std::vector<float>(count, 0.0f), shape, type);
  uint64_t bytes = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status = 0;
  const int64_t r = problem.reduction;
  switch (problem.op) {
    case 0:
      status = aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(self.get(), target.get(), w, p, r,
                                                                 loss_out.get(), &bytes, &executor);
      break;
    case 1:
      status = aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
          grad_output.get(), self.get(), target.get(), w, p, r, grad_out.get(), &bytes, &executor);
      break;
    case 2:
      status = aclnnBinaryCrossEntropyWithLogitsTargetBackwardGetWorkspaceSize(
          grad_output.get(), self.get(), target.get(), w, p, r, grad_out.get(), &bytes, &executor);
      break;
    default:
      status = aclnnBinaryCrossEntropyWithLogitsAndGradGetWorkspaceSize(
          self.get(), target.get(), w, p, nullptr, r, loss_out.get(), grad_out.get(), &bytes,
          &executor);
  }
  void* workspace = nullptr;
  if (status == 0) {
    if (bytes > 0) aclrtMalloc(&workspace, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    switch (problem.op) {
      case 0:
        status = aclnnBinaryCrossEntropyWithLogits(workspace, bytes, executor, stream);
        break;
      case 1:
        status = aclnnBinaryCrossEntropyWithLogitsBackward(workspace, bytes, executor, stream);
        break;
      case 2:
        status =
            aclnnBinaryCrossEntropyWithLogitsTargetBackward(workspace, bytes, executor, stream);
        break;
      default:
        status = aclnnBinaryCrossEntropyWithLogitsAndGrad(workspace, bytes, executor, stream);
    }
    aclrtSynchronizeStream(stream);
    if (workspace != nullptr) aclrtFree(workspace);
  }
  uint64_t hash = 0;
  if (status == 0) {
    hash = problem.op == 1 || problem.op == 2 ? Fnv1a(grad_out.Bytes()) : Fnv1a(loss_out.Bytes());
    if (problem.op == 3) hash = Fnv1a(grad_out.Bytes(), hash);
  }
  std::printf("%s/%s/%s/%s/%s/%s/%lld %016llx %d\n", kOpNames[problem.op], TypeName(type).c_str(),
              kWeightingNames[problem.weighting],
              r == 0   ? "none"
              : r == 1 ? "mean"
                       : "sum",
              problem.transposed ? "transposed" : "contiguous", set.name.c_str(),
              static_cast<long long>(count), static_cast<unsigned long long>(hash),
              static_cast<int>(status));
}

// The input sets of one (op, dtype, weighting): narrowed to the dtype, as a user's tensors hold
// them.
std::vector<InputSet> SetsFor(int op, aclDataType type, Weighting weighting) {
  const int kind = op == 3 ? 0 : op;
  std::vector<InputSet> sets = {RandomSet(1234 + op, 20011),
                                RandomSet(4321, 4096),
                                SpecialSet(),
                                NearMidpoints(kind, type, weighting != kNoWeights, 99 + op),
                                NearTargetZero(5, 4000),
                                ExactZeros(1000)};
  if (op == 3) sets.push_back(NearMidpoints(1, type, weighting != kNoWeights, 77));
  for (InputSet& set : sets) {
    for (auto* v : {&set.x, &set.t, &set.w, &set.p, &set.g}) {
      for (float& value : *v) value = InType(value, type);
    }
  }
  return sets;
}

}  // namespace

int main() {
  if (aclInit(nullptr) != 0 || aclrtSetDevice(0) != 0) {
    std::fprintf(stderr, "output_digest: no device: %s\n", aclGetRecentErrMsg());
    return 1;
  }
  aclrtStream stream = nullptr;
  aclrtCreateStream(&stream);
  for (int op = 0; op < 4; ++op) {
    for (aclDataType type : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      for (int weighting = kNoWeights; weighting <= kPerClass; ++weighting) {
        const auto sets = SetsFor(op, type, static_cast<Weighting>(weighting));
        for (const InputSet& set : sets) {
          for (int64_t reduction = 0; reduction <= 2; ++reduction) {
            for (bool transposed : {false, true}) {
              Run({op, type, static_cast<Weighting>(weighting), reduction, transposed}, set,
                  stream);
            }
          }
        }
      }
    }
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}
