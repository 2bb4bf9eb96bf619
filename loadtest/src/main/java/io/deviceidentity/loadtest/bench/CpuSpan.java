package io.deviceidentity.loadtest.bench;

/**
 * Where the CPU went across one bench run, from two snapshots scripts/bench.sh writes (cpu_snapshot: raw lines of
 * /proc, no arithmetic): {@code time <epoch seconds>}; {@code auth|postgres|pgbouncer <a /proc/PID/stat line>}
 * (any number each, summed); {@code core_auth|core_load <the core's /proc/stat line>}; and the shell's {@code times}
 * output (its second line: the CPU of the children it has waited for, the load generator or pgbench).
 */
public final class CpuSpan {

    /** One snapshot. */
    public record Snapshot(double time, long auth, long postgres, long pgbouncer, long[] coreAuth, long[] coreLoad,
            double children) {

        public static Snapshot parse(String snapshot, String times) {
            double time = 0;
            long auth = 0;
            long postgres = 0;
            long pgbouncer = 0;
            long[] coreAuth = {0, 0};
            long[] coreLoad = {0, 0};
            for (String line : snapshot.split("\n")) {
                int space = line.indexOf(' ');
                if (space < 0) {
                    continue;
                }
                String key = line.substring(0, space);
                String rest = line.substring(space + 1).strip();
                switch (key) {
                    case "time" -> time = Numbers.awkNumber(rest);
                    case "auth" -> auth += ticks(rest);
                    case "postgres" -> postgres += ticks(rest);
                    case "pgbouncer" -> pgbouncer += ticks(rest);
                    case "core_auth" -> coreAuth = core(rest);
                    case "core_load" -> coreLoad = core(rest);
                    default -> { }
                }
            }
            return new Snapshot(time, auth, postgres, pgbouncer, coreAuth, coreLoad, children(times));
        }

        /** utime + stime of a /proc/PID/stat line (fields 14 and 15; the command name may hold spaces). */
        static long ticks(String stat) {
            int close = stat.lastIndexOf(')');
            String[] f = stat.substring(close + 1).strip().split("\\s+");
            return f.length > 12 ? Long.parseLong(f[11]) + Long.parseLong(f[12]) : 0;
        }

        /** A core's "busy total" ticks from its /proc/stat line: busy = user nice system irq softirq steal. */
        static long[] core(String line) {
            String[] f = line.strip().split("\\s+");
            if (f.length < 9) {
                return new long[] {0, 0};
            }
            long[] v = new long[9];
            for (int i = 1; i < 9; i++) {
                v[i] = Long.parseLong(f[i]);
            }
            return new long[] {v[1] + v[2] + v[3] + v[6] + v[7] + v[8], v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7] + v[8]};
        }

        /** Seconds of the children's user + system time from bash's {@code times} ("0m1.500s 0m0.250s"). */
        static double children(String times) {
            String[] lines = times.split("\n");
            if (lines.length < 2) {
                return 0;
            }
            String[] f = lines[1].replaceAll("[ms]", " ").strip().split("\\s+");
            if (f.length < 4) {
                return 0;
            }
            return Double.parseDouble(Numbers.awk(Numbers.awkNumber(f[0]) * 60 + Numbers.awkNumber(f[1])
                    + Numbers.awkNumber(f[2]) * 60 + Numbers.awkNumber(f[3])));
        }
    }

    private CpuSpan() {
    }

    /**
     * The note line: how busy each core was, each process's share of the wall time, and its CPU microseconds per
     * COUNT (answers, or pgbench's transactions); TOOL names the child (the load generator or pgbench).
     */
    public static String note(Snapshot before, Snapshot after, int ticksPerSecond, long count, String what, String tool,
            String label, String authCpus, String loadCpus) {
        double wall = after.time() - before.time();
        double auth = (after.auth() - before.auth()) / (double) ticksPerSecond;
        double pg = (after.postgres() - before.postgres()) / (double) ticksPerSecond;
        double bouncer = (after.pgbouncer() - before.pgbouncer()) / (double) ticksPerSecond;
        double child = after.children() - before.children();
        double busyA = busy(before.coreAuth(), after.coreAuth());
        double busyL = busy(before.coreLoad(), after.coreLoad());
        return "CPU " + label + " (" + Numbers.fixed(wall, 0) + " s, " + count + " " + what + "): CPU " + authCpus
                + " busy " + Numbers.fixed(100 * busyA, 0) + " % (auth-service " + pct(auth, wall) + "), CPU " + loadCpus
                + " busy " + Numbers.fixed(100 * busyL, 0) + " % (PostgreSQL " + pct(pg, wall) + ", PgBouncer "
                + pct(bouncer, wall) + ", " + tool + " " + pct(child, wall) + "); CPU us per "
                + what.substring(0, what.length() - 1) + ": auth-service " + per(auth, count) + ", PostgreSQL "
                + per(pg, count) + ", PgBouncer " + per(bouncer, count) + ", " + tool + " " + per(child, count)
                + (tool.equals("pgbench") ? "" : " (with its JVM start)");
    }

    private static double busy(long[] before, long[] after) {
        return after[1] > before[1] ? (after[0] - before[0]) / (double) (after[1] - before[1]) : 0;
    }

    private static String pct(double seconds, double wall) {
        return Numbers.fixed(100 * seconds / wall, 0) + " %";
    }

    private static String per(double seconds, long count) {
        return count > 0 ? Numbers.fixed(seconds * 1e6 / count, 0) : "-";
    }
}
