package io.deviceidentity.registration.tokens;

import static io.deviceidentity.registration.support.Devices.as;
import static io.deviceidentity.registration.support.Devices.passwordBody;
import static io.deviceidentity.registration.support.Devices.uniqueId;
import static io.deviceidentity.registration.support.Devices.uniquePrefix;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.jboss.logmanager.ExtLogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.deviceidentity.registration.support.Devices;
import io.deviceidentity.registration.support.Imports;
import io.deviceidentity.testsupport.ForeignBcryptHashes;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;

/**
 * Who wrote what: every write (PUT, DELETE, import), allowed or refused, leaves one line in the audit category with
 * the token's id and the caller's address, and no log line of the service ever carries a token. The log is captured
 * in this JVM, where {@code @QuarkusTest} runs the application.
 */
@QuarkusTest
class WriteAuditTest {

    private static final String PATH = "/v1/devices/{id}";
    /** The caller is this JVM, over the loopback interface. */
    private static final String LOOPBACK = "(127\\.0\\.0\\.1|0:0:0:0:0:0:0:1|::1)";
    private static final List<String> TOKENS = List.of(Devices.TOKEN, Devices.SECOND_TOKEN, Devices.READER_TOKEN,
            Devices.WRITER_TOKEN, Devices.IMPORTER_TOKEN);

    private final List<String> audit = new CopyOnWriteArrayList<>();
    private final List<String> everything = new CopyOnWriteArrayList<>();
    private final Handler auditHandler = capture(audit);
    private final Handler rootHandler = capture(everything);

    @BeforeEach
    void listen() {
        Logger.getLogger(WriteAudit.CATEGORY).addHandler(auditHandler);
        Logger.getLogger("").addHandler(rootHandler);
    }

    @AfterEach
    void stopListening() {
        Logger.getLogger(WriteAudit.CATEGORY).removeHandler(auditHandler);
        Logger.getLogger("").removeHandler(rootHandler);
    }

    @Test
    void aPutAndADeleteAreLoggedWithTheTokenIdTheAddressAndTheClientIdNeverTheToken() {
        String id = uniqueId("audit");
        as(Devices.WRITER_TOKEN).body(passwordBody("a-long-enough-device-password")).put(PATH, id)
                .then().statusCode(201);
        as(Devices.TOKEN).delete(PATH, id).then().statusCode(204);

        assertLogged("registration\\.put token=writer address=" + LOOPBACK + " clientid=" + id + " status=201");
        assertLogged("registration\\.delete token=admin address=" + LOOPBACK + " clientid=" + id + " status=204");
        assertNoToken();
    }

    @Test
    void refusedWritesAreLoggedTooWithoutAClientIdWhenNoTokenWasAccepted() {
        String id = uniqueId("audit-refused");
        RestAssured.given().header("Authorization", "Bearer not-a-token-at-all-000000").contentType(ContentType.JSON)
                .body(passwordBody("a-long-enough-device-password")).put(PATH, id).then().statusCode(401);
        as(Devices.READER_TOKEN).delete(PATH, id).then().statusCode(403);

        assertLogged("registration\\.put token=- address=" + LOOPBACK + " clientid=- status=401");
        assertLogged("registration\\.delete token=reader address=" + LOOPBACK + " clientid=" + id + " status=403");
        assertFalse(String.join("\n", everything).contains("not-a-token-at-all"), "a presented token was logged");
        assertNoToken();
    }

    @Test
    void anImportIsLoggedWithItsTokenAndWhetherItReplaces() {
        String line = Imports.line(uniquePrefix("audit-import") + "a", ForeignBcryptHashes.LIBXCRYPT_2B.hash());
        assertEquals(200, Imports.post(line, "?existing=replace", Devices.IMPORTER_TOKEN).status());
        assertLogged("registration\\.import token=importer address=" + LOOPBACK
                + " clientid=- existing=replace status=200");
        assertNoToken();
    }

    @Test
    void readsAreNotAuditLines() {
        as(Devices.READER_TOKEN).get(PATH, uniqueId("audit-read")).then().statusCode(404);
        assertTrue(audit.stream().noneMatch(line -> line.startsWith("registration.get")), audit.toString());
    }

    private void assertLogged(String pattern) {
        assertTrue(audit.stream().anyMatch(line -> line.matches(pattern)),
                "no audit line matches " + pattern + " in " + audit);
    }

    private void assertNoToken() {
        for (String line : everything) {
            for (String token : TOKENS) {
                assertFalse(line.contains(token), "a token was logged: " + line);
            }
        }
    }

    private static Handler capture(List<String> into) {
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                into.add(record instanceof ExtLogRecord ext ? ext.getFormattedMessage() : String.valueOf(record.getMessage()));
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        handler.setLevel(Level.ALL);
        return handler;
    }
}
