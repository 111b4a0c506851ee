package io.partita.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.cluster.ClusterNode;
import io.partita.server.cli.ServerConfig;
import io.partita.server.netty.Transport;
import io.partita.server.wire.TestCertificate;
import io.partita.storage.StorageConfig;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * Four nodes in this JVM started with {@code --tls-cert} and {@code --tls-key}, the cluster's group placed on the first
 * three ({@code --cluster-replicas 3}): clients speak HTTPS to any node, a follower forwards to the leader over HTTPS,
 * the Raft peers talk over mutual TLS with the same certificate, and the fourth node learns the group's leader from
 * its members over mutual TLS too.
 */
class ClusterTlsIT {
    @TempDir
    Path dir;

    private final ClusterMember[] nodes = new ClusterMember[4];

    @AfterEach
    void stopAll() {
        ClusterStrictIT.closeAtOnce(nodes);
    }

    @Test
    @SuppressWarnings("unchecked") // the SDK's varargs of Consumer<…Builder>
    void clientsForwardedRequestsAndTheRaftPeersAllSpeakTls() throws Exception {
        TestCertificate cert = TestCertificate.make(dir);
        List<ClusterConfig.Member> members = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            try (ServerSocket raft = new ServerSocket(0);
                    ServerSocket api = new ServerSocket(0)) {
                members.add(new ClusterConfig.Member("n" + i, "127.0.0.1", raft.getLocalPort(), api.getLocalPort()));
            }
        }
        for (int i = 0; i < 4; i++) {
            ServerConfig server = new ServerConfig(
                            "127.0.0.1",
                            members.get(i).apiPort(),
                            StorageConfig.disk(dir.resolve("n" + i)),
                            "us-east-1",
                            4,
                            Transport.NIO)
                    .withTls(new ServerConfig.Tls(cert.certificate(), cert.privateKey()));
            nodes[i] = ClusterMember.start(
                    // With the read lease off, as on VMs that are paused with their clocks stopped.
                    new ClusterConfig("tls", "n" + i, members)
                            .withReadLease(false)
                            .withReplicas(3),
                    server,
                    ClusterNode.Timings.loopback(),
                    s -> {});
        }
        // Elected and serving: the peers' votes and appends passed their TLS, each side checking the other's. The group
        // prefers n0, its first member.
        ClusterStrictIT.await("n0 to serve", nodes[0]::serving);
        int leader = 0;
        int follower = 1;
        int other = 2;

        // Made through a follower, which forwards it to the leader's public port over HTTPS.
        try (DynamoDbClient ddb = client("https://localhost:" + nodes[follower].port(), cert.trust())) {
            ddb.createTable(t -> t.tableName("secure")
                    .billingMode(BillingMode.PAY_PER_REQUEST)
                    .attributeDefinitions(a -> a.attributeName("pk").attributeType(ScalarAttributeType.S))
                    .keySchema(k -> k.attributeName("pk").keyType(KeyType.HASH)));
            ddb.putItem(p -> p.tableName("secure").item(Map.of("pk", AttributeValue.fromS("k"))));
        }
        try (DynamoDbClient ddb = client("https://localhost:" + nodes[other].port(), cert.trust())) {
            assertThat(ddb.getItem(g -> g.tableName("secure")
                                    .key(Map.of("pk", AttributeValue.fromS("k")))
                                    .consistentRead(true))
                            .item())
                    .containsEntry("pk", AttributeValue.fromS("k"));
        }
        // Through n3, which is not on the group: it asked the members where the leader is over their TLS.
        ClusterStrictIT.await("n3 to learn the leader", () -> {
            try {
                return new com.fasterxml.jackson.databind.ObjectMapper()
                        .readTree(nodes[3].status())
                        .at("/elsewhere/0/leader")
                        .asText()
                        .equals("n0");
            } catch (java.io.IOException e) {
                throw new AssertionError(e);
            }
        });
        try (DynamoDbClient ddb = client("https://localhost:" + nodes[3].port(), cert.trust())) {
            assertThat(ddb.getItem(g -> g.tableName("secure").key(Map.of("pk", AttributeValue.fromS("k"))))
                            .item())
                    .containsEntry("pk", AttributeValue.fromS("k"));
        }
        // Without the lease, every consistent read passed a barrier through the log.
        assertThat(nodes[leader].consistentReads()[0]).isZero();
        assertThat(nodes[leader].consistentReads()[1]).isPositive();
        // Plain HTTP on a node's HTTPS port gets no answer.
        try (DynamoDbClient plain = client("http://localhost:" + nodes[follower].port(), null)) {
            assertThatThrownBy(plain::listTables).isInstanceOf(SdkClientException.class);
        }
        // Each Raft port answers TLS (gRPC's HTTP/2 offered) with the nodes' certificate.
        for (ClusterConfig.Member m : members) {
            SSLContext tls = SSLContext.getInstance("TLS");
            tls.init(null, cert.trust().getTrustManagers(), null);
            try (SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket("127.0.0.1", m.raftPort())) {
                SSLParameters parameters = socket.getSSLParameters();
                parameters.setApplicationProtocols(new String[] {"h2"});
                parameters.setServerNames(List.of(new SNIHostName("localhost")));
                socket.setSSLParameters(parameters);
                socket.startHandshake();
                assertThat(socket.getSession().getPeerCertificates()[0]).isEqualTo(cert.x509());
            }
        }
    }

    private static DynamoDbClient client(String endpoint, TrustManagerFactory trust) {
        Apache5HttpClient.Builder http = Apache5HttpClient.builder();
        if (trust != null) {
            http.tlsTrustManagersProvider(trust::getTrustManagers);
        }
        return DynamoDbClient.builder()
                .endpointOverride(URI.create(endpoint))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("k", "s")))
                .httpClient(http.build())
                .overrideConfiguration(c -> c.retryStrategy(r -> r.maxAttempts(8)))
                .build();
    }
}
