// aclnnInit / aclnnFinalize: the aclnn layer keeps no global state that needs setting up, so
// these only validate the optional configuration file.
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "aclnn/aclnn_base.h"
#include "base/status.h"
#include "runtime/log.h"

extern "C" {

aclnnStatus aclnnInit(const char* configPath) {
  if (configPath == nullptr) {
    openaclnn::Log(openaclnn::LogLevel::kInfo, "aclnnInit: no configuration file.");
    return ACLNN_SUCCESS;
  }
  struct stat info;
  if (stat(configPath, &info) != 0) {
    return openaclnn::Fail(ACLNN_ERR_PARAM_INVALID, "aclnnInit: configuration file %s: %s.",
                           configPath, std::strerror(errno));
  }
  if (S_ISDIR(info.st_mode)) {
    return openaclnn::Fail(ACLNN_ERR_PARAM_INVALID,
                           "aclnnInit: configuration path %s is a directory, not a file.",
                           configPath);
  }
  std::FILE* file = std::fopen(configPath, "rb");
  if (file == nullptr) {
    return openaclnn::Fail(ACLNN_ERR_PARAM_INVALID,
                           "aclnnInit: cannot read configuration file %s: %s.", configPath,
                           std::strerror(errno));
  }
  std::fclose(file);
  // Its only documented setting, op_debug_config.enable_debug_kernel, enables NPU kernel
  // bounds checks; CPU kernels have nothing to switch.
  openaclnn::Log(openaclnn::LogLevel::kInfo, "aclnnInit: configuration file %s accepted.",
                 configPath);
  return ACLNN_SUCCESS;
}

aclnnStatus aclnnFinalize(void) { return ACLNN_SUCCESS; }

}  // extern "C"
