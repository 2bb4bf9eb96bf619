package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import com.marcnuri.helm.DryRun;
import com.marcnuri.helm.InstallCommand;

/**
 * NOTES.txt, rendered by a client-only dry-run install of the pure defaults (Helm's template output has no notes),
 * and the HOCON in emqx/ that users paste into their own EMQX: one text, checked against the other.
 */
class NotesTest {

    private static final String BEGIN = "# --- begin device-identity EMQX configuration ---";
    private static final String END = "# --- end device-identity EMQX configuration ---";

    static String notes(Map<String, Object> sets) {
        InstallCommand install = Chart.helm().install().withName(Chart.RELEASE).withNamespace(Chart.NAMESPACE)
                .withKubeVersion(Chart.KUBE_VERSION).clientOnly().dryRun().withDryRunOption(DryRun.CLIENT);
        for (Map.Entry<String, Object> e : sets.entrySet()) {
            install = install.set(e.getKey(), e.getValue());
        }
        String output = install.call().getOutput();
        return output.substring(output.indexOf("NOTES:"));
    }

    @Test
    void withItsOwnEmqxTheNotesPrintNoHocon() {
        String notes = notes(Map.of());
        assertFalse(notes.contains(BEGIN));
        assertTrue(notes.contains("helm test " + Chart.RELEASE));
        assertTrue(notes.contains("bcrypt concurrency 2, queue cap 20 (max wait 1s)"), notes);
        assertTrue(notes.contains("3 nodes x pool_size 55 (derived) x pipelining 1 = 165 in flight"), notes);
    }

    @Test
    void withoutEmqxTheNotesPrintTheHoconToPaste() {
        String hocon = hocon(notes(Map.of("emqx.enabled", false)));
        assertTrue(hocon.contains("enable_pipelining = 1"));
        assertTrue(hocon.contains("pool_size = 55"), "the derived pool reaches the HOCON to paste");
        assertTrue(hocon.contains("request_timeout = \"10s\""));
        assertTrue(hocon.contains("no_match = deny"));
        assertTrue(hocon.contains("url = \"https://" + Chart.name("auth-service") + "." + Chart.NAMESPACE + ".svc:8081/mqtt/authn\""));
        assertTrue(hocon.contains("password = \"${password}\""));
    }

    @Test
    void theHoconInEmqxDirectoryIsWhatTheChartPrintsWithItsDefaults() {
        String chart = hocon(notes(Map.of("emqx.enabled", false)));
        String file = Chart.read(Chart.REPO.resolve("emqx/auth-chain.hocon"));
        assertEquals(withoutComments(chart), withoutComments(file),
                "emqx/auth-chain.hocon and the chart's HOCON (values.yaml emqx.*) disagree: change both together");
    }

    /** Pasting the block replaces EMQX's chain: the NOTES name the migration's transition chain and its value. */
    @Test
    void withYourOwnEmqxTheNotesWarnThatTheBlockReplacesTheChainDuringAMigration() {
        String notes = notes(Map.of("emqx.enabled", false));
        assertTrue(notes.contains("cuts off every device"), notes);
        assertTrue(notes.contains("authService.unknownDevice=ignore"), notes);
        assertTrue(notes.contains("(unknown devices now: deny;"), notes);
    }

    /** README "Pointing EMQX at auth-service" shows the authentication block of emqx/auth-chain.hocon, unchanged. */
    @Test
    void theReadmeShowsTheAuthenticationBlockOfTheHoconFile() {
        String file = Chart.read(Chart.REPO.resolve("emqx/auth-chain.hocon"));
        String block = file.substring(file.indexOf("authentication = ["), file.indexOf("\n]\n") + 2);
        String readme = Chart.read(Chart.REPO.resolve("README.md"));
        int section = readme.indexOf("## Pointing EMQX at auth-service");
        int begin = readme.indexOf("```hocon\n", section) + "```hocon\n".length();
        int end = readme.indexOf("```", begin);
        assertTrue(section >= 0 && begin > section && end > begin, "README has no hocon block under its EMQX section");
        assertEquals(withoutComments(block), withoutComments(readme.substring(begin, end)),
                "README's EMQX configuration and emqx/auth-chain.hocon disagree");
    }

    static String hocon(String notes) {
        int begin = notes.indexOf(BEGIN);
        int end = notes.indexOf(END);
        assertTrue(begin >= 0 && end > begin, "no HOCON in:\n" + notes);
        return notes.substring(begin + BEGIN.length(), end);
    }

    private static String withoutComments(String hocon) {
        return hocon.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#"))
                .reduce("", (a, b) -> a + b + "\n");
    }
}
