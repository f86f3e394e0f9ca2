/*
 * One generator thread: its share of the terminals (whole rooms), one epoll loop. It connects
 * them (TCP, TLS, WebSocket upgrade or MQTT CONNECT, until the terminal is in its room), then on
 * `go` has its talkers send a bench frame every 1/fps s, with the same schedule and the same
 * accounting as generators/roomWorker.ts: slots more than two periods late are skipped and
 * counted (missedLate, the generator's fault), a frame is skipped while its connection queues
 * more than maxBacklogBytes (skippedBacklog, the server's fault), and every frame received whose
 * send time lies in the window is counted and its latency recorded. The drain after the window
 * ends early once every expected delivery has arrived.
 *
 * Or, on `reconnect`, it watches its terminals lose their server and come back by themselves, each
 * on its own backoff (spec/cluster.md, "Reconnecting: the terminal's contract"): the first attempt
 * after a random delay in [0, first], then the bound doubles per failed attempt up to the cap,
 * full jitter; no lanes, as in a fleet. The phase ends once every terminal that was in its room is
 * back in it, or at the deadline.
 *
 * Per frame: no allocation, one SSL_write (or send) of the bytes built in place in the
 * connection's own buffer; receipt parses frames in the connection's read buffer.
 */
#include "hbgen.h"
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define LATE_START_US 50000.0
#define READ_BUFFER 16384
#define CONTROL_ROOM 4096

static uint8_t g_filler[1600];

static inline uint32_t rd32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

static inline uint32_t next_rand(uint32_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

void frames_init(void) { memset(g_filler, FRAME_FILLER, sizeof g_filler); }

static void set_out(worker_t *w, conn_t *c, int on) {
  if (c->epoll_out == on || c->fd < 0) return;
  struct epoll_event ev = {.events = EPOLLIN | (on ? EPOLLOUT : 0), .data.ptr = c};
  epoll_ctl(w->ep, EPOLL_CTL_MOD, c->fd, &ev);
  c->epoll_out = (uint8_t)on;
}

static void conn_close(conn_t *c) {
  if (c->ssl) SSL_free(c->ssl);
  if (c->fd >= 0) close(c->fd); /* also leaves the epoll set */
  c->ssl = NULL;
  c->fd = -1;
  c->state = S_DEAD;
}

static inline double rand01(worker_t *w) { return (double)next_rand(&w->rng) / 4294967296.0; }

/* Reconnect phase: a terminal in its room lost it (a drop), or an attempt failed; either way the
 * next attempt is scheduled on the terminal's backoff. */
static void conn_lost(worker_t *w, conn_t *c, const char *why) {
  double now = mono_us();
  double bound_ms;
  if (c->state == S_READY) {
    w->drops++;
    if (w->first_drop_us == 0) w->first_drop_us = now;
    w->last_drop_us = now;
    c->failed_attempts = 0;
    bound_ms = g_rc_first_ms;
  } else {
    if (w->refused_now) {
      w->refused++;
    } else {
      w->attempt_failures++;
      w->timeouts += w->timeout_now != 0;
      /* By the message: connect errors come from strerror, refusals from the protocol's answer. */
      if (strstr(why, "reset"))
        w->resets++;
      else if (strstr(why, "upgrade refused") || strstr(why, "CONNACK return code") || strstr(why, "closed by the server:"))
        w->rejections++;
      else if (strstr(why, "closed"))
        w->closes++;
      if (!w->reconnect_error[0]) snprintf(w->reconnect_error, sizeof w->reconnect_error, "%s: %s", c->m->client, why);
    }
    if (c->failed_attempts < 60) c->failed_attempts++;
    bound_ms = g_rc_first_ms * (double)(1ull << c->failed_attempts);
    if (bound_ms > g_rc_max_ms) bound_ms = g_rc_max_ms;
  }
  c->retry_at_us = now + rand01(w) * bound_ms * 1000.0;
  ERR_clear_error();
  conn_close(c);
}

/* A connection failed: while connecting it counts as a failed connect, later as a dropped one
 * (in the reconnect phase: conn_lost). */
static void conn_error(worker_t *w, conn_t *c, const char *why) {
  if (c->state == S_DEAD) return;
  if (w->reconnecting) {
    conn_lost(w, c, why);
    return;
  }
  if (c->state < S_READY) {
    if (!w->first_error[0]) snprintf(w->first_error, sizeof w->first_error, "%s: %s", c->m->client, why);
    w->failed++;
    w->inflight--;
  } else {
    w->dropped++;
  }
  ERR_clear_error();
  conn_close(c);
}

/* A socket call failed with `err`: a refused connect is told apart (nobody listening yet). */
static void conn_errno(worker_t *w, conn_t *c, int err) {
  w->refused_now = err == ECONNREFUSED;
  conn_error(w, c, strerror(err));
  w->refused_now = 0;
}

static void conn_ready(worker_t *w, conn_t *c) {
  if (w->reconnecting) {
    c->state = S_READY;
    c->came_back = 1;
    c->back_us = mono_us();
    c->failed_attempts = 0;
    return;
  }
  c->state = S_READY;
  c->was_ready = 1;
  w->ok++;
  w->inflight--;
  hist_record(&w->connect_hist, mono_us() - c->started_us);
}

/* Room for n more bytes in the send buffer (moving what is queued to its start if need be). */
static int reserve(conn_t *c, uint32_t n) {
  if (c->wlen + n <= c->wcap) return 1;
  if (c->woff > 0) {
    memmove(c->wbuf, c->wbuf + c->woff, c->wlen - c->woff);
    c->wlen -= c->woff;
    c->woff = 0;
  }
  return c->wlen + n <= c->wcap;
}

/* Write what is queued; what the socket does not take stays queued (EPOLLOUT asked for). */
static void flush(worker_t *w, conn_t *c) {
  while (c->woff < c->wlen) {
    int n;
    if (c->ssl) {
      n = SSL_write(c->ssl, c->wbuf + c->woff, (int)(c->wlen - c->woff));
      if (n <= 0) {
        int e = SSL_get_error(c->ssl, n);
        if (e == SSL_ERROR_WANT_WRITE) {
          set_out(w, c, 1);
          return;
        }
        if (e == SSL_ERROR_WANT_READ) return;
        conn_error(w, c, e == SSL_ERROR_SYSCALL ? "connection lost while writing" : "TLS write failed");
        return;
      }
    } else {
      n = (int)send(c->fd, c->wbuf + c->woff, c->wlen - c->woff, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
          set_out(w, c, 1);
          return;
        }
        if (errno == EINTR) continue;
        conn_error(w, c, strerror(errno));
        return;
      }
    }
    c->woff += (uint32_t)n;
  }
  c->woff = c->wlen = 0;
  set_out(w, c, 0);
}

static void queue(worker_t *w, conn_t *c, const void *b, uint32_t n) {
  if (!reserve(c, n)) {
    conn_error(w, c, "send buffer full");
    return;
  }
  memcpy(c->wbuf + c->wlen, b, n);
  c->wlen += n;
}

/* ---- receiving ---- */

static inline void on_frame(worker_t *w, conn_t *c, const uint8_t *f, size_t len, double now) {
  if (len < FRAME_HEADER_BYTES || rd32(f) != FRAME_MAGIC) {
    w->foreign++;
    return;
  }
  if (rd32(f + 4) == c->self) return; /* a broker's echo of our own frame */
  double sent;
  memcpy(&sent, f + 12, 8);
  if (!w->counting || sent < w->win_from || sent >= w->win_to) return;
  if (len != (size_t)w->plan->frame_bytes || memcmp(f + FRAME_HEADER_BYTES, g_filler, len - FRAME_HEADER_BYTES) != 0) {
    w->corrupt++;
    return;
  }
  /* A frame that comes again, or before one its sender sent earlier, is not a new delivery. */
  uint32_t sender = rd32(f + 4), seq = rd32(f + 8);
  int k = 0;
  while (k < c->nseen && c->seen_sender[k] != sender) k++;
  if (k < c->nseen) {
    if (seq <= c->seen_seq[k]) {
      w->duplicate++;
      return;
    }
    c->seen_seq[k] = seq;
  } else if (k < TRACKED_SENDERS) {
    c->seen_sender[k] = sender;
    c->seen_seq[k] = seq;
    c->nseen++;
  }
  w->received++;
  hist_record(&w->hist, now - sent);
  tl_bucket_t *b = tl_at(w, sent);
  if (b) {
    b->received++;
    if (!b->hist) b->hist = calloc(1, sizeof *b->hist); /* once per bucket, not per frame */
    if (b->hist) hist_record(b->hist, now - sent);
  }
  hist_record(member_port(c->m, w->plan) == w->plan->port ? &w->hist_home : &w->hist_away, now - sent);
}

/* A downlink audio frame of Hark (6-byte header, spec/terminal-protocol.md). */
static inline void on_downlink(worker_t *w, conn_t *c, const uint8_t *d, size_t len, double now) {
  if (len <= DOWNLINK_HEADER_BYTES || d[0] != 0x01) {
    w->foreign++;
    return;
  }
  if (d[1] != LEVEL_BYTE) {
    w->corrupt++;
    return;
  }
  on_frame(w, c, d + DOWNLINK_HEADER_BYTES, len - DOWNLINK_HEADER_BYTES, now);
}

static size_t parse_ws(worker_t *w, conn_t *c, double now) {
  const plan_t *p = w->plan;
  size_t at = 0;
  char msg[300];
  if (c->state == S_HTTP) {
    int r = ws_handshake_response(c, msg, sizeof msg);
    if (r == 0) return 0;
    if (r < 0) {
      conn_error(w, c, msg);
      return 0;
    }
    at = (size_t)r;
    if (p->proto == P_WS_PUBSUB)
      conn_ready(w, c);
    else
      c->state = S_SESSION;
  }
  while (c->state != S_DEAD) {
    size_t avail = c->rlen - at;
    if (avail < 2) break;
    uint8_t *b = c->rbuf + at;
    uint8_t op = b[0] & 0x0f;
    uint64_t len = b[1] & 0x7f;
    size_t hl = 2;
    if (len == 126) {
      if (avail < 4) break;
      len = ((uint64_t)b[2] << 8) | b[3];
      hl = 4;
    } else if (len == 127) {
      if (avail < 10) break;
      len = 0;
      for (int i = 2; i < 10; i++) len = (len << 8) | b[i];
      hl = 10;
    }
    int masked = (b[1] & 0x80) != 0;
    if (masked) hl += 4;
    if (hl + len > c->rcap) {
      snprintf(msg, sizeof msg, "WebSocket message of %llu bytes exceeds the generator's %u-byte read buffer", (unsigned long long)len, c->rcap);
      conn_error(w, c, msg);
      break;
    }
    if (avail < hl + len) break;
    uint8_t *pl = b + hl;
    if (masked)
      for (uint64_t i = 0; i < len; i++) pl[i] ^= b[hl - 4 + (i & 3)];
    if (!(b[0] & 0x80)) {
      conn_error(w, c, "fragmented WebSocket message (the generator reads whole messages only)");
      break;
    }
    switch (op) {
    case 2:
      if (c->state == S_READY) {
        if (p->proto == P_HARK_WS)
          on_downlink(w, c, pl, len, now);
        else
          on_frame(w, c, pl, len, now);
      }
      break;
    case 1:
      if (c->state == S_SESSION) {
        int r = session_room_matches(pl, len, c->m->room, msg, sizeof msg);
        if (r > 0)
          conn_ready(w, c);
        else if (r < 0)
          conn_error(w, c, msg);
      }
      break;
    case 8: {
      int code = len >= 2 ? (pl[0] << 8) | pl[1] : 1005;
      snprintf(msg, sizeof msg, "closed by the server: %d %.*s", code, len > 2 ? (int)(len - 2) : 0, (const char *)pl + 2);
      conn_error(w, c, msg);
      break;
    }
    case 9: /* ping: answer with a masked pong carrying the same payload */
      if (len <= 125) {
        uint8_t pong[6 + 125];
        uint32_t key = next_rand(&w->rng);
        pong[0] = 0x8a;
        pong[1] = (uint8_t)(0x80 | len);
        memcpy(pong + 2, &key, 4);
        for (uint64_t i = 0; i < len; i++) pong[6 + i] = pl[i] ^ pong[2 + (i & 3)];
        queue(w, c, pong, (uint32_t)(6 + len));
      }
      break;
    default:
      break;
    }
    at += hl + len;
  }
  return at;
}

static size_t parse_mqtt(worker_t *w, conn_t *c, double now) {
  const plan_t *p = w->plan;
  size_t at = 0;
  char msg[300];
  while (c->state != S_DEAD) {
    size_t avail = c->rlen - at;
    if (avail < 2) break;
    uint8_t *b = c->rbuf + at;
    uint32_t rem = 0, mul = 1;
    size_t i = 1;
    int complete = 0;
    while (i < 5 && i < avail) {
      uint8_t byte = b[i++];
      rem += (uint32_t)(byte & 0x7f) * mul;
      mul *= 128;
      if (!(byte & 0x80)) {
        complete = 1;
        break;
      }
    }
    if (!complete) {
      if (i >= 5) conn_error(w, c, "malformed MQTT remaining length");
      break;
    }
    if (i + rem > c->rcap) {
      snprintf(msg, sizeof msg, "MQTT packet of %u bytes exceeds the generator's %u-byte read buffer", rem, c->rcap);
      conn_error(w, c, msg);
      break;
    }
    if (avail < i + rem) break;
    uint8_t type = b[0] >> 4;
    uint8_t *body = b + i;
    size_t blen = rem;
    if (type == 3) {
      int qos = (b[0] >> 1) & 3;
      if (blen < 2) {
        conn_error(w, c, "malformed PUBLISH");
        break;
      }
      size_t tl = ((size_t)body[0] << 8) | body[1];
      size_t pos = 2 + tl + (qos ? 2 : 0);
      if (pos > blen) {
        conn_error(w, c, "malformed PUBLISH");
        break;
      }
      if (qos) {
        /* Hark's events are QoS 1: acknowledge them so its inflight window never fills. */
        uint8_t ack[4] = {0x40, 0x02, body[2 + tl], body[3 + tl]};
        queue(w, c, ack, 4);
      }
      const uint8_t *topic = body + 2;
      const uint8_t *payload = body + pos;
      size_t plen = blen - pos;
      if (tl == c->audio_topic_len && memcmp(topic, c->audio_topic, tl) == 0) {
        if (c->state == S_READY) {
          if (p->mqtt_hark)
            on_downlink(w, c, payload, plen, now);
          else
            on_frame(w, c, payload, plen, now);
        }
      } else if (c->state == S_SESSION && tl == c->events_topic_len && memcmp(topic, c->events_topic, tl) == 0) {
        int r = session_room_matches(payload, plen, c->m->room, msg, sizeof msg);
        if (r > 0)
          conn_ready(w, c);
        else if (r < 0)
          conn_error(w, c, msg);
      }
    } else if (type == 2 && c->state == S_CONNACK) {
      if (blen < 2 || body[1] != 0) {
        snprintf(msg, sizeof msg, "CONNACK return code %d", blen < 2 ? -1 : body[1]);
        conn_error(w, c, msg);
        break;
      }
      if (p->mqtt_hark) {
        c->state = S_SESSION; /* Hark subscribed the device at CONNECT; the session event says it is in */
      } else {
        mqtt_subscribe_packet(c, p);
        c->state = S_SUBACK;
      }
    } else if (type == 9 && c->state == S_SUBACK) {
      if (blen < 3 || body[blen - 1] >= 0x80) {
        conn_error(w, c, "subscription refused");
        break;
      }
      conn_ready(w, c);
    }
    at += i + rem;
  }
  return at;
}

static void conn_read(worker_t *w, conn_t *c) {
  for (;;) {
    if (c->rlen == c->rcap) {
      conn_error(w, c, "read buffer full");
      return;
    }
    int n;
    if (c->ssl) {
      n = SSL_read(c->ssl, c->rbuf + c->rlen, (int)(c->rcap - c->rlen));
      if (n <= 0) {
        int e = SSL_get_error(c->ssl, n);
        if (e == SSL_ERROR_WANT_READ) return;
        if (e == SSL_ERROR_WANT_WRITE) {
          set_out(w, c, 1);
          return;
        }
        conn_error(w, c, e == SSL_ERROR_ZERO_RETURN || e == SSL_ERROR_SYSCALL ? "connection closed by the server" : "TLS read failed");
        return;
      }
    } else {
      n = (int)recv(c->fd, c->rbuf + c->rlen, c->rcap - c->rlen, 0);
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        if (errno == EINTR) continue;
        conn_error(w, c, strerror(errno));
        return;
      }
      if (n == 0) {
        conn_error(w, c, "connection closed by the server");
        return;
      }
    }
    /* Whether the socket may hold more: a short read drained it (level-triggered epoll tells
     * again when more arrives), which saves the read that would only say EAGAIN. */
    int more = (uint32_t)n == c->rcap - c->rlen || (c->ssl && SSL_has_pending(c->ssl));
    c->rlen += (uint32_t)n;
    double now = mono_us();
    size_t used = w->plan->proto == P_MQTT ? parse_mqtt(w, c, now) : parse_ws(w, c, now);
    if (c->state == S_DEAD) return;
    if (used > 0) {
      memmove(c->rbuf, c->rbuf + used, c->rlen - used);
      c->rlen -= (uint32_t)used;
    }
    if (c->wlen > c->woff) flush(w, c);
    if (c->state == S_DEAD || !more) return;
  }
}

/* ---- connecting ---- */

static void begin_protocol(worker_t *w, conn_t *c) {
  const plan_t *p = w->plan;
  if (p->proto == P_MQTT) {
    int payload = p->frame_bytes + (p->mqtt_hark ? 1 : 0);
    if (mqtt_prepare_topics(c, p, payload) < 0) {
      conn_error(w, c, "topic too long");
      return;
    }
    mqtt_connect_packet(c, p);
    c->state = S_CONNACK;
  } else {
    ws_handshake_request(c, p, &w->rng);
    c->state = S_HTTP;
  }
  flush(w, c);
}

static void tls_step(worker_t *w, conn_t *c) {
  int r = SSL_do_handshake(c->ssl);
  if (r == 1) {
    begin_protocol(w, c);
    return;
  }
  int e = SSL_get_error(c->ssl, r);
  if (e == SSL_ERROR_WANT_READ)
    set_out(w, c, 0);
  else if (e == SSL_ERROR_WANT_WRITE)
    set_out(w, c, 1);
  else {
    char msg[200];
    unsigned long code = ERR_peek_last_error();
    /* No OpenSSL reason: the socket failed or the server closed it mid-handshake. */
    const char *why = code ? ERR_reason_error_string(code) : e == SSL_ERROR_SYSCALL ? (errno ? strerror(errno) : "closed by the server") : "";
    snprintf(msg, sizeof msg, "TLS handshake failed%s%s", why && why[0] ? ": " : "", why ? why : "");
    conn_error(w, c, msg);
  }
}

static void conn_start(worker_t *w, conn_t *c) {
  const plan_t *p = w->plan;
  c->started_us = mono_us();
  c->state = S_TCP;
  c->rcap = READ_BUFFER;
  c->wcap = c->m->talker ? (uint32_t)p->max_backlog + CONTROL_ROOM : CONTROL_ROOM;
  /* A reconnect keeps the buffers of the first connect, emptied. */
  if (!c->rbuf) c->rbuf = malloc(c->rcap);
  if (!c->wbuf) c->wbuf = malloc(c->wcap);
  c->rlen = c->woff = c->wlen = 0;
  c->nseen = 0;
  c->epoll_out = 0;
  c->ssl = NULL;
  c->fd = -1;
  if (!c->rbuf || !c->wbuf) {
    conn_error(w, c, "out of memory");
    return;
  }
  int fd = socket(g_addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    conn_errno(w, c, errno);
    return;
  }
  c->fd = fd;
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  struct sockaddr_storage addr = g_addr;
  uint16_t port = htons((uint16_t)member_port(c->m, p));
  if (addr.ss_family == AF_INET6)
    ((struct sockaddr_in6 *)&addr)->sin6_port = port;
  else
    ((struct sockaddr_in *)&addr)->sin_port = port;
  if (connect(fd, (struct sockaddr *)&addr, g_addrlen) < 0 && errno != EINPROGRESS) {
    conn_errno(w, c, errno);
    return;
  }
  struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.ptr = c};
  epoll_ctl(w->ep, EPOLL_CTL_ADD, fd, &ev);
  c->epoll_out = 1;
}

static void on_event(worker_t *w, conn_t *c, uint32_t events) {
  if (c->state == S_DEAD) return;
  if (c->state == S_TCP) {
    int err = 0;
    socklen_t l = sizeof err;
    getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &l);
    if (err) {
      conn_errno(w, c, err);
      return;
    }
    if (!(events & EPOLLOUT)) return;
    if (w->reconnecting && w->first_connect_us == 0 && c->started_us >= rc_exited_us()) w->first_connect_us = mono_us();
    if (w->plan->tls) {
      c->ssl = SSL_new(g_ssl);
      if (!c->ssl) {
        conn_error(w, c, "SSL_new failed");
        return;
      }
      SSL_set_fd(c->ssl, c->fd);
      SSL_set_connect_state(c->ssl);
      c->state = S_TLS;
      tls_step(w, c);
    } else {
      begin_protocol(w, c);
    }
    return;
  }
  if (c->state == S_TLS) {
    tls_step(w, c);
    return;
  }
  if (events & EPOLLOUT) flush(w, c);
  if (c->state != S_DEAD && (events & (EPOLLIN | EPOLLERR | EPOLLHUP))) conn_read(w, c);
}

static void poll_once(worker_t *w, int timeout_ms) {
  struct epoll_event ev[256];
  int n = epoll_wait(w->ep, ev, 256, timeout_ms);
  for (int i = 0; i < n; i++) {
    if (ev[i].data.ptr == NULL) {
      uint64_t v;
      if (read(w->wake_fd, &v, sizeof v) < 0) { /* woken anyway */
      }
      continue;
    }
    on_event(w, (conn_t *)ev[i].data.ptr, ev[i].events);
  }
}

static int ms_until(double at, double now, int cap) {
  if (at <= now) return 0;
  double ms = ceil((at - now) / 1000.0);
  return ms > cap ? cap : (int)ms;
}

static void connect_phase(worker_t *w) {
  const plan_t *p = w->plan;
  double t0 = mono_us();
  double deadline = t0 + p->connect_timeout_ms * 1000.0;
  int lanes = (p->concurrency + p->threads - 1) / p->threads;
  if (lanes < 1) lanes = 1;
  double rate = p->connect_rate > 0 ? p->connect_rate / p->threads : 0;
  for (;;) {
    double now = mono_us();
    if (now >= deadline) {
      for (int i = 0; i < w->next; i++)
        if (w->conns[i].state != S_DEAD && w->conns[i].state < S_READY) conn_error(w, &w->conns[i], "connect timed out");
      w->failed += w->nconns - w->next;
      w->next = w->nconns;
      break;
    }
    double next_start = deadline;
    while (w->next < w->nconns && w->inflight < lanes) {
      if (rate > 0) {
        double due = t0 + (w->next + (double)w->id / p->threads) / rate;
        if (due > now) {
          next_start = due;
          break;
        }
        if (now - due > LATE_START_US) w->late_starts++;
      }
      conn_t *c = &w->conns[w->next++];
      w->inflight++;
      conn_start(w, c);
    }
    if (w->next >= w->nconns && w->inflight == 0) break;
    poll_once(w, ms_until(next_start < deadline ? next_start : deadline, now, 100));
  }
}

static void build_talkers(worker_t *w) {
  w->ntalkers = 0;
  for (int i = 0; i < w->nconns; i++) {
    conn_t *c = &w->conns[i];
    if (!c->was_ready || !c->m->talker) continue;
    talker_t *t = &w->talkers[w->ntalkers++];
    t->c = c;
    t->sender = c->m->index;
    t->seq = 0;
    t->done = 0;
    uint32_t in_room = g_room_ok[c->m->room_id];
    t->fanout = in_room > 0 ? in_room - 1 : 0;
  }
}

/* Build one uplink frame into the talker's send buffer and write it. */
static void send_frame(worker_t *w, talker_t *t, double sent_us) {
  const plan_t *p = w->plan;
  conn_t *c = t->c;
  int level = p->proto == P_HARK_WS || (p->proto == P_MQTT && p->mqtt_hark);
  uint8_t *s = w->scratch;
  uint8_t *f = s + level;
  memcpy(f + 4, &t->sender, 4);
  memcpy(f + 8, &t->seq, 4);
  memcpy(f + 12, &sent_us, 8);
  uint32_t plen = (uint32_t)(p->frame_bytes + level);
  uint32_t head = p->proto == P_MQTT ? c->pub_head_len : (plen < 126 ? 6 : 8);
  if (!reserve(c, head + plen)) return; /* cannot happen below maxBacklogBytes */
  uint8_t *o = c->wbuf + c->wlen;
  if (p->proto == P_MQTT) {
    memcpy(o, c->pub_head, head);
    memcpy(o + head, s, plen);
  } else {
    o[0] = 0x82;
    uint8_t *key;
    if (plen < 126) {
      o[1] = (uint8_t)(0x80 | plen);
      key = o + 2;
    } else {
      o[1] = 0x80 | 126;
      o[2] = (uint8_t)(plen >> 8);
      o[3] = (uint8_t)plen;
      key = o + 4;
    }
    uint32_t k = next_rand(&w->rng);
    memcpy(key, &k, 4);
    uint8_t *d = key + 4;
    for (uint32_t i = 0; i < plen; i++) d[i] = s[i] ^ key[i & 3];
  }
  c->wlen += head + plen;
  flush(w, c);
}

static void talk_phase(worker_t *w) {
  const plan_t *p = w->plan;
  const double period = 1e6 / p->fps;
  const double from = g_talk_from_us, warm = g_warmup_until_us, end = g_end_us;
  const double stop_at = end + g_drain_ms * 1000.0;
  build_talkers(w);
  tl_init(w);
  const int n = w->ntalkers;
  for (int i = 0; i < n; i++)
    w->talkers[i].next_due = from + ((double)i + (double)w->id / p->threads) / (n > 0 ? n : 1) * period;
  w->win_from = warm;
  w->win_to = end;
  w->counting = 1;
  int cur = 0, finished = 0;
#define IN_WINDOW(us) ((us) >= warm && (us) < end)
  for (;;) {
    double now = mono_us();
    if (now >= stop_at) break;
    while (finished < n) {
      talker_t *t = &w->talkers[cur];
      if (t->done) {
        cur = (cur + 1) % n;
        continue;
      }
      if (t->next_due >= end) {
        t->done = 1;
        finished++;
        cur = (cur + 1) % n;
        continue;
      }
      if (t->next_due > now) break;
      /* More than two periods late: the generator fell behind; skip the slots it missed. */
      double late = floor((now - t->next_due) / period);
      if (late >= 2) {
        for (int k = 0; k < (int)late; k++) {
          double due = t->next_due + k * period;
          if (IN_WINDOW(due)) {
            w->missed_late++;
            w->scheduled++;
            tl_bucket_t *b = tl_at(w, due);
            if (b) b->missed_late++;
          }
        }
        t->next_due += late * period;
        t->seq += (uint32_t)late;
      }
      int win = IN_WINDOW(t->next_due);
      if (win) w->scheduled++;
      conn_t *c = t->c;
      if (c->state != S_READY || c->wlen - c->woff > (uint32_t)p->max_backlog) {
        if (win) {
          w->skipped_backlog++;
          w->expected += t->fanout;
          tl_bucket_t *b = tl_at(w, t->next_due);
          if (b) {
            b->skipped_backlog++;
            b->expected += t->fanout;
          }
        }
      } else {
        double sent_us = mono_us();
        send_frame(w, t, sent_us);
        if (IN_WINDOW(sent_us)) {
          w->sent++;
          w->expected += t->fanout;
          tl_bucket_t *b = tl_at(w, sent_us);
          if (b) {
            b->sent++;
            b->expected += t->fanout;
          }
        }
      }
      t->seq++;
      t->next_due += period;
      cur = (cur + 1) % n;
    }
    /* Rooms are whole per thread, so every delivery this thread expects comes to it: once all
     * of them arrived the drain has nothing left to wait for (drainMs stays the upper bound). */
    if (finished == n && now >= end && w->received >= w->expected) break;
    double next = finished < n ? w->talkers[cur].next_due : stop_at;
    poll_once(w, ms_until(next < stop_at ? next : stop_at, now, 100));
  }
#undef IN_WINDOW
  w->counting = 0;
}

/* Start the attempts that are due, time out those that took too long, until every terminal that
 * was in its room came back to it (or the deadline, or `stop`). */
static void reconnect_phase(worker_t *w) {
  const double attempt_us = g_rc_attempt_ms * 1000.0;
  w->reconnecting = 1;
  report_done(); /* watching: main says so, and the runner may stop the server */
  for (;;) {
    if (__atomic_load_n(&g_cmd, __ATOMIC_ACQUIRE) == CMD_STOP) break;
    double now = mono_us();
    if (now >= g_rc_deadline_us) break;
    double next = g_rc_deadline_us;
    int pending = 0;
    for (int i = 0; i < w->nconns; i++) {
      conn_t *c = &w->conns[i];
      if (!c->was_ready) continue; /* never in its room: not part of the phase */
      if (c->state == S_READY) {
        pending += !c->came_back; /* its drop is still to come */
        continue;
      }
      pending++;
      if (c->state == S_DEAD && c->retry_at_us <= now) {
        w->attempts++;
        conn_start(w, c);
      } else if (c->state != S_DEAD && now - c->started_us >= attempt_us) {
        w->timeout_now = 1;
        conn_error(w, c, "reconnect attempt timed out");
        w->timeout_now = 0;
      }
      double due = c->state == S_DEAD ? c->retry_at_us : c->started_us + attempt_us;
      if (due < next) next = due;
    }
    if (pending == 0) break;
    poll_once(w, ms_until(next, now, 100));
  }
  w->reconnecting = 0;
}

static void wait_for(worker_t *w, int cmd) {
  while (__atomic_load_n(&g_cmd, __ATOMIC_ACQUIRE) < cmd) poll_once(w, 1000);
}

void *worker_main(void *arg) {
  worker_t *w = arg;
  const plan_t *p = w->plan;
  int level = p->proto == P_HARK_WS || (p->proto == P_MQTT && p->mqtt_hark);
  memset(w->scratch, FRAME_FILLER, (size_t)(p->frame_bytes + 1));
  w->scratch[0] = LEVEL_BYTE;
  uint32_t magic = FRAME_MAGIC;
  memcpy(w->scratch + level, &magic, 4);
  memset(w->scratch + level + 4, 0, FRAME_HEADER_BYTES - 4);
  connect_phase(w);
  report_done();
  wait_for(w, CMD_GO);
  int cmd = __atomic_load_n(&g_cmd, __ATOMIC_ACQUIRE);
  if (cmd == CMD_GO || cmd == CMD_RECONNECT) {
    if (cmd == CMD_GO)
      talk_phase(w);
    else
      reconnect_phase(w);
    report_done();
    wait_for(w, CMD_STOP);
  }
  for (int i = 0; i < w->nconns; i++) {
    conn_t *c = &w->conns[i];
    if (c->state != S_IDLE) conn_close(c);
  }
  return NULL;
}
