package io.deviceidentity.credentials;

/**
 * MQTT topic filter syntax (MQTT 3.1.1 section 4.7, MQTT 5 section 4.7) for the filters of ACL rules, so that no
 * rule is stored that a broker could not use: {@code #} only as the whole last level, {@code +} only as a whole
 * level, no empty filter, no NUL or other control character. The placeholders {@code ${clientid}} and
 * {@code ${username}} are allowed anywhere a level's text is ({@link AclPlaceholders} substitutes the registered
 * values, which can never contain {@code / + # $}); any other {@code ${...}} is refused because nothing here would
 * substitute it and the broker would, with the connecting client's values. A filter starting with {@code "eq "} is EMQX's exact match: the rest is compared literally, so wildcards
 * there are plain characters, but it must still be non-empty text.
 */
public final class TopicFilters {

    static final String EXACT_PREFIX = "eq ";

    private TopicFilters() {
    }

    /** Why {@code filter} is not a usable topic filter, or {@code null}. The message does not name the field. */
    public static String problem(String filter) {
        if (filter == null || filter.isEmpty() || filter.length() > AclRule.MAX_TOPIC_LENGTH) {
            return "must be a topic filter of 1.." + AclRule.MAX_TOPIC_LENGTH + " characters";
        }
        for (int i = 0; i < filter.length(); i++) {
            char c = filter.charAt(i);
            if (Character.isISOControl(c)) {
                return "must not contain NUL or other control characters";
            }
            if (Character.isSurrogate(c)) {
                boolean paired = Character.isHighSurrogate(c) && i + 1 < filter.length()
                        && Character.isLowSurrogate(filter.charAt(i + 1));
                if (!paired) {
                    return "must be valid Unicode text";
                }
                i++;
            }
        }
        String placeholders = placeholderProblem(filter);
        if (placeholders != null) {
            return placeholders;
        }
        if (filter.startsWith(EXACT_PREFIX)) {
            return filter.length() == EXACT_PREFIX.length() ? "must name a topic after 'eq '" : null;
        }
        String[] levels = filter.split("/", -1);
        for (int i = 0; i < levels.length; i++) {
            String level = levels[i];
            if (level.indexOf('#') >= 0 && (!level.equals("#") || i != levels.length - 1)) {
                return "may use '#' only as the whole last level (as in a/#)";
            }
            if (level.indexOf('+') >= 0 && !level.equals("+")) {
                return "may use '+' only as a whole level (as in a/+/b)";
            }
        }
        return null;
    }

    private static String placeholderProblem(String filter) {
        int from = 0;
        while (true) {
            int start = filter.indexOf("${", from);
            if (start < 0) {
                return null;
            }
            if (!filter.startsWith("${clientid}", start) && !filter.startsWith("${username}", start)) {
                return "may use only the placeholders ${clientid} and ${username}";
            }
            from = filter.indexOf('}', start) + 1;
        }
    }
}
