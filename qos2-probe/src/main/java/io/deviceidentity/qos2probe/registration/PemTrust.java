package io.deviceidentity.qos2probe.registration;

import java.nio.file.Path;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;

import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;

/**
 * A TLS client context for the JDK's HTTP client that trusts only the CA certificates of one PEM bundle (e.g. the
 * ca.crt of registration-service's certificate Secret), not the JVM's trust store. Netty reads the PEM, as it does
 * for the MQTT links ({@code MqttLinks}); the JDK's HTTP client checks the server's host name itself.
 */
public final class PemTrust {

    private PemTrust() {
    }

    /**
     * @throws IllegalArgumentException when the file cannot be read or holds no X.509 certificate
     */
    public static SSLContext trusting(Path caFile) {
        try {
            return ((JdkSslContext) SslContextBuilder.forClient().sslProvider(SslProvider.JDK)
                    .trustManager(caFile.toFile()).build()).context();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalArgumentException(caFile + " is not a readable PEM bundle of CA certificates: "
                    + e.getMessage(), e);
        }
    }
}
