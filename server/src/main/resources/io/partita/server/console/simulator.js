// The hot-key simulator: a fixed total write load on a provisioned table, a slider for the share that goes to one
// key, and the real server's hot partition reaching its 1,000 WCU/s ceiling while the table has capacity to spare —
// beside the prediction from the partition math.
import { admin, esc, errorBox, every } from "./api.js";
import { XYChart } from "./charts.js";
import { MetricsSampler } from "./heatmap.js";
import { partitionPanel } from "./partitions.js";

const SHARES = Array.from({ length: 101 }, (_, i) => i);

export async function simulatorView(el) {
  el.innerHTML = '<h1>Hot-key simulator</h1>' +
    '<p class="muted">A provisioned table gets a fixed total write load below what it provisions. Move the share of the ' +
    "requests that go to one partition key: its partition can serve at most 1,000 WCU a second however much the table " +
    "has spare, so past a share the partition math predicts, its writes are throttled while the table's total stays under " +
    "its provisioned rate. The writes are real PutItems through the server's request path.</p>" +
    '<div class="card"><form id="sim-form">' +
    '<label>Table<input name="table" value="hotkey-sim"></label>' +
    '<label>Provisioned WCU<input name="wcu" type="number" value="2000" min="1" max="40000"></label>' +
    '<label>Offered load (WCU/s)<input name="offered" type="number" value="1500" min="1"></label>' +
    '<label>Item size (KB)<input name="itemKb" type="number" value="4" min="1" max="64"></label>' +
    '<button type="submit" id="sim-start">Start</button> <button type="button" class="secondary" id="sim-stop">Stop</button>' +
    '</form><div class="stats"><label>Hot key\'s share of requests: <b id="share-label">0 %</b>' +
    '<input type="range" class="slider" id="share" min="0" max="100" step="1" value="0"></label></div>' +
    '<div id="sim-result"></div><div class="stats" id="sim-status"><span class="muted">Not running.</span></div></div>' +
    '<div class="card"><h2>Hot partition: predicted against measured (WCU/s by share)</h2><div id="sim-chart"></div>' +
    '<p class="muted" id="prediction"></p></div><div id="sim-panel"></div>';

  const form = el.querySelector("#sim-form");
  const slider = el.querySelector("#share");
  const label = el.querySelector("#share-label");
  const result = el.querySelector("#sim-result");
  const statusBox = el.querySelector("#sim-status");
  const chart = new XYChart(el.querySelector("#sim-chart"), SHARES, [
    { label: "predicted served", color: "#c8281e" },
    { label: "predicted throttled", color: "#000" },
    { label: "partition ceiling", color: "#c8281e", dash: [8, 5] },
    { label: "measured served", color: "#c8281e", points: true },
    { label: "measured throttled", color: "#000", points: true },
  ], { xLabel: "hot key's share of requests (%)", yLabel: "WCU/s" });

  let status = null;
  let previous = null; // the last status, for rates
  let sampler = null;
  let panelStop = null;
  let table = null;
  let stableShare = null; // the share of the last sample, to skip the second in which it moved
  const measured = new Map(); // share % → {served, throttled, n}

  const showTable = (name) => {
    if (name === table) return;
    table = name;
    if (panelStop) panelStop();
    sampler = new MetricsSampler(name);
    panelStop = partitionPanel(el.querySelector("#sim-panel"), name);
    measured.clear();
  };

  const redrawChart = () => {
    if (!status || !status.tableName) return;
    const L = status.offeredWriteUnitsPerSecond;
    const w = status.hotPartitionWidth ?? 1;
    const c = status.partitionWriteCeiling;
    const demand = SHARES.map((s) => (s / 100) * L + (1 - s / 100) * L * w);
    chart.setData([
      demand.map((d) => Math.min(d, c)),
      demand.map((d) => Math.max(0, d - c)),
      SHARES.map(() => c),
      SHARES.map((s) => (measured.has(s) ? measured.get(s).served / measured.get(s).n : null)),
      SHARES.map((s) => (measured.has(s) ? measured.get(s).throttled / measured.get(s).n : null)),
    ]);
    const at = status.predictedThrottleShare;
    el.querySelector("#prediction").innerHTML =
      status.partitionCount + " partitions; the hot key's partition (" + esc(status.hotPartitionId) + ") covers " +
      (w * 100).toFixed(1) + " % of the hash space. At " + L + " WCU/s in all it receives share·" + L + " + (1 − share)·" + L +
      "·" + w.toFixed(3) + ": " + (at === null ? "it never reaches its ceiling of " + c + " WCU/s." :
        '<b id="predicted-share">throttling must start at ' + (at * 100).toFixed(1) + " %</b>, while the table consumes " +
        L + " of " + status.provisionedWriteCapacityUnits + " provisioned WCU.");
  };

  const poll = async () => {
    const s = await admin("/admin/simulator");
    const before = previous;
    previous = { at: Date.now(), s };
    status = s;
    if (!s.tableName) return;
    showTable(s.tableName);
    if (document.activeElement !== slider) {
      slider.value = Math.round(s.hotShare * 100);
      label.textContent = slider.value + " %";
    }
    const sample = await sampler.poll();
    let throttledPerSecond = 0;
    let sentPerSecond = 0;
    if (before && before.s.running && s.running) {
      const dt = Math.max(0.001, (previous.at - before.at) / 1000);
      throttledPerSecond = Math.max(0, (s.throttled - before.s.throttled) / dt);
      sentPerSecond = Math.max(0, (s.sent - before.s.sent) / dt);
    }
    const hot = sample && sample.partitions.get(s.hotPartitionId);
    const share = Math.round(s.hotShare * 100);
    if (s.running && hot && stableShare === share && sentPerSecond > 0) {
      const m = measured.get(share) || { served: 0, throttled: 0, n: 0 };
      m.served += hot.write;
      m.throttled += throttledPerSecond * s.unitsPerRequest;
      m.n += 1;
      measured.set(share, m);
    }
    stableShare = s.running ? share : null;
    statusBox.innerHTML = s.running
      ? '<span id="sim-running">Running</span><span>sent <b>' + sentPerSecond.toFixed(0) + "</b> writes/s</span>" +
        '<span>throttled <b id="sim-throttled">' + throttledPerSecond.toFixed(0) + "</b> writes/s (" + s.throttled + " in all)</span>" +
        (hot ? '<span>hot partition <b id="sim-hot">' + hot.write.toFixed(0) + "</b> of " + s.partitionWriteCeiling + " WCU/s</span>" : "") +
        (sample ? "<span>table <b>" + sample.write.toFixed(0) + "</b> of " + s.provisionedWriteCapacityUnits + " WCU/s</span>" : "") +
        (s.failed ? '<span class="error">' + s.failed + " failed: " + esc(s.lastError || "") + "</span>" : "")
      : '<span class="muted">Stopped.</span>';
    redrawChart();
  };

  const act = async (path) => {
    try {
      status = await admin(path, "POST"); // the next poll (within a second) shows its effect
      result.innerHTML = "";
    } catch (e) {
      result.innerHTML = errorBox(e);
    }
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const v = (n) => encodeURIComponent(form.elements[n].value.trim());
    measured.clear();
    act("/admin/simulator/start?table=" + v("table") + "&wcu=" + v("wcu") + "&offered=" + v("offered") + "&itemKb=" + v("itemKb") +
      "&share=" + slider.value / 100);
  });
  el.querySelector("#sim-stop").addEventListener("click", () => act("/admin/simulator/stop"));
  let pending = null;
  slider.addEventListener("input", () => {
    label.textContent = slider.value + " %";
    clearTimeout(pending);
    pending = setTimeout(() => {
      if (status && status.running) act("/admin/simulator/share?value=" + slider.value / 100);
    }, 150);
  });

  const stop = every(1000, poll);
  return () => { stop(); if (panelStop) panelStop(); chart.destroy(); };
}
