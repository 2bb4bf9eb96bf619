package io.deviceidentity.registration.imports;

import io.deviceidentity.registration.devices.RegistrationRequest;

/** One accepted import line: the device's client id and its fields (with {@code passwordHash} set). */
record ImportRow(int line, String clientId, RegistrationRequest device) {

    @Override
    public String toString() {
        return "ImportRow[line=" + line + ", clientId=" + clientId + "]";
    }
}
