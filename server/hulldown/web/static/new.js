// The new-match page: an example or two uploaded rosters, a mission, the options, then POST /matches;
// shows the two side links and the spectator link (docs/match-definition.md, "In the browser").
const $ = (id) => document.getElementById(id);

function showError(text) {
  $("error").hidden = false;
  $("error").textContent = text;
}

function describe(body) {
  const error = body && body.error ? body.error : body;
  const lines = [error.message || JSON.stringify(error)];
  for (const p of error.problems || []) {
    let line = `${p.path}: ${p.message}`;
    if (p.did_you_mean) line += ` (did you mean ${p.did_you_mean}?)`;
    lines.push(line);
  }
  return lines.join("\n");
}

async function loadExamples() {
  const response = await fetch("/examples");
  const { examples } = await response.json();
  const edition = $("edition").value;
  const select = $("example");
  select.replaceChildren(
    ...examples
      .filter((e) => e.edition === edition)
      .map((e) => Object.assign(document.createElement("option"), { value: e.name, textContent: e.name })),
  );
}

// The edition's standard missions, one option per mission and deployment map (GET /missions).
const NO_MISSION = "none: no set-up, the armies stand where they are (an example keeps its own mission)";

async function loadMissions() {
  const edition = $("edition").value;
  const none = () => Object.assign(document.createElement("option"), { value: "", textContent: NO_MISSION });
  $("mission").replaceChildren(none());
  const response = await fetch(`/missions?edition=${encodeURIComponent(edition)}`);
  if (!response.ok) return;
  const { missions } = await response.json();
  if ($("edition").value !== edition) return; // another edition was chosen meanwhile
  $("mission").replaceChildren(
    none(),
    ...missions.map((m) =>
      Object.assign(document.createElement("option"), { value: `${m.id}/${m.deployment.id}`, textContent: `${m.name} (${m.deployment.name})` }),
    ),
  );
}

function chosenMission() {
  const value = $("mission").value;
  if (!value) return null;
  const [id, deployment] = value.split("/");
  return { id, deployment };
}

async function importRoster(file, side, edition) {
  const response = await fetch(`/rosters?edition=${encodeURIComponent(edition)}&side=${side}`, {
    method: "POST",
    headers: { "content-type": "application/octet-stream" },
    body: await file.arrayBuffer(),
  });
  const body = await response.json();
  if (!response.ok) throw new Error(`side ${side.toUpperCase()} roster: ${describe(body)}`);
  return body;
}

function showReport(imports) {
  const list = $("report");
  list.replaceChildren();
  for (const [side, imported] of imports) {
    for (const r of imported.report) {
      const li = document.createElement("li");
      li.className = `level-${r.level}`;
      li.textContent = `${side.toUpperCase()} ${r.level}: ${r.name} (${r.path}): ${r.message}`;
      list.append(li);
    }
  }
  $("report-section").hidden = list.children.length === 0;
}

async function definition(edition) {
  const source = document.querySelector("input[name=source]:checked").value;
  if (source === "example") {
    const name = $("example").value;
    if (!name) throw new Error(`no example for ${edition}`);
    const response = await fetch(`/examples/${encodeURIComponent(name)}`);
    return response.json();
  }
  const [a, b] = [$("roster-a").files[0], $("roster-b").files[0]];
  if (!a || !b) throw new Error("choose a roster file for each side");
  const imports = [["a", await importRoster(a, "a", edition)], ["b", await importRoster(b, "b", edition)]];
  showReport(imports);
  const taken = new Set();
  const units = [];
  for (const [side, imported] of imports) {
    for (const unit of imported.units) {
      // both rosters may name a unit alike: side B's clashing ids get a prefix
      if (taken.has(unit.id) || unit.models.some((m) => taken.has(m.id))) {
        const rename = (id) => `${side}-${id}`;
        unit.id = rename(unit.id);
        for (const m of unit.models) m.id = rename(m.id);
        for (const w of unit.weapons || []) w.model = rename(w.model);
      }
      taken.add(unit.id);
      for (const m of unit.models) taken.add(m.id);
      units.push(unit);
    }
  }
  let terrain = [];
  const examples = (await (await fetch("/examples")).json()).examples.filter((e) => e.edition === edition);
  if (examples.length) terrain = (await (await fetch(`/examples/${encodeURIComponent(examples[0].name)}`)).json()).scenario.terrain;
  return { format: 1, edition, scenario: { units, terrain } };
}

async function create(event) {
  event.preventDefault();
  $("error").hidden = true;
  $("result").hidden = true;
  const edition = $("edition").value;
  try {
    const doc = await definition(edition);
    doc.edition = edition;
    const mission = chosenMission();
    if (mission) doc.mission = mission;
    doc.options = {
      ...(doc.options || {}),
      spectator_delay_events: Number($("delay-events").value) || 0,
      spectator_delay_seconds: Number($("delay-seconds").value) || 0,
      private_spectators: $("private").checked,
      wrecks_remain: $("wrecks").checked,
    };
    const response = await fetch("/matches", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(doc),
    });
    const body = await response.json();
    if (!response.ok) throw new Error(describe(body));
    const view = `${location.origin}/matches/${encodeURIComponent(body.match_id)}/view`;
    // Each side's link opens the player's table with the side's token in the fragment.
    const links = {
      a: body.play_urls.a,
      b: body.play_urls.b,
      spectator: body.spectator_token ? `${view}#spectator_token=${encodeURIComponent(body.spectator_token)}` : view,
    };
    for (const [key, url] of Object.entries(links)) {
      const a = $(`link-${key}`);
      a.href = url;
      a.textContent = url;
    }
    $("match-id").textContent = body.match_id;
    $("result").hidden = false;
  } catch (error) {
    showError(String(error.message || error));
  }
}

$("edition").addEventListener("change", () => (loadExamples(), loadMissions()));
$("new-match").addEventListener("submit", create);
loadExamples();
loadMissions();
