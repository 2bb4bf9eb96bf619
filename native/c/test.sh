#!/usr/bin/env bash
# The C layer's own tests (seconds; `make test` runs them before the native analysis):
#  - every header the builder reads compiles with warnings as errors;
#  - reporterchelper_test.c against reporterchelper.c, standard output to a pipe as in CI;
#  - build.sh builds the link libraries into a temporary directory, and test/clayer_test.c, linked against them the
#    way the image is (the linker scripts standing in for the JDK's static libraries), checks each piece's contract;
#    LD_BIND_NOW=1 makes every symbol the JDK's shared libraries need from the libjvm.so shim bind at start;
#  - build.sh refuses a JDK of another feature release than the builder's, saying which.
set -euo pipefail
cd "$(dirname "$0")"
java_home="${NATIVE_JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
for header in include/*.h; do
  gcc -Wall -Wextra -Werror -fsyntax-only -x c "$header"
done
gcc -O2 -Wall -Wextra -Wno-unused-parameter -Werror -I"$java_home/include" -I"$java_home/include/linux" \
  -o "$out/reporterchelper_test" reporterchelper_test.c reporterchelper.c
"$out/reporterchelper_test" | cat

libs="$out/clibraries"
./build.sh "$libs"
gcc -O2 -Wall -Wextra -Werror -Iinclude -I"$java_home/include" -I"$java_home/include/linux" -o "$out/clayer_test" \
  test/clayer_test.c "$libs/liblibchelper.a" "$libs/libsvm_container.a" "$libs/libjava.a" "$libs/libzip.a" \
  "$libs/libextnet.a" "$libs/libjvm.a" -Wl,-rpath,"$libs"
# HotSpot's reading of this CPU is the reference for the CPU features ("CPU: total 2 ... microcode 0x0, cx8, ...").
hotspot_features="$("$java_home/bin/java" -Xlog:os+cpu -version 2>&1 | sed -n 's/.*\[os,cpu\] CPU: total .*microcode [^,]*, //p' | head -1)"
LD_BIND_NOW=1 "$out/clayer_test" "$hotspot_features" | cat

mkdir -p "$out/jdk21"
echo 'JAVA_VERSION="21.0.5"' > "$out/jdk21/release"
if message="$(NATIVE_JAVA_HOME="$out/jdk21" ./build.sh "$out/refused" 2>&1)"; then
  echo "FAIL: build.sh accepted a JDK 21 for the GraalVM 25 builder" >&2
  exit 1
elif [[ "$message" != *"JDK 21.0.5"* || "$message" != *"JDK 25"* ]]; then
  echo "FAIL: build.sh refused a JDK 21 without naming both versions: $message" >&2
  exit 1
fi
echo "build.sh: a JDK 21 is refused with: $message"
