package io.deviceidentity.auth.authn;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

import io.deviceidentity.credentials.AclRule;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The 200 body EMQX reads: {@code result}, and for an allowed device {@code is_superuser}, its {@code acl} and
 * {@code expire_at} (Unix seconds at which EMQX ends the session, {@link SessionLife}; absent when sessions are not
 * bounded). A denial by a failure budget also names its {@code reason}: EMQX reads only {@code result} of a deny and
 * ignores other fields, and shows the body in its trace of the HTTP response.
 */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record AuthnAnswer(
        String result,
        @JsonProperty("is_superuser") Boolean superuser,
        List<AclRule> acl,
        @JsonProperty("expire_at") Long expireAt,
        String reason) {

    public AuthnAnswer(String result, Boolean superuser, List<AclRule> acl) {
        this(result, superuser, acl, null, null);
    }

    public static AuthnAnswer result(String result) {
        return new AuthnAnswer(result, null, null);
    }

    /** {@code {"result":...,"reason":...}}: an answer that says why. */
    public static AuthnAnswer result(String result, String reason) {
        return new AuthnAnswer(result, null, null, null, reason);
    }

    /** The same answer, ending the session at {@code expireAt} (Unix seconds; null: no end). */
    public AuthnAnswer withExpireAt(Long expireAt) {
        return new AuthnAnswer(result, superuser, acl, expireAt, reason);
    }
}
