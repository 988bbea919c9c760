// A Highway per-target source with one deliberate -Wshadow: check_simd_warnings.py compiles it
// with the kernels' include directories and expects every target to report it. If Highway's
// re-inclusion made it system-header code again, only the baseline target would.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd_warning_probe.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace probe::HWY_NAMESPACE {

int ShadowingProbe(int value) {
  int result = value;
  {
    int result = 2 * value;  // the deliberate shadow
    value += result;
  }
  return result + value;
}

}  // namespace probe::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();
