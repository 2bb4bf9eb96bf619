#!/usr/bin/env python3
"""The failover phase's own callers (`CHAOS_ONLY=failover make chaos`), beside probe.py's load and the login storm.

revoked:  devices revoked (DELETE answered 204) before the leader is killed, each presenting its right password, the
          one that once stored a fast-path verifier: every answer must be a deny, before, during and after the failover.
cold:     devices registered and never logged in, each tried once with its right password (a bcrypt): the first one
          allowed after a kill is when cold logins work again.
Every answer is one JSON line (k = revoked | cold). Stops when the file named by --stop exists. Standard library only.
"""
import argparse, http.client, json, os, threading, time


def call(box, port, cid, password, timeout):
    start = time.time()
    try:
        if box[0] is None:
            box[0] = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        box[0].request("POST", "/mqtt/authn", body=json.dumps({"clientid": cid, "username": "", "password": password,
                       "peerhost": "127.0.0.1", "cert_common_name": ""}), headers={"Content-Type": "application/json"})
        r = box[0].getresponse()
        data = r.read()
        reason = result = ""
        try:
            parsed = json.loads(data)
            result = parsed.get("result", "") if r.status == 200 else ""
            reason = parsed.get("reason", "") if r.status != 200 else ""
            if "circuit is open" in parsed.get("message", ""):
                reason += "+circuit_open"
        except ValueError:
            reason = "non-json"
        return start, time.time(), r.status, reason, result
    except Exception as e:  # refused, reset, timeout: no answer
        if box[0] is not None:
            box[0].close()
        box[0] = None
        return start, time.time(), -1, type(e).__name__, ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--revoked", required=True, help="file: one 'clientid password' per line")
    ap.add_argument("--cold", required=True, help="file: one 'clientid password' per line, never logged in")
    ap.add_argument("--out", required=True)
    ap.add_argument("--stop", required=True)
    ap.add_argument("--revoked-rate", type=float, default=20.0, help="attempts a second by revoked devices")
    ap.add_argument("--cold-rate", type=float, default=4.0, help="cold logins a second")
    a = ap.parse_args()
    if os.environ.get("CHAOS_ARGS_ONLY"):  # ChaosArgumentsTest: chaos.sh's arguments, parsed and nothing else
        print(json.dumps(vars(a)))
        return
    revoked = [line.split() for line in open(a.revoked) if line.strip()]
    cold = [line.split() for line in open(a.cold) if line.strip()]
    out = open(a.out, "a", buffering=1)
    lock = threading.Lock()

    def record(**e):
        with lock:
            out.write(json.dumps(e) + "\n")

    def paced(kind, devices, rate, once):
        box, i, interval = [None], 0, 1.0 / rate
        while not os.path.exists(a.stop) and (not once or i < len(devices)):
            began = time.time()
            cid, password = devices[i % len(devices)]
            i += 1
            s, e, status, reason, result = call(box, a.port, cid, password, 10)
            record(k=kind, id=cid, t=s, d=e - s, status=status, reason=reason, result=result)
            time.sleep(max(0.0, interval - (time.time() - began)))

    threads = [threading.Thread(target=paced, args=("revoked", revoked, a.revoked_rate, False), daemon=True),
               threading.Thread(target=paced, args=("cold", cold, a.cold_rate, True), daemon=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


if __name__ == "__main__":
    main()
