# rockpool as a RocksDB plugin (RocksDB >= 10.4): builds the native face,
# compression_manager=rockpool, into librocksdb and every RocksDB tool.
#
#   ln -s /path/to/rockpool/rocksdb_plugin/native/rockpool /path/to/rocksdb/plugin/rockpool
#   make ROCKSDB_PLUGINS=rockpool static_lib db_bench ...
#
# RocksDB's Makefile includes this file and prefixes every source with
# plugin/rockpool/, and its CMakeLists.txt reads the single-line "SOURCES", "FUNC"
# and "LIBS" assignments below with regular expressions (keep each on one
# line, and no semicolon anywhere in this file). The core's sources appear as
# src/<path>: links to the repository's own files that link_sources.sh makes
# when the build starts (this file runs it for make, CMakeLists.txt for
# CMake). The list is checked against the Bazel build by
# tests/rocksdb_plugin/native:plugin_sources_test, and resolved as RocksDB's
# make resolves it by tests/rocksdb_plugin:plugin_make_test.

rockpool_SOURCES = src/compression/block_codecs.cc src/compression/block_format.cc src/compression/coding.cc src/compression/compression_pools.cc src/compression/compression_type.cc src/compression/counting_allocator.cc src/compression/direct_codec_library.cc src/compression/lz4_block_codec.cc src/compression/lz4_contexts.cc src/compression/pool/thread_front.cc src/compression/zlib_block_codec.cc src/compression/zlib_contexts.cc src/compression/zstd_block_codec.cc src/compression/zstd_contexts.cc src/compression/zstd_dictionary.cc src/rocksdb_plugin/native/log_report.cc src/rocksdb_plugin/native/pooled_compressors.cc src/rocksdb_plugin/native/pooled_decompressor.cc rockpool_plugin.cc src/rocksdb_plugin/native/rockpool_compression_manager.cc src/rocksdb_plugin/options.cc src/rocksdb_plugin/own_file.cc src/rocksdb_plugin/report.cc src/rocksdb_plugin/verbose.cc
rockpool_FUNC = RegisterRockpoolPlugin
rockpool_LIBS = zstd z lz4

# This directory, physically (plugin/rockpool is normally a symlink into
# the repository), and the repository root from it. Override the root with
# ROCKPOOL_SOURCE_DIR=/path/to/rockpool when the directory was copied.
rockpool_DIR := $(realpath $(dir $(lastword $(MAKEFILE_LIST))))
ifeq ($(ROCKPOOL_SOURCE_DIR),)
ROCKPOOL_SOURCE_DIR := $(realpath $(rockpool_DIR)/../../..)
endif
ifeq ($(wildcard $(ROCKPOOL_SOURCE_DIR)/compression/context_pool.h),)
$(error rockpool: cannot find the rockpool sources (got "$(ROCKPOOL_SOURCE_DIR)"). Link plugin/rockpool to rocksdb_plugin/native/rockpool or set ROCKPOOL_SOURCE_DIR)
endif
# The src/ links, made while make reads this file, before it looks for the
# sources.
rockpool_LINKED := $(shell sh '$(rockpool_DIR)/link_sources.sh' '$(ROCKPOOL_SOURCE_DIR)' >&2 && echo yes)
ifneq ($(rockpool_LINKED),yes)
$(error rockpool: could not link the sources into $(rockpool_DIR)/src (the line above says why))
endif

rockpool_CXXFLAGS = -I$(ROCKPOOL_SOURCE_DIR)
# Abseil, zstd, zlib and lz4: compile and link flags from pkg-config (also written
# into rocksdb.pc's Requires by `make install`).
rockpool_PKGCONFIG_REQUIRES = absl_base absl_synchronization absl_status absl_statusor absl_strings absl_str_format absl_time libzstd zlib liblz4
