// File stamps for a warm start (src/catalog/native-stamps.ts): what stampsOf and headFingerprint (src/catalog/scan.ts,
// src/core/io/lines.ts) take of each file with Node's synchronous fs calls, taken here on threads of their own. A warm
// `list` of 100k sessions is 100k stats and 100k opens and 64-byte reads: through Node's fs layer on the main thread
// they were a third of its time.
#define _GNU_SOURCE
#ifndef NAPI_VERSION
#define NAPI_VERSION 8
#endif
#include <node_api.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/** A file's stamp covers its first bytes (FINGERPRINT_BYTES in src/core/io/lines.ts). */
#define STAMP_FINGERPRINT_BYTES 64
#define STAMP_MAX_THREADS 8
/** Paths a thread takes at a time. */
#define STAMP_SLICE 256

typedef struct {
  const char **paths;
  size_t count;
  double *out;
  size_t next;
  pthread_mutex_t mu;
} stamp_job_t;

/**
 * One file's stamp into out[0..3]: size, mtimeMs (Node's: seconds * 1e3 + nanoseconds / 1e6, in doubles), and the
 * fingerprint of its first bytes as their count and FNV-1a hash (fingerprintOf). out[0] = -1: stat failed or it is
 * not a regular file; out[2] = -1: the fingerprint could not be taken (opened as openRegularWithStatsSync opens).
 * Either way the caller takes this file's stamp again in JS, which says why.
 */
static void stamp_one(const char *path, double *out) {
  out[0] = -1;
  out[1] = 0;
  out[2] = -1;
  out[3] = 0;
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return;
  out[0] = (double)st.st_size;
  out[1] = (double)st.st_mtim.tv_sec * 1e3 + (double)st.st_mtim.tv_nsec / 1e6;
  int fd;
  do fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) return;
  struct stat opened;
  if (fstat(fd, &opened) == 0 && S_ISREG(opened.st_mode)) {
    unsigned char head[STAMP_FINGERPRINT_BYTES];
    size_t filled = 0;
    int failed = 0;
    while (filled < STAMP_FINGERPRINT_BYTES) {
      ssize_t n = pread(fd, head + filled, STAMP_FINGERPRINT_BYTES - filled, (off_t)filled);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        failed = 1;
        break;
      }
      if (n == 0) break;
      filled += (size_t)n;
    }
    if (!failed) {
      uint32_t hash = 0x811c9dc5u;
      for (size_t i = 0; i < filled; i++) hash = (hash ^ head[i]) * 0x01000193u;
      out[2] = (double)filled;
      out[3] = (double)hash;
    }
  }
  close(fd);
}

static void *stamp_thread(void *data) {
  stamp_job_t *job = data;
  for (;;) {
    pthread_mutex_lock(&job->mu);
    size_t from = job->next;
    job->next = from + STAMP_SLICE;
    pthread_mutex_unlock(&job->mu);
    if (from >= job->count) return NULL;
    size_t to = from + STAMP_SLICE < job->count ? from + STAMP_SLICE : job->count;
    for (size_t i = from; i < to; i++) stamp_one(job->paths[i], job->out + 4 * i);
  }
}

/**
 * stamps(paths: Buffer, count: number, out: Float64Array, threads: number): the stamp of each of the `count`
 * NUL-terminated paths of `paths` into out[4i..4i+3] (see stamp_one), on up to `threads` threads. Returns nothing;
 * throws when the arguments are not these.
 */
napi_value stamp_files(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 4) goto bad;
  void *pdata = NULL;
  size_t plen = 0;
  uint32_t count = 0, threads = 1;
  napi_typedarray_type type;
  size_t length = 0;
  void *odata = NULL;
  napi_value arraybuffer;
  size_t offset = 0;
  if (napi_get_buffer_info(env, argv[0], &pdata, &plen) != napi_ok) goto bad;
  if (napi_get_value_uint32(env, argv[1], &count) != napi_ok) goto bad;
  if (napi_get_typedarray_info(env, argv[2], &type, &length, &odata, &arraybuffer, &offset) != napi_ok || type != napi_float64_array || length < 4 * (size_t)count) goto bad;
  if (napi_get_value_uint32(env, argv[3], &threads) != napi_ok) goto bad;
  const char **paths = malloc(sizeof(char *) * (count > 0 ? count : 1));
  if (paths == NULL) goto bad;
  const char *bytes = pdata;
  size_t at = 0;
  for (uint32_t i = 0; i < count; i++) {
    const char *end = at < plen ? memchr(bytes + at, 0, plen - at) : NULL;
    if (end == NULL) {
      free(paths);
      goto bad;
    }
    paths[i] = bytes + at;
    at = (size_t)(end - bytes) + 1;
  }
  stamp_job_t job = {paths, count, odata, 0, PTHREAD_MUTEX_INITIALIZER};
  if (threads < 1) threads = 1;
  if (threads > STAMP_MAX_THREADS) threads = STAMP_MAX_THREADS;
  pthread_t started[STAMP_MAX_THREADS];
  uint32_t running = 0;
  // The calling thread stamps too; the others help with what it has not taken yet.
  for (uint32_t t = 1; t < threads && (size_t)t * STAMP_SLICE < count; t++) {
    if (pthread_create(&started[running], NULL, stamp_thread, &job) == 0) running++;
  }
  stamp_thread(&job);
  for (uint32_t t = 0; t < running; t++) pthread_join(started[t], NULL);
  free(paths);
  return NULL;
bad:
  napi_throw_type_error(env, NULL, "stamps(paths, count, out, threads)");
  return NULL;
}
