package io.deviceidentity.qos2probe.probe;

/**
 * Runs after the publisher dropped its connection to node A and before it connects to node B. The command line
 * uses none; the tests restart the broker here, which is what turns "node B" into a node without A's state.
 */
@FunctionalInterface
public interface ReconnectHook {

    ReconnectHook NONE = index -> { };

    void beforeReconnect(int messageIndex) throws Exception;
}
