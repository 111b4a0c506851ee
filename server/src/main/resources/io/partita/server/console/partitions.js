// A table's partitions: the heat map of each hash range's consumption against its ceiling over the last minute,
// beside the table's total against what it provisions, the splits, and Contributor Insights' keys.
import { ddb, admin, esc, errorBox, every } from "./api.js";
import { LiveChart } from "./charts.js";
import { MetricsSampler, drawHeatmap, LEGEND } from "./heatmap.js";

const T = (name) => "#/tables/" + encodeURIComponent(name);

/** The heat map, the table's total and the split log for `name`, drawn into `el`; returns its stop function. */
export function partitionPanel(el, name) {
  el.innerHTML =
    '<div class="card"><h2>Partitions: consumption against each partition\'s ceiling, one cell a second</h2>' +
    '<label>Show<select class="kind"><option value="both">reads and writes (the higher)</option><option value="write">writes</option><option value="read">reads</option></select></label>' +
    '<div class="heatmap" id="heatmap"></div>' + LEGEND + "</div>" +
    '<div class="row"><div class="card"><h2>The table: total consumption against what it provisions</h2><div class="total"></div>' +
    '<div class="stats" id="totals"></div></div><div class="card"><h2>Splits</h2><div id="splits"></div></div></div>';
  const heat = el.querySelector("#heatmap");
  const kind = el.querySelector(".kind");
  const chart = new LiveChart(el.querySelector(".total"), [
    { label: "consumed WCU/s", color: "#c8281e" },
    { label: "provisioned WCU", color: "#c8281e", dash: [6, 4] },
    { label: "consumed RCU/s", color: "#2458c6" },
    { label: "provisioned RCU", color: "#2458c6", dash: [6, 4] },
    { label: "throttled requests/s", color: "#000" },
  ], { keep: 60 });
  const sampler = new MetricsSampler(name);
  const redraw = () => drawHeatmap(heat, sampler.samples, kind.value, sampler.keep);
  kind.addEventListener("change", redraw);
  const stop = every(1000, async () => {
    const s = await sampler.poll();
    const t = sampler.latest;
    if (t) {
      el.querySelector("#splits").innerHTML = t.splits.length
        ? '<table class="grid"><thead><tr><th>When</th><th>Partition</th><th>Into</th><th>Why</th></tr></thead><tbody>' +
          t.splits.slice(-10).reverse().map((x) => "<tr><td>" + new Date(x.atMillis).toLocaleTimeString() + "</td><td>" + esc(x.parentId) +
            "</td><td>" + esc(x.leftId) + ", " + esc(x.rightId) + "</td><td>" + esc(x.reason) + "</td></tr>").join("") + "</tbody></table>"
        : '<p class="muted">No splits yet. ' + t.partitionCount + " partitions.</p>";
    }
    if (!s) {
      redraw();
      return;
    }
    chart.push(s.at / 1000, [s.write, s.provisionedWrite || null, s.read, s.provisionedRead || null, s.throttledRequests]);
    el.querySelector("#totals").innerHTML =
      "<span>Table <b>" + s.write.toFixed(0) + "</b> WCU/s" + (s.provisionedWrite ? " of <b>" + s.provisionedWrite + "</b> provisioned" : "") + "</span>" +
      "<span><b>" + s.read.toFixed(0) + "</b> RCU/s" + (s.provisionedRead ? " of <b>" + s.provisionedRead + "</b>" : "") + "</span>" +
      '<span>throttled <b id="throttled-rate">' + s.throttledRequests.toFixed(0) + "</b> requests/s</span>";
    redraw();
  });
  return () => { stop(); chart.destroy(); };
}

export async function partitionsView(el, name) {
  el.innerHTML = "<h1>" + esc(name) + '</h1><div class="tabs"><a href="' + T(name) + '">Overview</a>' +
    '<a href="' + T(name) + '/items">Items</a><a class="active" href="' + T(name) + '/partitions">Partitions</a></div>' +
    '<div id="panel"></div><div class="card"><h2>Contributor Insights</h2><div id="insights"></div></div>';
  await ddb("DescribeTable", { TableName: name }); // a missing table is shown as DynamoDB answers it
  const stopPanel = partitionPanel(el.querySelector("#panel"), name);
  const box = el.querySelector("#insights");
  const keys = (title, list, id) => '<div class="card"><h2>' + title + "</h2>" + (list && list.length
    ? '<table class="grid" id="' + id + '"><thead><tr><th>Partition key</th><th class="num">Count</th></tr></thead><tbody>' +
      list.map((k) => "<tr><td>" + esc(k.key) + '</td><td class="num">' + k.count + "</td></tr>").join("") + "</tbody></table>"
    : '<p class="muted">None yet.</p>') + "</div>";
  box.addEventListener("click", async (e) => {
    if (e.target.id !== "enable-insights") return;
    try {
      await ddb("UpdateContributorInsights", { TableName: name, ContributorInsightsAction: "ENABLE" });
    } catch (err) {
      box.insertAdjacentHTML("afterbegin", errorBox(err));
    }
  });
  const stopInsights = every(2000, async () => {
    const r = await admin("/admin/contributor-insights?table=" + encodeURIComponent(name));
    const t = r.tables[0];
    if (!t || t.contributorInsightsStatus !== "ENABLED") {
      box.innerHTML = '<p class="muted">Contributor Insights is off for this table: no keys are counted.</p><button id="enable-insights">Enable</button>';
      return;
    }
    box.innerHTML = '<div class="row">' + keys("Most accessed keys", t.mostAccessedKeys, "most-accessed") +
      keys("Most throttled keys", t.mostThrottledKeys, "most-throttled") + "</div>";
  });
  return () => { stopPanel(); stopInsights(); };
}
