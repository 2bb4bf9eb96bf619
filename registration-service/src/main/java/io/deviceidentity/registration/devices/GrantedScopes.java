package io.deviceidentity.registration.devices;

import io.deviceidentity.credentials.DeviceNamespace;
import io.deviceidentity.http.InvalidRequestException;
import io.deviceidentity.registration.tokens.Caller;
import io.deviceidentity.registration.tokens.Scope;

/**
 * What a registration grants beyond a credential, and the scope it takes: {@code "superuser": true}, and an
 * {@code allow} rule reaching beyond the device's own topics ({@link DeviceNamespace}), both need {@code superuser}.
 * One scope for both because they are one power: {@code allow all #} is a superuser in effect, so a separate scope
 * for rules would only look smaller than it is. Checked for a PUT and for each import line alike, before any hash.
 */
public final class GrantedScopes {

    private GrantedScopes() {
    }

    /**
     * The {@code 403 forbidden} for a caller who may not grant what {@code request} stores for {@code clientId}, or
     * {@code null} when it may; {@code verb} completes "needed to ... a device" ({@code store}, {@code import}).
     */
    public static InvalidRequestException refusal(Caller caller, String clientId, RegistrationRequest request,
            String verb) {
        if (caller.has(Scope.SUPERUSER)) {
            return null;
        }
        if (request.superuser()) {
            return caller.forbidden(Scope.SUPERUSER, verb + " a device with \"superuser\": true");
        }
        int beyond = DeviceNamespace.firstRuleBeyond(request.acl(), clientId, request.username());
        if (beyond >= 0) {
            return caller.forbidden(Scope.SUPERUSER, verb + " a device whose acl[" + beyond
                    + "] allows topics outside its own, " + DeviceNamespace.ROOT + "/<client id>/#");
        }
        return null;
    }
}
