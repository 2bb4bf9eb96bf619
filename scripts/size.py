#!/usr/bin/env python3
"""How much of the chain a fleet needs: `make size DEVICES=… WINDOW=…` (docs/sizing.md).

For DEVICES devices that all reconnect within WINDOW seconds (a known share through the fast path, the rest cold,
with bcrypt), prints the auth-service CPUs and replicas, PgBouncer's and PostgreSQL's connections and EMQX's
pool_size, and the Helm values that give them. The formulas are the chart's (helm/device-identity/templates/
_helpers.tpl "device-identity.sizing" / "authnInFlight", _validate.tpl invariants 2 and 3), read with the chart's
values.yaml defaults; SizingAgreesWithChartTest (module helm/) renders the chart with the printed values and compares
its own sums with these. The throughput figures are the last `make bench`'s
(target/bench/capacity and known-closed-*/summary.json) when present, else docs/figures.json, where every figure
sizing depends on is held once.
"""
import argparse
import glob
import json
import math
import os
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIGURES_FILE = os.path.join(ROOT, "docs", "figures.json")
with open(FIGURES_FILE) as _f:
    FIGURES = json.load(_f)
# Closed-loop maxima of auth-service as a pod of 1 vCPU (a CFS quota): cold (bcrypt) and known (fast path).
DOCUMENTED_COLD_PER_CORE = float(FIGURES["cold_allows_per_core"]["value"])
DOCUMENTED_KNOWN_PER_CORE = float(FIGURES["known_allows_per_core"]["value"])
# A pod size holds when, at 8x its capacity, steady goodput >= this share of capacity, p99 allow within this, no
# late answer (docs/sizing.md, "Pod sizes").
POD_GOAL_RATIO = float(FIGURES["pod_goal"]["goodput_per_capacity"])
POD_GOAL_P99_MS = int(FIGURES["pod_goal"]["p99_allow_ms"])
# Known devices are planned at this share of the closed-loop maximum: p99 stayed within 20 ms in the open-loop
# storms up to about half of it.
KNOWN_UTILISATION = float(FIGURES["known_planned_share"])


def millis(duration):
    text = str(duration)
    for suffix, factor in (("ms", 1), ("s", 1000), ("m", 60000)):
        if text.endswith(suffix) and text[:-len(suffix)].replace(".", "").isdigit():
            return int(float(text[:-len(suffix)]) * factor)
    raise ValueError("not a duration: %s" % duration)


def cpu_millis(cpu):
    text = str(cpu)
    return int(text[:-1]) if text.endswith("m") else int(float(text) * 1000)


def ceil_div(a, b):
    return -(-a // b)


def goodput(path):
    with open(path) as f:
        return float(json.load(f)["steady_state"]["goodput"])


def figures(bench_dir):
    """(cold allows/s per core, known allows/s per core, where from): closed-loop maxima."""
    cold, known = DOCUMENTED_COLD_PER_CORE, DOCUMENTED_KNOWN_PER_CORE
    source = "docs/figures.json (make bench, %s and %s)" % (
        FIGURES["cold_allows_per_core"]["date"], FIGURES["known_allows_per_core"]["date"])
    capacity = os.path.join(bench_dir, "capacity", "summary.json")
    if os.path.exists(capacity):
        cold = goodput(capacity)
        source = "the last make bench (%s)" % os.path.relpath(bench_dir, ROOT)
        knowns = [goodput(p) for p in glob.glob(os.path.join(bench_dir, "known-closed-*", "summary.json"))]
        if knowns:
            known = max(knowns)
    return cold, known, source


def bcrypt_threads(values, cpu):
    """(bcrypt concurrency, bcrypt queue) of a replica whose CPU limit is CPU: the chart's "device-identity.sizing"
    (concurrency = ceil(limits.cpu) unless set; queue = ceil(maxWait / bcrypt.millis) x concurrency unless set)."""
    bcrypt = values["authService"]["overload"]["bcrypt"]
    concurrency = int(bcrypt["concurrency"]) if bcrypt.get("concurrency") else ceil_div(cpu_millis(cpu), 1000)
    hash_ms = int(values["bcrypt"]["millis"])
    queue = int(bcrypt["queue"]) if bcrypt.get("queue") is not None else \
        ceil_div(millis(bcrypt["maxWait"]), hash_ms) * concurrency
    return concurrency, queue


def emqx_pool_size(values, replicas, concurrency, queue):
    """Invariant 4, the chart's "device-identity.authnInFlight": EMQX must be able to send more than the auth tier
    admits at REPLICAS, so pool_size per node = ceil(ceil(replicas x admitted x (100 + headroom) / 100) / (nodes x
    pipelining))."""
    authn = values["emqx"]["authn"]
    required = ceil_div(replicas * (concurrency + queue) * (100 + int(authn["inFlightHeadroomPercent"])), 100)
    per_node = int(values["emqx"]["replicas"]) * int(authn["pipelining"])
    return max(1, ceil_div(required, per_node))


def pod_figures(bench_dir):
    """The pod-size table of the last make bench (scripts/bench-pods.sh): one row per pod CPU and EMQX pool, from
    pod-<cpu>-capacity/summary.json and pod-<cpu>-<n>x-pool-<connections>/summary.json (steady state)."""
    rows = []
    for path in sorted(glob.glob(os.path.join(bench_dir, "pod-*-*x-pool-*", "summary.json"))):
        run = os.path.basename(os.path.dirname(path))
        slug, rest = run[len("pod-"):].split("-", 1)
        factor, connections = rest.split("x-pool-")
        try:
            with open(path) as f:
                steady = json.load(f)["steady_state"]
            capacity = goodput(os.path.join(bench_dir, "pod-%s-capacity" % slug, "summary.json"))
        except (OSError, ValueError, KeyError):
            continue
        rows.append({"cpu": slug.replace("_", "."), "capacity": capacity, "factor": factor,
                     "connections": int(connections), "ratio": steady.get("goodput_per_capacity"),
                     "p99_allow_ms": (steady.get("latency_allow") or {}).get("p99_ms")
                     if (steady.get("latency_allow") or {}).get("count") else None,
                     "late": steady.get("late_answers_total", 0), "expired": steady.get("expired_in_queue", 0)})
    rows.sort(key=lambda r: (float(r["cpu"]), -r["connections"]))
    return rows


def holds(row):
    """The issue's goal for a pod size: goodput >= 0.9 x capacity at 8x, p99 allow <= 2 s, no late answers."""
    return row["ratio"] is not None and row["ratio"] >= POD_GOAL_RATIO and row["p99_allow_ms"] is not None \
        and row["p99_allow_ms"] <= POD_GOAL_P99_MS and row["late"] == 0


def size(values, devices, window, known_share, cold_per_core, known_per_core):
    auth, reg, bouncer, pg = values["authService"], values["registrationService"], values["pgbouncer"], values["postgresql"]
    authn = values["emqx"]["authn"]
    concurrency, queue = bcrypt_threads(values, auth["resources"]["limits"]["cpu"])
    cold_rate = devices * (1 - known_share) / window
    known_rate = devices * known_share / window
    bcrypt_cpus = math.ceil(cold_rate / cold_per_core) if cold_rate > 0 else 0
    replicas = max(int(auth["autoscaling"]["minReplicas"]), ceil_div(bcrypt_cpus, concurrency),
                   math.ceil(known_rate / (known_per_core * KNOWN_UTILISATION * concurrency)))
    # Invariant 2: client connections at the HPA maximum, with PgBouncer's headroom for uneven spreading.
    reg_replicas = int(reg["autoscaling"]["maxReplicas"])
    clients = replicas * (int(auth["db"]["poolMaxSize"]) + 1) + reg_replicas * int(reg["db"]["poolMaxSize"])
    headroom = int(bouncer["clientHeadroomPercent"])
    max_client_conn = max(int(bouncer["maxClientConn"]),
                          ceil_div(clients * 100, int(bouncer["replicas"]) * (100 - headroom)))
    # Invariant 3: server connections, two users' pools per PgBouncer plus the migrations' direct connections.
    servers = int(bouncer["replicas"]) * 2 * (int(bouncer["defaultPoolSize"]) + int(bouncer["reservePoolSize"])) \
        + reg_replicas * int(reg["db"]["migrationConnections"])
    max_connections = max(int(pg["maxConnections"]), servers + int(pg["reservedConnections"]))
    pool_size = emqx_pool_size(values, replicas, concurrency, queue)
    return {
        "cold_checks_per_s": round(cold_rate, 1), "known_checks_per_s": round(known_rate, 1),
        "bcrypt_cpus": bcrypt_cpus, "cpu_per_replica": concurrency, "auth_replicas": replicas,
        "client_connections": clients, "pgbouncer_max_client_conn": max_client_conn,
        "server_connections": servers, "postgresql_max_connections": max_connections,
        "cold_per_core": cold_per_core, "known_per_core": known_per_core,
        "emqx_pool_size": pool_size, "emqx_in_flight": int(values["emqx"]["replicas"]) * pool_size * int(authn["pipelining"]),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int)
    parser.add_argument("--window", type=float, help="seconds in which they all reconnect")
    parser.add_argument("--emqx-pool-for-cpu", metavar="CPU",
                        help="only print the chart's EMQX pool_size per node for auth-service pods of this CPU limit "
                             "(e.g. 0.25, 500m, 2) at the chart's maxReplicas (make bench's 'chart pool' points)")
    parser.add_argument("--known", type=float, default=0.9,
                        help="share of devices that have a fast-path verifier (connected before) [0.9]")
    parser.add_argument("--values", default=os.path.join(ROOT, "helm/device-identity/values.yaml"))
    parser.add_argument("--bench", default=os.path.join(ROOT, "target/bench"))
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON only")
    a = parser.parse_args()
    if a.emqx_pool_for_cpu is not None:
        with open(a.values) as f:
            values = yaml.safe_load(f)
        auth = values["authService"]
        replicas = int(auth["autoscaling"]["maxReplicas"] if auth["autoscaling"]["enabled"] else auth["replicas"])
        print(emqx_pool_size(values, replicas, *bcrypt_threads(values, a.emqx_pool_for_cpu)))
        return
    if a.devices is None or a.window is None:
        parser.error("--devices and --window are required")
    if a.devices < 1 or a.window <= 0 or not 0 <= a.known <= 1:
        parser.error("--devices ≥ 1, --window > 0, 0 ≤ --known ≤ 1")
    with open(a.values) as f:
        values = yaml.safe_load(f)
    cold, known, source = figures(a.bench)
    r = size(values, a.devices, a.window, a.known, cold, known)
    if a.json:
        print(json.dumps(r, sort_keys=True))
        return
    print("%d devices in %g s, %d %% known (fast path): %.1f cold checks/s, %.1f known/s" % (
        a.devices, a.window, round(a.known * 100), r["cold_checks_per_s"], r["known_checks_per_s"]))
    print("figures: %.1f cold allows/s per core (bcrypt cost %d), %.0f known allows/s per core (planned at %d %%), from %s"
          % (cold, int(FIGURES["bcrypt_cost"]), known, round(KNOWN_UTILISATION * 100), source))
    print("auth-service      %d CPUs for bcrypt -> %d replicas of %d CPUs (authService.autoscaling.maxReplicas=%d)" % (
        r["bcrypt_cpus"], r["auth_replicas"], r["cpu_per_replica"], r["auth_replicas"]))
    print("PgBouncer         %d client connections -> pgbouncer.maxClientConn=%d" % (
        r["client_connections"], r["pgbouncer_max_client_conn"]))
    print("PostgreSQL        %d server connections -> postgresql.maxConnections=%d" % (
        r["server_connections"], r["postgresql_max_connections"]))
    print("EMQX              pool_size %d per node (%d in flight; the chart derives it, paste it into your own EMQX)" % (
        r["emqx_pool_size"], r["emqx_in_flight"]))
    print("helm upgrade … --set authService.autoscaling.maxReplicas=%d --set pgbouncer.maxClientConn=%d"
          " --set postgresql.maxConnections=%d" % (r["auth_replicas"], r["pgbouncer_max_client_conn"],
                                                    r["postgresql_max_connections"]))
    pods = pod_figures(a.bench)
    if pods:
        print("pod sizes measured by that make bench (8x capacity; holds = goodput >= %.1f x capacity, p99 allow <= %d s,"
              " no late answer):" % (POD_GOAL_RATIO, POD_GOAL_P99_MS // 1000))
        for p in pods:
            print("  %s vCPU: capacity %.2f/s, behind %d connections: %s of capacity, p99 allow %s, %d late -> %s" % (
                p["cpu"], p["capacity"], p["connections"], "-" if p["ratio"] is None else "%.2f" % p["ratio"],
                "-" if p["p99_allow_ms"] is None else "%.1f s" % (p["p99_allow_ms"] / 1000), p["late"],
                "holds" if holds(p) else "does NOT hold"))


if __name__ == "__main__":
    sys.exit(main())
