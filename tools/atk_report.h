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

struct AtkTally {
  // Failing cases: a case the C API rejected, or that the golden script did not report; a
  // negative case (expected_error_msg) the C API accepted or rejected with another message.
  int failed = 0;
  int skipped = 0;  // not run: too large for this machine (each listed with its size)
};

// Reads DIR/results.json and prints the report for `runs` to stdout.
AtkTally ReportResults(const std::string& dir, const std::vector<CaseRun>& runs,
                       const ReportOptions& options);

}  // namespace openaclnn::tools
