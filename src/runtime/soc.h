// The SoC profile (OPENACLNN_SOC_VERSION, default "Ascend910B"): which chip the process pretends
// to run on, and therefore which data types the ops accept.
#pragma once

namespace openaclnn {

// The configured SoC version string. The pointer stays valid for the life of the process.
const char* SocName();

// Whether the SoC family computes in bfloat16: true for Ascend910B*, Ascend910_93*,
// Ascend910_95*, Ascend950*, Ascend910E*; false for the first-generation Ascend910 parts,
// Ascend310* and the other known families. An unknown name warns once and counts as Ascend910B.
bool SocSupportsBf16();
bool SocSupportsBf16(const char* soc_name);

// The SoC families some ops' dtype lists tell apart beyond bf16 (the KL divergence gradients):
// those with bf16; first-generation Ascend910 parts; Ascend310P parts; every other.
enum class SocKind { kBf16, kAscend910, kAscend310P, kOther };
SocKind SocKindOf(const char* soc_name);
SocKind CurrentSocKind();

}  // namespace openaclnn
