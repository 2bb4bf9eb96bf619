package io.deviceidentity.overload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalDouble;

/**
 * The CPU limit of the process's own cgroup, in CPUs (0.25 for a pod with {@code limits.cpu: 250m}): the CFS quota
 * divided by its period, from cgroup v2's {@code cpu.max} or v1's {@code cpu.cfs_quota_us}/{@code cpu.cfs_period_us}.
 * Empty when there is none (unlimited) or it cannot be read. The JVM rounds the same quota up to whole CPUs
 * ({@link Runtime#availableProcessors()}: 1 for 0.25 and for 1), which is why this reads the files itself: below
 * one CPU the bcrypt threads are scheduled differently ({@link BcryptScheduling}).
 *
 * <p>Inside a container the cgroup namespace makes the process's own cgroup the root of the mount, so the path in
 * {@code /proc/self/cgroup} is {@code /}; on a host it names the cgroup under the mount. Both are tried.
 */
public final class CpuQuota {

    private CpuQuota() {
    }

    public static OptionalDouble ofThisProcess() {
        return of(Path.of("/proc/self/cgroup"), Path.of("/sys/fs/cgroup"));
    }

    /** {@code cgroupFile}: a {@code /proc/<pid>/cgroup}; {@code mount}: where the cgroup filesystems are mounted. */
    static OptionalDouble of(Path cgroupFile, Path mount) {
        List<String> lines;
        try {
            lines = Files.readAllLines(cgroupFile);
        } catch (IOException | RuntimeException unreadable) {
            return OptionalDouble.empty();
        }
        for (String line : lines) {
            // hierarchy-id:controllers:path; v2 is "0::/path", v1's cpu controller "N:cpu,cpuacct:/path".
            String[] parts = line.split(":", 3);
            if (parts.length != 3) {
                continue;
            }
            String path = parts[2].startsWith("/") ? parts[2].substring(1) : parts[2];
            if (parts[0].equals("0") && parts[1].isEmpty()) {
                OptionalDouble v2 = firstReadable(mount.resolve(path), mount, CpuQuota::fromCpuMax);
                if (v2.isPresent()) {
                    return v2;
                }
            } else if (List.of(parts[1].split(",")).contains("cpu")) {
                Path controller = mount.resolve(parts[1]);
                if (!Files.isDirectory(controller)) {
                    controller = mount.resolve("cpu");
                }
                OptionalDouble v1 = firstReadable(controller.resolve(path), controller, CpuQuota::fromQuotaAndPeriod);
                if (v1.isPresent()) {
                    return v1;
                }
            }
        }
        return OptionalDouble.empty();
    }

    private interface Reader {
        OptionalDouble read(Path dir) throws IOException;
    }

    private static OptionalDouble firstReadable(Path own, Path root, Reader reader) {
        for (Path dir : List.of(own, root)) {
            try {
                if (Files.isDirectory(dir)) {
                    return reader.read(dir);
                }
            } catch (IOException | RuntimeException unreadable) {
                // try the next place
            }
        }
        return OptionalDouble.empty();
    }

    /** cgroup v2: "max 100000" (no limit) or "25000 100000". */
    private static OptionalDouble fromCpuMax(Path dir) throws IOException {
        String[] fields = Files.readString(dir.resolve("cpu.max")).trim().split("\\s+");
        if (fields[0].equals("max")) {
            return OptionalDouble.empty();
        }
        return ratio(Long.parseLong(fields[0]), Long.parseLong(fields[1]));
    }

    /** cgroup v1: a quota of -1 means no limit. */
    private static OptionalDouble fromQuotaAndPeriod(Path dir) throws IOException {
        long quota = Long.parseLong(Files.readString(dir.resolve("cpu.cfs_quota_us")).trim());
        long period = Long.parseLong(Files.readString(dir.resolve("cpu.cfs_period_us")).trim());
        return quota < 0 ? OptionalDouble.empty() : ratio(quota, period);
    }

    private static OptionalDouble ratio(long quota, long period) {
        return period > 0 && quota > 0 ? OptionalDouble.of((double) quota / period) : OptionalDouble.empty();
    }
}
