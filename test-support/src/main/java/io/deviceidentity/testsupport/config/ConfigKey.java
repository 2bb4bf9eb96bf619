package io.deviceidentity.testsupport.config;

import java.util.Locale;
import java.util.Optional;

import io.smallrye.config.common.utils.StringUtil;

/**
 * One configuration key of a service as the code defines it.
 *
 * @param key          the property name, e.g. {@code identity.overload.deadline}
 * @param env          the environment variable that sets it
 * @param defaultValue the value when nothing is set; empty when the key has none (optional, or required)
 * @param mustDocument whether docs/configuration.md must list it: every {@code @ConfigMapping} key and every
 *                     {@code ${ENV:default}} property; any other property of application.properties may be listed
 */
public record ConfigKey(String key, String env, Optional<String> defaultValue, boolean mustDocument) {

    /**
     * The environment variable SmallRye Config looks a key up under: every character other than a letter or digit
     * replaced by {@code _}, upper case (MicroProfile Config's third lookup rule; SmallRye's {@code EnvConfigSource}
     * uses {@code StringUtil.replaceNonAlphanumericByUnderscores}, the function called here).
     */
    public static String envName(String key) {
        return StringUtil.replaceNonAlphanumericByUnderscores(key).toUpperCase(Locale.ROOT);
    }
}
