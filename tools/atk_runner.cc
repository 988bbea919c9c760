#include "atk_runner.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <memory>
#include <random>
#include <stdexcept>

#include "float_bits.h"
#include "openaclnn/op_table.h"

namespace openaclnn::tools {
namespace {

constexpr int32_t kDevice = 0;

std::string AclFailure(const char* call, int status) {
  const char* message = aclGetRecentErrMsg();
  return std::string(call) + " returned " + std::to_string(status) +
         (message != nullptr && message[0] != '\0' ? std::string(": ") + message : "");
}

aclDataType ToAcl(AtkDtype dtype) {
  switch (dtype) {
    case AtkDtype::kFloat16:
      return ACL_FLOAT16;
    case AtkDtype::kBFloat16:
      return ACL_BF16;
    case AtkDtype::kInt64:
      return ACL_INT64;
    case AtkDtype::kInt32:
      return ACL_INT32;
    default:
      return ACL_FLOAT;
  }
}

// Stores `value` in `dtype` at `out`: a float type rounds it to float first, then to the 16-bit
// type (the draws are in double); an integer type holds it exactly (an integer within its range,
// at most 2^62 for int64).
void StoreAs(AtkDtype dtype, double value, uint8_t* out) {
  if (dtype == AtkDtype::kInt64) {
    const auto integer = static_cast<int64_t>(value);
    std::memcpy(out, &integer, sizeof(integer));
    return;
  }
  if (dtype == AtkDtype::kInt32) {
    const auto integer = static_cast<int32_t>(value);
    std::memcpy(out, &integer, sizeof(integer));
    return;
  }
  const auto single = static_cast<float>(value);
  if (dtype == AtkDtype::kFloat32) {
    std::memcpy(out, &single, sizeof(single));
    return;
  }
  // aclFloatToFloat16 saturates infinities and NaN to +-65504, as CANN's does; a case of
  // ["inf"] or ["nan"] means the IEEE value.
  uint16_t bits = dtype == AtkDtype::kBFloat16 ? FloatToBf16(single) : aclFloatToFloat16(single);
  if (dtype == AtkDtype::kFloat16 && !std::isfinite(single)) {
    bits = std::isnan(single) ? 0x7E00 : single > 0 ? 0x7C00 : 0xFC00;
  }
  std::memcpy(out, &bits, sizeof(bits));
}

HostTensor Generate(const AtkTensor& spec, std::mt19937_64& engine) {
  HostTensor tensor{spec.name, spec.role, spec.dtype, spec.shape, {}};
  const size_t count = static_cast<size_t>(spec.numel());
  const size_t size = DtypeSize(spec.dtype);
  tensor.bytes.resize(count * size);
  const AtkValues& values = spec.values;
  if (values.kind == AtkValues::Kind::kChoice) {  // special values: every element one of them
    if (values.choices.size() == 1) {
      for (size_t i = 0; i < count; ++i)
        StoreAs(spec.dtype, values.choices[0], &tensor.bytes[i * size]);
      return tensor;
    }
    std::uniform_int_distribution<size_t> pick(0, values.choices.size() - 1);
    for (size_t i = 0; i < count; ++i) {
      StoreAs(spec.dtype, values.choices[pick(engine)], &tensor.bytes[i * size]);
    }
    return tensor;
  }
  if (values.kind == AtkValues::Kind::kNormal) {
    std::normal_distribution<double> normal(values.mean, values.stddev);
    for (size_t i = 0; i < count; ++i) StoreAs(spec.dtype, normal(engine), &tensor.bytes[i * size]);
    return tensor;
  }
  // Nothing to draw (CANN's backward cases are mostly zeros).
  if (values.low == values.high && values.extra.empty()) {
    for (size_t i = 0; i < count; ++i) StoreAs(spec.dtype, values.low, &tensor.bytes[i * size]);
    return tensor;
  }
  if (IsInteger(spec.dtype)) {
    // The integers of [low, high], then the extra values, each as likely.
    const auto last = static_cast<int64_t>(std::floor(values.high));
    std::uniform_int_distribution<int64_t> uniform(
        static_cast<int64_t>(std::ceil(values.low)),
        last + static_cast<int64_t>(values.extra.size()));
    for (size_t i = 0; i < count; ++i) {
      const int64_t drawn = uniform(engine);
      const double value = drawn <= last ? static_cast<double>(drawn)
                                         : values.extra[static_cast<size_t>(drawn - last - 1)];
      StoreAs(spec.dtype, value, &tensor.bytes[i * size]);
    }
    return tensor;
  }
  std::uniform_real_distribution<double> uniform(values.low, values.high);
  for (size_t i = 0; i < count; ++i) StoreAs(spec.dtype, uniform(engine), &tensor.bytes[i * size]);
  return tensor;
}

// The input whose dtype the op ties its outputs' to: the target's for the binary cross
// entropies (CANN checks out == target; their forwards' self shares it) and for a gradient with
// respect to target (aclnnKlDivTargetBackward checks gradTarget == target); self's for a
// class-axis op (CANN checks its outputs against self, whose class weights may be FLOAT while
// self is FLOAT16). nullptr for every other op: it computes in its inputs' promoted type, and
// CANN's executor returns that.
const AtkTensor* DtypeSource(const AtkCase& atk_case) {
  const openaclnnOpDescriptor& op = *atk_case.op;
  if (op.family == OPENACLNN_FAMILY_BCE_WITH_LOGITS ||
      op.family == OPENACLNN_FAMILY_BINARY_CROSS_ENTROPY || op.kind == OPENACLNN_OP_GRAD_TARGET) {
    const AtkTensor* target = atk_case.Find(OPENACLNN_ROLE_TARGET);
    if (target == nullptr) throw std::runtime_error("the case has no target");
    return target;
  }
  if (op.layout == OPENACLNN_LAYOUT_CLASS_AXIS) {
    const AtkTensor* self = atk_case.Find(OPENACLNN_ROLE_SELF);
    if (self == nullptr) throw std::runtime_error("the case has no self");
    return self;
  }
  return nullptr;
}

// The output `operand` of the case as CANN's executor allocates it (OutputsFor).
HostTensor OutputFor(const AtkCase& atk_case, const openaclnnOperand& operand) {
  std::vector<AtkDtype> dtypes;
  std::vector<std::vector<int64_t>> shapes;
  for (const AtkTensor& input : atk_case.inputs) {
    dtypes.push_back(input.dtype);
    shapes.push_back(input.shape);
  }
  const AtkTensor* dtype_source = DtypeSource(atk_case);
  const AtkDtype dtype = dtype_source != nullptr ? dtype_source->dtype : PromotedDtype(dtypes);
  HostTensor out{operand.name, operand.role, dtype, {}, {}};
  if (operand.shapeOf == OPENACLNN_SHAPE_OF_INPUTS) {
    if (!BroadcastShape(shapes, &out.shape)) {
      const AtkTensor* self = atk_case.Find(OPENACLNN_ROLE_SELF);
      out.shape = self != nullptr ? self->shape : shapes.front();
    }
  } else {
    const AtkTensor* like = atk_case.Find(operand.shapeOf);
    if (like == nullptr) {
      throw std::runtime_error(std::string("the case has no ") + RoleName(operand.shapeOf) +
                               ", whose shape " + operand.name + " has");
    }
    out.shape = like->shape;
  }
  if (atk_case.reduction != 0 && operand.reduced == OPENACLNN_REDUCED_TO_ONE) out.shape.clear();
  if (atk_case.reduction != 0 && operand.reduced == OPENACLNN_REDUCED_FIRST_DIM &&
      !out.shape.empty()) {
    out.shape.erase(out.shape.begin());
  }
  int64_t count = 1;
  for (int64_t dim : out.shape) count *= dim;
  out.bytes.resize(static_cast<size_t>(count) * DtypeSize(out.dtype));
  return out;
}

// One aclTensor over its own device block (none for an empty tensor: aclrtMalloc rejects 0).
class DeviceTensor {
 public:
  explicit DeviceTensor(const HostTensor& host) {
    if (!host.bytes.empty()) {
      Check(aclrtMalloc(&data_, host.bytes.size(), ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
      Check(aclrtMemcpy(data_, host.bytes.size(), host.bytes.data(), host.bytes.size(),
                        ACL_MEMCPY_HOST_TO_DEVICE),
            "aclrtMemcpy");
    }
    std::vector<int64_t> strides(host.shape.size(), 1);
    for (size_t i = host.shape.size(); i-- > 1;) strides[i - 1] = strides[i] * host.shape[i];
    tensor_ =
        aclCreateTensor(host.shape.data(), host.shape.size(), ToAcl(host.dtype), strides.data(), 0,
                        ACL_FORMAT_ND, host.shape.data(), host.shape.size(), data_);
    if (tensor_ == nullptr) throw std::runtime_error(AclFailure("aclCreateTensor", 0));
  }
  ~DeviceTensor() {
    aclDestroyTensor(tensor_);
    if (data_ != nullptr) aclrtFree(data_);
  }
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;

  aclTensor* get() const { return tensor_; }

  void CopyTo(HostTensor* host) const {
    if (host->bytes.empty()) return;
    Check(aclrtMemcpy(host->bytes.data(), host->bytes.size(), data_, host->bytes.size(),
                      ACL_MEMCPY_DEVICE_TO_HOST),
          "aclrtMemcpy");
  }

 private:
  static void Check(aclError status, const char* call) {
    if (status != ACL_SUCCESS) throw std::runtime_error(AclFailure(call, status));
  }

  void* data_ = nullptr;
  aclTensor* tensor_ = nullptr;
};

// The case's device tensors by role; absent ones stay null.
struct OpArguments {
  std::vector<std::unique_ptr<DeviceTensor>> owned;
  const aclTensor* by_role[OPENACLNN_ROLE_COUNT] = {};
};

// Both phases of `op` over `args` in its API order with its attributes' values, a workspace
// when asked for, then synchronize; returns the failure, if any.
std::string Execute(const openaclnnOpDescriptor& op, const OpArguments& args, int64_t reduction,
                    const std::vector<double>& attributes, aclrtStream stream) {
  std::vector<const aclTensor*> operands;
  for (size_t i = 0; i < op.operandCount; ++i)
    operands.push_back(args.by_role[op.operands[i].role]);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  if (aclnnStatus status = op.getWorkspaceSize(operands.data(), reduction,
                                               attributes.empty() ? nullptr : attributes.data(),
                                               &workspace_size, &executor)) {
    return AclFailure((std::string(op.api) + "GetWorkspaceSize").c_str(), status);
  }
  void* workspace = nullptr;
  if (workspace_size > 0) {
    if (aclError status = aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST)) {
      return AclFailure("aclrtMalloc(workspace)", status);
    }
  }
  std::string error;
  if (aclnnStatus status = op.launch(workspace, workspace_size, executor, stream)) {
    error = AclFailure(op.api, status);
  } else if (aclError sync = aclrtSynchronizeStream(stream)) {
    error = AclFailure("aclrtSynchronizeStream", sync);
  }
  if (workspace != nullptr) aclrtFree(workspace);
  return error;
}

// The forward's loss for the case's inputs: self's shape, or rank 0 after a reduction.
HostTensor LossFor(const AtkCase& atk_case, const HostTensor& gradient) {
  HostTensor loss = gradient;
  loss.name = "loss";
  if (atk_case.reduction != 0) {
    loss.shape.clear();
    loss.bytes.resize(DtypeSize(loss.dtype));
  }
  return loss;
}

// Bitwise equality of two device tensors shaped as `like`.
bool SameBits(const DeviceTensor& a, const DeviceTensor& b, const HostTensor& like) {
  HostTensor first = like, second = like;
  a.CopyTo(&first);
  b.CopyTo(&second);
  return first.bytes == second.bytes;
}

// --fused: a Backward case through aclnnBinaryCrossEntropyWithLogitsAndGrad. Its gradient goes
// into `out` (judged by the golden as the Backward's); both its outputs must equal, bit for
// bit, what a forward call and a Backward call give on the same inputs.
std::string ExecuteFused(const AtkCase& atk_case, const OpArguments& args, const DeviceTensor& out,
                         const HostTensor& out_host, aclrtStream stream) {
  const HostTensor loss_host = LossFor(atk_case, out_host);
  const DeviceTensor loss(loss_host), forward_loss(loss_host), backward_grad(out_host);
  const int64_t reduction = atk_case.reduction;
  OpArguments calls;
  std::copy(std::begin(args.by_role), std::end(args.by_role), calls.by_role);
  calls.by_role[OPENACLNN_ROLE_OUT] = loss.get();
  calls.by_role[OPENACLNN_ROLE_GRAD_SELF_OUT] = out.get();
  const std::vector<double> none;  // the with-logits ops have no attributes
  std::string error =
      Execute(OpNamed("aclnnBinaryCrossEntropyWithLogitsAndGrad"), calls, reduction, none, stream);
  calls.by_role[OPENACLNN_ROLE_OUT] = forward_loss.get();
  if (error.empty()) {
    error = Execute(OpNamed("aclnnBinaryCrossEntropyWithLogits"), calls, reduction, none, stream);
  }
  calls.by_role[OPENACLNN_ROLE_OUT] = backward_grad.get();
  if (error.empty()) error = Execute(*atk_case.op, calls, reduction, none, stream);
  if (!error.empty()) return error;
  if (!SameBits(loss, forward_loss, loss_host)) {
    return "the fused loss differs from aclnnBinaryCrossEntropyWithLogits's";
  }
  if (!SameBits(out, backward_grad, out_host)) {
    return "the fused gradient differs from aclnnBinaryCrossEntropyWithLogitsBackward's";
  }
  return "";
}

}  // namespace

AclSession::AclSession() {
  if (aclError status = aclInit(nullptr)) throw std::runtime_error(AclFailure("aclInit", status));
  if (aclError status = aclrtSetDevice(kDevice)) {
    throw std::runtime_error(AclFailure("aclrtSetDevice", status));
  }
  if (aclError status = aclrtCreateStream(&stream_)) {
    throw std::runtime_error(AclFailure("aclrtCreateStream", status));
  }
}

AclSession::~AclSession() {
  aclrtDestroyStream(stream_);
  aclrtResetDevice(kDevice);
  aclFinalize();
}

std::vector<HostTensor> GenerateInputs(const AtkCase& atk_case, uint64_t seed) {
  // Seeding with the case id as well makes a case's inputs independent of which others run.
  std::seed_seq seeds{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                      static_cast<uint32_t>(atk_case.id)};
  std::mt19937_64 engine(seeds);
  std::vector<HostTensor> inputs;
  for (const AtkTensor& spec : atk_case.inputs) inputs.push_back(Generate(spec, engine));
  return inputs;
}

std::vector<HostTensor> OutputsFor(const AtkCase& atk_case) {
  const openaclnnOpDescriptor& op = *atk_case.op;
  std::vector<HostTensor> outputs;
  for (size_t i = 0; i < op.operandCount; ++i) {
    if (op.operands[i].output) outputs.push_back(OutputFor(atk_case, op.operands[i]));
  }
  return outputs;
}

CaseRun RunCase(const AtkCase& atk_case, uint64_t seed, bool fused, aclrtStream stream) {
  CaseRun run{&atk_case, GenerateInputs(atk_case, seed), {}, {}, {}};
  try {
    OpArguments args;
    for (size_t i = 0; i < run.inputs.size(); ++i) {
      args.owned.push_back(std::make_unique<DeviceTensor>(run.inputs[i]));
      args.by_role[atk_case.inputs[i].role] = args.owned.back()->get();
    }
    // Every output is passed (the unused ones are required too); the judged ones are kept with
    // their device tensors, to copy back.
    std::vector<const DeviceTensor*> judged;
    for (HostTensor& output : OutputsFor(atk_case)) {
      args.owned.push_back(std::make_unique<DeviceTensor>(output));
      args.by_role[output.role] = args.owned.back()->get();
      if (Unused(output.role)) continue;
      judged.push_back(args.owned.back().get());
      run.outputs.push_back(std::move(output));
    }
    const openaclnnOpDescriptor& op = *atk_case.op;
    run.error =
        fused && op.family == OPENACLNN_FAMILY_BCE_WITH_LOGITS && op.kind == OPENACLNN_OP_GRAD_SELF
            ? ExecuteFused(atk_case, args, *judged.front(), run.outputs.front(), stream)
            : Execute(op, args, atk_case.reduction, atk_case.attributes, stream);
    for (size_t i = 0; i < judged.size() && run.error.empty(); ++i) {
      judged[i]->CopyTo(&run.outputs[i]);
    }
  } catch (const std::exception& error) {
    run.error = error.what();
  }
  return run;
}

}  // namespace openaclnn::tools
