package io.partita.server.console;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's headless Chromium, driven by its ChromeDriver through Selenium. Without them the calling test is skipped,
 * unless {@code PARTITA_BROWSER_TESTS=required} (CI sets it, after installing both), where it fails.
 */
public final class Chromium {
    private static final Path BINARY = Path.of("/usr/bin/chromium");
    private static final Path DRIVER = Path.of("/usr/bin/chromedriver");

    private Chromium() {}

    /** Skips (or, where required, fails) the test when there is no browser here. */
    public static void require() {
        boolean present = Files.isExecutable(BINARY) && Files.isExecutable(DRIVER);
        if (!present && "required".equals(System.getenv("PARTITA_BROWSER_TESTS"))) {
            throw new IllegalStateException("PARTITA_BROWSER_TESTS=required but " + BINARY + " or " + DRIVER
                    + " is missing (apt-get install chromium chromium-driver)");
        }
        Assumptions.assumeTrue(present, "no Chromium and ChromeDriver here; the console's browser test is skipped");
    }

    /** A new browser with a profile of its own, recording the page's console messages. */
    public static WebDriver start() throws IOException {
        require();
        Path profile = Files.createTempDirectory("partita-chromium");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(BINARY.toFile());
        // As root, with no network beyond loopback: no sandbox, nothing fetched in the background.
        options.addArguments(
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--window-size=1400,1000",
                "--user-data-dir=" + profile);
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(DRIVER.toString()))
                .usingAnyFreePort()
                .build();
        return new ChromeDriver(service, options);
    }

    /** The first element {@code by} finds once it is displayed, waiting up to 30 s through page redraws. */
    public static WebElement waitFor(WebDriver browser, By by) {
        return new WebDriverWait(browser, Duration.ofSeconds(30))
                .ignoring(StaleElementReferenceException.class)
                .until(d -> {
                    List<WebElement> found = d.findElements(by);
                    return found.isEmpty() || !found.get(0).isDisplayed() ? null : found.get(0);
                });
    }
}
