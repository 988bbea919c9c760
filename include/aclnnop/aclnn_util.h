// Export marker for aclnn operator entry points (CANN's aclnnop/aclnn_util.h).
#ifndef OPBASE_COMMON_ACLNN_UTIL_H
#define OPBASE_COMMON_ACLNN_UTIL_H

// Unconditional: the op libraries build with -fvisibility=hidden and export through this.
#define ACLNN_API __attribute__((visibility("default")))

#endif  // OPBASE_COMMON_ACLNN_UTIL_H
