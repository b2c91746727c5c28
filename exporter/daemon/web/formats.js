// SPDX-License-Identifier: GPL-2.0
//
// The chart of the top formats by rate.  /formats gives counts since the
// BPF counters were loaded, so a rate needs two samples: the page keeps
// the samples of the last WINDOW_MS and divides what each format gained
// between the oldest and the newest by the time between them.  A format
// absent from the oldest sample had no count then (the map holds every
// format once counted).  Bars are plain elements sized in percent: no
// library, nothing drawn by script but widths.

const POLL_MS = 2000;
const WINDOW_MS = 10000;
const TOP = 10;

// One format's count, summed over the levels, classes and modules that
// used it (each is an entry of /formats of its own).
function sample(entries) {
  const m = new Map();
  for (const e of entries) {
    if (!("format_id" in e))
      continue;           // a source's summary line
    const key = e.source + "/" + e.format_id;
    const have = m.get(key);
    if (have) {
      have.count += e.count;
      if (e.level_num < have.level_num) {
        have.level = e.level;
        have.level_num = e.level_num;
      }
    } else {
      m.set(key, { source: e.source, format_id: e.format_id, format: e.format,
                   level: e.level, level_num: e.level_num, count: e.count });
    }
  }
  return m;
}

export function rates(oldest, newest) {
  const dt = (newest.t - oldest.t) / 1000;
  const out = [];
  if (dt <= 0)
    return out;
  for (const [key, f] of newest.counts) {
    const before = oldest.counts.get(key);
    const gained = f.count - (before ? before.count : 0);
    if (gained > 0)
      out.push({ ...f, rate: gained / dt });
  }
  out.sort((a, b) => b.rate - a.rate || a.format.localeCompare(b.format));
  return out;
}

function fmtRate(r) {
  return (r >= 100 ? r.toFixed(0) : r >= 10 ? r.toFixed(1) : r.toFixed(2)) + "/s";
}

// onPick(format_id, format) shows a format's records.
export function startFormats(list, status, onPick) {
  const samples = [];
  let timer = null;

  function draw(top) {
    const max = top.length ? top[0].rate : 1;
    const items = top.map((f) => {
      const li = document.createElement("li");
      li.className = "lv-" + f.level;
      li.dataset.formatId = f.format_id;
      li.dataset.rate = String(f.rate);
      const b = document.createElement("button");
      b.type = "button";
      b.className = "fmt";
      b.textContent = f.format;
      b.title = f.format;
      b.setAttribute("aria-label", "Show the records of format " + f.format +
                     ", " + fmtRate(f.rate));
      b.addEventListener("click", () => onPick(f.format_id, f.format));
      const rate = document.createElement("span");
      rate.className = "rate";
      rate.textContent = fmtRate(f.rate);
      const track = document.createElement("div");
      track.className = "track";
      track.setAttribute("aria-hidden", "true");
      const bar = document.createElement("div");
      bar.className = "bar lv-" + f.level;
      bar.style.width = Math.max(1, (100 * f.rate) / max).toFixed(1) + "%";
      track.append(bar);
      const json = document.createElement("a");
      json.className = "json";
      json.href = "/records?format_id=" + encodeURIComponent(f.format_id);
      json.textContent = f.source + " · " + f.level + " · /records?format_id=" + f.format_id;
      li.append(b, rate, track, json);
      return li;
    });
    // Keep the focused button's place: redrawing must not throw the
    // keyboard user out of the list.
    const focused = document.activeElement && list.contains(document.activeElement)
      ? document.activeElement.parentElement.dataset.formatId : null;
    list.replaceChildren(...items);
    if (focused) {
      const again = list.querySelector(`li[data-format-id="${CSS.escape(focused)}"] .fmt`);
      if (again)
        again.focus();
    }
  }

  async function poll() {
    let next = POLL_MS;
    try {
      const r = await fetch("/formats", { cache: "no-store" });
      const body = await r.json();
      if (!r.ok) {
        status.textContent = "No per-format counts: " + (body.error || r.status);
        next = 5 * POLL_MS;
      } else {
        const now = performance.now();
        samples.push({ t: now, counts: sample(body) });
        while (samples.length > 2 && now - samples[1].t >= WINDOW_MS)
          samples.shift();
        if (samples.length < 2) {
          status.textContent = "waiting for a second sample of /formats…";
        } else {
          const top = rates(samples[0], samples[samples.length - 1]).slice(0, TOP);
          const secs = ((now - samples[0].t) / 1000).toFixed(0);
          status.textContent = top.length ?
            `over the last ${secs} s; a format shows its records` :
            `no messages in the last ${secs} s`;
          draw(top);
        }
      }
    } catch (e) {
      status.textContent = "/formats: " + e.message;
    }
    timer = setTimeout(poll, next);
  }
  poll();
  return () => clearTimeout(timer);
}

// The formats the kernel's call-site catalog has and no count knows: asked
// for only while the toggle is on (without a catalog /formats?never=1 is a
// 404, which the page must not log by itself), again every NEVER_POLL_MS.
const NEVER_POLL_MS = 10000;
const NEVER_SHOWN = 200;

function neverItem(e) {
  const li = document.createElement("li");
  li.className = "lv-" + (e.level || "none");
  li.dataset.formatId = e.format_id;
  const fmt = document.createElement("span");
  fmt.className = "fmt";
  fmt.textContent = e.format;
  const where = document.createElement("span");
  where.className = "where";
  where.textContent = [e.level || "no level", e.module, e.function || "function unknown",
                       e.kind].join(" · ");
  li.append(fmt, where);
  return li;
}

async function fetchJson(url) {
  const r = await fetch(url, { cache: "no-store" });
  const body = await r.json();
  if (!r.ok)
    throw new Error(body.error || String(r.status));
  return body;
}

export function startNever(toggle, list, status) {
  let timer = null;
  let turn = 0;           // a load of an earlier turn of the toggle writes nothing

  async function load(mine) {
    timer = null;
    try {
      const sum = await fetchJson("/sites?summary=1");
      const never = await fetchJson("/formats?never=1&limit=" + NEVER_SHOWN);
      if (mine !== turn)
        return;
      list.replaceChildren(...never.map(neverItem));
      status.textContent = `${sum.never_seen} of the ${sum.entries} call sites of kernel ` +
        `${sum.kernel} never fired` + (never.length < sum.never_seen ?
          `; the first ${never.length} shown (/formats?never=1 pages them)` : "");
    } catch (e) {
      if (mine !== turn)
        return;
      list.replaceChildren();
      status.textContent = "No call-site catalog: " + e.message;
    }
    timer = setTimeout(load, NEVER_POLL_MS, mine);
  }

  toggle.addEventListener("change", () => {
    list.hidden = status.hidden = !toggle.checked;
    clearTimeout(timer);
    timer = null;
    turn++;
    if (toggle.checked) {
      status.textContent = "asking /formats?never=1…";
      load(turn);
    } else {
      list.replaceChildren();
    }
  });
}
