#!/usr/bin/env python3
"""Where a JVM's CPU went, by thread group, per answer (the CPU a refusal costs inside a pod's quota).

  thread-cpu.py snap PID OUT.json [--proc /proc]     CPU ticks of every thread of PID, by group, and of the whole
                                                      process (/proc/PID/stat), to OUT.json
  thread-cpu.py read STAT.txt OUT.json               the same from raw stat lines copied earlier: "process <the
                                                      content of /proc/PID/stat>" and "thread <.../task/TID/stat>"
  thread-cpu.py diff BEFORE.json AFTER.json ANSWERS  the seconds each group used between the two snapshots and,
                                                      for ANSWERS answers in that span, the microseconds per answer;
                                                      then the whole process's (its ended threads included)

Groups come from the thread names Linux keeps for each thread (15 characters, in its stat line): bcrypt-*, vert.x-eventloop*
(the event loop: HTTP, JSON, the answer), database-* (the database lane's JDBC threads), C1/C2 CompilerThread (the
JIT), GC threads, and the rest. A JVM keeps the first 15 characters of a Java thread's name, a native image the last
15 (vert.x-eventloop-thread-0 is "vert.x-eventloo" in one, "ntloop-thread-0" in the other); a native image has no JIT
and, with its serial collector, no GC threads. A thread that ended between the snapshots is missing from AFTER; its ticks are lost,
so the figures are a lower bound when threads come and go (the service's threads are long-lived).
"""
import json
import os
import sys

GROUPS = (
    ("bcrypt", ("bcrypt",)),
    ("event loop", ("vert.x-eventloo", "ntloop-thread-", "tloop-thread-")),
    ("database", ("database",)),
    ("JIT", ("C1 CompilerThre", "C2 CompilerThre", "C1 CompilerThread", "C2 CompilerThread")),
    ("GC", ("GC Thread", "G1 ", "VM Thread", "GC ")),
)


def group_of(name):
    for group, prefixes in GROUPS:
        if any(name.startswith(p) for p in prefixes):
            return group
    return "other"


def snapshot(pid, proc="/proc"):
    lines = []
    task_dir = os.path.join(proc, str(pid), "task")
    for tid in os.listdir(task_dir):
        try:
            with open(os.path.join(task_dir, tid, "stat")) as f:
                lines.append("thread " + f.read())
        except OSError:
            continue  # the thread ended while we listed them
    # The process's own counters include the threads that have ended (the groups' sum does not).
    try:
        with open(os.path.join(proc, str(pid), "stat")) as f:
            lines.append("process " + f.read())
    except OSError:
        pass
    return from_stat_lines(lines, os.sysconf("SC_CLK_TCK"))


def from_stat_lines(lines, clk_tck):
    """A snapshot from raw stat lines ("process <stat>" / "thread <stat>"), as bench-pods.sh copies them on a busy
    machine, where starting a program at the right moment is not cheap."""
    groups = {}
    snap = {"clk_tck": clk_tck, "ticks": groups}
    for line in lines:
        kind, _, stat = line.rstrip("\n").partition(" ")
        if ")" not in stat:
            continue
        # The name is in parentheses and may hold spaces and parentheses: the fields after the last ')' are fixed.
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        ticks = int(fields[11]) + int(fields[12])
        if kind == "process":
            snap["process"] = ticks
        elif kind == "thread":
            group = group_of(name)
            groups[group] = groups.get(group, 0) + ticks
    return snap


def diff(before, after, answers):
    tck = after["clk_tck"]
    names = [g for g, _ in GROUPS] + ["other"]
    used = {g: max(0, after["ticks"].get(g, 0) - before["ticks"].get(g, 0)) / tck for g in names}
    lines = ["%-11s %9s %16s" % ("threads", "CPU s", "us per answer")]
    for g in names:
        per = "%.0f" % (used[g] * 1e6 / answers) if answers > 0 else "-"
        lines.append("%-11s %9.2f %16s" % (g, used[g], per))
    not_bcrypt = sum(v for g, v in used.items() if g != "bcrypt")
    lines.append("%-11s %9.2f %16s" % ("all but bcrypt", not_bcrypt,
                                        "%.0f" % (not_bcrypt * 1e6 / answers) if answers > 0 else "-"))
    if "process" in before and "process" in after:
        # The whole process, threads that ended between the snapshots included (a JVM's compiler threads come and go).
        whole = max(0, after["process"] - before["process"]) / tck
        lines.append("%-11s %9.2f %16s" % ("process", whole, "%.0f" % (whole * 1e6 / answers) if answers > 0 else "-"))
    lines.append("answers: %d" % answers)
    return "\n".join(lines)


def main(argv):
    if len(argv) >= 3 and argv[0] == "snap":
        proc = argv[argv.index("--proc") + 1] if "--proc" in argv else "/proc"
        with open(argv[2], "w") as f:
            json.dump(snapshot(int(argv[1]), proc), f)
        return 0
    if len(argv) == 3 and argv[0] == "read":
        with open(argv[1]) as f:
            snap = from_stat_lines(f.readlines(), os.sysconf("SC_CLK_TCK"))
        with open(argv[2], "w") as f:
            json.dump(snap, f)
        return 0
    if len(argv) == 4 and argv[0] == "diff":
        with open(argv[1]) as a, open(argv[2]) as b:
            print(diff(json.load(a), json.load(b), int(float(argv[3]))))
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
