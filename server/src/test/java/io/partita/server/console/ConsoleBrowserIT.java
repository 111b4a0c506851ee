package io.partita.server.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.partita.server.embedded.EmbeddedPartita;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console in a real browser: Debian's Chromium, driven through its ChromeDriver by Selenium, against a real
 * server. Each page is loaded and used as a person would — a table and an item created through the forms, a query
 * run, the hot-key simulator driven to a throttle — and a screenshot of each is kept in {@code
 * target/console-screenshots}.
 *
 * <p>Without Chromium the test is skipped, unless {@code PARTITA_BROWSER_TESTS=required} ({@link Chromium}).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleBrowserIT {
    private static final Path SHOTS = Path.of("target", "console-screenshots");
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static EmbeddedPartita partita;
    private static WebDriver browser;

    @BeforeAll
    static void start() throws IOException {
        Chromium.require();
        partita = EmbeddedPartita.start();
        browser = Chromium.start();
        Files.createDirectories(SHOTS);
    }

    @AfterAll
    static void stop() throws IOException {
        if (browser != null) {
            browser.quit();
        }
        if (partita != null) {
            post("/admin/simulator/stop");
            partita.close();
        }
    }

    @Test
    @Order(1)
    void aTableIsCreatedFromTheForm() throws IOException {
        open("#/tables");
        waitFor(By.id("no-tables"));
        WebElement form = browser.findElement(By.id("create-table"));
        type(form, "name", "orders");
        type(form, "pk", "customer");
        type(form, "sk", "order");
        new Select(form.findElement(By.name("skType"))).selectByValue("N");
        type(form, "gsi", "by-status");
        type(form, "gsiPk", "status");
        form.findElement(By.cssSelector("button[type=submit]")).click();
        // The list is drawn again as it refreshes: the row is found afresh until its text is there.
        String row = new WebDriverWait(browser, WAIT)
                .ignoring(StaleElementReferenceException.class)
                .until(d -> {
                    String text = d.findElement(By.cssSelector("#tables tr[data-table=orders]"))
                            .getText();
                    return text.contains("ACTIVE") ? text : null;
                });
        assertThat(row).contains("orders", "ACTIVE", "On demand", "by-status");
        shoot("tables");

        // A refused request is shown as DynamoDB answers it: its type and message.
        type(form, "name", "orders");
        form.findElement(By.cssSelector("button[type=submit]")).click();
        WebElement error = waitFor(By.cssSelector("#create-table .error"));
        assertThat(error.findElement(By.className("error-type")).getText()).isEqualTo("ResourceInUseException");
        assertThat(error.getText()).contains("Table already exists: orders");
    }

    @Test
    @Order(2)
    void itemsAreCreatedQueriedEditedAndDeleted() throws IOException {
        open("#/tables/orders/items");
        waitFor(By.id("no-items"));
        for (int i = 1; i <= 3; i++) {
            browser.findElement(By.id("new-item")).click();
            WebElement area = waitFor(By.id("item-json"));
            area.clear();
            area.sendKeys("{\"customer\": \"c1\", \"order\": " + i + ", \"status\": \"open\", \"total\": " + (i * 10)
                    + ".5}");
            browser.findElement(By.id("save")).click();
            // One unit for the table and one for the GSI the item's "status" puts it in.
            assertThat(waitFor(By.id("saved")).getText()).contains("consumed 2 write units");
        }

        WebElement run = browser.findElement(By.id("run"));
        new Select(run.findElement(By.name("op"))).selectByValue("Query");
        type(run, "pk", "c1");
        new Select(run.findElement(By.name("skOp"))).selectByValue(">=");
        type(run, "sk1", "2");
        run.findElement(By.cssSelector("button[type=submit]")).click();
        waitForText(By.id("count"), "2");
        assertThat(browser.findElement(By.id("scanned-count")).getText()).isEqualTo("2");
        assertThat(browser.findElement(By.id("consumed")).getText()).isEqualTo("0.5");
        assertThat(browser.findElements(By.cssSelector("#items tbody tr"))).hasSize(2);

        // Open an item, see it as DynamoDB JSON, delete it.
        browser.findElement(By.cssSelector("#items tbody tr[data-row='0']")).click();
        WebElement area = waitFor(By.id("item-json"));
        assertThat(area.getAttribute("value")).contains("\"total\": 20.5");
        new Select(browser.findElement(By.id("format"))).selectByValue("dynamodb");
        assertThat(browser.findElement(By.id("item-json")).getAttribute("value"))
                .contains("\"N\": \"20.5\"");
        shoot("items");
        browser.findElement(By.id("delete")).click();
        waitFor(By.id("deleted"));
        waitForText(By.id("count"), "1");

        // Pages of one item: forward and back again.
        new Select(run.findElement(By.name("op"))).selectByValue("Scan");
        type(run, "limit", "1");
        run.findElement(By.cssSelector("button[type=submit]")).click();
        waitForText(By.id("count"), "1");
        String first = browser.findElement(By.cssSelector("#items tbody tr")).getText();
        browser.findElement(By.id("next")).click();
        new WebDriverWait(browser, WAIT)
                .ignoring(StaleElementReferenceException.class)
                .until(d -> !d.findElement(By.cssSelector("#items tbody tr"))
                        .getText()
                        .equals(first));
        browser.findElement(By.id("prev")).click();
        new WebDriverWait(browser, WAIT)
                .ignoring(StaleElementReferenceException.class)
                .until(d -> d.findElement(By.cssSelector("#items tbody tr"))
                        .getText()
                        .equals(first));
        assertThat(browser.findElement(By.id("prev")).isEnabled()).isFalse();
        type(run, "limit", "25");
        new Select(run.findElement(By.name("op"))).selectByValue("Query");

        // An expression DynamoDB refuses: the console shows DynamoDB's own error.
        type(run, "filter", "customer = :c");
        type(run, "values", "{\":c\": \"c1\"}");
        run.findElement(By.cssSelector("button[type=submit]")).click();
        WebElement error = waitFor(By.cssSelector("#outcome .error"));
        assertThat(error.findElement(By.className("error-type")).getText()).isEqualTo("ValidationException");
        assertThat(error.getText()).contains("Filter Expression can only contain non-primary key attributes");
    }

    @Test
    @Order(3)
    void aTablesPageShowsItsSchemaAndIndexes() throws IOException {
        open("#/tables/orders");
        WebElement facts = waitFor(By.id("table-facts"));
        assertThat(facts.getText()).contains("customer: S (partition key)", "order: N (sort key)", "On demand");
        assertThat(browser.findElement(By.cssSelector("tr[data-index=by-status]"))
                        .getText())
                .contains("GSI", "ACTIVE", "status (partition)", "ALL");
        waitFor(By.cssSelector("#chart .uplot"));
        shoot("table");
    }

    @Test
    @Order(4)
    void theSimulatorThrottlesTheHotPartitionWhileTheTableHasCapacity() throws Exception {
        open("#/simulator");
        WebElement form = waitFor(By.id("sim-form"));
        type(form, "wcu", "2000");
        type(form, "offered", "1500");
        // All the requests on one key: 1,500 WCU/s at a partition that serves 1,000.
        ((JavascriptExecutor) browser)
                .executeScript("const s = document.getElementById('share'); s.value = 100;"
                        + " s.dispatchEvent(new Event('input'));");
        browser.findElement(By.id("sim-start")).click();
        waitFor(By.id("sim-running"));
        JsonNode status = get("/admin/simulator");
        String hot = status.get("hotPartitionId").asText();
        assertThat(status.get("partitionCount").asInt()).isEqualTo(3);
        // Three equal partitions: the hot one gets s + (1 - s)/3 of 1,500 WCU/s, past 1,000 from s = 50 %.
        assertThat(waitFor(By.id("predicted-share")).getText()).contains("throttling must start at 50.0 %");

        // Seconds of throttle events on the hot partition's row of the heat map.
        waitForCount(By.cssSelector("#sim-panel .heat-row[data-partition='" + hot + "'] .heat-cell.throttled"), 3);
        // The other partitions take nothing and throttle nothing, and the table stays below what it provisions.
        for (WebElement row : browser.findElements(By.cssSelector("#sim-panel .heat-row"))) {
            if (!row.getAttribute("data-partition").equals(hot)) {
                assertThat(row.getAttribute("data-throttled")).isNull();
            }
        }
        waitFor(By.id("sim-throttled"));
        JsonNode metrics = get("/admin/metrics?table=hotkey-sim").get("tables").get(0);
        assertThat(metrics.get("writeThrottleEvents").asLong()).isPositive();
        assertThat(get("/admin/simulator").get("throttled").asLong()).isPositive();
        shoot("simulator");

        open("#/tables/hotkey-sim/partitions");
        waitForCount(By.cssSelector(".heat-row[data-partition='" + hot + "'] .heat-cell.throttled"), 3);
        shoot("partitions");
        post("/admin/simulator/stop");
    }

    @Test
    @Order(5)
    void theLagPageListsEachIndex() throws IOException {
        open("#/lag");
        WebElement gsis = waitFor(By.id("gsi-lag-table"));
        assertThat(gsis.getText()).contains("orders", "by-status", "ACTIVE");
        shoot("lag");
    }

    @Test
    @Order(6)
    void aSingleNodeSaysItIsNoCluster() {
        assertThat(browser.findElement(By.id("nav-cluster")).isDisplayed()).isFalse();
        open("#/cluster");
        assertThat(waitFor(By.id("single-node")).getText()).contains("single node");
    }

    @Test
    @Order(6)
    void aTableIsDeletedFromTheList() {
        open("#/tables");
        waitFor(By.cssSelector("#tables tr[data-table=orders]"));
        browser.findElement(By.cssSelector("button[data-delete=orders]")).click();
        browser.switchTo().alert().accept();
        new WebDriverWait(browser, WAIT)
                .until(d -> d.findElements(By.cssSelector("#tables tr[data-table=orders]"))
                        .isEmpty());
        assertThat(browser.findElements(By.cssSelector("#tables tr[data-table=hotkey-sim]")))
                .hasSize(1);
    }

    @Test
    @Order(7)
    void thePagesRaisedNoScriptErrors() {
        List<LogEntry> severe = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue())
                // The refusals the tests asked for are logged by the browser as failed loads; they are not errors.
                .filter(e -> !e.getMessage().contains("the server responded with a status of 400"))
                .toList();
        assertThat(severe).isEmpty();
    }

    private static void open(String fragment) {
        browser.get(partita.endpoint().resolve("/console/" + fragment).toString());
    }

    private static WebElement waitFor(By by) {
        return Chromium.waitFor(browser, by);
    }

    private static void waitForText(By by, String text) {
        new WebDriverWait(browser, WAIT)
                .ignoring(StaleElementReferenceException.class)
                .until(d -> {
                    List<WebElement> found = d.findElements(by);
                    return !found.isEmpty() && found.get(0).getText().equals(text);
                });
    }

    private static void waitForCount(By by, int atLeast) {
        new WebDriverWait(browser, WAIT).until(d -> d.findElements(by).size() >= atLeast);
    }

    private static void type(WebElement form, String name, String text) {
        WebElement input = form.findElement(By.name(name));
        input.clear();
        input.sendKeys(text);
    }

    private static void shoot(String name) throws IOException {
        byte[] png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES);
        Files.write(SHOTS.resolve(name + ".png"), png);
    }

    private static JsonNode get(String path) throws IOException {
        return send(HttpRequest.newBuilder(uri(path)).GET().build());
    }

    private static JsonNode post(String path) throws IOException {
        return send(HttpRequest.newBuilder(uri(path))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build());
    }

    private static URI uri(String path) {
        return partita.endpoint().resolve(path);
    }

    private static JsonNode send(HttpRequest request) throws IOException {
        try {
            HttpResponse<String> r = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            return JSON.readTree(r.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }
}
