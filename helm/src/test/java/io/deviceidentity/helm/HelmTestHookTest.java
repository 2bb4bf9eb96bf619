package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.ConfigMap;

/**
 * The `helm test` Pod's checks (its ConfigMap; Helm's template output leaves the hook Pod itself out, `helm lint`
 * renders it). It must make a real authn call the way EMQX does.
 */
class HelmTestHookTest {

    @Test
    void theTestPostsAnEmqxShapedAuthnRequestToAuthService() {
        Map<String, String> data = Chart.render().get(ConfigMap.class, Chart.name("helm-test")).getData();
        assertEquals("https://" + Chart.name("auth-service") + "." + Chart.NAMESPACE + ".svc:8081/mqtt/authn", data.get("AUTHN_URL"));
        String script = data.get("authn-test.sh");
        // Over TLS as EMQX calls it: the services' CA, and EMQX's client certificate for auth-service's mutual TLS.
        assertTrue(script.contains("tls=\"--cacert /tls/ca/ca.crt\""), script);
        assertTrue(script.contains("--cert /tls/client/tls.crt --key /tls/client/tls.key"), script);
        assertTrue(script.contains("curl $tls"), script);
        assertTrue(script.startsWith("set -eu"));
        assertTrue(script.contains("-X POST \"$AUTHN_URL\""));
        assertTrue(script.contains("\\\"clientid\\\":\\\"$1\\\",\\\"username\\\":\\\"\\\",\\\"password\\\":\\\"$2\\\""));
        assertTrue(script.contains("authn \"$device\" \"$password\" allow"));
        assertTrue(script.contains("authn \"$device\" \"wrong-$password\" deny"));
    }

    @Test
    void theUnknownDeviceExpectationFollowsTheConfiguredAnswer() {
        assertEquals("ignore", Chart.render(Chart.set("authService.unknownDevice", "ignore"))
                .get(ConfigMap.class, Chart.name("helm-test")).getData().get("UNKNOWN_DEVICE_RESULT"));
    }
}
