package io.partita.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.server.console.Chromium;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.WebDriverWait;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * The console's Cluster page in a real browser, served by a follower of three in-process nodes: every member's role,
 * term and indexes as each node answers them, the leader named, and a node that stops shown as not answering. A
 * screenshot is kept in {@code target/console-screenshots/cluster.png}. Skipped without Chromium, as {@link
 * Chromium} says.
 */
class ClusterConsoleBrowserIT {
    @TempDir
    Path dir;

    private final List<ClusterConfig.Member> members = new ArrayList<>();
    private final ClusterMember[] nodes = new ClusterMember[3];
    private WebDriver browser;

    @AfterEach
    void stop() {
        if (browser != null) {
            browser.quit();
        }
        ClusterStrictIT.closeAtOnce(nodes);
    }

    @Test
    @SuppressWarnings("unchecked") // the SDK's varargs of lambdas
    void theClusterPageShowsEveryMemberAsItAnswers() throws Exception {
        Chromium.require();
        for (int i = 0; i < 3; i++) {
            try (ServerSocket a = new ServerSocket(0);
                    ServerSocket b = new ServerSocket(0)) {
                members.add(new ClusterConfig.Member("n" + i, "127.0.0.1", a.getLocalPort(), b.getLocalPort()));
            }
        }
        for (int i = 0; i < 3; i++) {
            nodes[i] = ClusterIT.startNode(dir, "console", members, i);
        }
        int leader = ClusterIT.awaitServing(nodes);
        int follower = (leader + 1) % 3;
        int other = (leader + 2) % 3;

        // A table made, so that the group's log holds entries the page counts.
        try (DynamoDbClient ddb = DynamoDbClient.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + nodes[follower].port()))
                .region(Region.US_EAST_1)
                .credentialsProvider(() -> AwsBasicCredentials.create("AKIDEXAMPLE", "secret"))
                .build()) {
            ddb.createTable(t -> t.tableName("shown")
                    .billingMode(BillingMode.PAY_PER_REQUEST)
                    .attributeDefinitions(a -> a.attributeName("pk").attributeType(ScalarAttributeType.S))
                    .keySchema(k -> k.attributeName("pk").keyType(KeyType.HASH)));
        }

        browser = Chromium.start();
        browser.get("http://127.0.0.1:" + nodes[follower].port() + "/console/#/cluster");
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(30));
        String leaderId = "n" + leader;
        wait.until(d -> text("#cluster-leader").equals(leaderId));
        assertThat(Chromium.waitFor(browser, By.id("nav-cluster")).getText()).isEqualTo("Cluster");
        assertThat(row(leader)).contains(leaderId, "LEADER", "serves requests");
        assertThat(row(follower)).contains("FOLLOWER", "(this page)").doesNotContain("serves requests");
        assertThat(row(other)).contains("FOLLOWER");
        // Every member answered with the same term, and the leader reports how far behind each follower is.
        String term = cell(leader, 6);
        assertThat(term).isNotEmpty();
        assertThat(cell(follower, 6)).isEqualTo(term);
        assertThat(cell(other, 6)).isEqualTo(term);
        assertThat(Long.parseLong(cell(leader, 7).replace(",", ""))).isPositive();
        assertThat(cell(leader, 9)).isEqualTo("0");
        assertThat(cell(other, 9)).matches("\\d+");
        // The groups: open mode's one, account 000000000000's, led by the leader, with each follower's lag.
        String group = text("#cluster-groups tr[data-group='000000000000']");
        assertThat(group).contains("000000000000", leaderId, "n" + follower + " ", "n" + other + " ");
        assertThat(text("#cluster-groups tbody").split("\n")).hasSize(1);

        Files.createDirectories(Path.of("target", "console-screenshots"));
        Files.write(
                Path.of("target", "console-screenshots", "cluster.png"),
                ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));

        // A member that stops is shown as not answering; the page goes on from the others.
        nodes[other].close();
        nodes[other] = null;
        wait.until(d -> row(other).contains("not answering"));
        assertThat(row(leader)).contains("LEADER");
    }

    private String row(int node) {
        return text("#cluster-members tr[data-node=n" + node + "]");
    }

    /** The text of column {@code column} (1-based) of node {@code node}'s row. */
    private String cell(int node, int column) {
        return text("#cluster-members tr[data-node=n" + node + "] td:nth-child(" + column + ")");
    }

    /**
     * The text of the element {@code selector} finds, read in one script: the page redraws its rows on every poll, so
     * an element found by one call may be gone by the next (Selenium's stale element).
     */
    private String text(String selector) {
        Object text = ((JavascriptExecutor) browser)
                .executeScript(
                        "const e = document.querySelector(arguments[0]); return e === null ? '' : e.innerText;",
                        selector);
        return String.valueOf(text);
    }
}
