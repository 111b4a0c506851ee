package io.partita.testcontainers;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.HttpWaitStrategy;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * Partita's Docker image as a Testcontainers container: it exposes 8000, is ready once its health line ({@code GET /}:
 * "healthy") answers, and keeps its data in memory unless asked to persist it in the image's {@code /data} volume.
 *
 * <pre>{@code
 * @Container
 * static PartitaContainer partita = new PartitaContainer();          // the image built from Partita's Dockerfile
 *
 * DynamoDbClient ddb = partita.configure(DynamoDbClient.builder()).build();
 * }</pre>
 *
 * Any other server flag goes through {@link #withFlags}: {@code withFlags("--throughput", "off")}.
 */
public class PartitaContainer extends GenericContainer<PartitaContainer> {
    /** The image {@code docker build -t partita .} makes from Partita's repository. */
    public static final DockerImageName DEFAULT_IMAGE = DockerImageName.parse("partita:latest");

    /** The port Partita listens on in its image. */
    public static final int PORT = 8000;

    /** The region the SDK clients made by {@link #configure} sign for. */
    public static final String REGION = "us-east-1";

    private final List<String> flags = new ArrayList<>(List.of("--in-memory"));
    private final DockerImageName image;

    public PartitaContainer() {
        this(DEFAULT_IMAGE);
    }

    public PartitaContainer(String image) {
        this(DockerImageName.parse(image));
    }

    public PartitaContainer(DockerImageName image) {
        super(image);
        this.image = image;
        withExposedPorts(PORT);
        waitingFor(healthLine().withStartupTimeout(Duration.ofSeconds(60)));
        applyFlags();
    }

    /** Ready once {@code GET /} answers 200 with Partita's health line ("healthy: …"). */
    static HttpWaitStrategy healthLine() {
        return Wait.forHttp("/")
                .forPort(PORT)
                .forStatusCode(200)
                .forResponsePredicate(body -> body.contains("healthy"));
    }

    /** Keeps the data in the image's {@code /data} volume instead of in memory. */
    public PartitaContainer withPersistence() {
        flags.remove("--in-memory");
        return applyFlags();
    }

    /** More server flags, after the ones set so far ({@code --throughput off}, {@code --fault …}). */
    public PartitaContainer withFlags(String... more) {
        flags.addAll(List.of(more));
        return applyFlags();
    }

    /** The image it runs. */
    public DockerImageName image() {
        return image;
    }

    /** The flags the server is started with. */
    public List<String> flags() {
        return List.copyOf(flags);
    }

    private PartitaContainer applyFlags() {
        return withCommand(flags.toArray(new String[0]));
    }

    /** Where clients reach the server, e.g. {@code http://localhost:49153}; the container must be running. */
    public URI endpoint() {
        return URI.create("http://" + getHost() + ":" + getMappedPort(PORT));
    }

    /**
     * An AWS SDK for Java v2 client builder (DynamoDB, DynamoDB Streams, async or not) pointed at this server, with
     * the region and static credentials set (open mode accepts any key). Needs the AWS SDK on the class path.
     */
    public <B extends software.amazon.awssdk.awscore.client.builder.AwsClientBuilder<B, ?>> B configure(B builder) {
        return builder.endpointOverride(endpoint())
                .region(software.amazon.awssdk.regions.Region.of(REGION))
                .credentialsProvider(software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                        software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create("partita", "partita")));
    }
}
