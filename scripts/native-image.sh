#!/usr/bin/env bash
# The local native toolchain: GraalVM's builder from Maven Central (native/builder/pom.xml pins it) on the machine's
# Temurin 25, driven by native/NativeImageDriver.java from the native-image.args Quarkus writes into
# <service>/target/native-sources/. Production images come from the official builder image instead (docs/native.md).
#
#   scripts/native-image.sh analyse <service>   points-to analysis and image-heap scan only (in `make test`)
#   scripts/native-image.sh build <service>     the executable, <service>/target/native/<name>-runner, the
#                                                shared libraries it loads from its own directory, and the record
#                                                of the sources it was built from (sources.sha256)
#   scripts/native-image.sh artifact <service>  names that executable as the module's packaged artifact
#                                                (target/quarkus-artifact.properties, type=native), which the
#                                                integration tests then start (make native-it); refuses one that is
#                                                missing or was built from other sources than those here now
#   scripts/native-image.sh record <service>    writes that record for the sources here now (build does it itself)
#
# NATIVE_JAVA_HOME: the JDK 25 to run the builder on (default: Temurin 25 under /usr/lib/jvm).
# NATIVE_BUILDER_XMX: the builder's heap (default 6g; the analysis of one service peaks near 4.1 GB RSS, a full build near 4.7 GB).
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
mode="${1:?usage: native-image.sh analyse|build|artifact|record <service>}"
service="${2:?usage: native-image.sh analyse|build|artifact|record <service>}"

# The sources an executable is built from, by content (a checkout that rewrites a file unchanged is no change): the
# service's and identity-core's main sources and the poms that pin their dependencies. One "<sha256>  <path>" a line.
sources() {
  (cd "$here" && find "$service/src/main" identity-core/src/main pom.xml "$service/pom.xml" identity-core/pom.xml \
    -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
}
record="$here/$service/target/native/sources.sha256"

case "$mode" in
  record)
    mkdir -p "${record%/*}"
    sources > "$record"
    exit 0 ;;
  artifact)
    shopt -s nullglob
    runners=("$here/$service/target/native/"*-runner)
    if (( ${#runners[@]} != 1 )); then
      echo "native: no executable in $service/target/native/ (run make native first)" >&2
      exit 3
    fi
    # An executable built from other sources would pass or fail tests for code that is not the code here.
    if [[ ! -f "$record" ]]; then
      echo "native: ${runners[0]#"$here/"} has no record of the sources it was built from: run make native again" >&2
      exit 3
    fi
    changed="$(diff <(sources) "$record" | sed -n 's/^[<>] [0-9a-f]*  //p' | head -1 || true)"
    if [[ -n "$changed" ]]; then
      echo "native: ${runners[0]#"$here/"} was built from another $changed than the one here: run make native again" >&2
      exit 3
    fi
    # What Quarkus writes after a native build of its own; the integration tests read the type here and start the
    # executable named by native.image.path (the pom's local-native profile points it at target/native/).
    printf '# Written by scripts/native-image.sh artifact: the local toolchain'"'"'s executable\ntype=native\npath=native/%s\n' \
      "$(basename "${runners[0]}")" > "$here/$service/target/quarkus-artifact.properties"
    echo "native: $service's integration tests run ${runners[0]#"$here/"}"
    exit 0 ;;
esac

java_home="${NATIVE_JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
mvn="${MVN:-mvn -B}"

if [[ ! -x "$java_home/bin/java" ]]; then
  echo "native: no JDK at $java_home (set NATIVE_JAVA_HOME to a JDK 25: scripts/install.sh installs Temurin 25)" >&2
  exit 3
fi
sources="$here/$service/target/native-sources"
if [[ ! -f "$sources/native-image.args" ]]; then
  echo "native: $sources/native-image.args is missing (run make native-sources first)" >&2
  exit 3
fi

# The JDK the builder runs on: the given one, plus the builder's C helper where GraalVM's own JDK keeps it
# (<java.home>/lib/svm/builder/lib/). A copy made of hard links (a plain copy across file systems), so the system's
# JDK is left as it is; remade when the helper's source or the JDK changes.
builder_jdk="$here/native/target/builder-jdk"
helper="$builder_jdk/lib/svm/builder/lib/libreporterchelper.so"
if [[ ! -x "$builder_jdk/bin/java" || ! -f "$helper" || "$here/native/c/reporterchelper.c" -nt "$helper" \
      || "$(readlink -f "$java_home/release")" -nt "$helper" ]]; then
  rm -rf "$builder_jdk"
  mkdir -p "$here/native/target"
  cp -al "$java_home" "$builder_jdk" 2>/dev/null || cp -a "$java_home" "$builder_jdk"
  mkdir -p "$(dirname "$helper")"
  gcc -O2 -Wall -Wextra -Wno-unused-parameter -Werror -shared -fPIC -I"$java_home/include" \
    -I"$java_home/include/linux" -o "$helper" "$here/native/c/reporterchelper.c"
fi

# The builder's jars, resolved (and downloaded once) by Maven from the pinned pom.
cp_file="$here/native/target/builder-classpath.txt"
mkdir -p "$here/native/target"
if [[ ! -s "$cp_file" || "$here/native/builder/pom.xml" -nt "$cp_file" ]]; then
  $mvn -q -f "$here/native/builder/pom.xml" dependency:build-classpath -Dmdep.outputFile="$cp_file" >&2
fi
# Temurin 25 ships a placeholder jdk.graal.compiler module: the real compiler goes on the upgrade module path.
compiler="$(tr ':' '\n' < "$cp_file" | grep '/compiler-[0-9]' )"
modules="$(tr ':' '\n' < "$cp_file" | grep -v '/compiler-[0-9]' | paste -sd:)"

case "$mode" in
  analyse)
    out="$here/$service/target/native-analysis"
    extra=(--analysis-only --c-library-path="$here/native/c") ;;
  build)
    # The sources as the build begins (native-sources were just made from them), kept once it succeeds.
    built_from="$(sources)"
    # The C layer a full link needs and no registry publishes for this JDK (native/c/build.sh, seconds): SVM's C
    # helpers, and the JDK's shared libraries standing in for its static ones, with the libjvm.so shim they need.
    "$here/native/c/build.sh" "$here/native/target/clibraries"
    out="$here/$service/target/native"
    # The executable finds those shared libraries beside itself ($ORIGIN), where they are copied after the link.
    extra=(--c-library-path="$here/native/c" --c-library-path="$here/native/target/clibraries"
           '-H:LinkerRPath=$ORIGIN'
           # The compiler's per-method alarm counts wall-clock time (300 s): on a shared machine, where a niced
           # builder can be starved or paused for minutes, it failed trivial methods. No limit here.
           -H:CompilationExpirationPeriod=0) ;;
  *) echo "usage: native-image.sh analyse|build|artifact|record <service>" >&2; exit 2 ;;
esac

"$builder_jdk/bin/java" "$here/native/NativeImageDriver.java" "$sources" "$modules" "$compiler" "$out" \
  --xmx="${NATIVE_BUILDER_XMX:-6g}" "${extra[@]}" "${@:3}"
if [[ "$mode" == build ]]; then
  cp "$here/native/target/clibraries/"*.so "$out/"
  printf '%s\n' "$built_from" > "$record"
  echo "native: $(ls "$out"/*-runner) with its shared libraries beside it: $(cd "$out" && ls ./*.so | xargs)"
fi
