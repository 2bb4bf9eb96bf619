package io.deviceidentity.bench.bcrypt;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.concurrent.TimeUnit;

import org.bouncycastle.crypto.generators.OpenBSDBCrypt;
import org.mindrot.jbcrypt.BCrypt;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import io.deviceidentity.credentials.Bcrypt;
import io.quarkus.elytron.security.common.BcryptUtil;

/**
 * One bcrypt verification at cost 10 (what the services store) with each JVM implementation, single-threaded:
 * the time per call is the CPU one authn costs, so 1000 / score is the checks per second one core can do.
 * Every candidate verifies the same "$2a$" hash (the variant all four read; jBCrypt 0.4 reads no other).
 * Short iterations keep {@code make bench} within its time budget; pass JMH options to measure longer.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = "-Xmx256m")
@Warmup(iterations = 1, time = 2)
@Measurement(iterations = 3, time = 2)
public class BcryptVerifyBenchmark {

    private static final String PASSWORD = "demo-password-4711";
    private static final int COST = 10;

    private String hash;
    private byte[] passwordBytes;
    private char[] passwordChars;

    @Setup
    public void hashOnce() {
        byte[] salt = new byte[16];
        new SecureRandom().nextBytes(salt);
        passwordBytes = PASSWORD.getBytes(StandardCharsets.UTF_8);
        passwordChars = PASSWORD.toCharArray();
        hash = OpenBSDBCrypt.generate("2a", passwordBytes, salt, COST);
        // A candidate that does not accept the hash would be measuring its failure path: refuse to run.
        if (!identityCoreBouncyCastle() || !jbcrypt() || !favre() || !quarkusElytron()) {
            throw new IllegalStateException("a candidate does not verify the correct password");
        }
    }

    /** What auth-service runs: identity-core's Bcrypt (password policy check + Bouncy Castle OpenBSDBCrypt). */
    @Benchmark
    public boolean identityCoreBouncyCastle() {
        return Bcrypt.matches(PASSWORD, hash);
    }

    @Benchmark
    public boolean jbcrypt() {
        return BCrypt.checkpw(PASSWORD, hash);
    }

    @Benchmark
    public boolean favre() {
        return at.favre.lib.crypto.bcrypt.BCrypt.verifyer().verify(passwordChars, hash).verified;
    }

    /** Quarkus's own helper (Elytron's modular-crypt bcrypt). */
    @Benchmark
    public boolean quarkusElytron() {
        return BcryptUtil.matches(PASSWORD, hash);
    }
}
