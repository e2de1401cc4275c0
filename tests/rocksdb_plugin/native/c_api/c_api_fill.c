/* A program that reaches RocksDB only through its C API (rocksdb/c.h), as
 * language bindings do, and so can name the native face only in an options
 * string or an OPTIONS file: the C API has no compression_manager setter.
 *
 *   c_api_fill DB_DIR OPTIONS_STRING [KEYS [VALUE_BYTES]]
 *   e.g. OPTIONS_STRING 'compression_manager=rockpool;compression=kZlibCompression'
 *
 * 1. rocksdb_get_options_from_string(OPTIONS_STRING) over create_if_missing
 *    (a bad string: the error on stderr, exit 2). An unregistered
 *    compression_manager id is not an error there: RocksDB ignores ids it
 *    cannot load (ConfigOptions::ignore_unsupported_options, true in the
 *    C API) and the DB gets the built-in manager.
 * 2. fills DB_DIR with KEYS (default 200000) deterministic keys of
 *    VALUE_BYTES (default 200) half-compressible bytes, compacts everything
 *    into the bottommost level (so the SST files' data blocks depend only on
 *    the data and the options, not on timing), closes.
 * 3. reopens DB_DIR with the options of its OPTIONS file
 *    (rocksdb_load_latest_options), reads every key back, closes; exit 3 if
 *    that fails, 4 if a value differs.
 * Prints one line: "c_api_fill: KEYS keys written, compacted, read back
 * through the OPTIONS file". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocksdb/c.h"

static void make_key(char* key, size_t size, long i) { snprintf(key, size, "key%012ld", i); }

/* Half repeated text, half pseudo-random bytes: compressible, not trivially. */
static void make_value(char* value, size_t n, long i) {
  unsigned long long state = 0x9e3779b97f4a7c15ULL ^ (unsigned long long)i;
  for (size_t k = 0; k < n; ++k) {
    if (k < n / 2) {
      value[k] = "rockpool pooled contexts "[k % 25];
    } else {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      value[k] = (char)('a' + (state >> 59));
    }
  }
}

static int fail(const char* what, char* err, int code) {
  fprintf(stderr, "c_api_fill: %s: %s\n", what, err != NULL ? err : "(no message)");
  free(err);
  return code;
}

static int fill(const char* dir, const char* options_string, long keys, size_t value_bytes) {
  char* err = NULL;
  rocksdb_options_t* base = rocksdb_options_create();
  rocksdb_options_set_create_if_missing(base, 1);
  rocksdb_options_t* options = rocksdb_options_create();
  rocksdb_get_options_from_string(base, options_string, options, &err);
  rocksdb_options_destroy(base);
  if (err != NULL) {
    rocksdb_options_destroy(options);
    return fail("options string", err, 2);
  }
  rocksdb_t* db = rocksdb_open(options, dir, &err);
  rocksdb_options_destroy(options);
  if (err != NULL) return fail("open", err, 2);

  rocksdb_writeoptions_t* write_options = rocksdb_writeoptions_create();
  char key[32];
  char* value = malloc(value_bytes);
  for (long i = 0; i < keys && err == NULL; ++i) {
    make_key(key, sizeof key, i);
    make_value(value, value_bytes, i);
    rocksdb_put(db, write_options, key, strlen(key), value, value_bytes, &err);
  }
  free(value);
  rocksdb_writeoptions_destroy(write_options);
  if (err == NULL) {
    rocksdb_compactoptions_t* compact = rocksdb_compactoptions_create();
    rocksdb_compactoptions_set_bottommost_level_compaction(compact, 2 /* kForce */);
    rocksdb_compact_range_opt(db, compact, NULL, 0, NULL, 0);
    rocksdb_compactoptions_destroy(compact);
  }
  rocksdb_close(db);
  return err != NULL ? fail("put", err, 3) : 0;
}

static int read_back(const char* dir, long keys, size_t value_bytes) {
  char* err = NULL;
  rocksdb_options_t* db_options = NULL;
  size_t families = 0;
  char** names = NULL;
  rocksdb_options_t** family_options = NULL;
  rocksdb_env_t* env = rocksdb_create_default_env();
  rocksdb_load_latest_options(dir, env, 0, NULL, &db_options, &families, &names, &family_options,
                              &err);
  if (err != NULL) {
    rocksdb_env_destroy(env);
    return fail("rocksdb_load_latest_options", err, 3);
  }
  rocksdb_column_family_handle_t** handles = calloc(families, sizeof *handles);
  rocksdb_t* db =
      rocksdb_open_column_families(db_options, dir, (int)families, (const char* const*)names,
                                   (const rocksdb_options_t* const*)family_options, handles, &err);
  rocksdb_load_latest_options_destroy(db_options, names, family_options, families);
  rocksdb_env_destroy(env);
  if (err != NULL) {
    free(handles);
    return fail("open with the OPTIONS file", err, 3);
  }
  int code = 0;
  rocksdb_readoptions_t* read_options = rocksdb_readoptions_create();
  char key[32];
  char* want = malloc(value_bytes);
  for (long i = 0; i < keys && code == 0; ++i) {
    make_key(key, sizeof key, i);
    make_value(want, value_bytes, i);
    size_t got_size = 0;
    char* got = rocksdb_get(db, read_options, key, strlen(key), &got_size, &err);
    if (err != NULL) {
      code = fail("get", err, 3);
    } else if (got == NULL || got_size != value_bytes || memcmp(got, want, value_bytes) != 0) {
      fprintf(stderr, "c_api_fill: %s: wrong value\n", key);
      code = 4;
    }
    rocksdb_free(got);
  }
  free(want);
  rocksdb_readoptions_destroy(read_options);
  for (size_t f = 0; f < families; ++f) rocksdb_column_family_handle_destroy(handles[f]);
  free(handles);
  rocksdb_close(db);
  return code;
}

int main(int argc, char** argv) {
  if (argc < 3 || argc > 5) {
    fprintf(stderr, "usage: c_api_fill DB_DIR OPTIONS_STRING [KEYS [VALUE_BYTES]]\n");
    return 1;
  }
  const long keys = argc > 3 ? atol(argv[3]) : 200000;
  const size_t value_bytes = argc > 4 ? (size_t)atol(argv[4]) : 200;
  if (keys <= 0 || value_bytes == 0) {
    fprintf(stderr, "c_api_fill: KEYS and VALUE_BYTES must be positive\n");
    return 1;
  }
  int code = fill(argv[1], argv[2], keys, value_bytes);
  if (code == 0) code = read_back(argv[1], keys, value_bytes);
  if (code == 0) {
    printf("c_api_fill: %ld keys written, compacted, read back through the OPTIONS file\n", keys);
  }
  return code;
}
