// The hand-off to the golden script: DIR/data.bin holds every tensor's bytes back to back and
// DIR/manifest.json says, per case, where each input and the output lie and how to read them.
#pragma once

#include <string>
#include <vector>

#include "atk_runner.h"

namespace openaclnn::tools {

// Writes data.bin and manifest.json for `runs` into `dir` (which must exist); a case whose run
// failed is listed with its error and without tensors. Throws std::runtime_error on I/O errors.
void WriteDump(const std::string& dir, const std::string& case_file, uint64_t seed,
               const std::vector<CaseRun>& runs);

}  // namespace openaclnn::tools
