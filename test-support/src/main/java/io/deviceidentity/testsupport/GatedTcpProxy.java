package io.deviceidentity.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP path to a real server (the test PgBouncer) that a test can keep shut: while shut, every connection is
 * accepted and closed at once, as a database that is not up yet looks to a driver; once opened, bytes are copied
 * both ways unchanged. It lets a test start a service whose database is unreachable, look at it, then let the
 * database appear, without stopping anything other tests share.
 *
 * <p>The gate is a JVM-wide system property ({@link #openProperty}), not a field: under {@code @QuarkusTest} the
 * test resource that starts the proxy and the test that opens it may see this class through different class
 * loaders.
 */
public final class GatedTcpProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    public GatedTcpProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listener = new ServerSocket();
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        Thread acceptor = new Thread(this::accept, "gated-proxy-" + targetPort);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** The system property naming the port of the proxy a test resource started ({@link #openTestGate()}). */
    public static final String TEST_GATE_PORT = "test.database.gate.port";

    /**
     * Starts the proxy of a test resource in front of {@code targetPort}, and names its port in
     * {@link #TEST_GATE_PORT} for the test, which may run in another class loader.
     */
    public static GatedTcpProxy forTest(int targetPort) throws IOException {
        GatedTcpProxy proxy = new GatedTcpProxy(targetPort);
        System.setProperty(TEST_GATE_PORT, String.valueOf(proxy.port()));
        return proxy;
    }

    /** Opens the proxy that {@link #forTest} started. */
    public static void openTestGate() {
        open(Integer.getInteger(TEST_GATE_PORT));
    }

    /** The system property that, set to {@code true}, lets connections through the proxy on {@code port}. */
    public static String openProperty(int port) {
        return "gated-proxy." + port + ".open";
    }

    /** From now on, connections to the proxy on {@code port} reach the target. */
    public static void open(int port) {
        System.setProperty(openProperty(port), "true");
    }

    private boolean isOpen() {
        return Boolean.getBoolean(openProperty(port()));
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                if (!isOpen()) {
                    client.close();
                    continue;
                }
                Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                sockets.add(client);
                sockets.add(server);
                copy(client, server);
                copy(server, client);
            } catch (IOException stopped) {
                // the listener was closed, or the target refused this one connection: the driver sees a reset
            }
        }
    }

    private void copy(Socket from, Socket to) {
        Thread copier = new Thread(() -> {
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                in.transferTo(out);
            } catch (IOException closed) {
                // one side went away: close both below
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "gated-proxy-copy");
        copier.setDaemon(true);
        copier.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    @Override
    public void close() throws IOException {
        System.clearProperty(openProperty(port()));
        if (String.valueOf(port()).equals(System.getProperty(TEST_GATE_PORT))) {
            System.clearProperty(TEST_GATE_PORT);
        }
        listener.close();
        sockets.forEach(GatedTcpProxy::closeQuietly);
    }
}
