#!/usr/bin/env python3
"""The web app's pages at real sizes (issue #36 §3): 10,000 todos, 100,000 places, Debian's
fortunes and a few business models in one store folder; the web app (`suite-web`) on it; every GET page
measured with wrk (one connection, one thread, on loopback) for its HTML size and server time,
for each server binary given (before and now), side by side, against the budget: ≤ 100 KB of HTML
and p95 ≤ 50 ms.

    web_pages.py --suite SUITE --server NAME=SUITE-WEB [--server NAME=…] [--seconds 5]
                 [--store DIR] [--output FILE] [--earlier NAME=REPORT:COLUMN]

`--earlier` puts a column of an earlier report (this script's output) first in the table, as it
was measured then, under NAME: a binary that is no longer at hand stays in the comparison, and
the report says where its figures come from.

The store is made once (with SUITE, in DIR when given and not yet made there) and copied for each
server, so every server sees the same data; a server that changes the store (none should, on GET)
does not change what the next one sees.
"""
import argparse, json, os, random, re, shutil, sqlite3, subprocess, sys, tempfile, time, urllib.request

CENTER = (52.5200, 13.4050)
USER = "bench"
BUDGET_BYTES = 100 * 1024
BUDGET_P95_MS = 50.0
WORDS = ["milk", "stamps", "keys", "receipt", "parcel", "gift", "cash", "form", "charger", "book", "ticket", "glue"]


def say(text):
    print(text, file=sys.stderr, flush=True)


def suite(binary, store, *rest, check=True):
    result = subprocess.run([binary, *rest, "--store-dir", store],
                            capture_output=True, text=True, env=dict(os.environ, USER=USER, LOGNAME=USER, NO_COLOR="1"))
    if check and result.returncode != 0:
        raise SystemExit(f"suite {' '.join(rest)} failed ({result.returncode}): {result.stderr.strip()}")
    return result.stdout


def make_store(binary, store, work):
    """The data set: deterministic (fixed seeds), made with the `suite` command."""
    os.makedirs(store, exist_ok=True)
    r = random.Random(36)
    started = time.time()
    # Quotes: Debian's whole `fortunes` package (offensive ones are in another package).
    say("data set: quotes (Debian fortunes)")
    suite(binary, store, "quotes", "import", "--format", "fortune", "/usr/share/games/fortunes", "--user", USER)
    count = int(subprocess.run(["sqlite3", os.path.join(store, "quotes.sqlite"), "SELECT count(*) FROM quote"],
                               capture_output=True, text=True, check=True).stdout.strip() or 0)
    for quote in r.sample(range(1, count + 1), 40):
        suite(binary, store, "quotes", "fav", str(quote), "--user", USER)
    suite(binary, store, "quotes", "schedule", "set", "3 between 09:00-21:00", "--user", USER, "--tz", "UTC")
    # A year of deliveries, three a day (what `suite quotes tick` records), written directly.
    database = sqlite3.connect(os.path.join(store, "quotes.sqlite"))
    day = 86_400_000
    start = int(time.time() * 1000) // day * day - 365 * day
    # From the shuffle bag: no quote twice in a year.
    picks = iter(r.sample(range(1, count + 1), 365 * 3))
    rows = [(USER, start + d * day + h * 3_600_000, next(picks), start + d * day + h * 3_600_000, "notify-send")
            for d in range(365) for h in (9, 15, 21)]
    database.executemany("INSERT OR IGNORE INTO delivery (user, slot_ms, quote_id, delivered_ms, channel) VALUES (?, ?, ?, ?, ?)", rows)
    database.commit()
    database.close()

    # Todos: 10,000 over 100 events, a third with a deadline, a tenth done; then 150 bundles
    # checked in, worked through and completed, and 3 left open.
    say("data set: 10,000 todos, 150 bundles")
    preps = ["before", "after", "when", "none"]
    path = os.path.join(work, "todo.txt")
    with open(path, "w") as f:
        for i in range(10_000):
            done = "x 2026-11-20 " if i % 10 == 9 else ""
            due = f" due:2026-{12 + (i % 3) // 3:02d}-{1 + i % 28:02d}" if i % 3 == 0 else ""
            f.write(f"{done}2026-11-{1 + i % 20:02d} Errand number {i} {r.choice(WORDS)} @event-{i % 100} prep:{preps[i % 4]}{due}\n")
    suite(binary, store, "bundle", "import", path)
    made, k = 0, -1
    while made < 153:
        k += 1
        event, direction = f"event {k % 100}", "--just-finished" if k % 4 == 1 else "--about-to"
        offered = re.findall(r"#(\d+)", suite(binary, store, "bundle", "checkin", event, direction))[:5]
        if not offered:
            continue
        made += 1
        answer = json.loads(suite(binary, store, "bundle", "checkin", event, direction, "--pick", ",".join(offered),
                                  "--title", f"Run {k}", "--json"))
        if made > 150:
            continue
        bundle = answer.get("bundle", answer)
        items = [item.get("todo", item) for item in bundle.get("items", [])]
        for item in items[:-1]:
            suite(binary, store, "bundle", "done", str(item["id"]))
        if items:
            suite(binary, store, "bundle", "throwback", str(items[-1]["id"]))
        suite(binary, store, "bundle", "complete")

    # Places: 100,000 around the stored location, 300 of them rated.
    say("data set: 100,000 places")
    path = os.path.join(work, "places.geojson")
    types = ["coffee-shop", "library", "coworking", "bar", "restaurant", "other"]
    with open(path, "w") as f:
        f.write('{"type": "FeatureCollection", "features": [\n')
        for i in range(100_000):
            lat, lon = CENTER[0] + r.gauss(0, 0.08), CENTER[1] + r.gauss(0, 0.12)
            f.write(('' if i == 0 else ',\n') + '{"type": "Feature", "geometry": {"type": "Point", "coordinates": [%.6f, %.6f]}, '
                    '"properties": {"name": "Place %d", "type": "%s", "origin": "osm", "provider_id": "node/%d", "opening_hours": "Mo-Fr 08:00-18:00"}}'
                    % (lon, lat, i, types[i % 6], i))
        f.write("\n]}\n")
    suite(binary, store, "places", "import", path)
    suite(binary, store, "places", "location", "set", f"{CENTER[0]},{CENTER[1]}")
    near = json.loads(suite(binary, store, "places", "near", "--radius", "2km", "--limit", "300", "--json"))
    near = near.get("places", near) if isinstance(near, dict) else near
    ids = [entry.get("place", entry)["id"] for entry in near]
    for n, place in enumerate(ids[::2][:150] + r.sample(range(1, 100_001), 150)):
        suite(binary, store, "places", "rate", str(place), "--noise", str(n % 6), "--wifi", str((n * 7) % 6), "--outlets", str((n * 3) % 6))

    # Business models: three, the current one with every section written, three versions each.
    say("data set: business models")
    for name in ("Acme Bakery", "Night Owl Books", "Bike Courier Co"):
        suite(binary, store, "bmm", "add", name)
    sections = re.findall(r"^\[[✓!]\]\s+\d+\.\s+(\S+)", suite(binary, store, "bmm", "sections"), re.M)
    for section in sections:
        for version in range(3):
            suite(binary, store, "bmm", "set", section, "--text",
                  f"Version {version} of {section}. " + " ".join(r.choice(WORDS) for _ in range(120)))
    say(f"data set made in {time.time() - started:.0f} s")


def pages(store):
    """Every GET page of the web app (from the routers), with representative ids."""
    quotes = sqlite3.connect(os.path.join(store, "quotes.sqlite"))
    category = quotes.execute("SELECT name FROM category ORDER BY name LIMIT 1 OFFSET 3").fetchone()
    category = category[0] if category else "fortunes"
    biggest = quotes.execute("SELECT c.name FROM category c JOIN quote_category qc ON qc.category_id = c.id GROUP BY c.id ORDER BY count(*) DESC LIMIT 1").fetchone()
    biggest = biggest[0] if biggest else category
    bundles = sqlite3.connect(os.path.join(store, "bundle.sqlite"))
    open_bundle = bundles.execute("SELECT id FROM bundle WHERE status = 'open' ORDER BY id LIMIT 1").fetchone()
    done_bundle = bundles.execute("SELECT id FROM bundle WHERE status = 'completed' ORDER BY id LIMIT 1").fetchone()
    places = sqlite3.connect(os.path.join(store, "places.sqlite"))
    rated = places.execute("SELECT place_id FROM rating ORDER BY place_id LIMIT 1").fetchone()
    return [
        "/", "/bmm", "/bmm/goto", "/bmm/about", "/bmm/section/value-proposition", "/bmm/section/value-proposition/history",
        "/bmm/share", "/bmm/print",
        "/quotes", "/quotes/random", "/quotes/quote/7016", "/quotes/favorites", "/quotes/categories",
        f"/quotes/browse?category={urllib.parse.quote(biggest)}", "/quotes/browse", "/quotes/search?q=love",
        "/quotes/search?q=a*", "/quotes/history", "/quotes/schedule",
        "/bundle", "/bundle/checkin", "/bundle/checkin?event=event%207&direction=about-to",
        f"/bundle/bundles/{open_bundle[0] if open_bundle else 1}", f"/bundle/bundles/{done_bundle[0] if done_bundle else 1}",
        "/bundle/review", "/bundle/review?event=event%207", "/bundle/all",
        "/places", "/places?radius=50000", "/places/add", f"/places/place/{rated[0] if rated else 1}",
    ]


def serve(server, store, log):
    """The web app on `store`: `suite-web`, or `suite-server ui` from before it had its own
    package; its URL (with the token)."""
    command = [server, "ui"] if os.path.basename(server).startswith("suite-server") else [server]
    process = subprocess.Popen([*command, "--store-dir", store, "--listen", "127.0.0.1:0"],
                               stdout=subprocess.PIPE, stderr=log, text=True, env=dict(os.environ, USER=USER, LOGNAME=USER))
    deadline = time.time() + 60
    while time.time() < deadline:
        line = process.stdout.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+)/\?token=([0-9a-f]+)", line)
        if match:
            return process, match.group(1), match.group(2)
        if not line and process.poll() is not None:
            break
    process.kill()
    raise SystemExit(f"{server} did not print its URL")


def fetch(url, token):
    request = urllib.request.Request(url, headers={"Cookie": f"suite_ui={token}"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        return answer.status, answer.read()


def p95(url, token, seconds):
    """wrk's --latency prints 50/75/90/99; the 95th percentile comes from its Lua summary."""
    script = os.path.join(tempfile.gettempdir(), "suite-web-pages-p95.lua")
    with open(script, "w") as f:
        f.write('done = function(summary, latency, requests)\n'
                '  io.write(string.format("P50 %d\\nP95 %d\\nN %d\\nERR %d\\n", latency:percentile(50), latency:percentile(95),'
                ' summary.requests, summary.errors.status))\nend\n')
    output = subprocess.run(["wrk", "-t1", "-c1", f"-d{seconds}s", "-s", script, "-H", f"Cookie: suite_ui={token}", url],
                            capture_output=True, text=True, check=True).stdout
    values = dict(re.findall(r"^(P50|P95|N|ERR) (\d+)$", output, re.M))
    return int(values["P50"]) / 1000, int(values["P95"]) / 1000, int(values["N"]), int(values["ERR"])


def measure(server, store, seconds, work):
    copy = os.path.join(work, "store-" + str(abs(hash(server))))
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(store, copy)
    figures = {}
    with open(os.path.join(work, "server.log"), "a") as log:
        process, base, token = serve(server, copy, log)
        try:
            for page in pages(copy):
                try:
                    status, body = fetch(base + page, token)
                except Exception as error:   # the server failed (or crashed) on this page
                    figures[page] = {"failed": str(error)}
                    say(f"  {page}: failed ({error})")
                    if process.poll() is not None:
                        process, base, token = serve(server, copy, log)
                    continue
                p50, p95ms, count, errors = p95(base + page, token, seconds)
                figures[page] = {"status": status, "bytes": len(body), "p50": p50, "p95": p95ms, "requests": count, "errors": errors}
                say(f"  {page}: {len(body):,} bytes, p50 {p50:.1f} ms, p95 {p95ms:.1f} ms ({count} requests)")
            return figures
        finally:
            process.terminate()
            process.wait(timeout=30)


def read_earlier(path, column):
    """The KB, p50 and p95 cells of `column` in an earlier report's table, by page."""
    figures, index = {}, None
    for line in open(path):
        if not line.startswith("|"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if cells[0] == "page":
            if f"{column} KB" not in cells:
                raise SystemExit(f"{path} has no column '{column}'")
            index = cells.index(f"{column} KB")
        elif index is not None and cells[0].startswith("`"):
            figures[cells[0].strip("`")] = {"cells": " | ".join(cells[index:index + 3])}
    if not figures:
        raise SystemExit(f"{path} has no column '{column}'")
    return figures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--suite", required=True)
    parser.add_argument("--server", action="append", required=True, help="NAME=PATH, e.g. before=/tmp/suite-server-ae3c9a5")
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--store")
    parser.add_argument("--output")
    parser.add_argument("--note", action="append", default=[])
    parser.add_argument("--earlier", action="append", default=[], help="NAME=REPORT:COLUMN, a column of an earlier report")
    arguments = parser.parse_args()
    work = tempfile.mkdtemp(prefix="suite-web-pages-")
    store = arguments.store or os.path.join(work, "store")
    if not os.path.exists(os.path.join(store, "places.sqlite")):
        make_store(arguments.suite, store, work)
    servers = [entry.split("=", 1) for entry in arguments.server]
    results = {}
    # Earlier columns are read before anything is measured: a mistake in them ends the run at once.
    earlier = []
    for entry in arguments.earlier:
        if "=" not in entry or ":" not in entry.split("=", 1)[1]:
            raise SystemExit(f"--earlier {entry}: expected NAME=REPORT:COLUMN")
        name, rest = entry.split("=", 1)
        report_path, column = rest.rsplit(":", 1)
        earlier.append((name, report_path, column))
        results[name] = read_earlier(report_path, column)
    every_name = [name for name, _, _ in earlier] + [name for name, _ in servers]
    if len(set(every_name)) != len(every_name):
        raise SystemExit("every --earlier and --server needs a name of its own")
    for name, path in servers:
        say(f"measuring {name}: {path}")
        results[name] = measure(path, store, arguments.seconds, work)
    shutil.rmtree(work, ignore_errors=True)

    names = [name for name, _, _ in earlier] + [name for name, _ in servers]
    header = "| page | " + " | ".join(f"{n} KB | {n} p50 ms | {n} p95 ms" for n in names) + " | budget met (" + names[-1] + ") |"
    lines = [header, "|---|" + "---|---|---|" * len(names) + "---|"]
    every = True
    for page in results[names[-1]]:
        cells = []
        for name in names:
            figure = results[name].get(page)
            if figure is None or "failed" in figure:
                cells.append(("– | – | –") if figure is None else "failed | – | –")
                continue
            if "cells" in figure:
                cells.append(figure["cells"])
                continue
            status = "" if figure["status"] == 200 else f" ({figure['status']})"
            cells.append(f"{figure['bytes'] / 1024:,.1f}{status} | {figure['p50']:.1f} | {figure['p95']:.1f}")
        last = results[names[-1]][page]
        met = "failed" not in last and last["status"] == 200 and last["bytes"] <= BUDGET_BYTES and last["p95"] <= BUDGET_P95_MS
        every = every and met
        lines.append(f"| `{page}` | " + " | ".join(cells) + f" | {'yes' if met else 'NO'} |")
    table = "\n".join(lines)
    report = "\n".join([
        "# Web pages at real sizes (issue #36 §3)", "",
        f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
        f"- machine: {os.cpu_count()} cores",
        "- data: 10,000 todos over 100 events (a tenth done, a third with a deadline), 153 bundles (150 completed);"
        " 100,000 places around the stored location, 300 rated; Debian's fortunes; 1,095 quote deliveries; 3 business models",
        f"- budget: ≤ {BUDGET_BYTES // 1024} KB of HTML and p95 ≤ {BUDGET_P95_MS:.0f} ms;"
        f" wrk -t1 -c1 -d{arguments.seconds}s over loopback per page (server time plus loopback), release builds",
        *[f"- {name}: the column '{column}' of `{path}`, as measured then" for name, path, column in earlier],
        *[f"- {name}: `{path}`" for name, path in servers],
        *[f"- {note}" for note in arguments.note], "",
        table, "",
        f"Every page within budget ({names[-1]}): {'yes' if every else 'NO'}", ""])
    print(report)
    if arguments.output:
        with open(arguments.output, "w") as f:
            f.write(report)
    return 0 if every else 1


if __name__ == "__main__":
    import urllib.parse
    sys.exit(main())
