package io.deviceidentity.credentials;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** MQTT topic filter syntax for ACL rules: what a broker can use is accepted, nothing else. */
class TopicFiltersTest {

    @ParameterizedTest(name = "\"{0}\" is a usable filter")
    @ValueSource(strings = {"t", "#", "+", "a/#", "a/+/b", "+/+", "+/#", "devices/${clientid}/#",
            "users/${username}/+/state", "a//b", "/", "$SYS/#", "a/b c/ü", "eq a/#/b", "eq +", "${clientid}",
            "pre${clientid}post/x", "a/b/"})
    void wellFormedFiltersHaveNoProblem(String filter) {
        assertNull(TopicFilters.problem(filter));
        assertNull(new AclRule("allow", "all", filter, null, null).problem());
    }

    @ParameterizedTest(name = "\"{0}\" is refused")
    @ValueSource(strings = {"", "a/#/b", "#/a", "a#", "a/b#", "##", "a/+b", "+a/b", "a/b+", "++", "t\u0000",
            "a/\u0000/b", "t\n", "${foo}/x", "${clientid", "a/${CLIENTID}", "eq ", "\ud800", "a\udc00b"})
    void malformedFiltersAreRefusedAsTheTopicField(String filter) {
        assertNotNull(TopicFilters.problem(filter));
        AclRule.Problem problem = new AclRule("allow", "all", filter, null, null).problem();
        assertNotNull(problem);
        assertEquals("topic", problem.field());
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 513})
    void filtersAreAtMost512Characters(int length) {
        String filter = "a".repeat(length);
        assertEquals(length <= 512, TopicFilters.problem(filter) == null);
    }
}
