package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;

import com.marcnuri.helm.LintResult;

class ChartLintTest {

    @Test
    void helmLintStrictPassesWithDefaultValues() {
        LintResult result = Chart.helm().lint().strict().call();
        assertFalse(result.isFailed(), () -> "helm lint --strict: " + result.getMessages());
    }
}
