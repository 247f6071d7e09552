// Annotations a sequential program uses to tell CommAnalyzer what to count.
//
//   CA_REGION_BEGIN();   // start of the region of interest (after set-up)
//   for (int t = 0; t < steps; ++t) {
//     ...
//     CA_ITERATION();    // end of one iteration: per-iteration figures
//   }
//   CA_REGION_END();     // end of the region (before checking/output code)
//
// Without the CommAnalyzer runtime linked in (a normal build) the hooks are
// weak and unresolved, so every macro is a cheap no-op. C and C++.
#ifndef COMMANALYZER_ANNOTATE_H_
#define COMMANALYZER_ANNOTATE_H_

#ifdef __cplusplus
extern "C" {
#endif

void __commanalyzer_region_begin(void) __attribute__((weak));
void __commanalyzer_region_end(void) __attribute__((weak));
void __commanalyzer_iteration(void) __attribute__((weak));

static inline void commanalyzer_region_begin(void) {
  if (__commanalyzer_region_begin) __commanalyzer_region_begin();
}
static inline void commanalyzer_region_end(void) {
  if (__commanalyzer_region_end) __commanalyzer_region_end();
}
static inline void commanalyzer_iteration(void) {
  if (__commanalyzer_iteration) __commanalyzer_iteration();
}

#ifdef __cplusplus
}  // extern "C"
#endif

#define CA_REGION_BEGIN() commanalyzer_region_begin()
#define CA_REGION_END() commanalyzer_region_end()
#define CA_ITERATION() commanalyzer_iteration()

#endif  // COMMANALYZER_ANNOTATE_H_
