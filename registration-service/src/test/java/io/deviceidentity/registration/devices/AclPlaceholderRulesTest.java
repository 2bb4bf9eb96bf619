package io.deviceidentity.registration.devices;

import static io.deviceidentity.registration.support.Devices.api;
import static io.deviceidentity.registration.support.Devices.uniqueId;
import static io.deviceidentity.registration.support.Devices.uniquePrefix;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.deviceidentity.registration.support.Database;
import io.deviceidentity.registration.support.Imports;
import io.deviceidentity.testsupport.ForeignBcryptHashes;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * A rule's placeholders must be renderable from the values registered with it (docs/security.md, "ACL
 * placeholders"): otherwise PUT and import refuse the device with {@code 400 invalid_acl} naming the rule, and write
 * nothing. Against the real stack.
 */
@QuarkusTest
class AclPlaceholderRulesTest {

    private static final String PATH = "/v1/devices/{id}";
    private static final String OWN_SUBTREE =
            "[{\"permission\":\"allow\",\"action\":\"publish\",\"topic\":\"fleet/1\"},"
                    + "{\"permission\":\"allow\",\"action\":\"all\",\"topic\":\"devices/${username}/#\"}]";

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            no username                | ,"superuser":false | without a username
            no username, superuser     | ,"superuser":true  | without a username
            username with '$'          | ,"username":"a$b"  | contains '$'
            username a placeholder     | ,"username":"${clientid}" | contains '$'
            username would make eq     | ,"username":"eq x" | 'eq '
            """)
    void usernamePlaceholderNeedsAUsernameItCanRender(String description, String extra, String why) {
        String id = uniqueId("acl-ph");
        String topic = description.startsWith("username would") ? "${username}/#" : "devices/${username}/#";
        String body = "{\"password\":\"valid-machine-generated-password\"" + extra + ",\"acl\":[{\"permission\":\"allow\","
                + "\"action\":\"publish\",\"topic\":\"fleet/1\"},{\"permission\":\"allow\",\"action\":\"all\","
                + "\"topic\":\"" + topic + "\"}]}";

        api().body(body).put(PATH, id).then().statusCode(400).contentType(ContentType.JSON)
                .body("reason", equalTo("invalid_acl"))
                .body("message", containsString("'acl[1].topic'"))
                .body("message", containsString(why));
        assertTrue(Database.row(id).isEmpty(), description + " wrote a row");
    }

    @Test
    void aUsernameWithDollarIsRefusedOnlyWhereARuleUsesIt() {
        String id = uniqueId("acl-dollar");
        api().body("{\"password\":\"valid-machine-generated-password\",\"username\":\"a$b\"}").put(PATH, id).then().statusCode(201);
    }

    @Test
    void aRegisteredUsernameMayBeUsedAndTheRuleIsStoredAsWritten() {
        String id = uniqueId("acl-named");
        api().body("{\"password\":\"valid-machine-generated-password\",\"username\":\"meter-7\",\"acl\":" + OWN_SUBTREE + "}")
                .put(PATH, id).then().statusCode(201)
                .body("acl[1].topic", equalTo("devices/${username}/#"));
        assertEquals("devices/${username}/#", Database.row(id).orElseThrow().acl().get(1).topic());
    }

    @Test
    void importedLinesFollowTheSameRule() {
        String prefix = uniquePrefix("acl-import");
        String hash = ForeignBcryptHashes.LIBXCRYPT_2A.hash();
        String body = "{\"client_id\":\"" + prefix + "a\",\"password_hash\":\"" + hash + "\",\"acl\":" + OWN_SUBTREE
                + "}\n{\"client_id\":\"" + prefix + "b\",\"password_hash\":\"" + hash
                + "\",\"username\":\"meter-b\",\"acl\":" + OWN_SUBTREE + "}\n";

        Imports.Answer answer = Imports.post(body);

        assertEquals(200, answer.status());
        assertEquals(Map.of(1, "invalid_acl"), answer.rejectedReasons());
        assertTrue(Database.row(prefix + "a").isEmpty());
        assertEquals("meter-b", Database.row(prefix + "b").orElseThrow().username());
    }
}
