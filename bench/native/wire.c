/*
 * What goes on the wire once per connection: the WebSocket upgrade (RFC 6455 client handshake,
 * Sec-WebSocket-Accept checked), MQTT 3.1.1 CONNECT and SUBSCRIBE, the PUBLISH head reused for
 * every uplink frame, and reading Hark's `session` event. Per-frame encoding and parsing are in
 * worker.c.
 */
#include "hbgen.h"
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static void put(conn_t *c, const void *b, size_t n) {
  if (c->wlen + n > c->wcap) return; /* buffers are sized for these at connect time */
  memcpy(c->wbuf + c->wlen, b, n);
  c->wlen += (uint32_t)n;
}

void url_encode(const char *in, char *out, size_t cap) {
  static const char hex[] = "0123456789ABCDEF";
  size_t n = 0;
  for (; *in && n + 4 < cap; in++) {
    unsigned char ch = (unsigned char)*in;
    if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' ||
        ch == '.' || ch == '~') {
      out[n++] = (char)ch;
    } else {
      out[n++] = '%';
      out[n++] = hex[ch >> 4];
      out[n++] = hex[ch & 15];
    }
  }
  out[n] = 0;
}

void ws_handshake_request(conn_t *c, const plan_t *p, uint32_t *rng) {
  uint8_t nonce[16];
  for (int i = 0; i < 16; i++) {
    *rng ^= *rng << 13;
    *rng ^= *rng >> 17;
    *rng ^= *rng << 5;
    nonce[i] = (uint8_t)*rng;
  }
  char key[32];
  EVP_EncodeBlock((unsigned char *)key, nonce, 16);
  char concat[96];
  snprintf(concat, sizeof concat, "%s258EAFA5-E914-47DA-95CA-C5AB0DC85B11", key);
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1((const unsigned char *)concat, strlen(concat), digest);
  EVP_EncodeBlock((unsigned char *)c->ws_accept, digest, SHA_DIGEST_LENGTH);

  char query[2048];
  char a[900], b[300], t[900];
  if (p->proto == P_HARK_WS) {
    url_encode(c->m->credential ? c->m->credential : "", t, sizeof t);
    snprintf(query, sizeof query, "token=%s", t);
  } else {
    url_encode(c->m->room, a, sizeof a);
    url_encode(c->m->client, b, sizeof b);
    int n = snprintf(query, sizeof query, "room=%s&client=%s", a, b);
    if (c->m->credential && n > 0 && (size_t)n < sizeof query) {
      url_encode(c->m->credential, t, sizeof t);
      snprintf(query + n, sizeof query - (size_t)n, "&token=%s", t);
    }
  }
  char req[3072];
  int n = snprintf(req, sizeof req,
                   "GET %s?%s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n",
                   p->path, query, p->host, member_port(c->m, p), key);
  if (n > 0) put(c, req, (size_t)n < sizeof req ? (size_t)n : sizeof req - 1);
}

/* The value of header `name` (case-insensitive) in head[0..len), or NULL; its length in *vlen. */
static const char *header(const char *head, size_t len, const char *name, size_t *vlen) {
  size_t nl = strlen(name);
  const char *end = head + len;
  for (const char *line = head; line < end;) {
    const char *eol = memmem(line, (size_t)(end - line), "\r\n", 2);
    if (!eol) break;
    if ((size_t)(eol - line) > nl && line[nl] == ':' && strncasecmp(line, name, nl) == 0) {
      const char *v = line + nl + 1;
      while (v < eol && (*v == ' ' || *v == '\t')) v++;
      const char *ve = eol;
      while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t')) ve--;
      *vlen = (size_t)(ve - v);
      return v;
    }
    line = eol + 2;
  }
  return NULL;
}

int ws_handshake_response(conn_t *c, char *msg, size_t msgcap) {
  const char *head = (const char *)c->rbuf;
  const char *end = memmem(head, c->rlen, "\r\n\r\n", 4);
  if (!end) {
    if (c->rlen == c->rcap) {
      snprintf(msg, msgcap, "upgrade response larger than %u bytes", c->rcap);
      return -1;
    }
    return 0;
  }
  size_t hlen = (size_t)(end - head) + 4;
  int status = 0;
  if (sscanf(head, "HTTP/1.%*d %d", &status) != 1) {
    snprintf(msg, msgcap, "upgrade refused: not an HTTP response");
    return -1;
  }
  if (status != 101) {
    size_t body = c->rlen - hlen;
    if (body > 160) body = 160;
    snprintf(msg, msgcap, "upgrade refused: HTTP %d %.*s", status, (int)body, head + hlen);
    return -1;
  }
  size_t vlen = 0;
  const char *accept = header(head, hlen, "Sec-WebSocket-Accept", &vlen);
  if (!accept || vlen != strlen(c->ws_accept) || memcmp(accept, c->ws_accept, vlen) != 0) {
    snprintf(msg, msgcap, "upgrade answered with a wrong Sec-WebSocket-Accept");
    return -1;
  }
  return (int)hlen;
}

static size_t varint(uint8_t *out, uint32_t n) {
  size_t i = 0;
  do {
    uint8_t byte = n % 128;
    n /= 128;
    if (n > 0) byte |= 0x80;
    out[i++] = byte;
  } while (n > 0);
  return i;
}

static size_t utf8(uint8_t *out, const char *s) {
  size_t n = strlen(s);
  out[0] = (uint8_t)(n >> 8);
  out[1] = (uint8_t)n;
  memcpy(out + 2, s, n);
  return n + 2;
}

void mqtt_connect_packet(conn_t *c, const plan_t *p) {
  (void)p;
  uint8_t body[2048];
  size_t n = utf8(body, "MQTT");
  int cred = c->m->credential != NULL;
  body[n++] = 4;                            /* 3.1.1 */
  body[n++] = 0x02 | (cred ? 0xc0 : 0);     /* clean session, user name + password */
  body[n++] = 0;
  body[n++] = 120;                          /* keepalive 120 s: a run is shorter */
  if (strlen(c->m->client) + (cred ? strlen(c->m->client) + strlen(c->m->credential) : 0) + 16 > sizeof body - n) return;
  n += utf8(body + n, c->m->client);
  if (cred) {
    n += utf8(body + n, c->m->client);
    n += utf8(body + n, c->m->credential);
  }
  uint8_t head[5] = {0x10};
  size_t h = 1 + varint(head + 1, (uint32_t)n);
  put(c, head, h);
  put(c, body, n);
}

/* `template` with {room} replaced. */
static void room_topic(const plan_t *p, const member_t *m, char *out, size_t cap) {
  const char *t = p->topic;
  size_t n = 0;
  while (*t && n + 1 < cap) {
    if (strncmp(t, "{room}", 6) == 0) {
      size_t r = strlen(m->room);
      if (n + r + 1 >= cap) break;
      memcpy(out + n, m->room, r);
      n += r;
      t += 6;
    } else {
      out[n++] = *t++;
    }
  }
  out[n] = 0;
}

void mqtt_subscribe_packet(conn_t *c, const plan_t *p) {
  char topic[512];
  room_topic(p, c->m, topic, sizeof topic);
  uint8_t body[600] = {0, 1};
  size_t n = 2 + utf8(body + 2, topic);
  body[n++] = 0; /* QoS 0 */
  uint8_t head[5] = {0x82};
  size_t h = 1 + varint(head + 1, (uint32_t)n);
  put(c, head, h);
  put(c, body, n);
}

static char *dupn(const char *s, uint16_t *len) {
  size_t n = strlen(s);
  char *d = malloc(n + 1);
  if (!d) return NULL;
  memcpy(d, s, n + 1);
  *len = (uint16_t)n;
  return d;
}

int mqtt_prepare_topics(conn_t *c, const plan_t *p, int payload_len) {
  char pub[512], audio[512], events[512];
  if (p->mqtt_hark) {
    snprintf(pub, sizeof pub, "hark/%s/up/audio", c->m->client);
    snprintf(audio, sizeof audio, "hark/%s/down/audio", c->m->client);
    snprintf(events, sizeof events, "hark/%s/down/events", c->m->client);
  } else {
    room_topic(p, c->m, pub, sizeof pub);
    memcpy(audio, pub, sizeof audio);
    events[0] = 0;
  }
  /* A reconnect prepares them again: the old copies go. */
  free(c->audio_topic);
  free(c->events_topic);
  c->audio_topic = dupn(audio, &c->audio_topic_len);
  c->events_topic = dupn(events, &c->events_topic_len);
  if (!c->audio_topic || !c->events_topic) return -1;
  size_t tl = strlen(pub);
  if (tl + 8 > sizeof c->pub_head) return -1;
  uint8_t *h = c->pub_head;
  h[0] = 0x30; /* PUBLISH, QoS 0 */
  size_t n = 1 + varint(h + 1, (uint32_t)(2 + tl + (size_t)payload_len));
  n += utf8(h + n, pub);
  c->pub_head_len = (uint16_t)n;
  return 0;
}

/*
 * Hark's `session` event (JSON): 1 when its "room" is `room`, 0 when it is not a session event,
 * -1 (msg set) when it puts the terminal elsewhere or nowhere.
 */
int session_room_matches(const uint8_t *json, size_t len, const char *room, char *msg, size_t msgcap) {
  const char *s = (const char *)json;
  if (!memmem(s, len, "\"type\":\"session\"", 16)) return 0;
  const char *r = memmem(s, len, "\"room\":", 7);
  if (!r) {
    snprintf(msg, msgcap, "session event without a room");
    return -1;
  }
  r += 7;
  const char *end = s + len;
  if (end - r >= 4 && memcmp(r, "null", 4) == 0) {
    snprintf(msg, msgcap, "session with no room mapping");
    return -1;
  }
  size_t rl = strlen(room);
  if (end - r >= (ptrdiff_t)(rl + 2) && r[0] == '"' && memcmp(r + 1, room, rl) == 0 && r[1 + rl] == '"') return 1;
  const char *q = r + 1;
  const char *qe = memchr(q, '"', (size_t)(end - q));
  snprintf(msg, msgcap, "session in room %.*s, not %s", qe ? (int)(qe - q) : 0, q, room);
  return -1;
}
