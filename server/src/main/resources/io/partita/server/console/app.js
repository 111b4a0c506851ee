// The console's router: the URL's fragment names the view (#/tables, #/tables/T/items, ...), so every view has a URL
// to share and reloading shows the same view. Each view renders into <main> and returns a function that stops its
// polling when the user leaves it.
import { loadConfig, currentRegion, errorBox, esc } from "./api.js";
import { tablesView, tableView } from "./tables.js";
import { itemsView } from "./items.js";
import { partitionsView } from "./partitions.js";
import { lagView } from "./lag.js";
import { simulatorView } from "./simulator.js";

const routes = [
  [/^#?\/?$/, () => tablesView],
  [/^#\/tables$/, () => tablesView],
  [/^#\/tables\/([^/]+)$/, () => tableView],
  [/^#\/tables\/([^/]+)\/items$/, () => itemsView],
  [/^#\/tables\/([^/]+)\/partitions$/, () => partitionsView],
  [/^#\/lag$/, () => lagView],
  [/^#\/simulator$/, () => simulatorView],
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

window.addEventListener("hashchange", show);
loadConfig()
  .then(() => { document.getElementById("region").textContent = currentRegion(); })
  .finally(show);
