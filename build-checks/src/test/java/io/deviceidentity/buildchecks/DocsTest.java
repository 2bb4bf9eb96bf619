package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deviceidentity.testsupport.Markdown;

/**
 * The README stays a front door, and no link between the pages is broken: every relative link in
 * README.md and the pages under docs/ names a file that exists and, with a {@code #fragment}, a heading of that file.
 */
class DocsTest {

    static final int README_MAX_WORDS = 1500;

    private static final Pattern CODE_SPAN = Pattern.compile("`+[^`]*`+");
    /** An inline link or image, {@code [text](target "title")}; reference-style links are not used here. */
    private static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");

    @Test
    void theReadmeIsAFrontDoorOfAtMost1500Words() {
        int words = Markdown.words(Repo.read("README.md"));
        assertTrue(words <= README_MAX_WORDS, "README.md has " + words + " words (counted as wc -w does), at most "
                + README_MAX_WORDS + ": move the detail to a page of docs/ and link it");
    }

    @Test
    void everyRelativeLinkInTheReadmeAndDocsPointsToAnExistingFileAndHeading() {
        List<Path> pages = new ArrayList<>();
        pages.add(Repo.ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.walk(Repo.ROOT.resolve("docs"))) {
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

    /** Every broken relative link of one page, as {@code page:line: target: why}. */
    static List<String> brokenLinks(Path root, Path page) {
        List<String> broken = new ArrayList<>();
        for (Markdown.Line line : Markdown.outsideFences(read(page))) {
            Matcher link = LINK.matcher(CODE_SPAN.matcher(line.text()).replaceAll(""));
            while (link.find()) {
                String target = link.group(1);
                if (SCHEME.matcher(target).find()) {
                    continue;
                }
                String problem = problem(root, page, target);
                if (problem != null) {
                    broken.add(root.relativize(page) + ":" + line.number() + ": " + target + ": " + problem);
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
            if (!Markdown.anchors(read(file)).contains(fragment)) {
                return "no such heading in " + root.relativize(file);
            }
        }
        return null;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
