// The aclrt*Event* entry points and aclrtStreamWaitEvent.
#include "acl/acl_rt.h"
#include "runtime/context.h"
#include "runtime/device.h"
#include "runtime/event.h"
#include "runtime/report.h"
#include "runtime/stream_impl.h"

namespace openaclnn {
namespace {

constexpr uint32_t kKnownEventFlags = ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS |
                                      ACL_EVENT_TIME_LINE | ACL_EVENT_DEVICE_USE_ONLY |
                                      ACL_EVENT_EXTERNAL | ACL_EVENT_IPC;

aclError NewEvent(const char* func, aclrtEvent* handle, uint32_t flag) {
  if (handle == nullptr) return ReportNull(func, "event");
  if ((flag & ~kKnownEventFlags) != 0) {
    return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, "flag", std::to_string(flag),
                         "only ACL_EVENT_* bits (0x7B) are defined");
  }
  Context* context = nullptr;
  if (const aclError status = RequireContext(func, &context)) return status;
  auto* event = new Event(flag);
  try {
    event->device = GetDevice(context->device);
    event->native = event->device->CreateEvent();
    event->handle = RegisterEvent(event);
  } catch (...) {
    if (event->native != nullptr) event->device->DestroyEvent(event->native);
    event->Release();
    throw;
  }
  *handle = event->handle;
  return ACL_SUCCESS;
}

aclError ResolveEvent(const char* func, const char* arg, aclrtEvent handle, Event** event) {
  if (handle == nullptr) return ReportNull(func, arg);
  *event = LookupEvent(handle);
  if (*event != nullptr) return ACL_SUCCESS;
  return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, arg, PointerText(handle),
                       "it is not a live event (never created, or already destroyed)");
}

// The completed latest record of `handle`, for aclrtEventElapsedTime.
aclError CompletedStamp(const char* func, const char* arg, aclrtEvent handle,
                        Event::Clock::time_point* stamp) {
  Event* event = nullptr;
  if (const aclError status = ResolveEvent(func, arg, handle, &event)) return status;
  const Event::State state = event->Snapshot();
  if (!state.recorded) {
    return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, arg, PointerText(handle),
                         "the event was never recorded (call aclrtRecordEvent first)");
  }
  const bool complete =
      event->native != nullptr ? event->device->EventDone(event->native) : state.complete;
  if (!complete) {
    return ReportFailure(ACL_ERROR_RT_EVENT_NOT_COMPLETE, kRuntimeParamError,
                         "%s: the latest record of %s %s has not completed yet. Reason: "
                         "synchronize the event or its stream first.",
                         func, arg, PointerText(handle).c_str());
  }
  *stamp = state.stamp;
  return ACL_SUCCESS;
}

aclError DeviceFailure(const char* func, DeviceError why) {
  if (why == nullptr) return ACL_SUCCESS;
  return ReportFailure(ACL_ERROR_RT_INTERNAL_ERROR, kRuntimeInnerError,
                       "%s: the device refused the operation: %s.", func, why);
}

}  // namespace
}  // namespace openaclnn

using namespace openaclnn;

extern "C" {

aclError aclrtCreateEvent(aclrtEvent* event) {
  return Guarded(__func__, [&](const char* func) { return NewEvent(func, event, 0); });
}

aclError aclrtCreateEventWithFlag(aclrtEvent* event, uint32_t flag) {
  return Guarded(__func__, [&](const char* func) { return NewEvent(func, event, flag); });
}

aclError aclrtCreateEventExWithFlag(aclrtEvent* event, uint32_t flag) {
  return Guarded(__func__, [&](const char* func) { return NewEvent(func, event, flag); });
}

aclError aclrtDestroyEvent(aclrtEvent event) {
  return Guarded(__func__, [&](const char* func) {
    if (event == nullptr) return ReportNull(func, "event");
    Event* doomed = UnregisterEvent(event);
    if (doomed == nullptr) {
      return ReportInvalid(ACL_ERROR_INVALID_PARAM, func, "event", PointerText(event),
                           "it is not a live event (never created, or already destroyed)");
    }
    // The device releases its event once the records queued on it have run.
    if (doomed->native != nullptr) doomed->device->DestroyEvent(doomed->native);
    doomed->Release();  // records still queued keep it alive until they have run
    return ACL_SUCCESS;
  });
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  return Guarded(__func__, [&](const char* func) {
    Event* target = nullptr;
    if (const aclError status = ResolveEvent(func, "event", event, &target)) return status;
    Stream* queue = nullptr;
    if (const aclError status = ResolveStream(func, stream, &queue)) return status;
    const uint64_t sequence = target->BeginRecord();
    if (target->native != nullptr) {
      return DeviceFailure(func, target->device->RecordEvent(target->native, NativeQueue(queue)));
    }
    target->Retain();
    // A record dropped unrun (its stream destroyed by force) completes, so no waiter hangs.
    const auto complete = [target, sequence] {
      target->Complete(sequence);
      target->Release();
    };
    Enqueue(queue, Task(complete, complete));
    return ACL_SUCCESS;
  });
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
  return Guarded(__func__, [&](const char* func) {
    Event* target = nullptr;
    if (const aclError status = ResolveEvent(func, "event", event, &target)) return status;
    Stream* queue = nullptr;
    if (const aclError status = ResolveStream(func, stream, &queue)) return status;
    // Later work waits for the record that is latest now; a never-recorded event is no barrier.
    const uint64_t sequence = target->Latest();
    if (sequence == 0) return ACL_SUCCESS;
    if (target->native != nullptr) {
      return DeviceFailure(func, target->device->WaitEvent(NativeQueue(queue), target->native));
    }
    target->Retain();
    Enqueue(queue, Task(
                       [target, sequence] {
                         target->WaitFor(sequence);
                         target->Release();
                       },
                       [target] { target->Release(); }));
    return ACL_SUCCESS;
  });
}

aclError aclrtSynchronizeEvent(aclrtEvent event) {
  return Guarded(__func__, [&](const char* func) {
    Event* target = nullptr;
    if (const aclError status = ResolveEvent(func, "event", event, &target)) return status;
    const uint64_t sequence = target->Latest();
    if (sequence == 0) return ACL_SUCCESS;
    if (target->native != nullptr) {
      return DeviceFailure(func, target->device->SynchronizeEvent(target->native));
    }
    target->WaitFor(sequence);
    return ACL_SUCCESS;
  });
}

aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus* status) {
  return Guarded(__func__, [&](const char* func) {
    if (status == nullptr) return ReportNull(func, "status");
    Event* target = nullptr;
    if (const aclError code = ResolveEvent(func, "event", event, &target)) return code;
    const Event::State state = target->Snapshot();
    const bool complete =
        target->native != nullptr ? target->device->EventDone(target->native) : state.complete;
    *status = state.recorded && complete ? ACL_EVENT_RECORDED_STATUS_COMPLETE
                                         : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    return ACL_SUCCESS;
  });
}

aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent, aclrtEvent endEvent) {
  return Guarded(__func__, [&](const char* func) {
    if (ms == nullptr) return ReportNull(func, "ms");
    Event::Clock::time_point start;
    Event::Clock::time_point end;
    if (const aclError status = CompletedStamp(func, "startEvent", startEvent, &start)) {
      return status;
    }
    if (const aclError status = CompletedStamp(func, "endEvent", endEvent, &end)) return status;
    Event* first = LookupEvent(startEvent);
    Event* last = LookupEvent(endEvent);
    if (first != nullptr && last != nullptr && first->native != nullptr) {
      return DeviceFailure(func, first->device->ElapsedMs(first->native, last->native, ms));
    }
    if (end < start) {
      return ReportFailure(ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL, kRuntimeParamError,
                           "%s: endEvent completed before startEvent.", func);
    }
    *ms = std::chrono::duration<float, std::milli>(end - start).count();
    return ACL_SUCCESS;
  });
}

}  // extern "C"
