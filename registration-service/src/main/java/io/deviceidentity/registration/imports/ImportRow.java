package io.deviceidentity.registration.imports;

import io.deviceidentity.credentials.legacy.PasswordScheme;
import io.deviceidentity.registration.devices.RegistrationRequest;

/**
 * One accepted import line: the device's client id and its fields (with {@code passwordHash} set, in the stored form
 * of its {@code scheme}: the bcrypt string, or a legacy scheme's canonical form).
 */
record ImportRow(int line, String clientId, RegistrationRequest device, PasswordScheme scheme) {

    ImportRow(int line, String clientId, RegistrationRequest device) {
        this(line, clientId, device, PasswordScheme.BCRYPT);
    }

    @Override
    public String toString() {
        return "ImportRow[line=" + line + ", clientId=" + clientId + ", scheme=" + scheme.column() + "]";
    }
}
