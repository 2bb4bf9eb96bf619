package io.deviceidentity.readiness;

/**
 * One part of a service's request path, run through the service's own entry points before it reports ready (see
 * {@link WarmUp}). A step that throws is retried: the database may not be reachable yet.
 */
public interface WarmUpStep {

    /** What the step warms, for the log and the readiness answer ("pool", "authn", "bcrypt", ...). */
    String name();

    void run() throws Exception;

    static WarmUpStep of(String name, Action action) {
        return new WarmUpStep() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public void run() throws Exception {
                action.run();
            }
        };
    }

    @FunctionalInterface
    interface Action {
        void run() throws Exception;
    }
}
