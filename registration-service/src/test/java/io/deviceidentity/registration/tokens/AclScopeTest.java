package io.deviceidentity.registration.tokens;

import static io.deviceidentity.registration.support.Devices.as;
import static io.deviceidentity.registration.support.Devices.uniqueId;
import static io.deviceidentity.registration.support.Devices.uniquePrefix;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.deviceidentity.credentials.AclRule;
import io.deviceidentity.registration.support.Database;
import io.deviceidentity.registration.support.Devices;
import io.deviceidentity.registration.support.Imports;
import io.deviceidentity.testsupport.ForeignBcryptHashes;
import io.quarkus.test.junit.QuarkusTest;

/**
 * A rule that allows topics outside the device's own ({@code devices/<client id>/#}) is a grant of the scope
 * {@code superuser}, like {@code "superuser": true}: a PUT without it is {@code 403} naming the scope and the rule and
 * changes nothing; an import line with it is rejected ({@code forbidden}) while the others are imported. Rules
 * within the device's own topics need {@code write} only.
 */
@QuarkusTest
class AclScopeTest {

    private static final String PATH = "/v1/devices/{id}";
    private static final String HASH = ForeignBcryptHashes.LIBXCRYPT_2B.hash();
    private static final String PASSWORD = "a-long-enough-device-password";

    private static String body(String username, String permission, String topic) {
        return "{\"password\":\"" + PASSWORD + "\"" + (username == null ? "" : ",\"username\":\"" + username + "\"")
                + ",\"acl\":[{\"permission\":\"" + permission + "\",\"action\":\"all\",\"topic\":\"" + topic + "\"}]}";
    }

    private static String line(String clientId, String topic) {
        return "{\"client_id\":\"" + clientId + "\",\"password_hash\":\"" + HASH
                + "\",\"acl\":[{\"permission\":\"allow\",\"action\":\"all\",\"topic\":\"" + topic + "\"}]}\n";
    }

    @ParameterizedTest(name = "\"{0}\" needs superuser")
    @ValueSource(strings = {"#", "devices/#", "devices/+/telemetry", "+/${clientid}/#", "devices/${username}/#",
            "eq devices/+/commands/reboot", "$share/g/devices/${clientid}/#"})
    void withoutSuperuserAPutAllowingTopicsBeyondTheDeviceIs403AndStoresNothing(String topic) {
        String id = uniqueId("acl-beyond");
        as(Devices.WRITER_TOKEN).body(body("someone-else", "allow", topic)).put(PATH, id).then().statusCode(403)
                .body("reason", equalTo("forbidden"))
                .body("message", containsString("token 'writer' lacks the scope 'superuser'"))
                .body("message", containsString("acl[0]"));
        assertTrue(Database.row(id).isEmpty());
        as(Devices.TOKEN).body(body("someone-else", "allow", topic)).put(PATH, id).then().statusCode(201);
        assertEquals(topic, Database.row(id).orElseThrow().acl().get(0).topic());
    }

    @Test
    void withoutSuperuserAReplacingPutThatWidensTheRulesKeepsTheStoredOnes() {
        String id = uniqueId("acl-widen");
        as(Devices.WRITER_TOKEN).body(body(null, "allow", "devices/${clientid}/#")).put(PATH, id).then()
                .statusCode(201);
        String hashBefore = Database.row(id).orElseThrow().passwordHash();

        as(Devices.WRITER_TOKEN).body(body(null, "allow", "devices/+/#")).put(PATH, id).then().statusCode(403)
                .body("message", containsString("'superuser'"));

        List<AclRule> stored = Database.row(id).orElseThrow().acl();
        assertEquals("devices/${clientid}/#", stored.get(0).topic());
        assertEquals(hashBefore, Database.row(id).orElseThrow().passwordHash());
    }

    @ParameterizedTest(name = "\"{0}\" needs only write")
    @ValueSource(strings = {"devices/${clientid}/#", "devices/${clientid}/telemetry/+", "devices/${username}/#",
            "eq devices/${clientid}/state"})
    void rulesWithinTheDevicesOwnTopicsNeedOnlyWrite(String topic) {
        String id = uniqueId("acl-own");
        // The username renders to the client id, so devices/${username}/# is the device's own subtree here.
        as(Devices.WRITER_TOKEN).body(body(id, "allow", topic)).put(PATH, id).then().statusCode(201);
        assertEquals(topic, Database.row(id).orElseThrow().acl().get(0).topic());
    }

    @Test
    void aDenyRuleAnywhereNeedsOnlyWrite() {
        String id = uniqueId("acl-deny");
        as(Devices.WRITER_TOKEN).body(body(null, "deny", "#")).put(PATH, id).then().statusCode(201);
    }

    @Test
    void withoutSuperuserImportLinesAllowingTopicsBeyondTheDeviceAreRejectedAndTheOthersImported() {
        String prefix = uniquePrefix("acl-import");
        String body = line(prefix + "own", "devices/${clientid}/#") + line(prefix + "all", "#")
                + line(prefix + "others", "devices/+/telemetry");

        Imports.Answer writer = Imports.post(body, "", Devices.WRITER_TOKEN);
        assertEquals(200, writer.status());
        assertEquals(Map.of(2, "forbidden", 3, "forbidden"), writer.rejectedReasons());
        String message = writer.ofType("rejected").get(0).get("message").asText();
        assertTrue(message.contains("token 'writer' lacks the scope 'superuser'") && message.contains("acl[0]"),
                message);
        assertEquals(1, writer.summary().get("imported").asLong());
        assertTrue(Database.row(prefix + "all").isEmpty());
        assertTrue(Database.row(prefix + "others").isEmpty());

        Imports.Answer admin = Imports.post(body, "", Devices.TOKEN);
        assertEquals(Map.of(), admin.rejectedReasons());
        assertEquals("#", Database.row(prefix + "all").orElseThrow().acl().get(0).topic());
    }

    @Test
    void withoutSuperuserAReplacingImportCannotWidenAnExistingDevicesRules() {
        String prefix = uniquePrefix("acl-replace");
        assertEquals(200, Imports.post(line(prefix + "a", "devices/${clientid}/#"), "", Devices.IMPORTER_TOKEN)
                .status());

        Imports.Answer replacing = Imports.post(line(prefix + "a", "#"), "?existing=replace", Devices.IMPORTER_TOKEN);
        assertEquals(Map.of(1, "forbidden"), replacing.rejectedReasons());
        assertEquals("devices/${clientid}/#", Database.row(prefix + "a").orElseThrow().acl().get(0).topic());
    }
}
