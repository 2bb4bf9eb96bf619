package io.deviceidentity.registration.tokens;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The scope a token needs to reach a resource method at all, checked by {@link BearerTokenFilter} before the body is
 * read. A {@code /v1} method without it is refused to every token (fail closed), and {@code ScopesTest} fails the
 * build for one. Scopes that depend on the body or the query ({@code superuser}, {@code import-replace}) are checked
 * by the resource, with {@link Caller#require}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface RequiresScope {
    Scope value();
}
