#!/usr/bin/env python3
"""Records a `make chaos` run as the verdict's samples: pass-full-run, and each fail-* sample as one defect laid over it.

    python3 build-checks/src/test/resources/chaos-samples/record.py [target/chaos] [.local/chaos]
    python3 build-checks/src/test/resources/chaos-samples/record.py --adversary-only [target/chaos]

Run it after a `make chaos` that kept every promise (ChaosVerdictTest checks the recording passes). The large files
are stored gzip-compressed; the run's secrets list (kept by chaos.sh in STACK_DIR/run/chaos-secrets) is recorded
too: its secrets are random values of that run only, and the recorded logs must not contain them.
A failing sample holds files that replace the run's, NAME.append files that add lines to them, and expected-failure:
the start of the promise that must be reported broken.
With --adversary-only, only the adversary phase's recording (adversary.jsonl, from `CHAOS_ONLY=adversary make
chaos`) is laid into pass-full-run, and the adversary's failing samples are written from it.
"""
import gzip, json, os, shutil, sys

HERE = os.path.dirname(os.path.abspath(__file__))
adversary_only = len(sys.argv) > 1 and sys.argv[1] == "--adversary-only"
args = sys.argv[2:] if adversary_only else sys.argv[1:]
out_dir = args[0] if len(args) > 0 else "target/chaos"
stack_dir = args[1] if len(args) > 1 else ".local/chaos"
run = os.path.join(HERE, "pass-full-run")
MIN_SAMPLES = 20  # scripts/chaos/analyse.py's: the fewest answers a verdict may rest on


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
        os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
        open(os.path.join(d, rel), "w").write(content)


def record_adversary():
    """The adversary phase: its records in pass-full-run, and one failing sample per promise."""
    source = os.path.join(out_dir, "adversary.jsonl")
    gz(source, os.path.join(run, "adversary.jsonl"))
    rows = jsonl(source)
    marks = {r["event"]: r["t"] for r in rows if r["k"] == "mark"}
    victim = next(r for r in rows if r["k"] == "victim" and marks["lockout-start"] <= r["t"] < marks["lockout-end"])
    # One attacked device refused its own login during the attack.
    sample("fail-device-locked-out", "adversary: no legitimate device locked out", {"adversary.jsonl.append": line(
        **dict(victim, t=victim["t"] + 0.001, status=200, result="deny", reason=""))})
    # 5 % of the known devices' logins during the flood answered 503 overload.
    flood_known = [r for r in rows if r["k"] == "known" and marks["flood-start"] <= r["t"] < marks["flood-end"]]
    starved = "".join(line(**dict(r, t=r["t"] + 0.0001, status=503, result="", reason="overload"))
                      for r in flood_known[:max(1, len(flood_known) // 19)])
    sample("fail-flood-starves-fast-path", "adversary: >= 99% of known devices' fast-path logins allowed",
           {"adversary.jsonl.append": starved})
    # As many cold allows again in the quiet spell: the capacity before the spray doubles, what it kept does not.
    quiet = [r for r in rows if r["k"] == "cold" and r["status"] == 200 and r.get("result") == "allow"
             and marks["quiet-start"] + 1 <= r["t"] + r["d"] < marks["spray-start"]]
    sample("fail-spray-starves-cold-logins", "adversary: cold logins keep >= 0.8 x the bcrypt capacity",
           {"adversary.jsonl.append": "".join(line(**dict(r, id=r["id"] + "-again")) for r in quiet)})
    # The quiet spell moved to the spray's start: the baseline holds no allow (a cold population used up before the
    # phase, as in a full run before the adversary's devices were its own), so no figure can be said to keep it.
    sample("fail-spray-baseline-empty", "adversary: cold logins keep >= 0.8 x the bcrypt capacity",
           {"adversary.jsonl.append": line(k="mark", event="quiet-start", t=marks["spray-start"])})
    # The quiet spell shortened until its baseline holds fewer allows than a verdict may rest on, while the rate they
    # give is still kept during the spray: only the sample-count rule can refuse it.
    ends = sorted(r["t"] + r["d"] for r in quiet)
    during = sum(1 for r in rows if r["k"] == "cold" and r["status"] == 200 and r.get("result") == "allow"
                 and marks["spray-start"] + 1 <= r["t"] + r["d"] < marks["spray-end"])
    during_rate = during / (marks["spray-end"] - marks["spray-start"] - 1)
    for k in range(MIN_SAMPLES - 1, 1, -1):
        start = ends[-k] - 1e-6  # the window [start, spray-start) holds the last k allows
        if during_rate >= 0.8 * k / (marks["spray-start"] - start):
            break
    else:
        sys.exit("no baseline of fewer than %d allows whose rate the spray kept" % MIN_SAMPLES)
    sample("fail-spray-baseline-too-small", "adversary: cold logins keep >= 0.8 x the bcrypt capacity",
           {"adversary.jsonl.append": line(k="mark", event="quiet-start", t=start - 1)})
    spray = next(r for r in rows if r["k"] == "spray")
    sample("fail-adversary-5xx", "adversary: no 5xx other than 503", {"adversary.jsonl.append": line(
        **dict(spray, status=500, result="", reason="internal_error"))})


if adversary_only:
    record_adversary()
    print("recorded the adversary phase in %s and its failing samples" % run)
    sys.exit(0)


for name in os.listdir(HERE):
    if name.startswith(("pass-", "fail-")):
        shutil.rmtree(os.path.join(HERE, name))
os.makedirs(os.path.join(run, "logs"))
for name in ("faults.jsonl", "abuse.json", "duplicates.txt"):
    shutil.copy(os.path.join(out_dir, name), os.path.join(run, name))
for name in ("events.jsonl", "storm.jsonl", "rows.txt"):
    gz(os.path.join(out_dir, name), os.path.join(run, name))
shutil.copy(os.path.join(stack_dir, "run", "chaos-secrets"), os.path.join(run, "secrets.txt"))
for name in sorted(os.listdir(os.path.join(stack_dir, "log"))):
    if os.path.getsize(os.path.join(stack_dir, "log", name)):
        gz(os.path.join(stack_dir, "log", name), os.path.join(run, "logs", name))

events = jsonl(os.path.join(out_dir, "events.jsonl"))
marks = {}
for m in jsonl(os.path.join(out_dir, "faults.jsonl")):
    marks.setdefault(m["fault"], {})[m["event"]] = m["t"]
abuse = json.load(open(os.path.join(out_dir, "abuse.json")))
rows = [l.split() for l in open(os.path.join(out_dir, "rows.txt")) if l.strip()]
secrets = [l.strip() for l in open(os.path.join(stack_dir, "run", "chaos-secrets")) if len(l.strip()) >= 8]


def abuse_with(change):
    copy = json.loads(json.dumps(abuse))
    change(copy)
    return json.dumps(copy, indent=1)


crash = marks["postgres-crash"]
sigterm = marks["auth-sigterm"]
acked = next(e for e in events if e["w"] == "reg" and e["op"] == "PUT" and 200 <= e["status"] < 300
             and not any(x["w"] == "reg" and x["id"] == e["id"] and x["op"] == "DELETE" for x in events))
deleted = next(e for e in events if e["w"] == "reg" and e["op"] == "DELETE" and 200 <= e["status"] < 300)
t_in = lambda w: (w["fault"] + w["end"]) / 2

sample("fail-5xx-other-than-503", "no 5xx other than 503", {"events.jsonl.append": line(
    w="auth", kind="known", t=t_in(crash), d=0.01, status=500, reason="", result="")})
sample("fail-acknowledged-put-lost", "no acknowledged write lost", {"rows.txt": "".join(
    " ".join(r) + "\n" for r in rows if r[0] != acked["id"])})
sample("fail-acknowledged-delete-not-revoked", "no acknowledged write lost", {"rows.txt": "".join(
    (r[0] + " active" if r[0] == deleted["id"] else " ".join(r)) + "\n" for r in rows)})
sample("fail-duplicated-row", "no duplicated row", {"duplicates.txt": "1\n"})
sample("fail-secret-in-log", "no secret in any log", {"logs/auth-service.log.append":
    "2026-12-01 00:00:00,000 INFO  [io.deviceidentity] (main) password=%s\n" % secrets[0]})
all_marks = jsonl(os.path.join(out_dir, "faults.jsonl"))


def marks_with(fault, **moved):
    """The run's marks with some of one fault's events moved by the given seconds."""
    return "".join(line(**dict(m, t=m["t"] + moved.get(m["event"], 0))) if m["fault"] == fault else line(**m)
                   for m in all_marks)


# The repair recorded 6 s before it happened: what came first after it is 6 s later than the goal allows.
sample("fail-slow-recovery-after-postgres-crash", "postgres-crash: recovery within 5 s",
       {"faults.jsonl": marks_with("postgres-crash", repair=-6, ready=-6)})
# A request reset after being sent between the SIGTERM and the moment readiness turned false.
unready = next(e["t"] for e in events if e["w"] == "ready" and e["svc"] == "auth" and e["t"] >= sigterm["fault"]
               and e["status"] != 200)
sample("fail-unanswered-while-ready-on-sigterm", "auth-sigterm: every request sent while ready answered",
       {"events.jsonl.append": line(w="auth", kind="known", t=(sigterm["fault"] + unready) / 2, d=0.002, status=-1,
                                    reason="RemoteDisconnected@await", result="")})
sample("fail-cut-mid-answer-on-sigterm", "auth-sigterm: every request sent while ready answered",
       {"events.jsonl.append": line(w="auth", kind="known", t=sigterm["repair"] - 0.05, d=0.01, status=-1,
                                    reason="IncompleteRead@body", result="")})
# The burst's window stretched to 20 s past the storm's end: what auth-service allowed "during the burst" is far
# below what it allowed before it.
burst = marks["burst-during-storm"]
sample("fail-bulkhead-broken", "registration burst leaves auth-service its goodput",
       {"faults.jsonl": marks_with("burst-during-storm", repair=burst["end"] + 20 - burst["repair"])})
sample("fail-memory-unbounded", "memory bounded", {"abuse.json": abuse_with(
    lambda a: a["memory"]["auth"].update(peak_mib=900.0))})
sample("fail-normal-client-refused", "a normal client answered within its deadline", {"abuse.json": abuse_with(
    lambda a: a["normal_client"].update(not_200=3, not_200_statuses={"503 overload": 3}))})
sample("fail-idle-connections-not-held", "idle connections held open", {"abuse.json": abuse_with(
    lambda a: a["idle_connections"].update(opened=2000))})
sample("fail-fault-window-missing", "every selected fault window ran", {"faults.jsonl": "".join(
    line(**m) for m in jsonl(os.path.join(out_dir, "faults.jsonl")) if m["fault"] != "postgres-freeze")})
refused = abuse["fuzzed_bodies"]["refused_ids"][0]
sample("fail-hostile-body-stored", "hostile bodies: no 5xx other than 503, no row written",
       {"rows.txt.append": refused + " active\n"})
sample("fail-right-token-refused-under-flood", "wrong bearer tokens: all 401, the right token still answered",
       {"abuse.json": abuse_with(lambda a: a["wrong_bearer_flood"].update(
           right_token_200=a["wrong_bearer_flood"]["right_token_answers"] - 1))})
if os.path.exists(os.path.join(out_dir, "adversary.jsonl")):
    record_adversary()
print("recorded %s and %d failing samples" % (run, sum(1 for n in os.listdir(HERE) if n.startswith("fail-"))))
