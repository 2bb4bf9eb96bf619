package io.deviceidentity.bench.bcrypt;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

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

import io.deviceidentity.credentials.legacy.AnchorFormats;
import io.deviceidentity.credentials.legacy.LegacyHash;
import io.deviceidentity.testsupport.LegacyHashVectors;

/**
 * One verification of each imported scheme a migrated fleet brings, with the code auth-service runs
 * (identity-core {@code credentials/legacy}), single-threaded, beside {@link BcryptVerifyBenchmark}'s bcrypt at cost
 * 10: 1000 / score is the checks per second one core can do, which is what admission control must know about a
 * scheme before a storm of its devices arrives. The hashes are the ones the tests verify, made by other tools
 * ({@link LegacyHashVectors}): EMQX's default (salted SHA-256, salt prefix), mosquitto-go-auth's default (PBKDF2-SHA512,
 * 100 000 iterations) and argon2id (m = 4 MiB, t = 3, p = 2).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = "-Xmx256m")
@Warmup(iterations = 1, time = 2)
@Measurement(iterations = 3, time = 2)
public class LegacySchemeVerifyBenchmark {

    private byte[] password;
    private LegacyHash emqxSaltedSha256;
    private LegacyHash mosquittoPbkdf2Sha512;
    private LegacyHash argon2id;

    @Setup
    public void parseOnce() {
        password = LegacyHashVectors.PASSWORD.getBytes(StandardCharsets.UTF_8);
        emqxSaltedSha256 = AnchorFormats.emqxSimple("sha256", LegacyHashVectors.SHA256_PREFIX, LegacyHashVectors.SALT,
                "prefix");
        mosquittoPbkdf2Sha512 = AnchorFormats.mosquittoPbkdf2(LegacyHashVectors.MOSQUITTO_PBKDF2, null);
        argon2id = AnchorFormats.argon2id(LegacyHashVectors.ARGON2ID);
        // A scheme that does not accept its hash would be measuring its failure path: refuse to run.
        if (!emqxSaltedSha256() || !mosquittoPbkdf2Sha512() || !argon2id()) {
            throw new IllegalStateException("a legacy scheme does not verify the correct password");
        }
    }

    @Benchmark
    public boolean emqxSaltedSha256() {
        return emqxSaltedSha256.matches(password);
    }

    @Benchmark
    public boolean mosquittoPbkdf2Sha512() {
        return mosquittoPbkdf2Sha512.matches(password);
    }

    @Benchmark
    public boolean argon2id() {
        return argon2id.matches(password);
    }
}
