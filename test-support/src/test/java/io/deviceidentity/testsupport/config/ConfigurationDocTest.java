package io.deviceidentity.testsupport.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

/**
 * The comparison behind each service's ConfigurationDocTest, on a small mapping, a small application.properties
 * and a small page: the right page passes, and each kind of drift is named.
 */
class ConfigurationDocTest {

    private static final String PROPERTIES = """
            quarkus.http.port=${FIXTURE_PORT:8081}
            fixture.tokens=${FIXTURE_TOKENS}
            fixture.nested.size=3
            plain.literal=abc
            plain.reference=${plain.literal}
            %test.fixture.deadline=1s
            """;

    private static final String PAGE = """
            # Configuration

            ## Both

            | key | env | default | meaning |
            |---|---|---|---|
            | `fixture.deadline` | `FIXTURE_DEADLINE` | `4s` | the deadline |
            | `fixture.secret` | `FIXTURE_SECRET` | none | a secret, optional |
            | `fixture.tokens` | `FIXTURE_TOKENS` | none (required) | tokens, `a\\|b` |

            ## One

            | key | env | default | meaning |
            |---|---|---|---|
            | `fixture.nested.max-tracked-devices` | `FIXTURE_NESTED_MAX_TRACKED_DEVICES` | `true` | kebab-case |
            | `fixture.nested.size` | `FIXTURE_NESTED_SIZE` | `3` | default from application.properties |
            | `fixture.renamed` | `FIXTURE_RENAMED` | `7` | @WithName |
            | `fixture.in-parent` | `FIXTURE_IN_PARENT` | `x` | @WithParentName |
            | `fixture.maybe.count` | `FIXTURE_MAYBE_COUNT` | none | in an optional group |
            | `quarkus.http.port` | `FIXTURE_PORT` | `8081` | env placeholder |
            | `plain.literal` | `PLAIN_LITERAL` | `abc` | a plain property may be listed |

            ## Other

            | key | env | default | meaning |
            |---|---|---|---|
            | `other.key` | `OTHER_KEY` | `1` | another service's section, not read |
            """;

    private static Map<String, ConfigKey> keys() {
        return ServiceConfiguration.keys(PROPERTIES, List.of(FixtureConfig.class));
    }

    private static List<String> problems(String page) {
        return ConfigurationDoc.problems(keys(), ConfigurationDoc.rows(page, List.of("Both", "One")), "the page");
    }

    @Test
    void mappingKeysAreNamedAsSmallRyeNamesThem() {
        assertEquals(List.of("fixture.deadline", "fixture.in-parent", "fixture.maybe.count",
                "fixture.nested.max-tracked-devices", "fixture.nested.size", "fixture.renamed", "fixture.secret",
                "fixture.tokens"),
                ServiceConfiguration.mappingKeys(FixtureConfig.class).stream().map(ConfigKey::key).sorted().toList());
    }

    @Test
    void defaultsAndEnvNamesComeFromTheMappingUnlessApplicationPropertiesSetsTheKey() {
        Map<String, ConfigKey> keys = keys();
        assertEquals(new ConfigKey("fixture.deadline", "FIXTURE_DEADLINE", Optional.of("4s"), true),
                keys.get("fixture.deadline"), "@WithDefault; the %test profile is not a default");
        assertEquals(new ConfigKey("fixture.nested.size", "FIXTURE_NESTED_SIZE", Optional.of("3"), true),
                keys.get("fixture.nested.size"), "a literal in application.properties is the default");
        assertEquals(new ConfigKey("fixture.tokens", "FIXTURE_TOKENS", Optional.empty(), true),
                keys.get("fixture.tokens"), "an env placeholder names the variable");
        assertEquals(new ConfigKey("fixture.maybe.count", "FIXTURE_MAYBE_COUNT", Optional.empty(), true),
                keys.get("fixture.maybe.count"), "an optional group has no value until set");
        assertEquals(new ConfigKey("quarkus.http.port", "FIXTURE_PORT", Optional.of("8081"), true),
                keys.get("quarkus.http.port"));
        assertEquals(new ConfigKey("plain.reference", "PLAIN_REFERENCE", Optional.of("${plain.literal}"), false),
                keys.get("plain.reference"), "a reference to another property is no env placeholder");
    }

    @Test
    void aPageThatListsEveryKeyRightHasNoProblems() {
        assertEquals(List.of(), problems(PAGE));
    }

    @Test
    void aMissingKeyIsNamedWithItsEnvAndDefault() {
        List<String> problems = problems(PAGE.replace(
                "| `fixture.renamed` | `FIXTURE_RENAMED` | `7` | @WithName |\n", ""));
        assertEquals(List.of("`fixture.renamed` (env `FIXTURE_RENAMED`, default `7`) is not documented in the page"),
                problems);
    }

    @Test
    void aMissingEnvPlaceholderPropertyIsNamed() {
        List<String> problems = problems(PAGE.replace(
                "| `quarkus.http.port` | `FIXTURE_PORT` | `8081` | env placeholder |\n", ""));
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).startsWith("`quarkus.http.port` (env `FIXTURE_PORT`, default `8081`)"));
    }

    @Test
    void aWrongDefaultIsNamed() {
        List<String> problems = problems(PAGE.replace("| `FIXTURE_DEADLINE` | `4s` |", "| `FIXTURE_DEADLINE` | `5s` |"));
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).contains("the default of `fixture.deadline` is `4s`, the page says `5s`"), problems.get(0));
    }

    @Test
    void aDefaultWhereThereIsNoneIsNamed() {
        List<String> problems = problems(PAGE.replace("| `FIXTURE_SECRET` | none |", "| `FIXTURE_SECRET` | `s3cret` |"));
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).contains("the default of `fixture.secret` is none"), problems.get(0));
    }

    @Test
    void aDefaultCellThatIsNeitherCodeNorNoneIsNamed() {
        List<String> problems = problems(PAGE.replace("| `FIXTURE_RENAMED` | `7` |", "| `FIXTURE_RENAMED` | seven |"));
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).contains("must be one code span or start with \"none\""), problems.get(0));
    }

    @Test
    void aWrongEnvNameIsNamed() {
        List<String> problems = problems(PAGE.replace("| `FIXTURE_PORT` |", "| `QUARKUS_HTTP_PORT` |"));
        assertEquals(List.of("line 20: `quarkus.http.port` is set by env `FIXTURE_PORT`, the page says `QUARKUS_HTTP_PORT`"),
                problems);
    }

    @Test
    void aRowForAKeyThatNoLongerExistsIsNamed() {
        List<String> problems = problems(PAGE.replace("## Other", """
                | `fixture.removed` | `FIXTURE_REMOVED` | `1` | gone from the code, in a table of its own |

                ## Other"""));
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).contains("`fixture.removed` is no longer a configuration key of this service"),
                problems.get(0));
    }

    @Test
    void aKeyListedTwiceIsNamed() {
        List<String> problems = problems(PAGE.replace("## Other", """
                | `fixture.deadline` | `FIXTURE_DEADLINE` | `4s` | again |

                ## Other"""));
        assertEquals(List.of("`fixture.deadline` is listed twice: line 7 and line 23"), problems);
    }

    @Test
    void aMissingSectionIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> ConfigurationDoc.rows(PAGE, List.of("Absent")));
    }

    @Test
    void mappingsAreFoundInTheClassPathRootOfTheirAnchor() {
        assertEquals(List.of(FixtureConfig.class), ServiceConfiguration.mappingsBeside(ConfigurationDocTest.class));
    }
}
