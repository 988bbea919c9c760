// Streams: ordered asynchronous work queues: a host worker thread each on the CPU, or the
// device's native queue (a cudaStream_t) on backends that have one.
#pragma once

#include <cstddef>

#include "acl/acl_base.h"
#include "runtime/device.h"
#include "runtime/task.h"

namespace openaclnn {

class Stream;

// The stream behind a user's aclrtStream: nullptr names the calling thread's current context's
// default stream. Returns nullptr (and records nothing) when the handle is not a live stream or
// when there is no current context for a nullptr handle; *status then says which
// (ACL_ERROR_INVALID_PARAM / ACL_ERROR_RT_STREAM_CONTEXT for a dead or unknown handle,
// ACL_ERROR_RT_CONTEXT_NULL when no device is set).
Stream* FindStream(aclrtStream handle, aclError* status);

// The device's native queue behind `stream`, or nullptr when the stream is a host worker (then
// work reaches it as Tasks).
void* NativeQueue(const Stream* stream);

// Device work in stream order, on the native queue or as a Task on the worker.
DeviceError CopyAsync(Stream* stream, void* dst, const void* src, size_t bytes);
DeviceError FillAsync(Stream* stream, void* dst, unsigned char value, size_t bytes);
DeviceError CallbackAsync(Stream* stream, void (*fn)(void*), void* data);

// A failure of work that ran on `stream` (a host kernel's, recorded by the task that ran it):
// the stream keeps the first, and the next aclrtSynchronizeStream on it returns
// ACL_ERROR_RT_AICORE_EXCEPTION with `text` as its message (docs/contract/runtime.md).
inline constexpr size_t kFaultTextSize = 512;
void RecordFault(Stream* stream, const char* text);

// Queues `task` behind everything already queued on `stream` (a host worker); returns at once.
void Enqueue(Stream* stream, const Task& task);

// For work about as short as handing it to the stream's worker (a few microseconds): runs `task`
// on the calling thread, before returning, when nothing is queued on or running in `stream`,
// which keeps the stream's order; else queues it like Enqueue.
void RunOrEnqueue(Stream* stream, const Task& task);

}  // namespace openaclnn
