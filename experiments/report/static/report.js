// The page script of `race report --html`: figures, head to head, tables, grid view.
// Data comes from the blocks #race-data and #race-figures (JSON, gzip, base64), unpacked
// here; nothing is fetched.
"use strict";

let DATA, FIGURES, LIMIT, COLUMN;

async function unpack(id) {
  const text = document.getElementById(id).textContent.trim();
  const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}

// plotly reads names, hover texts and titles as markup: data goes in as text
function markup(text) {
  return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
const PLOT_CONFIG = { displaylogo: false, responsive: true };
const FIGURE_TITLES = {
  runtime: "Time vs n", solved: "Solved vs n", cactus: "Cactus plot", work: "Work counters",
  phases: "SAT phase split", landscape: "Hardness landscape",
};

// ------------------------------------------------------------------ formatting

function isCensored(t) { return t === null || t === "inf"; }

function fmtSeconds(t) {
  if (t === null || t === undefined) return "n/a";
  if (t === "inf") return "> " + fmtSeconds(LIMIT);
  if (t === 0) return "0 s";
  const units = [[1, "s"], [1e-3, "ms"], [1e-6, "µs"]];
  for (const [scale, unit] of units) {
    if (t >= scale || unit === "µs") return Number((t / scale).toPrecision(3)) + " " + unit;
  }
  return t + " s";
}

function fmtCount(v) { return v === null || v === undefined ? "" : Math.round(v).toLocaleString("en"); }

function fmtRatio(v) {
  if (v === null || v === undefined) return "n/a";
  if (v === "inf") return "inf";
  return String(Number(v.toPrecision(3)));
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v; else if (k === "text") node.textContent = v; else node.setAttribute(k, v);
  }
  for (const child of children) node.append(child);
  return node;
}

// ------------------------------------------------------------------ header, metadata

function renderHeader() {
  document.getElementById("title").textContent = "sudoku-race: campaign " + DATA.name;
  const list = document.getElementById("warnings");
  for (const w of DATA.warnings) list.append(el("li", { text: "warning: " + w }));
  const meta = document.getElementById("meta-list");
  for (const [k, v] of DATA.meta) { meta.append(el("dt", { text: k }), el("dd", { text: v })); }
}

// ------------------------------------------------------------------ figures

function renderFigures() {
  const list = document.getElementById("figure-list");
  for (const [name, fig] of Object.entries(FIGURES)) {
    const div = el("div", { id: "fig-" + name, class: "figure", "data-figure": name });
    list.append(el("h3", { text: FIGURE_TITLES[name] || name }), div);
    Plotly.newPlot(div, fig.data, fig.layout, PLOT_CONFIG);
    div.on("plotly_click", (event) => {
      const point = event.points && event.points[0];
      if (point && typeof point.customdata === "string") showGrid(point.customdata);
    });
  }
}

// ------------------------------------------------------------------ head to head

function fillSelect(select, values, chosen) {
  select.replaceChildren(...values.map((v) => el("option", { value: v, text: v })));
  if (chosen !== undefined) select.value = chosen;
}

// DATA.head_to_head: per instance where each entrant's value is drawn (its time, or its place
// in the strip beyond the limit; null: never raced), and per family choice and ordered pair
// the counts of the note, all computed once in Python: here two columns are picked and drawn
function renderScatter() {
  const H = DATA.head_to_head;
  const a = document.getElementById("pair-a").value;
  const b = document.getElementById("pair-b").value;
  const family = document.getElementById("pair-family").value;
  if (!(a in H.at) || !(b in H.at)) return;                    // no entrant to pick
  const xs = H.at[a], ys = H.at[b], offX = H.censored[a], offY = H.censored[b];
  const groups = { measured: { x: [], y: [], text: [], custom: [], n: [] },
                   censored: { x: [], y: [], text: [], custom: [], n: [] } };
  const said = (entrant, value, off, i) =>
    `${markup(entrant)}: ${markup(H.status[entrant][i])}, ${off ? "> " + fmtSeconds(LIMIT) : fmtSeconds(value)}`;
  for (let i = 0; i < H.instance.length; i++) {
    if ((family !== H.all && H.family[i] !== family) || xs[i] === null || ys[i] === null) continue;
    const g = offX[i] || offY[i] ? groups.censored : groups.measured;
    g.x.push(xs[i]);
    g.y.push(ys[i]);
    g.n.push(H.n[i]);
    g.custom.push(H.instance[i]);
    g.text.push(`instance ${markup(H.instance[i])}<br>${markup(H.family[i])}, n = ${H.n[i]}` +
                `<br>${said(a, xs[i], offX[i], i)}<br>${said(b, ys[i], offY[i], i)}`);
  }
  const row = H.pairs[family][a][b];
  const c = Object.fromEntries(H.pair_columns.map((name, k) => [name, row[k]]));
  const low = c.low, top = H.top;
  const traces = [
    { x: [low, LIMIT], y: [low, LIMIT], mode: "lines", name: "equal times",
      line: { color: "#999", dash: "dot" }, hoverinfo: "skip" },
    { x: groups.measured.x, y: groups.measured.y, text: groups.measured.text, customdata: groups.measured.custom,
      mode: "markers", name: "both answered (colour: n)", hovertemplate: "%{text}<extra></extra>",
      marker: { size: 8, ...discreteN(groups.measured.n), line: { width: 0.5, color: "#333" } } },
    { x: groups.censored.x, y: groups.censored.y, text: groups.censored.text, customdata: groups.censored.custom,
      mode: "markers", name: "> limit (in the shaded strip beyond the dashed line)", hovertemplate: "%{text}<extra></extra>",
      marker: { size: 8, symbol: "circle-open", color: "#b00", line: { width: 1.5 } } },
  ];
  const strip = { type: "rect", layer: "below", fillcolor: "#efefef", line: { width: 0 } };
  const layout = {
    title: { text: `Per instance, ${family === H.all ? family : markup(family) + " puzzles"}: ` +
                   `${markup(a)} (x) vs ${markup(b)} (y); above the diagonal ${markup(b)} is slower` },
    xaxis: { type: "log", range: [Math.log10(low), Math.log10(top)], title: { text: markup(a) + " wall time (s)" } },
    yaxis: { type: "log", range: [Math.log10(low), Math.log10(top)], title: { text: markup(b) + " wall time (s)" } },
    height: 600, hovermode: "closest", template: "plotly_white",
    legend: { orientation: "h", yanchor: "top", y: -0.16, x: 0 },
    margin: { t: 60, b: 110 },
    shapes: [
      { ...strip, x0: LIMIT, x1: top, yref: "paper", y0: 0, y1: 1 },
      { ...strip, y0: LIMIT, y1: top, xref: "paper", x0: 0, x1: 1 },
      { type: "line", x0: LIMIT, x1: LIMIT, yref: "paper", y0: 0, y1: 1, line: { dash: "dash", color: "#555", width: 1 } },
      { type: "line", y0: LIMIT, y1: LIMIT, xref: "paper", x0: 0, x1: 1, line: { dash: "dash", color: "#555", width: 1 } },
    ],
  };
  const div = document.getElementById("fig-scatter");
  Plotly.react(div, traces, layout, PLOT_CONFIG);
  const censored = [c.x_only ? `${a} only ${c.x_only}` : "", c.y_only ? `${b} only ${c.y_only}` : "",
                    c.both ? `both ${c.both}` : ""].filter((t) => t);
  document.getElementById("pair-note").textContent =
    `${c.pairs} instance pairs: ${a} faster on ${c.a_faster}, ${b} faster on ${c.b_faster}, ${c.ties} ties` +
    (censored.length ? `; > limit: ${censored.join(", ")}` : "") +
    (c.left_out ? `; left out: ${c.left_out} pair(s) with a skipped side (never raced)` : "");
}

function setupScatter() {
  const [a, b] = DATA.pair;
  const H = DATA.head_to_head;
  fillSelect(document.getElementById("pair-a"), H.entrants, a);
  fillSelect(document.getElementById("pair-b"), H.entrants, b);
  fillSelect(document.getElementById("pair-family"), [H.all, ...H.families], H.all);
  for (const id of ["pair-a", "pair-b", "pair-family"]) {
    document.getElementById(id).addEventListener("change", renderScatter);
  }
  renderScatter();
  document.getElementById("fig-scatter").on("plotly_click", (event) => {
    const point = event.points && event.points[0];
    if (point && typeof point.customdata === "string") showGrid(point.customdata);
  });
}

// n is a whole number: one colour per n present, a colour bar with a tick at each n (never 2.5)
const VIRIDIS = ["#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c", "#28ae80", "#5ec962", "#addc30", "#fde725"];

function discreteN(values) {
  const ns = [...new Set(values)].sort((p, q) => p - q);
  const colour = (k) => VIRIDIS[ns.length < 2 ? 0 : Math.round(k * (VIRIDIS.length - 1) / (ns.length - 1))];
  const scale = [];
  ns.forEach((_, k) => { scale.push([k / ns.length, colour(k)], [(k + 1) / ns.length, colour(k)]); });
  return { color: values.map((v) => ns.indexOf(v)), colorscale: scale.length ? scale : "Viridis",
           cmin: -0.5, cmax: ns.length - 0.5, showscale: ns.length > 0,
           colorbar: { title: { text: "n" }, x: 1.02, len: 0.8, tickmode: "array",
                       tickvals: ns.map((_, k) => k), ticktext: ns.map(String) } };
}

// ------------------------------------------------------------------ summary and who wins

function renderSummary() {
  const C = Object.fromEntries(DATA.summary_columns.map((c, i) => [c, i]));
  const table = document.getElementById("summary-table");
  const head = ["family", "entrant", "n", "solved", "median", "95% CI", "IQR", "PAR-2",
                "timeout", "memout", "error", "unknown", "skipped", "WRONG"];
  table.append(el("thead", {}, el("tr", {}, ...head.map((h, i) => el("th", { text: h, class: i < 2 ? "text" : "" })))));
  const body = el("tbody");
  for (const r of DATA.summary) {
    const vbs = r[C.entrant] === DATA.vbs;
    // every run skipped (never raced): no time, so no median, interval or PAR-2
    const skipped = r[C.skipped] > 0 && r[C.skipped] === r[C.runs];
    const cells = skipped ? [r[C.family], r[C.entrant], r[C.n], "-", "skipped", "", "", ""] :
      [r[C.family], r[C.entrant], r[C.n], `${r[C.solved]}/${r[C.total]}`, fmtSeconds(r[C.median_s]),
      r[C.median_lo] === null ? "n/a" : `[${fmtSeconds(r[C.median_lo])}, ${fmtSeconds(r[C.median_hi])}]`,
      r[C.q25_s] === null ? "" : `${fmtSeconds(r[C.q25_s])} .. ${fmtSeconds(r[C.q75_s])}`,
      r[C.par2_s] === null ? "" : fmtSeconds(r[C.par2_s])];
    cells.push(...["timeout", "memout", "error", "unknown", "skipped", "wrong"].map((s) => vbs ? "" : String(r[C[s]])));
    const tr = el("tr", vbs ? { class: "vbs" } : {}, ...cells.map((c, i) => el("td", { text: c, class: i < 2 ? "text" : "" })));
    if (!vbs && r[C.wrong] > 0) tr.lastChild.className = "status-wrong";
    if (!skipped && isCensored(r[C.median_s])) tr.children[4].classList.add("censored");
    body.append(tr);
  }
  table.append(body);

  const wins = document.getElementById("wins-table");
  if (!DATA.wins.length) { wins.append(el("tr", {}, el("td", { text: "one entrant: no virtual best solver" }))); return; }
  const W = Object.fromEntries(DATA.wins_columns.map((c, i) => [c, i]));
  const whead = ["family", "n", "instances", ...DATA.entrants.map((e) => "wins " + e), "nobody", "best single",
                 "its median", "VBS median", "VBS speed-up", "95% CI"];
  wins.append(el("thead", {}, el("tr", {}, ...whead.map((h) => el("th", { text: h })))));
  const wbody = el("tbody");
  for (const r of DATA.wins) {
    const cells = [r[W.family], r[W.n], r[W.instances], ...DATA.entrants.map((e) => r[W["wins_" + e]]), r[W.unanswered],
      r[W.best_single] || "-", fmtSeconds(r[W.best_median_s]), fmtSeconds(r[W.vbs_median_s]),
      r[W.speedup] === null ? "n/a" : "x" + fmtRatio(r[W.speedup]),
      r[W.speedup] === null ? "" : `[${fmtRatio(r[W.speedup_lo])}, ${fmtRatio(r[W.speedup_hi])}]`];
    wbody.append(el("tr", {}, ...cells.map((c) => el("td", { text: String(c) }))));
  }
  wins.append(wbody);
}

// ------------------------------------------------------------------ where the methods stop

function renderFrontier() {
  if (!DATA.frontier || !DATA.frontier.length) return;
  document.getElementById("frontier").hidden = false;
  document.getElementById("frontier-nav").hidden = false;
  const table = document.getElementById("frontier-table");
  const text = new Set(["campaign", "family", "entrant"]);
  const cls = (c) => (text.has(c) ? "text" : "");
  table.append(el("thead", {}, el("tr", {}, ...DATA.frontier_columns.map((c) => el("th", { text: c, class: cls(c) })))));
  const body = el("tbody");
  const entrant = DATA.frontier_columns.indexOf("entrant");
  for (const row of DATA.frontier) {
    const tr = el("tr", row[entrant] === "any entrant" ? { class: "vbs" } : {},
      ...row.map((c, i) => el("td", { text: c, class: cls(DATA.frontier_columns[i]) })));
    for (const td of tr.children) if (td.textContent.startsWith("> ")) td.classList.add("censored");
    body.append(tr);
  }
  table.append(body);
}

// ------------------------------------------------------------------ instance table

const TABLE_COLUMNS = [
  { key: "entrant", title: "entrant", filter: "select", text: true },
  { key: "family", title: "family", filter: "select", text: true },
  { key: "n", title: "n", filter: "select" },
  { key: "instance", title: "instance", filter: "text", text: true },
  { key: "status", title: "status", filter: "select", text: true },
  { key: "time", title: "time", filter: "number" },
  { key: "work", title: "work", filter: "number" },
  { key: "nodes", title: "nodes" }, { key: "updates", title: "updates" }, { key: "conflicts", title: "conflicts" },
  { key: "clues", title: "clues" },
];
const MAX_ROWS = 3000;
const tableState = { sortKey: "instance", descending: false, filters: {} };   // by instance first

function sortValue(row, key) {
  const v = row[COLUMN[key]];
  if (key === "time" || key === "work") return isCensored(v) && key === "time" ? Infinity : (v === null ? Infinity : v);
  return v === null ? "" : v;
}

function numberTest(text) {
  const m = /^\s*(<=|>=|<|>|=)?\s*([0-9.eE+-]+)\s*$/.exec(text);
  if (!m) return null;
  const op = m[1] || "=", x = Number(m[2]);
  if (Number.isNaN(x)) return null;
  return (v) => ({ "<": v < x, "<=": v <= x, ">": v > x, ">=": v >= x, "=": v === x })[op];
}

function visibleRows() {
  let rows = DATA.instances;
  for (const [key, value] of Object.entries(tableState.filters)) {
    if (value === "" || value === undefined) continue;
    const column = TABLE_COLUMNS.find((c) => c.key === key);
    if (column.filter === "select") rows = rows.filter((r) => String(r[COLUMN[key]]) === value);
    else if (column.filter === "text") rows = rows.filter((r) => String(r[COLUMN[key]]).toLowerCase().includes(value.toLowerCase()));
    else if (column.filter === "number") {
      const test = numberTest(value);
      if (test) rows = rows.filter((r) => test(sortValue(r, key)));
    }
  }
  if (tableState.sortKey) {
    const key = tableState.sortKey, sign = tableState.descending ? -1 : 1;
    rows = rows.slice().sort((p, q) => {
      const a = sortValue(p, key), b = sortValue(q, key);
      return (a < b ? -1 : a > b ? 1 : 0) * sign;
    });
  }
  return rows;
}

function renderRows() {
  const rows = visibleRows();
  const body = document.querySelector("#instance-table tbody");
  const shown = rows.slice(0, MAX_ROWS);
  body.replaceChildren(...shown.map((r) => {
    const tr = el("tr");
    for (const c of TABLE_COLUMNS) {
      const v = r[COLUMN[c.key]];
      let td;
      if (c.key === "instance") {
        td = el("td", { class: "text" }, el("a", { href: "#instances", "data-instance": v, class: "grid-link", text: v }));
      } else if (c.key === "time" && r[COLUMN.status] === "skipped") {
        td = el("td", { text: "skipped" });                  // never raced: no time
      } else if (c.key === "time") {
        td = el("td", { text: fmtSeconds(v), class: isCensored(v) ? "censored" : "" });
      } else if (["work", "nodes", "updates", "conflicts", "clues"].includes(c.key)) {
        td = el("td", { text: fmtCount(v) });
      } else {
        td = el("td", { text: String(v), class: (c.text ? "text" : "") + (c.key === "status" && v === "wrong" ? " status-wrong" : "") });
      }
      tr.append(td);
    }
    return tr;
  }));
  document.getElementById("row-count").textContent = `${rows.length} of ${DATA.instances.length} rows` +
    (rows.length > MAX_ROWS ? ` (the first ${MAX_ROWS} shown)` : "");
  for (const th of document.querySelectorAll("#instance-table th.sortable")) {
    th.classList.toggle("sorted-asc", th.dataset.key === tableState.sortKey && !tableState.descending);
    th.classList.toggle("sorted-desc", th.dataset.key === tableState.sortKey && tableState.descending);
  }
}

function setupTable() {
  const head = document.querySelector("#instance-table thead");
  const titles = el("tr");
  const filters = el("tr", { class: "filters" });
  for (const c of TABLE_COLUMNS) {
    const th = el("th", { text: c.title, class: "sortable" + (c.text ? " text" : ""), "data-key": c.key });
    th.addEventListener("click", () => {
      if (tableState.sortKey === c.key) tableState.descending = !tableState.descending;
      else { tableState.sortKey = c.key; tableState.descending = false; }
      renderRows();
    });
    titles.append(th);
    let input = null;
    if (c.filter === "select") {
      const values = [...new Set(DATA.instances.map((r) => String(r[COLUMN[c.key]])))];
      values.sort((p, q) => (c.key === "n" ? Number(p) - Number(q) : 0));
      input = el("select", { "data-filter": c.key });
      input.append(el("option", { value: "", text: "(all)" }), ...values.map((v) => el("option", { value: v, text: v })));
    } else if (c.filter) {
      input = el("input", { type: "text", "data-filter": c.key, placeholder: c.filter === "number" ? ">0.1" : "contains" });
    }
    if (input) {
      input.addEventListener(input.tagName === "SELECT" ? "change" : "input", () => {
        tableState.filters[c.key] = input.value;
        renderRows();
      });
    }
    filters.append(el("th", { class: c.text ? "text" : "" }, ...(input ? [input] : [])));
  }
  head.append(titles, filters);
  document.querySelector("#instance-table tbody").addEventListener("click", (event) => {
    const link = event.target.closest("a.grid-link");
    if (link) { event.preventDefault(); showGrid(link.dataset.instance); }
  });
  document.getElementById("clear-filters").addEventListener("click", () => {
    tableState.filters = {};
    for (const input of head.querySelectorAll("[data-filter]")) input.value = "";
    renderRows();
  });
  renderRows();
}

// ------------------------------------------------------------------ grid view

// DATA.grids: each distinct solution once; an instance's clues either encoded or, when they
// agree with its solution, a hex mask of the given cells (the values read from the solution)
function gridOf(instance) {
  const g = DATA.grids.grids[instance];
  if (!g) return null;
  const [n, clueText, mask, index, solutionLabel, source] = g;
  const solution = index === null ? null : decode(DATA.grids.solutions[index], n);
  let clues;
  if (mask === null) clues = decode(clueText, n);
  else {
    clues = new Array(n ** 4).fill(0);
    for (let i = 0; i < clues.length; i++) {
      if ((parseInt(mask[i >> 2], 16) >> (3 - (i & 3))) & 1) clues[i] = solution[i];
    }
  }
  return { n, clues, solution, solutionLabel, source };
}

const DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz";

function decode(text, n) {
  const width = n * n < 36 ? 1 : 2;
  const out = [];
  for (let i = 0; i < text.length; i += width) {
    out.push(width === 1 ? DIGITS.indexOf(text[i]) : DIGITS.indexOf(text[i]) * 36 + DIGITS.indexOf(text[i + 1]));
  }
  return out;
}

function showGrid(instance) {
  const view = document.getElementById("grid-view");
  view.hidden = false;
  document.getElementById("grid-title").textContent = "instance " + instance;
  const results = DATA.instances.filter((r) => r[COLUMN.instance] === instance);
  document.getElementById("grid-results").replaceChildren(el("p", { class: "note", text: results.map((r) =>
    `${r[COLUMN.entrant]}: ${r[COLUMN.status]} ${fmtSeconds(r[COLUMN.time])}`).join(" · ") }));
  const board = document.getElementById("grid-board");
  const info = document.getElementById("grid-info");
  const g = gridOf(instance);
  if (!g) {
    const reason = DATA.grids_missing[instance] || DATA.grids_missing["*"] || "not available";
    info.textContent = "grid not available: " + reason;
    board.replaceChildren();
    view.scrollIntoView({ block: "nearest" });
    return;
  }
  const { n, clues, solution, solutionLabel, source } = g;
  const showSolution = document.getElementById("grid-solution").checked && solution;
  const given = clues.filter((v) => v > 0).length;
  info.textContent = `n = ${n} (${n * n}×${n * n}), ${given} clues (bold), ${n ** 4 - given} empty; ` +
    (solution ? (showSolution ? "blue: " : "hidden: ") + solutionLabel : "no solution recorded") + `; puzzle ${source}, sha256 checked`;
  const side = n * n;
  const table = el("table", { class: "sudoku" });
  for (let i = 0; i < side; i++) {
    const tr = el("tr");
    for (let j = 0; j < side; j++) {
      const v = clues[i * side + j];
      const cls = [v ? "clue" : (showSolution ? "solved" : ""), j % n === 0 ? "box-left" : "", i % n === 0 ? "box-top" : ""];
      tr.append(el("td", { class: cls.join(" ").trim(), text: v ? String(v) : (showSolution ? String(solution[i * side + j]) : "") }));
    }
    table.append(tr);
  }
  board.replaceChildren(table);
  view.dataset.instance = instance;
  view.scrollIntoView({ block: "nearest" });
}

function setupGridView() {
  document.getElementById("grid-close").addEventListener("click", () => { document.getElementById("grid-view").hidden = true; });
  document.getElementById("grid-solution").addEventListener("change", () => {
    const instance = document.getElementById("grid-view").dataset.instance;
    if (instance) showGrid(instance);
  });
}

async function main() {
  try {
    [DATA, FIGURES] = await Promise.all([unpack("race-data"), unpack("race-figures")]);
  } catch (error) {
    document.getElementById("title").textContent = "This page cannot unpack its data (" + error + "); it needs " +
      "a browser with DecompressionStream (Chrome 80, Firefox 113, Safari 16.4 or later).";
    return;
  }
  LIMIT = DATA.limit;
  COLUMN = Object.fromEntries(DATA.columns.map((c, i) => [c, i]));
  renderHeader();
  renderFigures();
  setupScatter();
  renderSummary();
  renderFrontier();
  setupTable();
  setupGridView();
  document.body.dataset.ready = "true";
}

main();
