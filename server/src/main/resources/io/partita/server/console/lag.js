// Lag: how far behind each GSI, each stream reader and the TTL reaper are.
import { admin, esc, every } from "./api.js";

const ms = (v) => (v === undefined || v === null ? "" : v < 1000 ? v + " ms" : (v / 1000).toFixed(1) + " s");

export async function lagView(el) {
  el.innerHTML = '<h1>Lag</h1><div class="card"><h2>Global secondary indexes: replication lag and backlog</h2><div id="gsi-lag"></div></div>' +
    '<div class="card"><h2>Streams: iterator age of each shard\'s last GetRecords</h2><div id="stream-lag"></div></div>' +
    '<div class="card"><h2>Time to Live: how late after expiry the reaper deleted items</h2><div id="ttl-lag"></div></div>';
  return every(1000, async () => {
    const [gsi, streams, ttl] = await Promise.all([admin("/admin/indexes"), admin("/admin/streams"), admin("/admin/ttl")]);
    const g = [];
    for (const t of gsi.tables) {
      for (const i of t.globalSecondaryIndexes) {
        g.push("<tr><td>" + esc(t.tableName) + "</td><td>" + esc(i.indexName) + "</td><td>" + esc(i.indexStatus) + '</td><td class="num">' +
          ms(i.oldestUnappliedMillis) + '</td><td class="num">' + (i.backlog ?? "") + '</td><td class="num">' +
          ms(i.applyDelayP99Millis) + '</td><td class="num">' + (i.injectedLagMillis ? ms(i.injectedLagMillis) : "") + "</td></tr>");
      }
    }
    el.querySelector("#gsi-lag").innerHTML = g.length
      ? '<table class="grid" id="gsi-lag-table"><thead><tr><th>Table</th><th>Index</th><th>Status</th><th class="num">Oldest unapplied change</th><th class="num">Backlog</th><th class="num">p99 apply delay</th><th class="num">Injected lag</th></tr></thead><tbody>' + g.join("") + "</tbody></table>"
      : '<p class="muted">No GSIs.</p>';
    const s = [];
    for (const t of streams.tables) {
      for (const st of t.streams) {
        for (const sh of st.shards) {
          s.push("<tr><td>" + esc(t.tableName) + "</td><td>" + esc(st.streamLabel) + " (" + esc(st.streamStatus) + ")</td><td>" + esc(sh.partitionId) +
            (sh.closed ? " (closed)" : "") + '</td><td class="num">' + (sh.iteratorAgeMillis === undefined ? '<span class="muted">not read</span>' : ms(sh.iteratorAgeMillis)) + "</td></tr>");
        }
      }
    }
    el.querySelector("#stream-lag").innerHTML = s.length
      ? '<table class="grid"><thead><tr><th>Table</th><th>Stream</th><th>Shard</th><th class="num">Iterator age</th></tr></thead><tbody>' + s.join("") + "</tbody></table>"
      : '<p class="muted">No streams.</p>';
    const l = ttl.tables.map((t) => "<tr><td>" + esc(t.tableName) + "</td><td>" + esc(t.attributeName) + " (" + esc(t.timeToLiveStatus) + ')</td><td class="num">' +
      t.timeToLiveDeletedItemCount + '</td><td class="num">' + ms(t.deletedAfterExpiryP50Millis) + '</td><td class="num">' + ms(t.deletedAfterExpiryP99Millis) +
      '</td><td class="num">' + ms(t.deletedAfterExpiryMaxMillis) + "</td></tr>");
    el.querySelector("#ttl-lag").innerHTML = '<p class="muted">The reaper runs ' + ms(ttl.delayMillis) + " after expiry at the earliest.</p>" + (l.length
      ? '<table class="grid"><thead><tr><th>Table</th><th>Attribute</th><th class="num">Deleted</th><th class="num">p50 late</th><th class="num">p99 late</th><th class="num">max late</th></tr></thead><tbody>' + l.join("") + "</tbody></table>"
      : '<p class="muted">No table has Time to Live.</p>');
  });
}
