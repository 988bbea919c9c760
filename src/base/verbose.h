// Verbose mode (OPENACLNN_VERBOSE=1, as oneDNN's ONEDNN_VERBOSE): one line on stderr per
// launched op, so a user can see what each call ran with and how long it took.
#pragma once

#include <string>

namespace openaclnn {

// OPENACLNN_VERBOSE is "1"; read once, so checking it costs a load.
bool VerboseEnabled();

// Prints "openaclnn_verbose exec <description> run_ms=<ms> total_ms=<ms>" as one write.
void PrintVerboseLine(const std::string& description, double run_ms, double total_ms);

}  // namespace openaclnn
