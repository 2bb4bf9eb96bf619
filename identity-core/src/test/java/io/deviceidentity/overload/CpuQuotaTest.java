package io.deviceidentity.overload;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalDouble;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pod's CPU limit as the kernel enforces it, read from the layouts a pod and a host have (v1 and v2). */
class CpuQuotaTest {

    @TempDir
    Path dir;

    @Test
    void aV1CgroupOfAQuarterCpuOnAHost() throws IOException {
        Path cgroup = write("cgroup", "4:memory:/x\n1:cpu,cpuacct:/device-identity-bench-1\n0::/\n");
        write("mount/cpu,cpuacct/device-identity-bench-1/cpu.cfs_quota_us", "25000\n");
        write("mount/cpu,cpuacct/device-identity-bench-1/cpu.cfs_period_us", "100000\n");
        assertEquals(OptionalDouble.of(0.25), CpuQuota.of(cgroup, dir.resolve("mount")));
    }

    @Test
    void aV1ControllerMountedAsCpuAlone() throws IOException {
        Path cgroup = write("cgroup", "1:cpu:/pod\n");
        write("mount/cpu/pod/cpu.cfs_quota_us", "200000\n");
        write("mount/cpu/pod/cpu.cfs_period_us", "100000\n");
        assertEquals(OptionalDouble.of(2.0), CpuQuota.of(cgroup, dir.resolve("mount")));
    }

    @Test
    void aV2ContainerWhoseNamespaceMakesItsCgroupTheRoot() throws IOException {
        Path cgroup = write("cgroup", "0::/\n");
        write("mount/cpu.max", "50000 100000\n");
        assertEquals(OptionalDouble.of(0.5), CpuQuota.of(cgroup, dir.resolve("mount")));
    }

    @Test
    void noLimitIsEmptyInBothVersions() throws IOException {
        write("mount/cpu.max", "max 100000\n");
        assertEquals(OptionalDouble.empty(), CpuQuota.of(write("v2", "0::/\n"), dir.resolve("mount")));
        write("mount/cpu/cpu.cfs_quota_us", "-1\n");
        write("mount/cpu/cpu.cfs_period_us", "100000\n");
        assertEquals(OptionalDouble.empty(), CpuQuota.of(write("v1", "1:cpu:/\n"), dir.resolve("mount")));
    }

    @Test
    void unreadableOrMissingFilesAreNoLimitRatherThanAFailure() throws IOException {
        assertEquals(OptionalDouble.empty(), CpuQuota.of(dir.resolve("absent"), dir.resolve("mount")));
        write("mount/cpu.max", "garbage\n");
        assertEquals(OptionalDouble.empty(), CpuQuota.of(write("cgroup", "0::/\n"), dir.resolve("mount")));
    }

    private Path write(String name, String content) throws IOException {
        Path file = dir.resolve(name);
        Files.createDirectories(file.getParent());
        return Files.writeString(file, content);
    }
}
