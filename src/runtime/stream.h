// Streams: ordered asynchronous work queues, one worker thread each.
#pragma once

#include "acl/acl_base.h"
#include "runtime/task.h"

namespace openaclnn {

class Stream;

// The stream behind a user's aclrtStream: nullptr names the calling thread's current context's
// default stream. Returns nullptr (and records nothing) when the handle is not a live stream or
// when there is no current context for a nullptr handle; *status then says which
// (ACL_ERROR_INVALID_PARAM / ACL_ERROR_RT_STREAM_CONTEXT for a dead or unknown handle,
// ACL_ERROR_RT_CONTEXT_NULL when no device is set).
Stream* FindStream(aclrtStream handle, aclError* status);

// Queues `task` behind everything already queued on `stream`; returns at once.
void Enqueue(Stream* stream, const Task& task);

// For work about as short as handing it to the stream's worker (a few microseconds): runs `task`
// on the calling thread, before returning, when nothing is queued on or running in `stream`,
// which keeps the stream's order; else queues it like Enqueue.
void RunOrEnqueue(Stream* stream, const Task& task);

}  // namespace openaclnn
