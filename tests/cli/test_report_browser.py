"""`kbench report` in a real browser: Debian's chromium, headless, driven by chromium-driver
through Selenium (all from scripts/install-deps). For the page of a results file, of a
comparison and of a history (test_report.history_store: 24 runs of a real results file stored
by `kbench history add`, with a regression and an improvement): no console errors; as many
table rows and chart points as cases (series, and runs per series); sorting by clicking a
header; filtering by typing; hovering a point shows its case (for a history, the run's date
and commit, and a change point's commit); with JavaScript off the table and charts are still
there; a screenshot that is not blank, kept in the build tree (report-artifacts/). A missing
browser fails the test: install-deps provides it.

Runs with the Python that has Selenium: Debian's python3-selenium is in /usr/bin/python3
(tests/CMakeLists.txt). Usage: python3 test_report_browser.py path/to/kbench"""

import base64
import os
import sys
import tempfile
from pathlib import Path

from harness import check, fail, finish, kbench
from test_report import HISTORY_RUNS, edited_run, history_store, slower

CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
ARTIFACTS = Path.cwd() / "report-artifacts"


def browser(javascript=True):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000",
                "--disable-dev-shm-usage"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    if not javascript:
        options.add_experimental_option(
            "prefs", {"profile.managed_default_content_settings.javascript": 2})
    return webdriver.Chrome(service=Service(DRIVER), options=options)


def visible(driver, selector):
    return [e for e in driver.find_elements("css selector", selector) if e.is_displayed()]


def distinct_colours(driver, png):
    """Colours in a grid of the screenshot's pixels, counted by the browser itself from a data
    URL (no image library needed)."""
    url = "data:image/png;base64," + base64.b64encode(png).decode()
    return driver.execute_async_script("""
        var done = arguments[1], img = new Image();
        img.onload = function () {
            var c = document.createElement('canvas');
            c.width = img.width; c.height = img.height;
            var g = c.getContext('2d'); g.drawImage(img, 0, 0);
            var d = g.getImageData(0, 0, c.width, c.height).data, seen = {};
            for (var y = 0; y < c.height; y += 7)
                for (var x = 0; x < c.width; x += 7) {
                    var i = 4 * (y * c.width + x);
                    seen[d[i] + ',' + d[i + 1] + ',' + d[i + 2]] = 1;
                }
            done(Object.keys(seen).length);
        };
        img.onerror = function () { done(0); };
        img.src = arguments[0];""", url)


def check_page(driver, path, table, charts, cases, label):
    from selenium.webdriver.common.action_chains import ActionChains

    driver.get("file://" + path)
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    check(not errors, f"{label}: console errors {errors}")
    rows = driver.find_elements("css selector", f"#{table} tbody tr")
    check(len(rows) == len(cases), f"{label}: {len(rows)} rows for {len(cases)} cases")
    points = [p for c in charts for p in driver.find_elements("css selector", f"#{c} circle.pt")]
    check(len(points) == len(cases), f"{label}: {len(points)} points for {len(cases)} cases")

    # Sorting: the median column (the third in the comparison: BASE median) by its values.
    column = 2 if table == "compare-cases" else 1
    header = driver.find_elements("css selector", f"#{table} thead th")[column]
    for order in ("ascending", "descending"):
        header.click()
        values = [float(r.find_elements("css selector", "td")[column].get_attribute("data-v"))
                  for r in driver.find_elements("css selector", f"#{table} tbody tr")]
        want = sorted(values, reverse=order == "descending")
        check(values == want and header.get_attribute("aria-sort") == order,
              f"{label}: not sorted {order}: {values[:5]}")

    # Filtering: the std cases alone, in the table and in the charts.
    box = driver.find_element("css selector", f"input[data-table='{table}']")
    box.send_keys("/STD/")
    std = [c for c in cases if "/std/" in c["name"]]
    shown = visible(driver, f"#{table} tbody tr")
    check(len(shown) == len(std) and all("/std/" in r.get_attribute("data-case") for r in shown),
          f"{label}: filter kept {len(shown)} rows for {len(std)} std cases")
    shown = [p for c in charts for p in visible(driver, f"#{c} circle.pt")]
    check(len(shown) == len(std), f"{label}: filter kept {len(shown)} points")
    box.clear()
    box.send_keys(" ")
    box.send_keys("\b")

    # Hover: the tooltip names the point's case.
    point = driver.find_elements("css selector", f"#{charts[0]} circle.pt")[-1]
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", point)
    ActionChains(driver).move_to_element(point).perform()
    tip = driver.find_element("id", "tip")
    name = point.get_attribute("data-case")
    check(tip.is_displayed() and tip.text.startswith(name),
          f"{label}: hover shows {tip.text[:80]!r}, expected {name!r}")

    screenshot(driver, label)


def screenshot(driver, label):
    ARTIFACTS.mkdir(exist_ok=True)
    png = driver.get_screenshot_as_png()
    (ARTIFACTS / f"{label}.png").write_bytes(png)
    colours = distinct_colours(driver, png)
    check(colours >= 8, f"{label}: screenshot has {colours} colours: blank?")


def hover_at(driver, element, x, y):
    """Moves the pointer to (x, y) in the element's own pixels, from its top left corner."""
    from selenium.webdriver.common.action_chains import ActionChains

    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    box = driver.execute_script("var b = arguments[0].getBoundingClientRect();"
                                "return [b.width, b.height];", element)
    ActionChains(driver).move_to_element_with_offset(
        element, int(round(x - box[0] / 2)), int(round(y - box[1] / 2))).perform()
    return driver.find_element("id", "tip")


def check_history_page(driver, path, changes, label):
    from selenium.webdriver.common.action_chains import ActionChains

    driver.get("file://" + path)
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    check(not errors, f"{label}: console errors {errors}")
    rows = driver.find_elements("css selector", "#history-series tbody tr")
    check(len(rows) == len(changes), f"{label}: {len(rows)} rows for {len(changes)} series")
    charts = driver.find_elements("css selector", "svg.hist")
    check(len(charts) == len(changes), f"{label}: {len(charts)} charts for {len(changes)} series")
    lengths = driver.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('svg.hist polyline.med'),"
        " function (l) { return l.points.numberOfItems; });")
    check(lengths == [HISTORY_RUNS] * len(changes), f"{label}: points per chart {lengths}")

    # Sorting by the last median, and back.
    header = driver.find_elements("css selector", "#history-series thead th")[3]
    for order in ("ascending", "descending"):
        header.click()
        values = [float(r.find_elements("css selector", "td")[3].get_attribute("data-v"))
                  for r in driver.find_elements("css selector", "#history-series tbody tr")]
        check(values == sorted(values, reverse=order == "descending"),
              f"{label}: not sorted {order}: {values[:5]}")

    # Filtering keeps the argmax series, rows and charts.
    box = driver.find_element("css selector", "input[data-table='history-series']")
    box.send_keys("/ARGMAX/")
    argmax = [n for n in changes if "/argmax/" in n]
    check(len(visible(driver, "#history-series tbody tr")) == len(argmax) and
          len(visible(driver, "svg.hist")) == len(argmax), f"{label}: filter /argmax/")
    box.clear()
    box.send_keys(" ")
    box.send_keys("\b")

    # The first chart is a regressed series; hovering its run 5 (index 4) names the run's date
    # and commit, and its change point mark the commit of the change.
    first = charts[0]
    name = first.get_attribute("data-case")
    check(changes.get(name) == (12, True), f"{label}: the first chart is {name!r}")
    ax = [float(v) for v in first.get_attribute("data-ax").split()]
    unit = float(first.get_attribute("data-u"))
    values = [float(v) * unit for v in first.get_attribute("data-v").split()]
    for i in (4, 12):
        y = ax[2] + (values[3 * i] - ax[4]) / (ax[5] - ax[4]) * (ax[3] - ax[2])
        tip = hover_at(driver, first, ax[0] + ax[1] * i, y)
        want = f"2026-01-{i + 1:02d}T03:00:00Z, commit h{i:02d}"
        check(tip.is_displayed() and tip.text.startswith(name) and want in tip.text,
              f"{label}: hover on run {i + 1} shows {tip.text!r}, expected {want!r}")
    mark = first.find_element("css selector", "g.cpt path")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", mark)
    ActionChains(driver).move_to_element(mark).perform()
    tip = driver.find_element("id", "tip")
    check(tip.is_displayed() and "regression +25.0% at h12" in tip.text,
          f"{label}: the change point's hover shows {tip.text!r}")
    driver.execute_script("document.getElementById('history').scrollIntoView()")
    screenshot(driver, label)


def check_without_javascript(driver, path, table, charts, cases, label):
    driver.get("file://" + path)
    check(not driver.find_elements("id", "tip"), f"{label}: the script ran")
    rows = visible(driver, f"#{table} tbody tr")
    check(len(rows) == len(cases), f"{label}: {len(rows)} rows without JavaScript")
    points = [p for c in charts for p in driver.find_elements("css selector", f"#{c} circle.pt")]
    check(len(points) == len(cases), f"{label}: {len(points)} points without JavaScript")


def check_history_without_javascript(driver, path, changes, label):
    driver.get("file://" + path)
    check(not driver.find_elements("id", "tip"), f"{label}: the script ran")
    rows = visible(driver, "#history-series tbody tr")
    check(len(rows) == len(changes), f"{label}: {len(rows)} rows without JavaScript")
    lengths = [len(line.get_attribute("points").split())
               for line in driver.find_elements("css selector", "svg.hist polyline.med")]
    check(lengths == [HISTORY_RUNS] * len(changes), f"{label}: points per chart {lengths}")
    marks = driver.find_elements("css selector", "svg.hist g.cpt")
    want = sum(1 for c in changes.values() if c)
    check(len(marks) == want, f"{label}: {len(marks)} change points, expected {want}")


def main():
    for program in (CHROMIUM, DRIVER):
        if not os.access(program, os.X_OK):
            return fail(f"{program} is missing: scripts/install-deps installs it")
    try:
        import selenium  # noqa: F401
    except ImportError:
        return fail(f"{sys.executable} has no selenium: scripts/install-deps installs "
                    "python3-selenium for /usr/bin/python3")
    with tempfile.TemporaryDirectory() as tmp:
        run_path, run = edited_run(tmp)
        new_path = slower(run, tmp)
        cases = run["cases"]
        pages = {"run": os.path.join(tmp, "run.html"), "compare": os.path.join(tmp, "cmp.html")}
        pages["history"] = os.path.join(tmp, "history.html")
        r1 = kbench("report", run_path, "-o", pages["run"])
        r2 = kbench("report", "--compare", run_path, new_path, "-o", pages["compare"])
        url, changes = history_store(tmp, run)
        r3 = kbench("report", "--db", url, "-o", pages["history"])
        if not check(r1.returncode == 0 and r2.returncode == 0 and r3.returncode == 0,
                     f"kbench report: {r1.stderr} {r2.stderr} {r3.stderr}"):
            return
        views = [("run", "r0-cases", ["r0-roofline", "r0-strip"]),
                 ("compare", "compare-cases", ["compare-chart"])]
        for javascript in (True, False):
            driver = browser(javascript)
            try:
                for label, table, charts in views:
                    if javascript:
                        check_page(driver, pages[label], table, charts, cases, label)
                    else:
                        check_without_javascript(driver, pages[label], table, charts, cases,
                                                 f"{label} without JavaScript")
                if javascript:
                    check_history_page(driver, pages["history"], changes, "history")
                else:
                    check_history_without_javascript(driver, pages["history"], changes,
                                                     "history without JavaScript")
            finally:
                driver.quit()


if __name__ == "__main__":
    main()
    sys.exit(finish("test_report_browser"))
