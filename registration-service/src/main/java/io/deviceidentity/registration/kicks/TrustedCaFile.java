package io.deviceidentity.registration.kicks;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;

import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;

import io.deviceidentity.tls.CertificateFiles;

/**
 * A PEM bundle of CA certificates that a TLS client trusts instead of the JVM's, re-read when its content changes:
 * cert-manager re-issues the {@code ca.crt} of the Secret mounted in the pod when the chart's CA is renewed, and the
 * next kick must trust it without a restart (pgJDBC does the same for {@code sslrootcert}, per connection).
 */
final class TrustedCaFile {

    private final Path file;
    private final CertificateFiles content;
    private byte[] digest;
    private SSLContext context;

    /** Reads the bundle now, so that a missing or malformed file stops the service at start, not at the first kick. */
    TrustedCaFile(Path file) {
        this.file = file;
        this.content = new CertificateFiles(List.of(file));
        this.digest = content.digest();
        this.context = contextOf(read());
    }

    /**
     * The TLS context trusting the file's CAs as they are now, and whether it is another one than the last call's.
     * A file that cannot be read or parsed right now (a renewal being written) keeps the last good context.
     */
    synchronized Current current() {
        byte[] now = content.digest();
        if (now == null || CertificateFiles.same(now, digest)) {
            return new Current(context, false);
        }
        try {
            context = contextOf(Files.readAllBytes(file));
            digest = now;
            return new Current(context, true);
        } catch (IOException | IllegalStateException halfWritten) {
            return new Current(context, false);
        }
    }

    record Current(SSLContext context, boolean changed) {
    }

    private byte[] read() {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new IllegalStateException("identity.kicks.emqx-api-ca-file " + file + " cannot be read: " + e, e);
        }
    }

    /** Netty (Vert.x's, in every Quarkus service) reads the PEM bundle; a JDK context is what the HTTP client takes. */
    private SSLContext contextOf(byte[] pem) {
        try {
            return ((JdkSslContext) SslContextBuilder.forClient().sslProvider(SslProvider.JDK)
                    .trustManager(new ByteArrayInputStream(pem)).build()).context();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalStateException("identity.kicks.emqx-api-ca-file " + file + " is not a PEM CA bundle: "
                    + e.getMessage(), e);
        }
    }
}
