package io.deviceidentity.loadtest.cli;

import java.util.concurrent.Callable;

import io.deviceidentity.credentials.Bcrypt;
import io.deviceidentity.loadtest.db.DeviceSeeder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code seed}: registers the population directly in PostgreSQL. registration-service's API
 * ({@code PUT /v1/devices/{id}}) would be the production path; it is not used here because it hashes each device
 * (about 60 ms each) and is not implemented.
 */
@Command(name = "seed", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Insert devices <prefix>1..N with bcrypt hashes straight into PostgreSQL (existing rows are kept).")
public final class SeedCommand implements Callable<Integer> {

    @Mixin
    PopulationOptions population;

    @Mixin
    DatabaseOptions database;

    @Option(names = "--cost", defaultValue = "" + Bcrypt.DEFAULT_COST,
            description = "bcrypt cost (default: ${DEFAULT-VALUE}, what the services use).")
    int cost;

    @Option(names = "--threads", defaultValue = "2", description = "Hashing threads for per-device passwords.")
    int threads;

    @Option(names = "--replace",
            description = "First delete every row whose client id starts with --device-prefix, so that the population "
                    + "is new: hashed at --cost, with no fast-path verifier left from an earlier run.")
    boolean replace;

    @Override
    public Integer call() throws Exception {
        long start = System.nanoTime();
        DeviceSeeder seeder = new DeviceSeeder(database.access());
        var spec = population.spec(0, 0, 0);
        int removed = replace ? seeder.remove(spec) : 0;
        int inserted = seeder.seed(spec, cost, threads);
        System.err.printf("seeded %d new devices (%s1..%d present, bcrypt cost %d%s) in %.1f s%n", inserted,
                population.idPrefix, population.devices, cost, replace ? ", " + removed + " old rows deleted first" : "",
                (System.nanoTime() - start) / 1e9);
        return 0;
    }
}
