# SPDX-License-Identifier: GPL-2.0
"""What the tests of kprint_exporter's page share (exporter-page.py on a
replay, page-live.py through a guest): headless Chromium driven by
Selenium (Debian's chromium, chromium-driver and python3-selenium), the
browser's console, keys, and the screenshot under .output/.

Every wait has a deadline (Browser.until); nothing sleeps to let
something happen.
"""
import os
import shutil
import tempfile
import time

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"

__all__ = ["Browser", "By", "Keys", "REPO"]


class Browser:
    def __init__(self, width=1400, height=1000):
        self.profile = tempfile.mkdtemp(prefix="kpx-chromium.")
        opts = webdriver.ChromeOptions()
        opts.binary_location = CHROMIUM
        for a in ["--headless=new", "--disable-gpu", "--disable-dev-shm-usage",
                  # The CI runs as root, where Chromium refuses to start with
                  # its sandbox (it needs user namespaces it will not use as
                  # root); the page comes from our own exporter on loopback.
                  "--no-sandbox",
                  f"--user-data-dir={self.profile}", f"--window-size={width},{height}",
                  # Nothing but the exporter: no updates, sync or phoning home,
                  # which would also cost time on a loaded machine.
                  "--no-first-run", "--disable-background-networking", "--disable-sync",
                  "--disable-component-update", "--disable-default-apps",
                  "--disable-extensions", "--metrics-recording-only", "--mute-audio"]:
            opts.add_argument(a)
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        # The driver named, so Selenium does not go looking for one online.
        self.d = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
        self.d.set_page_load_timeout(30)
        self.logs = []

    def quit(self):
        try:
            self.d.quit()
        except WebDriverException:
            pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def get(self, url):
        self.d.get(url)

    def js(self, script, *args):
        return self.d.execute_script(script, *args)

    def until(self, what, timeout=5.0, step=0.05):
        """what() until it is truthy, for at most timeout s: its last value."""
        end = time.monotonic() + timeout
        while True:
            v = what()
            if v or time.monotonic() >= end:
                return v
            time.sleep(step)

    def console(self):
        """The console's messages since the last call (level, message)."""
        got = [(e["level"], e["message"]) for e in self.d.get_log("browser")]
        self.logs += got
        return got

    def errors(self, allowed=()):
        """Console errors so far, but those containing one of allowed."""
        self.console()
        return [m for lv, m in self.logs
                if lv == "SEVERE" and not any(a in m for a in allowed)]

    def active(self):
        return self.d.switch_to.active_element

    def key(self, *keys):
        """Keys to whatever has the focus, as a person would type them."""
        self.active().send_keys(*keys)

    def tab_to(self, test, limit=60):
        """TAB until test(active element) holds; the element, or None."""
        for _ in range(limit):
            self.key(Keys.TAB)
            el = self.active()
            if test(el):
                return el
        return None

    def level_from_top(self, steps):
        """From the top of the page (the heading takes the focus, not a
        control), TAB to the level filter and press DOWN steps times (4:
        any, emerg, alert+, crit+, err+); the select, or None."""
        self.js("const h = document.querySelector('h1'); h.tabIndex = -1; h.focus()")
        level = self.tab_to(lambda el: el.get_attribute("id") == "f-level")
        if level:
            for _ in range(steps):
                self.key(Keys.ARROW_DOWN)
        return level

    def screenshot(self, name):
        out = os.path.join(REPO, ".output", name)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        self.d.save_screenshot(out)
        return out
