/*
 * What the main thread and the worker threads share for one run: the TLS context, the server's
 * address, the command in force and the instants of `go` (or the backoff of `reconnect`), the
 * count of connected terminals per room, the clock, and the rendezvous where workers report a
 * phase done.
 */
#include "hbgen.h"
#include <time.h>

SSL_CTX *g_ssl;
struct sockaddr_storage g_addr;
socklen_t g_addrlen;
uint32_t *g_room_ok;
volatile int g_cmd = CMD_NONE;
double g_talk_from_us, g_warmup_until_us, g_end_us, g_drain_ms;
double g_rc_first_ms, g_rc_max_ms, g_rc_attempt_ms, g_rc_deadline_us;
static double g_rc_exited_us = 1e300;

double rc_exited_us(void) {
  double us;
  __atomic_load(&g_rc_exited_us, &us, __ATOMIC_ACQUIRE);
  return us;
}

void set_rc_exited_us(double us) { __atomic_store(&g_rc_exited_us, &us, __ATOMIC_RELEASE); }
double g_bucket_us, g_timeline_from_us;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cond = PTHREAD_COND_INITIALIZER;
static int g_done;

double mono_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

void report_done(void) {
  pthread_mutex_lock(&g_lock);
  g_done++;
  pthread_cond_signal(&g_cond);
  pthread_mutex_unlock(&g_lock);
}

void wait_all(int n) {
  pthread_mutex_lock(&g_lock);
  while (g_done < n) pthread_cond_wait(&g_cond, &g_lock);
  g_done = 0;
  pthread_mutex_unlock(&g_lock);
}

