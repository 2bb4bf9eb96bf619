package io.deviceidentity.testsupport.tls;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.Optional;
import java.util.function.Consumer;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * One HTTP/1.1 request on a fresh connection, over TLS or in plain text, answered with its status line: what the
 * refusal tests need to tell "served" from "refused at the handshake" from "no answer", without any client library
 * that might retry, fall back or trust more than it is told to.
 */
public final class TlsClient {

    private static final int TIMEOUT_MILLIS = 30_000;

    private TlsClient() {
    }

    /** What a TLS request came to: the server's leaf certificate, the response's status line, the TLS version. */
    public record Served(X509Certificate serverCertificate, String statusLine, String protocol) {
    }

    /**
     * GET {@code path} over TLS with {@code client}, verifying the server's certificate chain and its name
     * (localhost). Throws an {@link IOException} (an {@code SSLException} for a refused handshake) when refused: with
     * TLS 1.3 a server refuses a client certificate after the client's side of the handshake is done, so the refusal
     * can only show when the answer is read; that read is part of this call.
     */
    public static Served get(SSLContext client, int port, String path) throws IOException {
        return get(client, port, path, parameters -> { });
    }

    /**
     * {@link #get}, with the client's TLS parameters narrowed by {@code offer} first (e.g. one protocol version, or
     * given cipher suites), to see which versions and suites a server accepts.
     */
    public static Served get(SSLContext client, int port, String path, Consumer<SSLParameters> offer)
            throws IOException {
        try (SSLSocket socket = (SSLSocket) client.getSocketFactory().createSocket()) {
            socket.connect(new InetSocketAddress("localhost", port), TIMEOUT_MILLIS);
            socket.setSoTimeout(TIMEOUT_MILLIS);
            SSLParameters parameters = socket.getSSLParameters();
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
            offer.accept(parameters);
            socket.setSSLParameters(parameters);
            socket.startHandshake();
            X509Certificate server = (X509Certificate) socket.getSession().getPeerCertificates()[0];
            String status = request(socket, path)
                    .orElseThrow(() -> new IOException("the server closed the TLS connection without an answer"));
            return new Served(server, status, socket.getSession().getProtocol());
        }
    }

    /**
     * {@link #get}, retried for up to {@code patience} while the connection fails: for a client that must be served.
     * With a short reload period (the tests' 1 s) the server swaps its SSL options that often, and a connection that
     * arrives while Vert.x completes a swap is closed before the handshake (an NPE in Vert.x's SslContextUpdate, seen
     * under stress-ng); a real client retries such a connection. The last failure is thrown after {@code patience}.
     */
    public static Served getRetryingClosedConnections(SSLContext client, int port, String path,
            java.time.Duration patience) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        while (true) {
            try {
                return get(client, port, path);
            } catch (IOException closed) {
                if (System.nanoTime() > deadline) {
                    throw closed;
                }
                Thread.sleep(200);
            }
        }
    }

    /**
     * GET {@code path} in plain text; the status line if anything HTTP came back, empty when the server closed the
     * connection or said nothing an HTTP client could read.
     */
    public static Optional<String> plainGet(int port, String path) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("localhost", port), TIMEOUT_MILLIS);
            socket.setSoTimeout(TIMEOUT_MILLIS);
            return request(socket, path).filter(line -> line.startsWith("HTTP/"));
        } catch (SocketTimeoutException e) {
            return Optional.empty();
        }
    }

    private static Optional<String> request(Socket socket, String path) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        InputStream in = socket.getInputStream();
        StringBuilder line = new StringBuilder();
        for (int b = in.read(); b != -1 && b != '\n'; b = in.read()) {
            if (b != '\r') {
                line.append((char) b);
            }
        }
        return line.isEmpty() ? Optional.empty() : Optional.of(line.toString());
    }
}
