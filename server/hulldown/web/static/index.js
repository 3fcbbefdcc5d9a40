// The list of public matches (newest first, the first page of GET /matches), refreshed every few seconds.
const REFRESH_MS = 3000;

function cell(text, attrs = {}) {
  const td = document.createElement("td");
  Object.assign(td, attrs);
  td.textContent = String(text);
  return td;
}

async function refresh() {
  try {
    const response = await fetch("/matches?limit=100");
    const { matches } = await response.json();
    const rows = matches.map((m) => {
      const tr = document.createElement("tr");
      tr.dataset.match = m.match_id;
      const link = document.createElement("a");
      link.href = `/matches/${encodeURIComponent(m.match_id)}/view`;
      link.textContent = m.match_id;
      const first = document.createElement("td");
      first.append(link);
      const state = m.ended ? (m.winner ? `ended: side ${m.winner.toUpperCase()} won` : "ended: draw") : "live";
      tr.append(
        first,
        cell(m.edition),
        cell(m.turn),
        cell(m.active.toUpperCase(), { className: `side-${m.active}` }),
        cell(m.phase),
        cell(m.seq),
        cell(state),
        cell(new Date(m.created_at * 1000).toLocaleString()),
      );
      return tr;
    });
    document.querySelector("#matches tbody").replaceChildren(...rows);
    document.getElementById("empty").hidden = rows.length > 0;
    document.body.dataset.loaded = "true";
  } catch (error) {
    document.body.dataset.error = String(error);
  }
}

refresh();
setInterval(refresh, REFRESH_MS);
