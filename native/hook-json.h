// The JSON the native hook client (hook-client.c) writes and reads, and nothing more: a growable
// byte buffer; a string written as JSON.stringify writes it, whatever bytes it is given (invalid
// UTF-8 is replaced with U+FFFD as node's decoder replaces it); the hook payload reduced to its top-level string
// fields (which of them matter is the hub's to decide: src/agents/hook-payload-fields.ts); and a
// bounded parser for the hub's answer lines. Every loop here is bounded by its input's length, no
// recursion goes deeper than JP_MAX_DEPTH, and no buffer grows past the cap its caller gives.
#ifndef SWB_HOOK_JSON_H
#define SWB_HOOK_JSON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char *p;
  size_t len, cap;
  /** An allocation failed: everything after it is dropped, and the caller says so. */
  int failed;
} buf_t;

static void buf_put(buf_t *b, const void *s, size_t n) {
  if (b->failed) return;
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (b->len + n + 1 > cap) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
      b->failed = 1;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = '\0';
}

static void buf_puts(buf_t *b, const char *s) { buf_put(b, s, strlen(s)); }

static const char HEX[] = "0123456789abcdef";

/** The length of the valid UTF-8 sequence at s (1-4), or 0 when it is not one (overlong, surrogate, cut). */
static size_t utf8_len(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return n >= 2 && (s[1] & 0xC0) == 0x80 ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return n >= 3 && s[1] >= lo && s[1] <= hi && (s[2] & 0xC0) == 0x80 ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return n >= 4 && s[1] >= lo && s[1] <= hi && (s[2] & 0xC0) == 0x80 && (s[3] & 0xC0) == 0x80 ? 4 : 0;
  }
  return 0;
}

static const char REPLACEMENT[] = "\xEF\xBF\xBD";

/**
 * How many bytes one U+FFFD stands for where utf8_len found no valid sequence: the lead and the
 * continuation bytes that were still right before it broke (the "maximal subpart", as node's own
 * UTF-8 decoder counts them), so both clients read the same bytes as the same text.
 */
static size_t utf8_bad_len(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  unsigned lo = 0x80, hi = 0xBF;
  size_t need;
  if (c >= 0xE0 && c <= 0xEF) {
    need = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 1;
  }
  if (n < 2 || s[1] < lo || s[1] > hi) return 1;
  size_t k = 2;
  while (k < need && k < n && (s[k] & 0xC0) == 0x80) k++;
  return k;
}

/** A control character as JSON.stringify escapes it. */
static void put_control(buf_t *b, unsigned c) {
  switch (c) {
    case '\b': buf_puts(b, "\\b"); return;
    case '\t': buf_puts(b, "\\t"); return;
    case '\n': buf_puts(b, "\\n"); return;
    case '\f': buf_puts(b, "\\f"); return;
    case '\r': buf_puts(b, "\\r"); return;
    default: {
      char e[6] = {'\\', 'u', '0', '0', HEX[c >> 4], HEX[c & 15]};
      buf_put(b, e, 6);
    }
  }
}

/** s[0..n) as a JSON string, quotes included, for any bytes. */
static void json_string(buf_t *b, const char *str, size_t n) {
  const unsigned char *s = (const unsigned char *)str;
  buf_puts(b, "\"");
  for (size_t i = 0; i < n;) {
    unsigned c = s[i];
    if (c == '"' || c == '\\') {
      char e[2] = {'\\', (char)c};
      buf_put(b, e, 2);
      i++;
    } else if (c < 0x20) {
      put_control(b, c);
      i++;
    } else {
      size_t l = utf8_len(s + i, n - i);
      if (l == 0) {
        buf_puts(b, REPLACEMENT);
        i += utf8_bad_len(s + i, n - i);
      } else {
        buf_put(b, s + i, l);
        i += l;
      }
    }
  }
  buf_puts(b, "\"");
}

static int is_ws(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static size_t skip_ws(const unsigned char *s, size_t n, size_t i) {
  while (i < n && is_ws(s[i])) i++;
  return i;
}
static int is_hex(unsigned char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/** Past the JSON string token that starts at s[i] ('"'), or 0 when it does not end. */
static size_t scan_string(const unsigned char *s, size_t n, size_t i) {
  for (i++; i < n; i++) {
    if (s[i] == '"') return i + 1;
    if (s[i] == '\\') i++;
  }
  return 0;
}

/** Past the value (of any kind, nested as deep as it likes) that starts at s[i], or 0 when it does not end. */
static size_t skip_raw_value(const unsigned char *s, size_t n, size_t i) {
  if (i >= n) return 0;
  if (s[i] == '"') return scan_string(s, n, i);
  if (s[i] == '{' || s[i] == '[') {
    size_t depth = 0;
    while (i < n) {
      unsigned char c = s[i];
      if (c == '"') {
        i = scan_string(s, n, i);
        if (i == 0) return 0;
        continue;
      }
      if (c == '{' || c == '[') depth++;
      else if ((c == '}' || c == ']') && --depth == 0) return i + 1;
      i++;
    }
    return 0;
  }
  size_t start = i;
  while (i < n && s[i] != ',' && s[i] != '}' && s[i] != ']' && !is_ws(s[i])) i++;
  return i > start ? i : 0;
}

/**
 * The inside of the JSON string token s[a..b) (its quotes excluded), copied so that it stays a valid
 * JSON string's inside whatever it held: escapes as they were (an invalid one fails: 0), raw control
 * characters escaped, invalid UTF-8 replaced. Stops at a character or escape boundary before `cap`
 * bytes of input.
 */
static int copy_string_inside(buf_t *out, const unsigned char *s, size_t a, size_t b, size_t cap) {
  size_t used = 0;
  while (a < b) {
    size_t step;
    if (s[a] == '\\') {
      if (a + 1 >= b) return 0;
      unsigned char e = s[a + 1];
      if (e == 'u') {
        if (a + 6 > b || !is_hex(s[a + 2]) || !is_hex(s[a + 3]) || !is_hex(s[a + 4]) || !is_hex(s[a + 5])) return 0;
        step = 6;
      } else if (strchr("\"\\/bfnrt", e) && e != '\0') {
        step = 2;
      } else {
        return 0;
      }
      if (used + step > cap) break;
      buf_put(out, s + a, step);
    } else if (s[a] < 0x20) {
      step = 1;
      if (used + step > cap) break;
      put_control(out, s[a]);
    } else {
      size_t l = utf8_len(s + a, b - a);
      step = l ? l : utf8_bad_len(s + a, b - a);
      if (used + step > cap) break;
      if (l) buf_put(out, s + a, l);
      else buf_puts(out, REPLACEMENT);
    }
    used += step;
    a += step;
  }
  return 1;
}

/**
 * How much of a payload is passed on: a field's name and value are cut (or the field left out) past
 * these. A value keeps 2 KiB: room for the longest field the hub reads (a prompt's first line, 200
 * characters, each up to a six-byte escape) after some leading space. The whole stays under the hub's
 * 16 KiB bound for `payload` (src/protocol/method-params.ts), and its frame, escaped once more (at most
 * twice the size: nothing but quotes and backslashes is left to escape), under the hub's 64 KiB frame.
 */
#define PAYLOAD_MAX_FIELDS 32
#define PAYLOAD_MAX_KEY_BYTES 64
#define PAYLOAD_MAX_VALUE_BYTES 2048
#define PAYLOAD_MAX_BYTES 16384

/**
 * The payload's top-level string fields as a JSON object, in their order (a name longer than
 * PAYLOAD_MAX_KEY_BYTES left out, a value cut at PAYLOAD_MAX_VALUE_BYTES, at most PAYLOAD_MAX_FIELDS
 * and PAYLOAD_MAX_BYTES in all), always valid JSON whatever the payload's bytes; nothing (len 0)
 * when the payload is not an object or has no such field. Fields up to where the payload stops
 * being JSON are kept: a payload cut at the read bound still names its tool.
 */
static void reduce_payload(const unsigned char *s, size_t n, buf_t *out) {
  size_t i = skip_ws(s, n, 0), fields = 0;
  if (i >= n || s[i] != '{') return;
  buf_puts(out, "{");
  for (i++;;) {
    i = skip_ws(s, n, i);
    if (i >= n || s[i] != '"') break;
    size_t key = i, key_end = scan_string(s, n, i);
    if (key_end == 0) break;
    i = skip_ws(s, n, key_end);
    if (i >= n || s[i] != ':') break;
    i = skip_ws(s, n, i + 1);
    if (i >= n) break;
    if (s[i] == '"') {
      size_t value_end = scan_string(s, n, i);
      if (value_end == 0) break;
      if (fields < PAYLOAD_MAX_FIELDS && key_end - key - 2 <= PAYLOAD_MAX_KEY_BYTES) {
        size_t mark = out->len;
        if (fields > 0) buf_puts(out, ",");
        buf_puts(out, "\"");
        int ok = copy_string_inside(out, s, key + 1, key_end - 1, PAYLOAD_MAX_KEY_BYTES);
        buf_puts(out, "\":\"");
        ok = ok && copy_string_inside(out, s, i + 1, value_end - 1, PAYLOAD_MAX_VALUE_BYTES);
        buf_puts(out, "\"");
        if (!ok || out->len + 1 > PAYLOAD_MAX_BYTES) {
          if (ok) fields = PAYLOAD_MAX_FIELDS;  // the budget is spent: no more fields
          out->len = mark;
        } else {
          fields++;
        }
      }
      i = value_end;
    } else {
      i = skip_raw_value(s, n, i);
      if (i == 0) break;
    }
    i = skip_ws(s, n, i);
    if (i >= n || s[i] != ',') break;
    i++;
  }
  if (fields == 0 || out->failed) {
    out->len = 0;
    return;
  }
  buf_puts(out, "}");
}

/* --- The hub's answers: a small parser, bounded in depth, that decodes the few strings it is asked for. --- */

#define JP_MAX_DEPTH 32

typedef struct {
  const unsigned char *s;
  size_t n, i;
} jp_t;

static int hex4(const unsigned char *s, unsigned *v) {
  *v = 0;
  for (int k = 0; k < 4; k++) {
    unsigned c = s[k];
    *v = *v * 16 + (c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99);
    if (!is_hex(s[k])) return 0;
  }
  return 1;
}

static void put_utf8(buf_t *b, unsigned cp) {
  char u[4];
  if (cp < 0x80) {
    u[0] = (char)cp;
    buf_put(b, u, 1);
  } else if (cp < 0x800) {
    u[0] = (char)(0xC0 | cp >> 6), u[1] = (char)(0x80 | (cp & 63));
    buf_put(b, u, 2);
  } else if (cp < 0x10000) {
    u[0] = (char)(0xE0 | cp >> 12), u[1] = (char)(0x80 | (cp >> 6 & 63)), u[2] = (char)(0x80 | (cp & 63));
    buf_put(b, u, 3);
  } else {
    u[0] = (char)(0xF0 | cp >> 18), u[1] = (char)(0x80 | (cp >> 12 & 63)), u[2] = (char)(0x80 | (cp >> 6 & 63)), u[3] = (char)(0x80 | (cp & 63));
    buf_put(b, u, 4);
  }
}

/**
 * A JSON string at p->i, decoded into `out` (NULL: only checked) up to `cap` bytes (the rest is
 * checked and dropped; a lone surrogate becomes U+FFFD). 0 when it is not a valid string.
 */
static int jp_string(jp_t *p, buf_t *out, size_t cap) {
  const unsigned char *s = p->s;
  if (p->i >= p->n || s[p->i] != '"') return 0;
  size_t i = p->i + 1;
  while (i < p->n) {
    unsigned c = s[i];
    size_t before = out ? out->len : 0;
    if (c == '"') {
      p->i = i + 1;
      return 1;
    }
    if (c < 0x20) return 0;
    if (c == '\\') {
      if (i + 1 >= p->n) return 0;
      unsigned e = s[i + 1], cp;
      const char *simple = strchr("\"\\/bfnrt", (int)e);
      if (e != 0 && simple) {
        static const char decoded[] = "\"\\/\b\f\n\r\t";
        if (out && before + 1 <= cap) buf_put(out, &decoded[simple - "\"\\/bfnrt"], 1);
        i += 2;
        continue;
      }
      if (e != 'u' || i + 6 > p->n || !hex4(s + i + 2, &cp)) return 0;
      i += 6;
      if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 <= p->n && s[i] == '\\' && s[i + 1] == 'u') {
        unsigned lo;
        if (hex4(s + i + 2, &lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          i += 6;
        }
      }
      if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;
      if (out && before + 4 <= cap) put_utf8(out, cp);
      continue;
    }
    size_t l = utf8_len(s + i, p->n - i);
    if (out && before + (l ? l : 3) <= cap) {
      if (l) buf_put(out, s + i, l);
      else buf_puts(out, REPLACEMENT);
    }
    i += l ? l : utf8_bad_len(s + i, p->n - i);
  }
  return 0;
}

static int jp_literal(jp_t *p, const char *word) {
  size_t l = strlen(word);
  if (p->i + l > p->n || memcmp(p->s + p->i, word, l) != 0) return 0;
  p->i += l;
  return 1;
}

/** A JSON number at p->i, as strtod reads it (JSON's grammar checked first). */
static int jp_number(jp_t *p, double *v) {
  const unsigned char *s = p->s;
  size_t i = p->i, start = i;
  if (i < p->n && s[i] == '-') i++;
  if (i >= p->n || s[i] < '0' || s[i] > '9') return 0;
  if (s[i] == '0') i++;
  else
    while (i < p->n && s[i] >= '0' && s[i] <= '9') i++;
  if (i < p->n && s[i] == '.') {
    if (++i >= p->n || s[i] < '0' || s[i] > '9') return 0;
    while (i < p->n && s[i] >= '0' && s[i] <= '9') i++;
  }
  if (i < p->n && (s[i] == 'e' || s[i] == 'E')) {
    if (++i < p->n && (s[i] == '+' || s[i] == '-')) i++;
    if (i >= p->n || s[i] < '0' || s[i] > '9') return 0;
    while (i < p->n && s[i] >= '0' && s[i] <= '9') i++;
  }
  char text[64];
  size_t l = i - start < sizeof text - 1 ? i - start : sizeof text - 1;
  memcpy(text, s + start, l);
  text[l] = '\0';
  if (v) *v = strtod(text, NULL);
  p->i = i;
  return 1;
}

/** Any JSON value at p->i, checked and skipped. */
static int jp_skip(jp_t *p, int depth) {
  if (depth > JP_MAX_DEPTH) return 0;
  p->i = skip_ws(p->s, p->n, p->i);
  if (p->i >= p->n) return 0;
  unsigned char c = p->s[p->i];
  if (c == '"') return jp_string(p, NULL, 0);
  if (c == 't') return jp_literal(p, "true");
  if (c == 'f') return jp_literal(p, "false");
  if (c == 'n') return jp_literal(p, "null");
  if (c == '{' || c == '[') {
    unsigned char close = c == '{' ? '}' : ']';
    p->i = skip_ws(p->s, p->n, p->i + 1);
    if (p->i < p->n && p->s[p->i] == close) {
      p->i++;
      return 1;
    }
    for (;;) {
      if (c == '{') {
        p->i = skip_ws(p->s, p->n, p->i);
        if (!jp_string(p, NULL, 0)) return 0;
        p->i = skip_ws(p->s, p->n, p->i);
        if (p->i >= p->n || p->s[p->i] != ':') return 0;
        p->i++;
      }
      if (!jp_skip(p, depth + 1)) return 0;
      p->i = skip_ws(p->s, p->n, p->i);
      if (p->i >= p->n) return 0;
      if (p->s[p->i] == ',') {
        p->i++;
        continue;
      }
      if (p->s[p->i] != close) return 0;
      p->i++;
      return 1;
    }
  }
  return jp_number(p, NULL);
}

/**
 * Walks the object at p->i: for each member, `member(ctx, key, p)` either reads the value (and
 * returns 1, 0 on a bad value) or returns -1 to have it skipped. Keys are decoded up to 31 bytes.
 */
static int jp_object(jp_t *p, int depth, void *ctx, int (*member)(void *ctx, const char *key, jp_t *p, int depth)) {
  if (depth > JP_MAX_DEPTH) return 0;
  p->i = skip_ws(p->s, p->n, p->i);
  if (p->i >= p->n || p->s[p->i] != '{') return 0;
  p->i = skip_ws(p->s, p->n, p->i + 1);
  if (p->i < p->n && p->s[p->i] == '}') {
    p->i++;
    return 1;
  }
  for (;;) {
    buf_t key = {0};
    p->i = skip_ws(p->s, p->n, p->i);
    int ok = jp_string(p, &key, 31);
    char name[32] = "";
    // A key holding NUL ("result\u0000x") is no key this reads: as a C string it would pass for one.
    if (key.len && !key.failed && !memchr(key.p, '\0', key.len)) memcpy(name, key.p, key.len + 1);
    free(key.p);
    if (!ok) return 0;
    p->i = skip_ws(p->s, p->n, p->i);
    if (p->i >= p->n || p->s[p->i] != ':') return 0;
    p->i = skip_ws(p->s, p->n, p->i + 1);
    int r = member(ctx, name, p, depth + 1);
    if (r == 0 || (r < 0 && !jp_skip(p, depth + 1))) return 0;
    p->i = skip_ws(p->s, p->n, p->i);
    if (p->i >= p->n) return 0;
    if (p->s[p->i] == ',') {
      p->i++;
      continue;
    }
    if (p->s[p->i] != '}') return 0;
    p->i++;
    return 1;
  }
}

#endif
