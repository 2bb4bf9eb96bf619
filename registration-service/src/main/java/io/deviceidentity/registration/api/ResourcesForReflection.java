package io.deviceidentity.registration.api;

import io.deviceidentity.registration.devices.DevicesResource;
import io.deviceidentity.registration.imports.ImportResource;
import io.quarkus.runtime.annotations.RegisterForReflection;

/** Keeps the endpoints' methods readable in the native image, for identity-core's {@code ResourceRoutes} (405, 415). */
@RegisterForReflection(targets = {DevicesResource.class, ImportResource.class}, methods = true, fields = false)
public final class ResourcesForReflection {

    private ResourcesForReflection() {
    }
}
