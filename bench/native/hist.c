/*
 * Latency histogram with hdr-histogram-js's bucket layout (lowest 1 us, 3 significant digits):
 * recording is an index computation and an increment; the Node side turns the non-empty
 * buckets back into an HDR histogram with recordValueWithCount, bucket for bucket.
 */
#include "hbgen.h"
#include <stdio.h>

static inline int counts_index(uint64_t v) {
  /* leadingZeroCountBase = 64 - unitMagnitude(0) - subBucketHalfCountMagnitude(10) - 1 */
  int bucket = 53 - __builtin_clzll(v | HIST_SUB_BUCKET_MASK);
  int sub = (int)(v >> bucket);
  return ((bucket + 1) << HIST_SUB_BUCKET_HALF_COUNT_MAGNITUDE) + (sub - HIST_SUB_BUCKET_HALF_COUNT);
}

static inline uint64_t value_at(int index) {
  int bucket = (index >> HIST_SUB_BUCKET_HALF_COUNT_MAGNITUDE) - 1;
  int sub = (index & (HIST_SUB_BUCKET_HALF_COUNT - 1)) + HIST_SUB_BUCKET_HALF_COUNT;
  if (bucket < 0) {
    sub -= HIST_SUB_BUCKET_HALF_COUNT;
    bucket = 0;
  }
  return (uint64_t)sub << bucket;
}

void hist_record(hist_t *h, double us) {
  uint64_t v = us < 1 ? 1 : (uint64_t)(us + 0.5);
  if (v > HIST_MAX_US) v = HIST_MAX_US;
  h->counts[counts_index(v)]++;
  h->total++;
}

void hist_add(hist_t *into, const hist_t *from) {
  for (int i = 0; i < HIST_COUNTS; i++) into->counts[i] += from->counts[i];
  into->total += from->total;
}

size_t hist_json(const hist_t *h, char *out, size_t cap) {
  size_t n = 0;
  int first = 1;
  if (cap < 3) return 0;
  out[n++] = '[';
  for (int i = 0; i < HIST_COUNTS; i++) {
    if (h->counts[i] == 0) continue;
    int w = snprintf(out + n, cap - n, "%s[%llu,%llu]", first ? "" : ",", (unsigned long long)value_at(i),
                     (unsigned long long)h->counts[i]);
    if (w < 0 || (size_t)w >= cap - n - 1) break;
    n += (size_t)w;
    first = 0;
  }
  out[n++] = ']';
  out[n] = 0;
  return n;
}
