#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""kprint_exporter's page at / on a replay (no kernel): its files and
headers (Content-Type, a Content-Security-Policy without inline script,
ETag and 304, no inline script or handler in the HTML, the links in the
footer), the palette (?color= and --web.level-color, words and VGA
attribute bytes, 400 for a bad one), and in headless Chromium: records in
their levels' colors, a record holding <script> shown as text with nothing
run, a row's detail with every field and its args from the keyboard, the
err+ filter chosen with the keyboard, the text filter, a NUL shown as \\x00, the language
selector only when the exporter has catalogs and the translated text with
it, no console errors.

What needs records to arrive (a record within 2 s, pause and resume, the
top-formats chart, which needs BPF counters): page-live.py, in a guest.
"""
import atexit
import os
import re
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kpxtest import Exporter, Tap, line, record  # noqa: E402
from pagetest import Browser, By, Keys  # noqa: E402

# A replay has no BPF counters: /formats is 503, documented, and the
# browser logs the failed request.  The only console error allowed here.
REPLAY_503 = "/formats - Failed to load resource: the server responded with a status of 503"
DE = r'''msgid ""
msgstr ""
"Language: de\n"
"Content-Type: text/plain; charset=UTF-8\n"

#, c-format
msgid "page %s at port %d"
msgstr "Seite: Port %2$d von %1$s"
'''
LEVELS = ["emerg", "alert", "crit", "err", "warn", "notice", "info", "debug"]
EVIL = "<script>window.kpxPwned=1</script><img src=x onerror=\"window.kpxPwned=2\">"

t = Tap()
t0 = time.monotonic()
work = tempfile.mkdtemp(prefix="kpx-page.")
atexit.register(shutil.rmtree, work, True)
path = os.path.join(work, "r.jsonl")
recs = [record(i + 1, "page %s at port %d", level=lv, subsystem="pg", args=[lv, str(i)],
               text="page %s at port %d" % (lv, i)) for i, lv in enumerate(LEVELS)]
recs.append(record(9, "evil %s", level="err", args=[EVIL], text="evil " + EVIL))
# printk("xxx%cyyy", '\0'): the NUL shown as /dev/kmsg shows it (kprint(7)).
recs.append(record(10, "xxx%cyyy", level="info", args=["\0"], text="xxx\0yyy"))
with open(path, "wb") as f:
    for r in recs:
        f.write(line(r))
po = os.path.join(work, "de.po")
with open(po, "w") as f:
    f.write(DE)

exp = Exporter(path, "--web.level-color", "warn=0x0e", "--web.level-color", "debug=bold,blue")
atexit.register(exp.stop)

# Files and headers.
st, h, body = exp.get("/")
csp = h.get("Content-Security-Policy", "")
t.ok(st == 200 and h.get("Content-Type") == "text/html; charset=utf-8",
     "/: 200, text/html (%s %s)" % (st, h.get("Content-Type")))
t.ok("default-src 'self'" in csp and "script-src 'self'" in csp and "unsafe" not in csp and
     "frame-ancestors 'none'" in csp, "/: a strict Content-Security-Policy (%s)" % csp)
html = body.decode()
scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", html, re.S)
t.ok(scripts and all('src="/ui/' in a and not s.strip() for a, s in scripts) and
     not re.search(r"\son[a-z]+=", html) and "http://" not in html and "https://" not in html,
     "/: scripts only from /ui/, none inline, no handler attribute, no external URL")
t.ok(all('href="%s"' % p in html for p in ["/metrics", "/records", "/formats", "/events",
                                           "/healthz"]),
     "/: the footer links /metrics, /records, /formats, /events, /healthz")
types = {p: exp.get(p)[1].get("Content-Type") for p in
         ["/ui/kprint.js", "/ui/formats.js", "/ui/kprint.css", "/ui/palette.css",
          "/ui/favicon.svg"]}
t.ok(types == {"/ui/kprint.js": "text/javascript; charset=utf-8",
               "/ui/formats.js": "text/javascript; charset=utf-8",
               "/ui/kprint.css": "text/css; charset=utf-8",
               "/ui/palette.css": "text/css; charset=utf-8",
               "/ui/favicon.svg": "image/svg+xml"}, "the page's files' Content-Types (%r)" % types)
etag = h.get("ETag", "")
st2, h2, body2 = exp.get("/", headers={"If-None-Match": etag})
t.ok(re.fullmatch(r'"[0-9a-f]{16}"', etag) and h.get("Cache-Control") == "no-cache" and
     st2 == 304 and not body2 and h2.get("ETag") == etag,
     "/: ETag %s, no-cache; If-None-Match gives 304 without a body" % etag)
t.ok(exp.get("/ui/nothing.js")[0] == 404 and exp.get("/?bogus=1")[0] == 400 and
     exp.get("/?color=err=purple")[0] == 400 and exp.get("/ui/palette.css?level=err")[0] == 400,
     "404 for a file it has not, 400 for a parameter the page does not take or a bad color")
css = exp.get("/ui/palette.css?color=err=0x1c&color=info=bold,bright-green")[2].decode()
t.ok(".lv-err .c, .lv-err.bar { color: #ff5555; background-color: #0000aa; }" in css and
     ".lv-warn .c, .lv-warn.bar { color: #ffff55; }" in css and
     ".lv-debug .c, .lv-debug.bar { color: #539bf5; font-weight: bold; }" in css and
     ".lv-info .c, .lv-info.bar { color: #6bc46d; font-weight: bold; }" in css,
     "the palette: VGA bytes in VGA colors (0x1c, 0x0e), words (--web.level-color and ?color=)")

b = Browser()
atexit.register(b.quit)
try:
    b.get("http://%s:%d/?color=err=0x0c" % (exp.host, exp.port))
    rows = b.until(lambda: len(b.d.find_elements(By.CSS_SELECTOR, ".row")) == len(recs) and
                   b.d.find_elements(By.CSS_SELECTOR, ".row"), 10)
    t.ok(rows, "the page shows the replay's %d records" % len(recs))

    def color(level):
        r = b.d.find_elements(By.CSS_SELECTOR, '.row[data-level="%s"] .txt' % level)
        return r[0].value_of_css_property("color") if r else None
    colors = {lv: color(lv) for lv in ("err", "warn", "crit")}
    t.ok(colors == {"err": "rgba(255, 85, 85, 1)", "warn": "rgba(255, 255, 85, 1)",
                    "crit": "rgba(244, 112, 103, 1)"},
         "levels in their colors, computed: ?color=err=0x0c, --web.level-color warn=0x0e,"
         " crit's default (%r)" % colors)
    evil = b.d.find_elements(By.CSS_SELECTOR, '.row[data-seq="9"] .txt')
    t.ok(evil and evil[0].text == "evil " + EVIL and b.js("return window.kpxPwned") is None and
         not b.js("return document.querySelectorAll('#tail script, #tail img').length"),
         "a record holding <script> and <img onerror> shows as text, nothing runs")
    nul = b.d.find_elements(By.CSS_SELECTOR, '.row[data-seq="10"] .txt')
    t.ok(nul and nul[0].text == "xxx\\x00yyy",
         "a NUL in a text shows as \\x00, like /dev/kmsg (%r)" % (nul and nul[0].text))
    t.ok(b.js("return document.getElementById('lang-label').hidden") is True,
         "no language selector: the exporter has no catalogs")

    # The detail, from the keyboard: TAB to the tail, Home, ENTER.
    row = b.tab_to(lambda el: "row" in (el.get_attribute("class") or "").split())
    if row:
        b.key(Keys.HOME)
        b.key(Keys.ENTER)
    fields = b.until(lambda: b.js(
        "return document.getElementById('detail').hidden ? null : Object.fromEntries("
        "[...document.querySelectorAll('#detail-fields dt')].map(d => [d.textContent,"
        " d.nextElementSibling.textContent]))"), 3)
    args = b.js("return [...document.querySelectorAll('#detail-args li')].map(l => l.textContent)")
    want = {k: (v if isinstance(v, str) else str(v)) for k, v in recs[0].items() if k != "args"}
    diff = {k: (want.get(k), (fields or {}).get(k)) for k in set(want) | set(fields or {})
            if want.get(k) != (fields or {}).get(k)}
    t.ok(row is not None and not diff and args == recs[0]["args"],
         "TAB, Home and ENTER show the first record's every field and its args (%r)" % diff)
    t.ok(b.active().get_attribute("id") == "detail-title", "the focus moves to the detail")
    b.key(Keys.ESCAPE)
    t.ok(b.js("return document.getElementById('detail').hidden") and
         "row" in (b.active().get_attribute("class") or ""),
         "ESCAPE closes it, the focus back on the row")
    b.key(Keys.SPACE)
    t.ok(b.until(lambda: not b.js("return document.getElementById('detail').hidden"), 3),
         "SPACE on a row shows it too")
    b.key(Keys.ESCAPE)

    # err+ from the keyboard, from the top of the page.
    level = b.level_from_top(4)
    shown = b.until(lambda: sorted(r.get_attribute("data-level") for r in
                                   b.d.find_elements(By.CSS_SELECTOR, ".row"))
                    == ["alert", "crit", "emerg", "err", "err"] and "level=err%2B" in b.d.current_url,
                    5)
    t.ok(level is not None and shown, "err+ with the keyboard: emerg, alert, crit, err only")
    b.key(Keys.TAB, Keys.TAB, Keys.TAB, Keys.TAB)       # source, subsystem, module, text
    t.ok(b.active().get_attribute("id") == "f-text", "TAB reaches the text filter")
    b.key("EVIL")
    vis = b.until(lambda: [r.get_attribute("data-seq") for r in
                           b.d.find_elements(By.CSS_SELECTOR, ".row") if r.is_displayed()]
                  == ["9"], 3)
    t.ok(vis and "text=EVIL" in b.d.current_url, "the text filter, case-insensitive, in the URL")
    b.key(Keys.TAB, Keys.TAB, Keys.ENTER)               # Apply, Clear
    t.ok(b.until(lambda: len(b.d.find_elements(By.CSS_SELECTOR, ".row")) == len(recs) and
                 b.d.current_url.endswith("/?color=err%3D0x0c"), 5),
         "Clear (ENTER) shows every record again, the colors kept (%s)" % b.d.current_url)
    errors = b.errors(allowed=[REPLAY_503])
    t.ok(not errors, "no console errors but /formats' documented 503 (%r)" % errors[:3])
    b.screenshot("page-replay.png")
finally:
    b.quit()
exp.stop()

# With a catalog: the selector, and the translated text.
exp = Exporter(path, "--catalog", po)
b = Browser()
try:
    b.get("http://%s:%d/" % (exp.host, exp.port))
    t.ok(b.until(lambda: not b.js("return document.getElementById('lang-label').hidden"), 5),
         "with --catalog de.po the language selector shows")
    b.js("const h = document.querySelector('h1'); h.tabIndex = -1; h.focus()")
    lang = b.tab_to(lambda el: el.get_attribute("id") == "f-lang")
    if lang:
        b.key(Keys.ARROW_DOWN)
    txt = b.until(lambda: [r.text for r in b.d.find_elements(By.CSS_SELECTOR, '.row[data-seq="4"] .txt')]
                  == ["Seite: Port 3 von err"] and "lang=de" in b.d.current_url, 5)
    t.ok(lang is not None and txt, "de chosen with the keyboard: the record's text in German")
    errors = b.errors(allowed=[REPLAY_503])
    t.ok(not errors, "no console errors but /formats' 503 (%r)" % errors[:3])
finally:
    b.quit()
    exp.stop()
print("# exporter-page: %.1f s" % (time.monotonic() - t0))
t.done()
