package io.deviceidentity.auth;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.deviceidentity.overload.OverloadConfig;
import io.deviceidentity.testsupport.config.ConfigurationDoc;

/**
 * docs/configuration.md lists every key of auth-service ("Both services" and "auth-service"), with its env name and
 * default: every {@code @ConfigMapping} of this module and identity-core, every {@code ${ENV:default}} property.
 */
class ConfigurationDocTest {

    @Test
    void theConfigurationPageListsEveryKeyOfAuthServiceWithItsEnvNameAndDefault() {
        List<String> problems = ConfigurationDoc.problems(Path.of("../docs/configuration.md"),
                List.of("Both services", "auth-service"), Path.of("src/main/resources/application.properties"),
                AuthConfig.class, OverloadConfig.class);
        assertTrue(problems.isEmpty(), "docs/configuration.md and auth-service disagree:\n" + String.join("\n", problems));
    }
}
