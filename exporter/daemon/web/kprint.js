// SPDX-License-Identifier: GPL-2.0
//
// The page's live tail: records from /events (Server-Sent Events), after
// the most recent ones from /records, in per-level colors (/ui/palette.css).
//
// Lossless by construction: the stream is opened first, and /records is
// asked only once it is open, so a record that came meanwhile is in one
// or both (the tail drops what it already has, by seq); a reconnect
// resumes with Last-Event-ID (EventSource's own), and what the exporter
// could no longer give comes as a lost event, shown in a banner.  Paused,
// records are held, not dropped, and all shown on resume.
//
// Every string of a record goes in with textContent: a record holding
// markup shows it as text.  The CSP (no inline script) is the second wall.

import { startFormats, startNever } from "./formats.js";
import { startProblems } from "./problems.js";

const MAX_ROWS = 2000;          // rows kept in the tail, oldest dropped first
const PREFILL = 200;            // recent records shown on (re)connect
const SERVER_FILTERS = ["level", "source", "subsystem", "module", "format_id", "lang"];

const $ = (id) => document.getElementById(id);
const tail = $("tail");
const filters = {};             // the server's filters, by /events parameter
let text = "";                  // the client's own: a substring of the text
let paused = false;
let held = [];                  // records that came while paused
let es = null;
let generation = 0;             // a stale stream's events are ignored
let lastSeq = -1;               // of the newest record shown (or held)
let instance = null;            // the module instance of lastSeq
let current = null;             // the row that takes the tail's tab stop
let lostTotal = 0;
let rowCount = 0;
let refreshProblems = () => {};  // the problems panel, asked again

// Records carry 64-bit integers (ts_real_ns is past 2^53 today): those
// JSON.parse would round are kept exact as BigInt, from the source text
// (JSON.parse's third reviver argument; without it, rounded as before).
function exact(key, value, ctx) {
  if (typeof value === "number" && !Number.isSafeInteger(value) && ctx &&
      /^-?\d+$/.test(ctx.source))
    return BigInt(ctx.source);
  return value;
}

function fromUrl() {
  const p = new URLSearchParams(location.search);
  for (const k of SERVER_FILTERS)
    filters[k] = p.get(k) || "";
  text = p.get("text") || "";
  const colors = p.getAll("color");
  if (colors.length) {
    // The exporter checks them: a bad one is a 400, said in the banner.
    const q = new URLSearchParams();
    for (const c of colors)
      q.append("color", c);
    $("palette").href = "/ui/palette.css?" + q;
  }
}

// path?query with more parameters, none empty (an empty one is a 400).
function withQuery(path, q, more = {}) {
  const all = new URLSearchParams(q);
  for (const [k, v] of Object.entries(more))
    all.set(k, v);
  const s = all.toString();
  return s ? path + "?" + s : path;
}

function serverQuery() {
  const q = new URLSearchParams();
  for (const k of SERVER_FILTERS)
    if (filters[k])
      q.set(k, filters[k]);
  return q;
}

// The page's own URL says what it shows, so that it can be shared.
function toUrl() {
  const q = serverQuery();
  if (text)
    q.set("text", text);
  for (const c of new URLSearchParams(location.search).getAll("color"))
    q.append("color", c);
  const s = q.toString();
  history.replaceState(null, "", s ? "?" + s : location.pathname);
}

function showForm() {
  $("f-level").value = filters.level;
  $("f-source").value = filters.source;
  $("f-subsystem").value = filters.subsystem;
  $("f-module").value = filters.module;
  $("f-text").value = text;
  $("f-lang").value = filters.lang;
  const fmt = $("format-filter");
  fmt.hidden = !filters.format_id;
  if (filters.format_id && !$("format-filter-text").textContent)
    $("format-filter-text").textContent = filters.format_id;
}

function banner(msg) {
  $("banner-text").textContent = msg;
  $("banner").hidden = false;
}

function status(msg) {
  $("status").textContent = msg;
}

function stamp(ns) {
  const us = Math.floor(Number(ns) / 1000);
  const s = String(Math.floor(us / 1e6)).padStart(5, " ");
  return `[${s}.${String(us % 1e6).padStart(6, "0")}]`;
}

function origin(rec) {
  if (rec.source === "printk")
    return "[printk" + (rec.device ? " " + rec.device : "") + "]";
  return rec.subsystem ? rec.subsystem + ":" : "";
}

// A control byte in a text or arg (a NUL from printk's "%c" of 0) would
// vanish on screen: it is shown as /dev/kmsg and kprint monitor show it,
// \xNN.  Tab and newline stay what they are; the JSON keeps every byte.
function visible(s) {
  return s.replace(/[\x00-\x08\x0b-\x1f\x7f]/g,
                   (c) => "\\x" + c.charCodeAt(0).toString(16).padStart(2, "0"));
}

function shownText(rec) {
  return filters.lang && typeof rec.text_translated === "string" ? rec.text_translated : rec.text;
}

function matches(row) {
  if (!text)
    return true;
  const t = text.toLowerCase();
  return row.kpxText.toLowerCase().includes(t) || row.kpxRec.format.toLowerCase().includes(t);
}

function atBottom() {
  return tail.scrollHeight - tail.scrollTop - tail.clientHeight < 8;
}

function makeCurrent(row, focus) {
  if (current && current !== row)
    current.tabIndex = -1;
  current = row;
  if (row) {
    row.tabIndex = 0;
    if (focus) {
      row.focus();
      for (const r of tail.querySelectorAll('[aria-selected="true"]'))
        r.setAttribute("aria-selected", "false");
      row.setAttribute("aria-selected", "true");
    }
  }
}

function render(rec) {
  const row = document.createElement("div");
  row.className = "row lv-" + rec.level;
  row.setAttribute("role", "option");
  row.setAttribute("aria-selected", "false");
  row.tabIndex = -1;
  row.id = "r-" + rowCount++;
  row.kpxRec = rec;
  row.kpxText = shownText(rec);
  row.dataset.seq = String(rec.seq);
  row.dataset.level = rec.level;
  const cells = [["ts", stamp(rec.ts_mono_ns)], ["lvl c", rec.level],
                 ["sub", origin(rec)], ["txt c", visible(row.kpxText)]];
  for (const [cls, s] of cells) {
    const span = document.createElement("span");
    span.className = cls;
    span.textContent = s;
    row.append(span);
  }
  row.hidden = !matches(row);
  return row;
}

function append(recs) {
  if (!recs.length)
    return;
  const stick = atBottom();
  const frag = document.createDocumentFragment();
  for (const rec of recs)
    frag.append(render(rec));
  tail.append(frag);
  while (tail.childElementCount > MAX_ROWS) {
    const old = tail.firstElementChild;
    if (old === current)
      makeCurrent(old.nextElementSibling, document.activeElement === old);
    old.remove();
  }
  // The tab stop follows the newest record until the keyboard is in the tail.
  if (!tail.contains(document.activeElement))
    makeCurrent(tail.lastElementChild, false);
  if (stick)
    tail.scrollTop = tail.scrollHeight;
}

function showHeld() {
  $("held").textContent = paused ? `${held.length} held` : "";
}

// A record from the stream (or the prefill): new ones only, by seq.
function take(recs, id) {
  if (id) {
    const inst = id.split("-")[0];
    if (instance !== null && inst !== instance)
      lastSeq = -1;     // kprint.ko reloaded: sequence numbers start again
    instance = inst;
  }
  const fresh = recs.filter((r) => r.seq > lastSeq);
  if (!fresh.length)
    return;
  lastSeq = fresh[fresh.length - 1].seq;
  if (paused) {
    held.push(...fresh);
    showHeld();
  } else {
    append(fresh);
  }
}

function lost(ev) {
  let d = {};
  try {
    d = JSON.parse(ev.data);
  } catch (e) { /* the banner says what it can */ }
  lostTotal += d.count || 0;
  const what = d.reason === "reloaded" ? "kprint.ko was reloaded: records of the old instance are gone"
    : `${d.count ?? "some"} records were overwritten before they were sent` +
      (d.first_seq !== undefined ? ` (seq ${d.first_seq}..${d.last_seq})` : "");
  banner(`Records lost: ${what}.` + (lostTotal ? ` ${lostTotal} lost since this page opened.` : ""));
}

async function explain(q) {
  // EventSource says nothing of why; /records takes the same filters.
  try {
    const r = await fetch(withQuery("/records", q, { limit: 1 }));
    if (!r.ok) {
      const body = await r.json();
      banner(`The exporter refused the filters: ${body.error}` +
             (body.parameter ? ` (${body.parameter})` : ""));
      return true;
    }
  } catch (e) { /* not reachable: said by the status */ }
  return false;
}

async function prefill(gen, q) {
  const r = await fetch(withQuery("/records", q, { limit: PREFILL }), { cache: "no-store" });
  if (gen !== generation)
    return;
  if (!r.ok)
    return explain(q);
  const recs = JSON.parse(await r.text(), exact);
  if (gen !== generation)
    return;
  take(recs, null);
}

function connect() {
  generation++;
  const gen = generation;
  if (es)
    es.close();
  tail.replaceChildren();
  current = null;
  held = [];
  showHeld();
  lastSeq = -1;
  instance = null;
  const q = serverQuery();
  let early = [];       // events before the prefill is in
  let filled = false;
  status("connecting…");
  es = new EventSource(withQuery("/events", q));
  es.onopen = async () => {
    if (gen !== generation)
      return;
    status("live");
    if (filled)
      return;           // a reconnect: Last-Event-ID resumes it
    try {
      await prefill(gen, q);
    } catch (e) {
      status("/records: " + e.message);
    }
    filled = true;
    for (const [recs, id] of early)
      take(recs, id);
    early = null;
  };
  es.onmessage = (ev) => {
    if (gen !== generation)
      return;
    let rec;
    try {
      rec = JSON.parse(ev.data, exact);
    } catch (e) {
      return;
    }
    if (filled)
      take([rec], ev.lastEventId);
    else
      early.push([[rec], ev.lastEventId]);
  };
  es.addEventListener("lost", (ev) => {
    if (gen === generation)
      lost(ev);
  });
  // A record that is a kernel problem: the panel has news.
  es.addEventListener("problem", () => refreshProblems());
  es.onerror = async () => {
    if (gen !== generation)
      return;
    if (es.readyState === EventSource.CLOSED) {
      status("disconnected");
      if (!(await explain(q)))
        banner("The stream of records ended; reload the page to reconnect.");
    } else {
      status("reconnecting…");
    }
  };
}

function applyForm() {
  filters.level = $("f-level").value;
  filters.source = $("f-source").value;
  filters.subsystem = $("f-subsystem").value.trim();
  filters.module = $("f-module").value.trim();
  filters.lang = $("f-lang").value;
  text = $("f-text").value;
  toUrl();
  showForm();
  connect();
}

function filterText() {
  text = $("f-text").value;
  toUrl();
  for (const row of tail.children)
    row.hidden = !matches(row);
}

function setPaused(p) {
  paused = p;
  const b = $("pause");
  b.setAttribute("aria-pressed", String(p));
  b.textContent = p ? "Resume" : "Pause";
  if (!p) {
    const out = held;
    held = [];
    append(out);
  }
  showHeld();
}

function field(dl, name, value) {
  const dt = document.createElement("dt");
  dt.textContent = name;
  const dd = document.createElement("dd");
  dd.textContent = typeof value === "string" ? visible(value)
    : typeof value === "bigint" ? String(value) : JSON.stringify(value);
  dl.append(dt, dd);
}

function showDetail(row) {
  const rec = row.kpxRec;
  const dl = $("detail-fields");
  dl.replaceChildren();
  for (const [k, v] of Object.entries(rec))
    if (k !== "args")
      field(dl, k, v);
  const ol = $("detail-args");
  ol.replaceChildren(...(rec.args || []).map((a) => {
    const li = document.createElement("li");
    li.textContent = visible(a);
    return li;
  }));
  $("detail-title").textContent = `Record ${rec.seq} (${rec.level})`;
  $("detail").hidden = false;
  $("detail").kpxRow = row;
  $("detail-title").focus();
}

function closeDetail() {
  const row = $("detail").kpxRow;
  $("detail").hidden = true;
  if (row && row.isConnected)
    makeCurrent(row, true);
}

function tailKeys(ev) {
  const row = ev.target.closest(".row");
  if (!row)
    return;
  const visible = (r, dir) => {
    while (r && r.hidden)
      r = dir > 0 ? r.nextElementSibling : r.previousElementSibling;
    return r;
  };
  let to = null;
  switch (ev.key) {
  case "Enter":
  case " ":
    ev.preventDefault();
    showDetail(row);
    return;
  case "ArrowDown": to = visible(row.nextElementSibling, 1); break;
  case "ArrowUp": to = visible(row.previousElementSibling, -1); break;
  case "Home": to = visible(tail.firstElementChild, 1); break;
  case "End": to = visible(tail.lastElementChild, -1); break;
  default: return;
  }
  ev.preventDefault();
  if (to)
    makeCurrent(to, true);
}

async function languages() {
  // The languages of the exporter's --catalog files; none: no selector.
  try {
    const r = await fetch("/catalogs");
    if (!r.ok)
      return;
    const cats = await r.json();
    if (!Array.isArray(cats) || !cats.length)
      return;
    const sel = $("f-lang");
    for (const c of cats) {
      const o = document.createElement("option");
      o.value = c.language;
      o.textContent = c.language;
      sel.append(o);
    }
    sel.value = filters.lang;
    $("lang-label").hidden = false;
  } catch (e) { /* an exporter without catalogs */ }
}

function pickFormat(id, format) {
  filters.format_id = id;
  $("format-filter-text").textContent = format;
  toUrl();
  showForm();
  connect();
}

fromUrl();
showForm();
$("filters").addEventListener("submit", (ev) => {
  ev.preventDefault();
  applyForm();
});
for (const id of ["f-level", "f-source", "f-lang"])
  $(id).addEventListener("change", applyForm);
$("f-text").addEventListener("input", filterText);
$("clear").addEventListener("click", () => {
  for (const k of SERVER_FILTERS)
    if (k !== "lang")
      filters[k] = "";
  text = "";
  $("format-filter-text").textContent = "";
  toUrl();
  showForm();
  connect();
});
$("format-clear").addEventListener("click", () => {
  filters.format_id = "";
  $("format-filter-text").textContent = "";
  toUrl();
  showForm();
  connect();
  $("pause").focus();
});
$("pause").addEventListener("click", () => setPaused(!paused));
$("banner-close").addEventListener("click", () => {
  $("banner").hidden = true;
});
$("detail-close").addEventListener("click", closeDetail);
$("detail").addEventListener("keydown", (ev) => {
  if (ev.key === "Escape")
    closeDetail();
});
tail.addEventListener("keydown", tailKeys);
tail.addEventListener("click", (ev) => {
  const row = ev.target.closest(".row");
  if (row) {
    makeCurrent(row, true);
    showDetail(row);
  }
});
$("palette").addEventListener("error", () => explainPalette());
startFormats($("formats"), $("formats-status"), pickFormat);
startNever($("never-toggle"), $("never"), $("never-status"));
refreshProblems = startProblems($("problems"), $("problems-status"), $("condition-banner"),
                                $("condition-text"));
languages();
connect();

async function explainPalette() {
  const r = await fetch($("palette").href);
  if (!r.ok) {
    const body = await r.json();
    banner("The colors were refused: " + body.error);
  }
}
