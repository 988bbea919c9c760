// Runs ATK cases through the public C API, as a user program would: inputs drawn with a fixed
// seed, device tensors, both phases of the op on a stream, synchronize, copy the result back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "atk_case.h"

namespace openaclnn::tools {

// A tensor in host memory: its bytes are the dtype's little-endian encoding, contiguous.
struct HostTensor {
  std::string name;  // the op's operand name (self, target, lossOut, out, ...)
  openaclnnOperandRole role = OPENACLNN_ROLE_SELF;
  AtkDtype dtype = AtkDtype::kFloat32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
};

struct CaseRun {
  const AtkCase* atk_case = nullptr;
  std::vector<HostTensor> inputs;  // named and in the order of the case's inputs
  // The outputs the golden judges (all but the Unused ones), in API order; dtypes and shapes as
  // CANN's executor makes them (OutputsFor).
  std::vector<HostTensor> outputs;
  std::string error;    // empty when the C API accepted and ran the case
  std::string skipped;  // non-empty: not run, and why (too large for this machine's memory)
};

// aclInit, device 0 and one stream for the life of the object; throws std::runtime_error if the
// runtime refuses.
class AclSession {
 public:
  AclSession();
  ~AclSession();
  AclSession(const AclSession&) = delete;
  AclSession& operator=(const AclSession&) = delete;

  aclrtStream stream() const { return stream_; }

 private:
  aclrtStream stream_ = nullptr;
};

// The case's inputs: each element uniform in the tensor's [low, high] (for an integer dtype an
// integer in it or one of its extra values), normal of its mean and standard deviation, or one
// of its special values, from a
// std::mt19937_64 seeded with (seed, case id), then rounded to the tensor's dtype.
std::vector<HostTensor> GenerateInputs(const AtkCase& atk_case, uint64_t seed);

// The case's outputs, every one the op has in API order, as CANN's executor allocates them: the
// dtype the op ties them to (the target's for the binary cross entropies and for a target
// gradient, self's for a class-axis op), else the inputs' promoted type; the shape of the input
// its operand row names, or the broadcast shape of every input, then reduced as the row says
// (one element: rank 0, as PyTorch returns it; or without dimension 0). Inputs that do not
// broadcast give self's shape, for the op's checks to refuse. Throws std::runtime_error when the
// case lacks the input a shape comes from.
std::vector<HostTensor> OutputsFor(const AtkCase& atk_case);

// Generates the inputs and runs the case on `stream`; a C API failure is recorded in `error`.
// `fused`: a BinaryCrossEntropyWithLogitsBackward case runs through
// aclnnBinaryCrossEntropyWithLogitsAndGrad instead (its gradient is the case's output), whose
// loss and gradient must also equal a forward and a Backward call's bitwise, else `error` says
// which differs.
CaseRun RunCase(const AtkCase& atk_case, uint64_t seed, bool fused, aclrtStream stream);

}  // namespace openaclnn::tools
