"""How the objects preloaded into other programs link Abseil.

librockpool_preload.so, librockpool_interpose.so and librockpool_native.so
carry their own copy of Abseil, linked statically from @absl_pic (Debian's
source of the installed version, compiled as PIC by Bazel:
third_party/system_libs.bzl). Debian's shared libabsl_*.so would put 25 more
libraries into every host process, about 1 MB of RSS and 140 page faults in
db_bench for an object that may serve nothing; Debian's libabsl_*.a cannot
be linked into a shared object (not PIC).

The libraries the objects are made of (//rocksdb_plugin:interpose, ...) are
the ones the tests and tools link, and they depend on @absl, whose -labsl_*
flags reach the objects' link line too. The objects therefore link with

  - PRELOADED_ABSL_DEPS, as their last dep: nothing else depends on it, so
    Bazel lists its objects after all of rockpool's, and the linker takes
    each Abseil member rockpool refers to (an archive member is taken only
    for a symbol still undefined when the linker reaches it);
  - PRELOADED_ABSL_LINKOPTS: a -L directory of empty stand-ins, one per
    libabsl_*.so, searched before the system's, so every -labsl_* flag
    names nothing. Had the linker seen the real libraries, even unneeded
    (--as-needed drops them from DT_NEEDED), gold would keep every Abseil
    function they also define, used or not (about 300 KB more code), and
    export the libstdc++ template instantiations they refer to;
  - -z defs, so a symbol the copy lacks (a directory @absl_pic leaves out)
    fails the link instead of the object's loading.

The objects' version scripts export their entry points only, and @absl_pic
is compiled with hidden visibility besides: a host's own Abseil (Debian's,
same inline namespace) and this copy never bind to each other.
"""

PRELOADED_ABSL_DEPS = ["@absl_pic//:absl"]

# additional_linker_inputs: the stand-ins, so the link action has them.
PRELOADED_ABSL_LINKER_INPUTS = ["@absl_pic//:shared_library_stand_ins"]

PRELOADED_ABSL_LINKOPTS = [
    "-Lexternal/absl_pic/shared_library_stand_ins",
    "-Wl,-z,defs",
]
