package io.deviceidentity.credentials;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a rule may grant without the authority to reach other devices: only topics under devices/&lt;client id&gt;, as
 * the rule renders with the device's registered values. Hostile filters are judged as the broker would match them.
 */
class DeviceNamespaceTest {

    private static final String ID = "sensor-7";

    private static int beyond(String topic) {
        return DeviceNamespace.firstRuleBeyond(List.of(AclRule.allow(AclRule.ALL, topic)), ID, "operator");
    }

    @ParameterizedTest(name = "\"{0}\" stays within the device's topics")
    @ValueSource(strings = {"devices/${clientid}/#", "devices/${clientid}/commands/#", "devices/${clientid}",
            "devices/sensor-7/#", "devices/sensor-7/+/state", "devices/sensor-7/a/+/#", "devices/${clientid}/+",
            "eq devices/${clientid}/#", "eq devices/sensor-7/+", "devices/${clientid}/${username}/x",
            "devices/sensor-7//x", "devices/sensor-7/"})
    void filtersUnderTheDevicesOwnSubtreeNeedNoScope(String topic) {
        assertEquals(-1, beyond(topic));
    }

    @ParameterizedTest(name = "\"{0}\" reaches beyond the device's topics")
    @ValueSource(strings = {"#", "+", "+/#", "+/+/#", "+/sensor-7/#", "devices", "devices/#", "devices/+",
            "devices/+/telemetry", "devices/+/#", "devices/${username}/#", "devices/sensor-7x/#",
            "devices/sensor-/#", "devices/sensor-7x", "Devices/sensor-7/#", "/devices/sensor-7/#",
            "$share/g/devices/sensor-7/#", "$queue/devices/sensor-7/#", "$SYS/#", "eq #", "eq devices/+/x",
            "eq devices/#", "other/${clientid}/#", "${clientid}/#", "devices${clientid}/#", "devices/${clientid}x/#",
            "devices/${clientid}${username}/#", "devices//sensor-7/#"})
    void filtersThatOtherTopicsCanMatchReachBeyond(String topic) {
        assertEquals(0, beyond(topic));
    }

    @Test
    void aUsernamePlaceholderIsJudgedByTheValueItRendersTo() {
        List<AclRule> rules = List.of(AclRule.allow(AclRule.ALL, "devices/${username}/#"));
        assertEquals(-1, DeviceNamespace.firstRuleBeyond(rules, ID, ID));
        assertEquals(0, DeviceNamespace.firstRuleBeyond(rules, ID, "sensor-8"));
        // Unrenderable (no username): never treated as within, whatever the broker would make of it.
        assertEquals(0, DeviceNamespace.firstRuleBeyond(rules, ID, null));
    }

    @Test
    void denyRulesGrantNothingAndMayPointAnywhere() {
        List<AclRule> rules = List.of(new AclRule(AclRule.DENY, AclRule.ALL, "#", null, null),
                new AclRule(AclRule.DENY, AclRule.PUBLISH, "devices/+/commands/#", null, null),
                AclRule.allow(AclRule.PUBLISH, "devices/${clientid}/#"));
        assertEquals(-1, DeviceNamespace.firstRuleBeyond(rules, ID, null));
    }

    @Test
    void theFirstAllowBeyondIsNamedByItsIndex() {
        List<AclRule> rules = List.of(AclRule.allow(AclRule.PUBLISH, "devices/${clientid}/#"),
                new AclRule(AclRule.DENY, AclRule.ALL, "#", null, null),
                AclRule.allow(AclRule.SUBSCRIBE, "devices/+/telemetry"),
                AclRule.allow(AclRule.ALL, "#"));
        assertEquals(2, DeviceNamespace.firstRuleBeyond(rules, ID, null));
    }

    @Test
    void aClientIdThatIsNoSingleLevelHasNoNamespace() {
        // devices/a/b/# would be inside the namespace of client id "a".
        List<AclRule> literal = List.of(AclRule.allow(AclRule.ALL, "devices/a/b/#"));
        assertEquals(0, DeviceNamespace.firstRuleBeyond(literal, "a/b", null));
        for (String id : List.of("a+", "a#", "$a", "a$b")) {
            assertEquals(0, DeviceNamespace.firstRuleBeyond(List.of(AclRule.allow(AclRule.ALL, "devices/" + id + "/x")),
                    id, null), id);
        }
    }

    @Test
    void theDefaultRulesAndNoRulesStayWithin() {
        assertEquals(-1, DeviceNamespace.firstRuleBeyond(DefaultAcl.RULES, ID, null));
        assertEquals(-1, DeviceNamespace.firstRuleBeyond(List.of(), ID, null));
    }
}
