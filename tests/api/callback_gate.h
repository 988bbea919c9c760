// A host callback that holds its stream's worker until the test opens the gate: work queued
// behind it stays queued (aclrtLaunchCallback(CallbackGate::Hold, &gate, ACL_CALLBACK_BLOCK, s)).
#pragma once

#include <atomic>
#include <chrono>
#include <thread>

struct CallbackGate {
  std::atomic<bool> open{false};
  std::atomic<bool> entered{false};
  static void Hold(void* data) {
    auto* gate = static_cast<CallbackGate*>(data);
    gate->entered = true;
    while (!gate->open.load()) std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
};
