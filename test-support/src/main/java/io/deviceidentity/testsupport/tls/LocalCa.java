package io.deviceidentity.testsupport.tls;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A certificate authority of the tests, made by the project's own scripts/local-ca.sh (the one {@code make up} uses),
 * in a directory of its own: its CA certificate, the leaves it signs, and TLS client contexts that trust it.
 */
public final class LocalCa {

    private final Path dir;

    private LocalCa(Path dir) {
        this.dir = dir;
    }

    /** The CA in {@code dir}, created unless it exists ({@code local-ca.sh ca}). */
    public static LocalCa in(Path dir) {
        LocalCa ca = new LocalCa(dir);
        ca.run("ca", dir.toString());
        return ca;
    }

    /** Signs a fresh key and certificate for {@code name} (localhost, 127.0.0.1); a re-issue replaces both files. */
    public LocalCa issue(String name) {
        run("issue", dir.toString(), name);
        return this;
    }

    /** Signs a certificate for {@code name} whose validity ended yesterday. */
    public LocalCa expired(String name) {
        run("expired", dir.toString(), name);
        return this;
    }

    public Path caCertificate() {
        return dir.resolve("ca.crt");
    }

    public Path certificate(String name) {
        return dir.resolve(name + ".crt");
    }

    public Path key(String name) {
        return dir.resolve(name + ".key");
    }

    /** The leaf certificate now in {@code name}'s file. */
    public X509Certificate leaf(String name) {
        return certificates(certificate(name)).get(0);
    }

    /** A key store holding this CA's certificate only, for clients that take one (RestAssured). */
    public KeyStore trustStore() {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", certificates(caCertificate()).get(0));
            return trust;
        } catch (java.security.GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot load " + caCertificate(), e);
        }
    }

    /** A verifying TLS client that trusts this CA only and presents no certificate. */
    public SSLContext trustingClient() {
        return context(null, null);
    }

    /** A verifying TLS client that trusts this CA and presents {@code client}'s certificate, issued by {@code by}. */
    public SSLContext trustingClientWithCertificate(LocalCa by, String client) {
        return context(by, client);
    }

    /** A TLS server's context presenting {@code name}'s certificate (issued by this CA), for a local HTTPS peer. */
    public SSLContext serving(String name) {
        return context(this, name);
    }

    private SSLContext context(LocalCa by, String client) {
        try {
            KeyStore trust = trustStore();
            TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trustManagers.init(trust);
            KeyManagerFactory keyManagers = null;
            if (client != null) {
                KeyStore keys = KeyStore.getInstance("PKCS12");
                keys.load(null, null);
                char[] password = "test".toCharArray();
                keys.setKeyEntry(client, privateKey(by.key(client)), password,
                        certificates(by.certificate(client)).toArray(Certificate[]::new));
                keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                keyManagers.init(keys, password);
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keyManagers == null ? null : keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
            return context;
        } catch (java.security.GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot build a TLS client from " + dir, e);
        }
    }

    /** A PKCS #8 PEM key ({@code openssl genpkey}'s output), EC as local-ca.sh makes them. */
    static PrivateKey privateKey(Path pem) {
        try {
            String base64 = Files.readString(pem).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
            return KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("not a PKCS #8 EC key: " + pem, e);
        }
    }

    static List<X509Certificate> certificates(Path pem) {
        try (InputStream in = Files.newInputStream(pem)) {
            List<X509Certificate> certificates = new ArrayList<>();
            for (Certificate certificate : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                certificates.add((X509Certificate) certificate);
            }
            return certificates;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("not a PEM certificate: " + pem, e);
        }
    }

    private void run(String... arguments) {
        List<String> command = new ArrayList<>();
        command.add(script().toString());
        command.addAll(List.of(arguments));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** scripts/local-ca.sh beside the stack script the root pom names ({@code stack.script}). */
    private static Path script() {
        Path stack = Path.of(System.getProperty("stack.script", "../scripts/stack.sh"));
        return stack.resolveSibling("local-ca.sh");
    }
}
