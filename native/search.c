// The full-text search engine of `sessions grep` and the browser's content search, in C: what the JS worker
// (src/catalog/grep-worker.ts with fileContainsSync) does per session, on threads of its own, so that the
// system calls and the byte search cost what they cost in ripgrep, not what they cost through Node's fs layer.
// Node-API only (no V8 or libuv headers): one build serves every Node release the package supports.
//
// What stays in JS (src/catalog/native-grep.ts): compiling the text into probes and spellings, judging a line that
// holds a hit with the adapter's `isNonConversationLine` (the engine hands over the line's opening and goes on past
// the line if JS rejects it; an opening that holds none of the adapter's `nonConversationNeedles` is one the rule
// cannot reject, and counts here without asking), decoding the cwd and lineage the engine cuts out of each head,
// and the rows.
#define _GNU_SOURCE
#ifndef NAPI_VERSION
#define NAPI_VERSION 8
#endif
#include <node_api.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#define CHUNK (256 * 1024)
/** What grep looks at for a cwd and a lineage (SUMMARY_HEAD_BYTES in src/core/io/heads.ts). */
#define HEAD_BYTES (64 * 1024)
/** A file's stamp covers its first bytes (FINGERPRINT_BYTES in src/core/io/lines.ts). */
#define FINGERPRINT_BYTES 64
/** How much of a line's start the adapters' line filters see (LINE_OPENING_BYTES in src/core/io/contains.ts). */
#define OPENING_BYTES 512
/** Lines with hits handed to JS in one judgement: fewer round trips where many hits sit in rejected lines. */
#define MAX_OPENINGS 16

/* Item flags (set by JS). */
#define F_FILTER 1       /* its agent has a line filter: every hit's line is judged by JS */
#define F_SNIFF_CWD 2    /* cut out the first cwd its heads record */
#define F_SNIFF_LINEAGE 4 /* cut out the lineage lines of its first head */
#define F_FIRST 8        /* searched before the others (agents whose rows wait for every file's lineage) */
#define F_LINEAGE_ROOT 16 /* its lineage is the root uuid of its lineage lines (claudeRootInHead): read here when plain */
/* Bits 8-15: 1 + the needle set of its agent's line filter (0: none, every line with a hit is judged by JS). */
#define F_NEEDLES_SHIFT 8
#define MAX_NEEDLE_SETS 255

typedef struct {
  unsigned char *bytes;
  size_t len;
  size_t probe_offset;
} spelling_t;

typedef struct {
  unsigned char *bytes;
  size_t len;
  spelling_t *spellings;
  size_t nspellings;
  size_t anchor; /* its rarest byte, looked for with memchr */
  size_t pair;   /* its next rarest byte at another offset (== anchor for a one-byte probe) */
} probe_t;

/*
 * Printable ASCII bytes from most to least common in real agent transcripts (COMMON_BYTES in src/core/io/contains.ts);
 * bytes not listed are rarer still.
 */
static const char COMMON_BYTES[] = " etn\\soa\"rilducp:m,_hfg-.y0)(12bkwv{}4x5/63S879;`*TC=E|[>]IAqR#P&!ODjLM<NU'BW";

static size_t rarity(unsigned char byte) {
  const char *at = byte >= 0x20 && byte < 0x7f ? strchr(COMMON_BYTES, byte) : NULL;
  return at && byte != 0 ? (size_t)(at - COMMON_BYTES) : sizeof COMMON_BYTES;
}

typedef struct problem {
  struct problem *next;
  uint32_t file;
  char *message;
} problem_t;

typedef struct cut {
  struct cut *next;
  unsigned char *bytes;
  size_t len;
} cut_t;

enum { S_PENDING = 0, S_MATCH = 1, S_NONE = 2, S_JUDGE = 3 };

typedef struct item {
  struct item *next;
  int32_t index;
  uint32_t flags;
  uint32_t npaths;
  char **paths;
  const unsigned char *lineage_key; /* NULL: the whole head is the lineage cut (the engine owns the bytes) */
  size_t lineage_key_len;
  /* progress */
  uint32_t file;     /* the file to search next */
  int64_t resume_at; /* -1: from the start; else the start of a rejected line to go on from */
  int head_seen;     /* a head was read (the lineage is sniffed in the first one) */
  int cwd_wanted;
  int cwd_private; /* a cwd JS must decode came first: later ones go to this item's list, in file order */
  int32_t token;   /* while waiting for a judgement */
  int judged;      /* JS judged lines of it: its end is always reported (JS holds state for it) */
  int matched;     /* a line JS judged counts */
  int state;
  /* outputs */
  double *stamps; /* per file: size, mtimeMs, fingerprint length, fingerprint hash */
  uint8_t *stamped;
  int stamps_failed;
  cut_t *cwds, *cwds_tail; /* cwd cuts for JS to decode, in file order */
  unsigned char *lineage;
  size_t lineage_len;
  int lineage_set;
  /* F_LINEAGE_ROOT: the root uuid read out of the lineage cut (its bytes at root_at; root_len 0: none), or not (JS reads the cut) */
  int root_known;
  size_t root_at, root_len;
  problem_t *problems, *problems_tail;
  /* the judgement asked for: openings of the lines with hits, and where each line starts */
  int nopenings;
  int64_t opening_at[MAX_OPENINGS];
  unsigned char *openings; /* MAX_OPENINGS * OPENING_BYTES */
  size_t opening_len[MAX_OPENINGS];
} item_t;

typedef struct {
  item_t **slots;
  size_t cap;
} waiting_t;

/** An adapter's nonConversationNeedles: its line filter rejects no opening that holds none of them. */
typedef struct {
  unsigned char **bytes;
  size_t *lens;
  size_t count;
} needles_t;

typedef struct cwdset {
  unsigned char **keys;
  size_t *lens;
  size_t cap, count;
} cwdset_t;

/* A batch's arrays (call_js), grown as items are held. */
typedef struct {
  double *table, *stamps, *spans;
  unsigned char *bytes;
  size_t ntable, nstamps, nspans, nbytes;
  size_t cap_table, cap_stamps, cap_spans, cap_bytes;
} held_t;

typedef struct engine {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int refs; /* the JS handle, the thread-safe function */
  /* search */
  probe_t *probes;
  size_t nprobes;
  size_t longest;
  int ignore_case, fold_chunks, want_stamps;
  needles_t *needle_sets;
  size_t nneedle_sets;
  /* trigram maps of big files (see "Trigram maps" below): their folder (NULL: none), the least size a file needs */
  char *tri_dir;
  uint64_t tri_min;
  int tri_usable; /* every spelling can be ruled out by a map: 3 bytes or more, no newline */
  /* queues: continuations first, then the F_FIRST items, then the others; stacks, taken from the end */
  item_t *continuations;
  item_t **first, **others;
  size_t nfirst, capfirst, nothers, capothers;
  waiting_t waiting;
  /* results for JS */
  item_t *out, *out_tail;
  uint32_t silent; /* items done with nothing to say */
  uint32_t nout;   /* items in `out` */
  /*
   * Items whose lineage was sniffed and that are done with nothing else to say (no match): packed here as a batch's
   * rows are (their index, stamps and lineage: a few dozen bytes each, the item freed), not handed to JS one by one,
   * until JS asks for them all (`held`: only a search that links a matching row to its family does). `nheld` counts
   * those held since the last batch (JS counts them as seen).
   */
  held_t held;
  uint32_t nheld;
  cut_t *new_cwds, *new_cwds_tail;
  cwdset_t seen_cwds;
  cut_t *keys; /* lineage keys the items point into */
  int notify_pending;
  int closing, aborted;
  int nthreads, running;
  pthread_t *threads;
  napi_threadsafe_function tsfn;
} engine_t;

/* ---------- small helpers ---------- */

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) abort();
  return p;
}

static unsigned char *dup_bytes(const unsigned char *bytes, size_t len) {
  unsigned char *copy = xmalloc(len);
  memcpy(copy, bytes, len);
  return copy;
}

static cut_t *new_cut(const unsigned char *bytes, size_t len) {
  cut_t *cut = xmalloc(sizeof *cut);
  cut->next = NULL;
  cut->bytes = dup_bytes(bytes, len);
  cut->len = len;
  return cut;
}

static void free_cuts(cut_t *cut) {
  while (cut) {
    cut_t *next = cut->next;
    free(cut->bytes);
    free(cut);
    cut = next;
  }
}

/* An item is one allocation: the struct, its path pointers, stamps, stamped flags and path bytes (see push). */
static void free_item(item_t *item) {
  free_cuts(item->cwds);
  free(item->lineage);
  for (problem_t *p = item->problems; p;) {
    problem_t *next = p->next;
    free(p->message);
    free(p);
    p = next;
  }
  free(item->openings);
  free(item);
}

static void engine_unref(engine_t *engine);

/* Node's error messages for the system calls grep makes ("ENOENT: no such file or directory, stat '/x'"). */
static const char *errno_name(int code) {
  switch (code) {
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case ELOOP: return "ELOOP";
    case ENAMETOOLONG: return "ENAMETOOLONG";
    case ENOTDIR: return "ENOTDIR";
    case EISDIR: return "EISDIR";
    case EMFILE: return "EMFILE";
    case ENFILE: return "ENFILE";
    case EIO: return "EIO";
    case ENOMEM: return "ENOMEM";
    case EAGAIN: return "EAGAIN";
    case EOVERFLOW: return "EOVERFLOW";
    case ENXIO: return "ENXIO";
    case ENODEV: return "ENODEV";
    case ESTALE: return "ESTALE";
    case EINVAL: return "EINVAL";
    default: return "UNKNOWN";
  }
}

static const char *errno_text(int code) {
  /* libuv's wording where it differs from the C library's. */
  switch (code) {
    case ENOENT: return "no such file or directory";
    case EACCES: return "permission denied";
    case EPERM: return "operation not permitted";
    case ELOOP: return "too many symbolic links encountered";
    case ENAMETOOLONG: return "name too long";
    case ENOTDIR: return "not a directory";
    case EISDIR: return "illegal operation on a directory";
    case EMFILE: return "too many open files";
    case ENFILE: return "file table overflow";
    case EIO: return "i/o error";
    default: return NULL;
  }
}

static char *system_error(int code, const char *syscall, const char *path) {
  char lowered[256];
  const char *text = errno_text(code);
  if (!text) {
    snprintf(lowered, sizeof lowered, "%s", strerror(code));
    if (lowered[0] >= 'A' && lowered[0] <= 'Z') lowered[0] = (char)(lowered[0] | 0x20);
    text = lowered;
  }
  size_t n = strlen(errno_name(code)) + strlen(text) + strlen(syscall) + strlen(path) + 16;
  char *message = xmalloc(n);
  snprintf(message, n, "%s: %s, %s '%s'", errno_name(code), text, syscall, path);
  return message;
}

/* NotRegularFileError's message (src/core/io/regular.ts). */
static char *not_regular(mode_t mode) {
  const char *kind = S_ISFIFO(mode) ? "not a regular file (a FIFO)"
                     : (S_ISCHR(mode) || S_ISBLK(mode)) ? "not a regular file (a device)"
                     : S_ISSOCK(mode) ? "not a regular file (a socket)"
                     : S_ISDIR(mode) ? "not a regular file (a directory)"
                                      : "not a regular file (not a file)";
  return strdup(kind);
}

static void add_problem(item_t *item, uint32_t file, char *message) {
  problem_t *p = xmalloc(sizeof *p);
  p->next = NULL;
  p->file = file;
  p->message = message;
  if (item->problems_tail) item->problems_tail->next = p;
  else item->problems = p;
  item->problems_tail = p;
}

/** Node's Stats#mtimeMs: seconds * 1e3 + nanoseconds / 1e6, in doubles. */
static double mtime_ms(const struct stat *st) {
  return (double)st->st_mtim.tv_sec * 1000.0 + (double)st->st_mtim.tv_nsec / 1000000.0;
}

/** FNV-1a of the first bytes (fingerprintOf in src/core/io/lines.ts). */
static uint32_t fingerprint(const unsigned char *bytes, size_t len) {
  uint32_t hash = 0x811c9dc5u;
  for (size_t i = 0; i < len; i++) hash = (hash ^ bytes[i]) * 0x01000193u;
  return hash;
}

static void set_stamp(item_t *item, uint32_t file, double size, double mtime, size_t fplen, uint32_t fphash) {
  double *s = item->stamps + file * 4;
  s[0] = size;
  s[1] = mtime;
  s[2] = (double)fplen;
  s[3] = (double)fphash;
  item->stamped[file] = 1;
}

static ssize_t pread_full(int fd, unsigned char *buffer, size_t length, off_t position) {
  for (;;) {
    ssize_t n = pread(fd, buffer, length, position);
    if (n >= 0 || errno != EINTR) return n;
  }
}

static int write_full(int fd, const unsigned char *bytes, size_t length) {
  while (length > 0) {
    ssize_t n = write(fd, bytes, length);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    bytes += n;
    length -= (size_t)n;
  }
  return 1;
}

/*
 * openRegularWithStatsSync (src/core/io/regular.ts): stat says a regular file, open never blocks (O_NONBLOCK: a
 * FIFO swapped in meanwhile opens at once), fstat on the descriptor says a regular file. -1 with *message set.
 */
static int open_regular(const char *path, struct stat *st, char **message) {
  if (stat(path, st) != 0) {
    *message = system_error(errno, "stat", path);
    return -1;
  }
  if (!S_ISREG(st->st_mode)) {
    *message = not_regular(st->st_mode);
    return -1;
  }
  int fd;
  do fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    *message = system_error(errno, "open", path);
    return -1;
  }
  if (fstat(fd, st) != 0) {
    *message = system_error(errno, "fstat", path);
    close(fd);
    return -1;
  }
  if (!S_ISREG(st->st_mode)) {
    *message = not_regular(st->st_mode);
    close(fd);
    return -1;
  }
  return fd;
}

/* ---------- the search in a buffer (bufferContains / firstMatch in src/core/io/contains.ts) ---------- */

/** An ASCII letter lowered; any other byte as it is (the folding of the search and of the trigram maps). */
static inline unsigned char fold_byte(unsigned char b) {
  return (unsigned char)(b | ((unsigned char)(b - 'A') < 26 ? 0x20 : 0));
}

static void lower_ascii(unsigned char *bytes, size_t from, size_t to) {
  for (size_t i = from; i < to; i++) bytes[i] = fold_byte(bytes[i]);
}

static int equals_folded(const unsigned char *view, const unsigned char *bytes, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (fold_byte(view[i]) != bytes[i]) return 0;
  return 1;
}

static int spelling_at(const engine_t *engine, const unsigned char *view, size_t length, size_t hit, const spelling_t *s, size_t from, size_t *start_out) {
  if (hit < s->probe_offset) return 0;
  size_t start = hit - s->probe_offset;
  if (start < from || start + s->len > length) return 0;
  int equal = engine->ignore_case && !engine->fold_chunks ? equals_folded(view + start, s->bytes, s->len) : memcmp(view + start, s->bytes, s->len) == 0;
  if (!equal) return 0;
  *start_out = start;
  return 1;
}

/*
 * How a thread looks for a probe: memchr on its rarest byte and a compare at each place it is found is several times
 * faster than any other way when the byte is rare in the files (3 ms against 11 per 100 MB of Codex rollouts for
 * "zqxvkjw"). When it is not (the `g` of "parsing": 10 per KiB), the probe's two rarest bytes are looked for together,
 * 16 places at a time (SSE2, as ripgrep's "packed pair"): 15 ms against 23 with memchr and 31 with memmem per 100 MB.
 * Each thread counts, per probe, and switches for good once the anchor turned out common; without SSE2 it switches
 * to memmem, later.
 */
#define MAX_PROBES 8
#define ANCHOR_SAMPLE (1 << 20)
#if defined(__SSE2__)
#include <emmintrin.h>
#define ANCHOR_MAX_PER_KIB 4
#else
#define ANCHOR_MAX_PER_KIB 12
#endif

typedef struct {
  unsigned char *buffer; /* CHUNK + longest - 1 */
  uint64_t scanned[MAX_PROBES];
  uint64_t candidates[MAX_PROBES];
  int use_memmem[MAX_PROBES];
} scratch_t;

/** The first place of `probe` in view[at, length) by its two rarest bytes, or NULL (memmem without SSE2). */
static const unsigned char *packed_pair(const probe_t *probe, const unsigned char *view, size_t at, size_t length) {
#if defined(__SSE2__)
  const size_t len = probe->len, a = probe->anchor, b = probe->pair;
  if (len >= 2 && a != b) {
    const unsigned char *h = view + at;
    const size_t last = length - at - len; /* the last start: length - at >= len (see find_match) */
    const __m128i first = _mm_set1_epi8((char)probe->bytes[a]), second = _mm_set1_epi8((char)probe->bytes[b]);
    size_t i = 0;
    for (; i + 16 <= last + 1; i += 16) {
      const __m128i x = _mm_loadu_si128((const __m128i *)(h + i + a)), y = _mm_loadu_si128((const __m128i *)(h + i + b));
      unsigned mask = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(x, first), _mm_cmpeq_epi8(y, second)));
      while (mask) {
        const unsigned bit = (unsigned)__builtin_ctz(mask);
        if (memcmp(h + i + bit, probe->bytes, len) == 0) return h + i + bit;
        mask &= mask - 1;
      }
    }
    for (; i <= last; i++)
      if (h[i + a] == probe->bytes[a] && h[i + b] == probe->bytes[b] && memcmp(h + i, probe->bytes, len) == 0) return h + i;
    return NULL;
  }
#endif
  return memmem(view + at, length - at, probe->bytes, probe->len);
}

/** The next place of `probe` in view[at, length), or NULL. */
static const unsigned char *next_probe(scratch_t *scratch, size_t p, const probe_t *probe, const unsigned char *view, size_t at, size_t length) {
  if (p >= MAX_PROBES || scratch->use_memmem[p]) return packed_pair(probe, view, at, length);
  const size_t a = probe->anchor;
  const unsigned char byte = probe->bytes[a];
  const unsigned char *end = view + length;
  const unsigned char *from = view + at;
  const unsigned char *found = NULL;
  uint64_t candidates = 0;
  /* c: where the probe would start; its anchor byte is at c + a. */
  for (const unsigned char *c = from; (size_t)(end - c) >= probe->len; c++) {
    const unsigned char *b = memchr(c + a, byte, (size_t)(end - c) - probe->len + 1);
    if (!b) break;
    c = b - a;
    candidates++;
    if (memcmp(c, probe->bytes, probe->len) == 0) {
      found = c;
      break;
    }
  }
  scratch->candidates[p] += candidates;
  scratch->scanned[p] += (uint64_t)((found ? found : end) - from);
  if (scratch->scanned[p] >= ANCHOR_SAMPLE && scratch->candidates[p] * 1024 > scratch->scanned[p] * ANCHOR_MAX_PER_KIB) scratch->use_memmem[p] = 1;
  return found;
}

/** Where the first match starting at or after `from` begins, or -1; with `any`, where some match begins. */
static int64_t find_match(const engine_t *engine, scratch_t *scratch, const unsigned char *view, size_t length, size_t from, int any) {
  int64_t best = -1;
  for (size_t p = 0; p < engine->nprobes; p++) {
    const probe_t *probe = &engine->probes[p];
    size_t at = from;
    while (at + probe->len <= length) {
      const unsigned char *found = next_probe(scratch, p, probe, view, at, length);
      if (!found) break;
      size_t hit = (size_t)(found - view);
      if (best != -1 && hit >= (size_t)best + engine->longest) break;
      for (size_t k = 0; k < probe->nspellings; k++) {
        size_t start;
        if (spelling_at(engine, view, length, hit, &probe->spellings[k], from, &start) && (best == -1 || start < (size_t)best)) {
          best = (int64_t)start;
          if (any) return best;
        }
      }
      at = hit + 1;
    }
  }
  return best;
}

static int64_t first_match(const engine_t *engine, scratch_t *scratch, const unsigned char *view, size_t length, size_t from) {
  return find_match(engine, scratch, view, length, from, 0);
}

static const unsigned char *last_newline(const unsigned char *view, size_t before) {
  return before == 0 ? NULL : memrchr(view, '\n', before);
}

/* ---------- head sniffing (cwdInHead, the adapters' lineageInHead in src/core/io/heads.ts) ---------- */

static const unsigned char CWD_KEY[] = "\"cwd\":\"";
static const unsigned char CWD_TAG[] = "<cwd>";
static const unsigned char CWD_TAG_END[] = "</cwd>";

static int cwdset_add(cwdset_t *set, const unsigned char *bytes, size_t len) {
  if (set->count * 2 >= set->cap) {
    size_t cap = set->cap ? set->cap * 2 : 256;
    unsigned char **keys = calloc(cap, sizeof *keys);
    size_t *lens = calloc(cap, sizeof *lens);
    if (!keys || !lens) abort();
    for (size_t i = 0; i < set->cap; i++) {
      if (!set->keys[i]) continue;
      size_t h = fingerprint(set->keys[i], set->lens[i]) & (cap - 1);
      while (keys[h]) h = (h + 1) & (cap - 1);
      keys[h] = set->keys[i];
      lens[h] = set->lens[i];
    }
    free(set->keys);
    free(set->lens);
    set->keys = keys;
    set->lens = lens;
    set->cap = cap;
  }
  size_t h = fingerprint(bytes, len) & (set->cap - 1);
  while (set->keys[h]) {
    if (set->lens[h] == len && memcmp(set->keys[h], bytes, len) == 0) return 0;
    h = (h + 1) & (set->cap - 1);
  }
  set->keys[h] = dup_bytes(bytes, len);
  set->lens[h] = len;
  set->count++;
  return 1;
}

static void item_cwd_cut(item_t *item, const unsigned char *bytes, size_t len) {
  cut_t *cut = new_cut(bytes, len);
  if (item->cwds_tail) item->cwds_tail->next = cut;
  else item->cwds = cut;
  item->cwds_tail = cut;
}

/*
 * The cwd of one head, as cwdInHead finds it: the first `"cwd":"` key's string, else a `<cwd>…</cwd>` tag. A
 * plain string (no escapes, not empty) is a cwd for sure: it goes to the engine-wide list once (deduplicated).
 * Anything JS must decode (escapes, a tag) goes to the item's own list, cut so that cwdInHead of the cut is
 * cwdInHead of the head; from then on the item's later cwds go there too, so JS keeps the file order.
 */
static void sniff_cwd(engine_t *engine, item_t *item, const unsigned char *head, size_t len) {
  const unsigned char *key = memmem(head, len, CWD_KEY, sizeof CWD_KEY - 1);
  if (key) {
    size_t open = (size_t)(key - head) + sizeof CWD_KEY - 2;
    int plain = 1;
    size_t close = 0;
    for (size_t i = open + 1; i < len; i++) {
      unsigned char b = head[i];
      if (b == '\\') {
        plain = 0;
        i++;
        continue;
      }
      if (b == '"') {
        close = i;
        break;
      }
      if (b < 0x20) plain = 0;
    }
    if (close == 0) return; /* no string end in the head: cwdInHead says null */
    if (plain && close > open + 1 && !item->cwd_private) {
      item->cwd_wanted = 0;
      pthread_mutex_lock(&engine->mu);
      if (cwdset_add(&engine->seen_cwds, key, close + 1 - (size_t)(key - head))) {
        cut_t *cut = new_cut(key, close + 1 - (size_t)(key - head));
        if (engine->new_cwds_tail) engine->new_cwds_tail->next = cut;
        else engine->new_cwds = cut;
        engine->new_cwds_tail = cut;
      }
      pthread_mutex_unlock(&engine->mu);
      return;
    }
    item->cwd_private = 1;
    item_cwd_cut(item, key, close + 1 - (size_t)(key - head));
    if (plain && close > open + 1) item->cwd_wanted = 0;
    return;
  }
  const unsigned char *tag = memmem(head, len, CWD_TAG, sizeof CWD_TAG - 1);
  if (!tag) return;
  const unsigned char *end = memmem(tag, len - (size_t)(tag - head), CWD_TAG_END, sizeof CWD_TAG_END - 1);
  if (!end) return;
  item->cwd_private = 1;
  item_cwd_cut(item, tag, (size_t)(end - tag) + sizeof CWD_TAG_END - 1);
}

/*
 * claudeRootInHead (src/core/io/heads.ts) on a lineage cut, with json-bytes.ts's walk of a line's top-level members:
 * each helper below is its namesake there, 0 standing for its -1 (no position is 0: a value follows an opening brace).
 */
static int json_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static size_t skip_space(const unsigned char *b, size_t len, size_t i) {
  while (i < len && json_space(b[i])) i++;
  return i;
}

/* stringEnd: just past the first quote after `open` not escaped by an odd run of backslashes, or 0. */
static size_t string_end(const unsigned char *b, size_t len, size_t open) {
  for (size_t at = open + 1; at < len; at++) {
    const unsigned char *quote = memchr(b + at, '"', len - at);
    if (!quote) return 0;
    at = (size_t)(quote - b);
    size_t slashes = 0;
    while (slashes < at && b[at - 1 - slashes] == '\\') slashes++;
    if (slashes % 2 == 0) return at + 1;
  }
  return 0;
}

static size_t nested_end(const unsigned char *b, size_t len, size_t open) {
  long depth = 0;
  for (size_t j = open; j < len; j++) {
    if (b[j] == '"') {
      size_t end = string_end(b, len, j);
      if (!end) return 0;
      j = end - 1;
    } else if (b[j] == '{' || b[j] == '[') {
      depth++;
    } else if (b[j] == '}' || b[j] == ']') {
      if (--depth == 0) return j + 1;
    }
  }
  return 0;
}

/* valueEnd with `final` false: a scalar that runs to the end of the bytes does not end. */
static size_t value_end(const unsigned char *b, size_t len, size_t start) {
  if (start >= len) return 0;
  if (b[start] == '"') return string_end(b, len, start);
  if (b[start] == '{' || b[start] == '[') return nested_end(b, len, start);
  for (size_t j = start; j < len; j++)
    if (b[j] == ',' || b[j] == '}' || b[j] == ']' || json_space(b[j])) return j;
  return 0;
}

/*
 * topLevelSpan(line, 'uuid'): 1 with the last top-level `uuid` member's value span, 0 when there is none or the line is
 * not a whole object (memberSpan's null), -1 when a key needs decoding (an escape, a byte past ASCII or a control
 * byte: JS compares it decoded).
 */
static int top_level_uuid(const unsigned char *b, size_t len, size_t *value_at, size_t *value_to) {
  size_t i = skip_space(b, len, 0);
  if (i >= len || b[i] != '{') return 0;
  i = skip_space(b, len, i + 1);
  if (i < len && b[i] == '}') return 0;
  int found = 0;
  for (;;) {
    if (i >= len || b[i] != '"') return 0;
    size_t key_end = string_end(b, len, i);
    if (!key_end) return 0;
    for (size_t k = i + 1; k + 1 < key_end; k++)
      if (b[k] == '\\' || b[k] >= 0x80 || b[k] < 0x20) return -1;
    int is_uuid = key_end - i == 6 && memcmp(b + i + 1, "uuid", 4) == 0;
    i = skip_space(b, len, key_end);
    if (i >= len || b[i] != ':') return 0;
    size_t start = skip_space(b, len, i + 1);
    size_t end = value_end(b, len, start);
    if (!end || end == start) return 0;
    if (is_uuid) {
      found = 1;
      *value_at = start;
      *value_to = end;
    }
    i = skip_space(b, len, end);
    if (i < len && b[i] == '}') return found;
    if (i >= len || b[i] != ',') return 0;
    i = skip_space(b, len, i + 1);
  }
}

static const unsigned char ROOT_KEY[] = "\"parentUuid\":null";
static const unsigned char LOGICAL_PARENT_KEY[] = "\"logicalParentUuid\":\"";

/* claudeRootInHead of the item's lineage cut, when decodeString would take its uuid's bytes as they are (no escape, no control byte). */
static void read_lineage_root(item_t *item) {
  const unsigned char *cut = item->lineage;
  size_t len = item->lineage_len;
  for (size_t from = 0; from < len;) {
    const unsigned char *hit = memmem(cut + from, len - from, ROOT_KEY, sizeof ROOT_KEY - 1);
    if (!hit) break;
    size_t key = (size_t)(hit - cut);
    from = key + 1;
    const unsigned char *newline = memchr(cut + key, '\n', len - key);
    if (!newline) break;
    const unsigned char *before = last_newline(cut, key);
    size_t start = before ? (size_t)(before - cut) + 1 : 0;
    const unsigned char *line = cut + start;
    size_t line_len = (size_t)(newline - line);
    if (memmem(line, line_len, LOGICAL_PARENT_KEY, sizeof LOGICAL_PARENT_KEY - 1)) continue;
    size_t value_at = 0, value_to = 0;
    int found = top_level_uuid(line, line_len, &value_at, &value_to);
    if (found < 0) return;
    if (found == 0) continue;
    item->root_known = 1;
    /* Not a string: decodeString's null. */
    if (line[value_at] != '"') return;
    for (size_t k = value_at + 1; k + 1 < value_to; k++)
      if (line[k] == '\\' || line[k] < 0x20) {
        item->root_known = 0;
        return;
      }
    item->root_at = start + value_at + 1;
    item->root_len = value_to - value_at - 2;
    return;
  }
  item->root_known = 1;
}

/*
 * The lines of the head that hold the adapter's lineage key, each with its newline (a last line the head cuts
 * short without one): its lineageInHead sees only those lines, so it answers on them as on the whole head.
 */
static void sniff_lineage(item_t *item, const unsigned char *head, size_t len) {
  item->lineage_set = 1;
  if (!item->lineage_key) {
    item->lineage = dup_bytes(head, len);
    item->lineage_len = len;
    return;
  }
  size_t cap = 0, used = 0;
  unsigned char *out = NULL;
  size_t at = 0;
  while (at < len) {
    const unsigned char *found = memmem(head + at, len - at, item->lineage_key, item->lineage_key_len);
    if (!found) break;
    size_t hit = (size_t)(found - head);
    const unsigned char *nl = last_newline(head, hit);
    size_t start = nl ? (size_t)(nl - head) + 1 : 0;
    const unsigned char *endp = memchr(head + hit, '\n', len - hit);
    size_t end = endp ? (size_t)(endp - head) + 1 : len;
    if (used + (end - start) > cap) {
      cap = (used + (end - start)) * 2;
      out = realloc(out, cap);
      if (!out) abort();
    }
    memcpy(out + used, head + start, end - start);
    used += end - start;
    at = end;
  }
  item->lineage = out;
  item->lineage_len = used;
  if (item->flags & F_LINEAGE_ROOT) read_lineage_root(item);
}

/* ---------- one file ---------- */

/**
 * Whether JS's line filter could reject a line opening so: it holds one of the item's needles, or its agent has none
 * (nonConversationNeedles in src/core/formats/types.ts). ASCII needles: the opening's bytes hold one exactly when the
 * string JS would decode from them does.
 */
static int may_be_rejected(const engine_t *engine, const item_t *item, const unsigned char *opening, size_t len) {
  uint32_t set = (item->flags >> F_NEEDLES_SHIFT) & 0xff;
  if (set == 0 || set > engine->nneedle_sets) return 1;
  const needles_t *needles = &engine->needle_sets[set - 1];
  for (size_t k = 0; k < needles->count; k++)
    if (memmem(opening, len, needles->bytes[k], needles->lens[k])) return 1;
  return 0;
}

/* ---------- trigram maps of big files ----------
 *
 * A few session files hold most of a home's bytes (a long Claude Code or Codex session is hundreds of MB), and a
 * search for a word they do not hold reads them all. So a file of tri_min bytes or more gets a map when a search
 * reads it to its end: a bit per hashed trigram and per hashed 4-gram of its bytes (ASCII letters folded), TRI_BITS
 * bits, kept in tri_dir under a hash of its path. A later search reads the map (TRI_BITS / 8 bytes) and, when no
 * spelling of the text can be in the bytes it covers, reads only what was appended since (and the head, for the stamp
 * and the sniffs). The 4-grams rule out a word made of common trigrams ("parsing": par, ars, rsi, sin, ing are in
 * most big sessions, its "arsi" and "rsin" often not): with trigrams alone such a word read every big file whole.
 *
 * A map is trusted only for the file it was made of, as it was: the same path, device and inode, no shorter, the
 * same first 64 bytes, the same 64 bytes before the line where the map ends, and, when the size did not change, the
 * same mtime (agents append to their files; one rewritten in place has another mtime or size). Anything else, or a
 * map that does not read whole, and the file is searched from its start as without a map, and mapped again.
 *
 * Ruling out is exact: every trigram and 4-gram of the covered bytes is in the map (a hash collision only sets more
 * bits), so a spelling whose trigrams or 4-grams are not all there is not in those bytes. Spellings shorter than 3
 * bytes, or holding a newline, are never ruled out (a map ends at a line's end: the appended bytes are searched from
 * there).
 */
#define TRI_BITS 22
#define TRI_MAP_BYTES ((size_t)1 << (TRI_BITS - 3))
static const char TRI_MAGIC[8] = {'S', 'E', 'S', 'T', 'R', 'I', '0', '2'};

typedef struct {
  char magic[8];
  uint64_t dev, ino;
  uint64_t covered;      /* the map holds the trigrams and 4-grams of [0, covered) */
  uint64_t covered_line; /* just past the last newline before covered: a later search goes on from here */
  int64_t mtime_sec, mtime_nsec;
  uint32_t head_len, head_fp; /* fingerprint() of the file's first bytes */
  uint32_t tail_len, tail_fp; /* fingerprint() of the bytes just before covered_line */
  uint32_t path_len, reserved;
} tri_header_t;
/* pruneTrigramMaps (src/catalog/native-grep.ts) reads the path a map names at these offsets. */
_Static_assert(sizeof(tri_header_t) == 80 && offsetof(tri_header_t, path_len) == 72, "tri_header_t's layout is read by pruneTrigramMaps");

typedef struct {
  unsigned char *map; /* NULL: no map is made or used for this file */
  uint64_t skip_to;   /* the search starts here (covered_line of a map that rules the text out; else 0) */
  uint64_t last_line; /* just past the last newline read so far */
  uint64_t loaded;    /* what the map read from tri_dir covers (0: none was) */
  uint32_t head_len, head_fp;
  /* The last bytes read (folded, the newest lowest) and how many (at most 3): the n-grams that start in one chunk and end in the next. */
  uint32_t tail, tail_len;
} tri_t;

static inline uint32_t tri_hash(uint32_t trigram) {
  return (trigram * 0x9E3779B1u) >> (32 - TRI_BITS);
}

/* The map's file for `path`: tri_dir/<FNV-1a 64 of the path, in hex>.tri. */
static char *tri_path(const engine_t *engine, const char *path) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (const unsigned char *p = (const unsigned char *)path; *p; p++) hash = (hash ^ *p) * 0x100000001b3ull;
  size_t len = strlen(engine->tri_dir) + 1 + 16 + 4 + 1;
  char *out = xmalloc(len);
  snprintf(out, len, "%s/%016llx.tri", engine->tri_dir, (unsigned long long)hash);
  return out;
}

/* fold_byte of every byte (filled when the module loads). */
static unsigned char FOLDED[256];

static inline void tri_set(unsigned char *map, uint32_t trigram) {
  uint32_t h = tri_hash(trigram);
  map[h >> 3] |= (unsigned char)(1u << (h & 7));
}

/* A 4-gram's bit: its 32 bits, told apart from a trigram's 24 by another hash (both only set bits). tri_may_hold asks
 * for the same bit: the two must never hash apart. */
static inline uint32_t tri_hash4(uint32_t quad) {
  return (quad * 0x85EBCA77u) >> (32 - TRI_BITS);
}

static inline void tri_set4(unsigned char *map, uint32_t quad) {
  uint32_t h = tri_hash4(quad);
  map[h >> 3] |= (unsigned char)(1u << (h & 7));
}

/*
 * Add to the map the trigrams and 4-grams that end in bytes[0, len): the bytes read after those added or skipped last
 * (tri->tail), so the n-grams that begin in the chunk before are added too.
 */
static void tri_add(tri_t *tri, const unsigned char *bytes, size_t len) {
  unsigned char *map = tri->map;
  uint32_t w = tri->tail, seen = tri->tail_len;
  size_t i = 0;
  /* The first bytes of a file (fewer than 3 before them: no 4-gram, or no trigram, ends there yet). */
  for (; i < len && seen < 3; i++, seen++) {
    w = (w << 8) | FOLDED[bytes[i]];
    if (seen == 2) tri_set(map, w & 0xffffff);
  }
  /* Four bytes at a time: their n-grams hashed and set independently (~20 % faster than one byte at a time). */
  for (; i + 4 <= len; i += 4) {
    uint32_t w0 = (w << 8) | FOLDED[bytes[i]], w1 = (w0 << 8) | FOLDED[bytes[i + 1]];
    uint32_t w2 = (w1 << 8) | FOLDED[bytes[i + 2]], w3 = (w2 << 8) | FOLDED[bytes[i + 3]];
    tri_set(map, w0 & 0xffffff);
    tri_set4(map, w0);
    tri_set(map, w1 & 0xffffff);
    tri_set4(map, w1);
    tri_set(map, w2 & 0xffffff);
    tri_set4(map, w2);
    tri_set(map, w3 & 0xffffff);
    tri_set4(map, w3);
    w = w3;
  }
  for (; i < len; i++) {
    w = (w << 8) | FOLDED[bytes[i]];
    tri_set(map, w & 0xffffff);
    tri_set4(map, w);
  }
  tri->tail = w & 0xffffff;
  tri->tail_len = seen;
}

/* The last bytes of a chunk of `len` read after the ones added last, kept for the next chunk's n-grams (nothing added to the map). */
static void tri_skip(tri_t *tri, const unsigned char *bytes, size_t len) {
  for (size_t i = len > 3 ? len - 3 : 0; i < len; i++) tri->tail = (tri->tail << 8) | FOLDED[bytes[i]];
  tri->tail &= 0xffffff;
  tri->tail_len = tri->tail_len + len < 3 ? tri->tail_len + (uint32_t)len : 3;
}

/* Whether every trigram and 4-gram of the spelling is in the map (it may be in the bytes the map covers). */
static int tri_may_hold(const unsigned char *map, const unsigned char *bytes, size_t len) {
  if (len < 3) return 1;
  uint32_t w = ((uint32_t)fold_byte(bytes[0]) << 8) | fold_byte(bytes[1]);
  for (size_t i = 2; i < len; i++) {
    w = (w << 8) | fold_byte(bytes[i]);
    uint32_t h = tri_hash(w & 0xffffff);
    if (!(map[h >> 3] & (1u << (h & 7)))) return 0;
    if (i < 3) continue;
    h = tri_hash4(w);
    if (!(map[h >> 3] & (1u << (h & 7)))) return 0;
  }
  return 1;
}

static int tri_text_may_be_in(const engine_t *engine, const unsigned char *map) {
  for (size_t p = 0; p < engine->nprobes; p++)
    for (size_t k = 0; k < engine->probes[p].nspellings; k++)
      if (tri_may_hold(map, engine->probes[p].spellings[k].bytes, engine->probes[p].spellings[k].len)) return 1;
  return 0;
}

/* fingerprint() of the `*len` bytes before `end` (fewer at the file's start); 0 when they cannot be read. */
static int tri_fp_before(int fd, uint64_t end, uint32_t *len, uint32_t *fp) {
  unsigned char bytes[FINGERPRINT_BYTES];
  size_t want = end < FINGERPRINT_BYTES ? (size_t)end : FINGERPRINT_BYTES;
  if (want > 0 && pread_full(fd, bytes, want, (off_t)(end - want)) != (ssize_t)want) return 0;
  *len = (uint32_t)want;
  *fp = fingerprint(bytes, want);
  return 1;
}

/*
 * Before a search of a big file: its map if one holds for the file as it is now (see above), else a new empty one to
 * fill as the search reads. tri->map stays NULL when the file is too small or the text cannot be ruled out.
 */
static void tri_open(const engine_t *engine, const char *path, int fd, const struct stat *st, tri_t *tri) {
  memset(tri, 0, sizeof *tri);
  if (!engine->tri_dir || !engine->tri_usable || (uint64_t)st->st_size < engine->tri_min) return;
  unsigned char head[FINGERPRINT_BYTES];
  ssize_t got = pread_full(fd, head, FINGERPRINT_BYTES, 0);
  if (got < 0) return;
  tri->head_len = (uint32_t)got;
  tri->head_fp = fingerprint(head, (size_t)got);
  tri->map = calloc(1, TRI_MAP_BYTES);
  if (!tri->map) return;
  char *file = tri_path(engine, path);
  int mfd;
  do mfd = open(file, O_RDONLY | O_CLOEXEC);
  while (mfd < 0 && errno == EINTR);
  free(file);
  if (mfd < 0) return;
  tri_header_t h;
  size_t path_len = strlen(path);
  char *named = NULL;
  int ok = pread_full(mfd, (unsigned char *)&h, sizeof h, 0) == (ssize_t)sizeof h && memcmp(h.magic, TRI_MAGIC, sizeof h.magic) == 0 &&
           h.path_len == path_len && h.dev == (uint64_t)st->st_dev && h.ino == (uint64_t)st->st_ino && h.covered <= (uint64_t)st->st_size &&
           h.covered_line <= h.covered && h.head_len == tri->head_len && h.head_fp == tri->head_fp &&
           (h.covered < (uint64_t)st->st_size || (h.mtime_sec == (int64_t)st->st_mtim.tv_sec && h.mtime_nsec == (int64_t)st->st_mtim.tv_nsec));
  if (ok) {
    named = xmalloc(path_len + 1);
    ok = pread_full(mfd, (unsigned char *)named, path_len, (off_t)sizeof h) == (ssize_t)path_len && memcmp(named, path, path_len) == 0;
  }
  if (ok) {
    uint32_t tail_len = 0, tail_fp = 0;
    ok = tri_fp_before(fd, h.covered_line, &tail_len, &tail_fp) && tail_len == h.tail_len && tail_fp == h.tail_fp;
  }
  if (ok) ok = pread_full(mfd, tri->map, TRI_MAP_BYTES, (off_t)(sizeof h + path_len)) == (ssize_t)TRI_MAP_BYTES;
  free(named);
  close(mfd);
  if (!ok) {
    memset(tri->map, 0, TRI_MAP_BYTES);
    return;
  }
  /* The map holds: when the text cannot be in what it covers, only the lines after it are searched (and mapped). */
  if (!tri_text_may_be_in(engine, tri->map)) tri->skip_to = h.covered_line;
  tri->last_line = h.covered_line;
  tri->loaded = h.covered;
}

/* After a search that read the file to `end`: the map, covering [0, end), written in place of the old one. */
static void tri_save(const engine_t *engine, const char *path, int fd, const struct stat *st, tri_t *tri, uint64_t end) {
  tri_header_t h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, TRI_MAGIC, sizeof h.magic);
  h.dev = (uint64_t)st->st_dev;
  h.ino = (uint64_t)st->st_ino;
  h.covered = end;
  h.covered_line = tri->last_line;
  h.mtime_sec = (int64_t)st->st_mtim.tv_sec;
  h.mtime_nsec = (int64_t)st->st_mtim.tv_nsec;
  h.head_len = tri->head_len;
  h.head_fp = tri->head_fp;
  size_t path_len = strlen(path);
  h.path_len = (uint32_t)path_len;
  if (!tri_fp_before(fd, h.covered_line, &h.tail_len, &h.tail_fp)) return;
  char *file = tri_path(engine, path);
  size_t tmp_len = strlen(file) + 32;
  char *tmp = xmalloc(tmp_len);
  snprintf(tmp, tmp_len, "%s.%ld.%lx", file, (long)getpid(), (unsigned long)pthread_self());
  int out;
  do out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  while (out < 0 && errno == EINTR);
  if (out >= 0) {
    int ok = write_full(out, (const unsigned char *)&h, sizeof h) && write_full(out, (const unsigned char *)path, path_len) && write_full(out, tri->map, TRI_MAP_BYTES);
    ok = close(out) == 0 && ok;
    if (!ok || rename(tmp, file) != 0) unlink(tmp);
  }
  free(tmp);
  free(file);
}

enum { R_NONE, R_MATCH, R_JUDGE, R_ERROR, R_ABORTED };

/* A file's first bytes, read: its stamp, and the cwd and lineage its head shows. */
static void at_head(engine_t *engine, item_t *item, uint32_t f, const struct stat *st, const unsigned char *buffer, size_t n) {
  size_t fplen = n < FINGERPRINT_BYTES ? n : FINGERPRINT_BYTES;
  set_stamp(item, f, (double)st->st_size, mtime_ms(st), fplen, fingerprint(buffer, fplen));
  size_t head = n < HEAD_BYTES ? n : HEAD_BYTES;
  if (!item->head_seen && (item->flags & F_SNIFF_LINEAGE)) sniff_lineage(item, buffer, head);
  item->head_seen = 1;
  if (item->cwd_wanted) sniff_cwd(engine, item, buffer, head);
}

static int search_file(engine_t *engine, item_t *item, uint32_t f, scratch_t *scratch) {
  const char *path = item->paths[f];
  struct stat st;
  char *message = NULL;
  int fd = open_regular(path, &st, &message);
  if (fd < 0) {
    add_problem(item, f, message);
    return R_ERROR;
  }
  size_t overlap = engine->longest > 0 ? engine->longest - 1 : 0;
  unsigned char *buffer = scratch->buffer;
  int resuming = f == item->file && item->resume_at >= 0;
  off_t start = resuming ? (off_t)item->resume_at : 0;
  tri_t tri;
  if (resuming) memset(&tri, 0, sizeof tri);
  else tri_open(engine, path, fd, &st, &tri);
  if (tri.skip_to > 0) {
    /* The text is not in the mapped lines: the head still gives the stamp and the sniffs, then the lines after them. */
    ssize_t n = pread_full(fd, scratch->buffer, HEAD_BYTES, 0);
    if (n < 0) {
      add_problem(item, f, system_error(errno, "read", path));
      free(tri.map);
      close(fd);
      return R_ERROR;
    }
    at_head(engine, item, f, &st, scratch->buffer, (size_t)n);
    start = (off_t)tri.skip_to;
  }
  int64_t rejected = resuming ? item->resume_at : -1;
  int64_t line_start = start;
  off_t position = start;
  size_t carried = 0;
  int result = R_NONE;
  item->nopenings = 0;
  for (;;) {
    if (__atomic_load_n(&engine->aborted, __ATOMIC_RELAXED)) {
      result = R_ABORTED;
      break;
    }
    ssize_t n = pread_full(fd, buffer + carried, CHUNK, position);
    if (n < 0) {
      add_problem(item, f, system_error(errno, "read", path));
      result = R_ERROR;
      break;
    }
    if (position == 0 && !resuming) at_head(engine, item, f, &st, buffer, (size_t)n);
    if (n == 0 || engine->nprobes == 0) break;
    size_t length = carried + (size_t)n;
    if (engine->fold_chunks) lower_ascii(buffer, carried, length);
    int64_t view_start = (int64_t)position - (int64_t)carried;
    if (tri.map && (uint64_t)view_start + length > tri.loaded) {
      /* Only chunks the map does not cover yet (adding an n-gram twice sets the same bit); the carried bytes were added
       * with the chunk before, and its last ones begin this one's first n-grams (tri.tail). */
      tri_add(&tri, buffer + carried, (size_t)n);
      const unsigned char *nl = memrchr(buffer + carried, '\n', (size_t)n);
      if (nl) tri.last_line = (uint64_t)(view_start + (nl - buffer) + 1);
    } else if (tri.map) {
      tri_skip(&tri, buffer + carried, (size_t)n);
    }
    if (!(item->flags & F_FILTER)) {
      if (find_match(engine, scratch, buffer, length, 0, 1) != -1) {
        result = R_MATCH;
        break;
      }
    } else {
      size_t from = 0;
      int full = 0;
      for (int64_t m = first_match(engine, scratch, buffer, length, 0); m != -1; m = first_match(engine, scratch, buffer, length, from)) {
        const unsigned char *nl = last_newline(buffer, (size_t)m);
        int64_t line = nl ? view_start + (nl - buffer) + 1 : line_start;
        if (line != rejected && (item->nopenings == 0 || item->opening_at[item->nopenings - 1] != line)) {
          if (item->nopenings == MAX_OPENINGS) {
            full = 1;
            break;
          }
          if (!item->openings) item->openings = xmalloc(MAX_OPENINGS * OPENING_BYTES);
          unsigned char *opening = item->openings + (size_t)item->nopenings * OPENING_BYTES;
          ssize_t got = pread_full(fd, opening, OPENING_BYTES, (off_t)line);
          if (got < 0) got = 0;
          const unsigned char *cut = memchr(opening, '\n', (size_t)got);
          size_t len = cut ? (size_t)(cut - opening) : (size_t)got;
          if (!may_be_rejected(engine, item, opening, len)) {
            /* A line the filter cannot reject: the file matches, whatever JS would say of the lines gathered before it. */
            item->nopenings = 0;
            result = R_MATCH;
            break;
          }
          item->opening_at[item->nopenings] = line;
          item->opening_len[item->nopenings] = len;
          item->nopenings++;
        }
        const unsigned char *end = memchr(buffer + m, '\n', length - (size_t)m);
        if (!end) break;
        from = (size_t)(end - buffer) + 1;
      }
      /* Lines with hits wait for JS's judgement once the chunk is done (or enough of them were gathered). */
      (void)full;
      if (result == R_MATCH) break;
      if (item->nopenings > 0) {
        result = R_JUDGE;
        break;
      }
      const unsigned char *last = last_newline(buffer, length);
      if (last) line_start = view_start + (last - buffer) + 1;
    }
    position += n;
    /* A short read that reached the size fstat gave is the end (atEnd in contains.ts). */
    if ((size_t)n < CHUNK && position >= st.st_size) break;
    carried = overlap < length ? overlap : length;
    memmove(buffer, buffer + length - carried, carried);
  }
  /* Read to its end without a match or a pause for a judgement: the map covers all of it now. */
  if (tri.map && result == R_NONE && (uint64_t)position != tri.loaded) tri_save(engine, path, fd, &st, &tri, (uint64_t)position);
  free(tri.map);
  close(fd);
  return result;
}

/** The stamp of a file the search did not open (after a match in an earlier one), as allStamps in grep-worker.ts takes it. */
static int stamp_unopened(item_t *item, uint32_t f) {
  struct stat before;
  if (stat(item->paths[f], &before) != 0 || !S_ISREG(before.st_mode)) return 0;
  struct stat st;
  char *message = NULL;
  int fd = open_regular(item->paths[f], &st, &message);
  if (fd < 0) {
    free(message);
    return 0;
  }
  unsigned char head[FINGERPRINT_BYTES];
  size_t filled = 0;
  while (filled < FINGERPRINT_BYTES) {
    ssize_t n = pread_full(fd, head + filled, FINGERPRINT_BYTES - filled, (off_t)filled);
    if (n <= 0) break;
    filled += (size_t)n;
  }
  close(fd);
  set_stamp(item, f, (double)before.st_size, mtime_ms(&before), filled, fingerprint(head, filled));
  return 1;
}

static int process_item(engine_t *engine, item_t *item, scratch_t *scratch) {
  int matched = item->matched;
  for (uint32_t f = item->file; !matched && f < item->npaths; f++) {
    int r = search_file(engine, item, f, scratch);
    if (r == R_ABORTED) return S_NONE;
    if (r == R_JUDGE) {
      item->file = f;
      return S_JUDGE;
    }
    if (r == R_MATCH) {
      matched = 1;
      break;
    }
  }
  if (engine->want_stamps && (matched || (item->flags & F_SNIFF_LINEAGE))) {
    for (uint32_t f = 0; f < item->npaths && !item->stamps_failed; f++)
      if (!item->stamped[f] && !stamp_unopened(item, f)) item->stamps_failed = 1;
  }
  return matched ? S_MATCH : S_NONE;
}

/* ---------- threads and queues ---------- */

static item_t *take_work(engine_t *engine) {
  if (engine->continuations) {
    item_t *item = engine->continuations;
    engine->continuations = item->next;
    return item;
  }
  if (engine->nfirst > 0) return engine->first[--engine->nfirst];
  if (engine->nothers > 0) return engine->others[--engine->nothers];
  return NULL;
}

static void notify(engine_t *engine) {
  if (engine->notify_pending) return;
  engine->notify_pending = 1;
  napi_call_threadsafe_function(engine->tsfn, NULL, napi_tsfn_nonblocking);
}

static void hold_item(engine_t *engine, const item_t *item);
static void free_held(held_t *held);

static void *thread_main(void *arg) {
  engine_t *engine = arg;
  scratch_t scratch;
  memset(&scratch, 0, sizeof scratch);
  scratch.buffer = xmalloc(CHUNK + (engine->longest > 0 ? engine->longest - 1 : 0));
  pthread_mutex_lock(&engine->mu);
  for (;;) {
    item_t *item = engine->aborted ? NULL : take_work(engine);
    if (!item) {
      if (engine->closing || engine->aborted) break;
      pthread_cond_wait(&engine->cv, &engine->mu);
      continue;
    }
    pthread_mutex_unlock(&engine->mu);
    int state = process_item(engine, item, &scratch);
    pthread_mutex_lock(&engine->mu);
    if (engine->aborted) {
      free_item(item);
      continue;
    }
    item->state = state;
    int quiet = state == S_NONE && !item->judged && !item->problems && !item->cwds;
    int silent = quiet && !(item->flags & F_SNIFF_LINEAGE);
    /* A match, a judgement or a problem goes to JS at once (rows appear as they are found); the rest waits for a batch. */
    int urgent = state != S_NONE || item->problems != NULL;
    if (silent) {
      engine->silent++;
      free_item(item);
    } else if (quiet) {
      hold_item(engine, item);
      free_item(item);
      engine->nheld++;
      /* The last of the items searched first: JS learns at once that every lineage was seen. */
      if (engine->nfirst == 0) urgent = 1;
    } else {
      item->next = NULL;
      if (engine->out_tail) engine->out_tail->next = item;
      else engine->out = item;
      engine->out_tail = item;
      engine->nout++;
    }
    int idle = !engine->continuations && engine->nfirst == 0 && engine->nothers == 0;
    if (urgent || idle || engine->nout >= 256 || engine->silent + engine->nheld >= 2048) notify(engine);
  }
  engine->running--;
  pthread_mutex_unlock(&engine->mu);
  free(scratch.buffer);
  napi_release_threadsafe_function(engine->tsfn, napi_tsfn_release);
  return NULL;
}

static void free_engine(engine_t *engine) {
  for (size_t p = 0; p < engine->nprobes; p++) {
    for (size_t k = 0; k < engine->probes[p].nspellings; k++) free(engine->probes[p].spellings[k].bytes);
    free(engine->probes[p].spellings);
    free(engine->probes[p].bytes);
  }
  free(engine->probes);
  for (size_t set = 0; set < engine->nneedle_sets; set++) {
    for (size_t k = 0; k < engine->needle_sets[set].count; k++) free(engine->needle_sets[set].bytes[k]);
    free(engine->needle_sets[set].bytes);
    free(engine->needle_sets[set].lens);
  }
  free(engine->needle_sets);
  free(engine->tri_dir);
  item_t *item;
  while ((item = take_work(engine))) free_item(item);
  free(engine->first);
  free(engine->others);
  for (size_t i = 0; i < engine->waiting.cap; i++)
    if (engine->waiting.slots[i]) free_item(engine->waiting.slots[i]);
  free(engine->waiting.slots);
  for (item = engine->out; item;) {
    item_t *next = item->next;
    free_item(item);
    item = next;
  }
  free_held(&engine->held);
  free_cuts(engine->new_cwds);
  free_cuts(engine->keys);
  for (size_t i = 0; i < engine->seen_cwds.cap; i++) free(engine->seen_cwds.keys[i]);
  free(engine->seen_cwds.keys);
  free(engine->seen_cwds.lens);
  free(engine->threads);
  pthread_mutex_destroy(&engine->mu);
  pthread_cond_destroy(&engine->cv);
  free(engine);
}

static void engine_unref(engine_t *engine) {
  pthread_mutex_lock(&engine->mu);
  int left = --engine->refs;
  pthread_mutex_unlock(&engine->mu);
  if (left == 0) free_engine(engine);
}

/* ---------- results to JS ---------- */

#define CHECK(call)                                                   \
  do {                                                                \
    if ((call) != napi_ok) {                                          \
      napi_throw_error(env, NULL, "native search: N-API call failed"); \
      return NULL;                                                    \
    }                                                                 \
  } while (0)

static int32_t park(engine_t *engine, item_t *item) {
  waiting_t *w = &engine->waiting;
  for (size_t i = 0; i < w->cap; i++) {
    if (!w->slots[i]) {
      w->slots[i] = item;
      return (int32_t)i;
    }
  }
  size_t cap = w->cap ? w->cap * 2 : 64;
  w->slots = realloc(w->slots, cap * sizeof *w->slots);
  if (!w->slots) abort();
  memset(w->slots + w->cap, 0, (cap - w->cap) * sizeof *w->slots);
  int32_t slot = (int32_t)w->cap;
  w->slots[slot] = item;
  w->cap = cap;
  return slot;
}

/* Fields of one result in a batch's table (see call_js). */
enum { T_INDEX, T_STATE, T_STAMPS, T_LINEAGE, T_CWDS, T_NCWDS, T_PROBLEMS, T_NPROBLEMS, T_TOKEN, T_OPENINGS, T_NOPENINGS, T_FIELDS };

static int stamps_ready(const engine_t *engine, const item_t *item) {
  if (!engine->want_stamps || item->state == S_JUDGE || item->stamps_failed) return 0;
  for (uint32_t f = 0; f < item->npaths; f++)
    if (!item->stamped[f]) return 0;
  return 1;
}

typedef struct {
  double *table, *stamps, *spans;
  unsigned char *bytes;
  size_t stamps_at, spans_at, bytes_at;
} packing_t;

/* Room for `more` elements of `size` bytes past `used` in *array (of *cap elements). */
static void grow(void **array, size_t *cap, size_t used, size_t more, size_t size) {
  if (used + more <= *cap) return;
  size_t next = *cap ? *cap * 2 : 1024;
  while (next < used + more) next *= 2;
  *array = realloc(*array, next * size);
  if (!*array) abort();
  *cap = next;
}

/*
 * `len` bytes appended at *bytes_at of `to`, their start and end pair at *spans_at of `spans`: the span's index in the
 * span list (start, end pairs). The room is there already.
 */
static double put_span(double *spans, size_t *spans_at, unsigned char *to, size_t *bytes_at, const unsigned char *bytes, size_t len) {
  memcpy(to + *bytes_at, bytes, len);
  size_t index = *spans_at / 2;
  spans[(*spans_at)++] = (double)*bytes_at;
  spans[(*spans_at)++] = (double)(*bytes_at + len);
  *bytes_at += len;
  return (double)index;
}

/* A span of the held bytes, grown to take it. */
static double held_span(held_t *held, const unsigned char *bytes, size_t len) {
  grow((void **)&held->bytes, &held->cap_bytes, held->nbytes, len, 1);
  grow((void **)&held->spans, &held->cap_spans, held->nspans, 2, sizeof(double));
  return put_span(held->spans, &held->nspans, held->bytes, &held->nbytes, bytes, len);
}

/* An item done with nothing but its stamps and lineage to say, as call_js would pack it (with the engine's lock held). */
static void hold_item(engine_t *engine, const item_t *item) {
  held_t *held = &engine->held;
  grow((void **)&held->table, &held->cap_table, held->ntable, T_FIELDS, sizeof(double));
  double *t = held->table + held->ntable;
  held->ntable += T_FIELDS;
  t[T_INDEX] = item->index;
  t[T_STATE] = item->state;
  t[T_STAMPS] = -1;
  if (stamps_ready(engine, item)) {
    grow((void **)&held->stamps, &held->cap_stamps, held->nstamps, (size_t)item->npaths * 4, sizeof(double));
    t[T_STAMPS] = (double)held->nstamps;
    memcpy(held->stamps + held->nstamps, item->stamps, (size_t)item->npaths * 4 * sizeof(double));
    held->nstamps += (size_t)item->npaths * 4;
  }
  if (!item->lineage_set || (item->root_known && item->root_len == 0)) t[T_LINEAGE] = -1;
  else if (item->root_known) t[T_LINEAGE] = -3 - held_span(held, item->lineage + item->root_at, item->root_len);
  else t[T_LINEAGE] = held_span(held, item->lineage, item->lineage_len);
  t[T_CWDS] = (double)(held->nspans / 2);
  t[T_NCWDS] = 0;
  t[T_PROBLEMS] = 0;
  t[T_NPROBLEMS] = 0;
  t[T_TOKEN] = -1;
  t[T_OPENINGS] = (double)(held->nspans / 2);
  t[T_NOPENINGS] = 0;
}

static void free_held(held_t *held) {
  free(held->table);
  free(held->stamps);
  free(held->spans);
  free(held->bytes);
  memset(held, 0, sizeof *held);
}

/* A span of the batch's bytes (sized beforehand). */
static double pack_span(packing_t *pack, const unsigned char *bytes, size_t len) {
  return put_span(pack->spans, &pack->spans_at, pack->bytes, &pack->bytes_at, bytes, len);
}

/*
 * On the JS thread: hand over what the threads found since the last call, packed so that thousands of sessions cost a
 * few objects, not a few each: onBatch(table, stamps, spans, bytes, problems, silentDone, cwdsFirst, cwdsCount,
 * heldDone). heldDone: items done and held for `held` since the last batch (none of them is in the table).
 * table: T_FIELDS numbers per session (Float64Array): its index, state (1 match, 2 none, 3 lines to judge), where its
 * files' stamps start in `stamps` (4 per file: size, mtimeMs, fingerprint length and hash; -1: none), its lineage cut
 * (a span; -1: no head read, or no root in it; -2: not asked for; -3 - a span: the root uuid, with F_LINEAGE_ROOT), its cwd cuts (first span, count), its problems (first, count in
 * `problems`: [file, message] pairs), its judgement token, the openings of its lines to judge (first span, count).
 * A span is a pair in `spans`: start and end in `bytes`. cwdsFirst/cwdsCount: the engine-wide new cwd cuts.
 */
static int pack_items(napi_env env, engine_t *engine, item_t *out, cut_t *cwds, napi_value *argv);

static void call_js(napi_env env, napi_value callback, void *context, void *data) {
  (void)data;
  engine_t *engine = context;
  if (!env) return;
  pthread_mutex_lock(&engine->mu);
  engine->notify_pending = 0;
  item_t *out = engine->out;
  engine->out = engine->out_tail = NULL;
  engine->nout = 0;
  uint32_t silent = engine->silent;
  engine->silent = 0;
  uint32_t nheld = engine->nheld;
  engine->nheld = 0;
  cut_t *cwds = engine->new_cwds;
  engine->new_cwds = engine->new_cwds_tail = NULL;
  int aborted = engine->aborted;
  /* Items that wait for a judgement are parked under a token. */
  for (item_t *item = out; item; item = item->next)
    if (item->state == S_JUDGE) item->token = park(engine, item);
  pthread_mutex_unlock(&engine->mu);
  if (aborted) {
    for (item_t *item = out; item;) {
      item_t *next = item->next;
      if (item->state != S_JUDGE) free_item(item);
      item = next;
    }
    free_cuts(cwds);
    return;
  }
  napi_value argv[9];
  if (!pack_items(env, engine, out, cwds, argv)) return;
  napi_create_uint32(env, silent, &argv[5]);
  napi_create_uint32(env, nheld, &argv[8]);
  napi_value undefined;
  napi_get_undefined(env, &undefined);
  napi_call_function(env, undefined, callback, 9, argv, NULL);
}

/*
 * A batch's table, stamps, spans, bytes and problems (argv[0..4]) of `out` and the engine-wide new cwd cuts `cwds`
 * (argv[6], argv[7]: their first span and count), as call_js describes them; the items not waiting for a judgement
 * are freed. 0 (a JS error thrown) when out of memory.
 */
static int pack_items(napi_env env, engine_t *engine, item_t *out, cut_t *cwds, napi_value *argv) {
  /* Sizes first. */
  size_t nitems = 0, nstamps = 0, nspans = 0, nbytes = 0, nproblems = 0;
  for (item_t *item = out; item; item = item->next) {
    nitems++;
    if (stamps_ready(engine, item)) nstamps += (size_t)item->npaths * 4;
    if (item->state != S_JUDGE && (item->flags & F_SNIFF_LINEAGE) && item->lineage_set && !(item->root_known && item->root_len == 0)) {
      nspans++;
      nbytes += item->root_known ? item->root_len : item->lineage_len;
    }
    for (cut_t *cut = item->cwds; cut; cut = cut->next) {
      nspans++;
      nbytes += cut->len;
    }
    for (problem_t *p = item->problems; p; p = p->next) nproblems++;
    if (item->state == S_JUDGE)
      for (int k = 0; k < item->nopenings; k++) {
        nspans++;
        nbytes += item->opening_len[k];
      }
  }
  for (cut_t *cut = cwds; cut; cut = cut->next) {
    nspans++;
    nbytes += cut->len;
  }
  napi_value table_buffer, stamps_buffer, spans_buffer, table, stamps, spans, bytes, problems, value;
  packing_t pack = {0};
  if (napi_create_arraybuffer(env, nitems * T_FIELDS * sizeof(double), (void **)&pack.table, &table_buffer) != napi_ok ||
      napi_create_arraybuffer(env, nstamps * sizeof(double), (void **)&pack.stamps, &stamps_buffer) != napi_ok ||
      napi_create_arraybuffer(env, nspans * 2 * sizeof(double), (void **)&pack.spans, &spans_buffer) != napi_ok ||
      napi_create_buffer(env, nbytes, (void **)&pack.bytes, &bytes) != napi_ok) {
    napi_throw_error(env, NULL, "native search: out of memory for a batch");
    return 0;
  }
  napi_create_typedarray(env, napi_float64_array, nitems * T_FIELDS, table_buffer, 0, &table);
  napi_create_typedarray(env, napi_float64_array, nstamps, stamps_buffer, 0, &stamps);
  napi_create_typedarray(env, napi_float64_array, nspans * 2, spans_buffer, 0, &spans);
  napi_create_array_with_length(env, nproblems * 2, &problems);
  uint32_t problem_at = 0;
  size_t row = 0;
  for (item_t *item = out; item;) {
    item_t *next = item->next;
    double *t = pack.table + row * T_FIELDS;
    t[T_INDEX] = item->index;
    t[T_STATE] = item->state;
    t[T_STAMPS] = -1;
    if (stamps_ready(engine, item)) {
      t[T_STAMPS] = (double)pack.stamps_at;
      memcpy(pack.stamps + pack.stamps_at, item->stamps, (size_t)item->npaths * 4 * sizeof(double));
      pack.stamps_at += (size_t)item->npaths * 4;
    }
    /* -3 - span: the root uuid's bytes, read here (-1 when there is none, as for no head). */
    if (item->state == S_JUDGE || !(item->flags & F_SNIFF_LINEAGE)) t[T_LINEAGE] = -2;
    else if (!item->lineage_set || (item->root_known && item->root_len == 0)) t[T_LINEAGE] = -1;
    else if (item->root_known) t[T_LINEAGE] = -3 - pack_span(&pack, item->lineage + item->root_at, item->root_len);
    else t[T_LINEAGE] = pack_span(&pack, item->lineage, item->lineage_len);
    t[T_CWDS] = (double)(pack.spans_at / 2);
    t[T_NCWDS] = 0;
    for (cut_t *cut = item->cwds; cut; cut = cut->next) {
      pack_span(&pack, cut->bytes, cut->len);
      t[T_NCWDS]++;
    }
    free_cuts(item->cwds);
    item->cwds = item->cwds_tail = NULL;
    t[T_PROBLEMS] = problem_at / 2;
    t[T_NPROBLEMS] = 0;
    for (problem_t *p = item->problems; p;) {
      napi_create_uint32(env, p->file, &value);
      napi_set_element(env, problems, problem_at++, value);
      napi_create_string_utf8(env, p->message, NAPI_AUTO_LENGTH, &value);
      napi_set_element(env, problems, problem_at++, value);
      t[T_NPROBLEMS]++;
      problem_t *after = p->next;
      free(p->message);
      free(p);
      p = after;
    }
    item->problems = item->problems_tail = NULL;
    t[T_TOKEN] = item->state == S_JUDGE ? item->token : -1;
    t[T_OPENINGS] = (double)(pack.spans_at / 2);
    t[T_NOPENINGS] = 0;
    if (item->state == S_JUDGE) {
      for (int k = 0; k < item->nopenings; k++) pack_span(&pack, item->openings + (size_t)k * OPENING_BYTES, item->opening_len[k]);
      t[T_NOPENINGS] = item->nopenings;
    } else {
      free_item(item);
    }
    row++;
    item = next;
  }
  double cwds_first = (double)(pack.spans_at / 2);
  uint32_t ncwds = 0;
  for (cut_t *cut = cwds; cut; cut = cut->next, ncwds++) pack_span(&pack, cut->bytes, cut->len);
  free_cuts(cwds);
  argv[0] = table;
  argv[1] = stamps;
  argv[2] = spans;
  argv[3] = bytes;
  argv[4] = problems;
  napi_create_double(env, cwds_first, &argv[6]);
  napi_create_uint32(env, ncwds, &argv[7]);
  return 1;
}

static void tsfn_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  engine_t *engine = data;
  for (int i = 0; i < engine->nthreads; i++) pthread_join(engine->threads[i], NULL);
  engine_unref(engine);
#if defined(__GLIBC__)
  /* The search's items, chunks and maps were freed in the threads' malloc arenas, which glibc keeps: ~15 MB of
     resident memory more after each search of 100k sessions in the browser. Handed back once the threads are gone. */
  malloc_trim(0);
#endif
}

static void handle_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  engine_t *engine = data;
  pthread_mutex_lock(&engine->mu);
  engine->closing = 1;
  pthread_cond_broadcast(&engine->cv);
  pthread_mutex_unlock(&engine->mu);
  engine_unref(engine);
}

/* ---------- the JS API ---------- */

static engine_t *engine_of(napi_env env, napi_value handle) {
  void *data = NULL;
  if (napi_get_value_external(env, handle, &data) != napi_ok) return NULL;
  return data;
}

static napi_value get_named(napi_env env, napi_value object, const char *name) {
  napi_value value = NULL;
  napi_get_named_property(env, object, name, &value);
  return value;
}

static int bytes_of(napi_env env, napi_value value, unsigned char **out, size_t *len) {
  void *data;
  if (napi_get_buffer_info(env, value, &data, len) != napi_ok) return 0;
  *out = dup_bytes(data, *len);
  return 1;
}

static int32_t int_of(napi_env env, napi_value value) {
  int32_t n = 0;
  napi_get_value_int32(env, value, &n);
  return n;
}

static int bool_of(napi_env env, napi_value value) {
  bool b = false;
  napi_get_value_bool(env, value, &b);
  return b;
}

/**
 * create({threads, probes: [{bytes, spellings: [{bytes, probeOffset}]}], longest, ignoreCase, foldChunks, stamps,
 * needles: [[bytes, …], …]}, onBatch): the engine, its threads started and waiting for work. An item's flags name its
 * needle set (F_NEEDLES_SHIFT).
 */
static napi_value create(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 2) {
    napi_throw_type_error(env, NULL, "create(config, onBatch)");
    return NULL;
  }
  napi_value config = argv[0];
  engine_t *engine = calloc(1, sizeof *engine);
  if (!engine) abort();
  pthread_mutex_init(&engine->mu, NULL);
  pthread_cond_init(&engine->cv, NULL);
  engine->longest = (size_t)int_of(env, get_named(env, config, "longest"));
  engine->ignore_case = bool_of(env, get_named(env, config, "ignoreCase"));
  engine->fold_chunks = bool_of(env, get_named(env, config, "foldChunks"));
  engine->want_stamps = bool_of(env, get_named(env, config, "stamps"));
  napi_value probes = get_named(env, config, "probes");
  uint32_t nprobes = 0;
  napi_get_array_length(env, probes, &nprobes);
  engine->probes = calloc(nprobes ? nprobes : 1, sizeof *engine->probes);
  engine->nprobes = nprobes;
  for (uint32_t p = 0; p < nprobes; p++) {
    napi_value probe, spellings;
    napi_get_element(env, probes, p, &probe);
    bytes_of(env, get_named(env, probe, "bytes"), &engine->probes[p].bytes, &engine->probes[p].len);
    spellings = get_named(env, probe, "spellings");
    uint32_t ns = 0;
    napi_get_array_length(env, spellings, &ns);
    engine->probes[p].spellings = calloc(ns ? ns : 1, sizeof(spelling_t));
    engine->probes[p].nspellings = ns;
    for (uint32_t k = 0; k < ns; k++) {
      napi_value spelling;
      napi_get_element(env, spellings, k, &spelling);
      spelling_t *s = &engine->probes[p].spellings[k];
      bytes_of(env, get_named(env, spelling, "bytes"), &s->bytes, &s->len);
      s->probe_offset = (size_t)int_of(env, get_named(env, spelling, "probeOffset"));
    }
    probe_t *compiled = &engine->probes[p];
    for (size_t k = 1; k < compiled->len; k++)
      if (rarity(compiled->bytes[k]) > rarity(compiled->bytes[compiled->anchor])) compiled->anchor = k;
    compiled->pair = compiled->anchor;
    for (size_t k = 0; k < compiled->len; k++)
      if (k != compiled->anchor && (compiled->pair == compiled->anchor || rarity(compiled->bytes[k]) > rarity(compiled->bytes[compiled->pair]))) compiled->pair = k;
  }
  /* needles: [[Buffer, …], …], the item flags' needle sets (absent: none). */
  napi_value sets = get_named(env, config, "needles");
  bool is_array = false;
  if (sets != NULL) napi_is_array(env, sets, &is_array);
  if (is_array) {
    uint32_t nsets = 0;
    napi_get_array_length(env, sets, &nsets);
    if (nsets > MAX_NEEDLE_SETS) nsets = MAX_NEEDLE_SETS;
    engine->needle_sets = calloc(nsets ? nsets : 1, sizeof *engine->needle_sets);
    engine->nneedle_sets = nsets;
    for (uint32_t set = 0; set < nsets; set++) {
      napi_value list;
      napi_get_element(env, sets, set, &list);
      uint32_t count = 0;
      napi_get_array_length(env, list, &count);
      needles_t *needles = &engine->needle_sets[set];
      needles->bytes = calloc(count ? count : 1, sizeof *needles->bytes);
      needles->lens = calloc(count ? count : 1, sizeof *needles->lens);
      for (uint32_t k = 0; k < count; k++) {
        napi_value needle;
        napi_get_element(env, list, k, &needle);
        /* A needle that is not a buffer, or an empty one, is in every opening: that set asks JS of every line. */
        if (!bytes_of(env, needle, &needles->bytes[needles->count], &needles->lens[needles->count])) {
          needles->bytes[needles->count] = dup_bytes((const unsigned char *)"", 0);
          needles->lens[needles->count] = 0;
        }
        needles->count++;
      }
    }
  }
  /* trigramDir: where maps of big files are kept (absent or not a string: none); trigramMinBytes: the least size mapped. */
  napi_value dir = get_named(env, config, "trigramDir");
  napi_valuetype dir_type = napi_undefined;
  if (dir != NULL) napi_typeof(env, dir, &dir_type);
  if (dir_type == napi_string) {
    size_t len = 0;
    napi_get_value_string_utf8(env, dir, NULL, 0, &len);
    engine->tri_dir = xmalloc(len + 1);
    napi_get_value_string_utf8(env, dir, engine->tri_dir, len + 1, &len);
    double min = 0;
    napi_value min_value = get_named(env, config, "trigramMinBytes");
    if (min_value == NULL || napi_get_value_double(env, min_value, &min) != napi_ok || !(min >= 0)) min = 16.0 * 1024 * 1024;
    engine->tri_min = (uint64_t)min;
  }
  engine->tri_usable = engine->nprobes > 0;
  for (size_t p = 0; p < engine->nprobes; p++)
    for (size_t k = 0; k < engine->probes[p].nspellings; k++) {
      const spelling_t *sp = &engine->probes[p].spellings[k];
      if (sp->len < 3 || memchr(sp->bytes, '\n', sp->len)) engine->tri_usable = 0;
    }
  int threads = int_of(env, get_named(env, config, "threads"));
  if (threads < 1) threads = 1;
  if (threads > 64) threads = 64;
  engine->nthreads = threads;
  engine->refs = 2;
  napi_value name;
  napi_create_string_utf8(env, "sessions native search", NAPI_AUTO_LENGTH, &name);
  if (napi_create_threadsafe_function(env, argv[1], NULL, name, 0, (size_t)threads, engine, tsfn_finalize, engine, call_js, &engine->tsfn) != napi_ok) {
    free(engine);
    napi_throw_error(env, NULL, "native search: cannot create its thread-safe function");
    return NULL;
  }
  engine->threads = calloc((size_t)threads, sizeof(pthread_t));
  engine->running = threads;
  for (int i = 0; i < threads; i++) {
    if (pthread_create(&engine->threads[i], NULL, thread_main, engine) != 0) abort();
  }
  napi_value handle;
  CHECK(napi_create_external(env, engine, handle_finalize, NULL, &handle));
  return handle;
}

static void enqueue(engine_t *engine, item_t *item) {
  if (item->flags & F_FIRST) {
    if (engine->nfirst == engine->capfirst) {
      engine->capfirst = engine->capfirst ? engine->capfirst * 2 : 1024;
      engine->first = realloc(engine->first, engine->capfirst * sizeof(item_t *));
      if (!engine->first) abort();
    }
    engine->first[engine->nfirst++] = item;
  } else {
    if (engine->nothers == engine->capothers) {
      engine->capothers = engine->capothers ? engine->capothers * 2 : 1024;
      engine->others = realloc(engine->others, engine->capothers * sizeof(item_t *));
      if (!engine->others) abort();
    }
    engine->others[engine->nothers++] = item;
  }
}

/** A typed array's elements (its length in elements), or NULL when the value is not one of `type`. */
static void *typed_of(napi_env env, napi_value value, napi_typedarray_type type, size_t *length) {
  napi_typedarray_type actual;
  void *data = NULL;
  if (napi_get_typedarray_info(env, value, &actual, length, &data, NULL, NULL) != napi_ok || actual != type) return NULL;
  return data;
}

/**
 * push(handle, indexes: Int32Array, flags: Int32Array, counts: Int32Array, paths: Buffer, keyIndexes: Int32Array,
 * keys: Buffer[]): queue sessions to search. Item i has counts[i] paths, taken in order from `paths` (UTF-8, every
 * path followed by a NUL), and the lineage key keys[keyIndexes[i]] (-1: none). One buffer for every path: a call
 * per path and per field would cost more than the search of a small file.
 */
static napi_value push(napi_env env, napi_callback_info info) {
  size_t argc = 7;
  napi_value argv[7];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  engine_t *engine = argc == 7 ? engine_of(env, argv[0]) : NULL;
  size_t count = 0, n_flags = 0, n_counts = 0, n_keys = 0;
  const int32_t *indexes = engine ? typed_of(env, argv[1], napi_int32_array, &count) : NULL;
  const int32_t *flags = indexes ? typed_of(env, argv[2], napi_int32_array, &n_flags) : NULL;
  const int32_t *counts = flags ? typed_of(env, argv[3], napi_int32_array, &n_counts) : NULL;
  const int32_t *key_indexes = counts ? typed_of(env, argv[5], napi_int32_array, &n_keys) : NULL;
  if (!key_indexes || n_flags != count || n_counts != count || n_keys != count) {
    napi_throw_type_error(env, NULL, "push(handle, indexes, flags, counts, paths, keyIndexes, keys)");
    return NULL;
  }
  size_t joined_len = 0;
  void *joined_data = NULL;
  if (napi_get_buffer_info(env, argv[4], &joined_data, &joined_len) != napi_ok) {
    napi_throw_type_error(env, NULL, "push: paths must be a Buffer");
    return NULL;
  }
  const char *joined = joined_data;
  uint32_t nkeys = 0;
  napi_get_array_length(env, argv[6], &nkeys);
  /* The keys once per call, kept by the engine (a handful of bytes): items point into them. */
  const unsigned char **keys = xmalloc(sizeof(unsigned char *) * (nkeys ? nkeys : 1));
  size_t *key_lens = xmalloc(sizeof(size_t) * (nkeys ? nkeys : 1));
  for (uint32_t k = 0; k < nkeys; k++) {
    napi_value key;
    void *data = NULL;
    size_t len = 0;
    napi_get_element(env, argv[6], k, &key);
    if (napi_get_buffer_info(env, key, &data, &len) != napi_ok) len = 0;
    cut_t *kept = new_cut(data ? data : (const void *)"", len);
    pthread_mutex_lock(&engine->mu);
    kept->next = engine->keys;
    engine->keys = kept;
    pthread_mutex_unlock(&engine->mu);
    keys[k] = kept->bytes;
    key_lens[k] = len;
  }
  item_t **items = xmalloc(sizeof(item_t *) * (count ? count : 1));
  size_t at = 0;
  for (size_t i = 0; i < count; i++) {
    uint32_t npaths = counts[i] > 0 ? (uint32_t)counts[i] : 0;
    size_t bytes = 0;
    for (uint32_t k = 0; k < npaths; k++) {
      size_t from = at + bytes;
      bytes += (from < joined_len ? strnlen(joined + from, joined_len - from) : 0) + 1;
    }
    /* One allocation per item: struct, path pointers, stamps (doubles first, for alignment), stamped flags, paths. */
    size_t n = npaths ? npaths : 1;
    char *block = calloc(1, sizeof(item_t) + sizeof(double) * 4 * n + sizeof(char *) * n + n + bytes);
    if (!block) abort();
    item_t *item = (item_t *)block;
    item->stamps = (double *)(block + sizeof(item_t));
    item->paths = (char **)(block + sizeof(item_t) + sizeof(double) * 4 * n);
    item->stamped = (uint8_t *)(block + sizeof(item_t) + sizeof(double) * 4 * n + sizeof(char *) * n);
    char *text = (char *)item->stamped + n;
    item->index = indexes[i];
    item->flags = (uint32_t)flags[i];
    if (key_indexes[i] >= 0 && (uint32_t)key_indexes[i] < nkeys) {
      item->lineage_key = keys[key_indexes[i]];
      item->lineage_key_len = key_lens[key_indexes[i]];
    }
    item->npaths = npaths;
    for (uint32_t k = 0; k < npaths; k++) {
      size_t len = at < joined_len ? strnlen(joined + at, joined_len - at) : 0;
      memcpy(text, joined + at, len);
      text[len] = 0;
      item->paths[k] = text;
      text += len + 1;
      at += len + 1;
    }
    item->resume_at = -1;
    item->cwd_wanted = (item->flags & F_SNIFF_CWD) != 0;
    items[i] = item;
  }
  free(keys);
  free(key_lens);
  pthread_mutex_lock(&engine->mu);
  for (size_t i = 0; i < count; i++) {
    if (engine->closing || engine->aborted) free_item(items[i]);
    else enqueue(engine, items[i]);
  }
  pthread_cond_broadcast(&engine->cv);
  pthread_mutex_unlock(&engine->mu);
  free(items);
  return NULL;
}

/**
 * judged(handle, token, accepted): JS's judgement of the lines a parked item asked about: the index of the first
 * line that counts (a match), or -1 (every one is rejected: the search goes on past the last of them).
 */
static napi_value judged(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  engine_t *engine = engine_of(env, argv[0]);
  if (!engine) return NULL;
  int32_t token = int_of(env, argv[1]);
  int32_t accepted = int_of(env, argv[2]);
  pthread_mutex_lock(&engine->mu);
  if (token < 0 || (size_t)token >= engine->waiting.cap || !engine->waiting.slots[token]) {
    pthread_mutex_unlock(&engine->mu);
    napi_throw_range_error(env, NULL, "native search: no item waits under this token");
    return NULL;
  }
  item_t *item = engine->waiting.slots[token];
  engine->waiting.slots[token] = NULL;
  if (engine->aborted || engine->closing) {
    pthread_mutex_unlock(&engine->mu);
    free_item(item);
    return NULL;
  }
  item->judged = 1;
  if (accepted >= 0) {
    /* A match: what is left of the item (its stamps) is done by a thread. */
    item->matched = 1;
  } else {
    item->resume_at = item->opening_at[item->nopenings - 1];
  }
  item->nopenings = 0;
  item->next = engine->continuations;
  engine->continuations = item;
  pthread_cond_signal(&engine->cv);
  pthread_mutex_unlock(&engine->mu);
  return NULL;
}

/**
 * held(handle): the items the engine held since the last call (see engine_t's `held`), packed as a batch's
 * [table, stamps, spans, bytes] (call_js): each one's index, stamps and lineage cut. Taken: a later call gives only
 * those held after it. Valid after close too (the engine lives while its handle does).
 */
static napi_value held(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  engine_t *engine = engine_of(env, argv[0]);
  if (!engine) return NULL;
  pthread_mutex_lock(&engine->mu);
  held_t taken = engine->held;
  memset(&engine->held, 0, sizeof engine->held);
  pthread_mutex_unlock(&engine->mu);
  const void *from[3] = {taken.table, taken.stamps, taken.spans};
  size_t counts[3] = {taken.ntable, taken.nstamps, taken.nspans};
  napi_value packed[4], result;
  for (int k = 0; k < 3; k++) {
    void *data = NULL;
    napi_value buffer;
    if (napi_create_arraybuffer(env, counts[k] * sizeof(double), &data, &buffer) != napi_ok ||
        napi_create_typedarray(env, napi_float64_array, counts[k], buffer, 0, &packed[k]) != napi_ok) {
      free_held(&taken);
      napi_throw_error(env, NULL, "native search: out of memory for the held sessions");
      return NULL;
    }
    if (counts[k]) memcpy(data, from[k], counts[k] * sizeof(double));
  }
  void *bytes = NULL;
  if (napi_create_buffer_copy(env, taken.nbytes, taken.nbytes ? (const void *)taken.bytes : (const void *)"", &bytes, &packed[3]) != napi_ok) {
    free_held(&taken);
    napi_throw_error(env, NULL, "native search: out of memory for the held sessions");
    return NULL;
  }
  free_held(&taken);
  CHECK(napi_create_array_with_length(env, 4, &result));
  for (uint32_t k = 0; k < 4; k++) CHECK(napi_set_element(env, result, k, packed[k]));
  return result;
}

/** close(handle, abort): no more work; the threads end when the queue is empty (or at once, dropping it, with abort). */
static napi_value close_engine(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  engine_t *engine = engine_of(env, argv[0]);
  if (!engine) return NULL;
  int drop = argc > 1 && bool_of(env, argv[1]);
  pthread_mutex_lock(&engine->mu);
  engine->closing = 1;
  if (drop) __atomic_store_n(&engine->aborted, 1, __ATOMIC_RELAXED);
  pthread_cond_broadcast(&engine->cv);
  pthread_mutex_unlock(&engine->mu);
  return NULL;
}

/* answersHold's codes (see src/catalog/native-grep.ts, nativeAnswersHold). */
enum { A_LISTED = 1, A_FILE = 2, A_DIR = 3, A_OTHER = 4, A_MISSING = 5, A_REAL = 6, A_NO_REAL = 7 };

/** The next NUL-terminated string of `bytes` at *at (advanced past it), or NULL when none is left. */
static const char *next_string(const char *bytes, size_t len, size_t *at) {
  if (*at >= len) return NULL;
  const char *s = bytes + *at;
  size_t n = strnlen(s, len - *at);
  if (*at + n >= len) return NULL;
  *at += n + 1;
  return s;
}

/** Whether `path` is absolute and plain: no empty, `.` or `..` component, no trailing slash (realpath_via_parent). */
static int plain_absolute(const char *path) {
  if (path[0] != '/' || path[1] == '\0') return 0;
  for (const char *c = path; *c; c++) {
    if (*c != '/') continue;
    const char *next = c + 1;
    if (*next == '\0' || *next == '/') return 0;
    if (next[0] == '.' && (next[1] == '/' || next[1] == '\0')) return 0;
    if (next[0] == '.' && next[1] == '.' && (next[2] == '/' || next[2] == '\0')) return 0;
  }
  return 1;
}

/** The last parent resolved by realpath_via_parent: a memo's answers name the roots of one folder one after another. */
typedef struct {
  char parent[PATH_MAX];
  char resolved[PATH_MAX];
  int known;
} parent_memo_t;

/**
 * realpath(3) of `path`, into `out`; NULL when it fails. A path whose last component is not a symbolic link resolves
 * to its parent's real path and that name: the parent's is taken from `memo` when it is the last one resolved (10k
 * claw workspaces under one folder: one lstat each instead of a readlink per component). Anything else: realpath.
 */
static const char *realpath_via_parent(const char *path, char *out, parent_memo_t *memo) {
  if (!plain_absolute(path)) return realpath(path, out);
  const char *slash = strrchr(path, '/');
  size_t parent_len = slash == path ? 1 : (size_t)(slash - path);
  if (parent_len >= PATH_MAX) return realpath(path, out);
  if (!memo->known || strncmp(memo->parent, path, parent_len) != 0 || memo->parent[parent_len] != '\0') {
    memcpy(memo->parent, path, parent_len);
    memo->parent[parent_len] = '\0';
    memo->known = realpath(memo->parent, memo->resolved) != NULL;
    if (!memo->known) return realpath(path, out);
  }
  struct stat st;
  if (lstat(path, &st) != 0 || S_ISLNK(st.st_mode)) return realpath(path, out);
  size_t resolved_len = strlen(memo->resolved);
  const char *name = slash + 1;
  size_t name_len = strlen(name);
  int root = resolved_len == 1; /* the parent resolved to "/" */
  if (resolved_len + (root ? 0 : 1) + name_len >= PATH_MAX) return realpath(path, out);
  memcpy(out, memo->resolved, resolved_len);
  size_t at = resolved_len;
  if (!root) out[at++] = '/';
  memcpy(out + at, name, name_len + 1);
  return out;
}

/** The answers to check (see check_answers): answersHold's and answersHoldLater's arguments. */
typedef struct {
  const uint8_t *codes;
  size_t count;
  const double *numbers;
  const char *paths;
  size_t plen;
  const char *reals;
  size_t rlen;
} answers_args_t;

/**
 * Whether every answer holds, as walkAnswerHolds (src/core/io/walk-fs.ts) checks each with Node's statSync and
 * realpathSync.native: answer i is codes[i] about the i-th path of `paths` (each NUL-terminated). A_LISTED: a
 * directory whose mtimeMs is numbers[2i] (NaN: never holds) and inode numbers[2i+1]; A_FILE, A_DIR, A_OTHER: what stat
 * (following links) says it is; A_MISSING: stat fails with ENOENT; A_REAL: its realpath(3) is the next string of
 * `reals`; A_NO_REAL: realpath fails. Stops at the first that does not hold. Touches no JS value: it runs on the main
 * thread (answersHold) or on one of libuv's (answersHoldLater).
 */
static int check_answers(const answers_args_t *a) {
  const uint8_t *codes = a->codes;
  const double *numbers = a->numbers;
  const char *paths = a->paths, *reals = a->reals;
  size_t count = a->count, plen = a->plen, rlen = a->rlen;
  size_t at = 0, real_at = 0;
  int ok = 1;
  char resolved[PATH_MAX];
  parent_memo_t memo;
  memo.known = 0;
  for (size_t i = 0; i < count && ok; i++) {
    const char *path = next_string(paths, plen, &at);
    if (!path) {
      ok = 0;
      break;
    }
    uint8_t code = codes[i];
    if (code == A_REAL || code == A_NO_REAL) {
      const char *real = realpath_via_parent(path, resolved, &memo);
      if (code == A_NO_REAL) {
        ok = real == NULL;
      } else {
        const char *wanted = next_string(reals, rlen, &real_at);
        ok = real != NULL && wanted != NULL && strcmp(real, wanted) == 0;
      }
      continue;
    }
    struct stat st;
    if (stat(path, &st) != 0) {
      ok = code == A_MISSING && errno == ENOENT;
      continue;
    }
    if (code == A_LISTED) {
      /* Node's mtimeMs: seconds * 1e3 + nanoseconds / 1e6, in doubles. */
      double mtime = (double)st.st_mtim.tv_sec * 1e3 + (double)st.st_mtim.tv_nsec / 1e6;
      ok = S_ISDIR(st.st_mode) && numbers[2 * i] == mtime && numbers[2 * i + 1] == (double)st.st_ino;
    } else {
      ok = code == (S_ISREG(st.st_mode) ? A_FILE : S_ISDIR(st.st_mode) ? A_DIR : A_OTHER);
    }
  }
  return ok;
}

/** answersHold's and answersHoldLater's arguments, or 0 (a TypeError thrown) when they are not what they must be. */
static int answers_args(napi_env env, napi_callback_info info, const char *usage, answers_args_t *out) {
  size_t argc = 4;
  napi_value argv[4];
  size_t nnumbers = 0;
  void *pdata = NULL, *rdata = NULL;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) argc = 0;
  out->codes = argc == 4 ? typed_of(env, argv[0], napi_uint8_array, &out->count) : NULL;
  out->numbers = out->codes ? typed_of(env, argv[1], napi_float64_array, &nnumbers) : NULL;
  if (!out->numbers || nnumbers != 2 * out->count || napi_get_buffer_info(env, argv[2], &pdata, &out->plen) != napi_ok || napi_get_buffer_info(env, argv[3], &rdata, &out->rlen) != napi_ok) {
    napi_throw_type_error(env, NULL, usage);
    return 0;
  }
  out->paths = pdata;
  out->reals = rdata;
  return 1;
}

/** answersHold(codes: Uint8Array, numbers: Float64Array, paths: Buffer, reals: Buffer): check_answers, on this thread. */
static napi_value answers_hold(napi_env env, napi_callback_info info) {
  answers_args_t a;
  if (!answers_args(env, info, "answersHold(codes, numbers, paths, reals)", &a)) return NULL;
  napi_value result;
  napi_get_boolean(env, check_answers(&a), &result);
  return result;
}

/** A check on one of libuv's threads: copies of its arguments (the caller's buffers may change meanwhile). */
typedef struct {
  answers_args_t args;  // its pointers are this check's own copies
  int ok;
  napi_deferred deferred;
  napi_async_work work;
} later_check_t;

static void free_later(later_check_t *c) {
  free((void *)c->args.codes);
  free((void *)c->args.numbers);
  free((void *)c->args.paths);
  free((void *)c->args.reals);
  free(c);
}

static void later_execute(napi_env env, void *data) {
  (void)env;
  later_check_t *c = data;
  c->ok = check_answers(&c->args);
}

static void later_complete(napi_env env, napi_status status, void *data) {
  later_check_t *c = data;
  napi_value result;
  /* A check that did not run (the environment is going away) holds nothing. */
  napi_get_boolean(env, status == napi_ok && c->ok, &result);
  napi_resolve_deferred(env, c->deferred, result);
  napi_delete_async_work(env, c->work);
  free_later(c);
}

/**
 * answersHoldLater(codes, numbers, paths, reals): Promise<boolean>, check_answers on one of libuv's threads: the
 * stat and realpath calls run while the main thread goes on (grep reads the rest of its walk memo meanwhile).
 */
static napi_value answers_hold_later(napi_env env, napi_callback_info info) {
  answers_args_t a;
  if (!answers_args(env, info, "answersHoldLater(codes, numbers, paths, reals)", &a)) return NULL;
  later_check_t *c = calloc(1, sizeof *c);
  uint8_t *codes = malloc(a.count + 1);
  double *numbers = malloc(2 * a.count * sizeof(double) + sizeof(double));
  char *paths = malloc(a.plen + 1), *reals = malloc(a.rlen + 1);
  if (!c || !codes || !numbers || !paths || !reals) {
    free(c);
    free(codes);
    free(numbers);
    free(paths);
    free(reals);
    napi_throw_error(env, NULL, "answersHoldLater: out of memory");
    return NULL;
  }
  memcpy(codes, a.codes, a.count);
  memcpy(numbers, a.numbers, 2 * a.count * sizeof(double));
  memcpy(paths, a.paths, a.plen);
  memcpy(reals, a.reals, a.rlen);
  c->args = (answers_args_t){codes, a.count, numbers, paths, a.plen, reals, a.rlen};
  napi_value promise, name;
  if (napi_create_promise(env, &c->deferred, &promise) != napi_ok || napi_create_string_utf8(env, "sessions:answersHoldLater", NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_create_async_work(env, NULL, name, later_execute, later_complete, c, &c->work) != napi_ok || napi_queue_async_work(env, c->work) != napi_ok) {
    /* The promise (if made) is dropped unsettled with its check: the caller gets the error. */
    if (c->work) napi_delete_async_work(env, c->work);
    free_later(c);
    napi_throw_error(env, NULL, "answersHoldLater: N-API call failed");
    return NULL;
  }
  return promise;
}

/** File stamps for a warm start: native/stamps.c. */
napi_value stamp_files(napi_env env, napi_callback_info info);
/** The index's line fields (lineFields): native/fields.c. */
napi_value line_fields(napi_env env, napi_callback_info info);
/** The lazy catalog cache's first paths (cacheFirstPaths): native/cache-index.c. */
napi_value cache_first_paths(napi_env env, napi_callback_info info);
/** The index fold's node keys (uuidTable, uuidKey, uuidKeyText, uuidTableFree): native/uuid-table.c. */
napi_value uuid_table_new(napi_env env, napi_callback_info info);
napi_value uuid_table_key_of(napi_env env, napi_callback_info info);
napi_value uuid_table_key_text(napi_env env, napi_callback_info info);
napi_value uuid_table_free(napi_env env, napi_callback_info info);

/** `exports[name] = callback`, a JS function. */
static void export_function(napi_env env, napi_value exports, const char *name, napi_callback callback) {
  napi_value fn;
  napi_create_function(env, name, NAPI_AUTO_LENGTH, callback, NULL, &fn);
  napi_set_named_property(env, exports, name, fn);
}

static pthread_once_t folded_once = PTHREAD_ONCE_INIT;

static void fill_folded(void) {
  for (int b = 0; b < 256; b++) FOLDED[b] = fold_byte((unsigned char)b);
}

NAPI_MODULE_INIT() {
  pthread_once(&folded_once, fill_folded);
  export_function(env, exports, "create", create);
  export_function(env, exports, "push", push);
  export_function(env, exports, "judged", judged);
  export_function(env, exports, "held", held);
  export_function(env, exports, "close", close_engine);
  export_function(env, exports, "answersHold", answers_hold);
  export_function(env, exports, "answersHoldLater", answers_hold_later);
  export_function(env, exports, "stamps", stamp_files);
  export_function(env, exports, "lineFields", line_fields);
  export_function(env, exports, "cacheFirstPaths", cache_first_paths);
  export_function(env, exports, "uuidTable", uuid_table_new);
  export_function(env, exports, "uuidKey", uuid_table_key_of);
  export_function(env, exports, "uuidKeyText", uuid_table_key_text);
  export_function(env, exports, "uuidTableFree", uuid_table_free);
  return exports;
}
