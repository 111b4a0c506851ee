// The console talks to the server as any client does: the DynamoDB API (POST /) and the admin views (/admin/...).

import { sign } from "./sigv4.js";

let region = "us-east-1";
let strict = false;

export async function loadConfig() {
  const r = await fetch("/console/config.json");
  const c = await r.json();
  region = c.region || region;
  strict = !!c.strict;
  return c;
}

/** True when the server verifies signatures (--credentials): the console then signs with the user's keys. */
export function isStrict() {
  return strict;
}

/** The keys typed in for this tab, or null. */
export function keys() {
  const k = sessionStorage.getItem("partita-keys");
  return k ? JSON.parse(k) : null;
}

export function setKeys(accessKey, secret) {
  sessionStorage.setItem("partita-keys", JSON.stringify({ accessKey, secret }));
}

export function clearKeys() {
  sessionStorage.removeItem("partita-keys");
}

/** In strict mode, the headers that sign a request with the user's keys; nothing in open mode. */
async function signed(method, url, headers, body) {
  const k = keys();
  if (!strict || !k) return {};
  return sign(method, url, headers, body, { ...k, region });
}

export function currentRegion() {
  return region;
}

/** An error as DynamoDB answered it: its short type (after '#') and its message. */
export class DynamoError extends Error {
  constructor(type, message, status) {
    super(message);
    this.type = type;
    this.status = status;
  }
}

function amzDate() {
  return new Date().toISOString().replace(/[-:]/g, "").replace(/\.\d+/, "");
}

/** Calls a DynamoDB operation; resolves to its answer, or rejects with a DynamoError. */
export async function ddb(operation, body) {
  const date = amzDate();
  const payload = JSON.stringify(body || {});
  const headers = {
    "Content-Type": "application/x-amz-json-1.0",
    "X-Amz-Target": "DynamoDB_20120810." + operation,
  };
  // Open mode checks the Authorization header's shape, not its signature: the console signs as "console". In strict
  // mode it signs with the user's keys.
  const auth = strict
    ? await signed("POST", "/", { "content-type": headers["Content-Type"], "x-amz-target": headers["X-Amz-Target"] }, payload)
    : {
      "X-Amz-Date": date,
      Authorization: "AWS4-HMAC-SHA256 Credential=console/" + date.slice(0, 8) + "/" + region +
        "/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=0",
    };
  const r = await fetch("/", { method: "POST", headers: { ...headers, ...auth }, body: payload });
  const text = await r.text();
  const json = text ? JSON.parse(text) : {};
  if (!r.ok) {
    const type = String(json.__type || "Error").split("#").pop();
    throw new DynamoError(type, json.message || json.Message || "", r.status);
  }
  return json;
}

/** GET (or another method on) an admin path; resolves to its JSON. */
export async function admin(path, method = "GET") {
  const r = await fetch(path, { method, headers: await signed(method, path, {}, "") });
  const json = await r.json();
  if (!r.ok) {
    throw new DynamoError("AdminError", json.message || r.statusText, r.status);
  }
  return json;
}

/** Every table name, following ListTables' pages. */
export async function tableNames() {
  const names = [];
  let start;
  do {
    const page = await ddb("ListTables", start ? { ExclusiveStartTableName: start } : {});
    names.push(...page.TableNames);
    start = page.LastEvaluatedTableName;
  } while (start);
  return names;
}

// Plain JSON <-> DynamoDB JSON. Plain JSON has no sets and no binary: such values stay as DynamoDB writes them.

export function marshall(value) {
  if (value === null) return { NULL: true };
  if (typeof value === "string") return { S: value };
  if (typeof value === "number") return { N: String(value) };
  if (typeof value === "boolean") return { BOOL: value };
  if (Array.isArray(value)) return { L: value.map(marshall) };
  if (typeof value === "object") {
    const m = {};
    for (const [k, v] of Object.entries(value)) m[k] = marshall(v);
    return { M: m };
  }
  throw new Error("cannot store " + typeof value);
}

export function marshallItem(plain) {
  if (plain === null || typeof plain !== "object" || Array.isArray(plain)) {
    throw new Error("an item is a JSON object");
  }
  return marshall(plain).M;
}

export function unmarshall(av) {
  const [type, v] = Object.entries(av)[0];
  switch (type) {
    case "S":
    case "B":
      return v;
    case "N":
      return Number(v);
    case "BOOL":
      return v;
    case "NULL":
      return null;
    case "L":
      return v.map(unmarshall);
    case "M":
      return unmarshallItem(v);
    case "SS":
    case "BS":
      return [...v];
    case "NS":
      return v.map(Number);
    default:
      return v;
  }
}

export function unmarshallItem(item) {
  const out = {};
  for (const [k, v] of Object.entries(item)) out[k] = unmarshall(v);
  return out;
}

/** True when plain JSON would lose something of the item: a set or a binary value, at any depth. */
export function needsDynamoJson(item) {
  const lossy = (av) => {
    const [type, v] = Object.entries(av)[0];
    if (type === "SS" || type === "NS" || type === "BS" || type === "B") return true;
    if (type === "N" && String(Number(v)) !== v) return true; // 38 digits do not fit a JavaScript number
    if (type === "L") return v.some(lossy);
    if (type === "M") return Object.values(v).some(lossy);
    return false;
  };
  return Object.values(item).some(lossy);
}

/** A short display of an attribute value for a table cell. */
export function show(av) {
  if (av === undefined) return "";
  const [type, v] = Object.entries(av)[0];
  if (type === "S" || type === "N" || type === "B") return String(v);
  if (type === "BOOL") return String(v);
  if (type === "NULL") return "null";
  return JSON.stringify(unmarshall(av));
}

export function bytes(n) {
  if (n < 1024) return n + " B";
  if (n < 1024 * 1024) return (n / 1024).toFixed(1) + " KB";
  if (n < 1024 * 1024 * 1024) return (n / 1024 / 1024).toFixed(1) + " MB";
  return (n / 1024 / 1024 / 1024).toFixed(2) + " GB";
}

/** Escapes text for HTML. */
export function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

/** A DynamoError (or any error) as the console shows it: DynamoDB's type and message. */
export function errorBox(e) {
  const type = e instanceof DynamoError ? e.type : e.name || "Error";
  return '<div class="error" role="alert"><b class="error-type">' + esc(type) + "</b>: " +
    '<span class="error-message">' + esc(e.message) + "</span></div>";
}

/** Runs fn now and every `millis` until the returned function is called; a failure is logged and the next tick still runs. */
export function every(millis, fn) {
  let stopped = false;
  let timer = null;
  const tick = async () => {
    if (stopped) return;
    try { await fn(); } catch (e) { console.error(e); }
    if (!stopped) timer = setTimeout(tick, millis);
  };
  tick();
  return () => { stopped = true; clearTimeout(timer); };
}
