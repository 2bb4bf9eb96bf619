package io.deviceidentity.qos2probe.auth;

import java.util.LinkedHashMap;
import java.util.Map;

/** One MQTT-level auth check: what was tried, what had to come back, what did. */
public record AuthCheck(String name, String expected, String observed, boolean ok) {

    public Map<String, Object> toJson() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("name", name);
        json.put("expected", expected);
        json.put("observed", observed);
        json.put("ok", ok);
        return json;
    }
}
