# rockpool as a RocksDB plugin (RocksDB >= 10.4): builds the native face,
# compression_manager=rockpool, into librocksdb and every RocksDB tool.
#
#   ln -s /path/to/rockpool/rocksdb_plugin/native/rockpool /path/to/rocksdb/plugin/rockpool
#   make ROCKSDB_PLUGINS=rockpool static_lib db_bench ...
#
# RocksDB's Makefile includes this file and prefixes every source with
# plugin/rockpool/, and its CMakeLists.txt reads the single-line "SOURCES", "FUNC"
# and "LIBS" assignments below with regular expressions (keep each on one
# line). The sources are symlinks in src/ to the repository's own files (a
# path with .. would resolve against the symlink's target, not RocksDB's
# tree). The list is checked against the Bazel build by
# tests/rocksdb_plugin/native:plugin_sources_test.

rockpool_SOURCES = src/compression/block_codecs.cc src/compression/block_format.cc src/compression/coding.cc src/compression/compression_pools.cc src/compression/compression_type.cc src/compression/counting_allocator.cc src/compression/direct_codec_library.cc src/compression/lz4_block_codec.cc src/compression/lz4_contexts.cc src/compression/pool/thread_front.cc src/compression/zlib_block_codec.cc src/compression/zlib_contexts.cc src/compression/zstd_block_codec.cc src/compression/zstd_contexts.cc src/compression/zstd_dictionary.cc src/rocksdb_plugin/native/log_report.cc src/rocksdb_plugin/native/pooled_compressors.cc src/rocksdb_plugin/native/pooled_decompressor.cc rockpool_plugin.cc src/rocksdb_plugin/native/rockpool_compression_manager.cc src/rocksdb_plugin/options.cc src/rocksdb_plugin/own_file.cc src/rocksdb_plugin/report.cc src/rocksdb_plugin/verbose.cc
rockpool_FUNC = RegisterRockpoolPlugin
rockpool_LIBS = zstd z lz4

# The repository root, from this file's physical location (the plugin
# directory is normally a symlink into the repository). Override with
# ROCKPOOL_SOURCE_DIR=/path/to/rockpool when the directory was copied.
ifeq ($(ROCKPOOL_SOURCE_DIR),)
ROCKPOOL_SOURCE_DIR := $(realpath $(realpath $(dir $(lastword $(MAKEFILE_LIST))))/../../..)
endif
ifeq ($(wildcard $(ROCKPOOL_SOURCE_DIR)/compression/context_pool.h),)
$(error rockpool: cannot find the rockpool sources (got "$(ROCKPOOL_SOURCE_DIR)"). Link plugin/rockpool to rocksdb_plugin/native/rockpool or set ROCKPOOL_SOURCE_DIR)
endif

rockpool_CXXFLAGS = -I$(ROCKPOOL_SOURCE_DIR)
# Abseil, zstd, zlib and lz4: compile and link flags from pkg-config (also written
# into rocksdb.pc's Requires by `make install`).
rockpool_PKGCONFIG_REQUIRES = absl_base absl_synchronization absl_status absl_statusor absl_strings absl_str_format absl_time libzstd zlib liblz4
