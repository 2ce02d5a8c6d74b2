#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build: every cargo-fuzz target of fuzz/ (the ones scripts/nightly
# runs), with its committed corpus (and kept crashes) as the seed corpus.
# The builder's cargo wrapper adds the sanitizer and coverage flags; its toolchain is nightly,
# so the repository's RUSTC_BOOTSTRAP=1 (.cargo/config.toml) changes nothing there.
cd "$SRC/sass-conform"
cargo fuzz build -O --debug-assertions
FUZZ_TARGET_OUTPUT_DIR=fuzz/target/x86_64-unknown-linux-gnu/release
for target in $(cargo fuzz list); do
    cp "$FUZZ_TARGET_OUTPUT_DIR/$target" "$OUT/"
    seeds=()
    [ -d "corpus/$target" ] && seeds+=("corpus/$target")
    [ -d "corpus/regressions/$target" ] && seeds+=("corpus/regressions/$target")
    if [ ${#seeds[@]} -gt 0 ]; then
        zip -q -j -r "$OUT/${target}_seed_corpus.zip" "${seeds[@]}"
    fi
done
