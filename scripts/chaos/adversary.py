#!/usr/bin/env python3
"""The adversary phase of `make chaos` (standard library only; loopback only, bounded in count and time).

First, with --warm-seconds, new devices log in cold for that long, unjudged (kind "warm"): a service started moments
ago hashes slower while its JIT compiles, which would make the quiet spell's capacity too low. Then, while the known
devices reconnect (fast path, each from its own address) and new devices log in for the first time (cold: a bcrypt
each), hostile peers, each phase in turn:
  lockout  guess passwords for the first --victims known devices from other addresses (the victims keep logging in;
           the first --cold-victims of them have had their verifier removed, so their next login is a cold check)
  spray    wrong passwords over --spray-count registered ids (--spray-prefix N) from a few addresses, after a quiet
           spell that measures the cold logins' capacity without it
  flood    invented, well-formed client ids at --flood-rate a second from 256 addresses
  expensive wrong passwords for --expensive-count registered rows of bcrypt cost 14 (--expensive-prefix N, 16 x a
           cost-10 check each) from four addresses for --expensive-seconds, while a process on auth-service's CPUs
           (--contention-cpus) keeps them busy --contention-duty of the time: the contention under which such hashes
           took 7-8 s of wall time instead of 1.5 and once drove admission's estimate past the deadline for good;
           the cold logins pause meanwhile (as when the attack was found) and come back for --recovery-seconds,
           in which they must be back at their capacity
Every answer is recorded in --out (JSON lines): {"k": kind, "t", "d", "status", "result", "reason", "id"}, kinds
known, victim, cold, warm, attack, spray, expensive; the flood as one line a second {"k": "flood", "t", "sent", "statuses"}; and the
phases as {"k": "mark", "event", "t"} (the quiet spell's and each attack's with "hashes", auth-service's bcrypt count). scripts/chaos/analyse.py judges them (--adversary).
"""
import argparse, http.client, json, os, random, shlex, socket, subprocess, sys, threading, time

# Health and metrics are on the services' management interface, the main port + 1000 by default (docs/configuration.md).
MANAGEMENT_OFFSET = 1000
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The metrics are read by the load generator (`loadtest metrics`: the repository's one Prometheus parser).
LOADTEST = "java -Xmx64m -XX:TieredStopAtLevel=1 -jar " + os.path.join(ROOT, "loadtest", "target", "loadtest.jar")


class Recorder:
    def __init__(self, path):
        self.out = open(path, "a", buffering=1)
        self.lock = threading.Lock()

    def write(self, row):
        with self.lock:
            self.out.write(json.dumps(row) + "\n")

    def mark(self, event, **figures):
        self.write(dict({"k": "mark", "event": event, "t": time.time()}, **figures))


def hashes(port, loadtest=None):
    """bcrypt checks auth-service has made so far (its identity_bcrypt_duration_seconds count), None if unreadable:
    the spray's marks carry it, so that what the sprayers took of bcrypt is measured, not inferred."""
    command = shlex.split(loadtest or LOADTEST) + [
        "metrics", "http://127.0.0.1:%d/q/metrics" % (port + MANAGEMENT_OFFSET), "identity_bcrypt_duration_seconds_count"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        return float(done.stdout.split()[0]) if done.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError):
        return None


def authn(conn_holder, port, cid, password, peer, timeout=10):
    """One EMQX-shaped authn call on a kept-alive connection; returns (start, duration, status, result, reason)."""
    body = json.dumps({"clientid": cid, "username": "", "password": password, "peerhost": peer,
                       "cert_common_name": ""})
    start = time.time()
    try:
        if conn_holder[0] is None:
            conn_holder[0] = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        c = conn_holder[0]
        c.request("POST", "/mqtt/authn", body=body, headers={"Content-Type": "application/json"})
        r = c.getresponse()
        data = r.read()
        parsed = json.loads(data) if data.startswith(b"{") else {}
        return start, time.time() - start, r.status, parsed.get("result", ""), parsed.get("reason", "")
    except Exception as e:
        conn_holder[0] = None
        return start, time.time() - start, -1, "", type(e).__name__


def paced(stop, rate, callers, work):
    """`callers` threads calling work(n, i) at `rate` calls a second in all until stop is set."""
    period = callers / rate

    def caller(n):
        due, i = time.time() + period * n / callers, 0
        while not stop.is_set():
            pause = due - time.time()
            if pause > 0:
                time.sleep(pause)
            due += period
            work(n, i)
            i += 1

    threads = [threading.Thread(target=caller, args=(n,), daemon=True) for n in range(callers)]
    for t in threads:
        t.start()
    return threads


def timed_phase(a, rec, name, stop, rate, callers, one, seconds=None):
    """One attack between its start and end marks (with auth-service's bcrypt count): `callers` threads pacing one()
    at `rate` for `seconds` (--phase-seconds)."""
    rec.mark(name + "-start", hashes=hashes(a.port, a.loadtest))
    threads = paced(stop, rate, callers, one)
    time.sleep(a.phase_seconds if seconds is None else seconds)
    stop.set()
    for t in threads:
        t.join()
    rec.mark(name + "-end", hashes=hashes(a.port, a.loadtest))


def address(net, n):
    return "%s.%d.%d" % (net, (n // 250) % 250, n % 250 + 1)


def fleet(a, rec, known, stop):
    """Known devices reconnecting on the fast path, each from its own address; victims are marked."""
    conns = {}

    def one(n, i):
        k = random.randrange(len(known))
        cid, pw = known[k]
        holder = conns.setdefault(n, [None])
        s, d, st, res, reason = authn(holder, a.port, cid, pw, address("10.10", k))
        rec.write({"k": "victim" if k < a.victims else "known", "t": s, "d": d, "status": st, "result": res,
                   "reason": reason, "id": cid})

    return paced(stop, a.known_rate, 8, one)


def cold_logins(a, rec, cold, stop, cursor, kind="cold"):
    """New devices logging in for the first time (a bcrypt each), closed loop, each from its own address. A device
    refused "not now" (503, or no answer) tries again with the same credential after a short back-off, as a device
    reconnecting does: the population is used up by decisions only, so it lasts the whole phase and every login in
    it is a cold one. `cursor` ({"next": index, "lock": Lock}) is shared by every call, so that no device logs in
    cold twice (the warm-up's devices are known afterwards)."""
    nxt = cursor["next"]  # a one-element list, shared
    lock = cursor["lock"]

    def caller(n):
        holder = [None]
        k = None
        while not stop.is_set():
            if k is None:
                with lock:
                    k = nxt[0]
                    nxt[0] += 1
            if k >= len(cold):
                return
            cid, pw = cold[k]
            s, d, st, res, reason = authn(holder, a.port, cid, pw, address("10.20", k))
            rec.write({"k": kind, "t": s, "d": d, "status": st, "result": res, "reason": reason, "id": cid})
            if st == 200:
                k = None
            else:
                time.sleep(0.05)  # a refused device backs off a little

    threads = [threading.Thread(target=caller, args=(n,), daemon=True) for n in range(a.cold_callers)]
    for t in threads:
        t.start()
    return threads


def lockout(a, rec, known):
    """Wrong passwords for the victims from five other addresses."""
    stop = threading.Event()
    conns = {}

    def one(n, i):
        k = i % a.victims
        cid = known[k][0]
        holder = conns.setdefault(n, [None])
        s, d, st, res, reason = authn(holder, a.port, cid, "guess-%d-%d" % (n, i), "10.66.0.%d" % (n % 5 + 1))
        rec.write({"k": "attack", "t": s, "d": d, "status": st, "result": res, "reason": reason, "id": cid})

    timed_phase(a, rec, "lockout", stop, a.attack_rate, 5, one)


def wrong_passwords(a, rec, kind, prefix, count, net, rate, seconds=None):
    """Wrong passwords over `count` registered ids (`prefix` N) from four addresses (`net`.1-4), paced at `rate`, as
    the phase `kind`."""
    stop = threading.Event()
    conns = {}

    def one(n, i):
        k = (n + i * 4) % count
        cid = "%s%d" % (prefix, k)
        holder = conns.setdefault(n, [None])
        s, d, st, res, reason = authn(holder, a.port, cid, "%s-guess-%d-%d" % (kind, n, i), "%s.%d" % (net, n % 4 + 1))
        rec.write({"k": kind, "t": s, "d": d, "status": st, "result": res, "reason": reason, "id": cid})

    timed_phase(a, rec, kind, stop, rate, 4, one, seconds)


def spray(a, rec):
    wrong_passwords(a, rec, "spray", a.spray_prefix, a.spray_count, "10.77.0", a.spray_rate)


def flood(a, rec, peer=None):
    """Invented ids, pipelined on raw kept-alive connections (Python's http.client cannot send thousands a second),
    from 256 addresses (or peer(sender, i)'s); one record a second with what was sent and the statuses that came
    back."""
    stop = threading.Event()
    counts = {"sent": 0, "statuses": {}}
    lock = threading.Lock()
    senders = 8
    per_tick = max(1, int(a.flood_rate * 0.05 / senders))  # requests per sender per 50 ms

    def sender(n):
        sock, buf = None, b""
        tick = time.time()
        i = 0
        while not stop.is_set():
            pause = tick - time.time()
            if pause > 0:
                time.sleep(pause)
            tick += 0.05
            try:
                if sock is None:
                    sock = socket.create_connection(("127.0.0.1", a.port), timeout=10)
                    buf = b""
                out = []
                for _ in range(per_tick):
                    i += 1
                    body = json.dumps({"clientid": "invented-%d-%d-%d" % (os.getpid(), n, i), "username": "",
                                       "password": "x",
                                       "peerhost": peer(n, i) if peer else "10.99.%d.%d" % (n, i % 32 + 1),
                                       "cert_common_name": ""}).encode()
                    out.append(b"POST /mqtt/authn HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                               b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
                sock.sendall(b"".join(out))
                with lock:
                    counts["sent"] += per_tick
                got = 0
                while got < per_tick:
                    head_end = buf.find(b"\r\n\r\n")
                    if head_end < 0:
                        chunk = sock.recv(65536)
                        if not chunk:
                            raise ConnectionError("closed")
                        buf += chunk
                        continue
                    head = buf[:head_end].decode("latin-1")
                    length = 0
                    for line in head.split("\r\n")[1:]:
                        if line.lower().startswith("content-length:"):
                            length = int(line.split(":", 1)[1])
                    if len(buf) < head_end + 4 + length:
                        chunk = sock.recv(65536)
                        if not chunk:
                            raise ConnectionError("closed")
                        buf += chunk
                        continue
                    status = head.split(" ", 2)[1]
                    buf = buf[head_end + 4 + length:]
                    got += 1
                    with lock:
                        counts["statuses"][status] = counts["statuses"].get(status, 0) + 1
            except Exception as e:
                with lock:
                    counts["statuses"][type(e).__name__] = counts["statuses"].get(type(e).__name__, 0) + 1
                try:
                    sock.close()
                except Exception:
                    pass
                sock = None

    def reporter():
        while not stop.is_set():
            time.sleep(1)
            with lock:
                rec.write({"k": "flood", "t": time.time(), "sent": counts["sent"], "statuses": counts["statuses"]})
                counts["sent"], counts["statuses"] = 0, {}

    rec.mark("flood-start")
    threads = [threading.Thread(target=sender, args=(n,), daemon=True) for n in range(senders)]
    threads.append(threading.Thread(target=reporter, daemon=True))
    for t in threads:
        t.start()
    time.sleep(a.phase_seconds)
    stop.set()
    for t in threads:
        t.join(timeout=15)
    rec.mark("flood-end")


def cpus(spec):
    """The CPUs of a taskset-style list ("0", "0,2", "0-1"); empty: every CPU."""
    chosen = set()
    for part in filter(None, spec.split(",")):
        low, _, high = part.partition("-")
        chosen.update(range(int(low), int(high or low) + 1))
    return chosen


def contention(a, seconds):
    """A child process on --contention-cpus, busy --contention-duty of every 100 ms for `seconds`: work of another
    tenant of those cores, which a SCHED_IDLE bcrypt thread yields to. Returns its pid."""
    pid = os.fork()
    if pid:
        return pid
    try:
        if cpus(a.contention_cpus):
            os.sched_setaffinity(0, cpus(a.contention_cpus))
        end = time.time() + seconds
        while time.time() < end:
            busy_until = time.time() + 0.1 * a.contention_duty
            while time.time() < busy_until:
                pass
            time.sleep(0.1 * (1 - a.contention_duty))
    finally:
        os._exit(0)


def expensive(a, rec):
    """Wrong passwords for the expensive rows from four addresses, under contention."""
    busy = contention(a, a.expensive_seconds)
    try:
        wrong_passwords(a, rec, "expensive", a.expensive_prefix, a.expensive_count, "10.88.0", a.expensive_rate,
                        a.expensive_seconds)
    finally:
        os.waitpid(busy, 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--loadtest", default=LOADTEST, help="the command that runs the load generator (reads the metrics)")
    ap.add_argument("--known", required=True, help='"clientid password" lines of devices with a verifier')
    ap.add_argument("--cold", required=True, help='"clientid password" lines of registered devices that never logged'
                    ' in, used by nothing else (the spray\'s legitimate cold logins)')
    ap.add_argument("--out", required=True)
    ap.add_argument("--victims", type=int, default=50)
    ap.add_argument("--spray-prefix", default="chaos-spray-")
    ap.add_argument("--spray-count", type=int, default=2000)
    ap.add_argument("--spray-rate", type=float, default=150)
    ap.add_argument("--attack-rate", type=float, default=100)
    ap.add_argument("--flood-rate", type=float, default=3000)
    ap.add_argument("--expensive-prefix", default="chaos-expensive-")
    ap.add_argument("--expensive-count", type=int, default=0, help="rows of bcrypt cost 14; 0: no such phase")
    ap.add_argument("--expensive-rate", type=float, default=40)
    ap.add_argument("--expensive-seconds", type=float, default=40)
    ap.add_argument("--contention-cpus", default="", help="auth-service's CPUs (taskset list); empty: any")
    ap.add_argument("--contention-duty", type=float, default=0.8)
    ap.add_argument("--recovery-seconds", type=float, default=32,
                    help="cold logins alone after the expensive rows' attack (the verdict looks at its first 30 s)")
    ap.add_argument("--known-rate", type=float, default=100)
    ap.add_argument("--cold-callers", type=int, default=6)
    ap.add_argument("--phase-seconds", type=float, default=12)
    ap.add_argument("--quiet-seconds", type=float, default=8, help="cold logins alone before the spray")
    ap.add_argument("--warm-seconds", type=float, default=0,
                    help="cold logins before anything else, not judged: a service started moments ago warms up")
    a = ap.parse_args()
    if os.environ.get("CHAOS_ARGS_ONLY"):  # ChaosArgumentsTest: chaos.sh's arguments, parsed and nothing else
        print(json.dumps(vars(a)))
        return
    if min(a.phase_seconds, a.quiet_seconds, a.warm_seconds, a.expensive_seconds, a.recovery_seconds) < 0 \
            or max(a.phase_seconds, a.warm_seconds, a.expensive_seconds, a.recovery_seconds) > 60 or a.flood_rate > 5000 \
            or not 0 <= a.contention_duty <= 0.9:
        sys.exit("bounded on purpose: at most 60 s a phase, 5000 invented ids a second and a contention duty of 0.9")
    known = [line.split() for line in open(a.known) if line.strip()]
    cold = [line.split() for line in open(a.cold) if line.strip()]
    if len(known) <= a.victims:
        sys.exit("need more known devices than victims")
    rec = Recorder(a.out)
    stop = threading.Event()
    cursor = {"next": [0], "lock": threading.Lock()}
    rec.mark("start")
    if a.warm_seconds > 0:
        # A service started moments ago hashes slower while its JIT compiles: without this, the quiet spell's
        # capacity (the spray verdict's denominator) would be too low and every ratio would look better.
        rec.mark("warm-start", hashes=hashes(a.port, a.loadtest))
        warm_stop = threading.Event()
        warm = cold_logins(a, rec, cold, warm_stop, cursor, kind="warm")
        time.sleep(a.warm_seconds)
        warm_stop.set()
        for t in warm:
            t.join(timeout=15)
        rec.mark("warm-end", hashes=hashes(a.port, a.loadtest))
    background = fleet(a, rec, known, stop)
    time.sleep(2)
    lockout(a, rec, known)
    rec.mark("quiet-start", hashes=hashes(a.port, a.loadtest))
    cold_stop = threading.Event()
    coming = cold_logins(a, rec, cold, cold_stop, cursor)
    time.sleep(a.quiet_seconds)
    spray(a, rec)
    time.sleep(2)
    flood(a, rec)
    time.sleep(2)
    if a.expensive_count > 0:
        # As the attack was found: the expensive rows' guesses alone, then correct cold logins.
        cold_stop.set()
        for t in coming:
            t.join(timeout=15)
        expensive(a, rec)
        cold_stop = threading.Event()
        coming = cold_logins(a, rec, cold, cold_stop, cursor)
        time.sleep(a.recovery_seconds)
        rec.mark("recovery-end", hashes=hashes(a.port, a.loadtest))
    cold_stop.set()
    background += coming
    stop.set()
    for t in background:
        t.join(timeout=15)
    rec.mark("end")


if __name__ == "__main__":
    main()
