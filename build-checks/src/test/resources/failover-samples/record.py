#!/usr/bin/env python3
"""Records a `CHAOS_ONLY=failover make chaos` run as FailoverVerdictTest's samples: pass-run, and each fail-* sample
as one defect laid over it (files that replace the run's, NAME.append files that add lines, and expected-failure).

    python3 build-checks/src/test/resources/failover-samples/record.py [target/chaos] [.local/chaos]

The run's own verdict is recorded beside it (pass-run/broken: the promises it broke, if any). The large files are stored gzip-compressed; the run's secrets list is
recorded too (random values of that run only; the recorded logs must not contain them).
"""
import gzip, json, os, shutil, sys

HERE = os.path.dirname(os.path.abspath(__file__))
out_dir = sys.argv[1] if len(sys.argv) > 1 else "target/chaos"
stack_dir = sys.argv[2] if len(sys.argv) > 2 else ".local/chaos"
run = os.path.join(HERE, "pass-run")


def gz(src, dst):
    with open(src, "rb") as f, gzip.GzipFile(dst + ".gz", "wb", mtime=0) as g:
        g.write(f.read())


def jsonl(path):
    return [json.loads(l) for l in open(path) if l.strip()]


def line(**e):
    return json.dumps(e) + "\n"


def sample(name, expected, files):
    d = os.path.join(HERE, name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    open(os.path.join(d, "expected-failure"), "w").write(expected + "\n")
    for rel, content in files.items():
        open(os.path.join(d, rel), "w").write(content)


if os.path.isdir(run):
    shutil.rmtree(run)
os.makedirs(os.path.join(run, "logs"))
for name in ("events.jsonl", "storm.jsonl", "failover.jsonl", "rows.txt"):
    gz(os.path.join(out_dir, name), os.path.join(run, name))
for name in ("faults.jsonl", "duplicates.txt"):
    shutil.copy(os.path.join(out_dir, name), os.path.join(run, name))
shutil.copy(os.path.join(stack_dir, "run", "chaos-secrets"), os.path.join(run, "secrets.txt"))
for name in sorted(os.listdir(os.path.join(stack_dir, "log"))):
    gz(os.path.join(stack_dir, "log", name), os.path.join(run, "logs", name))

marks = {m["event"]: m["t"] for m in jsonl(os.path.join(out_dir, "faults.jsonl")) if m["fault"] == "failover"}
start, end = marks["fault"], marks["end"]
events = jsonl(os.path.join(out_dir, "events.jsonl"))
calls = jsonl(os.path.join(out_dir, "failover.jsonl"))
rows = open(os.path.join(out_dir, "rows.txt")).read().splitlines()
mid = start + 5

# An acknowledged PUT of the window missing from the table.
put = next(e for e in events if e["w"] == "reg" and e["op"] == "PUT" and 200 <= e["status"] < 300
           and start <= e["t"] <= end)
sample("fail-acknowledged-put-lost", "failover: no acknowledged write lost",
       {"rows.txt": "\n".join(r for r in rows if r.split()[0] != put["id"]) + "\n"})
# An acknowledged DELETE of the window whose row is active again.
ops = {}
for e in events:
    if e["w"] == "reg":
        ops.setdefault(e["id"], []).append(e)
deleted = next(cid for cid, o in ops.items() if o[-1]["op"] == "DELETE" and 200 <= o[-1]["status"] < 300
               and start <= o[-1]["t"] <= end)
sample("fail-acknowledged-delete-not-revoked", "failover: no acknowledged write lost",
       {"rows.txt": "\n".join((deleted + " active") if r.split()[0] == deleted else r for r in rows) + "\n"})
revoked = next(c for c in calls if c["k"] == "revoked")
sample("fail-revoked-device-allowed", "failover: no device revoked before the kill ever allowed",
       {"failover.jsonl.append": line(k="revoked", id=revoked["id"], t=mid, d=0.01, status=200, reason="",
                                      result="allow")})
sample("fail-other-5xx", "no 5xx other than 503",
       {"events.jsonl.append": line(w="auth", kind="known", t=mid, d=0.01, status=500, reason="non-json", result="")})
sample("fail-breaker-never-closed", "failover: the circuit breaker closed by itself",
       {"failover.jsonl.append": line(k="revoked", id=revoked["id"], t=end, d=0.01, status=503,
                                      reason="backend_unavailable+circuit_open", result="")})
# A refusal in the first gap that names this service instead of the database.
sample("fail-overload-in-a-gap", "failover: auth-service answered 503 naming the database in the gaps",
       {"events.jsonl.append": line(w="auth", kind="known", t=mid, d=0.01, status=503, reason="overload", result="")})
# What the recorded run broke, in its own verdict: FailoverVerdictTest requires exactly these to fail.
summary = json.load(open(os.path.join(out_dir, "summary.json")))
open(os.path.join(run, "broken"), "w").write("".join(v["promise"] + "\n" for v in summary["verdicts"] if not v["ok"]))
print("recorded", run, "and 6 failing samples")
