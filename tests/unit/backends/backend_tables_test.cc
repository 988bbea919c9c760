// A kernel table says which ops it implements, and phase 1 declines the others with
// ACLNN_ERR_INNER_FIND_KERNEL_ERROR (docs/contract/checks-and-codes.md §9); the plugin loader
// refuses tables of another ABI version, naming both.
#include <gtest/gtest.h>

#include <string>

#include "acl/acl.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/plugin.h"
#include "openaclnn/op_table.h"
#include "ops/backend_checks.h"
#include "ops/op_table.h"

namespace openaclnn {
namespace {

// A backend that implements every op but the one-pass loss and gradient.
LossKernels WithoutLossAndGrad() {
  LossKernels kernels = kCpuLossKernels;
  kernels.ops &= ~KernelOpBit(LossFamily::kBceWithLogits, KernelOp::kLossAndGrad);
  return kernels;
}

TEST(KernelTable, TheCpuBackendImplementsEveryOp) {
  EXPECT_EQ(kCpuLossKernels.abi_version, kLossKernelsAbiVersion);
  for (const OpDescriptor* op : Ops()) {
    EXPECT_EQ(CheckImplements(op->info.api, kCpuLossKernels, "cpu", op->info.family, op->info.kind),
              ACLNN_SUCCESS)
        << op->info.api;
  }
}

TEST(KernelTable, AMissingOpIsDeclinedAtPhaseOne) {
  const LossKernels kernels = WithoutLossAndGrad();
  for (const OpDescriptor* op : Ops()) {
    aclGetRecentErrMsg();
    const aclnnStatus status =
        CheckImplements(op->info.api, kernels, "test", op->info.family, op->info.kind);
    if (op->info.kind != OPENACLNN_OP_LOSS_AND_GRAD) {
      EXPECT_EQ(status, ACLNN_SUCCESS) << op->info.api;
      continue;
    }
    EXPECT_EQ(status, ACLNN_ERR_INNER_FIND_KERNEL_ERROR);
    const std::string message = aclGetRecentErrMsg();
    EXPECT_NE(message.find(std::string(op->info.api) +
                           ": the test backend does not implement this op (the loss and the "
                           "gradient with respect to self in one pass)"),
              std::string::npos)
        << message;
  }
}

PluginBackend CompatiblePlugin() {
  static void* const devices[] = {nullptr};
  static const PluginDeviceOps ops = {};
  return {kPluginAbiVersion, sizeof(PluginBackend), nullptr, 1, devices, &ops, &kCpuLossKernels};
}

TEST(PluginLoader, AcceptsTablesOfItsOwnVersion) {
  EXPECT_EQ(PluginIncompatibility(CompatiblePlugin()), "");
  PluginBackend without_device = CompatiblePlugin();
  without_device.unavailable_reason = "no TEST device: none here";
  without_device.kernels = nullptr;
  EXPECT_EQ(PluginIncompatibility(without_device), "");  // it only reports why it has none
}

TEST(PluginLoader, RefusesAnotherPluginAbiNamingBoth) {
  PluginBackend plugin = CompatiblePlugin();
  plugin.abi_version = kPluginAbiVersion + 1;
  const std::string why = PluginIncompatibility(plugin);
  EXPECT_NE(why.find("plugin ABI version " + std::to_string(kPluginAbiVersion + 1)),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("this library version " + std::to_string(kPluginAbiVersion)),
            std::string::npos)
      << why;
  plugin = CompatiblePlugin();
  plugin.struct_size = sizeof(PluginBackend) - 8;  // an older, shorter table
  EXPECT_NE(PluginIncompatibility(plugin), "");
}

TEST(PluginLoader, RefusesAKernelTableOfAnotherAbiNamingBoth) {
  LossKernels kernels = kCpuLossKernels;
  kernels.abi_version = kLossKernelsAbiVersion + 7;
  PluginBackend plugin = CompatiblePlugin();
  plugin.kernels = &kernels;
  const std::string why = PluginIncompatibility(plugin);
  EXPECT_NE(why.find("ABI version " + std::to_string(kLossKernelsAbiVersion + 7)),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("this library's " + std::to_string(kLossKernelsAbiVersion)), std::string::npos)
      << why;
}

}  // namespace
}  // namespace openaclnn
