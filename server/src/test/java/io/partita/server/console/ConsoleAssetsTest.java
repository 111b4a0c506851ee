package io.partita.server.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.server.admin.AdminRoutes.Answer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ConsoleAssetsTest {
    private final ConsoleAssets assets = new ConsoleAssets("eu-west-1");

    @Test
    void thePageItsScriptsAndTheChartLibraryAreServedFromTheJar() {
        Answer page = assets.get("/console");
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.contentType()).startsWith("text/html");
        assertThat(text(page)).contains("/console/app.js", "/console/vendor/uPlot.iife.min.js");
        assertThat(assets.get("/console/").body()).isEqualTo(page.body());
        for (String script : new String[] {
            "app", "api", "tables", "items", "partitions", "heatmap", "lag", "simulator", "charts", "cluster"
        }) {
            Answer a = assets.get("/console/" + script + ".js");
            assertThat(a.status()).as(script).isEqualTo(200);
            assertThat(a.contentType()).startsWith("text/javascript");
        }
        Answer uplot = assets.get("/console/vendor/uPlot.iife.min.js");
        assertThat(uplot.status()).isEqualTo(200);
        assertThat(text(uplot)).contains("uPlot");
        assertThat(assets.get("/console/vendor/uPlot.min.css").contentType()).startsWith("text/css");
    }

    @Test
    void theConfigNamesTheServersRegion() {
        assertThat(text(assets.get("/console/config.json"))).isEqualTo("{\"region\":\"eu-west-1\"}");
    }

    @Test
    void nothingOutsideTheConsolesFilesIsServed() {
        for (String path : new String[] {
            "/console/../logback.xml",
            "/console/%2e%2e/logback.xml",
            "/console/io/partita/server/console/app.js",
            "/console/nothing.js",
            "/console/App.js",
            "/console/vendor/LICENSE",
            "/console/vendor/../../pom.properties",
            "/console/app.class"
        }) {
            assertThat(assets.get(path).status()).as(path).isEqualTo(404);
        }
    }

    private static String text(Answer a) {
        return new String(a.body(), StandardCharsets.UTF_8);
    }
}
