package io.deviceidentity.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class MarkdownTest {

    private static final String PAGE = """
            # Page

            ## `make bench`: the overload curve
            ## Walk-through: register → authn → revoke → authn
            ## API
            ## API

            ```
            # not a heading: inside a fence
            | not | a row |
            ```

            ## 503 reasons

            | reason | when |
            |---|---|
            | `overload` | busy |
            | `a|b` | escaped \\| pipe |

            ### A subsection stays inside

            | `deadline` | late |

            ## Next
            | `outside` | not in the section |
            """;

    @Test
    void anchorsAreMadeAsGitHubMakesThem() {
        assertEquals(List.of("page", "make-bench-the-overload-curve", "walk-through-register--authn--revoke--authn",
                "api", "api-1", "503-reasons", "a-subsection-stays-inside", "next"), new ArrayList<>(Markdown.anchors(PAGE)));
        assertEquals("503-backend_unavailable", Markdown.slug("503 `backend_unavailable`"));
        assertEquals("security-the-verified-credential-fast-path", Markdown.slug("Security: the verified-credential fast path"));
    }

    @Test
    void aSectionsTableRowsAreItsOwnWithTheirLineNumbers() {
        List<Markdown.Line> rows = Markdown.tableRows(Markdown.section(PAGE, "## 503 reasons"));
        assertEquals(List.of(15, 17, 18, 22), rows.stream().map(Markdown.Line::number).toList());
        assertEquals(List.of("`a|b`", "escaped | pipe"), Markdown.cells(rows.get(2).text()));
        assertThrows(IllegalArgumentException.class, () -> Markdown.section(PAGE, "## Absent"));
    }

    @Test
    void aCodeSpanCellAndWordsAsWcCountsThem() {
        assertEquals("overload", Markdown.codeSpan("`overload`").orElseThrow());
        assertEquals(false, Markdown.codeSpan("`a` and `b`").isPresent());
        assertEquals(7, Markdown.words("# One two\n\n```bash\nmake up\n```\n"));
    }

    @Test
    void codeBlocksAreTheSectionsFencesOfOneLanguageAsWritten() {
        String page = """
                ## Export
                ```bash
                echo "$HOME"
                ```
                ```json
                {}
                ```
                ### Sub
                ```bash
                echo two
                ```
                ## Next
                ```bash
                echo outside
                ```
                """;
        assertEquals(List.of("echo \"$HOME\"\n", "echo two\n"), Markdown.codeBlocks(page, "## Export", "bash"));
        assertThrows(IllegalArgumentException.class, () -> Markdown.codeBlocks(page, "## Missing", "bash"));
    }
}
