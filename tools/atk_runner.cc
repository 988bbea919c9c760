#include "atk_runner.h"

#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>

#include "aclnnop/aclnn_binary_cross_entropy_with_logits.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_backward.h"
#include "aclnnop/aclnn_binary_cross_entropy_with_logits_target_backward.h"
#include "float_bits.h"
#include "openaclnn/aclnn_binary_cross_entropy_with_logits_and_grad.h"

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
    default:
      return ACL_FLOAT;
  }
}

// Stores `value`, already rounded to float, in `dtype` at `out`.
void StoreAs(AtkDtype dtype, float value, uint8_t* out) {
  if (dtype == AtkDtype::kFloat32) {
    std::memcpy(out, &value, sizeof(value));
    return;
  }
  const uint16_t bits = dtype == AtkDtype::kFloat16 ? FloatToHalf(value) : FloatToBf16(value);
  std::memcpy(out, &bits, sizeof(bits));
}

HostTensor Generate(const AtkTensor& spec, std::mt19937_64& engine) {
  HostTensor tensor{spec.name, spec.dtype, spec.shape, {}};
  const size_t count = static_cast<size_t>(spec.numel());
  const size_t size = DtypeSize(spec.dtype);
  tensor.bytes.resize(count * size);
  std::uniform_real_distribution<double> uniform(spec.low, spec.high);
  for (size_t i = 0; i < count; ++i) {
    StoreAs(spec.dtype, static_cast<float>(uniform(engine)), &tensor.bytes[i * size]);
  }
  return tensor;
}

// The result tensor's host shape and dtype: the target's dtype always (the API requires it);
// the self shape, except a reduced forward loss, which is rank 0 as PyTorch returns it.
HostTensor OutputFor(const AtkCase& atk_case) {
  const AtkTensor* target = atk_case.Find("target");
  const AtkTensor* self = atk_case.Find("self");
  if (target == nullptr || self == nullptr) throw std::runtime_error("case lacks self or target");
  HostTensor out{"out", target->dtype, self->shape, {}};
  if (atk_case.op == AtkOp::kForward && atk_case.reduction != 0) out.shape.clear();
  if (atk_case.op == AtkOp::kTargetBackward) out.shape = target->shape;
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

// The case's device tensors by API role; absent optional inputs stay null.
struct OpArguments {
  std::vector<std::unique_ptr<DeviceTensor>> owned;
  const aclTensor* grad = nullptr;
  const aclTensor* self = nullptr;
  const aclTensor* target = nullptr;
  const aclTensor* weight = nullptr;
  const aclTensor* pos_weight = nullptr;
  aclTensor* out = nullptr;
};

const aclTensor** RoleOf(OpArguments* args, const std::string& name) {
  if (name == "gradOutput") return &args->grad;
  if (name == "self") return &args->self;
  if (name == "target") return &args->target;
  if (name == "weightOptional") return &args->weight;
  if (name == "posWeightOptional") return &args->pos_weight;
  throw std::runtime_error("unknown input \"" + name + "\"");
}

aclnnStatus Plan(AtkOp op, const OpArguments& a, int64_t reduction, uint64_t* workspace_size,
                 aclOpExecutor** executor) {
  switch (op) {
    case AtkOp::kBackward:
      return aclnnBinaryCrossEntropyWithLogitsBackwardGetWorkspaceSize(
          a.grad, a.self, a.target, a.weight, a.pos_weight, reduction, a.out, workspace_size,
          executor);
    case AtkOp::kTargetBackward:
      return aclnnBinaryCrossEntropyWithLogitsTargetBackwardGetWorkspaceSize(
          a.grad, a.self, a.target, a.weight, a.pos_weight, reduction, a.out, workspace_size,
          executor);
    default:
      return aclnnBinaryCrossEntropyWithLogitsGetWorkspaceSize(
          a.self, a.target, a.weight, a.pos_weight, reduction, a.out, workspace_size, executor);
  }
}

aclnnStatus Launch(AtkOp op, void* workspace, uint64_t size, aclOpExecutor* executor,
                   aclrtStream stream) {
  switch (op) {
    case AtkOp::kBackward:
      return aclnnBinaryCrossEntropyWithLogitsBackward(workspace, size, executor, stream);
    case AtkOp::kTargetBackward:
      return aclnnBinaryCrossEntropyWithLogitsTargetBackward(workspace, size, executor, stream);
    default:
      return aclnnBinaryCrossEntropyWithLogits(workspace, size, executor, stream);
  }
}

// Both phases (`plan`, then `launch`, of the API named `api`), a workspace when asked for,
// then synchronize; returns the failure, if any.
template <class PlanFn, class LaunchFn>
std::string ExecuteWith(const std::string& api, PlanFn plan, LaunchFn launch, aclrtStream stream) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  if (aclnnStatus status = plan(&workspace_size, &executor)) {
    return AclFailure((api + "GetWorkspaceSize").c_str(), status);
  }
  void* workspace = nullptr;
  if (workspace_size > 0) {
    if (aclError status = aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST)) {
      return AclFailure("aclrtMalloc(workspace)", status);
    }
  }
  std::string error;
  if (aclnnStatus status = launch(workspace, workspace_size, executor, stream)) {
    error = AclFailure(api.c_str(), status);
  } else if (aclError sync = aclrtSynchronizeStream(stream)) {
    error = AclFailure("aclrtSynchronizeStream", sync);
  }
  if (workspace != nullptr) aclrtFree(workspace);
  return error;
}

std::string Execute(AtkOp op, const OpArguments& args, int64_t reduction, aclrtStream stream) {
  return ExecuteWith(
      OpName(op),
      [&](uint64_t* size, aclOpExecutor** executor) {
        return Plan(op, args, reduction, size, executor);
      },
      [&](void* workspace, uint64_t size, aclOpExecutor* executor, aclrtStream on) {
        return Launch(op, workspace, size, executor, on);
      },
      stream);
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
  std::string error = ExecuteWith(
      "aclnnBinaryCrossEntropyWithLogitsAndGrad",
      [&](uint64_t* size, aclOpExecutor** executor) {
        return aclnnBinaryCrossEntropyWithLogitsAndGradGetWorkspaceSize(
            args.self, args.target, args.weight, args.pos_weight, args.grad, reduction, loss.get(),
            out.get(), size, executor);
      },
      aclnnBinaryCrossEntropyWithLogitsAndGrad, stream);
  OpArguments two_calls;
  two_calls.grad = args.grad;
  two_calls.self = args.self;
  two_calls.target = args.target;
  two_calls.weight = args.weight;
  two_calls.pos_weight = args.pos_weight;
  two_calls.out = forward_loss.get();
  if (error.empty()) error = Execute(AtkOp::kForward, two_calls, reduction, stream);
  two_calls.out = backward_grad.get();
  if (error.empty()) error = Execute(AtkOp::kBackward, two_calls, reduction, stream);
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

CaseRun RunCase(const AtkCase& atk_case, uint64_t seed, bool fused, aclrtStream stream) {
  CaseRun run{&atk_case, GenerateInputs(atk_case, seed), {}, {}};
  try {
    run.out = OutputFor(atk_case);
    OpArguments args;
    for (const HostTensor& input : run.inputs) {
      args.owned.push_back(std::make_unique<DeviceTensor>(input));
      *RoleOf(&args, input.name) = args.owned.back()->get();
    }
    args.owned.push_back(std::make_unique<DeviceTensor>(run.out));
    const DeviceTensor& out = *args.owned.back();
    args.out = out.get();
    run.error = fused && atk_case.op == AtkOp::kBackward
                    ? ExecuteFused(atk_case, args, out, run.out, stream)
                    : Execute(atk_case.op, args, atk_case.reduction, stream);
    if (run.error.empty()) out.CopyTo(&run.out);
  } catch (const std::exception& error) {
    run.error = error.what();
  }
  return run;
}

}  // namespace openaclnn::tools
