/*
 * hbgen's main thread: reads the plan and the commands on stdin, runs one worker thread per
 * generator core, and answers on stdout with one JSON line per step (generators/native.ts reads
 * them). Input, one item per line:
 *
 *   set KEY VALUE                        protocol (hark-ws | ws-pubsub | raw-mqtt), scheme
 *                                        (hark | pubsub), tls (0|1), host, port, path, topic,
 *                                        frameBytes, fps, concurrency, connectRate,
 *                                        connectTimeoutMs, maxBacklogBytes, threads
 *   member INDEX TALKER ROOM CLIENT CRED [PORT]
 *                                        one terminal (CRED "-" for none); PORT: connect it there
 *                                        instead of the plan's port (a cluster: its own node)
 *   start                                connect them all -> {"type":"connected",...}
 *   go TALK_FROM_US WARMUP_UNTIL_US END_US DRAIN_MS [BUCKET_MS TIMELINE_FROM_US]
 *                                        talk -> {"type":"result",...}; with BUCKET_MS > 0 the
 *                                        result also holds "timeline": the window's frames per
 *                                        bucket of send time from TIMELINE_FROM_US (timeline.c)
 *   reconnect FIRST_MS MAX_MS ATTEMPT_MS DEADLINE_MS  instead of `go`: watch the terminals lose
 *                                        their server and come back on their own backoff (first
 *                                        attempt in [0, FIRST_MS], the bound doubling per failed
 *                                        attempt up to MAX_MS, an attempt given up after
 *                                        ATTEMPT_MS, the phase after DEADLINE_MS) ->
 *                                        {"type":"watching"} once every thread watches
 *   exited EXITED_US                     then: the instant the old server exited (CLOCK_MONOTONIC us)
 *   listening LISTEN_US                  and the instant the runner saw the new one listen; once
 *                                        all are back -> {"type":"reconnected",...}
 *   stop (or end of input)               close everything and exit 0
 *
 * A bad line gets {"type":"error","message":...} and exit status 2.
 */
#include "hbgen.h"
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

static void json_string(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\')
      fprintf(out, "\\%c", ch);
    else if (ch < 0x20)
      fprintf(out, "\\u%04x", ch);
    else
      fputc(ch, out);
  }
  fputc('"', out);
}

static void fail(const char *fmt, const char *arg) {
  char msg[512];
  snprintf(msg, sizeof msg, fmt, arg);
  fputs("{\"type\":\"error\",\"message\":", stdout);
  json_string(stdout, msg);
  fputs("}\n", stdout);
  fflush(stdout);
  exit(2);
}

static int positive(const char *key, const char *v, int max) {
  char *end;
  long n = strtol(v, &end, 10);
  if (*end || n < 1 || n > max) fail("bad value for %s", key);
  return (int)n;
}

static void set_text(char *dst, size_t cap, const char *key, const char *v) {
  size_t n = strlen(v);
  if (n >= cap) fail("value of %s too long", key);
  memcpy(dst, v, n + 1);
}

static void set_option(plan_t *p, const char *key, const char *v) {
  if (!strcmp(key, "protocol")) {
    if (!strcmp(v, "hark-ws")) p->proto = P_HARK_WS, p->tls = 1;
    else if (!strcmp(v, "ws-pubsub")) p->proto = P_WS_PUBSUB;
    else if (!strcmp(v, "raw-mqtt")) p->proto = P_MQTT, p->tls = 0;
    else fail("unknown protocol %s (hark-ws, ws-pubsub or raw-mqtt)", v);
  } else if (!strcmp(key, "scheme")) {
    if (!strcmp(v, "hark")) p->mqtt_hark = 1;
    else if (!strcmp(v, "pubsub")) p->mqtt_hark = 0;
    else fail("unknown scheme %s (hark or pubsub)", v);
  } else if (!strcmp(key, "tls")) p->tls = strcmp(v, "0") != 0;
  else if (!strcmp(key, "host")) set_text(p->host, sizeof p->host, key, v);
  else if (!strcmp(key, "port")) p->port = positive(key, v, 65535);
  else if (!strcmp(key, "path")) set_text(p->path, sizeof p->path, key, v);
  else if (!strcmp(key, "topic")) set_text(p->topic, sizeof p->topic, key, v);
  else if (!strcmp(key, "frameBytes")) p->frame_bytes = positive(key, v, 1400);
  else if (!strcmp(key, "fps")) p->fps = positive(key, v, 1000);
  else if (!strcmp(key, "concurrency")) p->concurrency = positive(key, v, 1000000);
  else if (!strcmp(key, "connectRate")) {
    char *end;
    p->connect_rate = strtod(v, &end);
    if (*end || p->connect_rate < 0) fail("bad value for %s", key);
  } else if (!strcmp(key, "connectTimeoutMs")) p->connect_timeout_ms = positive(key, v, 3600000);
  else if (!strcmp(key, "maxBacklogBytes")) p->max_backlog = positive(key, v, 64 << 20);
  else if (!strcmp(key, "threads")) p->threads = positive(key, v, 256);
  else fail("unknown setting %s", key);
}

static char *copy_string(const char *s) {
  char *d = strdup(s);
  if (!d) fail("out of memory%s", "");
  return d;
}

static int by_room(const void *a, const void *b) {
  return strcmp((*(member_t *const *)a)->room, (*(member_t *const *)b)->room);
}

static void number_rooms(plan_t *p) {
  member_t **order = malloc(sizeof *order * (size_t)p->nmembers);
  if (!order) fail("out of memory%s", "");
  for (int i = 0; i < p->nmembers; i++) order[i] = &p->members[i];
  qsort(order, (size_t)p->nmembers, sizeof *order, by_room);
  uint32_t id = 0;
  for (int i = 0; i < p->nmembers; i++) {
    if (i > 0 && strcmp(order[i]->room, order[i - 1]->room) != 0) id++;
    order[i]->room_id = id;
  }
  p->nrooms = p->nmembers > 0 ? id + 1 : 0;
  free(order);
}

static void resolve(plan_t *p) {
  struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
  char port[16];
  snprintf(port, sizeof port, "%d", p->port);
  if (getaddrinfo(p->host, port, &hints, &res) != 0 || !res) fail("cannot resolve host %s", p->host);
  memcpy(&g_addr, res->ai_addr, res->ai_addrlen);
  g_addrlen = res->ai_addrlen;
  freeaddrinfo(res);
}

static void tls_context(const plan_t *p) {
  int talkers = 0;
  for (int i = 0; i < p->nmembers; i++) talkers |= p->members[i].talker;
  g_ssl = SSL_CTX_new(TLS_client_method());
  if (!g_ssl) fail("cannot create a TLS context%s", "");
  /* Self-signed server certificates, like rejectUnauthorized: false; every connect a full handshake. */
  SSL_CTX_set_verify(g_ssl, SSL_VERIFY_NONE, NULL);
  SSL_CTX_set_options(g_ssl, SSL_OP_NO_TICKET);
  SSL_CTX_set_session_cache_mode(g_ssl, SSL_SESS_CACHE_OFF);
  /* Read whatever the socket holds in one call, not a record header then its body. */
  SSL_CTX_set_read_ahead(g_ssl, 1);
  /* Idle terminals give their TLS buffers back; talkers keep theirs (no allocation per frame). */
  SSL_CTX_set_mode(g_ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | (talkers ? 0 : SSL_MODE_RELEASE_BUFFERS));
}

static void wake(worker_t *ws, int n) {
  uint64_t one = 1;
  for (int i = 0; i < n; i++)
    if (write(ws[i].wake_fd, &one, sizeof one) < 0) { /* the worker also polls every second */
    }
}

static double number(const char *what, double v, double min) {
  if (!(v >= min)) fail("bad value for %s", what);
  return v;
}

static char *g_json;
static const size_t JSON_CAP = 2 << 20;

static void print_buckets(const hist_t *h) {
  hist_json(h, g_json, JSON_CAP);
  fputs(g_json, stdout);
}

/* The reconnect phase's figures: terminals back in their rooms (of those that were), when, and
 * what it took; `buckets` holds each one's time back after the server listened again — the
 * runner's instant, or the first TCP connect a terminal made to the new server when earlier
 * (`listenUs`: the runner's poll may lag on a busy core). */
static void print_reconnected(worker_t *ws, int T, double listen_us) {
  int targets = 0, back = 0;
  uint64_t drops = 0, attempts = 0, refused = 0, failures = 0, timeouts = 0, resets = 0, closes = 0, rejections = 0;
  double first_back = 0, last_back = 0, first_drop = 0, last_drop = 0, first_connect = 0;
  const char *first_error = NULL;
  hist_t *h = calloc(1, sizeof *h);
  if (!h) fail("out of memory%s", "");
  for (int t = 0; t < T; t++) {
    worker_t *w = &ws[t];
    drops += w->drops;
    attempts += w->attempts;
    refused += w->refused;
    failures += w->attempt_failures;
    timeouts += w->timeouts;
    resets += w->resets;
    closes += w->closes;
    rejections += w->rejections;
    if (w->first_connect_us > 0 && (first_connect == 0 || w->first_connect_us < first_connect)) first_connect = w->first_connect_us;
    if (!first_error && w->reconnect_error[0]) first_error = w->reconnect_error;
    if (w->first_drop_us > 0 && (first_drop == 0 || w->first_drop_us < first_drop)) first_drop = w->first_drop_us;
    if (w->last_drop_us > last_drop) last_drop = w->last_drop_us;
    for (int i = 0; i < w->nconns; i++) {
      const conn_t *c = &w->conns[i];
      if (!c->was_ready) continue;
      targets++;
      if (!c->came_back || c->state != S_READY) continue;
      back++;
      if (first_back == 0 || c->back_us < first_back) first_back = c->back_us;
      if (c->back_us > last_back) last_back = c->back_us;
    }
  }
  if (first_connect > 0 && first_connect < listen_us) listen_us = first_connect;
  for (int t = 0; t < T; t++)
    for (int i = 0; i < ws[t].nconns; i++) {
      const conn_t *c = &ws[t].conns[i];
      if (c->was_ready && c->came_back && c->state == S_READY) hist_record(h, c->back_us - listen_us);
    }
  printf("{\"type\":\"reconnected\",\"terminals\":%d,\"back\":%d,\"drops\":%llu,\"attempts\":%llu,\"refused\":%llu,\"attemptFailures\":%llu,\"timeouts\":%llu,\"resets\":%llu,\"closes\":%llu,\"rejections\":%llu,"
         "\"listenUs\":%.1f,\"firstConnectUs\":%.1f,\"firstDropUs\":%.1f,\"lastDropUs\":%.1f,\"firstBackUs\":%.1f,\"lastBackUs\":%.1f,\"firstError\":",
         targets, back, (unsigned long long)drops, (unsigned long long)attempts, (unsigned long long)refused, (unsigned long long)failures, (unsigned long long)timeouts, (unsigned long long)resets, (unsigned long long)closes,
         (unsigned long long)rejections, listen_us, first_connect, first_drop,
         last_drop, first_back, last_back);
  if (first_error)
    json_string(stdout, first_error);
  else
    fputs("null", stdout);
  fputs(",\"buckets\":", stdout);
  print_buckets(h);
  fputs("}\n", stdout);
  fflush(stdout);
  free(h);
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  plan_t p = {.proto = -1, .tls = 1, .port = 0, .frame_bytes = 100, .fps = 50, .concurrency = 64, .connect_timeout_ms = 60000, .max_backlog = 64 * 1024, .threads = 1};
  snprintf(p.host, sizeof p.host, "127.0.0.1");
  snprintf(p.path, sizeof p.path, "/v1/connect");
  snprintf(p.topic, sizeof p.topic, "rooms/{room}");
  int cap = 1024;
  p.members = malloc(sizeof *p.members * (size_t)cap);
  g_json = malloc(JSON_CAP);
  if (!p.members || !g_json) fail("out of memory%s", "");

  char *line = NULL;
  size_t linecap = 0;
  int started = 0;
  while (!started && getline(&line, &linecap, stdin) > 0) {
    line[strcspn(line, "\r\n")] = 0;
    char a[64], b[4096], c[4096], d[4096], e[8192];
    unsigned idx, talker;
    int mport = 0, fields;
    if (sscanf(line, "set %63s %4095s", a, b) == 2) {
      set_option(&p, a, b);
    } else if ((fields = sscanf(line, "member %u %u %4095s %4095s %8191s %d", &idx, &talker, c, d, e, &mport)) >= 5) {
      if (fields == 6 && (mport < 1 || mport > 65535)) fail("bad member port in: %.200s", line);
      if (p.nmembers == cap) {
        cap *= 2;
        p.members = realloc(p.members, sizeof *p.members * (size_t)cap);
        if (!p.members) fail("out of memory%s", "");
      }
      member_t *m = &p.members[p.nmembers++];
      m->index = idx;
      m->talker = talker != 0;
      m->room = copy_string(c);
      m->client = copy_string(d);
      m->credential = strcmp(e, "-") ? copy_string(e) : NULL;
      m->port = fields == 6 ? mport : 0;
    } else if (!strcmp(line, "start")) {
      started = 1;
    } else if (line[0]) {
      fail("unreadable line: %.200s", line);
    }
  }
  if (!started) return 0; /* input closed before start: nothing to do */
  if ((int)p.proto < 0) fail("no protocol set%s", "");
  if (p.port == 0) fail("no port set%s", "");
  if (p.nmembers == 0) fail("no members%s", "");
  if (p.frame_bytes < FRAME_HEADER_BYTES) fail("frameBytes must be at least 20%s", "");
  if (p.proto == P_HARK_WS && !p.tls) fail("hark-ws is TLS only%s", "");
  number_rooms(&p);
  resolve(&p);
  if (p.tls) tls_context(&p);
  frames_init();
  g_room_ok = calloc(p.nrooms, sizeof *g_room_ok);

  /* Whole rooms per thread, round-robin. */
  int T = p.threads;
  worker_t *ws = calloc((size_t)T, sizeof *ws);
  if (!ws || !g_room_ok) fail("out of memory%s", "");
  for (int i = 0; i < p.nmembers; i++) ws[p.members[i].room_id % (uint32_t)T].nconns++;
  for (int t = 0; t < T; t++) {
    worker_t *w = &ws[t];
    w->id = t;
    w->plan = &p;
    w->rng = 0x9e3779b9u ^ (uint32_t)(t * 7919 + 1) ^ (uint32_t)mono_us();
    w->conns = calloc((size_t)(w->nconns ? w->nconns : 1), sizeof *w->conns);
    w->talkers = calloc((size_t)(w->nconns ? w->nconns : 1), sizeof *w->talkers);
    w->scratch = malloc((size_t)p.frame_bytes + 8);
    w->ep = epoll_create1(EPOLL_CLOEXEC);
    w->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (!w->conns || !w->talkers || !w->scratch || w->ep < 0 || w->wake_fd < 0) fail("out of memory or descriptors%s", "");
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
    epoll_ctl(w->ep, EPOLL_CTL_ADD, w->wake_fd, &ev);
    w->nconns = 0;
  }
  for (int i = 0; i < p.nmembers; i++) {
    worker_t *w = &ws[p.members[i].room_id % (uint32_t)T];
    conn_t *c = &w->conns[w->nconns++];
    c->fd = -1;
    c->m = &p.members[i];
    c->self = p.members[i].talker ? p.members[i].index : NO_SENDER;
  }

  double t0 = mono_us();
  for (int t = 0; t < T; t++)
    if (pthread_create(&ws[t].thread, NULL, worker_main, &ws[t]) != 0) fail("cannot start a thread%s", "");
  wait_all(T);
  double connect_ms = (mono_us() - t0) / 1000.0;

  int ok = 0, failed = 0, late = 0;
  const char *first_error = NULL;
  hist_t *connect_hist = calloc(1, sizeof *connect_hist);
  if (!connect_hist) fail("out of memory%s", "");
  for (int t = 0; t < T; t++) {
    ok += ws[t].ok;
    failed += ws[t].failed;
    late += ws[t].late_starts;
    if (!first_error && ws[t].first_error[0]) first_error = ws[t].first_error;
    hist_add(connect_hist, &ws[t].connect_hist);
    for (int i = 0; i < ws[t].nconns; i++)
      if (ws[t].conns[i].was_ready) g_room_ok[ws[t].conns[i].m->room_id]++;
  }
  printf("{\"type\":\"connected\",\"ok\":%d,\"failed\":%d,\"connectMs\":%.3f,\"lateStarts\":%d,\"threads\":%d,\"firstError\":", ok, failed,
         connect_ms, late, T);
  if (first_error)
    json_string(stdout, first_error);
  else
    fputs("null", stdout);
  fputs(",\"buckets\":", stdout);
  print_buckets(connect_hist);
  fputs("}\n", stdout);
  fflush(stdout);

  int go_done = 0;
  while (getline(&line, &linecap, stdin) > 0) {
    line[strcspn(line, "\r\n")] = 0;
    double a, b, c, d, e = 0, f = 0;
    int nf = go_done ? 0 : sscanf(line, "go %lf %lf %lf %lf %lf %lf", &a, &b, &c, &d, &e, &f);
    if (!go_done && sscanf(line, "reconnect %lf %lf %lf %lf", &a, &b, &c, &d) == 4) {
      g_rc_first_ms = number("reconnect FIRST_MS", a, 0);
      g_rc_max_ms = number("reconnect MAX_MS", b, g_rc_first_ms);
      g_rc_attempt_ms = number("reconnect ATTEMPT_MS", c, 1);
      g_rc_deadline_us = mono_us() + number("reconnect DEADLINE_MS", d, 1) * 1000.0;
      __atomic_store_n(&g_cmd, CMD_RECONNECT, __ATOMIC_RELEASE);
      wake(ws, T);
      go_done = 1;
      wait_all(T);
      puts("{\"type\":\"watching\"}");
      fflush(stdout);
      double listen_us = -1, exited_us;
      while (listen_us < 0 && getline(&line, &linecap, stdin) > 0) {
        line[strcspn(line, "\r\n")] = 0;
        if (sscanf(line, "exited %lf", &exited_us) == 1) set_rc_exited_us(number("exited EXITED_US", exited_us, 0));
        else if (sscanf(line, "listening %lf", &listen_us) == 1) number("listening LISTEN_US", listen_us, 0);
        else if (!strcmp(line, "stop")) break;
        else if (line[0]) fail("expected `listening LISTEN_US` or `stop`, not: %.200s", line);
      }
      if (listen_us < 0) break; /* stopped (or input closed) before the server listened again */
      wait_all(T);
      print_reconnected(ws, T, listen_us);
    } else if (nf == 4 || nf == 6) {
      if (e < 0) fail("bad bucket width in: %.200s", line);
      g_bucket_us = e * 1000.0;
      g_timeline_from_us = f;
      g_talk_from_us = a;
      g_warmup_until_us = b;
      g_end_us = c;
      g_drain_ms = d;
      __atomic_store_n(&g_cmd, CMD_GO, __ATOMIC_RELEASE);
      wake(ws, T);
      wait_all(T);
      go_done = 1;
      uint64_t sum[10] = {0};
      int talkers = 0;
      hist_t *h = calloc(1, sizeof *h), *home = calloc(1, sizeof *home), *away = calloc(1, sizeof *away);
      if (!h || !home || !away) fail("out of memory%s", "");
      for (int t = 0; t < T; t++) {
        worker_t *w = &ws[t];
        talkers += w->ntalkers;
        uint64_t v[10] = {w->scheduled, w->sent, w->missed_late, w->skipped_backlog, w->expected, w->received, w->foreign, w->corrupt, w->dropped, w->duplicate};
        for (int k = 0; k < 10; k++) sum[k] += v[k];
        hist_add(h, &w->hist);
        hist_add(home, &w->hist_home);
        hist_add(away, &w->hist_away);
      }
      printf("{\"type\":\"result\",\"talkers\":%d,\"receivers\":%d,\"scheduled\":%llu,\"sent\":%llu,\"missedLate\":%llu,"
             "\"skippedBacklog\":%llu,\"expected\":%llu,\"received\":%llu,\"foreign\":%llu,\"corrupt\":%llu,\"dropped\":%llu,\"duplicate\":%llu,\"buckets\":",
             talkers, ok, (unsigned long long)sum[0], (unsigned long long)sum[1], (unsigned long long)sum[2], (unsigned long long)sum[3],
             (unsigned long long)sum[4], (unsigned long long)sum[5], (unsigned long long)sum[6], (unsigned long long)sum[7],
             (unsigned long long)sum[8], (unsigned long long)sum[9]);
      print_buckets(h);
      fputs(",\"bucketsHome\":", stdout);
      print_buckets(home);
      fputs(",\"bucketsAway\":", stdout);
      print_buckets(away);
      if (g_bucket_us > 0) {
        fputs(",\"timeline\":", stdout);
        tl_print(stdout, ws, T, g_json, JSON_CAP);
      }
      fputs("}\n", stdout);
      fflush(stdout);
      free(h);
      free(home);
      free(away);
    } else if (!strcmp(line, "stop")) {
      break;
    } else if (line[0]) {
      fail("unreadable command: %.200s", line);
    }
  }
  __atomic_store_n(&g_cmd, CMD_STOP, __ATOMIC_RELEASE);
  wake(ws, T);
  for (int t = 0; t < T; t++) pthread_join(ws[t].thread, NULL);
  return 0;
}
