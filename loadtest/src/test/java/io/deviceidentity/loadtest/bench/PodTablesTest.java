package io.deviceidentity.loadtest.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The pod-size table and the cold replica's seconds, from recorded rows, summaries and replicas.csv
 * (src/test/resources/bench/pod).
 */
class PodTablesTest {

    private static Path pod(String name) throws URISyntaxException {
        return Path.of(PodTablesTest.class.getResource("/bench/pod/replicas.csv").toURI()).resolveSibling(name);
    }

    @Test
    void thePodSizeTableHasTheLateWindowsAndTheCostOfARefusal() throws Exception {
        assertEquals("""
                pod CPU  capacity   bcrypt-bound  connections  40-90 s    last 30 s  whole storm  p99 allow  late   expired  bcrypt/s  us/refusal  throttled periods
                0.25     3.30/s     3.47/s        3            -          -          -            1.9 s      0      3        3.26      412         250 of 500
                1        13.00/s    -             8            -          -          -            -          2      -        -         -           -
                1        15.10/s    -             28           1.04       1.05       0.94         0.9 s      0      0        14.86     -           -
                2        26.50/s    27.10/s       16           -          -          -            -          -      -        -         -           1 of 1
                Request rate per 10 s of the storm, per second: offered/answered/allowed/refused
                  1 vCPU, 28 connections: 124/124/12/112 216/213/13/200 301/304/14/290 383/383/13/370 464/464/15/449 569/569/16/553 664/664/16/648 670/671/16/654
                """, PodTables.podTable(List.of(
                "0.25 3.30 3.47 3 " + pod("pod-0_25-8x-pool-3.json") + " 1200 340 5123 1700 590 9123 412",
                "1 13.00 - 8 " + pod("pod-1-8x-pool-8.json") + " - - - - - -",
                "1 15.10 - 28 " + pod("pod-1-8x-pool-28.json") + " - - - - - - -",
                "2 26.5 27.10 16 " + pod("absent.json") + " 1 1 1 2 2 2"), new PodTables.Spans(40, 90, 30, 10)));
    }

    @Test
    void aColdReplicasSecondsAreThePythonOnes() throws Exception {
        Path csv = pod("replicas.csv");
        assertEquals("""
                  second  connections  answers  allows  refusals  late  allows / its capacity  Service allows/s
                  31      2            4        1       3         0     0.30                   7
                  32      2            5        2       3         1     0.61                   7
                  33      2            6        3       3         0     0.91                   9
                  first 10 s after readiness: 6 allows = 0.18 of one replica's capacity (3.30/s)
                """, PodTables.coldReplica(csv, "replica-3", 30, 6.6, 2));
        assertEquals("""
                  second  connections  answers  allows  refusals  late  allows / its capacity  Service allows/s
                  31      2            4        1       3         0     0.30                   7
                  32      2            5        2       3         1     0.61                   7
                  first 10 s after readiness: 3 allows = 0.09 of one replica's capacity (3.30/s)
                """, PodTables.coldReplica(csv, "replica-3", 2, 6.6, 2));
        assertEquals("  never ready during the run\n", PodTables.coldReplica(csv, "replica-9", 30, 6.6, 2));
        assertEquals("  (no replicas.csv)\n", PodTables.coldReplica(pod("none.csv"), "replica-3", 30, 6.6, 2));
    }
}
