// The console's router: the URL's fragment names the view (#/tables, #/tables/T/items, ...), so every view has a URL
// to share and reloading shows the same view. Each view renders into <main> and returns a function that stops its
// polling when the user leaves it.
import { loadConfig, currentRegion, errorBox, esc, isStrict, keys, setKeys, clearKeys } from "./api.js";
import { canSign } from "./sigv4.js";
import { tablesView, tableView } from "./tables.js";
import { itemsView } from "./items.js";
import { partitionsView } from "./partitions.js";
import { lagView } from "./lag.js";
import { simulatorView } from "./simulator.js";
import { clusterPage, clusterView } from "./cluster.js";

const routes = [
  [/^#?\/?$/, () => tablesView],
  [/^#\/tables$/, () => tablesView],
  [/^#\/tables\/([^/]+)$/, () => tableView],
  [/^#\/tables\/([^/]+)\/items$/, () => itemsView],
  [/^#\/tables\/([^/]+)\/partitions$/, () => partitionsView],
  [/^#\/lag$/, () => lagView],
  [/^#\/simulator$/, () => simulatorView],
  [/^#\/cluster$/, () => clusterPage],
];

let leave = null;
let generation = 0;

async function show() {
  if (leave) {
    try { leave(); } catch (e) { console.error(e); }
    leave = null;
  }
  const hash = location.hash || "#/tables";
  const view = document.getElementById("view");
  if (isStrict() && !keys()) {
    signIn(view);
    return;
  }
  const mine = ++generation;
  for (const a of document.querySelectorAll("header nav a")) {
    a.classList.toggle("active", hash.startsWith("#/" + a.dataset.nav));
  }
  for (const [pattern, pick] of routes) {
    const m = hash.split("?")[0].match(pattern);
    if (m) {
      view.innerHTML = "";
      try {
        const cleanup = await pick()(view, ...m.slice(1).map(decodeURIComponent));
        if (mine === generation) {
          leave = cleanup || null;
        } else if (cleanup) {
          cleanup();
        }
      } catch (e) {
        view.innerHTML = errorBox(e);
      }
      return;
    }
  }
  view.innerHTML = "<h1>Not found</h1><p>No view at " + esc(hash) + ". <a href=\"#/tables\">Tables</a></p>";
}

/**
 * Strict mode: the server verifies every request's signature, so the console asks for an access key and its secret,
 * keeps them for this tab only, and signs with them.
 */
function signIn(view) {
  view.innerHTML = '<h1>Sign in</h1><div class="card"><p>This server verifies signatures (strict mode). Enter an ' +
    "access key and its secret from its credentials file; they stay in this browser tab and sign each request.</p>" +
    (canSign() ? "" : '<div class="error">Signing needs Web Crypto, which browsers give only to https pages and ' +
      "localhost: open the console over https or on localhost.</div>") +
    '<form id="sign-in"><label>Access key<input name="accessKey" autocomplete="username" required></label>' +
    '<label>Secret key<input name="secret" type="password" autocomplete="current-password" required></label>' +
    '<button type="submit">Sign in</button></form></div>';
  view.querySelector("#sign-in").addEventListener("submit", (e) => {
    e.preventDefault();
    setKeys(e.target.elements.accessKey.value.trim(), e.target.elements.secret.value);
    show();
  });
}

window.addEventListener("hashchange", show);
loadConfig()
  .then(() => {
    document.getElementById("region").textContent = currentRegion() + (isStrict() ? " · strict" : "");
    if (isStrict()) {
      const out = document.createElement("a");
      out.href = "#/tables";
      out.id = "sign-out";
      out.textContent = "Sign out";
      out.addEventListener("click", () => { clearKeys(); show(); });
      document.querySelector("header").appendChild(out);
    }
    // A cluster node answers /cluster itself; a single node does not, and shows no Cluster link.
    clusterView().then((v) => { document.getElementById("nav-cluster").hidden = !v; });
  })
  .finally(show);
