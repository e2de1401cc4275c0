"""Compiler flags shared by rocksdb_plugin/'s packages."""

# Code that runs once per process or per DB (options, the release check,
# the LOG reports, the listener), never per block, is compiled for size:
# a process that loads rockpool and never calls a codec it pools maps that
# code, 64 KiB of the object at a time (legacy/BUILD.bazel, code_order), so
# every KiB of it counts there, and none of it is on a lease's path.
STARTUP_COPTS = ["-Os"]
