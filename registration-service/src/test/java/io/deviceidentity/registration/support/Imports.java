package io.deviceidentity.registration.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.restassured.RestAssured;

/**
 * Calls {@code POST /v1/device-imports} as an operator's tool would: the whole file at once with its
 * {@code Content-Length} ({@link #post}), or a chunked upload sent piece by piece over a plain socket
 * ({@link Upload}), so that a test can look at the database while the body is still being sent.
 */
public final class Imports {

    public static final String PATH = "/v1/device-imports";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Imports() {
    }

    /** The answer: its status and its JSON lines. */
    public record Answer(int status, List<JsonNode> lines) {

        public JsonNode summary() {
            JsonNode last = lines.get(lines.size() - 1);
            if (!"summary".equals(last.path("type").asText())) {
                throw new AssertionError("the last line is not the summary: " + last);
            }
            return last;
        }

        public List<JsonNode> ofType(String type) {
            return lines.stream().filter(line -> type.equals(line.path("type").asText())).toList();
        }

        /** Line number → reason of every rejected line. */
        public Map<Integer, String> rejectedReasons() {
            return ofType("rejected").stream().collect(Collectors.toMap(line -> line.get("line").asInt(),
                    line -> line.get("reason").asText()));
        }
    }

    public static String line(String clientId, String hash) {
        return JSON.createObjectNode().put("client_id", clientId).put("password_hash", hash).toString() + "\n";
    }

    public static Answer post(String body) {
        return post(body, "");
    }

    public static Answer post(String body, String query) {
        return post(body, query, Devices.TOKEN);
    }

    /** The import as the caller holding {@code token}. */
    public static Answer post(String body, String query, String token) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + RestAssured.port + PATH + query))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/x-ndjson")
                .timeout(Duration.ofMinutes(5))
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)).build();
        try {
            HttpResponse<String> response = CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), parse(response.body()));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static List<JsonNode> parse(String body) throws IOException {
        List<JsonNode> lines = new ArrayList<>();
        for (String line : body.split("\n")) {
            if (!line.isBlank()) {
                lines.add(JSON.readTree(line));
            }
        }
        return lines;
    }

    /** A chunked upload on its own connection (HTTP/1.1, {@code Connection: close}). */
    public static final class Upload implements AutoCloseable {

        private final Socket socket;
        private final OutputStream out;

        public Upload() throws IOException {
            socket = new Socket("127.0.0.1", RestAssured.port);
            socket.setSoTimeout(120_000);
            out = socket.getOutputStream();
            out.write(("POST " + PATH + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + Devices.TOKEN
                    + "\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
        }

        public void send(String text) throws IOException {
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            out.write((Integer.toHexString(bytes.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
        }

        /** Ends the body and reads the whole answer. */
        public Answer finish() throws IOException {
            out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String head = readHead(in);
            int status = Integer.parseInt(head.substring(9, 12));
            String body = head.toLowerCase().contains("transfer-encoding: chunked") ? dechunk(in)
                    : new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return new Answer(status, parse(body));
        }

        private static String readHead(InputStream in) throws IOException {
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            int matched = 0;
            while (matched < 4) {
                int b = in.read();
                if (b < 0) {
                    throw new IOException("the connection closed before the answer's head ended");
                }
                head.write(b);
                matched = (b == '\r' || b == '\n') && "\r\n\r\n".charAt(matched) == b ? matched + 1 : 0;
            }
            return head.toString(StandardCharsets.US_ASCII);
        }

        private static String dechunk(InputStream in) throws IOException {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            while (true) {
                String size = readLine(in).split(";", 2)[0].trim();
                int length = Integer.parseInt(size, 16);
                if (length == 0) {
                    return body.toString(StandardCharsets.UTF_8);
                }
                body.write(in.readNBytes(length));
                readLine(in);
            }
        }

        private static String readLine(InputStream in) throws IOException {
            StringBuilder line = new StringBuilder();
            for (int b = in.read(); b != '\n'; b = in.read()) {
                if (b < 0) {
                    throw new IOException("the connection closed inside a chunk");
                }
                if (b != '\r') {
                    line.append((char) b);
                }
            }
            return line.toString();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
