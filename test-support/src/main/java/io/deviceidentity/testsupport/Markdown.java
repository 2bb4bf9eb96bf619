package io.deviceidentity.testsupport;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Markdown that the doc tests read, parsed once: headings and the anchors GitHub gives them, sections, table rows
 * and their cells, code spans, and words as {@code wc -w} counts them. Fenced code blocks are never headings.
 */
public final class Markdown {

    /** One line of a page, numbered from 1 as an editor shows it. */
    public record Line(int number, String text) {
    }

    public static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)");
    private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern TABLE_SEPARATOR = Pattern.compile("\\|[-:| ]+\\|");

    private Markdown() {
    }

    /** The heading's level (1-6) and text of a line outside a fence, if it is a heading. */
    private static Optional<Matcher> heading(String line) {
        Matcher heading = HEADING.matcher(line);
        return heading.matches() ? Optional.of(heading) : Optional.empty();
    }

    /**
     * The anchors GitHub gives a page's headings: the heading's text (code and link markup removed) in lower case,
     * without punctuation or symbols, each space a hyphen; a repeated one gets {@code -1}, {@code -2}, ...
     */
    public static Set<String> anchors(String markdown) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (Line line : outsideFences(markdown)) {
            heading(line.text()).ifPresent(heading -> {
                String slug = slug(heading.group(2));
                int count = seen.merge(slug, 1, Integer::sum);
                anchors.add(count == 1 ? slug : slug + "-" + (count - 1));
            });
        }
        return anchors;
    }

    /** The anchor of one heading's text, before any {@code -1} for a repeated one. */
    public static String slug(String headingText) {
        String text = headingText.replaceAll("!?\\[([^\\]]*)]\\([^)]*\\)", "$1").replace("`", "");
        return text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}\\p{M} _-]", "").replace(' ', '-');
    }

    /** The page's lines that are not inside a fenced code block, fence lines excluded. */
    public static List<Line> outsideFences(String markdown) {
        List<Line> lines = new ArrayList<>();
        boolean fenced = false;
        List<String> all = markdown.lines().toList();
        for (int i = 0; i < all.size(); i++) {
            if (FENCE.matcher(all.get(i)).find()) {
                fenced = !fenced;
            } else if (!fenced) {
                lines.add(new Line(i + 1, all.get(i)));
            }
        }
        return lines;
    }

    /** A fenced code block: its info string ({@code bash}, or empty), and its lines, the first numbered as the editor shows it. */
    public record Block(String info, int firstLine, List<String> lines) {

        public String text() {
            return String.join("\n", lines) + "\n";
        }
    }

    /** The page's fenced code blocks, in order (an unclosed fence runs to the end of the page). */
    public static List<Block> fencedBlocks(String markdown) {
        List<Block> blocks = new ArrayList<>();
        List<String> all = markdown.lines().toList();
        for (int i = 0; i < all.size(); i++) {
            Matcher open = FENCE.matcher(all.get(i));
            if (open.find()) {
                String info = all.get(i).substring(open.end()).strip();
                List<String> lines = new ArrayList<>();
                int j = i + 1;
                while (j < all.size() && !FENCE.matcher(all.get(j)).find()) {
                    lines.add(all.get(j++));
                }
                blocks.add(new Block(info, i + 2, lines));
                i = j;
            }
        }
        return blocks;
    }

    /**
     * The lines of the section whose heading reads {@code heading} exactly (e.g. {@code "## 503 reasons"}), up to the
     * next heading of the same or a higher level.
     *
     * @throws IllegalArgumentException when the page has no such heading
     */
    public static List<Line> section(String markdown, String heading) {
        int level = heading.indexOf(' ');
        List<Line> section = null;
        for (Line line : outsideFences(markdown)) {
            Optional<Matcher> h = heading(line.text());
            if (section == null) {
                if (line.text().strip().equals(heading)) {
                    section = new ArrayList<>();
                }
            } else if (h.isPresent() && h.get().group(1).length() <= level) {
                break;
            } else {
                section.add(line);
            }
        }
        if (section == null) {
            throw new IllegalArgumentException("no section \"" + heading + "\"");
        }
        return section;
    }

    /**
     * The fenced code blocks of {@code language} (the fence's info string, e.g. {@code bash}) in the section whose
     * heading reads {@code heading} exactly, subsections included: each block's text as a reader would copy it,
     * without its fences.
     *
     * @throws IllegalArgumentException when the page has no such heading
     */
    public static List<String> codeBlocks(String markdown, String heading, String language) {
        int level = heading.indexOf(' ');
        List<String> blocks = new ArrayList<>();
        boolean inSection = false;
        boolean found = false;
        StringBuilder block = null;
        boolean fenced = false;
        for (String line : markdown.lines().toList()) {
            if (FENCE.matcher(line).find()) {
                if (!fenced && inSection && line.strip().substring(3).strip().equals(language)) {
                    block = new StringBuilder();
                } else if (fenced && block != null) {
                    blocks.add(block.toString());
                    block = null;
                }
                fenced = !fenced;
            } else if (fenced) {
                if (block != null) {
                    block.append(line).append('\n');
                }
            } else if (line.strip().equals(heading)) {
                inSection = true;
                found = true;
            } else if (inSection && heading(line).filter(h -> h.group(1).length() <= level).isPresent()) {
                inSection = false;
            }
        }
        if (!found) {
            throw new IllegalArgumentException("no section \"" + heading + "\"");
        }
        return blocks;
    }

    /**
     * The rows of every table among {@code lines}, header rows included (a row can then never hide from a check as
     * the header of a table of its own), separators excluded.
     */
    public static List<Line> tableRows(List<Line> lines) {
        return lines.stream().filter(line -> line.text().strip().startsWith("|"))
                .filter(line -> !TABLE_SEPARATOR.matcher(line.text().strip()).matches()).toList();
    }

    /** A table row's cells, trimmed; a {@code |} inside a code span or escaped as {@code \|} does not split. */
    public static List<String> cells(String row) {
        String line = row.strip();
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        boolean code = false;
        for (int i = 1; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '\\' && i + 1 < line.length() && line.charAt(i + 1) == '|') {
                cell.append('|');
                i++;
            } else if (c == '`') {
                code = !code;
                cell.append(c);
            } else if (c == '|' && !code) {
                cells.add(cell.toString().strip());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        return cells;
    }

    /** The content of a cell that is exactly one code span, {@code `...`}. */
    public static Optional<String> codeSpan(String cell) {
        if (cell.length() >= 2 && cell.startsWith("`") && cell.endsWith("`") && cell.indexOf('`', 1) == cell.length() - 1) {
            return Optional.of(cell.substring(1, cell.length() - 1));
        }
        return Optional.empty();
    }

    /** Words as {@code wc -w} counts them: runs of characters between white space. */
    public static int words(String text) {
        String stripped = text.strip();
        return stripped.isEmpty() ? 0 : stripped.split("\\s+").length;
    }
}
