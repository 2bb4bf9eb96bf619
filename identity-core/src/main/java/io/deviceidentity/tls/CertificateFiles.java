package io.deviceidentity.tls;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;

/**
 * The PEM files one TLS configuration is made of (certificate, key, and the client CA where there is one), and a
 * digest of their content, so that {@link CertificateReload} swaps the listener's certificate only when a file
 * actually changed (and registration-service's kick client re-reads its CA bundle only then). The digest stays in
 * memory; nothing of a key's content is ever logged.
 */
public final class CertificateFiles {

    private final List<Path> files;

    public CertificateFiles(List<Path> files) {
        this.files = List.copyOf(files);
    }

    /**
     * A SHA-256 over every file's bytes in order, a missing file counted as such (so that its return is a change);
     * null when a file cannot be read now (a renewal being written): the caller keeps what it has and looks again.
     */
    public byte[] digest() {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (Path file : files) {
                try {
                    byte[] content = Files.readAllBytes(file);
                    sha.update(longBytes(content.length));
                    sha.update(content);
                } catch (NoSuchFileException missing) {
                    sha.update(longBytes(-1));
                }
            }
            return sha.digest();
        } catch (IOException unreadable) {
            return null;
        } catch (NoSuchAlgorithmException impossible) {
            throw new IllegalStateException("SHA-256 is part of every Java platform", impossible);
        }
    }

    public static boolean same(byte[] a, byte[] b) {
        return a != null && b != null && MessageDigest.isEqual(a, b);
    }

    private static byte[] longBytes(long value) {
        return ByteBuffer.allocate(Long.BYTES).putLong(value).array();
    }

    @Override
    public String toString() {
        return Arrays.toString(files.toArray());
    }
}
