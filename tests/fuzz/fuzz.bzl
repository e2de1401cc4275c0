"""rockpool_fuzz_target: one libFuzzer target, built two ways.

  <name>_fuzzer      the libFuzzer binary. Tagged manual: it links only with
                     clang's -fsanitize=fuzzer, i.e. under --config=fuzz in
                     the separate output base tests/fuzz/run.sh uses.
  <name>_replay_test a GoogleTest in the normal suite (gcc, and under
                     --config=asan in CI) that feeds every file of
                     corpus/<name>/ and regressions/<name>/ through the same
                     LLVMFuzzerTestOneInput: the seed corpus and every crash
                     ever found are regression tests.
"""

def rockpool_fuzz_target(name, srcs, deps = [], size = "small"):
    corpus = "corpus/" + name
    regressions = "regressions/" + name
    native.cc_library(
        name = name + "_lib",
        testonly = True,
        srcs = srcs + ["fuzz_check.h"],
        deps = deps,
        alwayslink = True,
    )
    native.cc_binary(
        name = name + "_fuzzer",
        testonly = True,
        linkopts = ["-fsanitize=fuzzer"],
        tags = ["manual"],
        deps = [":" + name + "_lib"],
    )
    native.cc_test(
        name = name + "_replay_test",
        size = size,
        srcs = ["fuzz_replay_test.cc"],
        # Runfiles-relative directories (tests run in the workspace's
        # runfiles root); the test requires at least one corpus file.
        args = [
            native.package_name() + "/" + corpus,
            native.package_name() + "/" + regressions,
        ],
        data = native.glob([corpus + "/**", regressions + "/**"]),
        deps = [
            ":" + name + "_lib",
            "@gtest",
        ],
    )
