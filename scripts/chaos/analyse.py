#!/usr/bin/env python3
"""Turns the recorded answers of `make chaos` into its table, summary.json and report.html, and gives the verdict.

Exit status 0 when every promise holds, 1 when one is broken (each promise is printed as PASS or FAIL with its
figures, and listed in summary.json under "verdicts"). Every input may also be given gzip-compressed (NAME.gz), as
the recorded samples in build-checks are.
"""
import argparse, gzip, html, json, os, sys

# Faults whose repair does not restart a service: recovery is held to the goal. For a killed or stopped service the
# repair is starting a new JVM, whose start-up time is not what the goal is about.
DATABASE_FAULTS = ("pgbouncer-kill", "postgres-crash", "postgres-freeze", "pgbouncer-max-client-conn")
ALL_FAULTS = DATABASE_FAULTS + ("registration-sigkill", "auth-sigterm", "burst-during-storm")
# auth-service's goodput during the registration burst, as a share of its goodput just before it (the bulkhead
# promise), under a paced login storm the machine can carry. Both services share two CPUs here, so a little is lost
# even with a perfect bulkhead.
BULKHEAD_SHARE = 0.8
# The adversary phase: the known devices' fast-path logins allowed within EMQX's request_timeout during the flood, and
# the legitimate cold logins' rate during the spray as a share of their rate just before it (the bcrypt capacity).
FLOOD_ALLOWED_SHARE = 0.99
SPRAY_COLD_SHARE = 0.8
# After wrong passwords for rows of bcrypt cost 14 under CPU contention: the cold logins' rate in the last
# RECOVERY_WINDOW seconds of the RECOVERY_WITHIN seconds after the attack stops, as a share of their rate in the quiet
# spell (an admission estimate that stopped getting samples once refused every cold login for good).
RECOVERY_SHARE = 0.8
RECOVERY_WITHIN = 30
RECOVERY_WINDOW = 10
# A comparison or share measured on a handful of answers proves nothing (1 allow before and 1 during is "1.0 x"): each
# verdict that compares a rate with a baseline, or counts a share, fails unless every figure it rests on counts at
# least this many answers (and so is never 0).
MIN_SAMPLES = 20


def opened(path):
    """The file, or its .gz twin."""
    if path and os.path.exists(path):
        return open(path, "rb")
    if path and os.path.exists(path + ".gz"):
        return gzip.open(path + ".gz", "rb")
    return None


def read_text(path):
    f = opened(path)
    return None if f is None else f.read().decode("utf-8", "replace")


def load_jsonl(path):
    text = read_text(path)
    if text is None:
        return []
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if line:
            try:
                rows.append(json.loads(line))
            except ValueError:
                pass
    return rows


def fmt(x):
    return "-" if x is None else ("%.1f s" % x if isinstance(x, float) else str(x))


def answered_after(events, since, matches):
    """Seconds from `since` to the end of the first answer sent at or after it that `matches`; None if none did."""
    done = next((e["t"] + e["d"] for e in events if e["t"] >= since and matches(e)), None)
    return None if done is None else round(done - since, 2)


def shutdown_order(name, inside, readiness, start, end):
    """For a SIGTERM: when readiness turned false, and what happened to requests sent before and after that.

    Kubernetes stops routing new requests to a Pod once its readiness probe fails; the shutdown delay is there so
    that this happens before the listener closes. Requests sent before readiness turned false must all be answered;
    the load here keeps sending to the one instance afterwards (there is no other), and those may be refused."""
    service = "auth" if name.startswith("auth") else "reg"
    unready = next((e["t"] for e in readiness if e["svc"] == service and start <= e["t"] <= end and e["status"] != 200),
                   None)
    calls = [e for e in inside if e["w"] == service]
    unanswered_before = [e for e in calls if e["status"] < 0 and (unready is None or e["t"] < unready)]
    first_unanswered = next((e["t"] for e in calls if e["status"] < 0), None)
    return {
        "unready_after_s": None if unready is None else round(unready - start, 2),
        "first_unanswered_after_s": None if first_unanswered is None else round(first_unanswered - start, 2),
        "unanswered_sent_while_ready": len(unanswered_before),
        "cut_mid_answer": sum(1 for e in calls if e["status"] < 0 and e["reason"].endswith("@body")),
    }


def adversary_figures(rows, request_timeout):
    """The adversary phase's figures from adversary.py's records (None when it did not run)."""
    if not rows:
        return None
    marks = {r["event"]: r["t"] for r in rows if r["k"] == "mark"}
    calls = [r for r in rows if r["k"] not in ("mark", "flood")]
    allowed = lambda r: r["status"] == 200 and r.get("result") == "allow"
    inside = lambda r, start, end: start <= r["t"] < end

    # Lockout: a victim is locked out if any of its own logins during the attack was refused by a decision (a deny or
    # ignore, or a 429: what an attacker's failures could cause). A 503 is "not now" (overload, deadline), which the
    # flood's promise counts; victims that were never allowed are listed beside.
    l0, l1 = marks.get("lockout-start", 0), marks.get("lockout-end", 0)
    victims = {}
    for r in calls:
        if r["k"] == "victim" and inside(r, l0, l1):
            victims.setdefault(r["id"], []).append(r)
    locked = sorted(cid for cid, logins in victims.items()
                    if any(r["status"] == 429 or (r["status"] == 200 and r.get("result") != "allow") for r in logins))
    never_allowed = sorted(cid for cid, logins in victims.items() if not any(allowed(r) for r in logins))
    attack = [r for r in calls if r["k"] == "attack"]

    # Spray: the cold logins' allows a second, in the quiet spell before it and during it (its first second left out).
    q0, s0, s1 = marks.get("quiet-start", 0), marks.get("spray-start", 0), marks.get("spray-end", 0)
    def cold_allows(start, end):
        return sum(1 for r in calls if r["k"] == "cold" and allowed(r) and start <= r["t"] + r["d"] < end)
    def rate(n, start, end):
        return round(n / max(end - start, 0.001), 2)
    allows_before, allows_during = cold_allows(q0 + 1, s0), cold_allows(s0 + 1, s1)
    capacity, during = rate(allows_before, q0 + 1, s0), rate(allows_during, s0 + 1, s1)
    spray = [r for r in calls if r["k"] == "spray"]
    # What bcrypt did, from auth-service's own count at the marks (when adversary.py could read it): hashes a second
    # in the quiet spell and during the spray, and the spray's hashes that were not legitimate cold logins'.
    counted = {r["event"]: r.get("hashes") for r in rows if r["k"] == "mark"}
    hashes = None
    if all(counted.get(m) is not None for m in ("quiet-start", "spray-start", "spray-end")):
        during_hashes = counted["spray-end"] - counted["spray-start"]
        legit = sum(1 for r in calls if r["k"] == "cold" and allowed(r) and s0 <= r["t"] + r["d"] < s1)
        hashes = {"per_s_quiet": round((counted["spray-start"] - counted["quiet-start"]) / max(s0 - q0, 0.001), 2),
                  "per_s_spray": round(during_hashes / max(s1 - s0, 0.001), 2),
                  "spray": int(during_hashes), "not_cold_logins_during_spray": int(during_hashes) - legit}

    # Flood: the known devices' logins sent during it, allowed within request_timeout.
    f0, f1 = marks.get("flood-start", 0), marks.get("flood-end", 0)
    known = [r for r in calls if r["k"] in ("known", "victim") and inside(r, f0, f1)]
    in_time = sum(1 for r in known if allowed(r) and r["d"] <= request_timeout)
    flood = [r for r in rows if r["k"] == "flood"]
    flood_statuses = {}
    for r in flood:
        for status, n in r["statuses"].items():
            flood_statuses[status] = flood_statuses.get(status, 0) + n
    flood_sent = sum(r["sent"] for r in flood)

    # Expensive rows: the cold logins' rate in the last seconds of the recovery window after the attack, against the
    # quiet spell's capacity.
    e0, e1 = marks.get("expensive-start", 0), marks.get("expensive-end", 0)
    back_from = e1 + RECOVERY_WITHIN - RECOVERY_WINDOW
    allows_back = cold_allows(back_from, e1 + RECOVERY_WITHIN)
    expensive = [r for r in calls if r["k"] == "expensive"]
    recovery = None
    if e1 and marks.get("recovery-end", 0) >= e1 + RECOVERY_WITHIN:
        # When the cold logins were first back at the capacity (a rolling 5 s window), in seconds after the attack.
        first_back = None
        for second in range(0, RECOVERY_WITHIN - 4):
            if rate(cold_allows(e1 + second, e1 + second + 5), 0, 5) >= RECOVERY_SHARE * capacity > 0:
                first_back = second + 5
                break
        recovery = {"cold_allows_per_s_back": rate(allows_back, back_from, e1 + RECOVERY_WITHIN),
                    "cold_allows_back": allows_back, "cold_allows_during_attack": cold_allows(e0, e1),
                    "back_after_s": first_back}
    statuses = [r["status"] for r in calls] + [int(k) for k, n in flood_statuses.items() if k.isdigit() for _ in range(n)]
    return {
        "phases_ran": all(m in marks for m in ("lockout-end", "spray-end", "flood-end")),
        "expensive_ran": all(m in marks for m in ("expensive-end", "recovery-end")),
        "expensive_requests": len(expensive), "expensive_answers": count_answers(expensive),
        "expensive_hashes": (counted["expensive-end"] - counted["expensive-start"]
                             if counted.get("expensive-end") is not None and counted.get("expensive-start") is not None
                             else None),
        "recovery": recovery,
        "victims": len(victims), "victims_locked_out": locked, "victims_only_503": never_allowed,
        "victim_logins": sum(len(v) for v in victims.values()),
        "attack_requests": len(attack), "attack_answers": count_answers(attack),
        "cold_allows_per_s_before_spray": capacity, "cold_allows_per_s_during_spray": during,
        "cold_allows_before_spray": allows_before, "cold_allows_during_spray": allows_during,
        "cold_logins": sum(1 for r in calls if r["k"] == "cold"),
        "spray_requests": len(spray), "spray_answers": count_answers(spray), "bcrypt": hashes,
        "flood_sent": flood_sent, "flood_rate_per_s": round(flood_sent / max(f1 - f0, 0.001), 1),
        "flood_statuses": flood_statuses,
        "known_logins_during_flood": len(known), "known_allowed_in_time_during_flood": in_time,
        "request_timeout_s": request_timeout,
        "other_5xx": sum(1 for st in statuses if st >= 500 and st != 503),
    }


BEFORE_KILL_S = 10


def failover_figures(calls, marks, events, storm, must_exist, must_revoke, missing, resurrected):
    """The failover phase's figures (None when it did not run): failover.py's calls (revoked, cold), the probe's
    answers (auth and registration), the login storm's, and the phase's marks (fault = first kill, second-kill,
    repair, ready, end)."""
    w = {m["event"]: m["t"] for m in marks if m.get("fault") == "failover"}
    if "fault" not in w or "end" not in w:
        return None
    start, end = w["fault"], w["end"]
    kills = [("first", w["fault"], w.get("second-kill", end))]
    if "second-kill" in w:
        kills.append(("second", w["second-kill"], w.get("repair", end)))
    allowed = lambda r: r["status"] == 200 and r.get("result") == "allow"
    cold = [r for r in calls if r["k"] == "cold"]
    revoked = [r for r in calls if r["k"] == "revoked"]
    auth = ([dict(r, src="probe-" + r["kind"]) for r in events if r["w"] == "auth"]
            + [dict(r, src="storm") for r in storm] + [dict(r, src=r["k"]) for r in calls])
    inside = [r for r in auth if start <= r["t"] <= end]
    reason = lambda r: r["reason"].replace("+circuit_open", "")
    by_answer = sorted(auth, key=lambda r: r["t"] + r["d"])
    gaps = []
    for name, at, until in kills:
        # The gap: from the kill to the first cold login allowed among those asked once the service had seen the
        # outage (its first answer naming the database after the kill). A cold login asked before that may have been
        # read from the standby in the moment before it noticed its primary was gone, which ends no gap.
        seen = next((r["t"] + r["d"] for r in by_answer
                     if at <= r["t"] < until and r["status"] == 503 and reason(r) == "backend_unavailable"), at)
        first_cold = next((r["t"] + r["d"] for r in by_answer if r["src"] == "cold" and allowed(r)
                           and r["t"] >= seen and r["t"] + r["d"] <= until), None)
        gap_end = first_cold if first_cold is not None else until
        in_gap = [r for r in auth if at <= r["t"] < gap_end]
        known = [r for r in in_gap if r["src"] in ("storm", "probe-known")]
        gaps.append({"kill": name, "gap_s": None if first_cold is None else round(first_cold - at, 2),
                     "start": at, "end": gap_end,
                     "answers_503": sum(1 for r in in_gap if r["status"] == 503),
                     "reasons_503": sorted(set(reason(r) for r in in_gap if r["status"] == 503)),
                     "known_with_verifier": {"logins": len(known), "allowed": sum(1 for r in known if allowed(r)),
                                             "answers": count_answers(known)}})
    in_a_gap = lambda r: any(g["start"] <= r["t"] < g["end"] for g in gaps)
    outside = [r for r in inside if r["status"] == 503 and not in_a_gap(r)]
    # The same answers in the seconds before the first kill: a service already refusing then is overloaded by the
    # machine it runs on, not by the failover, and its overload 503s in the phase say nothing about the database lane.
    before = [r for r in auth if start - BEFORE_KILL_S <= r["t"] < start and r["status"] == 503]
    opened = [r["t"] for r in inside if "+circuit_open" in r["reason"]]
    last_open = max(opened) if opened else None
    writes = [e for e in events if e["w"] == "reg" and start <= e["t"] <= end]
    in_window = lambda acks: {cid: t for cid, t in acks.items() if start <= t <= end}
    return {
        "kills": gaps,
        "revoked_attempts": len(revoked), "revoked_allowed": sum(1 for r in revoked if allowed(r)),
        "revoked_answers": count_answers(revoked),
        "cold_attempts": len(cold),
        "auth_503": sum(1 for r in inside if r["status"] == 503),
        "auth_503_reasons": sorted(set(reason(r) for r in inside if r["status"] == 503)),
        # Outside the gaps the database answers again and every device retries at once: a 503 there may rightly name
        # this service (overload) and is reported, not judged.
        "auth_503_outside_gaps": count_answers(outside),
        "auth_other_5xx": sum(1 for r in inside if r["status"] >= 500 and r["status"] != 503),
        "auth_503_before_kill": count_answers(before),
        "reg_other_5xx": sum(1 for e in writes if e["status"] >= 500 and e["status"] != 503),
        "breaker_opened": bool(opened),
        "allowed_after_breaker": sum(1 for r in inside if allowed(r) and last_open is not None and r["t"] > last_open),
        "writes_sent": len(writes),
        "writes_acknowledged": sum(1 for e in writes if 200 <= e["status"] < 300),
        "puts_acknowledged": len(in_window(must_exist)), "puts_missing": len(in_window(missing)),
        "deletes_acknowledged": len(in_window(must_revoke)), "deletes_not_revoked": len(in_window(resurrected)),
        "writes_503": sum(1 for e in writes if e["status"] == 503),
    }


def judge_failover(promise, f, goal):
    promise("failover: no acknowledged write lost", f["puts_missing"] == 0 and f["deletes_not_revoked"] == 0
            and f["puts_acknowledged"] > 0,
            "%d acknowledged PUTs read back: %d missing; %d acknowledged DELETEs: %d not revoked (%d writes sent, %d 503)"
            % (f["puts_acknowledged"], f["puts_missing"], f["deletes_acknowledged"], f["deletes_not_revoked"],
               f["writes_sent"], f["writes_503"]))
    promise("failover: no device revoked before the kill ever allowed",
            enough(f["revoked_attempts"]) and f["revoked_allowed"] == 0,
            "%d attempts with the right password (at least %d needed): %s"
            % (f["revoked_attempts"], MIN_SAMPLES, f["revoked_answers"]))
    in_gaps = sorted(set(r for k in f["kills"] for r in k["reasons_503"]))
    promise("failover: auth-service answered 503 naming the database in the gaps, never another 5xx",
            f["auth_other_5xx"] == 0 and f["reg_other_5xx"] == 0 and set(in_gaps) <= {"backend_unavailable"},
            "%d auth 503 in the gaps (reasons %s), %d other auth 5xx, %d other registration 5xx; outside the gaps: %s;"
            " in the %d s before the kill: %s"
            % (sum(k["answers_503"] for k in f["kills"]), in_gaps or "none", f["auth_other_5xx"], f["reg_other_5xx"],
               f.get("auth_503_outside_gaps") or "no 503", BEFORE_KILL_S, f.get("auth_503_before_kill") or "no 503"))
    promise("failover: the circuit breaker closed by itself", not f["breaker_opened"] or f["allowed_after_breaker"] > 0,
            "opened: %s; logins allowed after its last open answer: %d" % (f["breaker_opened"], f["allowed_after_breaker"]))
    for k in f["kills"]:
        promise("failover: %s kill: a cold login allowed within %g s" % (k["kill"], goal),
                k["gap_s"] is not None and k["gap_s"] <= goal,
                "first cold login allowed %s after the kill; %d answers 503 in the gap (%s); known devices with a"
                " verifier in the gap: %d of %d allowed"
                % (fmt_s(k["gap_s"]), k["answers_503"], k["reasons_503"] or "none",
                   k["known_with_verifier"]["allowed"], k["known_with_verifier"]["logins"]))


def count_answers(rows):
    counts = {}
    for r in rows:
        key = "%s %s" % (r["status"], r.get("result") or r.get("reason") or "")
        counts[key.strip()] = counts.get(key.strip(), 0) + 1
    return counts


def enough(*counts):
    """Whether every count a verdict rests on reaches MIN_SAMPLES."""
    return all(n >= MIN_SAMPLES for n in counts)


def judge_adversary(promise, adv, expensive=True):
    """`expensive`: whether the expensive rows' phase was run (chaos.sh says so; a recording from before the phase
    existed has none, and is judged on the rest)."""
    promise("adversary: every phase ran", adv["phases_ran"] and (adv["expensive_ran"] or not expensive),
            "lockout, spray and flood marks present: %s; expensive rows and recovery: %s"
            % (adv["phases_ran"], adv["expensive_ran"]))
    promise("adversary: no legitimate device locked out",
            adv["victims"] > 0 and enough(adv["victim_logins"], adv["attack_requests"]) and not adv["victims_locked_out"],
            "%d attacked devices logged in %d times during %d guesses (%s); locked out: %s; answered only 503: %s"
            " (at least %d logins and %d guesses needed)"
            % (adv["victims"], adv["victim_logins"], adv["attack_requests"], adv["attack_answers"],
               adv["victims_locked_out"] or "none", adv["victims_only_503"] or "none", MIN_SAMPLES, MIN_SAMPLES))
    known, in_time = adv["known_logins_during_flood"], adv["known_allowed_in_time_during_flood"]
    promise("adversary: >= %g%% of known devices' fast-path logins allowed within %g s during the flood"
            % (FLOOD_ALLOWED_SHARE * 100, adv["request_timeout_s"]),
            enough(known) and in_time >= FLOOD_ALLOWED_SHARE * known,
            "%d of %d (at least %d needed), while %d invented ids were sent (%s/s; answers %s)"
            % (in_time, known, MIN_SAMPLES, adv["flood_sent"], adv["flood_rate_per_s"], adv["flood_statuses"]))
    before, during = adv["cold_allows_per_s_before_spray"], adv["cold_allows_per_s_during_spray"]
    # The capacity is measured, not assumed: a baseline of no allows, or of a few (a cold population that was
    # already used up, a quiet spell too short), would let any figure "keep" it.
    baseline = adv.get("cold_allows_before_spray", 0)
    promise("adversary: cold logins keep >= %g x the bcrypt capacity during the spray" % SPRAY_COLD_SHARE,
            enough(baseline, adv["spray_requests"]) and before > 0 and during >= SPRAY_COLD_SHARE * before,
            "%s allows/s before the spray (%d allows; at least %d needed), %s during it (%d sprayed guesses, at least"
            " %d needed: %s)" % (before, baseline, MIN_SAMPLES, during, adv["spray_requests"], MIN_SAMPLES,
                                 adv["spray_answers"]))
    rec = adv.get("recovery") or {}
    back = rec.get("cold_allows_per_s_back", 0)
    if expensive or adv["expensive_ran"]:
        promise("adversary: cold logins back at >= %g x the bcrypt capacity within %d s of the expensive rows'"
                " attack" % (RECOVERY_SHARE, RECOVERY_WITHIN),
                enough(baseline, adv.get("expensive_requests", 0)) and before > 0 and back >= RECOVERY_SHARE * before,
                "%s allows/s before the spray, %s in the last %d s of the %d s after %d guesses over the cost-14 rows"
                " (%s; %s hashes); first back after %s s"
                % (before, back, RECOVERY_WINDOW, RECOVERY_WITHIN, adv.get("expensive_requests", 0),
                   adv.get("expensive_answers"), adv.get("expensive_hashes"), rec.get("back_after_s")))
    promise("adversary: no 5xx other than 503", adv["other_5xx"] == 0, "%d such answers" % adv["other_5xx"])


def judge(table, abuse, total, a, adversary=None, failover=None):
    """Every promise of `make chaos`, kept or broken, with the figures it was judged on."""
    verdicts = []

    def promise(name, ok, detail):
        verdicts.append({"promise": name, "ok": bool(ok), "detail": detail})

    promise("no 5xx other than 503", total["other_5xx"] == 0, "%d such answers" % total["other_5xx"])
    promise("no acknowledged write lost", total["acked_registrations_missing"] == 0
            and total["acked_deletes_not_revoked"] == 0,
            "%d acknowledged PUTs checked: %d missing, %d acknowledged DELETEs not revoked"
            % (total["acked_puts_checked"], total["acked_registrations_missing"], total["acked_deletes_not_revoked"]))
    promise("no duplicated row", total["duplicated_rows"] == 0, "duplicated client ids: %s" % total["duplicated_rows"])
    promise("no secret in any log", total["secret_hits"] == 0 and total["secrets_searched"] > 0
            and total["log_files_searched"] > 0, "%d secrets in %d log files: %d hits %s"
            % (total["secrets_searched"], total["log_files_searched"], total["secret_hits"],
               total["secret_hit_places"] or ""))
    expected = a.expected_faults.split()
    ran = [r["fault"] for r in table]
    promise("every selected fault window ran", all(f in ran for f in expected),
            "%d of %d: missing %s" % (sum(1 for f in expected if f in ran), len(expected),
                                      [f for f in expected if f not in ran] or "none"))
    for r in table:
        if r["fault"] in DATABASE_FAULTS:
            late = [(k, r[k]) for k in ("recovery_auth_s", "recovery_registration_s")
                    if r[k] is None or r[k] > a.recovery_goal]
            promise("%s: recovery within %g s of the repair, without a restart" % (r["fault"], a.recovery_goal),
                    not late, "auth %s, registration %s (the repaired part answered %s after the repair)"
                    % (fmt_s(r["recovery_auth_s"]), fmt_s(r["recovery_registration_s"]), fmt_s(r["repaired_part_ready_s"])))
            # A fault the services did not feel (their pooled connections outlived it) needs no detection.
            felt = r["failed_answers"] > 0
            promise("%s: detected with a 503, or not felt" % r["fault"],
                    not felt or (r["detection_s"] is not None and r["reasons_503"]),
                    "first 503 after %s, reasons %s, %d answers not 2xx" % (fmt_s(r["detection_s"]),
                                                                         r["reasons_503"] or "none", r["failed_answers"]))
        elif r["fault"].endswith(("sigkill", "sigterm")):
            if r["fault"].endswith("sigterm"):  # a SIGKILL drops what was in flight; a SIGTERM must not
                promise("%s: readiness false before the listener closed" % r["fault"],
                        r["unready_after_s"] is not None and (r["first_unanswered_after_s"] is None
                                                              or r["unready_after_s"] < r["first_unanswered_after_s"]),
                        "unready %s after the signal, first unanswered request %s after it"
                        % (fmt_s(r["unready_after_s"]), fmt_s(r["first_unanswered_after_s"])))
                promise("%s: every request sent while ready answered, none cut mid-answer" % r["fault"],
                        r["unanswered_sent_while_ready"] == 0 and r["cut_mid_answer"] == 0,
                        "%d unanswered of those sent while ready, %d cut mid-answer; %d sent after readiness turned"
                        " false went unanswered (%s)" % (r["unanswered_sent_while_ready"], r["cut_mid_answer"],
                                                          r["unanswered"] - r["unanswered_sent_while_ready"],
                                                          ", ".join(r["unanswered_kinds"]) or "none"))
            promise("%s: served again after the restart" % r["fault"],
                    r["recovery_auth_s"] is not None and r["recovery_registration_s"] is not None,
                    "auth %s, registration %s after the restart began (includes a JVM start)"
                    % (fmt_s(r["recovery_auth_s"]), fmt_s(r["recovery_registration_s"])))
        if "auth_goodput_with_burst" in r:
            before, during = r["auth_goodput_without_burst"], r["auth_goodput_with_burst"]
            promise("registration burst leaves auth-service its goodput (>= %g x)" % BULKHEAD_SHARE,
                    enough(r.get("auth_allows_without_burst", 0)) and before > 0 and during >= BULKHEAD_SHARE * before,
                    "%s allows/s without the burst (%d allows; at least %d needed), %s with it; share not allowed %s"
                    " without, %s with" % (before, r.get("auth_allows_without_burst", 0), MIN_SAMPLES, during,
                                           r["auth_refused_share_without_burst"], r["auth_refused_share_with_burst"]))
    if failover is not None:
        judge_failover(promise, failover, a.failover_goal)
    elif a.failover_named:
        promise("failover: every phase ran", False, "no failover marks")
    if adversary is not None:
        judge_adversary(promise, adversary, a.expensive)
    elif not a.no_adversary:
        promise("adversary: every phase ran", False, "no adversary results")
    if abuse is None:
        if not a.no_abuse:
            promise("hostile input was sent", False, "no abuse results")
        return verdicts
    f = abuse["fuzzed_bodies"]
    promise("hostile bodies: no 5xx other than 503, no row written", f["other_5xx"] == 0
            and not f.get("rows_written_by_refused"), "%d sent, statuses %s, rows written by refused bodies %s"
            % (f["sent"], f["statuses"], f.get("rows_written_by_refused")))
    promise("oversized headers: no 5xx", abuse["oversized_headers"]["five_xx"] == 0,
            "statuses %s" % abuse["oversized_headers"]["statuses"])
    idle = abuse["idle_connections"]
    promise("idle connections held open, service ready meanwhile", idle["opened"] >= idle.get("requested", 0)
            and idle["ready_while_open"] == 200, "%d of %s opened, readiness %s"
            % (idle["opened"], idle.get("requested", "?"), idle["ready_while_open"]))
    promise("slowloris: service ready meanwhile", abuse["slowloris"]["ready_while_trickling"] == 200,
            "%d clients, readiness %s" % (abuse["slowloris"]["clients"], abuse["slowloris"]["ready_while_trickling"]))
    flood = abuse["wrong_bearer_flood"]
    promise("wrong bearer tokens: all 401, the right token still answered", set(flood["statuses"]) == {"401"}
            and flood["right_token_answers"] > 0 and flood["right_token_200"] == flood["right_token_answers"],
            "statuses %s, right token %d/%d 200 (max %s s)" % (flood["statuses"], flood["right_token_200"],
                                                              flood["right_token_answers"], flood["right_token_max_s"]))
    normal = abuse["normal_client"]
    deadline = normal.get("deadline_s", 2.0)
    promise("a normal client answered within its deadline throughout", normal["requests"] > 0
            and normal["not_200"] == 0 and normal["max_s"] is not None and normal["max_s"] <= deadline,
            "%d requests, %d not 200, slowest %s s (deadline %g s)" % (normal["requests"], normal["not_200"],
                                                                   normal["max_s"], deadline))
    promise("services alive after the abuse", abuse["alive_after"] == {"auth": 200, "registration": 200},
            "readiness %s" % abuse["alive_after"])
    memory = abuse.get("memory") or {}
    peaks = {name: m["peak_mib"] for name, m in memory.items()}
    promise("memory bounded (peak resident <= %g MiB)" % a.memory_limit_mib,
            len(peaks) == 2 and all(p <= a.memory_limit_mib for p in peaks.values()),
            "; ".join("%s %s -> peak %s -> %s MiB" % (name, m["before_mib"], m["peak_mib"], m["after_mib"])
                      for name, m in sorted(memory.items())) or "not measured")
    return verdicts


def fmt_s(x):
    return "none" if x is None else "%.1f s" % x


def main():
    ap = argparse.ArgumentParser()
    for name in ("events", "faults", "abuse", "storm", "failover", "adversary", "secrets", "logs", "rows", "duplicates",
                 "out"):
        ap.add_argument("--" + name)
    ap.add_argument("--elapsed", type=int, default=0)
    ap.add_argument("--recovery-goal", type=float, default=5.0, help="seconds from a database repair to service")
    ap.add_argument("--memory-limit-mib", type=float, default=512, help="resident memory a service may reach")
    ap.add_argument("--expected-faults", default=" ".join(ALL_FAULTS), help="the fault windows that must be there")
    ap.add_argument("--no-abuse", action="store_true", help="the hostile-input part was not selected")
    ap.add_argument("--no-adversary", action="store_true", help="the adversary phase was not selected")
    ap.add_argument("--expensive", action="store_true",
                    help="the adversary phase ran the expensive rows' attack (its recovery is then judged)")
    ap.add_argument("--failover-named", action="store_true", help="the failover phase was selected")
    ap.add_argument("--failover-goal", type=float, default=15.0,
                    help="seconds from a leader's SIGKILL to the first cold login allowed")
    ap.add_argument("--request-timeout", type=float, default=5.0,
                    help="EMQX's request_timeout (its default; the chart's is 10 s): later answers are lost")
    a = ap.parse_args()
    if os.environ.get("CHAOS_ARGS_ONLY"):  # ChaosArgumentsTest: chaos.sh's arguments, parsed and nothing else
        print(json.dumps(vars(a)))
        return 0
    recorded = sorted(load_jsonl(a.events), key=lambda e: e["t"])
    # Readiness polls (what a Kubernetes probe sees) are not answers to callers: kept apart.
    readiness = [e for e in recorded if e["w"] == "ready"]
    events = [e for e in recorded if e["w"] != "ready"]
    marks = load_jsonl(a.faults)
    # client_id -> status ('active' | 'revoked'): DELETE revokes, the row stays.
    rows_text = read_text(a.rows) or ""
    rows = dict((line.split() + ["active"])[:2] for line in rows_text.splitlines() if line.strip())
    duplicates_text = read_text(a.duplicates)
    duplicates = int(duplicates_text.strip() or 0) if duplicates_text is not None else None

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
        ready = w.get("ready", repair)  # the repaired part answers again (PostgreSQL's crash recovery is done)
        inside = [e for e in events if start <= e["t"] <= end]
        other5xx = [e for e in inside if e["status"] >= 500 and e["status"] != 503]
        reasons = sorted(set(e["reason"].replace("+circuit_open", "") for e in inside if e["status"] == 503))
        unanswered = sum(1 for e in inside if e["status"] < 0)
        unanswered_kinds = sorted(set(e["reason"] for e in inside if e["status"] < 0))
        killed = name.endswith(("sigkill", "sigterm"))
        allowed = lambda e: e["w"] == "auth" and e.get("result") == "allow"
        acknowledged = lambda e: e["w"] == "reg" and 200 <= e["status"] < 300
        opened = [e["t"] for e in inside if "+circuit_open" in e["reason"]]
        closed = bool(opened) and any(200 <= e["status"] < 300 and e["t"] > max(opened) for e in inside)
        row = {
            "fault": name,
            "other_5xx": len(other5xx),
            "reasons_503": reasons,
            "unanswered": unanswered,
            "unanswered_kinds": unanswered_kinds,
            # Detection: the first 503; for a killed service process, the first refused connection.
            "detection_s": answered_after(inside, start, lambda e: e["status"] == 503 or (killed and e["status"] < 0)),
            "recovery_auth_s": answered_after(inside, repair, allowed),
            "recovery_registration_s": answered_after(inside, repair, acknowledged),
            "repaired_part_ready_s": round(ready - repair, 2),
            "recovery_auth_after_ready_s": answered_after(inside, ready, allowed),
            "acked_missing": sum(1 for t in missing.values() if start <= t <= end),
            "acked_deletes_not_revoked": sum(1 for t in resurrected.values() if start <= t <= end),
            "breaker": ("opened+closed" if closed else "opened") if opened else "not opened",
            "answers": len(inside),
            "failed_answers": sum(1 for e in inside if e["status"] < 200 or e["status"] >= 500),
        }
        if name == "burst-during-storm":
            storm = load_jsonl(a.storm)
            def allows(t0, t1):
                return sum(1 for s in storm if t0 <= s["t"] + s["d"] < t1 and s.get("result") == "allow")
            def goodput(t0, t1):
                return round(allows(t0, t1) / max(t1 - t0, 0.001), 1)
            def refused(t0, t1):
                answers = [s for s in storm if t0 <= s["t"] + s["d"] < t1]
                return round(sum(1 for s in answers if s["status"] != 200) / max(len(answers), 1), 3)
            row["auth_goodput_without_burst"] = goodput(w["storm-start"] + 1, w["fault"])
            row["auth_goodput_with_burst"] = goodput(w["fault"], w["repair"])
            row["auth_allows_without_burst"] = allows(w["storm-start"] + 1, w["fault"])
            row["auth_refused_share_without_burst"] = refused(w["storm-start"] + 1, w["fault"])
            row["auth_refused_share_with_burst"] = refused(w["fault"], w["repair"])
        if name.endswith("sigterm"):
            row.update(shutdown_order(name, inside, readiness, start, end))
        table.append(row)

    abuse_text = read_text(a.abuse)
    abuse = json.loads(abuse_text) if abuse_text else None
    abuse_rows_written = None
    if abuse:
        abuse_rows_written = sum(1 for cid in abuse["fuzzed_bodies"].get("refused_ids", []) if cid in rows)
        abuse["fuzzed_bodies"]["rows_written_by_refused"] = abuse_rows_written
        abuse["fuzzed_bodies"].pop("refused_ids", None)

    secrets = [s.strip() for s in (read_text(a.secrets) or "").splitlines()]
    secrets = [s for s in secrets if len(s) >= 8]
    hits, files = {}, 0
    for root, _, names in os.walk(a.logs):
        # A log and its compressed twin are one file (read_text takes whichever is there).
        for n in sorted({n[:-3] if n.endswith(".gz") else n for n in names}):
            files += 1
            try:
                text = read_text(os.path.join(root, n)) or ""
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
    adversary = adversary_figures(load_jsonl(a.adversary), a.request_timeout)
    failover = failover_figures(load_jsonl(a.failover), marks, events, load_jsonl(a.storm), must_exist, must_revoke,
                                missing, resurrected)
    verdicts = judge(table, abuse, total, a, adversary, failover)
    summary = {"faults": table, "abuse": abuse, "adversary": adversary, "failover": failover, "total": total,
               "verdicts": verdicts}
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
    if adversary:
        out.append("adversary: lockout of %d known devices (%d guesses): locked out %s; cold logins %s allows/s before"
                   " the spray, %s during it (%d guesses over the sprayed ids); flood %s invented ids/s: %d of %d known"
                   " fast-path logins allowed within %g s; 5xx other than 503: %d"
                   % (adversary["victims"], adversary["attack_requests"], adversary["victims_locked_out"] or "none",
                      adversary["cold_allows_per_s_before_spray"], adversary["cold_allows_per_s_during_spray"],
                      adversary["spray_requests"], adversary["flood_rate_per_s"],
                      adversary["known_allowed_in_time_during_flood"], adversary["known_logins_during_flood"],
                      adversary["request_timeout_s"], adversary["other_5xx"]))
        if adversary.get("recovery"):
            r = adversary["recovery"]
            out.append("adversary: cost-14 rows: %d guesses (%s), %s hashes, %d cold allows during it; %s cold allows/s"
                       " in the last %d s of the %d s after it (capacity %s), first back after %s s"
                       % (adversary["expensive_requests"], adversary["expensive_answers"], adversary["expensive_hashes"],
                          r["cold_allows_during_attack"], r["cold_allows_per_s_back"], RECOVERY_WINDOW,
                          RECOVERY_WITHIN, adversary["cold_allows_per_s_before_spray"], r["back_after_s"]))
        if adversary.get("bcrypt"):
            b = adversary["bcrypt"]
            out.append("adversary: bcrypt %s hashes/s in the quiet spell, %s during the spray; of the spray's %d hashes,"
                       " %d were not the legitimate cold logins'" % (b["per_s_quiet"], b["per_s_spray"], b["spray"],
                                                                      b["not_cold_logins_during_spray"]))
    if failover:
        out.append("failover: writes acknowledged %d (PUTs %d, all read back: %d missing; DELETEs %d, %d not revoked),"
                   " %d answered 503; revoked devices %d attempts, %d allowed; auth 503 %d (%s), other 5xx %d"
                   % (failover["writes_acknowledged"], failover["puts_acknowledged"], failover["puts_missing"],
                      failover["deletes_acknowledged"], failover["deletes_not_revoked"], failover["writes_503"],
                      failover["revoked_attempts"], failover["revoked_allowed"], failover["auth_503"],
                      ",".join(failover["auth_503_reasons"]) or "-", failover["auth_other_5xx"] + failover["reg_other_5xx"]))
        for k in failover["kills"]:
            out.append("failover: %s kill: first cold login allowed after %s; %d answers 503 in the gap; known devices"
                       " with a verifier: %d of %d allowed (%s)"
                       % (k["kill"], fmt_s(k["gap_s"]), k["answers_503"], k["known_with_verifier"]["allowed"],
                          k["known_with_verifier"]["logins"], k["known_with_verifier"]["answers"]))
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
    for v in verdicts:
        out.append("%s %s: %s" % ("PASS" if v["ok"] else "FAIL", v["promise"], v["detail"]))
    broken = [v for v in verdicts if not v["ok"]]
    out.append("verdict: %s" % ("every promise kept" if not broken else "%d promise(s) broken" % len(broken)))
    text = "\n".join(out)
    print(text)
    open(os.path.join(a.out, "table.md"), "w").write(text + "\n")
    cells = "".join("<tr>" + "".join("<td>%s</td>" % html.escape(str(c)) for c in l) + "</tr>" for l in lines[1:])
    open(os.path.join(a.out, "report.html"), "w").write(
        "<!doctype html><meta charset=utf-8><title>make chaos</title><h1>make chaos</h1><table border=1>"
        "<tr>" + "".join("<th>%s</th>" % html.escape(h) for h in head) + "</tr>" + cells + "</table><pre>"
        + html.escape("\n".join(out[len(lines) + 1:])) + "</pre><h2>summary.json</h2><pre>"
        + html.escape(json.dumps(summary, indent=1)) + "</pre>")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
