#include "base/status.h"

#include <cstdarg>

#include "runtime/error.h"

namespace openaclnn {
namespace {

ErrorKind KindOf(aclnnStatus code) {
  switch (code / 100000) {
    case 1:
      return {"EZ1001", "AclNN_Parameter_Error"};
    case 3:
      return {"EZ9903", "AclNN_Runtime_Error"};
    default:
      return {"EZ9999", "AclNN_Inner_Error"};
  }
}

}  // namespace

aclnnStatus Fail(aclnnStatus code, const char* format, ...) {
  va_list args;
  va_start(args, format);
  RecordErrorV(KindOf(code), format, args);
  va_end(args);
  return code;
}

}  // namespace openaclnn
