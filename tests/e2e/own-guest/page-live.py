#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# kprint-test: boots a guest (tests/run gives it a lane, a core, of its own)
# kprint-test: alone (its promise is a latency: a record on the page within 2 s)
"""kprint_exporter's page with a kernel, in headless Chromium on the host:
one guest (tests/vm/run --forward twice: the exporter, and pageagent.py,
which emits records when asked).  A record emitted in the guest appears
within 2 s in its level's color; pause holds new records back and resume
shows them all; the top-formats chart lists the test's formats in rate
order; a format shows its records; the err+ filter hides lower levels;
the controls work from the keyboard alone (TAB, ENTER, SPACE, arrows);
a record holding <script> shows as text and runs nothing; no console
errors; a screenshot in .output/page.png.
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from kpxtest import AgentGuest, Tap  # noqa: E402
from pagetest import REPO, Browser, By, Keys  # noqa: E402

BOOT_TIMEOUT = 240
ERR_RGB = "rgba(244, 112, 103, 1)"      # err's default, "red" (kpx_page.c)
t = Tap()
t0 = time.monotonic()

guest = AgentGuest(os.path.join(REPO, ".output", "page-live.log"), BOOT_TIMEOUT)
web = guest.web
if not t.ok(guest.up(), "the guest's exporter and agent answer through the forwards (%.1f s)"
            % (time.monotonic() - t0)):
    if guest.vm.poll() is None:
        guest.vm.terminate()
    print("".join("# " + ln + "\n" for ln in guest.log_tail()))
    t.done()

b = None


def emit(level, fmt, args=(), n=1):
    return guest.emit(level, fmt, args, n, subsystem="pagetest")


def rows(sel=".row"):
    return b.d.find_elements(By.CSS_SELECTOR, sel)


def row_of(seq):
    got = rows('.row[data-seq="%d"]' % seq)
    return got[0] if got else None


try:
    b = Browser()
    base = "http://127.0.0.1:%d" % web
    b.get(base + "/")
    t.ok(b.until(lambda: b.js("return document.getElementById('status').textContent") == "live",
                 10), "the page's stream is live")

    # A record appears within 2 s, in err's color.
    seq = emit("err", "page-live appears %s", ["now"])[0]
    sent = time.monotonic()
    row = b.until(lambda: row_of(seq), 5, 0.02)
    took = time.monotonic() - sent
    t.ok(row is not None and took <= 2.0, "an emitted record shows within 2 s (%.2f s)" % took)
    color = row.find_element(By.CSS_SELECTOR, ".txt").value_of_css_property("color") if row else None
    t.ok(color == ERR_RGB, "in err's color, computed (%s)" % color)

    # Pause holds records back; resume shows them all, in order.
    pause = b.tab_to(lambda el: el.get_attribute("id") == "pause")
    t.ok(pause is not None, "TAB reaches the pause button")
    b.key(Keys.SPACE)
    held_seqs = emit("warn", "page-live held %s", ["x"], n=5)
    held = b.until(lambda: b.js("return document.getElementById('held').textContent") == "5 held", 5)
    shown = [s for s in held_seqs if row_of(s)]
    t.ok(held and not shown, "paused (SPACE): 5 new records held, none shown (%r, shown %r)"
         % (b.js("return document.getElementById('held').textContent"), shown))
    b.key(Keys.SPACE)
    back = b.until(lambda: all(row_of(s) for s in held_seqs), 3)
    order = [int(r.get_attribute("data-seq")) for r in rows()]
    t.ok(back and [s for s in order if s in held_seqs] == held_seqs,
         "resumed (SPACE): all 5 shown, in order")

    # A script in a record is text.
    evil = "<script>window.kpxPwned=1</script><img src=x onerror=window.kpxPwned=2>"
    seq = emit("err", "page-live evil %s", [evil])[0]
    row = b.until(lambda: row_of(seq), 5)
    txt = row.find_element(By.CSS_SELECTOR, ".txt").text if row else ""
    t.ok(evil in txt and b.js("return window.kpxPwned") is None and
         not b.js("return document.querySelectorAll('#tail script, #tail img').length"),
         "a record holding <script> shows as text, nothing runs (%r)" % txt[:60])

    # The chart: three formats at three rates, in that order.
    fmts = ["page-live rate high %s", "page-live rate mid %s", "page-live rate low %s"]
    for fmt, n in zip(fmts, (24, 12, 4)):
        emit("err", fmt, ["r"], n=n)

    def chart():
        names = b.js("return [...document.querySelectorAll('#formats .fmt')]"
                     ".map(b => b.textContent)")
        mine = [n for n in names if n in fmts]
        return mine if mine == fmts else None
    got = b.until(chart, 12, 0.2)
    rates = b.js("return [...document.querySelectorAll('#formats li')].filter(l => l.querySelector"
                 "('.fmt').textContent.startsWith('page-live rate')).map(l => +l.dataset.rate)")
    t.ok(got == fmts and rates == sorted(rates, reverse=True),
         "the top-formats chart lists the test's formats in rate order (%r)" % rates)

    # Clicking a format shows its records.
    btn = [x for x in rows("#formats .fmt") if x.text == fmts[1]]
    if btn:
        btn[0].click()
    mid = b.until(lambda: [r.find_element(By.CSS_SELECTOR, ".txt").text for r in rows()]
                  if len(rows()) == 12 else None, 5)
    t.ok(mid and all(x == "page-live rate mid r" for x in mid),
         "clicking a format shows its 12 records, only those (%d rows)" % len(rows()))

    # The keyboard alone: the chip clears the format, a row opens, err+ filters.
    chip = b.tab_to(lambda el: el.get_attribute("id") == "format-clear")
    if chip:
        b.key(Keys.ENTER)
    t.ok(chip is not None and b.until(lambda: len(rows()) > 12, 5),
         "TAB reaches the format's chip, ENTER shows every format again")
    row = b.tab_to(lambda el: "row" in (el.get_attribute("class") or "").split())
    if row:
        b.key(Keys.ARROW_UP)
        b.key(Keys.ENTER)
    shown = b.until(lambda: b.js("return !document.getElementById('detail').hidden"), 3)
    fields = b.js("return [...document.querySelectorAll('#detail-fields dt')].map(d => d.textContent)")
    t.ok(row is not None and shown and "format_id" in fields and "seq" in fields,
         "TAB reaches a row, arrows move, ENTER shows its detail (%d fields)" % len(fields or []))
    b.key(Keys.ESCAPE)
    # err+ from the keyboard, from the top of the page.
    level = b.level_from_top(4)
    low, high = emit("info", "page-live low %s", ["i"])[0], emit("err", "page-live high %s", ["e"])[0]
    b.until(lambda: row_of(high), 5)
    levels = {r.get_attribute("data-level") for r in rows()}
    t.ok(level is not None and row_of(high) and not row_of(low) and
         levels <= {"emerg", "alert", "crit", "err"} and "level=err%2B" in b.d.current_url,
         "err+ chosen with the keyboard hides lower levels (%s)" % sorted(levels))

    errors = b.errors()
    t.ok(not errors, "no console errors (%r)" % errors[:3])
    shot = b.screenshot("page.png")
    t.ok(os.path.getsize(shot) > 10000, "a screenshot in .output/page.png")
except Exception as e:          # a failed check must still stop the guest
    t.ok(False, "the browser checks ran to their end (%s: %s)" % (type(e).__name__, e))
finally:
    if b:
        b.quit()
    st, rc = guest.stop()
    t.ok(st == 0 and rc == 0, "the exporter stopped cleanly (%r) and the guest too (%r)" % (st, rc))
    print("# page-live: %.1f s" % (time.monotonic() - t0))
t.done()
