/*
 * The timeline of a run (go's BUCKET_MS > 0): the window cut into buckets of send time, each with
 * its frames sent, deliveries expected and received, slots skipped, and a latency histogram, so
 * the runner can tell how latency and delivery moved during a run (the overload scenario's surge
 * and recovery). Bucketed by the frame's send time: a frame sent before a load falls and
 * delivered after it counts where it was sent.
 */
#include "hbgen.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

int tl_count(void) {
  if (g_bucket_us <= 0 || g_end_us <= g_timeline_from_us) return 0;
  double n = ceil((g_end_us - g_timeline_from_us) / g_bucket_us);
  return n > TL_MAX_BUCKETS ? TL_MAX_BUCKETS : (int)n;
}

void tl_init(worker_t *w) {
  int n = tl_count();
  w->timeline = n > 0 ? calloc((size_t)n, sizeof *w->timeline) : NULL;
}

tl_bucket_t *tl_at(worker_t *w, double us) {
  if (!w->timeline || us < g_timeline_from_us) return NULL;
  double i = floor((us - g_timeline_from_us) / g_bucket_us);
  if (i >= tl_count()) return NULL;
  return &w->timeline[(int)i];
}

void tl_print(FILE *out, worker_t *ws, int n, char *scratch, size_t cap) {
  int count = tl_count(), first = 1;
  hist_t *h = calloc(1, sizeof *h);
  fputc('[', out);
  for (int i = 0; h && i < count; i++) {
    tl_bucket_t sum = {0};
    int any = 0;
    for (int t = 0; t < n; t++) {
      if (!ws[t].timeline) continue;
      tl_bucket_t *b = &ws[t].timeline[i];
      sum.sent += b->sent;
      sum.expected += b->expected;
      sum.received += b->received;
      sum.skipped_backlog += b->skipped_backlog;
      sum.missed_late += b->missed_late;
      if (b->hist) {
        if (!any) memset(h, 0, sizeof *h);
        hist_add(h, b->hist);
        any = 1;
      }
    }
    if (!sum.sent && !sum.expected && !sum.received && !sum.skipped_backlog && !sum.missed_late) continue;
    if (any)
      hist_json(h, scratch, cap);
    else
      snprintf(scratch, cap, "[]");
    fprintf(out, "%s{\"index\":%d,\"sent\":%llu,\"expected\":%llu,\"received\":%llu,\"skippedBacklog\":%llu,\"missedLate\":%llu,\"buckets\":%s}",
            first ? "" : ",", i, (unsigned long long)sum.sent, (unsigned long long)sum.expected, (unsigned long long)sum.received,
            (unsigned long long)sum.skipped_backlog, (unsigned long long)sum.missed_late, scratch);
    first = 0;
  }
  fputc(']', out);
  free(h);
}
