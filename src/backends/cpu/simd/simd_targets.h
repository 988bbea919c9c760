// The Highway targets the SIMD tile evaluators are compiled for, and how RunSteps is inlined.
// Included first by each of their sources, before any Highway header.
#pragma once

// SSSE3/SSE4 have no FMA; SVE vectors are sizeless (no operators, no arrays of vectors); RVV
// likewise. Those CPUs take the scalar path.
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS \
  (HWY_SSSE3 | HWY_SSE4 | HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128 | HWY_RVV)
#endif

// RunSteps is flattened for speed, except under the sanitizers (see there).
#ifndef OPENACLNN_FLATTEN
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define OPENACLNN_FLATTEN
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define OPENACLNN_FLATTEN
#endif
#endif
#ifndef OPENACLNN_FLATTEN
#define OPENACLNN_FLATTEN HWY_FLATTEN
#endif
#endif
