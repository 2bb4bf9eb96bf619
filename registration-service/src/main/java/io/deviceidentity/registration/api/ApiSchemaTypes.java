package io.deviceidentity.registration.api;

import io.deviceidentity.credentials.AclRule;
import io.deviceidentity.http.ErrorBody;
import io.deviceidentity.registration.devices.DeviceView;
import io.deviceidentity.registration.reports.WeakHashPage;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The records {@link ApiDocumentation} turns into OpenAPI schemas at start-up with {@code getRecordComponents()}: in
 * the native image a record's components are readable only when its accessors are registered for reflection, and
 * without them the service fails to start. {@code ApiSchemaTypesTest} keeps this list equal to the records the
 * document reaches.
 */
@RegisterForReflection(targets = {ErrorBody.class, DeviceView.class, ImportReportLine.class, WeakHashPage.class,
        WeakHashPage.WeakHash.class, RequestBodies.Registration.class, RequestBodies.ImportLine.class, AclRule.class},
        methods = true, fields = false)
public final class ApiSchemaTypes {

    private ApiSchemaTypes() {
    }
}
