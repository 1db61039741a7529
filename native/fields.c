// The index's line fields (src/core/formats/claude/native-fold.ts): a cold index spent most of its time in JSON.parse
// of a big session's small lines, of which the row fold reads a dozen top-level fields. Here each line of a chunk is
// judged exactly as JSON.parse judges the line's UTF-8-decoded text (an object, anything else, or blank), and for the
// lines whose content the fold does not read the fields it does are handed back as byte spans: JS then makes a small
// object of them instead of parsing the line. A line the pass cannot describe whole is said to be one to parse.
//
// Why the verdict is exact on raw bytes: the UTF-8 decoder never takes an ASCII byte into an invalid sequence (it
// becomes U+FFFD and the byte stands), and every non-ASCII character is at or past U+0080. So outside strings any byte
// of 0x80 and more is a character JSON does not allow (U+FEFF, U+FFFD, ...), and inside strings it is always allowed.
#ifndef NAPI_VERSION
#define NAPI_VERSION 8
#endif
#include <node_api.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/** Lines this long and longer are left to JS (SUMMARY_CLIP_FROM_BYTES: they are read by their bytes there). */
#define FIELDS_BIG_LINE 4096

/** Verdicts (record slot 2). */
enum { V_BLANK = 0, V_MALFORMED = 1, V_PARSE = 2, V_FIELDS = 3, V_BIG = 4 };

/** Flag bits (record slot 3). */
enum {
  F_SIDECHAIN = 1,      // isSidechain is true
  F_META = 2,           // isMeta is true
  F_COMPACT = 4,        // isCompactSummary is true
  F_MESSAGE = 8,        // message is an object
  F_USAGE = 16,         // message.usage is an object
  F_TOOL_RESULTS = 32,  // message.content is an array with a tool_result block and no text block
  F_ORIGIN = 64,        // origin is an object
  F_ISO_TIME = 128,     // timestamp is a string in canonical ISO form (time.ts's CANONICAL_ISO), no escape in it
};

/** Top-level members taken as spans, in record order (slots 4 + 2k, 5 + 2k). */
enum {
  K_TYPE, K_UUID, K_PARENT, K_LOGICAL_PARENT, K_TIMESTAMP, K_SESSION, K_CWD, K_BRANCH, K_REQUEST_SESSION, K_MODEL, K_ID,
  K_LAST_PROMPT,  // lastPrompt
  K_CONTENT,      // message.content when it is a string (a prompt); in show's judging, whatever it is
  K_ORIGIN_KIND,  // origin.kind
  K_SPANS
};
#define RECORD_SLOTS (4 + 2 * K_SPANS + 3)
/** Slot of where the next line starts (past this one's newline). */
#define SLOT_NEXT (4 + 2 * K_SPANS + 1)
/**
 * Slot of the bit set of spans whose bytes are the line before's (both described, in the same call): bit k for span k,
 * and for K_PARENT the line before's uuid. JS reuses the string it made then (most lines repeat the session's id, cwd
 * and branch, and name the line before as their parent).
 */
#define SLOT_SAME (4 + 2 * K_SPANS + 2)
/** Slot of the bit set of spans that are strings with an escape (JS parses those). */
#define SLOT_ESCAPED (4 + 2 * K_SPANS)
#define USAGE_NUMBERS 4

typedef struct {
  const uint8_t *p;
  int32_t n;  // end of the line
  int32_t i;
  int complex;  // a key with an escape, a number the pass does not convert: the line is one to parse
  int deep;  // nested deeper than the pass keeps track of (a long line only): the line is one to parse, not malformed
} cur_t;

typedef struct {
  int32_t spans[2 * K_SPANS];
  int32_t escaped;
  int32_t flags;
  double usage[USAGE_NUMBERS];
  int content_text, content_tool_result, content_array;
  int block_type;  // the block being read: 1 text, 2 tool_result, 0 anything else
  int content_string;  // message.content is a string
  int whole;  // show's judging: K_CONTENT is message.content's span whatever its value
} line_t;

static inline void ws(cur_t *c) {
  while (c->i < c->n) {
    uint8_t b = c->p[c->i];
    if (b != 0x20 && b != 0x09 && b != 0x0a && b != 0x0d) return;
    c->i++;
  }
}

static inline int hexdigit(uint8_t b) {
  return (b >= '0' && b <= '9') || (b >= 'a' && b <= 'f') || (b >= 'A' && b <= 'F');
}

/** A string from its opening quote at c->i: c->i just past the closing one; *escaped when it holds an escape. 0: not JSON. */
static int string(cur_t *c, int *escaped) {
  const uint8_t *p = c->p;
  int32_t i = c->i + 1, n = c->n;
  int esc = 0;
  for (;;) {
#if defined(__SSE2__)
    // Sixteen bytes at a time while none is a quote, a backslash or a control character (most of a line is strings).
    while (i + 16 <= n) {
      __m128i x = _mm_loadu_si128((const __m128i *)(p + i));
      __m128i special = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))),
                                     _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x));
      int mask = _mm_movemask_epi8(special);
      if (mask != 0) {
        i += __builtin_ctz((unsigned)mask);
        break;
      }
      i += 16;
    }
#endif
    // Eight bytes at a time while none is a quote, a backslash or a control character (most of a line is strings).
    while (i + 8 <= n) {
      uint64_t x;
      memcpy(&x, p + i, 8);
      uint64_t quote = x ^ 0x2222222222222222ull, backslash = x ^ 0x5c5c5c5c5c5c5c5cull;
      uint64_t special = ((quote - 0x0101010101010101ull) & ~quote) | ((backslash - 0x0101010101010101ull) & ~backslash) | ((x - 0x2020202020202020ull) & ~x);
      if (special & 0x8080808080808080ull) break;
      i += 8;
    }
    if (i >= n) return 0;
    uint8_t b = p[i];
    if (b == '"') break;
    if (b == '\\') {
      esc = 1;
      if (i + 1 >= n) return 0;
      uint8_t e = p[i + 1];
      if (e == 'u') {
        if (i + 5 >= n || !hexdigit(p[i + 2]) || !hexdigit(p[i + 3]) || !hexdigit(p[i + 4]) || !hexdigit(p[i + 5])) return 0;
        i += 6;
      } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
        i += 2;
      } else {
        return 0;
      }
      continue;
    }
    if (b < 0x20) return 0;
    i++;
  }
  c->i = i + 1;
  if (escaped != NULL) *escaped = esc;
  return 1;
}

/** A number from c->i (JSON's grammar); *integer when it is digits only. 0: not JSON. */
static int number(cur_t *c, int *integer) {
  const uint8_t *p = c->p;
  int32_t i = c->i, n = c->n;
  int whole = 1;
  if (i < n && p[i] == '-') i++;
  if (i >= n) return 0;
  if (p[i] == '0') {
    i++;
  } else if (p[i] >= '1' && p[i] <= '9') {
    while (i < n && p[i] >= '0' && p[i] <= '9') i++;
  } else {
    return 0;
  }
  if (i < n && p[i] == '.') {
    whole = 0;
    i++;
    if (i >= n || p[i] < '0' || p[i] > '9') return 0;
    while (i < n && p[i] >= '0' && p[i] <= '9') i++;
  }
  if (i < n && (p[i] == 'e' || p[i] == 'E')) {
    whole = 0;
    i++;
    if (i < n && (p[i] == '+' || p[i] == '-')) i++;
    if (i >= n || p[i] < '0' || p[i] > '9') return 0;
    while (i < n && p[i] >= '0' && p[i] <= '9') i++;
  }
  c->i = i;
  if (integer != NULL) *integer = whole;
  return 1;
}

static int literal(cur_t *c, const char *word, int32_t length) {
  if (c->n - c->i < length || memcmp(c->p + c->i, word, (size_t)length) != 0) return 0;
  c->i += length;
  return 1;
}

/** A scalar (string, number, true, false, null) at c->i. */
static int scalar(cur_t *c) {
  switch (c->p[c->i]) {
    case '"': return string(c, NULL);
    case 't': return literal(c, "true", 4);
    case 'f': return literal(c, "false", 5);
    case 'n': return literal(c, "null", 4);
    default: return number(c, NULL);
  }
}

/**
 * Any value from c->i (whitespace before it skipped), nested without recursion: a line shorter than FIELDS_BIG_LINE
 * is never deeper than that; a longer one (show's lines) that is sets c->deep and is left to JSON.parse. 0: not JSON.
 */
static int value(cur_t *c) {
  uint8_t stack[FIELDS_BIG_LINE];
  int32_t depth = 0;
  for (;;) {
    // A value.
    ws(c);
    if (c->i >= c->n) return 0;
    uint8_t b = c->p[c->i];
    if (b == '{' || b == '[') {
      c->i++;
      ws(c);
      if (c->i >= c->n) return 0;
      if (c->p[c->i] == (b == '{' ? '}' : ']')) {
        c->i++;
      } else {
        if (depth >= FIELDS_BIG_LINE) {
          c->deep = 1;
          return 0;
        }
        stack[depth++] = b;
        if (b == '{') {
          if (c->p[c->i] != '"' || !string(c, NULL)) return 0;
          ws(c);
          if (c->i >= c->n || c->p[c->i] != ':') return 0;
          c->i++;
        }
        continue;
      }
    } else if (!scalar(c)) {
      return 0;
    }
    // After a value: close what it ends, or go on to the next member or element.
    for (;;) {
      if (depth == 0) return 1;
      ws(c);
      if (c->i >= c->n) return 0;
      uint8_t top = stack[depth - 1];
      b = c->p[c->i++];
      if (b == ',') {
        if (top == '{') {
          ws(c);
          if (c->i >= c->n || c->p[c->i] != '"' || !string(c, NULL)) return 0;
          ws(c);
          if (c->i >= c->n || c->p[c->i] != ':') return 0;
          c->i++;
        }
        break;
      }
      if (b != (top == '{' ? '}' : ']')) return 0;
      depth--;
    }
  }
}

/** The key whose quotes are at [start, end) is `name` (a key with an escape is never compared: the line is parsed). */
static inline int key_is(const cur_t *c, int32_t start, int32_t end, const char *name) {
  size_t length = strlen(name);
  return (size_t)(end - start - 2) == length && memcmp(c->p + start + 1, name, length) == 0;
}

/**
 * An object's members from its `{` at c->i, each handed to `member` (with the key's span; c->i at the value, whitespace
 * skipped), which must step over the value. 0: not JSON.
 */
typedef int (*member_fn)(cur_t *c, line_t *line, int32_t key_start, int32_t key_end);

static int members(cur_t *c, line_t *line, member_fn member) {
  c->i++;
  ws(c);
  if (c->i >= c->n) return 0;
  if (c->p[c->i] == '}') {
    c->i++;
    return 1;
  }
  for (;;) {
    if (c->p[c->i] != '"') return 0;
    int32_t key_start = c->i;
    int escaped = 0;
    if (!string(c, &escaped)) return 0;
    int32_t key_end = c->i;
    if (escaped) c->complex = 1;
    ws(c);
    if (c->i >= c->n || c->p[c->i] != ':') return 0;
    c->i++;
    ws(c);
    if (c->i >= c->n) return 0;
    if (!member(c, line, key_start, key_end)) return 0;
    ws(c);
    if (c->i >= c->n) return 0;
    uint8_t b = c->p[c->i++];
    if (b == '}') return 1;
    if (b != ',') return 0;
    ws(c);
    if (c->i >= c->n) return 0;
  }
}

/** A value whose span is taken: [start, end), and whether it is a string with an escape. */
static int take(cur_t *c, line_t *line, int k) {
  int32_t start = c->i;
  int escaped = 0;
  if (c->p[start] == '"') {
    if (!string(c, &escaped)) return 0;
  } else if (!value(c)) {
    return 0;
  }
  line->spans[2 * k] = start;
  line->spans[2 * k + 1] = c->i;
  if (escaped) line->escaped |= 1 << k;
  else line->escaped &= ~(1 << k);
  return 1;
}

/** Whether the value at c->i is `true` (stepped over either way). */
static int flag(cur_t *c, line_t *line, int bit) {
  int truth = c->n - c->i >= 4 && memcmp(c->p + c->i, "true", 4) == 0;
  if (!value(c)) return 0;
  if (truth) line->flags |= bit;
  else line->flags &= ~bit;
  return 1;
}

static int usage_member(cur_t *c, line_t *line, int32_t ks, int32_t ke) {
  int k = key_is(c, ks, ke, "input_tokens") ? 0 : key_is(c, ks, ke, "output_tokens") ? 1 : key_is(c, ks, ke, "cache_read_input_tokens") ? 2 : key_is(c, ks, ke, "cache_creation_input_tokens") ? 3 : -1;
  if (k < 0) return value(c);
  uint8_t b = c->p[c->i];
  if (b != '-' && (b < '0' || b > '9')) {
    line->usage[k] = NAN;  // not a number: counted as 0, as usageOf counts it
    return value(c);
  }
  int32_t start = c->i;
  int integer = 0;
  if (!number(c, &integer)) return 0;
  // Token counts are integers: anything else (a fraction, an exponent, more digits than a double holds exactly) is
  // left to JSON.parse, whose rounding this pass does not repeat.
  int32_t digits = c->i - start - (c->p[start] == '-');
  if (!integer || digits > 15) {
    c->complex = 1;
    return 1;
  }
  double v = 0;
  for (int32_t j = start + (c->p[start] == '-'); j < c->i; j++) v = v * 10 + (c->p[j] - '0');
  line->usage[k] = c->p[start] == '-' ? -v : v;
  return 1;
}

static int block_member(cur_t *c, line_t *line, int32_t ks, int32_t ke) {
  if (!key_is(c, ks, ke, "type")) return value(c);
  int32_t start = c->i;
  int escaped = 0;
  if (c->p[start] != '"') {
    line->block_type = 0;
    return value(c);
  }
  if (!string(c, &escaped)) return 0;
  if (escaped) c->complex = 1;
  // A block's last `type` member is its type.
  line->block_type = key_is(c, start, c->i, "text") ? 1 : key_is(c, start, c->i, "tool_result") ? 2 : 0;
  return 1;
}

/** A content array: whether one of its object blocks is a text block, and whether one is a tool_result. */
static int content(cur_t *c, line_t *line) {
  line->content_text = 0;
  line->content_tool_result = 0;
  line->content_array = 0;
  line->content_string = 0;
  line->spans[2 * K_CONTENT] = -1;
  if (c->p[c->i] == '"') {
    line->content_string = 1;
    return take(c, line, K_CONTENT);
  }
  // Show's judging reads the content whole (JS parses its span), whatever it holds: its blocks are not looked at.
  if (line->whole) return take(c, line, K_CONTENT);
  if (c->p[c->i] != '[') return value(c);
  line->content_array = 1;
  c->i++;
  ws(c);
  if (c->i >= c->n) return 0;
  if (c->p[c->i] == ']') {
    c->i++;
    return 1;
  }
  for (;;) {
    if (c->p[c->i] == '{') {
      line->block_type = 0;
      if (!members(c, line, block_member)) return 0;
      if (line->block_type == 1) line->content_text = 1;
      if (line->block_type == 2) line->content_tool_result = 1;
    } else if (!value(c)) {
      return 0;
    }
    ws(c);
    if (c->i >= c->n) return 0;
    uint8_t b = c->p[c->i++];
    if (b == ']') return 1;
    if (b != ',') return 0;
    ws(c);
    if (c->i >= c->n) return 0;
  }
}

static int message_member(cur_t *c, line_t *line, int32_t ks, int32_t ke) {
  if (key_is(c, ks, ke, "model")) return take(c, line, K_MODEL);
  if (key_is(c, ks, ke, "id")) return take(c, line, K_ID);
  if (key_is(c, ks, ke, "content")) return content(c, line);
  if (key_is(c, ks, ke, "usage")) {
    if (c->p[c->i] != '{') {
      line->flags &= ~F_USAGE;
      return value(c);
    }
    for (int k = 0; k < USAGE_NUMBERS; k++) line->usage[k] = NAN;
    line->flags |= F_USAGE;
    return members(c, line, usage_member);
  }
  return value(c);
}

static int origin_member(cur_t *c, line_t *line, int32_t ks, int32_t ke) {
  return key_is(c, ks, ke, "kind") ? take(c, line, K_ORIGIN_KIND) : value(c);
}

static int top_member(cur_t *c, line_t *line, int32_t ks, int32_t ke) {
  // Keys by length first: most members are none of these.
  switch (ke - ks - 2) {
    case 4:
      if (key_is(c, ks, ke, "type")) return take(c, line, K_TYPE);
      if (key_is(c, ks, ke, "uuid")) return take(c, line, K_UUID);
      break;
    case 3:
      if (key_is(c, ks, ke, "cwd")) return take(c, line, K_CWD);
      break;

    case 6:
      if (key_is(c, ks, ke, "isMeta")) return flag(c, line, F_META);
      if (key_is(c, ks, ke, "origin")) {
        // The last `origin` is the line's.
        line->flags &= ~F_ORIGIN;
        line->spans[2 * K_ORIGIN_KIND] = -1;
        if (c->p[c->i] != '{') return value(c);
        line->flags |= F_ORIGIN;
        return members(c, line, origin_member);
      }
      break;
    case 7:
      if (key_is(c, ks, ke, "message")) {
        // The last `message` is the line's: what an earlier one held is forgotten.
        line->flags &= ~(F_MESSAGE | F_USAGE);
        line->spans[2 * K_MODEL] = line->spans[2 * K_ID] = line->spans[2 * K_CONTENT] = -1;
        line->content_text = line->content_tool_result = line->content_array = line->content_string = 0;
        if (c->p[c->i] != '{') return value(c);
        line->flags |= F_MESSAGE;
        return members(c, line, message_member);
      }
      break;
    case 9:
      if (key_is(c, ks, ke, "sessionId")) return take(c, line, K_SESSION);
      if (key_is(c, ks, ke, "timestamp")) return take(c, line, K_TIMESTAMP);
      if (key_is(c, ks, ke, "gitBranch")) return take(c, line, K_BRANCH);
      break;
    case 10:
      if (key_is(c, ks, ke, "parentUuid")) return take(c, line, K_PARENT);
      if (key_is(c, ks, ke, "lastPrompt")) return take(c, line, K_LAST_PROMPT);
      break;
    case 11:
      if (key_is(c, ks, ke, "isSidechain")) return flag(c, line, F_SIDECHAIN);
      break;
    case 16:
      if (key_is(c, ks, ke, "isCompactSummary")) return flag(c, line, F_COMPACT);
      if (key_is(c, ks, ke, "requestSessionId")) return take(c, line, K_REQUEST_SESSION);
      break;
    case 17:
      if (key_is(c, ks, ke, "logicalParentUuid")) return take(c, line, K_LOGICAL_PARENT);
      break;
  }
  return value(c);
}

/** The span [start, end) is a string `"dddd-dd-ddTdd:dd:dd.dddZ"` (what isoTimestamp takes as it is). */
static int canonical_time(const uint8_t *p, int32_t start, int32_t end) {
  static const char shape[] = "\"0000-00-00T00:00:00.000Z\"";
  if (start < 0 || end - start != (int32_t)sizeof shape - 1) return 0;
  for (int32_t j = 0; j < end - start; j++) {
    uint8_t b = p[start + j];
    if (shape[j] == '0' ? (b < '0' || b > '9') : b != (uint8_t)shape[j]) return 0;
  }
  return 1;
}

/** Line types whose other members the fold reads (titles, names): such lines are parsed. */
static const char *const PARSED_TYPES[] = {"custom-title", "agent-name", "ai-title", "summary"};

/**
 * One line [start, end) judged, and its record filled. `whole` (show's read): lines of any length are judged, and
 * every object the pass can describe is (JS decides which lines it parses, by their type).
 */
static void judge(const uint8_t *p, int32_t start, int32_t end, int32_t *record, double *usage, int whole) {
  record[0] = start;
  record[1] = end;
  record[3] = 0;
  int32_t length = end - start;
  int blank = 1;
  for (int32_t j = start; j < end; j++) {
    if (p[j] != 0x20 && p[j] != 0x09 && p[j] != 0x0d) {
      blank = 0;
      break;
    }
  }
  if (blank) {
    record[2] = V_BLANK;
    return;
  }
  if (length >= FIELDS_BIG_LINE && !whole) {
    record[2] = V_BIG;
    return;
  }
  line_t line;
  for (int k = 0; k < 2 * K_SPANS; k++) line.spans[k] = -1;
  line.escaped = 0;
  line.flags = 0;
  line.content_text = line.content_tool_result = line.content_array = line.block_type = line.content_string = 0;
  line.whole = whole;
  for (int k = 0; k < USAGE_NUMBERS; k++) line.usage[k] = NAN;
  cur_t c = {p, end, start, 0, 0};
  ws(&c);
  if (c.i >= end || p[c.i] != '{') {
    // Valid or not, what is not an object is counted malformed (jsonObjects).
    record[2] = V_MALFORMED;
    return;
  }
  if (!members(&c, &line, top_member)) {
    record[2] = c.deep ? V_PARSE : V_MALFORMED;
    return;
  }
  ws(&c);
  if (c.i != end) {
    record[2] = V_MALFORMED;
    return;
  }
  int fields = !c.complex;
  int32_t ts = line.spans[2 * K_TYPE], te = line.spans[2 * K_TYPE + 1];
  if (fields && ts >= 0 && !whole) {
    if (p[ts] != '"' || (line.escaped & (1 << K_TYPE))) {
      fields = 0;
    } else {
      for (size_t t = 0; t < sizeof PARSED_TYPES / sizeof PARSED_TYPES[0]; t++) {
        if (key_is(&c, ts, te, PARSED_TYPES[t])) fields = 0;
      }
      // A user line is described when its content is a string (a prompt: handed back whole) or a tool's result (no
      // text); content blocks with text are parsed.
      if (key_is(&c, ts, te, "user") && !((line.flags & F_MESSAGE) && (line.content_string || (line.content_array && line.content_tool_result && !line.content_text)))) fields = 0;
    }
  }
  if (!fields) {
    record[2] = V_PARSE;
    return;
  }
  record[2] = V_FIELDS;
  if ((line.flags & F_MESSAGE) && line.content_array && line.content_tool_result && !line.content_text) line.flags |= F_TOOL_RESULTS;
  if (!(line.escaped & (1 << K_TIMESTAMP)) && canonical_time(p, line.spans[2 * K_TIMESTAMP], line.spans[2 * K_TIMESTAMP + 1])) line.flags |= F_ISO_TIME;
  record[3] = line.flags;
  memcpy(record + 4, line.spans, sizeof line.spans);
  record[SLOT_ESCAPED] = line.escaped;
  memcpy(usage, line.usage, sizeof line.usage);
}

static int same_span(const uint8_t *p, const int32_t *before, int kb, const int32_t *record, int k) {
  int32_t s0 = before[4 + 2 * kb], e0 = before[5 + 2 * kb], s1 = record[4 + 2 * k], e1 = record[5 + 2 * k];
  return s0 >= 0 && s1 >= 0 && e0 - s0 == e1 - s1 && memcmp(p + s0, p + s1, (size_t)(e1 - s1)) == 0;
}

/** SLOT_SAME of `record`, the line after `before`. */
static int32_t same_spans(const uint8_t *p, const int32_t *before, const int32_t *record) {
  static const int repeated[] = {K_TYPE, K_SESSION, K_CWD, K_BRANCH, K_REQUEST_SESSION, K_MODEL};
  int32_t same = 0;
  for (size_t j = 0; j < sizeof repeated / sizeof repeated[0]; j++) {
    if (same_span(p, before, repeated[j], record, repeated[j])) same |= 1 << repeated[j];
  }
  if (same_span(p, before, K_UUID, record, K_PARENT)) same |= 1 << K_PARENT;
  return same;
}

int32_t uuid_table_key(void *table, const uint8_t *p, int32_t n, int insert);
void *uuid_table_of(napi_env env, napi_value value);

/** Spans keyed by the uuid table (native/uuid-table.c), in `keys` order: a record's uuid, parent, logical parent. */
static const int KEYED[] = {K_UUID, K_PARENT, K_LOGICAL_PARENT};
#define KEYED_SPANS 3

/**
 * The keys of a described line's uuid, parent and logical parent: -1 for a member absent, not a string, or empty (the
 * fold's stringOrNull: null). 0 when one is a string the table cannot key as JS would decode it (an escape, a byte
 * past ASCII): the line is then one to parse, and JS keys the decoded string.
 */
static int line_keys(const uint8_t *p, const int32_t *record, const int32_t *before, const int32_t *before_keys, void *table, int32_t *keys) {
  for (int j = 0; j < KEYED_SPANS; j++) {
    int k = KEYED[j];
    int32_t start = record[4 + 2 * k], end = record[5 + 2 * k];
    keys[j] = -1;
    if (start < 0 || p[start] != '"' || end - start <= 2) continue;
    // Most lines name the line before as their parent: its uuid's key, without a lookup in a table too big to cache.
    if (k == K_PARENT && before != NULL && before_keys[0] >= 0 && same_span(p, before, K_UUID, record, K_PARENT)) {
      keys[j] = before_keys[0];
      continue;
    }
    if (record[SLOT_ESCAPED] & (1 << k)) return 0;
    for (int32_t i = start + 1; i < end - 1; i++) {
      if (p[i] >= 0x80) return 0;
    }
    int32_t key = uuid_table_key(table, p + start + 1, end - start - 2, 1);
    if (key < 0) return 0;
    keys[j] = key;
  }
  return 1;
}

/**
 * lineFields(chunk, from, to, records, usage[, whole[, table, keys]]): the lines of chunk[from, to) (each ended by a newline, a CR
 * before it not the line's), one record of RECORD_SLOTS int32 each in `records` and USAGE_NUMBERS doubles in `usage`,
 * as many as they hold (each record's last slot: where the next line starts). Returns how many lines were judged.
 * `whole` true: show's judging (see judge). With a uuid table (`whole` false), `keys` gets KEYED_SPANS int32 per record:
 * a described line's keys (line_keys); a line whose keys the table cannot give is one to parse.
 */
napi_value line_fields(napi_env env, napi_callback_info info) {
  size_t argc = 8;
  napi_value argv[8];
  void *data = NULL, *rdata = NULL, *udata = NULL, *kdata = NULL, *table = NULL;
  size_t length = 0, rlength = 0, ulength = 0, klength = 0, offset = 0;
  uint32_t from = 0, to = 0;
  napi_typedarray_type type;
  napi_value arraybuffer, result;
  bool whole = false;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 5) goto bad;
  if (argc > 5 && napi_get_value_bool(env, argv[5], &whole) != napi_ok) goto bad;
  if (napi_get_buffer_info(env, argv[0], &data, &length) != napi_ok) goto bad;
  if (napi_get_value_uint32(env, argv[1], &from) != napi_ok || napi_get_value_uint32(env, argv[2], &to) != napi_ok) goto bad;
  if (from > to || to > length) goto bad;
  if (napi_get_typedarray_info(env, argv[3], &type, &rlength, &rdata, &arraybuffer, &offset) != napi_ok || type != napi_int32_array) goto bad;
  if (napi_get_typedarray_info(env, argv[4], &type, &ulength, &udata, &arraybuffer, &offset) != napi_ok || type != napi_float64_array) goto bad;
  if (argc > 7) {
    table = uuid_table_of(env, argv[6]);
    if (table == NULL || whole) goto bad;
    if (napi_get_typedarray_info(env, argv[7], &type, &klength, &kdata, &arraybuffer, &offset) != napi_ok || type != napi_int32_array) goto bad;
  }
  const uint8_t *p = data;
  int32_t *records = rdata;
  double *usage = udata;
  int32_t *keys = kdata;
  size_t capacity = rlength / RECORD_SLOTS;
  if (ulength / USAGE_NUMBERS < capacity) capacity = ulength / USAGE_NUMBERS;
  if (table != NULL && klength / KEYED_SPANS < capacity) capacity = klength / KEYED_SPANS;
  size_t count = 0;
  uint32_t at = from;
  while (at < to && count < capacity) {
    const uint8_t *nl = memchr(p + at, '\n', to - at);
    if (nl == NULL) break;
    uint32_t end = (uint32_t)(nl - p);
    uint32_t stripped = end > at && p[end - 1] == '\r' ? end - 1 : end;
    int32_t *record = records + count * RECORD_SLOTS;
    judge(p, (int32_t)at, (int32_t)stripped, record, usage + count * USAGE_NUMBERS, whole);
    if (table != NULL && record[2] == V_FIELDS) {
      int described_before = count > 0 && record[2 - RECORD_SLOTS] == V_FIELDS;
      int32_t *line_keyed = keys + count * KEYED_SPANS;
      if (!line_keys(p, record, described_before ? record - RECORD_SLOTS : NULL, line_keyed - KEYED_SPANS, table, line_keyed)) record[2] = V_PARSE;
    }
    at = end + 1;
    record[SLOT_NEXT] = (int32_t)at;
    record[SLOT_SAME] = count > 0 && record[2] == V_FIELDS && record[2 - RECORD_SLOTS] == V_FIELDS ? same_spans(p, record - RECORD_SLOTS, record) : 0;
    count++;
  }
  napi_create_uint32(env, (uint32_t)count, &result);
  return result;
bad:
  napi_throw_type_error(env, NULL, "lineFields(chunk, from, to, records, usage[, whole[, table, keys]])");
  return NULL;
}
