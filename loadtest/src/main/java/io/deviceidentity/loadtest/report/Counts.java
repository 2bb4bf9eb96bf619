package io.deviceidentity.loadtest.report;

import java.util.Map;
import java.util.TreeMap;

/** Counters by answer key ("200 allow", "503 overload", ...), sorted for stable output. */
final class Counts {

    private final Map<String, Long> byKey = new TreeMap<>();

    void add(String key) {
        byKey.merge(key, 1L, Long::sum);
    }

    long get(String key) {
        return byKey.getOrDefault(key, 0L);
    }

    long total() {
        return byKey.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Sum over keys whose status is in [from, to). */
    long statusBetween(int from, int to) {
        return byKey.entrySet().stream()
                .filter(e -> {
                    String key = e.getKey();
                    int space = key.indexOf(' ');
                    if (space < 0) {
                        return false;
                    }
                    int status = Integer.parseInt(key.substring(0, space));
                    return status >= from && status < to;
                })
                .mapToLong(Map.Entry::getValue).sum();
    }

    Map<String, Long> snapshot() {
        return new TreeMap<>(byKey);
    }

    void reset() {
        byKey.clear();
    }
}
