#!/usr/bin/env python3
"""Hostile clients and bursts for `make chaos` (standard library only).

register-known    registers the known devices (PUT), printing "clientid password" for each one acknowledged
login-known       each known device logs in once (a bcrypt each, two at a time), so that its verifier is stored;
                  exits 1 unless every one was allowed
hold-connections  another client takes PgBouncer's max_client_conn (TCP connections, held open) for a while
put-burst         hundreds of concurrent PUTs (each a bcrypt) against registration-service, every answer recorded
login-storm       as many authn requests for known devices as a pool of callers can send, goodput per second
hostile           fuzzed and random bodies to every endpoint, idle TCP connections, slowloris, oversized headers,
                  a flood of wrong bearer tokens, with a normal client checked throughout
"""
import argparse, glob, http.client, json, os, random, socket, sys, threading, time
from concurrent.futures import ThreadPoolExecutor


# Health is on each service's management interface, by default its main port + 1000 (identity-core
# ManagementSettings; chaos.sh leaves IDENTITY_MANAGEMENT_PORT unset).
MANAGEMENT_OFFSET = 1000

def mark(path, name, event):
    with open(path, "a") as f:
        f.write(json.dumps({"fault": name, "event": event, "t": time.time()}) + "\n")


def request(port, method, path, body=None, headers=None, timeout=10):
    start = time.time()
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        data = r.read()
        c.close()
        reason = ""
        if r.status >= 400:
            try:
                reason = json.loads(data).get("reason", "")
            except Exception:
                reason = "non-json"
        return start, time.time(), r.status, reason, data
    except Exception as e:
        return start, time.time(), -1, type(e).__name__, b""


def register_known(a):
    c = http.client.HTTPConnection("127.0.0.1", a.port, timeout=30)
    for i in range(a.count):
        cid = "chaos-known-%d" % i
        c.request("PUT", "/v1/devices/" + cid, body=json.dumps({"password": a.password}),
                  headers={"Content-Type": "application/json", "Authorization": "Bearer " + a.token})
        r = c.getresponse(); r.read()
        if r.status // 100 == 2:
            print(cid, a.password)


def login_known(a):
    known = [line.split() for line in open(a.known) if line.strip()]
    allowed = []

    def login(part):
        c = http.client.HTTPConnection("127.0.0.1", a.port, timeout=30)
        for cid, pw in part:
            for _ in range(20):  # 503 while the other half is hashing: retry, as a device would
                c.request("POST", "/mqtt/authn", body=json.dumps({"clientid": cid, "username": "", "password": pw,
                          "peerhost": "127.0.0.1"}), headers={"Content-Type": "application/json"})
                r = c.getresponse(); body = r.read()
                if r.status == 200:
                    allowed.append(json.loads(body).get("result") == "allow")
                    break

    threads = [threading.Thread(target=login, args=(known[i::2],)) for i in range(2)]
    for t in threads: t.start()
    for t in threads: t.join()
    sys.exit(0 if len(allowed) == len(known) and all(allowed) else 1)


def hold_connections(a):
    socks = []
    mark(a.mark, a.name, "fault")
    for _ in range(a.count):
        try:
            socks.append(socket.create_connection(("127.0.0.1", a.port), timeout=2))
        except OSError:
            break
    print("held %d connections to PgBouncer" % len(socks), file=sys.stderr)
    time.sleep(a.seconds)
    mark(a.mark, a.name, "repair")
    for s in socks:
        s.close()


def put_burst(a):
    out = open(a.out, "a", buffering=1)
    lock = threading.Lock()
    prefix = "chaos-burst-%d-" % random.randrange(10**9)

    def one(i):
        cid = prefix + str(i)
        s, e, st, reason, _ = request(a.port, "PUT", "/v1/devices/" + cid,
                                      json.dumps({"password": "chaos-registration-pw-burst-%d" % i}),
                                      {"Content-Type": "application/json", "Authorization": "Bearer " + a.token}, 30)
        with lock:
            out.write(json.dumps({"w": "reg", "op": "PUT", "id": cid, "t": s, "d": e - s, "status": st,
                                  "reason": reason, "burst": True}) + "\n")

    with ThreadPoolExecutor(max_workers=a.count) as pool:
        list(pool.map(one, range(a.count)))


def login_storm(a):
    known = [line.split() for line in open(a.known) if line.strip()]
    out = open(a.out, "a", buffering=1)
    lock = threading.Lock()
    end = time.time() + a.seconds

    # Paced (open loop) when --rate is given: the storm is a load the machine can carry, so that what the burst
    # takes from it shows, instead of the share of a CPU that the storm alone saturates.
    period = a.callers / a.rate if a.rate else 0.0

    def caller(n):
        c = None
        due = time.time() + period * n / a.callers
        while time.time() < end:
            if period:
                pause = due - time.time()
                if pause > 0:
                    time.sleep(pause)
                due += period
            cid, pw = random.choice(known)
            body = json.dumps({"clientid": cid, "username": "", "password": pw, "peerhost": "127.0.0.1"})
            s = time.time()
            try:
                if c is None:
                    c = http.client.HTTPConnection("127.0.0.1", a.port, timeout=10)
                c.request("POST", "/mqtt/authn", body=body, headers={"Content-Type": "application/json"})
                r = c.getresponse(); data = r.read()
                st = r.status
                parsed = json.loads(data) if data.startswith(b"{") else {}
                res = parsed.get("result", "") if st == 200 else ""
                reason = parsed.get("reason", "") if st != 200 else ""
            except Exception as e:
                c = None; st = -1; res = ""; reason = type(e).__name__
            with lock:
                out.write(json.dumps({"t": s, "d": time.time() - s, "status": st, "result": res, "reason": reason}) + "\n")

    threads = [threading.Thread(target=caller, args=(n,)) for n in range(a.callers)]
    for t in threads: t.start()
    for t in threads: t.join()


def corpus_bodies(root):
    bodies = {}
    for pattern, endpoint in (("auth-service/src/test/resources/**/AuthnRequestFuzzTestInputs/**/*", "authn"),
                              ("auth-service/src/test/resources/**/AuthzRequestFuzzTestInputs/**/*", "authz"),
                              ("registration-service/src/test/resources/**/RegistrationRequestFuzzTestInputs/**/*", "reg")):
        files = [f for f in glob.glob(os.path.join(root, pattern), recursive=True) if os.path.isfile(f)]
        bodies[endpoint] = [open(f, "rb").read() for f in files]
    return bodies


def mutate(body):
    b = bytearray(body or b"{}")
    for _ in range(random.randint(1, 8)):
        op = random.randrange(4)
        if op == 0 and b:
            b[random.randrange(len(b))] = random.randrange(256)
        elif op == 1:
            b.insert(random.randrange(len(b) + 1), random.choice(b'{}[]",:\\0\x00\xff'))
        elif op == 2 and b:
            del b[random.randrange(len(b))]
        else:
            i = random.randrange(len(b) + 1)
            b[i:i] = b[:random.randrange(len(b) + 1)]
    return bytes(b[:20000])


def rss_bytes(pid):
    try:
        for line in open("/proc/%d/status" % pid):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return None


class MemoryWatch:
    """Resident memory of the services while the abuse runs: first sample, peak, and after it ended."""

    def __init__(self, pids):
        self.pids = {name: pid for name, pid in pids.items() if pid}
        self.samples = {name: [] for name in self.pids}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while not self.stop.is_set():
            self.sample()
            time.sleep(0.25)

    def sample(self):
        for name, pid in self.pids.items():
            rss = rss_bytes(pid)
            if rss is not None:
                self.samples[name].append(rss)

    def result(self):
        self.stop.set(); self.thread.join()
        time.sleep(2); self.sample()  # after the connections closed and a moment to settle
        mib = lambda b: round(b / 1048576.0, 1)
        return {name: {"before_mib": mib(s[0]), "peak_mib": mib(max(s)), "after_mib": mib(s[-1]), "samples": len(s)}
                for name, s in self.samples.items() if s}


def hostile(a):
    results = {}
    memory = MemoryWatch({"auth": a.auth_pid, "registration": a.reg_pid})
    memory.thread.start()
    bodies = corpus_bodies(a.corpus)
    normal_latencies, normal_failures, normal_refusals = [], [0], {}
    stop = threading.Event()

    def normal_client():  # a well-behaved caller throughout, with a 2 s deadline
        while not stop.is_set():
            s, e, st, reason, data = request(a.auth_port, "POST", "/mqtt/authz",
                                        json.dumps({"clientid": "normal-1", "username": "", "action": "publish",
                                                    "topic": "devices/normal-1/x", "qos": "0", "retain": "false"}),
                                        {"Content-Type": "application/json"}, 2)
            if st != 200:
                normal_failures[0] += 1
                key = "%s %s" % (st, reason)
                normal_refusals[key] = normal_refusals.get(key, 0) + 1
            normal_latencies.append(e - s)
            time.sleep(0.1)

    normal = threading.Thread(target=normal_client); normal.start()

    # 1. fuzzed bodies to every endpoint
    statuses = {}
    targets = [("authn", a.auth_port, "POST", "/mqtt/authn", {}), ("authz", a.auth_port, "POST", "/mqtt/authz", {}),
               ("reg", a.reg_port, "PUT", None, {"Authorization": "Bearer " + a.token})]
    sent = 0
    refused_ids = []
    for name, port, method, path, headers in targets:
        seeds = bodies.get(name) or [b"{}"]
        for i in range(400):
            body = mutate(random.choice(seeds)) if i % 10 else os.urandom(random.randint(0, 300))
            p = path
            if p is None:
                cid = "chaos-fuzz-%d-%d" % (random.randrange(10**6), i)
                p = "/v1/devices/" + cid
            h = dict(headers); h["Content-Type"] = "application/json"
            _, _, st, _, _ = request(port, method, p, body, h, 10)
            statuses[st] = statuses.get(st, 0) + 1
            sent += 1
            if path is None and st >= 400:
                refused_ids.append(cid)
    for name, port, method, path in (("reg-get", a.reg_port, "GET", "/v1/devices/%s"),
                                     ("reg-delete", a.reg_port, "DELETE", "/v1/devices/%s")):
        for i in range(100):
            cid = "".join(chr(random.randrange(33, 127)) for _ in range(random.randint(1, 40)))
            cid = "".join(c if c not in "/?#% " else "-" for c in cid)
            _, _, st, _, _ = request(port, method, path % cid, None, {"Authorization": "Bearer " + a.token}, 10)
            statuses[st] = statuses.get(st, 0) + 1
            sent += 1
    results["fuzzed_bodies"] = {"sent": sent, "statuses": {str(k): v for k, v in sorted(statuses.items())},
                                "other_5xx": sum(v for k, v in statuses.items() if k >= 500 and k != 503),
                                "refused_ids": refused_ids}

    # 2. many idle TCP connections (bounded), to each service
    idle = []
    for port in (a.auth_port, a.reg_port):
        for _ in range(a.idle // 2):
            try:
                idle.append(socket.create_connection(("127.0.0.1", port), timeout=2))
            except OSError:
                break
    time.sleep(3)
    _, _, st_during_idle, _, _ = request(a.auth_port + MANAGEMENT_OFFSET, "GET", "/q/health/ready", timeout=5)
    results["idle_connections"] = {"requested": a.idle, "opened": len(idle), "ready_while_open": st_during_idle}
    for s in idle:
        s.close()

    # 3. slowloris: clients trickling headers, one byte a second
    slow = []
    for _ in range(100):
        try:
            s = socket.create_connection(("127.0.0.1", random.choice((a.auth_port, a.reg_port))), timeout=2)
            s.send(b"POST /mqtt/authn HTTP/1.1\r\nHost: x\r\n")
            slow.append(s)
        except OSError:
            pass
    for _ in range(6):
        for s in slow:
            try:
                s.send(b"X-a: b\r\n")
            except OSError:
                pass
        time.sleep(1)
    _, _, st_during_slow, _, _ = request(a.auth_port + MANAGEMENT_OFFSET, "GET", "/q/health/ready", timeout=5)
    results["slowloris"] = {"clients": len(slow), "ready_while_trickling": st_during_slow}
    for s in slow:
        s.close()

    # 4. oversized headers
    over = {}
    for size in (8 * 1024, 64 * 1024, 1024 * 1024):
        for port, method, path in ((a.auth_port, "POST", "/mqtt/authn"), (a.reg_port, "PUT", "/v1/devices/chaos-big")):
            _, _, st, _, _ = request(port, method, path, "{}", {"Content-Type": "application/json",
                                                              "X-Big": "a" * size}, 10)
            over[st] = over.get(st, 0) + 1
    results["oversized_headers"] = {"statuses": {str(k): v for k, v in sorted(over.items())},
                                    "five_xx": sum(v for k, v in over.items() if k >= 500)}

    # 5. a flood of wrong bearer tokens, and a right one's latency meanwhile
    flood = {}
    right = []
    flood_end = time.time() + 8

    def wrong():
        while time.time() < flood_end:
            tok = "".join(random.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(40))
            _, _, st, _, _ = request(a.reg_port, "GET", "/v1/devices/chaos-known-0", None,
                                     {"Authorization": "Bearer " + tok}, 5)
            flood[st] = flood.get(st, 0) + 1

    flooders = [threading.Thread(target=wrong) for _ in range(8)]
    for t in flooders: t.start()
    while time.time() < flood_end:
        s, e, st, _, _ = request(a.reg_port, "GET", "/v1/devices/chaos-known-0", None,
                                 {"Authorization": "Bearer " + a.token}, 5)
        right.append((st, e - s))
        time.sleep(0.2)
    for t in flooders: t.join()
    ok = [d for st, d in right if st == 200]
    right_statuses = {}
    for st, _ in right:
        right_statuses[str(st)] = right_statuses.get(str(st), 0) + 1
    results["wrong_bearer_flood"] = {"statuses": {str(k): v for k, v in sorted(flood.items())},
                                     "right_token_statuses": right_statuses,
                                     "right_token_answers": len(right), "right_token_200": len(ok),
                                     "right_token_max_s": round(max(ok), 3) if ok else None}
    stop.set(); normal.join()
    results["normal_client"] = {"requests": len(normal_latencies), "not_200": normal_failures[0],
                                "max_s": round(max(normal_latencies), 3) if normal_latencies else None,
                                "deadline_s": 2.0, "not_200_statuses": normal_refusals}
    results["memory"] = memory.result()
    _, _, a_ready, _, _ = request(a.auth_port + MANAGEMENT_OFFSET, "GET", "/q/health/ready", timeout=5)
    _, _, r_ready, _, _ = request(a.reg_port + MANAGEMENT_OFFSET, "GET", "/q/health/ready", timeout=5)
    results["alive_after"] = {"auth": a_ready, "registration": r_ready}
    json.dump(results, open(a.out, "w"), indent=1)


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("register-known"); r.add_argument("--port", type=int); r.add_argument("--token")
    r.add_argument("--count", type=int); r.add_argument("--password")
    k = sub.add_parser("login-known"); k.add_argument("--port", type=int); k.add_argument("--known")
    h = sub.add_parser("hold-connections"); h.add_argument("--port", type=int); h.add_argument("--count", type=int)
    h.add_argument("--seconds", type=float); h.add_argument("--mark"); h.add_argument("--name")
    b = sub.add_parser("put-burst"); b.add_argument("--port", type=int); b.add_argument("--token")
    b.add_argument("--count", type=int); b.add_argument("--out")
    s = sub.add_parser("login-storm"); s.add_argument("--port", type=int); s.add_argument("--known")
    s.add_argument("--seconds", type=float); s.add_argument("--out"); s.add_argument("--callers", type=int, default=16)
    s.add_argument("--rate", type=float, default=0, help="requests per second in all (0: as fast as the callers can)")
    x = sub.add_parser("hostile"); x.add_argument("--auth-port", type=int); x.add_argument("--reg-port", type=int)
    x.add_argument("--token"); x.add_argument("--corpus"); x.add_argument("--out"); x.add_argument("--idle", type=int, default=5000)
    x.add_argument("--auth-pid", type=int); x.add_argument("--reg-pid", type=int)
    a = ap.parse_args()
    if os.environ.get("CHAOS_ARGS_ONLY"):  # ChaosArgumentsTest: chaos.sh's arguments, parsed and nothing else
        print(json.dumps(vars(a)))
        return
    {"register-known": register_known, "login-known": login_known, "hold-connections": hold_connections,
     "put-burst": put_burst, "login-storm": login_storm, "hostile": hostile}[a.cmd](a)


if __name__ == "__main__":
    main()
