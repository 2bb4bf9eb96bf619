#!/usr/bin/env python3
"""Turns the recorded answers of `make chaos` into its table, summary.json and report.html."""
import argparse, html, json, os


def load_jsonl(path):
    if not os.path.exists(path):
        return []
    rows = []
    for line in open(path):
        line = line.strip()
        if line:
            try:
                rows.append(json.loads(line))
            except ValueError:
                pass
    return rows


def fmt(x):
    return "-" if x is None else ("%.1f s" % x if isinstance(x, float) else str(x))


def main():
    ap = argparse.ArgumentParser()
    for name in ("events", "faults", "abuse", "storm", "secrets", "logs", "rows", "duplicates", "out"):
        ap.add_argument("--" + name)
    ap.add_argument("--elapsed", type=int, default=0)
    a = ap.parse_args()
    events = sorted(load_jsonl(a.events), key=lambda e: e["t"])
    marks = load_jsonl(a.faults)
    # client_id -> status ('active' | 'revoked'): DELETE revokes, the row stays.
    rows = dict((line.split() + ["active"])[:2] for line in open(a.rows) if line.strip()) if os.path.exists(a.rows) else {}
    duplicates = int(open(a.duplicates).read().strip() or 0) if os.path.exists(a.duplicates) else None

    # What each registration answer promised.
    by_id = {}
    for e in events:
        if e["w"] == "reg":
            by_id.setdefault(e["id"], []).append(e)
    # An acknowledged PUT must have left a row (active, or revoked by a later DELETE); an acknowledged DELETE
    # (the last operation of its id) must have left it revoked.
    must_exist, must_revoke = {}, {}
    for cid, ops in by_id.items():
        acked_put = [o for o in ops if o["op"] == "PUT" and 200 <= o["status"] < 300]
        if acked_put:
            must_exist[cid] = acked_put[0]["t"] + acked_put[0]["d"]
        if ops[-1]["op"] == "DELETE" and 200 <= ops[-1]["status"] < 300:
            must_revoke[cid] = ops[-1]["t"] + ops[-1]["d"]
    missing = {cid: t for cid, t in must_exist.items() if cid not in rows}
    resurrected = {cid: t for cid, t in must_revoke.items() if rows.get(cid) != "revoked"}

    windows = {}
    for m in marks:
        windows.setdefault(m["fault"], {})[m["event"]] = m["t"]
    table = []
    for name, w in windows.items():
        if name in ("baseline", "abuse"):
            continue
        start, end = w.get("fault", w.get("storm-start")), w.get("end")
        if start is None or end is None:
            continue
        repair = w.get("repair", start)
        inside = [e for e in events if start <= e["t"] <= end]
        other5xx = [e for e in inside if e["status"] >= 500 and e["status"] != 503]
        reasons = sorted(set(e["reason"].replace("+circuit_open", "") for e in inside if e["status"] == 503))
        unanswered = sum(1 for e in inside if e["status"] < 0)
        unanswered_kinds = sorted(set(e["reason"] for e in inside if e["status"] < 0))
        # Detection: the first 503; for a killed service process, the first refused connection.
        first503 = next((e["t"] + e["d"] for e in inside if e["status"] == 503
                         or (name.endswith(("sigkill", "sigterm")) and e["status"] < 0)), None)
        first_allow = next((e["t"] + e["d"] for e in inside if e["w"] == "auth" and e["t"] >= repair
                            and e.get("result") == "allow"), None)
        first_reg = next((e["t"] + e["d"] for e in inside if e["w"] == "reg" and e["t"] >= repair
                          and 200 <= e["status"] < 300), None)
        opened = [e["t"] for e in inside if "+circuit_open" in e["reason"]]
        closed = bool(opened) and any(200 <= e["status"] < 300 and e["t"] > max(opened) for e in inside)
        row = {
            "fault": name,
            "other_5xx": len(other5xx),
            "reasons_503": reasons,
            "unanswered": unanswered,
            "unanswered_kinds": unanswered_kinds,
            "detection_s": None if first503 is None else round(first503 - start, 2),
            "recovery_auth_s": None if first_allow is None else round(first_allow - repair, 2),
            "recovery_registration_s": None if first_reg is None else round(first_reg - repair, 2),
            "acked_missing": sum(1 for t in missing.values() if start <= t <= end),
            "acked_deletes_not_revoked": sum(1 for t in resurrected.values() if start <= t <= end),
            "breaker": ("opened+closed" if closed else "opened") if opened else "not opened",
            "answers": len(inside),
        }
        if name == "burst-during-storm":
            storm = load_jsonl(a.storm)
            def goodput(t0, t1):
                n = sum(1 for s in storm if t0 <= s["t"] + s["d"] < t1 and s.get("result") == "allow")
                return round(n / max(t1 - t0, 0.001), 1)
            row["auth_goodput_without_burst"] = goodput(w["storm-start"] + 1, w["fault"])
            row["auth_goodput_with_burst"] = goodput(w["fault"], w["repair"])
        table.append(row)

    abuse = json.load(open(a.abuse)) if a.abuse and os.path.exists(a.abuse) else None
    abuse_rows_written = None
    if abuse:
        abuse_rows_written = sum(1 for cid in abuse["fuzzed_bodies"].get("refused_ids", []) if cid in rows)
        abuse["fuzzed_bodies"]["rows_written_by_refused"] = abuse_rows_written
        abuse["fuzzed_bodies"].pop("refused_ids", None)

    secrets = [s.strip() for s in open(a.secrets)] if a.secrets and os.path.exists(a.secrets) else []
    secrets = [s for s in secrets if len(s) >= 8]
    hits, files = {}, 0
    for root, _, names in os.walk(a.logs):
        for n in names:
            files += 1
            try:
                text = open(os.path.join(root, n), "rb").read().decode("utf-8", "replace")
            except OSError:
                continue
            for i, s in enumerate(secrets):
                if s in text:
                    hits["secret-%d in %s" % (i, n)] = text.count(s)
    total = {
        "answers": len(events),
        "other_5xx": sum(1 for e in events if e["status"] >= 500 and e["status"] != 503),
        "acked_registrations_missing": len(missing),
        "acked_deletes_not_revoked": len(resurrected),
        "acked_puts_checked": len(must_exist),
        "duplicated_rows": duplicates,
        "secrets_searched": len(secrets), "log_files_searched": files, "secret_hits": sum(hits.values()),
        "secret_hit_places": sorted(hits),
        "elapsed_s": a.elapsed,
    }
    summary = {"faults": table, "abuse": abuse, "total": total}
    os.makedirs(a.out, exist_ok=True)
    json.dump(summary, open(os.path.join(a.out, "summary.json"), "w"), indent=1)

    head = ["fault", "5xx≠503", "503 reasons", "no answer", "detection", "recovery auth", "recovery reg",
            "acked missing", "dup rows", "breaker"]
    # A "no answer" row is a process that is down (refused connections), not a wrong answer.
    lines = [head]
    for r in table:
        lines.append([r["fault"], r["other_5xx"], ",".join(r["reasons_503"]) or "-", r["unanswered"],
                      fmt(r["detection_s"]), fmt(r["recovery_auth_s"]), fmt(r["recovery_registration_s"]),
                      r["acked_missing"] + r["acked_deletes_not_revoked"], duplicates if duplicates is not None else "?", r["breaker"]])
    widths = [max(len(str(l[i])) for l in lines) for i in range(len(head))]
    out = []
    for l in lines:
        out.append("| " + " | ".join(str(c).ljust(widths[i]) for i, c in enumerate(l)) + " |")
    out.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in table:
        if "auth_goodput_with_burst" in r:
            out.append("burst-during-storm: auth goodput %s allows/s without the registration burst, %s with it"
                       % (r["auth_goodput_without_burst"], r["auth_goodput_with_burst"]))
    if abuse:
        f = abuse["fuzzed_bodies"]
        out.append("abuse: %d fuzzed bodies/paths -> statuses %s, 5xx other than 503: %d, rows written by refused"
                   " bodies: %s" % (f["sent"], f["statuses"], f["other_5xx"], f["rows_written_by_refused"]))
        out.append("abuse: %d idle connections (ready meanwhile: %s); %d slowloris clients (ready meanwhile: %s);"
                   " oversized headers -> %s; wrong bearer flood -> %s, right token %d/%d 200 (max %s s);"
                   " normal client %d requests, %d not 200, max %s s; alive after: %s"
                   % (abuse["idle_connections"]["opened"], abuse["idle_connections"]["ready_while_open"],
                      abuse["slowloris"]["clients"], abuse["slowloris"]["ready_while_trickling"],
                      abuse["oversized_headers"]["statuses"], abuse["wrong_bearer_flood"]["statuses"],
                      abuse["wrong_bearer_flood"]["right_token_200"], abuse["wrong_bearer_flood"]["right_token_answers"],
                      abuse["wrong_bearer_flood"]["right_token_max_s"], abuse["normal_client"]["requests"],
                      abuse["normal_client"]["not_200"], abuse["normal_client"]["max_s"], abuse["alive_after"]))
    else:
        out.append("abuse: not run")
    out.append("secrets: %d secrets (tokens, passwords, fast-path key, bcrypt hashes) searched in %d log files: %d hits"
               % (total["secrets_searched"], total["log_files_searched"], total["secret_hits"]))
    out.append("total: %d answers, %d 5xx other than 503, %d acknowledged PUTs checked, %d missing, %d acknowledged"
               " DELETEs not revoked, duplicated rows %s, %d s" % (total["answers"], total["other_5xx"],
               total["acked_puts_checked"], total["acked_registrations_missing"], total["acked_deletes_not_revoked"],
               duplicates, a.elapsed))
    out.append("recovery for registration-sigkill and auth-sigterm includes starting a new JVM (the repair is a"
               " restart); for the database faults the services were not restarted")
    kinds = sorted(set(k for r in table for k in r["unanswered_kinds"]))
    out.append("no answer = connection refused or reset; kinds seen: %s (a reset mid-answer would show as"
               " RemoteDisconnected/ConnectionResetError)" % (", ".join(kinds) or "none"))
    text = "\n".join(out)
    print(text)
    open(os.path.join(a.out, "table.md"), "w").write(text + "\n")
    cells = "".join("<tr>" + "".join("<td>%s</td>" % html.escape(str(c)) for c in l) + "</tr>" for l in lines[1:])
    open(os.path.join(a.out, "report.html"), "w").write(
        "<!doctype html><meta charset=utf-8><title>make chaos</title><h1>make chaos</h1><table border=1>"
        "<tr>" + "".join("<th>%s</th>" % html.escape(h) for h in head) + "</tr>" + cells + "</table><pre>"
        + html.escape("\n".join(out[len(lines) + 1:])) + "</pre><h2>summary.json</h2><pre>"
        + html.escape(json.dumps(summary, indent=1)) + "</pre>")


if __name__ == "__main__":
    main()
