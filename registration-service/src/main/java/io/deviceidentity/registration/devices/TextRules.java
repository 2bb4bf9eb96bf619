package io.deviceidentity.registration.devices;

/** Checks on free text from callers that is stored and later substituted into topic filters or logs. */
final class TextRules {

    private TextRules() {
    }

    /** No control characters (PostgreSQL refuses NUL outright) and no unpaired UTF-16 surrogates. */
    static boolean isPlainText(String text) {
        return text.chars().noneMatch(Character::isISOControl) && !hasUnpairedSurrogate(text);
    }

    /** Text that cannot be encoded as UTF-8. */
    static boolean hasUnpairedSurrogate(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    /** MQTT topic separators and wildcards. */
    static boolean hasTopicSyntax(String text) {
        return text.indexOf('/') >= 0 || text.indexOf('+') >= 0 || text.indexOf('#') >= 0;
    }
}
