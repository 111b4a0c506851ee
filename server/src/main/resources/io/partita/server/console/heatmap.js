// Per-partition consumption over time, from the admin metrics' cumulative counters polled once a second.
import { admin, esc } from "./api.js";

/** Polls /admin/metrics for one table and turns its counters into rates per second, keeping the last `keep`. */
export class MetricsSampler {
  constructor(table, { keep = 60 } = {}) {
    this.table = table;
    this.keep = keep;
    this.samples = [];
    this.previous = null;
    this.latest = null;
  }

  /** Takes one sample; resolves to it, or to null for the first poll (a rate needs two) or a missing table. */
  async poll() {
    const m = await admin("/admin/metrics?table=" + encodeURIComponent(this.table));
    const t = m.tables[0];
    const now = Date.now();
    if (!t) return null;
    this.latest = t;
    const before = this.previous;
    this.previous = { at: now, table: t };
    if (!before) return null;
    const dt = Math.max(0.001, (now - before.at) / 1000);
    const rate = (a, b) => Math.max(0, (a - (b || 0)) / dt);
    const old = new Map(before.table.partitions.map((p) => [p.partitionId, p]));
    const partitions = new Map();
    for (const p of t.partitions) {
      const o = old.get(p.partitionId) || {}; // a new partition (a split) starts counting at zero
      partitions.set(p.partitionId, {
        id: p.partitionId,
        hashStart: p.hashStart,
        hashEnd: p.hashEnd,
        parentId: p.parentId,
        readCeiling: p.readCeiling,
        writeCeiling: p.writeCeiling,
        read: rate(p.consumedReadCapacityUnits, o.consumedReadCapacityUnits),
        write: rate(p.consumedWriteCapacityUnits, o.consumedWriteCapacityUnits),
        readThrottles: rate(p.readThrottleEvents, o.readThrottleEvents),
        writeThrottles: rate(p.writeThrottleEvents, o.writeThrottleEvents),
        isNew: !old.has(p.partitionId),
      });
    }
    const sample = {
      at: now,
      read: rate(t.consumedReadCapacityUnits, before.table.consumedReadCapacityUnits),
      write: rate(t.consumedWriteCapacityUnits, before.table.consumedWriteCapacityUnits),
      throttledRequests: rate(t.throttledRequests, before.table.throttledRequests),
      provisionedRead: t.provisionedReadCapacityUnits,
      provisionedWrite: t.provisionedWriteCapacityUnits,
      partitions,
    };
    this.samples.push(sample);
    if (this.samples.length > this.keep) this.samples.shift();
    return sample;
  }
}

function color(util) {
  // 0 → pale grey-blue, 0.5 → amber, 1 and over → red.
  const u = Math.max(0, Math.min(1, util));
  const stops = [[238, 241, 245], [255, 196, 61], [200, 40, 30]];
  const [a, b, f] = u < 0.5 ? [stops[0], stops[1], u / 0.5] : [stops[1], stops[2], (u - 0.5) / 0.5];
  const mix = a.map((x, i) => Math.round(x + (b[i] - x) * f));
  return "rgb(" + mix.join(",") + ")";
}

function utilisation(p, kind) {
  const w = p.write / p.writeCeiling;
  const r = p.read / p.readCeiling;
  return kind === "write" ? w : kind === "read" ? r : Math.max(w, r);
}

/**
 * Draws the heat map into `el`: one row per partition seen in the window (in hash order), one cell per second,
 * coloured by consumption against the partition's ceiling; a black frame marks a second with throttle events and a
 * blue edge the second a partition appeared by a split.
 */
export function drawHeatmap(el, samples, kind = "both", columns = 60) {
  const rows = new Map();
  for (const s of samples) {
    for (const p of s.partitions.values()) rows.set(p.id, p);
  }
  const ordered = [...rows.values()].sort((a, b) => (a.hashStart < b.hashStart ? -1 : a.hashStart > b.hashStart ? 1 : 0));
  if (ordered.length === 0) {
    el.innerHTML = '<p class="muted">Collecting… (a rate needs two samples)</p>';
    return;
  }
  const last = samples[samples.length - 1];
  let html = "";
  for (const p of ordered) {
    const now = last.partitions.get(p.id);
    let throttledAny = false;
    // A fixed window: the seconds not sampled yet are blank on the left, so a cell is always one second wide.
    let cells = '<div class="heat-cell" data-gone="true"></div>'.repeat(Math.max(0, columns - samples.length));
    for (const s of samples) {
      const q = s.partitions.get(p.id);
      if (!q) {
        cells += '<div class="heat-cell" data-gone="true"></div>';
        continue;
      }
      const util = utilisation(q, kind);
      const throttled = q.readThrottles + q.writeThrottles > 0;
      throttledAny = throttledAny || throttled;
      const title = new Date(s.at).toLocaleTimeString() + " — " + q.write.toFixed(0) + " WCU/s of " + q.writeCeiling +
        ", " + q.read.toFixed(0) + " RCU/s of " + q.readCeiling +
        (throttled ? ", throttled " + (q.writeThrottles + q.readThrottles).toFixed(0) + "/s" : "") +
        (q.isNew ? ", new (split)" : "");
      cells += '<div class="heat-cell' + (throttled ? " throttled" : "") + (q.isNew ? " split" : "") +
        '" style="background:' + color(util) + '" data-util="' + util.toFixed(3) + '"' +
        (throttled ? ' data-throttled="true"' : "") + ' title="' + esc(title) + '"></div>';
    }
    const label = now
      ? "<b>" + esc(p.id) + "</b> " + (now.write).toFixed(0) + " WCU/s · " + (now.read).toFixed(0) + " RCU/s"
      : "<b>" + esc(p.id) + "</b> split";
    html += '<div class="heat-label" title="hash ' + esc(p.hashStart) + "–" + esc(p.hashEnd) + '">' + label +
      '<br>' + esc(p.hashStart.slice(0, 6)) + "…–" + esc(p.hashEnd.slice(0, 6)) + "…</div>" +
      '<div class="heat-row" data-partition="' + esc(p.id) + '"' + (throttledAny ? ' data-throttled="true"' : "") +
      (now ? "" : ' data-retired="true"') + ">" + cells + "</div>";
  }
  el.innerHTML = html;
}

export const LEGEND =
  '<div class="legend"><span><i style="background:' + color(0) + '"></i>idle</span>' +
  '<span><i style="background:' + color(0.5) + '"></i>50 % of the partition ceiling</span>' +
  '<span><i style="background:' + color(1) + '"></i>at the ceiling (1,000 WCU/s or 3,000 RCU/s)</span>' +
  '<span><i style="outline:2px solid #000;outline-offset:-2px"></i>throttle events</span>' +
  '<span><i style="box-shadow:inset 2px 0 0 #2458c6"></i>split</span></div>';
