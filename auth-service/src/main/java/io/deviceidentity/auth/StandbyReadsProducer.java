package io.deviceidentity.auth;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import io.agroal.api.AgroalDataSource;
import io.deviceidentity.credentials.StandbyReads;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.agroal.DataSource;
import io.quarkus.arc.InjectableInstance;

/**
 * auth-service's credential reads may go to the synchronous standby ({@code identity.db.standby-reads.enabled};
 * the datasource {@code quarkus.datasource."standby".*} is active only then). registration-service provides no
 * {@link StandbyReads}: its reads and writes all go to the primary.
 */
public class StandbyReadsProducer {

    @Produces
    @Singleton
    StandbyReads standbyReads(StandbyReadsConfig config, StandbyReadsConfig.Standby address, @DataSource("standby") InjectableInstance<AgroalDataSource> standby,
            MeterRegistry registry) {
        if (!config.enabled()) {
            return StandbyReads.OFF;
        }
        if (address.host().isEmpty()) {
            throw new IllegalStateException("identity.db.standby-reads.enabled=true needs identity.db.standby.host"
                    + " (IDENTITY_DB_STANDBY_HOST): the address of the synchronous standby");
        }
        return new StandbyReads(standby.get(), registry);
    }
}
