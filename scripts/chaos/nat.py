#!/usr/bin/env python3
"""The NAT phase of `make chaos` (CHAOS_ONLY=nat; standard library only, loopback only, bounded in count and time):
many devices behind one address, as a carrier-grade NAT puts them, each scenario from an address of its own.

  attacker  10 wrong passwords for one registered id and 20 invented ids, then wrong passwords for that id at 2 a
            second, while 10 devices that never logged in (cold: a bcrypt each) log in with their right passwords
            from the same address, each retrying a refusal after 1 s, as a reconnecting device does
  stale     a reconnect storm behind one address: --stale-devices devices that never logged in, 5 % of them with a
            stale password (retrying every 2 s for the whole scenario), the others logging in once, 8 at a time
  flood     invented ids at --flood-rate a second from one address, while devices with a verifier (fast path), each
            connected once before, log in from that address and from their own, 50 a second

Every answer goes to --out (JSON lines, {"k", "t", "d", "status", "result", "reason", "id"}); the figures are printed
as one JSON object, and the promises as PASS/FAIL lines: in "attacker" all 10 devices in within 30 s, in "flood" at
least 99 % of the fast-path logins allowed within 5 s. Exits 1 when one is broken.
"""
import argparse, json, os, queue, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from adversary import Recorder, authn, flood, hashes  # noqa: E402

RETRY_SECONDS = 1.0
STALE_RETRY_SECONDS = 2.0


def reasons(rows):
    out = {}
    for r in rows:
        if r["result"] != "allow":
            key = "%s %s" % (r["status"], r["reason"] or r["result"] or "-")
            out[key] = out.get(key, 0) + 1
    return out


def log_in_until_allowed(a, rec, kind, devices, peer, deadline, callers, t0):
    """Each device logs in until allowed (a refusal, 503 or deny, is retried after RETRY_SECONDS) or the deadline;
    returns {client id: seconds from t0 to its allow}."""
    todo = queue.Queue()
    for d in devices:
        todo.put(d)
    got = {}
    lock = threading.Lock()

    def caller():
        holder = [None]
        while time.time() < deadline:
            try:
                cid, pw, not_before = todo.get_nowait()
            except queue.Empty:
                return
            pause = not_before - time.time()
            if pause > 0:
                time.sleep(min(pause, max(0, deadline - time.time())))
            s, d, st, res, reason = authn(holder, a.port, cid, pw, peer)
            rec.write({"k": kind, "t": s, "d": d, "status": st, "result": res, "reason": reason, "id": cid})
            if st == 200 and res == "allow":
                with lock:
                    got[cid] = s + d - t0
            else:
                todo.put((cid, pw, time.time() + RETRY_SECONDS))

    threads = [threading.Thread(target=caller, daemon=True) for _ in range(callers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=max(1, deadline - time.time() + 15))
    return got


def attacker(a, rec, cold, target):
    peer = "10.55.1.1"
    holder = [None]
    rec.mark("attacker-start", hashes=hashes(a.port))
    for i in range(10):
        authn(holder, a.port, target, "attacker-guess-%d" % i, peer)
    for i in range(20):
        authn(holder, a.port, "invented-nat-%d-%d" % (os.getpid(), i), "x", peer)
    stop = threading.Event()

    def keep_guessing():
        h, i = [None], 10
        while not stop.is_set():
            s, d, st, res, reason = authn(h, a.port, target, "attacker-guess-%d" % i, peer)
            rec.write({"k": "nat-attack", "t": s, "d": d, "status": st, "result": res, "reason": reason,
                       "id": target})
            i += 1
            stop.wait(0.5)

    guesser = threading.Thread(target=keep_guessing, daemon=True)
    guesser.start()
    t0 = time.time()
    devices = [(cid, pw, 0) for cid, pw in cold[:10]]
    got = log_in_until_allowed(a, rec, "nat-cold", devices, peer, t0 + a.seconds, 10, t0)
    stop.set()
    guesser.join(timeout=5)
    rec.mark("attacker-end", hashes=hashes(a.port))
    return {"devices": len(devices), "in": len(got), "in_within_30s": sum(1 for v in got.values() if v <= 30),
            "last_in_s": round(max(got.values()), 1) if got else None}


def stale(a, rec, cold):
    peer = "10.55.2.1"
    devices = cold[:a.stale_devices]
    n_stale = max(1, len(devices) // 20)
    stale_ids, good = devices[:n_stale], devices[n_stale:]
    stop = threading.Event()
    rec.mark("stale-start", hashes=hashes(a.port))

    def retrying(cid):
        h, i = [None], 0
        while not stop.is_set():
            s, d, st, res, reason = authn(h, a.port, cid, "stale-password-%d" % i, peer)
            rec.write({"k": "nat-stale", "t": s, "d": d, "status": st, "result": res, "reason": reason, "id": cid})
            i += 1
            stop.wait(STALE_RETRY_SECONDS)

    t0 = time.time()
    stale_threads = [threading.Thread(target=retrying, args=(cid,), daemon=True) for cid, _ in stale_ids]
    for t in stale_threads:
        t.start()
    got = log_in_until_allowed(a, rec, "nat-storm", [(cid, pw, 0) for cid, pw in good], peer, t0 + a.seconds, 8,
                               t0)
    stop.set()
    for t in stale_threads:
        t.join(timeout=5)
    rec.mark("stale-end", hashes=hashes(a.port))
    times = sorted(got.values())
    return {"devices": len(devices), "stale": n_stale, "correct": len(good), "in": len(got),
            "in_within_10s": sum(1 for v in times if v <= 10), "in_within_30s": sum(1 for v in times if v <= 30),
            "last_in_s": round(times[-1], 1) if times else None}


def flood_share(a, rec, known):
    peer = "10.55.3.1"
    stop = threading.Event()
    rows = []
    lock = threading.Lock()

    def fleet(n):
        h, i = [None], 0
        period = 4 / 50.0
        due = time.time()
        while not stop.is_set():
            cid, pw = known[(n + 4 * i) % len(known)]
            from_nat = i % 2 == 0
            s, d, st, res, reason = authn(h, a.port, cid, pw, peer if from_nat else "10.56.%d.%d" % (n, i % 250 + 1))
            row = {"k": "nat-known" if from_nat else "own-known", "t": s, "d": d, "status": st, "result": res,
                   "reason": reason, "id": cid}
            rec.write(row)
            with lock:
                rows.append(row)
            i += 1
            due += period
            pause = due - time.time()
            if pause > 0:
                time.sleep(pause)

    # Every known device connects once first, from the NAT: a replica decides an id it has read as existing on the
    # fast path whatever its address spent, and one that has not (just restarted) as an invented one.
    h = [None]
    for cid, pw in known:
        authn(h, a.port, cid, pw, peer)
    args = argparse.Namespace(port=a.port, flood_rate=a.flood_rate, phase_seconds=a.flood_seconds)
    threads = [threading.Thread(target=fleet, args=(n,), daemon=True) for n in range(4)]
    for t in threads:
        t.start()
    time.sleep(1)
    flood(args, rec, peer=lambda n, i: peer)
    stop.set()
    for t in threads:
        t.join(timeout=15)
    start = [r["t"] for r in load(a.out) if r.get("event") == "flood-start"][-1]
    end = [r["t"] for r in load(a.out) if r.get("event") == "flood-end"][-1]
    sent = sum(r["sent"] for r in load(a.out) if r.get("k") == "flood" and start <= r["t"] <= end + 1)
    during = [r for r in rows if start <= r["t"] <= end]
    out = {"flood_rate": round(sent / max(1e-9, end - start)), "seconds": round(end - start, 1)}
    for kind in ("nat-known", "own-known"):
        mine = [r for r in during if r["k"] == kind]
        ok = sum(1 for r in mine if r["result"] == "allow" and r["d"] <= 5)
        out[kind] = {"logins": len(mine), "allowed_within_5s": ok,
                     "share": round(ok / len(mine), 4) if mine else None, "refused": reasons(mine)}
    return out


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--known", required=True, help='"clientid password" lines of devices with a verifier')
    ap.add_argument("--cold", required=True, help='"clientid password" lines of registered devices that never logged'
                    ' in; the first is the attacker\'s target, the next 10 its neighbours, the rest the storm\'s')
    ap.add_argument("--out", required=True)
    ap.add_argument("--scenarios", default="attacker,stale,flood")
    ap.add_argument("--seconds", type=float, default=60, help="how long a scenario's devices keep trying")
    ap.add_argument("--stale-devices", type=int, default=100)
    ap.add_argument("--flood-rate", type=float, default=3000)
    ap.add_argument("--flood-seconds", type=float, default=12)
    a = ap.parse_args()
    if os.environ.get("CHAOS_ARGS_ONLY"):  # ChaosArgumentsTest: chaos.sh's arguments, parsed and nothing else
        print(json.dumps(vars(a)))
        return
    if a.seconds > 120 or a.flood_seconds > 60 or a.flood_rate > 5000 or a.stale_devices > 1000:
        sys.exit("bounded on purpose: at most 120 s a scenario, 1000 devices, 60 s of flood at 5000 ids a second")
    known = [line.split() for line in open(a.known) if line.strip()]
    cold = [line.split() for line in open(a.cold) if line.strip()]
    if len(cold) < 11 + a.stale_devices:
        sys.exit("need %d cold devices" % (11 + a.stale_devices))
    rec = Recorder(a.out)
    figures = {}
    scenarios = a.scenarios.split(",")
    if "attacker" in scenarios:
        figures["attacker"] = attacker(a, rec, cold[1:11], cold[0][0])
        time.sleep(2)
    if "stale" in scenarios:
        figures["stale"] = stale(a, rec, cold[11:])
        time.sleep(2)
    if "flood" in scenarios:
        figures["flood"] = flood_share(a, rec, known)
    print(json.dumps(figures, indent=1))
    broken = False
    if "attacker" in figures:
        ok = figures["attacker"]["in_within_30s"] == figures["attacker"]["devices"]
        broken |= not ok
        print("%s nat attacker: %d of %d cold devices behind the attacker's address in within 30 s" % (
            "PASS" if ok else "FAIL", figures["attacker"]["in_within_30s"], figures["attacker"]["devices"]))
    if "flood" in figures:
        for kind in ("nat-known", "own-known"):
            share = figures["flood"][kind]["share"]
            ok = share is not None and share >= 0.99
            broken |= not ok
            print("%s nat flood: %s fast-path logins allowed within 5 s: %s (goal 0.99)" % (
                "PASS" if ok else "FAIL", kind, share))
    sys.exit(1 if broken else 0)


if __name__ == "__main__":
    main()
