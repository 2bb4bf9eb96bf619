#!/usr/bin/env bash
# Kubernetes end to end: build the images, load them into a kind (or minikube) cluster, install the chart, run load.
#
#   k8s/kind.sh images     build the three images (needs docker and the Dockerfiles, see below)
#   k8s/kind.sh up         create the cluster if missing, install cert-manager if its CRDs are missing (and, with
#                          DB_MODE=cnpg, the CloudNativePG operator if its CRDs are missing), build + load the images,
#                          helm install (TLS on: the chart's defaults), wait for its Certificates, helm test
#   k8s/kind.sh load       run the load generator Job (k8s/jobs/loadtest-job.yaml: it registers its own devices
#                          through registration-service first) and copy its report to REPORT_DIR
#   k8s/kind.sh storm      seed bench devices and run the emqtt-bench connection storm (k8s/jobs/emqtt-bench-conn-job.yaml);
#                          fails unless the Job completes (k8s/e2e-checks.sh storm-connected / reconnect-storm judge
#                          the connections meanwhile)
#   k8s/kind.sh qos2-probe build + load the probe's image, run the MQTT QoS 2 probe Job (k8s/jobs/qos2-probe-job.yaml)
#                          across two EMQX pods with the auth checks; its JSON goes to REPORT_DIR/qos2-probe.json and
#                          the command fails when the probe does (a lost/duplicated message or a failed auth check)
#   k8s/kind.sh down       delete the kind cluster
#
# Environment: CLUSTER_TOOL=kind|minikube (kind), CLUSTER (device-identity; e2e-kind.yml has kind-action create the
# cluster under this name), NAMESPACE (identity), RELEASE (device-identity; the Jobs in k8s/jobs/ address the
# release's Services and Secret by this name), VALUES (helm/device-identity/ci/kind-values.yaml), REPORT_DIR
# (target/k8s-report), SKIP_BUILD=1 to reuse images already built, IMAGE_VARIANT=jvm|native (jvm, the chart's default image; native is the
# better one for pods below one CPU: docs/sizing.md),
# STORM_CLIENTS_PER_POD / STORM_CONN_RATE to size the storm without editing its Job file (CI runs a smaller one),
# CERT_MANAGER_VERSION (v1.19.1) the cert-manager release `up` applies when the cluster has none, DB_MODE=bundled|cnpg
# (bundled: the chart's single PostgreSQL; cnpg: a CloudNativePG Cluster, the values ci/kind-cnpg-values.yaml on top of
# VALUES), CNPG_VERSION (1.30.0) the CloudNativePG release `up` applies in cnpg mode when the cluster has none.
#
# CloudNativePG (DB_MODE=cnpg): the operator's static manifest of release CNPG_VERSION, as its installation guide gives
# it (releases/cnpg-<version>.yaml on the release-<minor> branch; `kubectl apply --server-side`: its CRDs are too large for a client-side apply's annotation) when the CRD
# clusters.postgresql.cnpg.io is missing; `up` waits until its Deployment is Available and its webhook admits a
# Cluster. The chart's tests validate the rendered Cluster against this release's CRD (helm module, test resources).
#
# TLS: the kind values keep the chart's TLS defaults (tls.enabled, a cert-manager Certificate per component from the
# chart's own CA, MQTT over TLS on 8883 only), so the cluster needs cert-manager before the chart: `up` applies the
# static manifest of cert-manager's GitHub release CERT_MANAGER_VERSION (cert-manager.yaml, `kubectl apply -f`)
# when the CRD certificates.cert-manager.io is missing, on kind and minikube alike, and waits until cert-manager,
# cert-manager-webhook and cert-manager-cainjector are Available and the webhook admits an Issuer. A cluster with a
# cert-manager of its own keeps it. The Jobs in k8s/jobs/ mount the ca.crt of the Secret they verify against, and
# the load Job, which calls auth-service as EMQX does, presents EMQX's client certificate (mutual TLS stays on).
#
# Images: the services' <module>/src/main/docker/Dockerfile.$IMAGE_VARIANT and loadtest/Dockerfile. jvm expects
# `mvn package` output in target/quarkus-app; native builds the services' native executables inside the Mandrel
# builder image first (-Dquarkus.native.container-build=true: Docker is all it needs, no local GraalVM). Either way
# the image names and tag are the chart's defaults (device-identity/<module>:<appVersion>); the load generator is
# always a JVM image.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
COMMAND=${1:-}
: "${CLUSTER_TOOL:=kind}" "${CLUSTER:=device-identity}" "${NAMESPACE:=identity}" "${RELEASE:=device-identity}"
: "${VALUES:=$ROOT/helm/device-identity/ci/kind-values.yaml}" "${REPORT_DIR:=$ROOT/target/k8s-report}"
: "${IMAGE_VARIANT:=jvm}" "${CERT_MANAGER_VERSION:=v1.19.1}" "${DB_MODE:=bundled}" "${CNPG_VERSION:=1.30.0}"
CHART=$ROOT/helm/device-identity
VERSION=$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$CHART/Chart.yaml")
IMAGES=(auth-service registration-service loadtest)

log() { printf '[k8s] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
need() { for tool in "$@"; do command -v "$tool" >/dev/null 2>&1 || die "$tool is needed"; done; }

dockerfile() {
  case "$1" in
    loadtest) echo "$ROOT/loadtest/Dockerfile" ;;
    *) echo "$ROOT/$1/src/main/docker/Dockerfile.$IMAGE_VARIANT" ;;
  esac
}

images() {
  need docker mvn
  for image in "${IMAGES[@]}"; do
    [[ -f "$(dockerfile "$image")" ]] || die "$(dockerfile "$image") is missing (written by the $image module)"
  done
  if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
    case "$IMAGE_VARIANT" in
      jvm)
        log "building the jars (mvn -DskipTests package)"
        (cd "$ROOT" && mvn -B -q -DskipTests package) ;;
      native)
        # The Quarkus modules become native executables; the other modules (loadtest) package as usual.
        log "building the jars and the services' native executables (mvn -DskipTests package, native container build)"
        (cd "$ROOT" && mvn -B -q -DskipTests package -Dquarkus.native.enabled=true -Dquarkus.native.container-build=true) ;;
      *) die "IMAGE_VARIANT must be jvm or native" ;;
    esac
  fi
  for image in "${IMAGES[@]}"; do
    log "building device-identity/$image:$VERSION"
    docker build -q -f "$(dockerfile "$image")" -t "device-identity/$image:$VERSION" "$ROOT/$image" >/dev/null
  done
}

load_images() {
  for image in "${IMAGES[@]}"; do
    log "loading device-identity/$image:$VERSION into $CLUSTER_TOOL cluster $CLUSTER"
    case "$CLUSTER_TOOL" in
      kind) kind load docker-image "device-identity/$image:$VERSION" --name "$CLUSTER" ;;
      minikube) minikube -p "$CLUSTER" image load "device-identity/$image:$VERSION" ;;
      *) die "CLUSTER_TOOL must be kind or minikube" ;;
    esac
  done
}

cluster_up() {
  case "$CLUSTER_TOOL" in
    kind)
      need kind
      if kind get clusters 2>/dev/null | grep -qx "$CLUSTER"; then
        log "kind cluster $CLUSTER exists"
      else
        kind create cluster --name "$CLUSTER" --config "$ROOT/k8s/kind-cluster.yaml" --wait 120s
      fi ;;
    minikube)
      need minikube
      # Calico: minikube's default CNI does not enforce NetworkPolicy.
      minikube -p "$CLUSTER" status >/dev/null 2>&1 || minikube -p "$CLUSTER" start --cni=calico --cpus=4 --memory=8g ;;
    *) die "CLUSTER_TOOL must be kind or minikube" ;;
  esac
}

# cert-manager for the chart's Certificates (see the header): applied when its CRDs are missing (before the image
# build, so that its pods start meanwhile), then, before helm install, waited for until it admits.
cert_manager_apply() {
  if kubectl get crd certificates.cert-manager.io >/dev/null 2>&1; then
    log "cert-manager's CRDs are in the cluster: not installing $CERT_MANAGER_VERSION"
  else
    log "installing cert-manager $CERT_MANAGER_VERSION"
    kubectl apply -f \
      "https://github.com/cert-manager/cert-manager/releases/download/$CERT_MANAGER_VERSION/cert-manager.yaml"
  fi
}

cert_manager_ready() {
  local deadline
  if kubectl -n cert-manager get deployment cert-manager-webhook >/dev/null 2>&1; then
    kubectl -n cert-manager wait --for=condition=Available --timeout=180s \
      deployment/cert-manager deployment/cert-manager-webhook deployment/cert-manager-cainjector
  fi
  # Available is not yet admitting: the webhook's serving certificate is injected by the cainjector afterwards, and
  # until then helm's Issuers and Certificates would be refused. A server-side dry run goes through the webhook.
  deadline=$((SECONDS + 120))
  until kubectl apply --dry-run=server -f - >/dev/null 2>&1 <<'ISSUER'
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  name: cert-manager-ready-check
  namespace: default
spec:
  selfSigned: {}
ISSUER
  do
    ((SECONDS < deadline)) || die "cert-manager's webhook admits no Issuer after 120 s (kubectl -n cert-manager get pods)"
    sleep 3
  done
  log "cert-manager admits Issuers and Certificates"
}

# The CloudNativePG operator for DB_MODE=cnpg (see the header): applied when its CRDs are missing, then waited for.
cnpg_apply() {
  if kubectl get crd clusters.postgresql.cnpg.io >/dev/null 2>&1; then
    log "CloudNativePG's CRDs are in the cluster: not installing $CNPG_VERSION"
  else
    log "installing CloudNativePG $CNPG_VERSION"
    kubectl apply --server-side -f \
      "https://raw.githubusercontent.com/cloudnative-pg/cloudnative-pg/release-${CNPG_VERSION%.*}/releases/cnpg-$CNPG_VERSION.yaml"
  fi
}

cnpg_ready() {
  local deadline
  if kubectl -n cnpg-system get deployment cnpg-controller-manager >/dev/null 2>&1; then
    kubectl -n cnpg-system wait --for=condition=Available --timeout=180s deployment/cnpg-controller-manager
  fi
  # As for cert-manager: Available is not yet admitting. A server-side dry run of a Cluster goes through its webhook.
  deadline=$((SECONDS + 120))
  until kubectl apply --dry-run=server -f - >/dev/null 2>&1 <<'CLUSTER'
apiVersion: postgresql.cnpg.io/v1
kind: Cluster
metadata:
  name: cnpg-ready-check
  namespace: default
spec:
  instances: 1
  storage:
    size: 1Gi
CLUSTER
  do
    ((SECONDS < deadline)) || die "CloudNativePG's webhook admits no Cluster after 120 s (kubectl -n cnpg-system get pods)"
    sleep 3
  done
  log "CloudNativePG admits Clusters"
}

up() {
  need kubectl helm
  local values=(--values "$VALUES")
  case "$DB_MODE" in
    bundled) ;;
    cnpg) values+=(--values "$CHART/ci/kind-cnpg-values.yaml") ;;
    *) die "DB_MODE must be bundled or cnpg" ;;
  esac
  cluster_up
  cert_manager_apply
  [[ "$DB_MODE" != cnpg ]] || cnpg_apply
  images
  load_images
  cert_manager_ready
  [[ "$DB_MODE" != cnpg ]] || cnpg_ready
  log "helm upgrade --install $RELEASE (namespace $NAMESPACE, values ${values[*]})"
  # --wait covers the Certificates too: the pods mount their Secrets, so none starts before cert-manager issued them.
  # With cnpg it covers the Cluster as well: registration-service waits for its roles, so it is Ready only after it.
  if ! helm upgrade --install "$RELEASE" "$CHART" --namespace "$NAMESPACE" --create-namespace \
    "${values[@]}" --wait --timeout 10m; then
    kubectl -n "$NAMESPACE" get \
      certificates.cert-manager.io,certificaterequests.cert-manager.io,issuers.cert-manager.io >&2 || true
    die "helm upgrade --install $RELEASE failed (a Certificate not Ready above leaves its pods waiting for the Secret)"
  fi
  # Instant after --wait; the Jobs in k8s/jobs/ mount these Secrets' ca.crt (none with VALUES that turn TLS off).
  if [[ -n "$(kubectl -n "$NAMESPACE" get certificates.cert-manager.io -l "app.kubernetes.io/instance=$RELEASE" \
    -o name 2>/dev/null)" ]]; then
    kubectl -n "$NAMESPACE" wait --for=condition=Ready --timeout=120s certificates.cert-manager.io \
      -l "app.kubernetes.io/instance=$RELEASE"
  fi
  log "helm test $RELEASE"
  helm test "$RELEASE" --namespace "$NAMESPACE" --logs --timeout 5m
}

# Waits until the Job's pod has its report container running (the load generator finished) or the Job failed.
wait_for_report() {
  local job=$1 pod phase
  for _ in $(seq 1 400); do
    pod=$(kubectl -n "$NAMESPACE" get pods -l "job-name=$job" -o jsonpath='{.items[0].metadata.name}' 2>/dev/null || true)
    if [[ -n "$pod" ]]; then
      phase=$(kubectl -n "$NAMESPACE" get pod "$pod" -o jsonpath='{.status.phase}')
      [[ "$phase" == Running ]] && { echo "$pod"; return 0; }
      if [[ "$phase" == Failed ]]; then
        kubectl -n "$NAMESPACE" logs "$pod" -c seed-devices --tail=20 >&2 || true
        kubectl -n "$NAMESPACE" logs "$pod" -c loadtest --tail=100 >&2 || true
        die "$job failed"
      fi
    fi
    sleep 5
  done
  die "$job did not finish in time"
}

# wait_job JOB SECONDS: returns once the Job is Complete; fails when it Failed or the time ran out.
wait_job() {
  local job=$1 deadline=$((SECONDS + $2)) complete failed
  while ((SECONDS < deadline)); do
    complete=$(kubectl -n "$NAMESPACE" get job "$job" -o jsonpath='{.status.conditions[?(@.type=="Complete")].status}')
    failed=$(kubectl -n "$NAMESPACE" get job "$job" -o jsonpath='{.status.conditions[?(@.type=="Failed")].status}')
    [[ "$complete" == True ]] && return 0
    [[ "$failed" == True ]] && { log "$job failed"; return 1; }
    sleep 5
  done
  log "$job did not complete within $2 s"
  return 1
}

load() {
  need kubectl
  local job=device-identity-loadtest pod
  kubectl -n "$NAMESPACE" delete job "$job" --ignore-not-found >/dev/null
  kubectl -n "$NAMESPACE" apply -f "$ROOT/k8s/jobs/loadtest-job.yaml"
  log "registering the load devices, then the load test (kubectl -n $NAMESPACE logs -f job/$job -c seed-devices / -c loadtest)"
  pod=$(wait_for_report "$job")
  kubectl -n "$NAMESPACE" logs "$pod" -c seed-devices --tail=3 >&2 || true
  kubectl -n "$NAMESPACE" logs "$pod" -c loadtest --tail=40 >&2 || true
  mkdir -p "$REPORT_DIR"
  kubectl -n "$NAMESPACE" cp -c report "$pod:/reports" "$REPORT_DIR"
  kubectl -n "$NAMESPACE" exec "$pod" -c report -- touch /reports/.fetched
  kubectl -n "$NAMESPACE" wait --for=condition=complete "job/$job" --timeout=120s >/dev/null
  log "report: $REPORT_DIR ($(ls "$REPORT_DIR" | tr '\n' ' '))"
}

# Storm devices share one password, so one hash serves them all: seeding takes a second, not a bcrypt per device.
# Straight into the bundled PostgreSQL (kind's release); the load-test Job registers its own devices through the API.
# Usage: seed_devices PREFIX FIRST LAST PASSWORD
seed_devices() {
  local prefix=$1 first=$2 last=$3 password=$4
  log "seeding $prefix$first..$prefix$last (one bcrypt hash for all)"
  kubectl -n "$NAMESPACE" exec -i "statefulset/$RELEASE-postgresql" -c postgresql -- \
    sh -c 'psql -v ON_ERROR_STOP=1 -q -U "$POSTGRES_USER" -d "$POSTGRES_DB"' <<SQL
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgcrypto;
INSERT INTO device_credentials (client_id, password_hash)
SELECT '$prefix' || n, h.hash FROM generate_series($first, $last) AS n,
  (SELECT crypt('$password', gen_salt('bf', 10)) AS hash) AS h
WHERE NOT EXISTS (SELECT 1 FROM device_credentials WHERE client_id = '$prefix' || n);
SQL
}

storm() {
  need kubectl
  local job=device-identity-emqtt-bench-conn file="$ROOT/k8s/jobs/emqtt-bench-conn-job.yaml" pods per_pod rate status=0
  pods=$(sed -n 's/^  completions: *\([0-9]*\)$/\1/p' "$file")
  per_pod=${STORM_CLIENTS_PER_POD:-$(grep -A1 'name: CLIENTS_PER_POD' "$file" | sed -n 's/.*value: *"\([0-9]*\)".*/\1/p')}
  rate=${STORM_CONN_RATE:-$(grep -A1 'name: CONN_RATE' "$file" | sed -n 's/.*value: *"\([0-9]*\)".*/\1/p')}
  seed_devices bench- 0 $((pods * per_pod + 1)) bench-password
  kubectl -n "$NAMESPACE" delete job "$job" --ignore-not-found >/dev/null
  sed -e "/name: CLIENTS_PER_POD/{n;s/value: .*/value: \"$per_pod\"/;}" -e "/name: CONN_RATE/{n;s/value: .*/value: \"$rate\"/;}" \
    "$file" | kubectl -n "$NAMESPACE" apply -f -
  log "connection storm: $pods pods x $per_pod clients at $rate connects/s each"
  wait_job "$job" 900 || status=$?
  kubectl -n "$NAMESPACE" logs -l "job-name=$job" --prefix --tail=20 || true
  return "$status"
}

# The QoS 2 probe: its own image (built here, so the images/up steps stay as they are), then its Job. The Job's
# exit code is the verdict: the function waits for Complete or Failed and fails with the Job.
qos2_probe() {
  need docker kubectl
  local job=device-identity-qos2-probe image="device-identity/qos2-probe:$VERSION" pod status=""
  if [[ "${SKIP_BUILD:-0}" != 1 || ! -f "$ROOT/qos2-probe/target/qos2-probe.jar" ]]; then
    # -am: the probe's test-scoped test-support is a module of this build, not an artifact any repository holds, and
    # -DskipTests still compiles the tests.
    log "building the probe's jar (mvn -DskipTests package -pl qos2-probe -am)"
    (cd "$ROOT" && mvn -B -q -DskipTests package -pl qos2-probe -am)
  fi
  log "building $image"
  docker build -q -f "$ROOT/qos2-probe/Dockerfile" -t "$image" "$ROOT/qos2-probe" >/dev/null
  case "$CLUSTER_TOOL" in
    kind) kind load docker-image "$image" --name "$CLUSTER" ;;
    minikube) minikube -p "$CLUSTER" image load "$image" ;;
    *) die "CLUSTER_TOOL must be kind or minikube" ;;
  esac
  kubectl -n "$NAMESPACE" delete job "$job" --ignore-not-found >/dev/null
  kubectl -n "$NAMESPACE" apply -f "$ROOT/k8s/jobs/qos2-probe-job.yaml"
  log "QoS 2 probe running (kubectl -n $NAMESPACE logs -f job/$job)"
  for _ in $(seq 1 150); do
    status=$(kubectl -n "$NAMESPACE" get job "$job" \
      -o jsonpath='{range .status.conditions[?(@.status=="True")]}{.type}{" "}{end}' 2>/dev/null || true)
    [[ "$status" == *Complete* || "$status" == *Failed* ]] && break
    sleep 5
  done
  pod=$(kubectl -n "$NAMESPACE" get pods -l "job-name=$job" -o jsonpath='{.items[0].metadata.name}' 2>/dev/null || true)
  mkdir -p "$REPORT_DIR"
  if [[ -n "$pod" ]]; then
    kubectl -n "$NAMESPACE" logs "$pod" -c qos2-probe >"$REPORT_DIR/qos2-probe.log" 2>&1 || true
    cat "$REPORT_DIR/qos2-probe.log" >&2
    # stdout's JSON summary is the block from a line "{" to a line "}"; progress lines are around it.
    sed -n '/^{$/,/^}$/p' "$REPORT_DIR/qos2-probe.log" >"$REPORT_DIR/qos2-probe.json"
  fi
  [[ "$status" == *Complete* ]] || die "QoS 2 probe: ${status:-no verdict in time} (see $REPORT_DIR/qos2-probe.json)"
  log "QoS 2 probe: every message exactly once, auth checks held ($REPORT_DIR/qos2-probe.json)"
}

down() {
  case "$CLUSTER_TOOL" in
    kind) kind delete cluster --name "$CLUSTER" ;;
    minikube) minikube -p "$CLUSTER" delete ;;
  esac
}

# Sourced (by make test, to run single functions on the real database), it only defines them.
[[ "${BASH_SOURCE[0]}" == "$0" ]] || return 0

case "$COMMAND" in
  images) images ;;
  up) up ;;
  load) load ;;
  storm) storm ;;
  qos2-probe) qos2_probe ;;
  down) down ;;
  *) sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2; exit 2 ;;
esac
