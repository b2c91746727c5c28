#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""kprint_exporter --catalog on a replay (no kernel needed): a German
catalog with reordered positional args gives text_translated in
/records?lang=de and /events?lang=de, an untranslated format its text,
every other byte as without lang=; an unknown lang is a 400 naming the
languages loaded; GET /catalogs and kprint_exporter_catalog_translations;
a mismatched catalog, one without Language: and a second file of one
language refused at start with FILE:LINE: reason and exit status 2;
SIGHUP with a bad catalog keeps the old set, with a good one takes it.

The same catalog through the CLI, on records of a real kernel:
tests/e2e/catalog.sh.
"""
import atexit
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kpxtest import Exporter, Tap, line, parse_metrics, promtool_check, record, run_replay, validate  # noqa: E402
from ssetest import Stream  # noqa: E402

DE = r'''# German messages of the exporter's catalog test.
msgid ""
msgstr ""
"Language: de\n"
"Content-Type: text/plain; charset=UTF-8\n"

#, c-format
msgid "catalog %s: port %d reset by %s\n"
msgstr "Katalog: %3$s setzte Port %2$d von "
"%1$s zurück\n"

#, c-format
msgid "catalog %s is 100%% full"
msgstr "Katalog %s ist zu 100%% voll"
'''
FR = r'''msgid ""
msgstr ""
"Language: fr\n"
"Content-Type: text/plain; charset=UTF-8\n"

msgid "catalog %s is 100%% full"
msgstr "catalogue %s plein à 100%%"
'''
# Line 9: msgstr shows argument 1 twice and argument 2 never.
BAD = DE.replace('"%1$s zurück\\n"', '"%1$s zurück %1$s\\n"')
NOLANG = DE.replace('"Language: de\\n"\n', '')

t = Tap()
work = tempfile.mkdtemp(prefix="kpx-catalog.")
atexit.register(shutil.rmtree, work, True)


def write(name, text):
    path = os.path.join(work, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


de, fr = write("de.po", DE), write("fr.po", FR)
recs = [record(1, "catalog %s: port %d reset by %s", level="warn", args=["usb1", "3", "hub"],
               text="catalog usb1: port 3 reset by hub"),
        record(2, "catalog %s is 100%% full", args=["sda"], text="catalog sda is 100% full"),
        record(3, "catalog untranslated %s", level="err", args=["\"q\""],
               text="catalog untranslated \"q\"")]
want_de = ["Katalog: hub setzte Port 3 von usb1 zurück", "Katalog sda ist zu 100% voll",
           "catalog untranslated \"q\""]
path = os.path.join(work, "r.jsonl")
with open(path, "wb") as f:
    for r in recs:
        f.write(line(r))

start = time.monotonic()
exp = Exporter(path, "--catalog", de, "--catalog", fr)
atexit.register(exp.stop)

# /records: the translation last, every other byte as without lang=.
status, _, plain = exp.get("/records")
status_de, _, body = exp.get("/records?lang=de")
got = json.loads(body) if status_de == 200 else []
t.ok(status == 200 and status_de == 200 and [r.get("text_translated") for r in got] == want_de,
     "/records?lang=de: reordered positional args, %%%% as %%, untranslated as its text (%r)" %
     [r.get("text_translated") for r in got])
t.ok(all(list(r)[-1] == "text_translated" for r in got), "text_translated is each record's last member")
stripped = re.sub(rb',"text_translated":"(?:[^"\\]|\\.)*"}', b"}", body)
t.ok(stripped == plain, "without text_translated, /records?lang=de is byte for byte /records")
ok, why = validate(body)
t.ok(ok, "/records?lang=de passes schema/record.schema.json: " + why)
fr_got = json.loads(exp.get("/records?lang=fr&limit=1&after=1")[2])
t.ok([r.get("text_translated") for r in fr_got] == ["catalogue sda plein à 100%"],
     "lang=fr with the other filters: the French catalog (%r)" % fr_got)

# /events: the same records, the same bytes.
s = Stream(exp.host, exp.port, "/events?lang=de&after=00000000-0")
evs = [s.next_event(5) for _ in range(1 + len(recs))]
s.close()
t.ok([e["data"] for e in evs[1:]] == got,
     "/events?lang=de: each record's data as /records?lang=de has it")

# Unknown languages and bad values: 400 naming what there is.
for query, says in (("/records?lang=it", "loaded: de, fr"), ("/records?lang=", "loaded: de, fr"),
                    ("/records?lang=de%00x", "NUL")):
    status, _, body = exp.get(query)
    err = json.loads(body) if body.startswith(b"{") else {}
    t.ok(status == 400 and err.get("parameter") == "lang" and says in err.get("error", ""),
         "%s: 400 naming lang, saying %r (%s %r)" % (query, says, status, err))
s = Stream(exp.host, exp.port, "/events?lang=it")
s.close()
t.ok(s.status == 400 and b"de, fr" in s.body, "/events?lang=it: 400 too (%s)" % s.status)

status, headers, body = exp.get("/catalogs")
t.ok(status == 200 and headers.get("Content-Type") == "application/json" and
     json.loads(body) == [{"language": "de", "translations": 2}, {"language": "fr", "translations": 1}],
     "GET /catalogs: the languages and their translations (%s %r)" % (status, body))
status, _, body = exp.get("/catalogs?x=1")
t.ok(status == 400, "/catalogs takes no parameters (%s)" % status)
m = {(n, tuple(lb)): v for n, lb, v in parse_metrics(exp.get("/metrics")[2].decode())}
t.ok(m.get(("kprint_exporter_catalog_translations", (("language", "de"),))) == 2 and
     m.get(("kprint_exporter_catalog_translations", (("language", "fr"),))) == 1,
     "kprint_exporter_catalog_translations{language}: 2 and 1")
ok, why = promtool_check(exp.get("/metrics")[2])
t.ok(ok, "promtool check metrics: " + why)


# SIGHUP with a refused catalog: the old set serves on.
n = len(exp.stderr)
write("de.po", BAD)
exp.proc.send_signal(signal.SIGHUP)
t.ok(exp.wait_log("catalogs refused, the old ones stay", n) and
     any("de.po:9: " in ln for ln in exp.stderr[n:]),
     "SIGHUP with a bad de.po: refused with de.po:9, the old catalogs stay")
got = json.loads(exp.get("/records?lang=de&limit=1")[2])
t.ok(exp.alive() and got and got[0]["text_translated"] == want_de[2] and
     json.loads(exp.get("/records?lang=de&limit=2")[2])[0]["text_translated"] == want_de[1],
     "and /records?lang=de still translates with the old one")

# SIGHUP with a good one: taken.
n = len(exp.stderr)
write("de.po", DE.replace("ist zu 100%% voll", "ist voll (100%%)"))
exp.proc.send_signal(signal.SIGHUP)
t.ok(exp.wait_log("SIGHUP: serving 2 catalogs", n), "SIGHUP with good files: serving 2 catalogs")
got = json.loads(exp.get("/records?lang=de&limit=2")[2])
t.ok(got and got[0]["text_translated"] == "Katalog sda ist voll (100%)",
     "/records?lang=de translates with the new de.po (%r)" % (got and got[0]["text_translated"]))
rc = exp.stop()
t.ok(rc == 0, "SIGTERM: exit status %s" % rc)

# Refused at start: FILE:LINE: reason, exit status 2.
bad, nolang = write("bad.po", BAD), write("nolang.po", NOLANG)
for args, want in ((["--catalog", bad], r"--catalog %s:9: msgstr .*argument 1 twice" % re.escape(bad)),
                   (["--catalog", nolang], r"--catalog %s:3: no Language: in the header" % re.escape(nolang)),
                   (["--catalog", de, "--catalog", write("de2.po", DE)],
                    r"--catalog %s:3: language de again, already from %s" %
                    (re.escape(os.path.join(work, "de2.po")), re.escape(de))),
                   (["--catalog", os.path.join(work, "none.po")], r"none\.po.*No such file")):
    rc, err = run_replay(path, *args)
    t.ok(rc == 2 and re.search(want, err),
         "%s: exit status 2 and FILE:LINE: reason (%s %r)" % (os.path.basename(args[-1]), rc, err.strip()))

# No catalogs: lang= says so.
plain_exp = Exporter(path)
atexit.register(plain_exp.stop)
status, _, body = plain_exp.get("/records?lang=de")
t.ok(status == 400 and b"no catalogs are loaded" in body and
     plain_exp.get("/catalogs")[2] == b"[]",
     "without --catalog: lang= is a 400 saying so, /catalogs is [] (%s)" % status)
plain_exp.stop()
print("# %.1f s" % (time.monotonic() - start))
t.done()
