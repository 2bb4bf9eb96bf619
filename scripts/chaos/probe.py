#!/usr/bin/env python3
"""Steady mixed load for `make chaos`, recording every answer as one JSON line.

auth:  known devices reconnecting (must be allowed) and new, unknown devices logging in (denied), POST /mqtt/authn.
reg:   a stream of PUT, PUT again, DELETE per client id against registration-service; every answer is recorded
       with the id, so the analysis can check that each acknowledged write is (or is no longer) stored.
Stops when the file named by --stop exists. Standard library only.
"""
import argparse, http.client, json, os, random, threading, time


# Health is on each service's management interface, by default its main port + 1000 (identity-core
# ManagementSettings; chaos.sh leaves IDENTITY_MANAGEMENT_PORT unset).
MANAGEMENT_OFFSET = 1000

def post(conn_box, host, port, method, path, body, headers, timeout):
    """One request; a failure's reason names the exception and the stage it happened in: "send" (connecting or
    writing the request), "await" (no status line came back) or "body" (cut in the middle of an answer)."""
    start = time.time()
    stage = "send"
    try:
        if conn_box[0] is None:
            conn_box[0] = http.client.HTTPConnection(host, port, timeout=timeout)
        conn = conn_box[0]
        conn.request(method, path, body=body, headers=headers)
        stage = "await"
        resp = conn.getresponse()
        stage = "body"
        data = resp.read()
        reason = ""
        if resp.status >= 400:
            try:
                parsed = json.loads(data)
                reason = parsed.get("reason", "")
                if "circuit is open" in parsed.get("message", ""):
                    reason += "+circuit_open"
            except Exception:
                reason = "non-json"
        result = ""
        if resp.status == 200 and path.startswith("/mqtt/"):
            try:
                result = json.loads(data).get("result", "")
            except Exception:
                result = "non-json"
        if resp.getheader("Connection", "").lower() == "close":
            conn.close(); conn_box[0] = None
        return start, time.time(), resp.status, reason, result
    except Exception as e:  # connection refused/reset, timeout: no answer
        if conn_box[0] is not None:
            conn_box[0].close()
        conn_box[0] = None
        return start, time.time(), -1, "%s@%s" % (type(e).__name__, stage), ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--auth-port", type=int, required=True)
    ap.add_argument("--reg-port", type=int, required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--known", required=True, help="file: one 'clientid password' per line")
    ap.add_argument("--out", required=True)
    ap.add_argument("--stop", required=True)
    ap.add_argument("--auth-threads", type=int, default=4)
    ap.add_argument("--reg-threads", type=int, default=2)
    ap.add_argument("--interval", type=float, default=0.05)
    args = ap.parse_args()
    if os.environ.get("CHAOS_ARGS_ONLY"):  # ChaosArgumentsTest: chaos.sh's arguments, parsed and nothing else
        print(json.dumps(vars(args)))
        return
    known = [line.split() for line in open(args.known) if line.strip()]
    out = open(args.out, "a", buffering=1)
    lock = threading.Lock()

    def record(**event):
        with lock:
            out.write(json.dumps(event) + "\n")

    def auth_worker(n):
        box = [None]
        i = 0
        while not os.path.exists(args.stop):
            i += 1
            if i % 4:
                cid, pw = random.choice(known); kind = "known"
            else:
                cid, pw = "chaos-new-%d-%d-%d" % (n, i, random.randrange(10**9)), "new-device-password"; kind = "new"
            body = json.dumps({"clientid": cid, "username": "", "password": pw, "peerhost": "127.0.0.1"})
            s, e, st, reason, result = post(box, "127.0.0.1", args.auth_port, "POST", "/mqtt/authn", body,
                                            {"Content-Type": "application/json"}, 10)
            record(w="auth", kind=kind, t=s, d=e - s, status=st, reason=reason, result=result)
            time.sleep(args.interval)

    def reg_worker(n):
        box = [None]
        i = 0
        headers = {"Content-Type": "application/json", "Authorization": "Bearer " + args.token}
        while not os.path.exists(args.stop):
            i += 1
            cid = "chaos-reg-%d-%d-%d" % (n, i, random.randrange(10**6))
            for op in ("PUT", "PUT", "DELETE"):
                body = json.dumps({"password": "chaos-registration-pw-%d" % i}) if op == "PUT" else None
                s, e, st, reason, _ = post(box, "127.0.0.1", args.reg_port, op, "/v1/devices/" + cid, body, headers, 10)
                record(w="reg", op=op, id=cid, t=s, d=e - s, status=st, reason=reason)
                if op == "PUT" and not 200 <= st < 300:
                    break  # not stored (or not known to be): leave this id as it is
            time.sleep(args.interval)

    def readiness(service, port):
        """What a Kubernetes readiness probe would see, every 100 ms: when an instance stops being ready."""
        box = [None]
        while not os.path.exists(args.stop):
            s, e, st, reason, _ = post(box, "127.0.0.1", port + MANAGEMENT_OFFSET, "GET", "/q/health/ready", None, {}, 1)
            record(w="ready", svc=service, t=s, d=e - s, status=st, reason=reason)
            if box[0] is not None:
                box[0].close(); box[0] = None
            time.sleep(0.1)

    threads = [threading.Thread(target=readiness, args=("auth", args.auth_port), daemon=True),
               threading.Thread(target=readiness, args=("reg", args.reg_port), daemon=True)]
    threads += [threading.Thread(target=auth_worker, args=(n,), daemon=True) for n in range(args.auth_threads)]
    threads += [threading.Thread(target=reg_worker, args=(n,), daemon=True) for n in range(args.reg_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


if __name__ == "__main__":
    main()
