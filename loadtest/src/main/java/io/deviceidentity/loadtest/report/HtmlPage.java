package io.deviceidentity.loadtest.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

/**
 * Fills the report templates: the data as JSON and Chart.js (from its webjar) inlined, so a report is one file
 * that opens in any browser without network access.
 */
final class HtmlPage {

    private HtmlPage() {
    }

    static String render(String template, String title, String dataJson) {
        // "</" inside a <script> element would end it early.
        String safeData = dataJson.replace("</", "<\\/");
        return resource("loadtest/" + template)
                .replace("@CHARTJS@", chartJs())
                .replace("@TITLE@", escape(title))
                .replace("@DATA@", safeData);
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    private static String chartJs() {
        Properties properties = new Properties();
        try (InputStream in = HtmlPage.class.getClassLoader().getResourceAsStream("loadtest/chartjs.properties")) {
            properties.load(in);
        } catch (IOException | NullPointerException missing) {
            throw new IllegalStateException("loadtest/chartjs.properties is missing from the jar", missing);
        }
        return resource(properties.getProperty("chartjs.resource"));
    }

    private static String resource(String name) {
        try (InputStream in = HtmlPage.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException failure) {
            throw new UncheckedIOException(failure);
        }
    }
}
