// Turns the golden script's results into what `openaclnn atk` prints: one line per failing
// case and a summary table per output dtype x reduction.
#pragma once

#include <string>
#include <vector>

#include "atk_runner.h"

namespace openaclnn::tools {

struct ReportOptions {
  bool verbose = false;  // a line for every case, not only the failing ones
};

// Reads DIR/results.json, prints the report for `runs` to stdout, and returns the number of
// failing cases: a case the C API rejected, or that the golden script did not report; a
// negative case (expected_error_msg) the C API accepted or rejected with another message.
int ReportResults(const std::string& dir, const std::vector<CaseRun>& runs,
                  const ReportOptions& options);

}  // namespace openaclnn::tools
