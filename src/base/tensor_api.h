// Internals of the aclTensor query API (tensor_api.cc).
#pragma once

namespace openaclnn {

// Makes the next `count` array allocations of aclGetViewShape / aclGetViewStrides /
// aclGetStorageShape on the calling thread fail, so tests can reach their 561103 path.
void FailDimsAllocationsForTesting(int count);

}  // namespace openaclnn
