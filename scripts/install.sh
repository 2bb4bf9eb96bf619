#!/usr/bin/env bash
# The project's one install entry point (`make install-deps`; .ci/run and .github/workflows/ci.yml call it): every
# program `make test` and `make test-busy` need beyond a JDK 17 and Maven, from Debian/Ubuntu packages, installed only
# when missing.
#
#   PostgreSQL server and client, PgBouncer    scripts/stack.sh install (the test database stack)
#   Patroni, etcd, HAProxy                     scripts/stack-ha.sh install (DB_HA=1 make up, make chaos failover)
#   Mosquitto                                  scripts/mosquitto.sh install (qos2-probe's broker tests;
#                                              mosquitto_passwd writes the migration tests' password files)
#   jq, python3, curl                          k8s/e2e-checks.sh and the chaos verdicts (build-checks), stack.sh up,
#                                              docs/migration.md's export commands (MigrationDocCommandsTest)
#   stress-ng                                  make test-busy (keeps every core busy under the test suites)
#   openssl                                    scripts/local-ca.sh (the stacks' TLS certificates)
#
# As root it runs apt-get itself; otherwise through `sudo -n` (a GitHub runner's passwordless sudo); when neither
# works it fails and prints the exact command to run (scripts/packages.sh).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=packages.sh
source "$ROOT/scripts/packages.sh"

"$ROOT/scripts/stack.sh" install
"$ROOT/scripts/stack-ha.sh" install
"$ROOT/scripts/mosquitto.sh" install
missing=()
for tool in jq python3 curl stress-ng openssl; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if ((${#missing[@]})); then
  install_packages "[install]" "${missing[@]}"
fi
printf '[install] everything make test needs is installed\n' >&2
