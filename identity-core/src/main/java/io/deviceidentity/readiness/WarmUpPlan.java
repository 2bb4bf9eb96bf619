package io.deviceidentity.readiness;

import java.util.List;

/**
 * The steps a service runs before it reports ready, in order: each service has one bean of this type (auth-service's
 * {@code AuthWarmUp}, registration-service's {@code RegistrationWarmUp}).
 */
public interface WarmUpPlan {

    List<WarmUpStep> steps();
}
