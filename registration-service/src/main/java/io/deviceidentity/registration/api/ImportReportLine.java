package io.deviceidentity.registration.api;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The shape of one line of an import's report, for the OpenAPI document only (the report is written field by field
 * by {@code ImportReport}): which fields a line has depends on its {@code type}.
 */
public record ImportReportLine(
        /* rejected | progress | summary */ String type,
        /* rejected: the line's number, from 1 */ Integer line,
        /* rejected, and a summary that did not complete: why */ String reason,
        String message,
        /* progress, and a summary that did not complete: every line up to this one is committed */
        @JsonProperty("committed_through_line") Integer committedThroughLine,
        /* summary: whether the whole body was read and written */ Boolean complete,
        /* summary: lines read */ Integer lines,
        Long imported,
        Long replaced,
        Long skipped,
        Long rejected,
        /* progress, summary: imported or replaced rows whose bcrypt cost is below the service's */
        @JsonProperty("weak_hashes") Long weakHashes) {
}
