package io.deviceidentity.credentials;

/** Lifecycle state of a device credential, as stored in {@code device_credentials.status}. */
public enum DeviceStatus {
    ACTIVE,
    REVOKED;

    public String column() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    public static DeviceStatus fromColumn(String value) {
        return valueOf(value.toUpperCase(java.util.Locale.ROOT));
    }
}
