package io.deviceidentity.auth.acl;

import static io.deviceidentity.auth.support.Emqx.authn;
import static io.deviceidentity.auth.support.Emqx.authz;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.everyItem;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.deviceidentity.auth.support.PrometheusScrape;
import io.quarkus.test.junit.QuarkusTest;

/**
 * No ACL escalation: a rule never matches more than the same rule rendered with the
 * device's registered values, through the authn answer's {@code acl} as through {@code /mqtt/authz}. The rows are
 * written straight into PostgreSQL, as a row stored before registration refused such rules would be; the checks go
 * through PgBouncer like every request.
 */
@QuarkusTest
class AclEscalationTest {

    private static final String OWN_SUBTREE =
            "[{\"permission\":\"allow\",\"action\":\"all\",\"topic\":\"devices/${username}/#\"}]";
    private static final String VICTIM = "devices/demo-device-7/commands/reboot";

    /** The reproduced attack: no username registered, connect as '+', then command another device. */
    @Test
    void usernamePlaceholderOfADeviceWithoutUsernameIsNeverFilledByTheClient() {
        String id = uniqueId("esc-plus");
        String password = device(id).acl(OWN_SUBTREE).store();

        authn(id, "+", password).then().statusCode(200)
                .body("result", equalTo("deny")).body("acl", nullValue());
        authz(id, "+", "publish", VICTIM, "0", "false").then().statusCode(200).body("result", equalTo("deny"));
        authz(id, "+", "subscribe", "devices/+/commands/#", "0", "false").then().body("result", equalTo("deny"));
    }

    /** The same with '#', a '/' that adds levels, an empty username, and a username that is an EMQX placeholder. */
    @ParameterizedTest(name = "username \"{0}\", rule {1}, {2} {3}")
    @CsvSource(delimiter = '|', textBlock = """
            '#'                     | devices/${username}   | publish   | devices/demo-device-7/commands/reboot
            '#'                     | devices/${username}   | subscribe | devices/#
            demo-device-7/commands  | devices/${username}/# | publish   | devices/demo-device-7/commands/reboot
            demo-device-7           | devices/${username}/# | subscribe | devices/demo-device-7/commands/#
            ''                      | devices/${username}/# | publish   | devices//x
            ${clientid}             | devices/${username}/# | publish   | devices/${clientid}/x
            """)
    void noClientUsernameWidensAStoredRule(String username, String topic, String action, String target) {
        String id = uniqueId("esc-var");
        String password = device(id)
                .acl("[{\"permission\":\"allow\",\"action\":\"all\",\"topic\":\"" + topic + "\"}]").store();

        authn(id, username, password).then().statusCode(200).body("result", equalTo("deny"));
        authz(id, username, action, target, "0", "false").then().body("result", equalTo("deny"));
    }

    @Test
    void rulesAreAnsweredRenderedFromTheRegisteredUsername() {
        String id = uniqueId("esc-named");
        String password = device(id).username("alice-" + id).acl(OWN_SUBTREE).store();
        String own = "devices/alice-" + id;

        authn(id, "alice-" + id, password).then().statusCode(200)
                .body("result", equalTo("allow"))
                .body("acl.topic", contains(own + "/#"))
                .body("acl.topic", everyItem(not(containsString("${"))));
        authz(id, "alice-" + id, "publish", own + "/telemetry", "1", "false").then().body("result", equalTo("allow"));
        authz(id, "alice-" + id, "publish", VICTIM, "1", "false").then().body("result", equalTo("deny"));
    }

    /** A username other than the registered one is denied by authz as by authn, never rendered into a rule. */
    @ParameterizedTest(name = "connected as \"{0}\"")
    @ValueSource(strings = {"+", "#", "demo-device-7", ""})
    void authzDeniesAUsernameThatIsNotTheRegisteredOne(String username) {
        String id = uniqueId("esc-other");
        device(id).username("alice").acl("[{\"permission\":\"allow\",\"action\":\"all\",\"topic\":"
                + "\"devices/${username}/#\"},{\"permission\":\"allow\",\"action\":\"all\",\"topic\":"
                + "\"devices/${username}\"}]").store();

        authz(id, username, "publish", VICTIM, "0", "false").then().statusCode(200).body("result", equalTo("deny"));
        authz(id, username, "publish", "devices/" + username + "/x", "0", "false").then()
                .body("result", equalTo("deny"));
    }

    @Test
    void subscriptionFiltersWithWildcardsAreCoveredOnlyByTheRenderedRule() {
        String id = uniqueId("esc-sub");
        device(id).username("bob").acl(OWN_SUBTREE).store();

        authz(id, "bob", "subscribe", "devices/bob/#", "1", "false").then().body("result", equalTo("allow"));
        authz(id, "bob", "subscribe", "devices/bob/+/state", "1", "false").then().body("result", equalTo("allow"));
        authz(id, "bob", "subscribe", "devices/+/#", "1", "false").then().body("result", equalTo("deny"));
        authz(id, "bob", "subscribe", "devices/#", "1", "false").then().body("result", equalTo("deny"));
        authz(id, "bob", "subscribe", "+/bob/#", "1", "false").then().body("result", equalTo("deny"));
        authz(id, "bob", "subscribe", "#", "1", "false").then().body("result", equalTo("deny"));
        // Connected under another name (let in by another authenticator of the chain): nothing of it is rendered.
        authz(id, "+", "subscribe", "devices/+/#", "1", "false").then().body("result", equalTo("deny"));
        authz(id, "+", "subscribe", "devices/bob/#", "1", "false").then().body("result", equalTo("deny"));
    }

    /** Odd but valid client ids are one plain level of the rendered default rules. */
    @ParameterizedTest(name = "client id prefix \"{0}\"")
    @ValueSource(strings = {"a.b", "x:y@z", "0", "e.q", "a..b", "dev_1-"})
    void clientIdPlaceholderIsRenderedFromTheRegisteredId(String prefix) {
        String id = uniqueId(prefix);
        String password = device(id).store();

        authn(id, password).then().statusCode(200).body("result", equalTo("allow"))
                .body("acl.topic", contains("devices/" + id + "/#", "devices/" + id + "/commands/#"));
        authz(id, "publish", "devices/" + id + "/t", "0", "false").then().body("result", equalTo("allow"));
        authz(id, "subscribe", "devices/" + id + "/commands/+", "0", "false").then().body("result", equalTo("allow"));
        authz(id, "publish", "devices/" + prefix + "/t", "0", "false").then().body("result", equalTo("deny"));
        authz(id, "subscribe", "devices/+/commands/#", "0", "false").then().body("result", equalTo("deny"));
    }

    /**
     * Placeholders only EMQX could fill, from the client's certificate or attributes (registration refuses them; a
     * row written straight into the database may hold them): the device is denied, never answered the template.
     */
    @ParameterizedTest(name = "stored topic devices/{0}/#")
    @ValueSource(strings = {"${cert_common_name}", "${client_attrs.tenant}", "${zone}", "${$}{username}"})
    void placeholdersOnlyTheBrokerCouldFillDenyTheDevice(String placeholder) {
        String id = uniqueId("esc-broker");
        String password = device(id).username("carol")
                .acl("[{\"permission\":\"allow\",\"action\":\"all\",\"topic\":\"devices/" + placeholder + "/#\"}]")
                .store();

        authn(id, "carol", password).then().statusCode(200).body("result", equalTo("deny")).body("acl", nullValue());
        authz(id, "carol", "publish", "devices/" + placeholder + "/x", "0", "false").then()
                .body("result", equalTo("deny"));
    }

    /** Dropping the unusable deny rule would leave "allow everything": the device is denied instead. */
    @Test
    void aStoredDenyRuleThatCannotBeRenderedDeniesTheDeviceRatherThanBeingDropped() {
        String id = uniqueId("esc-deny");
        String password = device(id).acl("[{\"permission\":\"deny\",\"action\":\"all\",\"topic\":"
                + "\"devices/${username}/secret\"},{\"permission\":\"allow\",\"action\":\"all\",\"topic\":\"#\"}]")
                .store();

        authn(id, password).then().statusCode(200).body("result", equalTo("deny"));
        authz(id, "publish", "devices/x/secret", "0", "false").then().body("result", equalTo("deny"));
        authz(id, "publish", "anything", "0", "false").then().body("result", equalTo("deny"));
    }

    @Test
    void unsafeStoredRulesAreCountedAndAWrongPasswordStillReadsBadPassword() {
        String id = uniqueId("esc-count");
        String password = device(id).acl(OWN_SUBTREE).store();
        double authnBefore = unsafe("identity_authn_outcomes_total");
        double authzBefore = unsafe("identity_authz_outcomes_total");

        authn(id, "+", "not-" + password).then().body("result", equalTo("deny"));
        assertEquals(authnBefore, unsafe("identity_authn_outcomes_total"), "a wrong password learns nothing");
        authn(id, "+", password).then().body("result", equalTo("deny"));
        authz(id, "+", "publish", VICTIM, "0", "false").then().body("result", equalTo("deny"));

        assertEquals(authnBefore + 1, unsafe("identity_authn_outcomes_total"));
        assertEquals(authzBefore + 1, unsafe("identity_authz_outcomes_total"));
    }

    /** Superusers skip authorization in EMQX: their stored rules are never read, and nothing changes for them. */
    @Test
    void superuserIsUntouched() {
        String id = uniqueId("esc-root");
        String password = device(id).superuser().acl(OWN_SUBTREE).store();

        authn(id, "+", password).then().statusCode(200)
                .body("result", equalTo("allow")).body("is_superuser", equalTo(true)).body("acl", nullValue());
        authz(id, "+", "publish", VICTIM, "0", "false").then().body("result", equalTo("allow"));
    }

    private static double unsafe(String metric) {
        return PrometheusScrape.sum(metric + "{reason=\"unsafe_acl\"}");
    }
}
