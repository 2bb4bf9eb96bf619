package io.deviceidentity.credentials.legacy;

/** An imported hash that cannot be stored: names the import field at fault, never quotes the value. */
public final class InvalidHashException extends IllegalArgumentException {

    private final String field;

    public InvalidHashException(String field, String problem) {
        super("field '" + field + "': " + problem);
        this.field = field;
    }

    public String field() {
        return field;
    }
}
