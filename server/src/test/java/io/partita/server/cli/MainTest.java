package io.partita.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.server.netty.Transport;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class MainTest {
    private static Main parse(String... args) {
        Main main = new Main();
        CommandLine cli = new CommandLine(main);
        cli.setUnmatchedArgumentsAllowed(true);
        cli.setUnmatchedOptionsArePositionalParams(true);
        cli.parseArgs(args);
        return main;
    }

    @Test
    void defaultsArePort8000AndPersistentDataInPartitaData() {
        Main m = parse();
        assertThat(m.port).isEqualTo(8000);
        assertThat(m.dataDir).isEqualTo(Path.of("partita-data"));
        assertThat(m.inMemory).isFalse();
    }

    @Test
    void aClusterNodesReadLeaseIsOnUnlessTurnedOff() {
        assertThat(parse().clusterReadLease).isTrue();
        assertThat(parse("--cluster-read-lease").clusterReadLease).isTrue();
        assertThat(parse("--no-cluster-read-lease").clusterReadLease).isFalse();
    }

    @Test
    void aClustersGroupsAreOnEveryMemberUnlessReplicasIsGiven() {
        assertThat(parse().clusterReplicas).isNull();
        assertThat(parse("--cluster-replicas", "3").clusterReplicas).isEqualTo(3);
        assertThat(parse().clusterTableGroups).isFalse();
        assertThat(parse("--cluster-replicas", "3", "--cluster-table-groups").clusterTableGroups)
                .isTrue();
    }

    @Test
    void acceptsDynamoDbLocalFlagsAndIgnoresItsLauncherWords() {
        Main m = parse("-jar", "DynamoDBLocal.jar", "-sharedDb", "-port", "9000", "-dbPath", "/data", "-inMemory");
        assertThat(m.port).isEqualTo(9000);
        assertThat(m.dataDir).isEqualTo(Path.of("/data"));
        assertThat(m.inMemory).isTrue();
        assertThat(m.sharedDb).isTrue();
        assertThat(m.ignored).containsExactly("-jar", "DynamoDBLocal.jar");
    }

    @Test
    void bannerSaysPortAndStorageMode() {
        assertThat(Main.banner(8000, io.partita.storage.StorageConfig.memory(), Transport.EPOLL))
                .contains("port 8000")
                .contains("in memory")
                .contains("network: epoll");
        assertThat(Main.banner(8000, io.partita.storage.StorageConfig.disk(Path.of("/d")), Transport.IO_URING))
                .contains("persistent")
                .contains("/d")
                .contains("network: io_uring")
                .contains("item cache 64 MB");
    }

    @Test
    void itemCacheIsAnEighthOfTheHeapUpTo64MbUnlessGiven() {
        long auto = parse().itemCache;
        assertThat(Main.itemCacheBytes(auto, 1L << 30)).isEqualTo(64L << 20);
        assertThat(Main.itemCacheBytes(auto, 256L << 20)).isEqualTo(32L << 20);
        assertThat(Main.itemCacheBytes(parse("--item-cache", "0").itemCache, 1L << 30))
                .isZero();
        assertThat(Main.itemCacheBytes(parse("--item-cache", "512MB").itemCache, 1L << 30))
                .isEqualTo(512L << 20);
        assertThat(Main.banner(8000, io.partita.storage.StorageConfig.memory().withItemCacheBytes(0), Transport.EPOLL))
                .contains("no item cache");
    }

    @Test
    void transactionConflictsAreInjectedAtTheGivenRateAndSeed() {
        assertThat(parse().storageConfig().transactionConflicts())
                .isEqualTo(new io.partita.storage.write.ConflictInjection(0, 1));
        assertThat(parse("--transaction-conflicts", "0.25", "--transaction-conflict-seed", "9")
                        .storageConfig()
                        .transactionConflicts())
                .isEqualTo(new io.partita.storage.write.ConflictInjection(0.25, 9));
    }

    @Test
    void badSizesAreUsageErrorsBeforeAnythingStarts() {
        assertThatThrownBy(() -> parse("--item-cache", "lots"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("not a size: lots");
        assertThatThrownBy(() -> parse("--partition-size-limit", "huge"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("not a size: huge");
        assertThat(parse().partitionSizeLimit).isEqualTo(10L << 30);
    }

    @Test
    void aBadCredentialsFileStopsTheServerBeforeItStarts(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path bad = dir.resolve("credentials.json");
        java.nio.file.Files.writeString(bad, "{\"accounts\": []}");
        Main m = parse("--in-memory", "--port", "0", "--credentials", bad.toString());
        assertThat(m.credentials).isEqualTo(bad);
        assertThat(m.call()).isEqualTo(2);
        Main missing = parse(
                "--in-memory",
                "--port",
                "0",
                "--credentials",
                dir.resolve("nope.json").toString());
        assertThat(missing.call()).isEqualTo(2);
    }

    @Test
    void requestLimitsDefaultToDynamoDbScaleBoundsAndRefuseNonsense() throws Exception {
        Main m = parse();
        assertThat(m.maxInFlight).isEqualTo(4096);
        assertThat(m.requestTimeoutMillis).isEqualTo(60_000);
        assertThat(parse("--request-memory", "256MB").requestMemory).isEqualTo(256L << 20);
        assertThat(parse("--request-timeout", "2m").requestTimeoutMillis).isEqualTo(120_000);
        assertThat(parse().minFreeSpace).isEqualTo(64L << 20);
        assertThat(parse("--min-free-space", "0").minFreeSpace).isZero();
        assertThat(parse("--min-free-space", "1GB").minFreeSpace).isEqualTo(1L << 30);
        assertThat(parse("--in-memory", "--port", "0", "--max-in-flight", "0").call())
                .isEqualTo(2);
        assertThat(parse("--in-memory", "--port", "0", "--request-timeout", "0").call())
                .isEqualTo(2);
    }

    @Test
    void faultsAreRepeatableAndABadOneStopsTheServerBeforeItStarts() throws Exception {
        Main m = parse(
                "--fault", "fault=throttle,table=orders", "--fault", "fault=latency,latency=5", "--fault-seed", "9");
        assertThat(m.faults).containsExactly("fault=throttle,table=orders", "fault=latency,latency=5");
        assertThat(m.faultSeed).isEqualTo(9);
        assertThat(parse("--in-memory", "--port", "0", "--fault", "fault=slow").call())
                .isEqualTo(2);
    }

    @Test
    void tlsNeedsBothItsFiles(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        assertThat(parse("--in-memory", "--port", "0", "--tls-cert", "c.pem").call())
                .isEqualTo(2);
        assertThat(parse("--in-memory", "--port", "0", "--tls-key", "k.pem").call())
                .isEqualTo(2);
        Path junk = dir.resolve("junk.pem");
        java.nio.file.Files.writeString(junk, "not a certificate");
        assertThat(parse("--in-memory", "--port", "0", "--tls-cert", junk.toString(), "--tls-key", junk.toString())
                        .call())
                .isEqualTo(2);
    }

    @Test
    void transportIsAutoUnlessGiven() {
        Main m = new Main();
        new CommandLine(m).parseArgs();
        assertThat(m.transport).isEqualTo(Transport.AUTO);
        new CommandLine(m).parseArgs("--transport", "EPOLL");
        assertThat(m.transport).isEqualTo(Transport.EPOLL);
        assertThatThrownBy(() -> new CommandLine(m).parseArgs("--transport", "kqueue"))
                .hasMessageContaining("unknown transport 'kqueue'");
    }

    @Test
    void autoResolvesToAnAvailableTransport() {
        Transport t = Transport.AUTO.resolve();
        assertThat(t).isNotEqualTo(Transport.AUTO);
        assertThat(t.resolve()).isEqualTo(t);
        assertThat(t.serverChannel()).isNotNull();
    }
}
