package io.partita.server.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.server.auth.Accounts;
import io.partita.server.embedded.EmbeddedPartita;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * The console against a server in strict mode: it asks for keys, signs every request with them in the browser (Web
 * Crypto), and the server's own verifier accepts them; a wrong secret is shown as DynamoDB refuses it.
 */
class ConsoleStrictBrowserIT {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static EmbeddedPartita partita;
    private static WebDriver browser;

    @BeforeAll
    static void start() throws IOException {
        Chromium.require();
        partita = EmbeddedPartita.strict(
                new Accounts(Map.of("AKIDCONSOLE", new Accounts.Key("AKIDCONSOLE", "s3cret/+=", "123456789012"))));
        browser = Chromium.start();
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (partita != null) {
            partita.close();
        }
    }

    @Test
    void theConsoleSignsItsRequestsWithTheKeysTypedIn() {
        open("#/tables");
        signIn("AKIDCONSOLE", "wrong");
        WebElement refused = waitFor(By.cssSelector(".error"));
        assertThat(refused.getText()).contains("InvalidSignatureException");

        browser.findElement(By.id("sign-out")).click();
        signIn("AKIDCONSOLE", "s3cret/+=");
        waitFor(By.id("no-tables"));
        WebElement form = browser.findElement(By.id("create-table"));
        form.findElement(By.name("name")).sendKeys("signed");
        form.findElement(By.cssSelector("button[type=submit]")).click();
        WebElement row = waitFor(By.cssSelector("#tables tr[data-table=signed]"));
        assertThat(row.getText()).contains("signed", "ACTIVE");

        // The admin views are signed too: the partition page fills its heat map from /admin/metrics.
        open("#/tables/signed/partitions");
        waitFor(By.cssSelector("#heatmap .heat-row"));
        assertThat(browser.findElements(By.cssSelector(".error"))).isEmpty();
    }

    private static void signIn(String key, String secret) {
        WebElement form = waitFor(By.id("sign-in"));
        form.findElement(By.name("accessKey")).sendKeys(key);
        form.findElement(By.name("secret")).sendKeys(secret);
        form.findElement(By.cssSelector("button[type=submit]")).click();
    }

    private static void open(String fragment) {
        browser.get(partita.endpoint().resolve("/console/" + fragment).toString());
    }

    private static WebElement waitFor(By by) {
        return Chromium.waitFor(browser, by);
    }
}
