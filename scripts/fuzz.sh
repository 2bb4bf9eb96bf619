#!/usr/bin/env bash
# make fuzz: runs every Jazzer @FuzzTest target for real (coverage-guided mutation), one target per JVM, each for
# its @FuzzTest(maxDuration) (30 s). `make test` runs the same targets in regression mode over the committed inputs
# in <module>/src/test/resources/<package>/<Class>Inputs/<method>/. A finding fails the run and Jazzer writes the
# crashing input into that directory, so once fixed it stays a regression test; the generated corpus stays in
# <module>/.cifuzz-corpus/ (not committed). No database is needed. FUZZ_TARGETS="module:Class#method ..." narrows.
set -euo pipefail
cd "$(dirname "$0")/.."
MVN=${MVN:-mvn -B}
TARGETS=${FUZZ_TARGETS:-"identity-core:JsonBodiesFuzzTest#object identity-core:CredentialRulesFuzzTest#clientId
identity-core:CredentialRulesFuzzTest#topicFilter auth-service:AuthnRequestFuzzTest#authnBody
auth-service:AuthzRequestFuzzTest#authzBody auth-service:TopicRulesFuzzTest#decision
registration-service:RegistrationRequestFuzzTest#registrationBody registration-service:BearerTokensFuzzTest#bearerHeader"}
# Guide the mutation by the JSON parser's branches too, not only ours.
export JAZZER_FUZZ=1
export JAZZER_INSTRUMENTATION_INCLUDES="io.deviceidentity.**:com.fasterxml.jackson.core.**"

failed=()
for target in $TARGETS; do
  module=${target%%:*}
  test=${target#*:}
  echo "[fuzz] $module $test"
  if ! $MVN -q test -pl "$module" -am -Dtest="$test" -Dsurefire.failIfNoSpecifiedTests=false \
      > "target/fuzz-${test//[#]/-}.log" 2>&1; then
    failed+=("$target")
    echo "[fuzz] FINDING or failure in $target: target/fuzz-${test//[#]/-}.log"
  fi
  grep -h -E '^Done [0-9]+ runs' "target/fuzz-${test//[#]/-}.log" | sed "s/^/[fuzz]   /" || true
done
if ((${#failed[@]})); then
  echo "[fuzz] ${#failed[@]} target(s) failed: ${failed[*]}"
  exit 1
fi
echo "[fuzz] every target ran without a finding"
