#!/usr/bin/env bash
# The C layer's own tests: compile every header the builder reads (with warnings as errors) and run
# reporterchelper_test.c against reporterchelper.c, standard output to a pipe as in CI.
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
