// The lazy catalog cache's lookups by first path (src/catalog/cache-file-index.ts, firstPathLookups): each entry line's
// first path found and hashed here, as firstPathSpan does it in JS, in one call for every line of the file (100k at
// 100k sessions: ~0.1-0.2 s of a grep's main thread in JS, most of it before its code was optimized).
#define _GNU_SOURCE
#ifndef NAPI_VERSION
#define NAPI_VERSION 8
#endif
#include <node_api.h>
#include <stdint.h>
#include <string.h>

/** FNV-1a, 32 bits, kept to 30 (hashBytes in cache-file-index.ts). */
#define FIRST_PATH_SEED 0x811c9dc5u
#define FIRST_PATH_PRIME 0x01000193u
#define FIRST_PATH_MASK 0x3fffffffu
/** out[i] when line i names no first path where expected, or names it with escapes (decoded in JS). */
#define FIRST_PATH_NONE (-1)
#define FIRST_PATH_ESCAPED (-2)

static const char NONE_OPENING[] = "{\"none\":[[\"";
static const char STORE_OPENING[] = "{\"store\":[[\"";
static const char PATHS_KEY[] = "\"paths\":[\"";

static int opens_with(const uint8_t *at, size_t left, const char *prefix, size_t length) {
  return left >= length && memcmp(at, prefix, length) == 0;
}

/** Where `needle` first is wholly in [from, end), or NULL. */
static const uint8_t *first_in(const uint8_t *from, const uint8_t *end, const char *needle, size_t length) {
  if ((size_t)(end - from) < length) return NULL;
  return memmem(from, (size_t)(end - from), needle, length);
}

/** The hash of line [start, end)'s first path, or FIRST_PATH_NONE / FIRST_PATH_ESCAPED (firstPathSpan's answers). */
static int32_t first_path_hash(const uint8_t *start, const uint8_t *end) {
  size_t left = (size_t)(end - start);
  const uint8_t *open;
  if (opens_with(start, left, NONE_OPENING, sizeof NONE_OPENING - 1)) open = start + sizeof NONE_OPENING - 2;
  else if (opens_with(start, left, STORE_OPENING, sizeof STORE_OPENING - 1)) open = start + sizeof STORE_OPENING - 2;
  else {
    const uint8_t *key = first_in(start, end, PATHS_KEY, sizeof PATHS_KEY - 1);
    if (key == NULL) return FIRST_PATH_NONE;
    open = key + sizeof PATHS_KEY - 2;
  }
  uint32_t hash = FIRST_PATH_SEED;
  int escaped = 0;
  const uint8_t *close = open + 1;
  for (; close < end; close++) {
    uint8_t byte = *close;
    if (byte == '"') break;
    if (byte == '\\') escaped = 1;
    hash = (hash ^ byte) * FIRST_PATH_PRIME;
  }
  if (close >= end) return FIRST_PATH_NONE;
  return escaped ? FIRST_PATH_ESCAPED : (int32_t)(hash & FIRST_PATH_MASK);
}

/**
 * cacheFirstPaths(bytes: Buffer, starts: Float64Array, ends: Float64Array, out: Int32Array): for each line
 * [starts[i], ends[i]) of bytes, out[i] = its first path's hash, FIRST_PATH_NONE or FIRST_PATH_ESCAPED.
 */
napi_value cache_first_paths(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  void *data = NULL, *starts = NULL, *ends = NULL, *out = NULL;
  size_t length = 0, count = 0, other = 0, outs = 0, offset = 0;
  napi_typedarray_type type;
  napi_value arraybuffer;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 4) goto bad;
  if (napi_get_buffer_info(env, argv[0], &data, &length) != napi_ok) goto bad;
  if (napi_get_typedarray_info(env, argv[1], &type, &count, &starts, &arraybuffer, &offset) != napi_ok || type != napi_float64_array) goto bad;
  if (napi_get_typedarray_info(env, argv[2], &type, &other, &ends, &arraybuffer, &offset) != napi_ok || type != napi_float64_array || other != count) goto bad;
  if (napi_get_typedarray_info(env, argv[3], &type, &outs, &out, &arraybuffer, &offset) != napi_ok || type != napi_int32_array || outs != count) goto bad;
  const uint8_t *bytes = data;
  const double *from = starts, *to = ends;
  int32_t *hashes = out;
  for (size_t i = 0; i < count; i++) {
    double start = from[i], end = to[i];
    if (!(start >= 0 && end >= start && end <= (double)length)) goto bad;
    hashes[i] = first_path_hash(bytes + (size_t)start, bytes + (size_t)end);
  }
  return NULL;
bad:
  napi_throw_type_error(env, NULL, "cacheFirstPaths(bytes, starts, ends, out)");
  return NULL;
}
