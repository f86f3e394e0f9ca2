/*
 * hbgen: the bench's native load generator (C, OpenSSL, epoll; one thread per generator core).
 * It drives the same room loads as generators/roomWorker.ts with the same bench frame
 * (generators/frame.ts) and reports the same counts, so the runner can use either. Driven over
 * stdin/stdout by generators/native.ts: plan lines then `start` -> one `connected` JSON line,
 * `go ...` -> one `result` JSON line, or `reconnect ...` + `listening ...` -> one `reconnected`
 * JSON line, `stop` (or EOF) -> exit. See bench/README.md.
 *
 * Protocols: hark-ws (Hark's terminal protocol over WSS), ws-pubsub (the bare uWS peer),
 * raw-mqtt with scheme hark (Hark's device topics) or pubsub (mosquitto, aedes: a room topic).
 *
 * Per frame nothing is allocated: every buffer belongs to its connection, made at connect time.
 */
#ifndef HBGEN_H
#define HBGEN_H

#define _GNU_SOURCE
#include <openssl/ssl.h>
#include <pthread.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

/* ---- the bench frame (generators/frame.ts) ---- */
#define FRAME_MAGIC 0x31464248u /* "HBF1" as u32 LE */
#define FRAME_HEADER_BYTES 20
#define FRAME_FILLER 0x5a
/* Voiced, -20 dBov: the V|level byte every talking terminal sends (0x80 | 20). */
#define LEVEL_BYTE 0x94
#define DOWNLINK_HEADER_BYTES 6
#define NO_SENDER 0xffffffffu
#define TRACKED_SENDERS 8

/* ---- latency histogram: the bucket layout of hdr-histogram-js with 3 significant digits,
 * lowest 1, highest 60 s in us, so the Node side re-records [value, count] pairs losslessly. */
#define HIST_SUB_BUCKET_HALF_COUNT_MAGNITUDE 10
#define HIST_SUB_BUCKET_HALF_COUNT 1024
#define HIST_SUB_BUCKET_MASK 2047ull
#define HIST_MAX_US 60000000ull
#define HIST_BUCKETS 17 /* 2048 << 15 > 60e6 */
#define HIST_COUNTS ((HIST_BUCKETS + 1) * HIST_SUB_BUCKET_HALF_COUNT)

typedef struct hist {
  uint64_t counts[HIST_COUNTS];
  uint64_t total;
} hist_t;

void hist_record(hist_t *h, double us);
void hist_add(hist_t *into, const hist_t *from);
/* Append `[[value,count],...]` to out (at most cap bytes); returns the length written. */
size_t hist_json(const hist_t *h, char *out, size_t cap);

/* ---- the plan (stdin) ---- */
enum proto { P_HARK_WS, P_WS_PUBSUB, P_MQTT };

typedef struct member {
  uint32_t index;
  uint32_t room_id; /* dense, 0..nrooms-1 */
  uint8_t talker;
  char *room;
  char *client;
  char *credential; /* NULL when none */
  int port;         /* this terminal's server port (a cluster: its node's); 0 = the plan's */
} member_t;

typedef struct plan {
  enum proto proto;
  int mqtt_hark; /* raw-mqtt: 1 = Hark's topics, 0 = a broker's room topic */
  int tls;
  char host[256];
  int port;
  char path[256];
  char topic[256]; /* pubsub topic template, {room} replaced */
  int frame_bytes;
  int fps;
  int concurrency;        /* connections opening at once (whole process) */
  double connect_rate;    /* connects started per second (whole process); 0 = as lanes free up */
  int connect_timeout_ms;
  int max_backlog;
  int threads;
  member_t *members;
  int nmembers;
  uint32_t nrooms;
} plan_t;

/* ---- connections ---- */
enum cstate { S_IDLE, S_TCP, S_TLS, S_HTTP, S_SESSION, S_CONNACK, S_SUBACK, S_READY, S_DEAD };

typedef struct conn {
  int fd;
  SSL *ssl;
  uint8_t state;
  uint8_t epoll_out; /* EPOLLOUT currently asked for */
  uint8_t was_ready; /* reached S_READY during the connect phase */
  const member_t *m;
  uint32_t self; /* sender index of its own frames (talker), or NO_SENDER */
  double started_us;
  uint8_t *rbuf;
  uint32_t rlen, rcap;
  uint8_t *wbuf;
  uint32_t woff, wlen, wcap;
  char ws_accept[32]; /* expected Sec-WebSocket-Accept */
  /* MQTT: topics compared on receipt, the PUBLISH head prepended to every uplink frame */
  char *audio_topic;
  uint16_t audio_topic_len;
  char *events_topic;
  uint16_t events_topic_len;
  uint8_t pub_head[300];
  uint16_t pub_head_len;
  /* Last sequence number seen per sender (rooms of up to TRACKED_SENDERS + 1): duplicates show. */
  uint32_t seen_sender[TRACKED_SENDERS];
  uint32_t seen_seq[TRACKED_SENDERS];
  uint8_t nseen;
  /* reconnect phase: failed attempts since the last drop, when the next attempt starts, when it
   * was back in its room (monotonic us), whether it came back at all */
  uint16_t failed_attempts;
  uint8_t came_back;
  double retry_at_us;
  double back_us;
} conn_t;

typedef struct talker {
  conn_t *c;
  uint32_t sender;
  uint32_t seq;
  uint32_t fanout;
  uint8_t done;
  double next_due;
} talker_t;

enum cmd { CMD_NONE, CMD_GO, CMD_RECONNECT, CMD_STOP };

/* One slice of the timeline (go's BUCKET_MS > 0): what happened to the frames whose send time
 * (or slot, for frames not sent) falls in it. The histogram is allocated on first use. */
typedef struct tl_bucket {
  uint64_t sent, expected, received, skipped_backlog, missed_late;
  hist_t *hist;
} tl_bucket_t;

#define TL_MAX_BUCKETS 4096

typedef struct worker {
  int id;
  pthread_t thread;
  int ep;
  int wake_fd; /* eventfd: main -> worker */
  const plan_t *plan;
  conn_t *conns;
  int nconns;
  talker_t *talkers;
  int ntalkers;
  uint32_t rng;
  /* connecting */
  int next;
  int inflight;
  int ok, failed;
  int late_starts;
  char first_error[300];
  hist_t connect_hist;
  /* talking: written by this worker only, read by main once it reported */
  int counting;
  double win_from, win_to;
  uint64_t scheduled, sent, missed_late, skipped_backlog, expected, received, foreign, corrupt, dropped, duplicate;
  hist_t hist;
  /* The same deliveries split by where the receiver is connected: the plan's port (home) or a
   * port of its own (away: in a cluster, another node) — a cross-node delivery beside a local one
   * in the same run. */
  hist_t hist_home, hist_away;
  uint8_t *scratch; /* one uplink payload */
  /* reconnect phase (`reconnect`): written by this worker only, read by main once it reported */
  int reconnecting;
  int refused_now; /* the failure being handled is ECONNREFUSED (nobody listening yet) */
  int timeout_now; /* the failure being handled is an attempt that took too long */
  uint64_t drops, attempts, refused, attempt_failures, timeouts;
  /* attempt failures by kind (the rest: other): a reset, a close, an answer saying no */
  uint64_t resets, closes, rejections;
  /* The first TCP connect established by an attempt started after the old server exited: the
   * new one listens (seen by the terminals, which poll far more densely than the runner). */
  double first_connect_us;
  double first_drop_us, last_drop_us;
  char reconnect_error[300]; /* the first failure other than a refused connect */
  /* Time-resolved figures of the window (timeline.c); NULL without a bucket width. */
  tl_bucket_t *timeline;
} worker_t;

/* shared between main and workers (run.c) */
#include <sys/socket.h>
extern SSL_CTX *g_ssl;
extern struct sockaddr_storage g_addr;
extern socklen_t g_addrlen;
/* The port a member connects to: its own, or the plan's. */
static inline int member_port(const member_t *m, const plan_t *p) { return m->port ? m->port : p->port; }
/* Terminals of each room that connected (set by main before `go`). */
extern uint32_t *g_room_ok;
extern volatile int g_cmd;
extern double g_talk_from_us, g_warmup_until_us, g_end_us, g_drain_ms;
/* `reconnect`: the backoff (first bound, cap), the time one attempt may take, the phase's end. */
extern double g_rc_first_ms, g_rc_max_ms, g_rc_attempt_ms, g_rc_deadline_us;
/* `exited`: when the old server exited (us; +inf until told), written by main, read by workers. */
double rc_exited_us(void);
void set_rc_exited_us(double us);
/* Timeline of `go`: bucket width (0 = none) and the instant bucket 0 starts (monotonic us). */
extern double g_bucket_us, g_timeline_from_us;
void report_done(void);
/* Block until `n` workers reported (main thread). */
void wait_all(int n);

double mono_us(void);
void frames_init(void);
void *worker_main(void *arg);

/* timeline.c */
int tl_count(void);
/* The bucket of instant `us`, or NULL (no timeline, or outside it). */
tl_bucket_t *tl_at(worker_t *w, double us);
void tl_init(worker_t *w);
/* Print `[{"index":i,...,"buckets":[[v,c],...]},...]` merged over the workers' timelines. */
void tl_print(FILE *out, worker_t *ws, int n, char *scratch, size_t cap);

/* wire.c */
void ws_handshake_request(conn_t *c, const plan_t *p, uint32_t *rng);
/* >0: bytes of the HTTP response consumed (101 and the right accept); 0: need more; <0: refused, msg set */
int ws_handshake_response(conn_t *c, char *msg, size_t msgcap);
void mqtt_connect_packet(conn_t *c, const plan_t *p);
void mqtt_subscribe_packet(conn_t *c, const plan_t *p);
int mqtt_prepare_topics(conn_t *c, const plan_t *p, int payload_len);
int session_room_matches(const uint8_t *json, size_t len, const char *room, char *msg, size_t msgcap);
void url_encode(const char *in, char *out, size_t cap);

#endif
