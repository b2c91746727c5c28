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
