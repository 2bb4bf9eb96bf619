package io.deviceidentity.auth;

import io.deviceidentity.auth.authz.AuthzResource;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The JAX-RS endpoints' methods and annotations stay readable in the native image: identity-core's
 * {@code ResourceRoutes} reads them for the {@code Allow} header of a 405 and the message of a 415 (Quarkus REST
 * itself calls the resources through generated code and registers nothing for reflection). {@code /mqtt/authn} is a
 * plain Vert.x route ({@code AuthnRoute}) that answers its own 405.
 */
@RegisterForReflection(targets = AuthzResource.class, methods = true, fields = false)
public final class ResourcesForReflection {

    private ResourcesForReflection() {
    }
}
