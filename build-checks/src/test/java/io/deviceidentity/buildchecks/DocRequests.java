package io.deviceidentity.buildchecks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.deviceidentity.testsupport.Markdown;

/**
 * The example requests of the docs (README.md, docs/*.md, emqx/README.md) that target the local stack, run as a reader
 * pastes them: every fenced shell block that sends a {@code curl} or {@code mosquitto_pub} to 127.0.0.1 or localhost,
 * with the ports and CA of the stack under test in place of {@code make up}'s (8081, 8082, 9081, 9082,
 * {@code .local/dev/tls/ca.crt}). Each request must reach the service (a plain {@code http://} to an HTTPS port is an
 * "empty reply") and get what the comments beside it say: the status codes they name (else a 2xx) and the first
 * {@code "result"} they show. Blocks that need Kubernetes ({@code kubectl}, {@code helm}, {@code kind}, {@code docker})
 * are left out, and so is docs/migration.md, whose requests need the export files its other blocks make.
 */
final class DocRequests {

    /** Pages whose blocks are not run here, with the reason. */
    static final Map<String, String> SKIPPED_PAGES = Map.of(
            "docs/migration.md", "its requests read the export files its other blocks make from another broker's store");
    private static final Pattern REQUEST = Pattern.compile("(^|[\\s;&|(])(curl|mosquitto_pub)\\s");
    private static final Pattern LOCAL = Pattern.compile("(127\\.0\\.0\\.1|localhost)|\\$(AUTHN|R)\\b");
    private static final Pattern NEEDS_KUBERNETES = Pattern.compile("(^|\\s)(kubectl|helm|kind|docker)\\s", Pattern.MULTILINE);
    private static final Pattern TRAILING_COMMENT = Pattern.compile("\\s#\\s(.*)$");
    private static final Pattern STATUS = Pattern.compile("\\b([1-5]\\d\\d)\\b");
    private static final Pattern RESULT = Pattern.compile("\"result\":\"(allow|deny)\"");
    private static final Pattern DEVICE = Pattern.compile("(?:/v1/devices/|\\$R/)([A-Za-z0-9._-]+)");

    /** One block to run: where it is, and its text. */
    record Runnable(String page, Markdown.Block block) {

        String where() {
            return page + ":" + block.firstLine();
        }
    }

    /** One request a block sent: the doc line it starts on, curl's exit code, the HTTP status and the body. */
    record Sent(String where, int line, int exit, int status, String body, String error) {
    }

    private DocRequests() {
    }

    static List<Runnable> blocks() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(Repo.ROOT.resolve("README.md"), Repo.ROOT.resolve("emqx/README.md")));
        try (Stream<Path> docs = Files.list(Repo.ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        List<Runnable> runnable = new ArrayList<>();
        for (Path page : pages) {
            String name = Repo.ROOT.relativize(page).toString();
            if (SKIPPED_PAGES.containsKey(name)) {
                continue;
            }
            for (Markdown.Block block : Markdown.fencedBlocks(Files.readString(page))) {
                String text = block.text();
                boolean shell = block.info().isEmpty() || Set.of("bash", "sh", "shell", "console").contains(block.info());
                boolean request = text.lines().anyMatch(l -> !l.strip().startsWith("#") && REQUEST.matcher(l).find()
                        && LOCAL.matcher(l).find());
                if (shell && request && !NEEDS_KUBERNETES.matcher(text).find()) {
                    runnable.add(new Runnable(name, block));
                }
            }
        }
        return runnable;
    }

    /** The client ids the blocks register, so that a test can start from a database without them. */
    static Set<String> registeredDevices(List<Runnable> blocks) {
        Set<String> ids = new LinkedHashSet<>();
        for (Runnable runnable : blocks) {
            Matcher device = DEVICE.matcher(runnable.block().text());
            while (device.find()) {
                ids.add(device.group(1));
            }
        }
        return ids;
    }

    /**
     * Runs one block with bash against the stack: make up's ports and CA replaced by the stack's, every curl recorded
     * by a wrapper (its arguments untouched; the status and body written aside).
     */
    static List<Sent> run(Runnable runnable, Path workDir, Path ca, int authPort, int registrationPort)
            throws Exception {
        String text = runnable.block().text()
                .replace(".local/dev/tls/ca.crt", ca.toString())
                .replace(":8081", ":" + authPort).replace(":8082", ":" + registrationPort)
                .replace(":9081", ":" + (authPort + 1000)).replace(":9082", ":" + (registrationPort + 1000));
        Path dir = Files.createTempDirectory(workDir, "doc-block-");
        Files.writeString(dir.resolve("block.sh"), text);
        Files.writeString(dir.resolve("run.sh"), """
                n=0
                curl() {
                  n=$((n + 1))
                  echo "${BASH_LINENO[0]}" >"$OUT/line-$n"
                  command curl --max-time 20 -sS -o "$OUT/body-$n" -w '%{http_code}' "$@" >"$OUT/status-$n" 2>"$OUT/error-$n"
                  echo $? >"$OUT/exit-$n"
                  cat "$OUT/body-$n"
                }
                source "$OUT/block.sh"
                """);
        ProcessBuilder builder = new ProcessBuilder("bash", dir.resolve("run.sh").toString())
                .directory(Repo.ROOT.toFile()).redirectErrorStream(true).redirectOutput(dir.resolve("output").toFile());
        builder.environment().put("OUT", dir.toString());
        builder.environment().put("STACK_DIR", ca.getParent().getParent().toString());
        Process process = builder.start();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(runnable.where() + ": the block did not finish within 120 s");
        }
        List<Sent> sent = new ArrayList<>();
        for (int n = 1; Files.exists(dir.resolve("exit-" + n)); n++) {
            int line = Integer.parseInt(Files.readString(dir.resolve("line-" + n)).strip());
            String status = Files.readString(dir.resolve("status-" + n)).strip();
            sent.add(new Sent(runnable.page() + ":" + (runnable.block().firstLine() + line - 1), line,
                    Integer.parseInt(Files.readString(dir.resolve("exit-" + n)).strip()),
                    status.matches("\\d{3}") ? Integer.parseInt(status) : 0,
                    Files.exists(dir.resolve("body-" + n)) ? Files.readString(dir.resolve("body-" + n)) : "",
                    Files.readString(dir.resolve("error-" + n)).strip()));
        }
        return sent;
    }

    /** What is wrong with one request's answer, by the comments around it in the block; null when nothing. */
    static String problem(Runnable runnable, Sent sent) {
        if (sent.exit() != 0) {
            return sent.where() + ": curl failed (exit " + sent.exit() + "): " + sent.error();
        }
        String comments = comments(runnable.block().lines(), sent.line() - 1);
        Set<Integer> codes = new LinkedHashSet<>();
        Matcher code = STATUS.matcher(comments);
        while (code.find()) {
            codes.add(Integer.parseInt(code.group(1)));
        }
        boolean statusOk = codes.isEmpty() ? sent.status() / 100 == 2 : codes.contains(sent.status());
        if (!statusOk) {
            return sent.where() + ": status " + sent.status() + ", the doc says " + (codes.isEmpty() ? "nothing (a 2xx)"
                    : codes) + "; body: " + sent.body();
        }
        Matcher result = RESULT.matcher(comments);
        if (result.find() && !sent.body().replace(" ", "").contains("\"result\":\"" + result.group(1) + "\"")) {
            return sent.where() + ": the doc says \"result\":\"" + result.group(1) + "\", the answer is " + sent.body();
        }
        return null;
    }

    /**
     * The comments that speak for the command starting at {@code index}: the comment lines right above it, the
     * trailing comments of its own lines (up to the next blank, comment or curl line), and the {@code # →} lines
     * right after it.
     */
    static String comments(List<String> lines, int index) {
        StringBuilder comments = new StringBuilder();
        for (int i = index - 1; i >= 0 && lines.get(i).strip().startsWith("#"); i--) {
            comments.append(lines.get(i)).append('\n');
        }
        int i = index;
        do {
            Matcher trailing = TRAILING_COMMENT.matcher(lines.get(i));
            if (trailing.find()) {
                comments.append(trailing.group(1)).append('\n');
            }
            i++;
        } while (i < lines.size() && !lines.get(i).isBlank() && !lines.get(i).strip().startsWith("#")
                && !REQUEST.matcher(lines.get(i)).find());
        for (; i < lines.size() && lines.get(i).strip().startsWith("# →"); i++) {
            comments.append(lines.get(i)).append('\n');
        }
        return comments.toString();
    }
}
