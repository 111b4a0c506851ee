package io.partita.bench.hotkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

class SweepChartTest {
    private static final double[] SHARES = {0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100};

    static Document parse(String xml) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        return f.newDocumentBuilder().parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    }

    static List<Element> withClass(Document doc, String tag, String cssClass) {
        NodeList nodes = doc.getElementsByTagNameNS("http://www.w3.org/2000/svg", tag);
        List<Element> found = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            Element e = (Element) nodes.item(i);
            if (List.of(e.getAttribute("class").split(" ")).contains(cssClass)) found.add(e);
        }
        return found;
    }

    private static SweepChart chart(List<StepResult> steps) {
        return new SweepChart(steps, Op.WRITE, "One hot partition <throttles> & more", "PutItem of \"4 KB\" items");
    }

    @Test
    void theSvgIsWellFormedWithOnePointPerShareOnEachMeasuredLine() throws Exception {
        Document doc = parse(chart(SweepFixtures.sweep(SHARES)).svg());

        assertThat(doc.getDocumentElement().getLocalName()).isEqualTo("svg");
        assertThat(withClass(doc, "circle", "table-consumed")).hasSize(SHARES.length);
        assertThat(withClass(doc, "circle", "hot-consumed")).hasSize(SHARES.length);
        assertThat(withClass(doc, "rect", "throttled")).hasSize(SHARES.length);
        for (String line : new String[] {"offered", "prov", "ceiling", "table-consumed", "hot-consumed"}) {
            assertThat(withClass(doc, "path", line)).as(line).hasSize(1);
        }
        String text = doc.getDocumentElement().getTextContent();
        assertThat(text)
                .contains("One hot partition <throttles> & more", "hot key's share of requests")
                .contains("capacity units per second (WCU/s)", "throttled requests per second")
                .contains("table provisioned", "partition ceiling", "hot partition consumed");
    }

    @Test
    void pointsArePlacedByShareAndValue() throws Exception {
        Document doc = parse(chart(SweepFixtures.sweep(100, 0, 80)).svg());
        List<Element> hot = withClass(doc, "circle", "hot-consumed");

        // sorted by share, so x grows in proportion; at 0 % the hot partition gets a quarter of the load, at 80 % and
        // 100 % it sits at its ceiling
        double x0 = Double.parseDouble(hot.get(0).getAttribute("cx"));
        double x1 = Double.parseDouble(hot.get(1).getAttribute("cx"));
        double x2 = Double.parseDouble(hot.get(2).getAttribute("cx"));
        assertThat((x1 - x0) / (x2 - x0)).isCloseTo(0.8, within(0.001));
        assertThat(hot.get(1).getAttribute("cy")).isEqualTo(hot.get(2).getAttribute("cy"));
        assertThat(Double.parseDouble(hot.get(0).getAttribute("cy")))
                .isGreaterThan(Double.parseDouble(hot.get(1).getAttribute("cy")));
        List<Element> bars = withClass(doc, "rect", "throttled");
        assertThat(Double.parseDouble(bars.get(0).getAttribute("height"))).isZero();
        assertThat(Double.parseDouble(bars.get(2).getAttribute("height")))
                .isGreaterThan(Double.parseDouble(bars.get(1).getAttribute("height")));
    }

    @Test
    void stepsWithoutServerMetricsLeaveGapsButStayWellFormed() throws Exception {
        List<StepResult> steps = new ArrayList<>(SweepFixtures.sweep(0, 50, 100));
        StepResult middle = steps.get(1);
        steps.set(1, new StepResult(50, 1500, 4, middle.client(), null));

        Document doc = parse(chart(steps).svg());

        assertThat(withClass(doc, "circle", "table-consumed")).hasSize(2);
        assertThat(withClass(doc, "rect", "throttled")).hasSize(3);
        assertThat(withClass(doc, "path", "table-consumed").get(0).getAttribute("d"))
                .startsWith("M")
                .contains(" M")
                .doesNotContain("L");
    }

    @Test
    void withNoServerAtAllThereAreOnlyBarsAndTheOfferedLine() throws Exception {
        ClientCounts c = new ClientCounts(1, 10, 10, 0, 0, 0, 0, Map.of(), Map.of());
        Document doc = parse(chart(List.of(new StepResult(0, 40, 4, c, null))).svg());

        assertThat(withClass(doc, "circle", "table-consumed")).isEmpty();
        assertThat(withClass(doc, "path", "offered")).hasSize(1);
        assertThat(withClass(doc, "rect", "throttled")).hasSize(1);
    }

    @Test
    void theHtmlPageEmbedsTheSameSvgAndTheTable() {
        List<StepResult> steps = SweepFixtures.sweep(SHARES);
        SweepChart chart = chart(steps);
        String html = chart.html(new SweepTable(steps, Op.WRITE));

        assertThat(html).startsWith("<!DOCTYPE html>").contains(chart.svg()).endsWith("</html>\n");
        assertThat(html.split("<tr>", -1)).hasSize(1 + 2 + SHARES.length);
        assertThat(html).contains("<li>share 100%: throttling reasons TableWriteKeyRangeThroughputExceeded ×");
        assertThat(html).contains("&lt;throttles&gt; &amp; more");
    }

    @Test
    void axesHaveRoundStepsAndTheRightOneSharesTheLeftOnesGrid() {
        assertThat(SweepChart.niceAtLeast(0)).isEqualTo(1);
        assertThat(SweepChart.niceAtLeast(420)).isEqualTo(500);
        assertThat(SweepChart.niceAtLeast(0.3)).isEqualTo(0.5);
        assertThat(SweepChart.niceAtLeast(2500)).isEqualTo(2500);
        assertThat(SweepChart.niceAtLeast(6000.1)).isEqualTo(10000);

        assertThat(SweepChart.Axis.covering(2100)).isEqualTo(new SweepChart.Axis(500, 5));
        assertThat(SweepChart.Axis.covering(6300)).isEqualTo(new SweepChart.Axis(2000, 4)); // not 0 to 10000
        assertThat(SweepChart.Axis.covering(0)).isEqualTo(new SweepChart.Axis(1, 1));
        assertThat(SweepChart.Axis.covering(131, 4)).isEqualTo(new SweepChart.Axis(50, 4));
        assertThat(SweepChart.Axis.covering(0, 4).max()).isEqualTo(4);
    }
}
