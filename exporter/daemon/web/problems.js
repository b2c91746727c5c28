// SPDX-License-Identifier: GPL-2.0
//
// The problems panel and the condition banner, from /problems?seen=1: the
// kernel problems the exporter's problem catalog recognised, each with its
// count, when it was last seen and its latest record.  A permanent
// condition (a rule of kind condition: KernelDeadlock, ReadonlyFilesystem,
// XfsShutdown) also shows in a banner that cannot be dismissed: it holds
// until the machine reboots, so it stays as long as /problems says so.
//
// Asked again every POLL_MS, and at once when the live stream sends a
// problem event (refresh()), which a filter of the tail may hold back.
// Every string goes in with textContent.

const POLL_MS = 5000;

function when(t) {
  return t ? t.replace("T", " ").replace(/\.\d+Z$/, " UTC") : "";
}

// "device=sda" of a series' labels, or "" for a problem without labels.
function labelText(labels) {
  return Object.entries(labels).map(([k, v]) => k + "=" + v).join(" ");
}

function item(p) {
  const li = document.createElement("li");
  li.className = "problem kind-" + p.kind;
  li.dataset.problem = p.problem;
  const head = document.createElement("div");
  const name = document.createElement("strong");
  name.className = "name";
  name.textContent = p.problem;
  const count = document.createElement("span");
  count.className = "count";
  count.textContent = "×" + p.count;
  head.append(name, " ", count);
  if (p.condition) {
    const c = document.createElement("span");
    c.className = "condition";
    c.textContent = p.condition;
    head.append(" ", c);
  }
  const summary = document.createElement("span");
  summary.className = "where";
  summary.textContent = p.summary + " · last " + when(p.last_seen);
  li.append(head, summary);
  for (const s of p.series) {
    const row = document.createElement("div");
    row.className = "series";
    const lab = labelText(s.labels);
    const latest = s.latest || {};
    const attr = labelText(latest.attribution || {});
    const rec = latest.record;
    row.textContent = [lab, "×" + s.count, attr].filter((x) => x).join(" · ");
    if (rec) {
      const txt = document.createElement("span");
      txt.className = "txt";
      txt.title = "seq " + rec.seq;
      txt.textContent = rec.text;
      row.append(txt);
    }
    li.append(row);
  }
  return li;
}

// The conditions seen: "ReadonlyFilesystem (device=loop0)", one each.
function conditions(problems) {
  const out = [];
  for (const p of problems) {
    if (p.kind !== "condition" || !p.count)
      continue;
    const where = p.series.map((s) => labelText(s.labels)).filter((x) => x);
    out.push(p.condition + (where.length ? " (" + where.join(", ") + ")" : ""));
  }
  return out;
}

// list, status: the panel's; banner, bannerText: the condition banner's.
export function startProblems(list, status, banner, bannerText) {
  let timer = null;
  let busy = false;             // a request in flight: asked again after it
  let again = false;

  async function poll() {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    clearTimeout(timer);
    try {
      const r = await fetch("/problems?seen=1", { cache: "no-store" });
      const body = await r.json();
      if (!r.ok) {
        status.textContent = "/problems: " + (body.error || r.status);
      } else {
        list.replaceChildren(...body.problems.map(item));
        status.textContent = !body.rules ?
          "No problem catalog loaded (kprint_exporter --problems.file)." :
          body.problems.length ? `${body.problems.length} of ${body.rules} problems seen` :
          `none of the ${body.rules} problems seen`;
        const held = conditions(body.problems);
        bannerText.textContent = held.length ?
          "Kernel condition until reboot: " + held.join("; ") : "";
        banner.hidden = !held.length;
      }
    } catch (e) {
      status.textContent = "/problems: " + e.message;
    }
    busy = false;
    timer = setTimeout(poll, again ? 0 : POLL_MS);
    again = false;
  }
  poll();
  return poll;
}
