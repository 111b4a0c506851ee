// Cluster: the Raft groups as each node sees them (open mode has one; strict mode one per account; with --cluster-table-groups one more per table). The node this page came from answers GET /cluster itself; every other
// member is asked at its own API address (its /cluster answers any origin), so a node that is down shows as such. With --cluster-replicas a group is on some
// members only: each node lists the groups placed on it, and names the leaders of the others ("elsewhere").
import { esc, every } from "./api.js";

/** A node's view, or null when it does not answer (down, or not reachable from this browser). */
async function view(url) {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(900) });
    return r.ok ? await r.json() : null;
  } catch (e) {
    return null;
  }
}

/** The view of the node that served this page, or null on a single node (whose /cluster lists no members). */
export async function clusterView() {
  const own = await view("/cluster");
  return own && Array.isArray(own.members) && own.members.length ? own : null;
}

const count = (v) => (v === undefined || v === null ? "" : Number(v).toLocaleString("en-US"));

export async function clusterPage(el) {
  el.innerHTML = '<h1>Cluster</h1><div id="cluster-body"><p class="muted">Loading…</p></div>';
  const body = el.querySelector("#cluster-body");
  return every(1000, async () => {
    const own = await clusterView();
    if (!own) {
      body.innerHTML = '<div class="card" id="single-node"><p>This server runs as a single node: it is not a member of ' +
        "a cluster.</p></div>";
      return;
    }
    const views = await Promise.all(own.members.map((m) =>
      m.id === own.node ? own : view(location.protocol + "//" + m.api + "/cluster")));
    const leaderView = views.find((v) => v && v.role === "LEADER" && v.node === v.leader) || null;
    const placed = Array.isArray(own.elsewhere);
    // An account's group by its account; a table's (--cluster-table-groups) by its account and table.
    const label = (g) => (g.table ? g.account + "/" + g.table : g.account);
    // With the groups on some members, each node's figures are its own groups': the members table lists how many it
    // holds and which it leads, and the groups table the rest.
    const placedRows = own.members.map((m, i) => {
      const v = views[i];
      const id = esc(m.id) + (m.id === own.node ? ' <span class="muted">(this page)</span>' : "");
      if (!v) {
        return '<tr data-node="' + esc(m.id) + '"><td>' + id + "</td><td>" + esc(m.api) + "</td><td>" + esc(m.raft) +
          '</td><td><span class="badge down">not answering</span></td><td></td></tr>';
      }
      const on = Array.isArray(v.groups) ? v.groups : [];
      const leads = on.filter((g) => g.role === "LEADER" && g.serving).map((g) => esc(label(g)));
      return '<tr data-node="' + esc(m.id) + '"><td>' + id + "</td><td>" + esc(m.api) + "</td><td>" + esc(m.raft) +
        '</td><td class="num">' + count(on.length) + "</td><td>" + leads.join(", ") + "</td></tr>";
    });
    const rows = own.members.map((m, i) => {
      const v = views[i];
      if (!v) {
        return '<tr data-node="' + esc(m.id) + '"><td>' + esc(m.id) + "</td><td>" + esc(m.api) + "</td><td>" + esc(m.raft) +
          '</td><td><span class="badge down">not answering</span></td><td></td><td class="num"></td><td class="num"></td>' +
          '<td class="num"></td><td class="num"></td></tr>';
      }
      // On the leader its own log is the reference; a follower's lag is what the leader has not yet seen it hold.
      const matched = leaderView && leaderView.followerMatchIndexes ? leaderView.followerMatchIndexes[m.id] : undefined;
      const lag = !leaderView ? "" : m.id === leaderView.node ? 0 : matched === undefined ? "" : Math.max(0, leaderView.commitIndex - matched);
      return '<tr data-node="' + esc(m.id) + '"><td>' + esc(m.id) + (m.id === own.node ? ' <span class="muted">(this page)</span>' : "") +
        "</td><td>" + esc(m.api) + "</td><td>" + esc(m.raft) + '</td><td><span class="badge ' + esc(v.role) + '">' + esc(v.role) +
        "</span></td><td>" + (v.serving ? "serves requests" : "") + '</td><td class="num">' + count(v.term) + '</td><td class="num">' +
        count(v.commitIndex) + '</td><td class="num">' + count(v.appliedIndex) + '</td><td class="num lag">' + count(lag) + "</td></tr>";
    });
    // This node's groups; with the groups placed, every group any node answered for, in this node's order (its own,
    // then those placed elsewhere), then the others'.
    const groups = [];
    const seen = new Set();
    const add = (g) => { if (g && !seen.has(g.group)) { seen.add(g.group); groups.push(g); } };
    (Array.isArray(own.groups) ? own.groups : []).forEach(add);
    if (placed) {
      own.elsewhere.forEach(add);
      views.forEach((v) => (v && Array.isArray(v.groups) ? v.groups : []).forEach(add));
    }
    // Each group's leader as the leader itself answers (its term, commit index and followers' lag), else as this node
    // knows it.
    const groupRows = groups.map((g) => {
      // Matched by the group's id: nodes whose credentials differ (mid-rollout) list their groups differently.
      const of = (v) => (v && Array.isArray(v.groups) ? v.groups.find((x) => x.group === g.group) : undefined);
      const lv = views.find((v) => { const x = of(v); return x && x.role === "LEADER" && x.leader === v.node; });
      const lg = lv ? of(lv) : null;
      const behind = lg && lg.followerMatchIndexes
        ? Object.entries(lg.followerMatchIndexes).map(([id, match]) => esc(id) + " " + count(Math.max(0, lg.commitIndex - match))).join(", ")
        : "";
      const on = Array.isArray(g.placed) ? g.placed : Array.isArray(g.members) ? g.members.map((m) => m.id) : [];
      return '<tr data-group="' + esc(label(g)) + '"><td>' + esc(label(g)) + '</td><td class="muted">' + esc(g.group.slice(0, 8)) +
        "</td><td>" + esc(lv ? lv.node : g.leader || "none") + '</td><td class="num">' + count(lg ? lg.term : g.term) +
        '</td><td class="num">' + count(lg ? lg.commitIndex : g.commitIndex) + "</td><td>" + behind + "</td>" +
        (placed ? "<td>" + esc(on.join(", ")) + "</td>" : "") + "</tr>";
    });
    const tableGroups = groups.filter((g) => g.table).length;
    const groupTable = !groups.length ? "" :
      '<h2>Raft groups</h2><table class="grid" id="cluster-groups"><thead><tr><th>Account (/table)</th><th>Group</th><th>Leader</th>' +
      '<th class="num">Term</th><th class="num">Commit index</th><th>Followers behind (entries)</th>' +
      (placed ? "<th>Members</th>" : "") + "</tr></thead><tbody>" +
      groupRows.join("") + "</tbody></table>";
    const membersTable = placed
      ? '<table class="grid" id="cluster-members"><thead><tr><th>Node</th><th>API</th><th>Raft</th>' +
        '<th class="num">Groups on it</th><th>Leads</th></tr></thead><tbody>' + placedRows.join("") + "</tbody></table>"
      : '<table class="grid" id="cluster-members"><thead><tr><th>Node</th><th>API</th><th>Raft</th><th>Role</th><th></th>' +
        '<th class="num">Term</th><th class="num">Commit index</th><th class="num">Applied index</th>' +
        '<th class="num">Behind the leader (entries)</th></tr></thead><tbody>' + rows.join("") + "</tbody></table>";
    body.innerHTML = '<div class="card"><p>Cluster <b>' + esc(own.cluster) + "</b>, " + own.members.length +
      (placed
        ? " members, " + (tableGroups > 0
          ? "a Raft group per account (" + (groups.length - tableGroups) + ") and per table (" + tableGroups +
            "), each placed on some of them."
          : groups.length > 1
          ? "a Raft group per account (" + groups.length + "), each placed on some of them."
          : "one Raft group, placed on some of them.") +
          // The members' group's leader makes the changes of the members and places the groups new to the cluster.
          " The members' group is led by <b id=\"cluster-members-leader\">" +
          esc((own.membersGroup && own.membersGroup.leader) || "none (an election is under way)") + "</b>.</p>"
        : (groups.length > 1
          ? " members, a Raft group per account (" + groups.length + "); the members table shows the first account's."
          : " members, one Raft group for the whole store.") + " Leader: <b id=\"cluster-leader\">" +
          esc(leaderView ? leaderView.node : own.leader || "none (an election is under way)") + "</b>.</p>") +
      membersTable + groupTable +
      '<p class="muted">Each node answers <code>GET /cluster</code> with its view and <code>GET /cluster/metrics</code> ' +
      "for Prometheus; the rest of this console is the leader's.</p></div>";
  });
}
