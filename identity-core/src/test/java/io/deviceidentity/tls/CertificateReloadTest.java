package io.deviceidentity.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.quarkus.tls.CertificateUpdatedEvent;
import io.quarkus.tls.TlsConfiguration;

/**
 * The listener's certificate is swapped when its files change and never otherwise: each swap is a moment in which
 * Vert.x closes new connections before their handshake, so a periodic swap of an unchanged certificate (Quarkus's
 * own reload-period) is a defect, not a refresh. Driven step by step: no timer, no clock.
 */
class CertificateReloadTest {

    @TempDir
    Path dir;
    private Path cert;
    private Path key;
    private final AtomicInteger reloads = new AtomicInteger();
    private final AtomicBoolean loadable = new AtomicBoolean(true);
    private final List<CertificateUpdatedEvent> announced = new ArrayList<>();
    private CertificateReload.Watch watch;

    @BeforeEach
    void servingAPair() throws Exception {
        cert = Files.writeString(dir.resolve("tls.crt"), "certificate 1");
        key = Files.writeString(dir.resolve("tls.key"), "key 1");
        TlsConfiguration registryEntry = (TlsConfiguration) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {TlsConfiguration.class}, (proxy, method, args) -> {
                    if (method.getName().equals("reload")) {
                        reloads.incrementAndGet();
                        return loadable.get();
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        watch = new CertificateReload.Watch(new CertificateFiles(List.of(cert, key)), () -> Optional.of(registryEntry),
                announced::add);
    }

    @Test
    void unchangedFilesAreNeverReloadedNorAnnounced() throws Exception {
        for (int period = 0; period < 5; period++) {
            assertFalse(watch.reloadIfChanged());
        }
        Files.writeString(cert, "certificate 1"); // rewritten with the same content: a new mtime, the same certificate
        assertFalse(watch.reloadIfChanged());
        assertEquals(0, reloads.get());
        assertEquals(List.of(), announced);
    }

    @Test
    void aRenewedPairIsReloadedAndAnnouncedOnce() throws Exception {
        Files.writeString(cert, "certificate 2");
        Files.writeString(key, "key 2");

        assertTrue(watch.reloadIfChanged());
        assertFalse(watch.reloadIfChanged(), "the same renewal announced twice");
        assertEquals(1, reloads.get());
        assertEquals(1, announced.size());
        assertEquals(ServerTlsSettings.NAME, announced.get(0).name());
    }

    @Test
    void aPairThatCannotBeLoadedKeepsTheOldCertificateAndIsTriedAgain() throws Exception {
        loadable.set(false);
        Files.writeString(cert, "certificate 2, its key not written yet");
        assertFalse(watch.reloadIfChanged());
        assertEquals(List.of(), announced);

        loadable.set(true);
        Files.writeString(key, "key 2");
        assertTrue(watch.reloadIfChanged(), "the next period did not take the completed pair");
        assertEquals(1, announced.size());
    }

    @Test
    void aFileThatDisappearsAndComesBackIsAChangeOnlyWhenItsContentDiffers() throws Exception {
        Files.delete(key);
        loadable.set(false); // the registry cannot load a pair without its key
        assertFalse(watch.reloadIfChanged());
        loadable.set(true);
        Files.writeString(key, "key 1");
        assertFalse(watch.reloadIfChanged(), "the pair served all along came back: nothing to swap");
        assertEquals(List.of(), announced);
    }
}
