package io.deviceidentity.loadtest.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deviceidentity.loadtest.LoadTest;
import io.deviceidentity.testsupport.tls.LocalCa;

/**
 * {@code loadtest run} refuses TLS files it cannot use before any load starts: exit 2 and a message naming the
 * option and the file, never the file's content. Nothing listens on the URL: a refused run never dials it.
 */
class RunCommandTlsFilesTest {

    private static final String URL = "https://127.0.0.1:1/mqtt/authn";

    @TempDir
    Path dir;

    record Outcome(int exit, String stderr) {
    }

    @Test
    void anUnreadableClientCertificateOrKeyIsRefused() {
        LocalCa ca = LocalCa.in(dir.resolve("ca")).issue("emqx-client");
        Outcome noKey = run("--url", URL, "--client-cert", ca.certificate("emqx-client").toString(),
                "--client-key", dir.resolve("missing.key").toString());
        assertEquals(2, noKey.exit(), noKey.stderr());
        assertTrue(noKey.stderr().contains("--client-key " + dir.resolve("missing.key") + " cannot be read"),
                noKey.stderr());

        Outcome noCert = run("--url", URL, "--client-cert", dir.resolve("missing.crt").toString(),
                "--client-key", ca.key("emqx-client").toString());
        assertEquals(2, noCert.exit(), noCert.stderr());
        assertTrue(noCert.stderr().contains("--client-cert " + dir.resolve("missing.crt") + " cannot be read"),
                noCert.stderr());
    }

    @Test
    void aKeyVertxCannotReadIsRefusedWithoutQuotingIt() throws Exception {
        LocalCa ca = LocalCa.in(dir.resolve("ca")).issue("emqx-client");
        String secret = "bm90LWEta2V5LWJ1dC1hLXNlY3JldA";
        Path key = Files.writeString(dir.resolve("garbled.key"),
                "-----BEGIN ENCRYPTED PRIVATE KEY-----\n" + secret + "\n-----END ENCRYPTED PRIVATE KEY-----\n");
        Outcome outcome = run("--url", URL, "--client-cert", ca.certificate("emqx-client").toString(), "--client-key",
                key.toString());
        assertEquals(2, outcome.exit(), outcome.stderr());
        assertTrue(outcome.stderr().contains("--client-key " + key), outcome.stderr());
        assertFalse(outcome.stderr().contains(secret), "the key's content is in the message: " + outcome.stderr());
    }

    @Test
    void aClientCertificateForAPlainUrlIsRefusedWithAMessage() {
        LocalCa ca = LocalCa.in(dir.resolve("ca")).issue("emqx-client");
        Outcome outcome = run("--url", "http://127.0.0.1:1/mqtt/authn", "--client-cert",
                ca.certificate("emqx-client").toString(), "--client-key", ca.key("emqx-client").toString());
        assertEquals(2, outcome.exit(), outcome.stderr());
        assertTrue(outcome.stderr().contains("https://"), outcome.stderr());
    }

    @Test
    void aCertificateWithoutItsKeyIsAUsageError() {
        Outcome outcome = run("--url", URL, "--client-cert", dir.resolve("tls.crt").toString());
        assertEquals(2, outcome.exit(), outcome.stderr());
        assertTrue(outcome.stderr().contains("--client-cert and --client-key go together"), outcome.stderr());
    }

    /** {@code loadtest run ARGS}, stderr captured. */
    private Outcome run(String... args) {
        String[] line = new String[args.length + 2];
        line[0] = "run";
        System.arraycopy(args, 0, line, 1, args.length);
        line[args.length + 1] = "--out=" + dir.resolve("out");
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            int exit = LoadTest.execute(line);
            return new Outcome(exit, captured.toString(StandardCharsets.UTF_8));
        } finally {
            System.setErr(original);
        }
    }
}
