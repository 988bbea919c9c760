#include "runtime/soc.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include "acl/acl_rt.h"
#include "runtime/fork.h"
#include "runtime/log.h"
#include "runtime/report.h"

namespace openaclnn {
namespace {

constexpr const char* kDefaultSoc = "Ascend910B";

constexpr const char* kBf16Families[] = {"Ascend910B", "Ascend910_93", "Ascend910_95", "Ascend950",
                                         "Ascend910E"};
// Checked after kBf16Families, so the "Ascend910" prefix only catches first-generation parts
// (Ascend910, Ascend910A, Ascend910ProA, Ascend910ProB, Ascend910PremiumA).
constexpr const char* kOtherFamilies[] = {"Ascend910", "Ascend310", "Ascend610", "BS9SX1",
                                          "Ascend031", "Ascend035", "MC61",      "MC62"};

bool StartsWith(const char* text, const char* prefix) {
  return std::strncmp(text, prefix, std::strlen(prefix)) == 0;
}

// Names handed out by SocName(), interned so that a pointer, once returned, never dangles even if
// the environment changes later.
struct Names {
  std::mutex mu;
  std::set<std::string> interned;
  std::set<std::string> warned;
};

Names& Table() {
  static auto* names = [] {
    auto* created = new Names;
    HoldAcrossFork(&created->mu, ForkRank::kTable);
    return created;
  }();
  return *names;
}

void WarnUnknownOnce(const char* soc_name) {
  Names& names = Table();
  std::lock_guard<std::mutex> lock(names.mu);
  if (!names.warned.insert(soc_name).second) return;
  Log(LogLevel::kWarning,
      "OPENACLNN_SOC_VERSION=%s is not a SoC OpenACLNN knows; using the Ascend910B data-type "
      "support lists",
      soc_name);
}

}  // namespace

const char* SocName() {
  const char* chosen = std::getenv("OPENACLNN_SOC_VERSION");
  if (chosen == nullptr || chosen[0] == '\0') return kDefaultSoc;
  Names& names = Table();
  std::lock_guard<std::mutex> lock(names.mu);
  return names.interned.insert(chosen).first->c_str();
}

bool SocSupportsBf16(const char* soc_name) {
  for (const char* family : kBf16Families) {
    if (StartsWith(soc_name, family)) return true;
  }
  for (const char* family : kOtherFamilies) {
    if (StartsWith(soc_name, family)) return false;
  }
  WarnUnknownOnce(soc_name);
  return true;
}

bool SocSupportsBf16() { return SocSupportsBf16(SocName()); }

SocKind SocKindOf(const char* soc_name) {
  if (SocSupportsBf16(soc_name)) return SocKind::kBf16;
  if (StartsWith(soc_name, "Ascend910")) return SocKind::kAscend910;
  if (StartsWith(soc_name, "Ascend310P")) return SocKind::kAscend310P;
  return SocKind::kOther;
}

SocKind CurrentSocKind() { return SocKindOf(SocName()); }

}  // namespace openaclnn

using namespace openaclnn;

namespace {

constexpr aclCannAttr kCannAttributes[] = {ACL_CANN_ATTR_INF_NAN, ACL_CANN_ATTR_BF16,
                                           ACL_CANN_ATTR_JIT_COMPILE};

}  // namespace

extern "C" {

const char* aclrtGetSocName(void) {
  try {
    return SocName();
  } catch (...) {
    return nullptr;
  }
}

aclError aclGetCannAttributeList(const aclCannAttr** cannAttrList, size_t* num) {
  return Guarded(__func__, [&](const char* func) {
    if (cannAttrList == nullptr) return ReportNull(func, "cannAttrList");
    if (num == nullptr) return ReportNull(func, "num");
    *cannAttrList = kCannAttributes;
    *num = sizeof(kCannAttributes) / sizeof(kCannAttributes[0]);
    return ACL_SUCCESS;
  });
}

aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t* value) {
  return Guarded(__func__, [&](const char* func) {
    if (value == nullptr) return ReportNull(func, "value");
    switch (EnumValue(cannAttr)) {
      case ACL_CANN_ATTR_INF_NAN:
        *value = 1;  // kernels follow IEEE inf/NaN semantics
        return ACL_SUCCESS;
      case ACL_CANN_ATTR_BF16:
        *value = SocSupportsBf16() ? 1 : 0;
        return ACL_SUCCESS;
      case ACL_CANN_ATTR_JIT_COMPILE:
        *value = 0;  // kernels are precompiled
        return ACL_SUCCESS;
      default:
        return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, "cannAttr",
                             std::to_string(EnumValue(cannAttr)),
                             "must be ACL_CANN_ATTR_INF_NAN, _BF16 or _JIT_COMPILE");
    }
  });
}

}  // extern "C"
