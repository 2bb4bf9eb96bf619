package io.deviceidentity.loadtest.report;

import java.util.Arrays;
import java.util.List;

/** A plain-text table: the first row is the header, underlined; the first column left-aligned, the others right. */
public final class TextTable {

    private TextTable() {
    }

    public static String render(List<List<String>> rows) {
        int columns = rows.get(0).size();
        int[] widths = new int[columns];
        for (List<String> row : rows) {
            for (int c = 0; c < columns; c++) {
                widths[c] = Math.max(widths[c], row.get(c).length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (int r = 0; r < rows.size(); r++) {
            List<String> row = rows.get(r);
            for (int c = 0; c < columns; c++) {
                String cell = row.get(c);
                out.append(c == 0 ? String.format("%-" + widths[c] + "s", cell)
                        : "  " + String.format("%" + widths[c] + "s", cell));
            }
            out.append('\n');
            if (r == 0) {
                out.append("-".repeat(Arrays.stream(widths).sum() + 2 * (columns - 1))).append('\n');
            }
        }
        return out.toString();
    }
}
