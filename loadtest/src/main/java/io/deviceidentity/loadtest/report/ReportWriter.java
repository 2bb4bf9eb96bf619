package io.deviceidentity.loadtest.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Writes a run's {@code summary.json} and {@code report.html} into its output directory. */
public final class ReportWriter {

    private ReportWriter() {
    }

    public static Path write(RunSummary summary, Path directory) throws IOException {
        Files.createDirectories(directory);
        String json = Json.MAPPER.writeValueAsString(summary);
        Path summaryFile = directory.resolve("summary.json");
        Files.writeString(summaryFile, json, StandardCharsets.UTF_8);
        Files.writeString(directory.resolve("report.html"), HtmlPage.render("run-report.html", summary.label(), json),
                StandardCharsets.UTF_8);
        return summaryFile;
    }
}
