// The index fold's node keys (src/core/formats/claude/keyed-scan.ts): a cold index of a 200 MB Claude session spent
// a fifth of its fold putting ~300k uuid strings into a JS Map (and decoding them, and collecting them). Here each
// distinct uuid, parent and logical parent (ASCII bytes, as a line holds them unescaped) gets a key: the order it
// was first seen, a small integer JS indexes typed arrays with. Strings are made only for the few keys a saved
// fold keeps (the chain's last nodes, its root, a title's leaf). One table per scan, freed when the fold is done.
#ifndef NAPI_VERSION
#define NAPI_VERSION 8
#endif
#include <node_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  uint8_t *bytes;  // every key's bytes, one after the other
  size_t used, capacity;
  uint32_t *starts;  // key k's bytes: [starts[k], starts[k] + lengths[k])
  uint32_t *lengths;
  int32_t keys, key_capacity;  // keys handed out (JS may reserve some: those have no bytes here)
  int32_t *slots;  // open addressing: key + 1, 0 empty
  uint32_t slot_mask;
  int32_t filled;
  int freed;
} uuid_table_t;

static uint64_t hash_bytes(const uint8_t *p, int32_t n) {
  // FNV-1a over 8 bytes at a time, then a final mix: uuids are 36 ASCII bytes.
  uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)n;
  int32_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x;
    memcpy(&x, p + i, 8);
    h = (h ^ x) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  for (; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  h ^= h >> 32;
  h *= 0xd6e8feb86659fd93ull;
  h ^= h >> 32;
  return h;
}

static int grow_keys(uuid_table_t *t) {
  if (t->keys < t->key_capacity) return 1;
  int32_t capacity = t->key_capacity * 2;
  uint32_t *starts = realloc(t->starts, (size_t)capacity * sizeof *starts);
  if (starts == NULL) return 0;
  t->starts = starts;
  uint32_t *lengths = realloc(t->lengths, (size_t)capacity * sizeof *lengths);
  if (lengths == NULL) return 0;
  t->lengths = lengths;
  t->key_capacity = capacity;
  return 1;
}

static int grow_slots(uuid_table_t *t) {
  uint32_t size = (t->slot_mask + 1) * 2;
  int32_t *slots = calloc(size, sizeof *slots);
  if (slots == NULL) return 0;
  for (uint32_t s = 0; s <= t->slot_mask; s++) {
    int32_t key = t->slots[s] - 1;
    if (key < 0) continue;
    uint32_t at = (uint32_t)hash_bytes(t->bytes + t->starts[key], (int32_t)t->lengths[key]) & (size - 1);
    while (slots[at] != 0) at = (at + 1) & (size - 1);
    slots[at] = key + 1;
  }
  free(t->slots);
  t->slots = slots;
  t->slot_mask = size - 1;
  return 1;
}

/** The key of bytes [p, p + n): found, or (insert) added; -1 when absent and not added, -2 out of memory. */
int32_t uuid_table_key(void *table, const uint8_t *p, int32_t n, int insert) {
  uuid_table_t *t = table;
  if (t->freed) return -2;
  uint32_t at = (uint32_t)hash_bytes(p, n) & t->slot_mask;
  for (;;) {
    int32_t key = t->slots[at] - 1;
    if (key < 0) break;
    if (t->lengths[key] == (uint32_t)n && memcmp(t->bytes + t->starts[key], p, (size_t)n) == 0) return key;
    at = (at + 1) & t->slot_mask;
  }
  if (!insert) return -1;
  if (t->used + (size_t)n > t->capacity) {
    size_t capacity = t->capacity * 2 + (size_t)n;
    uint8_t *bytes = realloc(t->bytes, capacity);
    if (bytes == NULL) return -2;
    t->bytes = bytes;
    t->capacity = capacity;
  }
  if (t->used + (size_t)n > UINT32_MAX || !grow_keys(t)) return -2;
  int32_t key = t->keys++;
  memcpy(t->bytes + t->used, p, (size_t)n);
  t->starts[key] = (uint32_t)t->used;
  t->lengths[key] = (uint32_t)n;
  t->used += (size_t)n;
  t->slots[at] = key + 1;
  if (++t->filled * 2 > (int32_t)t->slot_mask && !grow_slots(t)) return -2;
  return key;
}

static void release(uuid_table_t *t) {
  if (t->freed) return;
  t->freed = 1;
  free(t->bytes);
  free(t->starts);
  free(t->lengths);
  free(t->slots);
  t->bytes = NULL;
  t->starts = t->lengths = NULL;
  t->slots = NULL;
}

static void finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  release(data);
  free(data);
}

/** The table behind a `uuidTable()` value, or NULL. */
void *uuid_table_of(napi_env env, napi_value value) {
  napi_valuetype type;
  void *data = NULL;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_external) return NULL;
  if (napi_get_value_external(env, value, &data) != napi_ok || data == NULL) return NULL;
  return ((uuid_table_t *)data)->freed ? NULL : data;
}

/** uuidTable(): a new, empty table. */
napi_value uuid_table_new(napi_env env, napi_callback_info info) {
  (void)info;
  uuid_table_t *t = calloc(1, sizeof *t);
  napi_value result;
  if (t == NULL) goto oom;
  // Small at first: most sessions are (a cold index makes thousands of tables).
  t->capacity = 1 << 12;
  t->key_capacity = 1 << 7;
  t->slot_mask = (1 << 8) - 1;
  t->bytes = malloc(t->capacity);
  t->starts = malloc((size_t)t->key_capacity * sizeof *t->starts);
  t->lengths = malloc((size_t)t->key_capacity * sizeof *t->lengths);
  t->slots = calloc(t->slot_mask + 1, sizeof *t->slots);
  if (t->bytes == NULL || t->starts == NULL || t->lengths == NULL || t->slots == NULL) {
    release(t);
    free(t);
    goto oom;
  }
  if (napi_create_external(env, t, finalize, NULL, &result) != napi_ok) {
    release(t);
    free(t);
    return NULL;
  }
  return result;
oom:
  napi_throw_error(env, NULL, "uuidTable: out of memory");
  return NULL;
}

/**
 * uuidKey(table, text, insert): the key of an ASCII string (JS keeps other strings itself), added when `insert`;
 * -1 when absent. uuidKey(table): a new key with no bytes (JS's own strings share the numbering).
 */
napi_value uuid_table_key_of(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3], result;
  char stack[256];
  bool insert = false;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1) goto bad;
  uuid_table_t *t = uuid_table_of(env, argv[0]);
  if (t == NULL) goto bad;
  int32_t key;
  if (argc < 2) {
    if (!grow_keys(t)) goto oom;
    key = t->keys++;
    t->starts[key] = 0;
    t->lengths[key] = UINT32_MAX;  // never equal to a string's length: no lookup finds it
  } else {
    size_t length = 0;
    if (argc > 2 && napi_get_value_bool(env, argv[2], &insert) != napi_ok) goto bad;
    if (napi_get_value_string_latin1(env, argv[1], NULL, 0, &length) != napi_ok) goto bad;
    char *text = length < sizeof stack ? stack : malloc(length + 1);
    if (text == NULL) goto oom;
    napi_get_value_string_latin1(env, argv[1], text, length + 1, &length);
    key = uuid_table_key(t, (const uint8_t *)text, (int32_t)length, insert);
    if (text != stack) free(text);
    if (key == -2) goto oom;
  }
  napi_create_int32(env, key, &result);
  return result;
bad:
  napi_throw_type_error(env, NULL, "uuidKey(table[, text, insert])");
  return NULL;
oom:
  napi_throw_error(env, NULL, "uuidKey: out of memory");
  return NULL;
}

/** uuidKeyText(table, key): the string of a key the table holds the bytes of (undefined for a reserved one). */
napi_value uuid_table_key_text(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], result;
  int32_t key = -1;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 2) goto bad;
  uuid_table_t *t = uuid_table_of(env, argv[0]);
  if (t == NULL || napi_get_value_int32(env, argv[1], &key) != napi_ok || key < 0 || key >= t->keys) goto bad;
  if (t->lengths[key] == UINT32_MAX) {
    napi_get_undefined(env, &result);
    return result;
  }
  napi_create_string_latin1(env, (const char *)t->bytes + t->starts[key], t->lengths[key], &result);
  return result;
bad:
  napi_throw_type_error(env, NULL, "uuidKeyText(table, key)");
  return NULL;
}

/** uuidTableFree(table): its memory back now (a 200 MB session's table is ~15 MB), not when JS collects it. */
napi_value uuid_table_free(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) == napi_ok && argc == 1) {
    uuid_table_t *t = uuid_table_of(env, argv[0]);
    if (t != NULL) release(t);
  }
  return NULL;
}
