// Items: browse with paging, a query builder and a filtered scan, each showing what it cost; view, edit and delete.
import { ddb, esc, errorBox, show, marshall, marshallItem, unmarshallItem, needsDynamoJson } from "./api.js";

const T = (name) => "#/tables/" + encodeURIComponent(name);

export async function itemsView(el, name) {
  const d = await ddb("DescribeTable", { TableName: name });
  const t = d.Table;
  const types = new Map(t.AttributeDefinitions.map((a) => [a.AttributeName, a.AttributeType]));
  const targets = [{ name: "", label: "table", keys: t.KeySchema }]
    .concat((t.GlobalSecondaryIndexes || []).map((i) => ({ name: i.IndexName, label: "GSI " + i.IndexName, keys: i.KeySchema })))
    .concat((t.LocalSecondaryIndexes || []).map((i) => ({ name: i.IndexName, label: "LSI " + i.IndexName, keys: i.KeySchema })));
  const tableKeys = t.KeySchema.map((k) => k.AttributeName);

  el.innerHTML = "<h1>" + esc(name) + '</h1><div class="tabs"><a href="' + T(name) + '">Overview</a>' +
    '<a class="active" href="' + T(name) + '/items">Items</a><a href="' + T(name) + '/partitions">Partitions</a></div>' +
    '<div class="card"><form id="run">' +
    '<label>Operation<select name="op"><option value="Scan">Scan</option><option value="Query">Query</option></select></label>' +
    '<label>On<select name="index">' + targets.map((x) => '<option value="' + esc(x.name) + '">' + esc(x.label) + "</option>").join("") + "</select></label>" +
    '<span class="query-only"><label><span class="pk-name">Partition key</span><input name="pk"></label>' +
    '<label>Sort key<select name="skOp"><option value="">any</option><option value="=">=</option><option value="&lt;">&lt;</option><option value="&lt;=">&lt;=</option>' +
    '<option value="&gt;">&gt;</option><option value="&gt;=">&gt;=</option><option value="between">between</option><option value="begins_with">begins with</option></select></label>' +
    '<label>Value<input name="sk1"></label><label>And<input name="sk2"></label>' +
    '<label>Order<select name="forward"><option value="true">ascending</option><option value="false">descending</option></select></label></span>' +
    '<br><label style="width:420px">Filter expression<input name="filter" placeholder="e.g. price &gt; :min AND attribute_exists(tags)"></label>' +
    '<label>Names (JSON)<input name="names" placeholder=\'{"#s": "status"}\'></label>' +
    '<label>Values (plain JSON)<input name="values" placeholder=\'{":min": 10}\'></label>' +
    '<label>Page size<input name="limit" type="number" value="25" min="1" max="1000"></label>' +
    '<label>Consistent<select name="consistent"><option value="false">eventually</option><option value="true">strongly</option></select></label>' +
    '<br><button type="submit">Run</button> <button type="button" class="secondary" id="new-item">New item</button></form></div>' +
    '<div id="outcome"></div><div class="row"><div class="card" style="flex:2"><div id="results"></div>' +
    '<div class="stats"><button type="button" class="secondary" id="prev" disabled>Previous page</button>' +
    '<button type="button" class="secondary" id="next" disabled>Next page</button></div></div>' +
    '<div class="card" id="editor" hidden></div></div>';

  const form = el.querySelector("#run");
  const outcome = el.querySelector("#outcome");
  const results = el.querySelector("#results");
  const editor = el.querySelector("#editor");
  let pages = []; // ExclusiveStartKeys of the pages before the current one
  let current = null; // the current page's start key
  let next = null;
  let items = [];

  const target = () => targets.find((x) => x.name === form.elements.index.value);
  const syncForm = () => {
    const q = form.elements.op.value === "Query";
    el.querySelector(".query-only").style.display = q ? "" : "none";
    const keys = target().keys;
    const pk = keys.find((k) => k.KeyType === "HASH").AttributeName;
    el.querySelector(".pk-name").textContent = pk + " =";
    const sk = keys.find((k) => k.KeyType === "RANGE");
    form.elements.skOp.disabled = !sk;
  };
  form.elements.op.addEventListener("change", syncForm);
  form.elements.index.addEventListener("change", syncForm);
  syncForm();

  const value = (attr, text) => {
    const type = types.get(attr) || "S";
    return type === "N" ? { N: text } : type === "B" ? { B: text } : { S: text };
  };

  function request(start) {
    const v = (n) => form.elements[n].value.trim();
    const req = { TableName: name, Limit: Number(v("limit")) || 25, ReturnConsumedCapacity: "TOTAL" };
    if (v("index")) req.IndexName = v("index");
    if (v("consistent") === "true") req.ConsistentRead = true;
    const names = v("names") ? JSON.parse(v("names")) : {};
    const values = {};
    if (v("values")) {
      for (const [k, x] of Object.entries(JSON.parse(v("values")))) values[k] = marshall(x);
    }
    if (v("op") === "Query") {
      const keys = target().keys;
      const pk = keys.find((k) => k.KeyType === "HASH").AttributeName;
      const sk = keys.find((k) => k.KeyType === "RANGE");
      names["#pk"] = pk;
      values[":pk"] = value(pk, v("pk"));
      let cond = "#pk = :pk";
      const op = sk ? v("skOp") : "";
      if (op) {
        names["#sk"] = sk.AttributeName;
        values[":sk1"] = value(sk.AttributeName, v("sk1"));
        if (op === "between") {
          values[":sk2"] = value(sk.AttributeName, v("sk2"));
          cond += " AND #sk BETWEEN :sk1 AND :sk2";
        } else if (op === "begins_with") {
          cond += " AND begins_with(#sk, :sk1)";
        } else {
          cond += " AND #sk " + op + " :sk1";
        }
      }
      req.KeyConditionExpression = cond;
      req.ScanIndexForward = v("forward") === "true";
    }
    if (v("filter")) req.FilterExpression = v("filter");
    if (Object.keys(names).length) req.ExpressionAttributeNames = names;
    if (Object.keys(values).length) req.ExpressionAttributeValues = values;
    if (start) req.ExclusiveStartKey = start;
    return req;
  }

  async function run(start) {
    let req;
    try {
      req = request(start);
    } catch (e) {
      outcome.innerHTML = errorBox(e);
      return;
    }
    try {
      const r = await ddb(form.elements.op.value, req);
      current = start || null;
      next = r.LastEvaluatedKey || null;
      items = r.Items;
      const cc = r.ConsumedCapacity ? r.ConsumedCapacity.CapacityUnits : 0;
      outcome.innerHTML = '<div class="stats" id="run-stats"><span>' + esc(form.elements.op.value) +
        '</span><span>Count <b id="count">' + r.Count + '</b></span><span>ScannedCount <b id="scanned-count">' + r.ScannedCount +
        '</b></span><span>ConsumedCapacity <b id="consumed">' + cc + "</b> units</span>" +
        (next ? '<span class="muted">more pages</span>' : "") + "</div>";
      renderItems();
      el.querySelector("#next").disabled = !next;
      el.querySelector("#prev").disabled = pages.length === 0;
    } catch (e) {
      outcome.innerHTML = errorBox(e);
    }
  }

  function renderItems() {
    if (items.length === 0) {
      results.innerHTML = '<p class="muted" id="no-items">No items on this page.</p>';
      return;
    }
    const cols = [...tableKeys];
    for (const it of items) for (const k of Object.keys(it)) if (!cols.includes(k) && cols.length < 12) cols.push(k);
    results.innerHTML = '<table class="grid" id="items"><thead><tr>' + cols.map((c) => "<th>" + esc(c) + "</th>").join("") +
      "</tr></thead><tbody>" +
      items.map((it, i) => '<tr data-row="' + i + '" style="cursor:pointer">' + cols.map((c) => "<td>" + esc(show(it[c]).slice(0, 80)) + "</td>").join("") + "</tr>").join("") +
      "</tbody></table>";
  }

  results.addEventListener("click", (e) => {
    const tr = e.target.closest("tr[data-row]");
    if (!tr) return;
    for (const r of results.querySelectorAll("tr.selected")) r.classList.remove("selected");
    tr.classList.add("selected");
    edit(items[Number(tr.dataset.row)], false);
  });
  el.querySelector("#next").addEventListener("click", () => { pages.push(current); run(next); });
  el.querySelector("#prev").addEventListener("click", () => run(pages.pop()));
  form.addEventListener("submit", (e) => { e.preventDefault(); pages = []; run(null); });
  el.querySelector("#new-item").addEventListener("click", () => {
    const template = {};
    for (const k of tableKeys) template[k] = types.get(k) === "N" ? { N: "0" } : { S: "" };
    edit(template, true);
  });

  function edit(item, isNew) {
    let format = needsDynamoJson(item) ? "dynamodb" : "plain";
    editor.hidden = false;
    const text = () => (format === "plain" ? JSON.stringify(unmarshallItem(item), null, 2) : JSON.stringify(item, null, 2));
    editor.innerHTML = "<h2>" + (isNew ? "New item" : "Item") + "</h2>" +
      '<label>Format<select id="format"><option value="plain">plain JSON</option><option value="dynamodb">DynamoDB JSON</option></select></label>' +
      (needsDynamoJson(item) ? '<p class="muted">This item has sets, binary or long numbers: plain JSON would change them.</p>' : "") +
      '<textarea id="item-json" rows="18"></textarea><div class="stats"><button type="button" id="save">Save (PutItem)</button>' +
      (isNew ? "" : '<button type="button" class="danger" id="delete">Delete</button>') + '</div><div id="edit-result"></div>';
    const area = editor.querySelector("#item-json");
    const fmt = editor.querySelector("#format");
    fmt.value = format;
    area.value = text();
    const parse = () => {
      const j = JSON.parse(area.value);
      return format === "plain" ? marshallItem(j) : j;
    };
    fmt.addEventListener("change", () => {
      try {
        item = parse();
        format = fmt.value;
        area.value = text();
      } catch (e) {
        fmt.value = format;
        editor.querySelector("#edit-result").innerHTML = errorBox(e);
      }
    });
    const result = editor.querySelector("#edit-result");
    editor.querySelector("#save").addEventListener("click", async () => {
      try {
        const it = parse();
        const r = await ddb("PutItem", { TableName: name, Item: it, ReturnConsumedCapacity: "TOTAL" });
        item = it;
        result.innerHTML = '<div class="ok" id="saved">Saved; consumed ' + (r.ConsumedCapacity ? r.ConsumedCapacity.CapacityUnits : 0) + " write units.</div>";
      } catch (e) {
        result.innerHTML = errorBox(e);
      }
    });
    const del = editor.querySelector("#delete");
    if (del) {
      del.addEventListener("click", async () => {
        const key = {};
        for (const k of tableKeys) key[k] = item[k];
        try {
          await ddb("DeleteItem", { TableName: name, Key: key });
          result.innerHTML = '<div class="ok" id="deleted">Deleted.</div>';
          await run(current);
        } catch (e) {
          result.innerHTML = errorBox(e);
        }
      });
    }
  }

  await run(null);
  return null;
}
