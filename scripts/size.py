#!/usr/bin/env python3
"""How much of the chain a fleet needs: `make size DEVICES=… WINDOW=…` (docs/sizing.md).

For DEVICES devices that all reconnect within WINDOW seconds (a known share through the fast path, the rest cold,
with bcrypt), prints what it assumes (the CPU each auth-service replica is guaranteed, its request; EMQX's nodes and
pipelining; PgBouncer's replicas: each an option), the auth-service replicas that must be running before the storm
(minReplicas: the HPA adds nothing to EMQX's open connections), PgBouncer's and PostgreSQL's connections, EMQX's
pool_size, and the chart values that deploy them as a file for helm's -f (--values-out). The formulas are the
chart's (helm/device-identity/templates/_helpers.tpl "device-identity.sizing" / "authnInFlight", _validate.tpl
invariants 2 and 3), read with the chart's values.yaml defaults; SizingAgreesWithChartTest (module helm/) renders the
chart with the printed values and compares its own sums and objects with these. The throughput figures are the last
`make bench`'s (target/bench/capacity and known-closed-*/summary.json) when present, else docs/figures.json, where
every figure sizing depends on is held once.
"""
import argparse
import copy
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


def cpu_text(millicpu):
    """A CPU quantity as Kubernetes writes it: whole CPUs as "2", the rest in millicores ("500m")."""
    return str(millicpu // 1000) if millicpu % 1000 == 0 else "%dm" % millicpu


def size(values, devices, window, known_share, cold_per_core, known_per_core, cpu=None, emqx_nodes=None,
         pipelining=None, pgbouncer_replicas=None, max_replicas=None):
    """The sizing of DEVICES reconnecting within WINDOW seconds. Every replica is counted at its CPU request (CPU,
    default authService.resources.requests.cpu): only the request is guaranteed when every pod on the node is busy,
    as in a storm. EMQX_NODES, PIPELINING and PGBOUNCER_REPLICAS default to values.yaml's."""
    auth, reg, bouncer, pg = values["authService"], values["registrationService"], values["pgbouncer"], values["postgresql"]
    values = copy.deepcopy(values)
    if emqx_nodes is not None:
        values["emqx"]["replicas"] = emqx_nodes
    if pipelining is not None:
        values["emqx"]["authn"]["pipelining"] = pipelining
    bouncers = int(pgbouncer_replicas if pgbouncer_replicas is not None else bouncer["replicas"])
    request = cpu_millis(cpu if cpu is not None else auth["resources"]["requests"]["cpu"])
    # The limit is never below the request (Kubernetes refuses it); bcrypt's threads follow the limit.
    limit = max(cpu_millis(auth["resources"]["limits"]["cpu"]), request)
    concurrency, queue = bcrypt_threads(values, cpu_text(limit))
    cold_rate = devices * (1 - known_share) / window
    known_rate = devices * known_share / window
    bcrypt_cpus = math.ceil(cold_rate / cold_per_core) if cold_rate > 0 else 0
    # The storm arrives on EMQX's open connections, which the HPA never moves to a replica it adds: the replicas that
    # carry it must be running before it, so the storm's size is minReplicas.
    storm = max(ceil_div(bcrypt_cpus * 1000, request),
                math.ceil(known_rate * 1000 / (known_per_core * KNOWN_UTILISATION * request)))
    min_replicas = max(int(auth["autoscaling"]["minReplicas"]), storm)
    replicas = max(min_replicas, int(max_replicas if max_replicas is not None else auth["autoscaling"]["maxReplicas"]))
    # Invariant 2: client connections at the HPA maximum, with PgBouncer's headroom for uneven spreading.
    reg_replicas = int(reg["autoscaling"]["maxReplicas"])
    clients = replicas * (int(auth["db"]["poolMaxSize"]) + 1) + reg_replicas * int(reg["db"]["poolMaxSize"])
    headroom = int(bouncer["clientHeadroomPercent"])
    max_client_conn = max(int(bouncer["maxClientConn"]), ceil_div(clients * 100, bouncers * (100 - headroom)))
    # Invariant 3: server connections, two users' pools per PgBouncer plus the migrations' direct connections.
    servers = bouncers * 2 * (int(bouncer["defaultPoolSize"]) + int(bouncer["reservePoolSize"])) \
        + reg_replicas * int(reg["db"]["migrationConnections"])
    max_connections = max(int(pg["maxConnections"]), servers + int(pg["reservedConnections"]))
    pool_size = emqx_pool_size(values, replicas, concurrency, queue)
    authn = values["emqx"]["authn"]
    return {
        "cold_checks_per_s": round(cold_rate, 1), "known_checks_per_s": round(known_rate, 1),
        "bcrypt_cpus": bcrypt_cpus, "cpu_request": cpu_text(request), "cpu_limit": cpu_text(limit),
        "bcrypt_concurrency": concurrency, "auth_min_replicas": min_replicas, "auth_replicas": replicas,
        "client_connections": clients, "pgbouncer_replicas": bouncers, "pgbouncer_max_client_conn": max_client_conn,
        "server_connections": servers, "postgresql_max_connections": max_connections,
        "cold_per_core": cold_per_core, "known_per_core": known_per_core,
        "emqx_nodes": int(values["emqx"]["replicas"]), "emqx_pipelining": int(authn["pipelining"]),
        "emqx_pool_size": pool_size, "emqx_in_flight": int(values["emqx"]["replicas"]) * pool_size * int(authn["pipelining"]),
    }


def values_snippet(r):
    """The chart values that deploy a sizing, for helm's -f: everything the sizing assumed or derived."""
    return yaml.safe_dump({
        "authService": {
            "autoscaling": {"minReplicas": r["auth_min_replicas"], "maxReplicas": r["auth_replicas"]},
            "resources": {"requests": {"cpu": r["cpu_request"]}, "limits": {"cpu": r["cpu_limit"]}},
        },
        "pgbouncer": {"replicas": r["pgbouncer_replicas"], "maxClientConn": r["pgbouncer_max_client_conn"]},
        "postgresql": {"maxConnections": r["postgresql_max_connections"]},
        "emqx": {"replicas": r["emqx_nodes"], "authn": {"pipelining": r["emqx_pipelining"]}},
    }, sort_keys=False, default_flow_style=False)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int)
    parser.add_argument("--window", type=float, help="seconds in which they all reconnect")
    parser.add_argument("--emqx-pool-for-cpu", metavar="CPU",
                        help="only print the chart's EMQX pool_size per node for auth-service pods of this CPU limit "
                             "(e.g. 0.25, 500m, 2) at the chart's maxReplicas (make bench's 'chart pool' points)")
    parser.add_argument("--known", type=float, default=0.9,
                        help="share of devices that have a fast-path verifier (connected before) [0.9]; measure it "
                             "(docs/sizing.md, \"The known share\")")
    parser.add_argument("--auth-cpu", metavar="CPU",
                        help="CPU each auth-service replica is guaranteed, its request (e.g. 1, 1500m) [the chart's "
                             "authService.resources.requests.cpu]")
    parser.add_argument("--emqx-nodes", type=int, help="EMQX nodes that call auth-service [the chart's emqx.replicas]")
    parser.add_argument("--pipelining", type=int,
                        help="EMQX's authn requests in flight per connection [the chart's emqx.authn.pipelining]")
    parser.add_argument("--pgbouncer-replicas", type=int, help="PgBouncer replicas [the chart's pgbouncer.replicas]")
    parser.add_argument("--max-replicas", type=int,
                        help="the HPA's maxReplicas, if more than the storm needs [the chart's, at least minReplicas]")
    parser.add_argument("--values-out", metavar="FILE", help="also write the values to FILE, for helm's -f")
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
    for name in ("emqx_nodes", "pipelining", "pgbouncer_replicas", "max_replicas"):
        if getattr(a, name) is not None and getattr(a, name) < 1:
            parser.error("--%s ≥ 1" % name.replace("_", "-"))
    try:
        if a.auth_cpu is not None and cpu_millis(a.auth_cpu) < 1:
            raise ValueError
    except ValueError:
        parser.error("--auth-cpu: a CPU quantity above 0 (1, 0.5, 1500m)")
    with open(a.values) as f:
        values = yaml.safe_load(f)
    cold, known, source = figures(a.bench)
    r = size(values, a.devices, a.window, a.known, cold, known, cpu=a.auth_cpu, emqx_nodes=a.emqx_nodes,
             pipelining=a.pipelining, pgbouncer_replicas=a.pgbouncer_replicas, max_replicas=a.max_replicas)
    snippet = values_snippet(r)
    if a.values_out:
        with open(a.values_out, "w") as f:
            f.write(snippet)
    if a.json:
        print(json.dumps(r, sort_keys=True))
        return
    print("%d devices in %g s, %d %% known (fast path): %.1f cold checks/s, %.1f known/s" % (
        a.devices, a.window, round(a.known * 100), r["cold_checks_per_s"], r["known_checks_per_s"]))
    print("figures: %.1f cold allows/s per core (bcrypt cost %d), %.0f known allows/s per core (planned at %d %%), from %s"
          % (cold, int(FIGURES["bcrypt_cost"]), known, round(KNOWN_UTILISATION * 100), source))
    # The make variables (make size); the script's options are the same names in lower case (--auth-cpu ...).
    print("assumes: %s CPU per auth-service replica, its request: only the request is guaranteed in a storm "
          "(AUTH_CPU=); %d EMQX nodes (EMQX_NODES=), pipelining %d (PIPELINING=); %d PgBouncer replicas "
          "(PGBOUNCER_REPLICAS=)" % (r["cpu_request"], r["emqx_nodes"], r["emqx_pipelining"], r["pgbouncer_replicas"]))
    print("auth-service      %d CPUs for bcrypt -> %d replicas of %s CPU running before the storm (minReplicas=%d: the "
          "HPA adds nothing to EMQX's open connections), maxReplicas=%d" % (
              r["bcrypt_cpus"], r["auth_min_replicas"], r["cpu_request"], r["auth_min_replicas"], r["auth_replicas"]))
    print("PgBouncer         %d client connections -> maxClientConn=%d per PgBouncer replica (x %d)" % (
        r["client_connections"], r["pgbouncer_max_client_conn"], r["pgbouncer_replicas"]))
    print("PostgreSQL        %d server connections -> postgresql.maxConnections=%d" % (
        r["server_connections"], r["postgresql_max_connections"]))
    print("EMQX              pool_size %d per node (%d in flight; the chart derives it, paste it into your own EMQX)" % (
        r["emqx_pool_size"], r["emqx_in_flight"]))
    print("values for helm upgrade … -f sized-values.yaml (--values-out writes them):")
    print(snippet, end="")
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
