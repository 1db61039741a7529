{
  "targets": [
    {
      "target_name": "sessions_search",
      "sources": ["search.c", "stamps.c", "fields.c", "cache-index.c", "uuid-table.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["-O2", "-std=gnu11"],
      "libraries": ["-lpthread"]
    }
  ]
}
