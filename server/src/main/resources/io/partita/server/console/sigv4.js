// AWS Signature Version 4 in the browser (Web Crypto), for a server in strict mode: the console signs its own
// requests with the keys the user types in, kept for this tab only (sessionStorage).
const enc = new TextEncoder();

const hex = (buf) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");

async function sha256Hex(text) {
  return hex(await crypto.subtle.digest("SHA-256", enc.encode(text)));
}

async function hmac(key, text) {
  const k = await crypto.subtle.importKey("raw", typeof key === "string" ? enc.encode(key) : key,
    { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return crypto.subtle.sign("HMAC", k, enc.encode(text));
}

/** RFC 3986 percent-encoding, as SigV4 wants it. */
function encode(s) {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
}

function canonicalQuery(query) {
  if (!query) return "";
  return query.split("&").filter((p) => p).map((p) => {
    const eq = p.indexOf("=");
    const name = decodeURIComponent(eq < 0 ? p : p.slice(0, eq));
    const value = eq < 0 ? "" : decodeURIComponent(p.slice(eq + 1).replace(/\+/g, "%2B"));
    return [encode(name), encode(value)];
  }).sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1))
    .map(([n, v]) => n + "=" + v).join("&");
}

/** True when this page can sign: Web Crypto exists only in secure contexts (https, or localhost). */
export function canSign() {
  return !!(window.crypto && crypto.subtle);
}

/**
 * The headers that sign a request: `X-Amz-Date` and `Authorization`. `headers` are the request's own headers to sign
 * (lower-case names); the host is the page's.
 */
export async function sign(method, url, headers, body, { accessKey, secret, region }) {
  const u = new URL(url, location.href);
  const date = new Date().toISOString().replace(/[-:]/g, "").replace(/\.\d+/, "");
  const day = date.slice(0, 8);
  const all = { ...headers, host: u.host, "x-amz-date": date };
  const names = Object.keys(all).map((n) => n.toLowerCase()).sort();
  const lower = Object.fromEntries(Object.entries(all).map(([k, v]) => [k.toLowerCase(), String(v).trim().replace(/\s+/g, " ")]));
  const path = u.pathname.split("/").map((s) => encode(decodeURIComponent(s))).join("/") || "/";
  const canonical = [method, path, canonicalQuery(u.search.slice(1)),
    names.map((n) => n + ":" + lower[n] + "\n").join(""), names.join(";"), await sha256Hex(body || "")].join("\n");
  const scope = day + "/" + region + "/dynamodb/aws4_request";
  const toSign = ["AWS4-HMAC-SHA256", date, scope, await sha256Hex(canonical)].join("\n");
  let key = await hmac("AWS4" + secret, day);
  key = await hmac(key, region);
  key = await hmac(key, "dynamodb");
  key = await hmac(key, "aws4_request");
  const signature = hex(await hmac(key, toSign));
  return {
    "X-Amz-Date": date,
    Authorization: "AWS4-HMAC-SHA256 Credential=" + accessKey + "/" + scope + ", SignedHeaders=" + names.join(";") +
      ", Signature=" + signature,
  };
}
