package io.deviceidentity.auth.authn;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

import io.deviceidentity.credentials.AclRule;
import io.quarkus.runtime.annotations.RegisterForReflection;

/** The 200 body EMQX reads: {@code result}, and for an allowed device {@code is_superuser} and its {@code acl}. */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record AuthnAnswer(
        String result,
        @JsonProperty("is_superuser") Boolean superuser,
        List<AclRule> acl) {

    public static AuthnAnswer result(String result) {
        return new AuthnAnswer(result, null, null);
    }
}
