// The table list (with the create form) and a table's page.
import { ddb, admin, tableNames, bytes, esc, errorBox, every } from "./api.js";
import { LiveChart } from "./charts.js";
import { MetricsSampler } from "./heatmap.js";

const T = (name) => "#/tables/" + encodeURIComponent(name);

async function describeAll() {
  const names = await tableNames();
  return Promise.all(
    names.map(async (name) => {
      const [d, ttl] = await Promise.all([
        ddb("DescribeTable", { TableName: name }),
        ddb("DescribeTimeToLive", { TableName: name }).catch(() => null),
      ]);
      return { table: d.Table, ttl: ttl && ttl.TimeToLiveDescription };
    }),
  );
}

function indexNames(t) {
  const g = (t.GlobalSecondaryIndexes || []).map((i) => esc(i.IndexName) + ' <span class="badge ' + esc(i.IndexStatus) + '">GSI ' + esc(i.IndexStatus) + "</span>");
  const l = (t.LocalSecondaryIndexes || []).map((i) => esc(i.IndexName) + ' <span class="badge">LSI</span>');
  return [...g, ...l].join("<br>") || '<span class="muted">none</span>';
}

function billing(t) {
  const mode = (t.BillingModeSummary && t.BillingModeSummary.BillingMode) || "PROVISIONED";
  if (mode === "PAY_PER_REQUEST") return "On demand";
  return "Provisioned " + t.ProvisionedThroughput.ReadCapacityUnits + " RCU / " + t.ProvisionedThroughput.WriteCapacityUnits + " WCU";
}

export async function tablesView(el) {
  el.innerHTML = '<h1>Tables</h1><div id="list"></div><h2>Create a table</h2><div class="card">' + createForm() + "</div>";
  const list = el.querySelector("#list");
  const render = async () => {
    let all;
    try {
      all = await describeAll();
    } catch (e) {
      list.innerHTML = errorBox(e); // as DynamoDB answered: a refused signature, say
      return;
    }
    if (all.length === 0) {
      list.innerHTML = '<p class="muted" id="no-tables">No tables yet.</p>';
      return;
    }
    list.innerHTML =
      '<table class="grid" id="tables"><thead><tr><th>Name</th><th>Status</th><th>Billing mode</th><th class="num">Items</th>' +
      '<th class="num">Size</th><th>Indexes</th><th>Stream</th><th>TTL</th><th></th></tr></thead><tbody>' +
      all
        .map(({ table: t, ttl }) =>
          '<tr data-table="' + esc(t.TableName) + '"><td><a href="' + T(t.TableName) + '">' + esc(t.TableName) + "</a></td>" +
          '<td><span class="badge ' + esc(t.TableStatus) + '">' + esc(t.TableStatus) + "</span></td>" +
          "<td>" + esc(billing(t)) + '</td><td class="num">' + t.ItemCount + '</td><td class="num">' + bytes(t.TableSizeBytes) + "</td>" +
          "<td>" + indexNames(t) + "</td>" +
          "<td>" + (t.StreamSpecification && t.StreamSpecification.StreamEnabled ? esc(t.StreamSpecification.StreamViewType) : '<span class="muted">off</span>') + "</td>" +
          "<td>" + (ttl && ttl.TimeToLiveStatus !== "DISABLED" ? esc(ttl.TimeToLiveStatus + " on " + ttl.AttributeName) : '<span class="muted">off</span>') + "</td>" +
          '<td><a href="' + T(t.TableName) + '/items">Items</a> · <a href="' + T(t.TableName) + '/partitions">Partitions</a> · ' +
          '<button class="danger" data-delete="' + esc(t.TableName) + '">Delete</button></td></tr>')
        .join("") +
      "</tbody></table>";
  };
  list.addEventListener("click", async (e) => {
    const name = e.target.dataset && e.target.dataset.delete;
    if (!name || !confirm("Delete table " + name + " and all its items?")) return;
    try {
      await ddb("DeleteTable", { TableName: name });
      await render();
    } catch (err) {
      list.insertAdjacentHTML("afterbegin", errorBox(err));
    }
  });
  wireCreateForm(el.querySelector("#create-table"), render);
  return every(3000, render);
}

function createForm() {
  const types = '<option value="S">String</option><option value="N">Number</option><option value="B">Binary</option>';
  return '<form id="create-table">' +
    '<label>Table name<input name="name" required></label>' +
    '<label>Partition key<input name="pk" value="pk" required></label>' +
    '<label>Type<select name="pkType">' + types + "</select></label>" +
    '<label>Sort key (optional)<input name="sk"></label>' +
    '<label>Type<select name="skType">' + types + "</select></label>" +
    '<label>Billing mode<select name="billing"><option value="PAY_PER_REQUEST">On demand</option><option value="PROVISIONED">Provisioned</option></select></label>' +
    '<label>RCU<input name="rcu" type="number" value="5" min="1"></label>' +
    '<label>WCU<input name="wcu" type="number" value="5" min="1"></label>' +
    '<label>Stream<select name="stream"><option value="">off</option><option>NEW_AND_OLD_IMAGES</option><option>NEW_IMAGE</option><option>OLD_IMAGE</option><option>KEYS_ONLY</option></select></label>' +
    "<br>" +
    '<label>GSI name (optional)<input name="gsi"></label>' +
    '<label>GSI partition key<input name="gsiPk"></label>' +
    '<label>Type<select name="gsiPkType">' + types + "</select></label>" +
    '<label>GSI sort key (optional)<input name="gsiSk"></label>' +
    '<label>Type<select name="gsiSkType">' + types + "</select></label>" +
    '<br><button type="submit">Create table</button><div class="result"></div></form>';
}

/** The CreateTable request the form describes. */
function createRequest(f) {
  const v = (n) => f.elements[n].value.trim();
  const defs = new Map();
  const key = [{ AttributeName: v("pk"), KeyType: "HASH" }];
  defs.set(v("pk"), v("pkType"));
  if (v("sk")) {
    key.push({ AttributeName: v("sk"), KeyType: "RANGE" });
    defs.set(v("sk"), v("skType"));
  }
  const provisioned = v("billing") === "PROVISIONED";
  const throughput = { ReadCapacityUnits: Number(v("rcu")), WriteCapacityUnits: Number(v("wcu")) };
  const req = { TableName: v("name"), KeySchema: key, BillingMode: v("billing") };
  if (provisioned) req.ProvisionedThroughput = throughput;
  if (v("stream")) req.StreamSpecification = { StreamEnabled: true, StreamViewType: v("stream") };
  if (v("gsi")) {
    const gk = [{ AttributeName: v("gsiPk"), KeyType: "HASH" }];
    defs.set(v("gsiPk"), v("gsiPkType"));
    if (v("gsiSk")) {
      gk.push({ AttributeName: v("gsiSk"), KeyType: "RANGE" });
      defs.set(v("gsiSk"), v("gsiSkType"));
    }
    const gsi = { IndexName: v("gsi"), KeySchema: gk, Projection: { ProjectionType: "ALL" } };
    if (provisioned) gsi.ProvisionedThroughput = throughput;
    req.GlobalSecondaryIndexes = [gsi];
  }
  req.AttributeDefinitions = [...defs].map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType }));
  return req;
}

function wireCreateForm(f, after) {
  f.addEventListener("submit", async (e) => {
    e.preventDefault();
    const out = f.querySelector(".result");
    try {
      const r = await ddb("CreateTable", createRequest(f));
      out.innerHTML = '<div class="ok">Created <a href="' + T(r.TableDescription.TableName) + '">' + esc(r.TableDescription.TableName) + "</a></div>";
      await after();
    } catch (err) {
      out.innerHTML = errorBox(err);
    }
  });
}

export async function tableView(el, name) {
  el.innerHTML = '<h1>' + esc(name) + '</h1><div class="tabs"><a class="active" href="' + T(name) + '">Overview</a>' +
    '<a href="' + T(name) + '/items">Items</a><a href="' + T(name) + '/partitions">Partitions</a></div><div id="about"></div>' +
    '<div class="card"><h2>Consumption (units a second)</h2><div id="chart"></div></div>';
  const [d, ttl] = await Promise.all([
    ddb("DescribeTable", { TableName: name }),
    ddb("DescribeTimeToLive", { TableName: name }).catch(() => null),
  ]);
  const t = d.Table;
  const keys = (ks) => ks.map((k) => esc(k.AttributeName) + " (" + (k.KeyType === "HASH" ? "partition" : "sort") + ")").join(", ");
  const types = new Map(t.AttributeDefinitions.map((a) => [a.AttributeName, a.AttributeType]));
  const gsis = (t.GlobalSecondaryIndexes || []).map((i) =>
    '<tr data-index="' + esc(i.IndexName) + '"><td>' + esc(i.IndexName) + '</td><td>GSI</td><td><span class="badge ' + esc(i.IndexStatus) + '">' + esc(i.IndexStatus) + "</span></td><td>" + keys(i.KeySchema) +
    "</td><td>" + esc(i.Projection.ProjectionType) + '</td><td class="num">' + i.ItemCount + "</td><td>" +
    (i.ProvisionedThroughput && i.ProvisionedThroughput.ReadCapacityUnits ? i.ProvisionedThroughput.ReadCapacityUnits + " RCU / " + i.ProvisionedThroughput.WriteCapacityUnits + " WCU" : "on demand") + "</td></tr>");
  const lsis = (t.LocalSecondaryIndexes || []).map((i) =>
    '<tr data-index="' + esc(i.IndexName) + '"><td>' + esc(i.IndexName) + "</td><td>LSI</td><td></td><td>" + keys(i.KeySchema) + "</td><td>" + esc(i.Projection.ProjectionType) +
    '</td><td class="num">' + i.ItemCount + "</td><td>the table's</td></tr>");
  const ttlText = ttl && ttl.TimeToLiveDescription;
  el.querySelector("#about").innerHTML =
    '<div class="row"><div class="card"><table class="kv" id="table-facts">' +
    "<tr><td>Status</td><td>" + esc(t.TableStatus) + "</td></tr>" +
    "<tr><td>Key schema</td><td>" + t.KeySchema.map((k) => esc(k.AttributeName) + ": " + esc(types.get(k.AttributeName)) + " (" + (k.KeyType === "HASH" ? "partition key" : "sort key") + ")").join("<br>") + "</td></tr>" +
    "<tr><td>Billing mode</td><td>" + esc(billing(t)) + "</td></tr>" +
    "<tr><td>Items</td><td>" + t.ItemCount + " (" + bytes(t.TableSizeBytes) + ")</td></tr>" +
    "<tr><td>Stream</td><td>" + (t.LatestStreamArn ? esc((t.StreamSpecification && t.StreamSpecification.StreamEnabled ? t.StreamSpecification.StreamViewType : "disabled") + " — " + t.LatestStreamArn) : "off") + "</td></tr>" +
    "<tr><td>Time to Live</td><td>" + (ttlText ? esc(ttlText.TimeToLiveStatus + (ttlText.AttributeName ? " on " + ttlText.AttributeName : "")) : "") + "</td></tr>" +
    "<tr><td>ARN</td><td>" + esc(t.TableArn) + "</td></tr></table></div></div>" +
    '<div class="card"><h2>Indexes</h2>' + (gsis.length + lsis.length
      ? '<table class="grid"><thead><tr><th>Name</th><th>Kind</th><th>Status</th><th>Key</th><th>Projection</th><th class="num">Items</th><th>Throughput</th></tr></thead><tbody>' + gsis.join("") + lsis.join("") + "</tbody></table>"
      : '<p class="muted">No secondary indexes.</p>') + "</div>";
  const chart = new LiveChart(el.querySelector("#chart"), [
    { label: "consumed RCU/s", color: "#2458c6" },
    { label: "consumed WCU/s", color: "#c8281e" },
    { label: "provisioned RCU", color: "#2458c6", dash: [6, 4] },
    { label: "provisioned WCU", color: "#c8281e", dash: [6, 4] },
  ]);
  const sampler = new MetricsSampler(name);
  const stop = every(1000, async () => {
    const s = await sampler.poll();
    if (s) chart.push(s.at / 1000, [s.read, s.write, s.provisionedRead || null, s.provisionedWrite || null]);
  });
  return () => { stop(); chart.destroy(); };
}
