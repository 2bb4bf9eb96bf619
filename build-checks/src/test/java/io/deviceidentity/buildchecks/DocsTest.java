package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README stays a front door, and no link between the pages is broken: every relative link in
 * README.md and docs/*.md names a file that exists and, with a {@code #fragment}, a heading of that file.
 */
class DocsTest {

    static final int README_MAX_WORDS = 1500;

    private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)");
    private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern CODE_SPAN = Pattern.compile("`+[^`]*`+");
    /** An inline link or image, {@code [text](target "title")}; reference-style links are not used here. */
    private static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");

    @Test
    void theReadmeIsAFrontDoorOfAtMost1500Words() {
        int words = words(Repo.read("README.md"));
        assertTrue(words <= README_MAX_WORDS, "README.md has " + words + " words (counted as wc -w does), at most "
                + README_MAX_WORDS + ": move the detail to a page of docs/ and link it");
    }

    @Test
    void everyRelativeLinkInTheReadmeAndDocsPointsToAnExistingFileAndHeading() {
        List<Path> pages = new ArrayList<>();
        pages.add(Repo.ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.list(Repo.ROOT.resolve("docs"))) {
            docs.filter(file -> file.toString().endsWith(".md")).sorted().forEach(pages::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> broken = new ArrayList<>();
        pages.forEach(page -> broken.addAll(brokenLinks(Repo.ROOT, page)));
        assertEquals(List.of(), broken, "broken links:\n" + String.join("\n", broken));
    }

    @Test
    void aLinkToAMissingFileOrHeadingIsReported(@TempDir Path root) throws IOException {
        Files.createDirectories(root.resolve("docs"));
        Files.writeString(root.resolve("docs/target.md"), """
                # Target

                ## What `make up` reads: ports, logs

                ## Repeated
                ## Repeated

                ```
                # not a heading: inside a fence
                ```
                """);
        Files.writeString(root.resolve("README.md"), """
                # Front

                [ok](docs/target.md), [heading](docs/target.md#what-make-up-reads-ports-logs),
                [second of two](docs/target.md#repeated-1), [here](#front), [web](https://example.com/x.md),
                `[in code](docs/absent.md)`, [`code text`](docs/target.md)

                [missing file](docs/absent.md) and [missing heading](docs/target.md#not-a-heading-inside-a-fence)
                ![image](docs/absent.png)
                """);
        assertEquals(List.of(
                "README.md:7: docs/absent.md: no such file",
                "README.md:7: docs/target.md#not-a-heading-inside-a-fence: no such heading in docs/target.md",
                "README.md:8: docs/absent.png: no such file"), brokenLinks(root, root.resolve("README.md")));
    }

    @Test
    void anchorsAreMadeAsGitHubMakesThem() {
        assertEquals(List.of("security-the-verified-credential-fast-path", "make-bench-the-overload-curve",
                "walk-through-register--authn--revoke--authn", "the-fast-paths-storms-known-devices-and-a-mixed-storm",
                "api", "api-1"),
                new ArrayList<>(anchors("""
                        # Security: the verified-credential fast path
                        ## `make bench`: the overload curve
                        ## Walk-through: register → authn → revoke → authn
                        ### The fast path's storms: known devices and a mixed storm
                        ## API
                        ## API
                        """)));
    }

    @Test
    void wordsAreCountedAsWcCountsThem() {
        assertEquals(7, words("# One two\n\n```bash\nmake up\n```\n"));
    }

    static int words(String text) {
        String stripped = text.strip();
        return stripped.isEmpty() ? 0 : stripped.split("\\s+").length;
    }

    /** Every broken relative link of one page, as {@code page:line: target: why}. */
    static List<String> brokenLinks(Path root, Path page) {
        List<String> broken = new ArrayList<>();
        List<String> lines = read(page).lines().toList();
        boolean fenced = false;
        for (int i = 0; i < lines.size(); i++) {
            if (FENCE.matcher(lines.get(i)).find()) {
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                continue;
            }
            Matcher link = LINK.matcher(CODE_SPAN.matcher(lines.get(i)).replaceAll(""));
            while (link.find()) {
                String target = link.group(1);
                if (SCHEME.matcher(target).find()) {
                    continue;
                }
                String problem = problem(root, page, target);
                if (problem != null) {
                    broken.add(root.relativize(page) + ":" + (i + 1) + ": " + target + ": " + problem);
                }
            }
        }
        return broken;
    }

    private static String problem(Path root, Path page, String target) {
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String fragment = hash < 0 ? null : target.substring(hash + 1);
        Path file = path.isEmpty() ? page
                : (path.startsWith("/") ? root.resolve(path.substring(1)) : page.getParent().resolve(path)).normalize();
        if (!Files.exists(file)) {
            return "no such file";
        }
        if (fragment != null && !fragment.isEmpty()) {
            if (!file.toString().endsWith(".md")) {
                return "a #fragment on a file that is not Markdown";
            }
            if (!anchors(read(file)).contains(fragment)) {
                return "no such heading in " + root.relativize(file);
            }
        }
        return null;
    }

    /**
     * The anchors GitHub gives a page's headings: the heading's text (code and link markup removed) in lower case,
     * without punctuation or symbols, each space a hyphen; a repeated one gets {@code -1}, {@code -2}, ...
     */
    static Set<String> anchors(String markdown) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean fenced = false;
        for (String line : markdown.lines().toList()) {
            if (FENCE.matcher(line).find()) {
                fenced = !fenced;
                continue;
            }
            Matcher heading = HEADING.matcher(line);
            if (fenced || !heading.matches()) {
                continue;
            }
            String text = heading.group(2).replaceAll("!?\\[([^\\]]*)]\\([^)]*\\)", "$1").replace("`", "");
            String slug = text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}\\p{M} _-]", "").replace(' ', '-');
            int count = seen.merge(slug, 1, Integer::sum);
            anchors.add(count == 1 ? slug : slug + "-" + (count - 1));
        }
        return anchors;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
