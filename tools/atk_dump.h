// The hand-off to the golden script: DIR/data.bin holds every tensor's bytes back to back and
// DIR/manifest.json says, per case, where each input ("tensors") and each judged output
// ("outputs") lie and how to read them.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "atk_runner.h"

namespace openaclnn::tools {

// Writes the cases one by one as they run, so that the tool holds one case's tensors at a time.
// Throws std::runtime_error on I/O errors.
class DumpWriter {
 public:
  // Opens DIR/data.bin (`dir` must exist).
  DumpWriter(const std::string& dir, const std::string& case_file, uint64_t seed);

  // Appends the run's tensors to data.bin and lists the case, then frees the tensors' bytes (the
  // report needs only their shapes and dtypes). A failed or skipped case is listed with its error
  // or the reason, without tensors.
  void Add(CaseRun* run);

  // Writes DIR/manifest.json.
  void Finish();

 private:
  // Appends the tensors (none for nullptr) to data.bin and the manifest's current list.
  void DumpTensors(std::vector<HostTensor>* tensors);

  std::string dir_;
  std::ofstream data_;
  std::ostringstream manifest_;
  bool first_ = true;
};

}  // namespace openaclnn::tools
