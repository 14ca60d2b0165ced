#!/usr/bin/env python3
"""Benchmarks for suite: whole processes timed with hyperfine, each comparison run in both
orders and merged (so neither side always runs first), deterministic data, a Markdown report."""
import argparse, datetime, json, os, platform, random, re, shutil, statistics, subprocess, sys, tempfile, time

parser = argparse.ArgumentParser()
parser.add_argument("--binary", required=True)
parser.add_argument("--dynamic")
parser.add_argument("--quick", action="store_true")
parser.add_argument("--only", help="comma-separated sections to run: startup, quotes, places, bundles, growth, memory (default: all)")
parser.add_argument("--memory-sizes", help="record counts for the import/export memory table (default 100000,1000000; quick 1000,5000)")
args = parser.parse_args()
SECTIONS = {"startup", "quotes", "places", "bundles", "growth", "memory"}
ONLY = set(args.only.split(",")) if args.only else SECTIONS
assert ONLY <= SECTIONS, f"unknown sections: {ONLY - SECTIONS}"
MEMORY_SIZES = [int(n) for n in (args.memory_sizes or ("1000,5000" if args.quick else "100000,1000000")).split(",")]
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
binary = os.path.abspath(args.binary)
quick = args.quick
work = tempfile.mkdtemp(prefix="suite-bench-")
rows, growth, notes = [], [], []
RUNS, WARMUP = (3, 1) if quick else (30, 5)
SIZES = dict(places=2_000, quotes=2_000, todos=1_000, events=20, tasks=500) if quick else \
        dict(places=1_000_000, quotes=1_000_000, todos=100_000, events=1_000, tasks=10_000)
GROWTH = [100, 1_000] if quick else [1_000, 10_000, 100_000, 1_000_000]
CENTER = (48.8566, 2.3522)

def say(text):
    print(text, flush=True)

def suite(store, *rest):
    return [binary, *rest, "--store-dir", store]

def run(command, stdin=None, check=True):
    with open(stdin, "rb") if stdin else open(os.devnull, "rb") as source:
        result = subprocess.run(command, stdin=source, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if check and result.returncode != 0:
        sys.exit(f"benchmark step failed: {' '.join(command)}\n{result.stderr.decode()[-2000:]}")
    return result

def timed(command, stdin=None):
    """Wall time and peak memory (kB) of one run, through /usr/bin/time -v."""
    start = time.perf_counter()
    result = run(["/usr/bin/time", "-v", *command], stdin=stdin)
    seconds = time.perf_counter() - start
    peak = int(re.search(rb"Maximum resident set size \(kbytes\): (\d+)", result.stderr).group(1))
    return seconds, peak

def hyperfine(commands, ignore_failure=False):
    """Median and spread (interquartile range) in ms per named command, both orders merged."""
    times = {name: [] for name in commands}
    names = list(commands)
    for order in (names, names[::-1]):
        out = os.path.join(work, "hyperfine.json")
        command = ["hyperfine", "-N", "--warmup", str(WARMUP), "--runs", str(RUNS), "--export-json", out, "--style", "none"]
        if ignore_failure:
            command.append("-i")
        for name in order:
            command += ["-n", name, " ".join(shell_quote(part) for part in commands[name])]
        run(command)
        for result in json.load(open(out))["results"]:
            times[result["command"]] += result["times"]
    summary = {}
    for name, values in times.items():
        values = sorted(v * 1000 for v in values)
        q = statistics.quantiles(values, n=4) if len(values) >= 4 else [values[0], statistics.median(values), values[-1]]
        summary[name] = (statistics.median(values), q[2] - q[0])
    return summary

def shell_quote(part):
    return part if re.fullmatch(r"[A-Za-z0-9_./:=,+-]+", part) else "'" + part.replace("'", "'\\''") + "'"

def compare(label, ours, theirs, target=None):
    """Adds a row: suite's time, the other tool's, and how many times faster suite is."""
    (ours_name, ours_cmd), (their_name, their_cmd) = ours, theirs
    result = hyperfine({ours_name: ours_cmd, their_name: their_cmd}, ignore_failure=True)
    mine, other = result[ours_name], result[their_name]
    rows.append((label, ours_name, mine, their_name, other, other[0] / mine[0], target))
    say(f"{label}: {ours_name} {mine[0]:.1f} ms, {their_name} {other[0]:.1f} ms, ratio {other[0] / mine[0]:.2f}")

def single(label, name, command, target=None):
    result = hyperfine({name: command}, ignore_failure=True)[name]
    rows.append((label, name, result, None, None, None, target))
    say(f"{label}: {name} {result[0]:.1f} ms")

# --- data -----------------------------------------------------------------------------------
rng = random.Random(20261121)
WORDS = ("love time work life mind heart world light truth dream hope fear power change day night friend "
         "art fire water stone road river man woman child war peace money wisdom patience courage silence "
         "imagination knowledge nature music home journey future memory morning evening").split()

# Word frequencies in real text follow Zipf's law; a uniform draw from a few dozen words would
# make every word a stop word. 5,000 words, Zipf weights, with real words at typical ranks
# ("the" first, "love" about 150th, "imagination" about 2,000th).
VOCABULARY = [f"w{n}" for n in range(5000)]
for rank, word in [(0, "the"), (3, "and"), (40, "time"), (60, "life"), (150, "love"), (400, "truth"), (2000, "imagination")]:
    VOCABULARY[rank] = word
ZIPF = [1 / (n + 1) for n in range(len(VOCABULARY))]
running = 0.0
CUMULATIVE = []
for weight in ZIPF:
    running += weight
    CUMULATIVE.append(running)

def quotes_csv(path, count, seed):
    r = random.Random(seed)
    with open(path, "w") as f:
        for i in range(count):
            words = " ".join(r.choices(VOCABULARY, cum_weights=CUMULATIVE, k=r.randint(6, 18)))
            f.write(f"\"{words.capitalize()} (number {i}).\",Author {r.randint(1, max(2, count // 20))},topic{r.randint(1, 40)}\n")

def places_geojson(path, count, seed):
    r = random.Random(seed)
    types = ["coffee-shop", "library", "coworking", "bar", "restaurant", "other"]
    with open(path, "w") as f:
        f.write('{"type": "FeatureCollection", "features": [\n')
        for i in range(count):
            lat = CENTER[0] + r.gauss(0, 0.08)
            lon = CENTER[1] + r.gauss(0, 0.12)
            f.write(('' if i == 0 else ',\n') + '{"type": "Feature", "geometry": {"type": "Point", "coordinates": [%.6f, %.6f]}, '
                    '"properties": {"name": "Place %d", "type": "%s", "origin": "osm", "provider_id": "node/%d", "opening_hours": "Mo-Fr 08:00-18:00"}}'
                    % (lon, lat, i, types[i % 6], i))
        f.write("\n]}\n")

def todos_txt(path, count, events, seed):
    r = random.Random(seed)
    preps = ["before", "after", "when", "none"]
    with open(path, "w") as f:
        for i in range(count):
            f.write(f"2026-11-{1 + i % 20:02d} Errand number {i} {r.choice(WORDS)} @event-{i % events} prep:{preps[i % 4]}\n")

def tasks_json(path, count, seed, lines=False, due=False):
    """`task export`'s array, or with `lines` one task object a line; with `due`, a third of the
    tasks are due on one of sixty days."""
    r = random.Random(seed)
    with open(path, "w") as f:
        f.write("" if lines else "[\n")
        for i in range(count):
            uuid = "%08x-%04x-4%03x-8%03x-%012x" % (r.getrandbits(32), r.getrandbits(16), r.getrandbits(12), r.getrandbits(12), r.getrandbits(48))
            task = {"uuid": uuid, "description": f"Task number {i} {r.choice(WORDS)}", "status": "pending",
                    "entry": "20261101T080000Z", "modified": "20261101T080000Z", "project": f"p{i % 30}"}
            if due and i % 3 == 0:
                day = datetime.date(2026, 11, 1) + datetime.timedelta(days=r.randrange(60))
                task["due"] = day.strftime("%Y%m%dT120000Z")
            f.write(('' if i == 0 else ('\n' if lines else ',\n')) + json.dumps(task))
        f.write("\n" if lines else "\n]\n")

# --- start-up -----------------------------------------------------------------------------
say(f"suite benchmarks ({'quick' if quick else 'full'}) in {work}")
at = f"{CENTER[0]},{CENTER[1]}"
if "startup" in ONLY:
    compare("start-up", ("suite --version", [binary, "--version"]), ("/bin/true", ["/bin/true"]))
    if args.dynamic:
        compare("start-up, static vs dynamic Swift runtime", ("suite (static) --version", [binary, "--version"]),
                ("suite (dynamic) --version", [os.path.abspath(args.dynamic), "--version"]))

# --- quotes ---------------------------------------------------------------------------------
if "quotes" in ONLY:
    fortunes = "/usr/share/games/fortunes"
    fstore = os.path.join(work, "fortunes-store")
    seconds, peak = timed(suite(fstore, "quotes", "import", "fortune", fortunes))
    count = json.loads(run(suite(fstore, "quotes", "categories", "--json")).stdout)
    total = sum(c["count"] for c in count)
    rows.append((f"import Debian fortunes ({total} quotes)", "suite quotes import fortune", (seconds * 1000, 0), None, None, None, "< 2 s"))
    notes.append(f"Fortune import: {total} quotes in {seconds:.2f} s, peak memory {peak / 1024:.0f} MB.")
    compare("random quote, fortunes", ("suite quotes random", suite(fstore, "quotes", "random")), ("fortune", ["/usr/games/fortune", fortunes]), "within 1.5×")
    compare("search 'love', fortunes", ("suite quotes search love", suite(fstore, "quotes", "search", "love")),
            ("fortune -m love", ["/usr/games/fortune", "-m", "love", fortunes]), "≥ 5× faster")

    qstore = os.path.join(work, "quotes-store")
    qcsv = os.path.join(work, "quotes.csv")
    quotes_csv(qcsv, SIZES["quotes"], 1)
    seconds, peak = timed(suite(qstore, "quotes", "import", "csv", qcsv))
    rows.append((f"import {SIZES['quotes']:,} quotes (CSV)", "suite quotes import csv", (seconds * 1000, 0), None, None, None, None))
    notes.append(f"Quote import: {SIZES['quotes']:,} quotes in {seconds:.1f} s ({SIZES['quotes'] / seconds:,.0f}/s), peak memory {peak / 1024:.0f} MB.")
    # The floor for a ranked search: the same bm25-ordered FTS5 query (ids and ranks of the best 20)
    # in the sqlite3 shell on the same file.
    fts_sql = "SELECT rowid, rank FROM quote_fts WHERE quote_fts MATCH '\"love\"' ORDER BY rank LIMIT 20;"
    compare(f"search 'love', {SIZES['quotes']:,} quotes", ("suite quotes search love", suite(qstore, "quotes", "search", "love")),
            ("sqlite3 FTS5 query ranked by bm25, 20 best", ["sqlite3", "-readonly", os.path.join(qstore, "quotes.sqlite"), fts_sql]), "< 20 ms")
    single(f"random, {SIZES['quotes']:,} quotes", "suite quotes random", suite(qstore, "quotes", "random"), "< 10 ms")
    _, peak = timed(suite(qstore, "quotes", "search", "love"))
    notes.append(f"Quote search peak memory: {peak / 1024:.0f} MB.")

# --- places ---------------------------------------------------------------------------------
if "places" in ONLY:
    pstore = os.path.join(work, "places-store")
    pjson = os.path.join(work, "places.geojson")
    places_geojson(pjson, SIZES["places"], 2)
    seconds, peak = timed(suite(pstore, "places", "import", pjson))
    rows.append((f"import {SIZES['places']:,} GeoJSON places", "suite places import", (seconds * 1000, 0), None, None, None, "< 60 s"))
    notes.append(f"Places import: {SIZES['places']:,} features in {seconds:.1f} s, peak memory {peak / 1024:.0f} MB.")
    near = suite(pstore, "places", "near", "--at", at, "--radius", "1km", "--limit", "20")
    dlat, dlon = 1000 / 111_320, 1000 / (111_320 * 0.6579)
    box = f"i.max_lat >= {CENTER[0] - dlat} AND i.min_lat <= {CENTER[0] + dlat} AND i.max_lon >= {CENTER[1] - dlon} AND i.min_lon <= {CENTER[1] + dlon}"
    db = os.path.join(pstore, "places.sqlite")
    # The floor: the R*Tree query that gives suite's answer (the 20 nearest within 1 km, so every place
    # in the box is read and ranked). "First 20 in the box" stops early and answers something else;
    # it is shown as a lower bound only.
    near_sql = (f"SELECT p.id, p.name, p.lat, p.lon, (p.lat - {CENTER[0]}) * (p.lat - {CENTER[0]}) + (p.lon - {CENTER[1]}) * (p.lon - {CENTER[1]}) * 0.4329 AS d "
                f"FROM place_index i JOIN place p ON p.id = i.id WHERE {box} AND d <= {dlat * dlat} ORDER BY d LIMIT 20;")
    rtree_sql = f"SELECT p.id, p.name, p.lat, p.lon FROM place_index i JOIN place p ON p.id = i.id WHERE {box} LIMIT 20;"
    scan_sql = (f"SELECT id, name, (lat - {CENTER[0]}) * (lat - {CENTER[0]}) + (lon - {CENTER[1]}) * (lon - {CENTER[1]}) * 0.4329 AS d FROM place NOT INDEXED "
                f"WHERE d <= {dlat * dlat} ORDER BY d LIMIT 20;")
    compare(f"near 1 km, {SIZES['places']:,} places", ("suite places near", near), ("sqlite3 R*Tree query, 20 nearest", ["sqlite3", "-readonly", db, near_sql]), "< 20 ms, within 2× of sqlite3")
    compare(f"near 1 km, {SIZES['places']:,} places", ("suite places near", near), ("sqlite3 R*Tree, first 20 in the box (not the same answer)", ["sqlite3", "-readonly", db, rtree_sql]))
    compare(f"near 1 km, {SIZES['places']:,} places", ("suite places near", near), ("sqlite3 full scan", ["sqlite3", "-readonly", db, scan_sql]))
    _, peak = timed(near)
    notes.append(f"Near search peak memory: {peak / 1024:.0f} MB.")

# --- bundles --------------------------------------------------------------------------------
if "bundles" in ONLY:
    bstore = os.path.join(work, "bundle-store")
    btxt = os.path.join(work, "todo.txt")
    todos_txt(btxt, SIZES["todos"], SIZES["events"], 3)
    seconds, peak = timed(suite(bstore, "bundle", "import", btxt))
    rows.append((f"import {SIZES['todos']:,} todos (todo.txt)", "suite bundle import", (seconds * 1000, 0), None, None, None, None))
    notes.append(f"Bundle import: {SIZES['todos']:,} todos in {seconds:.1f} s, peak memory {peak / 1024:.0f} MB.")
    single(f"todos --event, {SIZES['todos']:,} todos / {SIZES['events']:,} events", "suite bundle todos --event",
           suite(bstore, "bundle", "todos", "--event", "event 7"), "< 15 ms")
    single(f"checkin listing, {SIZES['todos']:,} todos", "suite bundle checkin --about-to",
           suite(bstore, "bundle", "checkin", "event 7", "--about-to"), "< 15 ms")

    tstore = os.path.join(work, "tw-store")
    tjson = os.path.join(work, "tasks.json")
    tasks_json(tjson, SIZES["tasks"], 4, due=True)
    run(suite(tstore, "bundle", "import", tjson, "--format", "taskwarrior"))
    taskdata = os.path.join(work, "taskdata")
    os.makedirs(taskdata)
    taskrc = os.path.join(work, "taskrc")
    open(taskrc, "w").write(f"data.location={taskdata}\nconfirmation=off\nverbose=nothing\ngc=off\n")
    env_task = ["env", f"TASKRC={taskrc}", "task", f"rc:{taskrc}"]
    run(env_task + ["import", tjson])
    compare(f"list {SIZES['tasks']:,} pending tasks (a third with due dates)", ("suite bundle todos", suite(tstore, "bundle", "todos")),
            ("task list (Taskwarrior 2.6)", env_task + ["rc.report.list.limit=0", "list"]))

# --- growth ---------------------------------------------------------------------------------
if "growth" in ONLY:
    for size in GROWTH:
        line = [size]
        store = os.path.join(work, f"growth-{size}")
        path = os.path.join(work, f"g-{size}")
        quotes_csv(path + ".csv", size, 10 + size)
        run(suite(store, "quotes", "import", "csv", path + ".csv"))
        places_geojson(path + ".geojson", size, 20 + size)
        run(suite(store, "places", "import", path + ".geojson"))
        todos_txt(path + ".txt", size, max(1, size // 100), 30 + size)
        run(suite(store, "bundle", "import", path + ".txt"))
        run(suite(store, "bmm", "new", "Growth"))
        result = hyperfine({
            "quotes search": suite(store, "quotes", "search", "love"),
            "places near": suite(store, "places", "near", "--at", at, "--radius", "1km", "--limit", "20"),
            "bundle todos --event": suite(store, "bundle", "todos", "--event", "event 0"),
            "bmm sections": suite(store, "bmm", "sections"),
        }, ignore_failure=True)
        growth.append((size, result))
        say(f"growth {size:,}: " + ", ".join(f"{name} {value[0]:.1f} ms" for name, value in result.items()))
        for suffix in (".csv", ".geojson", ".txt"):
            os.remove(path + suffix)

# --- memory: imports and exports at growing sizes -------------------------------------------
def quotes_json(path, count, seed):
    """Quotable's shape: an array of {_id, content, author, tags}."""
    r = random.Random(seed)
    with open(path, "w") as f:
        f.write("[\n")
        for i in range(count):
            words = " ".join(r.choices(VOCABULARY, cum_weights=CUMULATIVE, k=r.randint(6, 18)))
            f.write(('' if i == 0 else ',\n') + json.dumps({"_id": f"q{i}", "content": f"{words.capitalize()} (number {i}).",
                                                             "author": f"Author {r.randint(1, max(2, count // 20))}", "tags": [f"topic{r.randint(1, 40)}"]}))
        f.write("\n]\n")

def todos_ics(path, count, seed):
    r = random.Random(seed)
    with open(path, "w", newline="") as f:
        f.write("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bench//EN\r\n")
        for i in range(count):
            uid = "%08x-%04x-4%03x-8%03x-%012x" % (r.getrandbits(32), r.getrandbits(16), r.getrandbits(12), r.getrandbits(12), r.getrandbits(48))
            f.write(f"BEGIN:VTODO\r\nUID:{uid}\r\nDTSTAMP:20261101T080000Z\r\nCREATED:20261101T080000Z\r\n"
                    f"SUMMARY:Errand number {i} {r.choice(WORDS)}\r\nDESCRIPTION:Notes for errand {i}\\, with a comma\r\n"
                    f"X-BUNDLE-EVENT:event {i % 100}\r\nX-BUNDLE-PREPOSITION:before\r\nDUE;VALUE=DATE:202612{1 + i % 28:02d}\r\n"
                    f"STATUS:NEEDS-ACTION\r\nEND:VTODO\r\n")
        f.write("END:VCALENDAR\r\n")

memory_table = []
if "memory" in ONLY:
    for size in MEMORY_SIZES:
        store = os.path.join(work, f"memory-{size}")
        base = os.path.join(work, f"m-{size}")
        line = {}
        def measure(name, path, *command, into=None, keep=False):
            """Time and peak memory of `command` (on the store `into`, else the size's store), and the
            size of the file it reads or writes (then removed unless `keep`)."""
            line[name] = timed(suite(into or store, *command)) + (os.path.getsize(path),)
            if not keep:
                os.remove(path)
        quotes_json(base + ".json", size, 40 + size)
        measure("quotes import (Quotable JSON)", base + ".json", "quotes", "import", "json", base + ".json")
        measure("quotes export (JSON)", base + ".out.json", "quotes", "export", "--format", "json", "-o", base + ".out.json")
        places_geojson(base + ".geojson", size, 50 + size)
        measure("places import (GeoJSON)", base + ".geojson", "places", "import", base + ".geojson")
        measure("places export (GeoJSON)", base + ".out.geojson", "places", "export", "--format", "geojson", "-o", base + ".out.geojson")
        todos_ics(base + ".ics", size, 60 + size)
        measure("bundle import (iCalendar)", base + ".ics", "bundle", "import", base + ".ics")
        tasks_json(base + ".jsonl", size, 70 + size, lines=True)
        measure("bundle import (Taskwarrior JSON lines)", base + ".jsonl", "bundle", "import", base + ".jsonl", "--format", "taskwarrior")
        # The store now holds twice `size` todos: written out and read into another store.
        measure("bundle export (Suite JSON)", base + ".bundle.json", "bundle", "export", "--format", "json", "-o", base + ".bundle.json", keep=True)
        measure("bundle import (Suite JSON)", base + ".bundle.json", "bundle", "import", base + ".bundle.json", into=store + "-copy")
        shutil.rmtree(store + "-copy", ignore_errors=True)
        memory_table.append((size, line))
        say(f"memory {size:,}: " + ", ".join(f"{name} {v[0]:.1f} s / {v[1] / 1024:.0f} MB" for name, v in line.items()))
        shutil.rmtree(store, ignore_errors=True)

# --- report ---------------------------------------------------------------------------------
commit = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE).stdout.decode().strip() or "unknown"
if subprocess.run(["git", "-C", root, "diff", "--quiet", "HEAD"]).returncode != 0:
    commit += "-dirty"  # not what HEAD holds: the report must not pass for HEAD's
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
memory = next((l.split()[1] for l in open("/proc/meminfo") if l.startswith("MemTotal")), "?")
lines = [f"# suite benchmarks ({'quick' if quick else 'full'})", "",
         f"- date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
         f"- commit: {commit}", f"- machine: {os.cpu_count()} cores, {cpu}, {int(memory) // 1024} MB memory",
         f"- binary: {os.path.relpath(binary, root)} (stripped, as Scripts/install installs it, in the full run); hyperfine, {WARMUP} warm-up and {RUNS} runs per order, both orders merged; median and interquartile range", "",
         "| what | suite | ms (IQR) | compared with | ms (IQR) | suite is × faster | target |", "|---|---|---|---|---|---|---|"]
for label, name, mine, other_name, other, ratio, target in rows:
    lines.append(f"| {label} | {name} | {mine[0]:.1f} ({mine[1]:.1f}) | {other_name or ''} | "
                 f"{'' if other is None else f'{other[0]:.1f} ({other[1]:.1f})'} | {'' if ratio is None else f'{ratio:.2f}'} | {target or ''} |")
if growth:
    lines += ["", "## Growth (median ms, whole process)", "", "| records | " + " | ".join(growth[0][1].keys()) + " |",
              "|---" * (len(growth[0][1]) + 1) + "|"]
    for size, result in growth:
        lines.append(f"| {size:,} | " + " | ".join(f"{v[0]:.1f}" for v in result.values()) + " |")
if memory_table:
    lines += ["", "## Memory of imports and exports (peak resident MB, seconds; file size)", "",
              "| records | " + " | ".join(memory_table[0][1].keys()) + " |", "|---" * (len(memory_table[0][1]) + 1) + "|"]
    for size, line in memory_table:
        lines.append(f"| {size:,} | " + " | ".join(f"{v[1] / 1024:.0f} MB, {v[0]:.1f} s ({v[2] / 1e6:.0f} MB file)" for v in line.values()) + " |")
lines += ["", "## Notes", ""] + [f"- {n}" for n in notes]
report = "\n".join(lines) + "\n"
os.makedirs(os.path.join(root, "Benchmarks", "results"), exist_ok=True)
out = os.path.join(root, "Benchmarks", "results", "partial.md" if ONLY != SECTIONS else ("quick.md" if quick else f"full-{commit}.md"))
open(out, "w").write(report)
print()
print(report)
if ONLY == SECTIONS:
    expected = 10 + (1 if args.dynamic else 0)
    assert len(rows) >= expected - 1, f"only {len(rows)} comparisons ran"
    assert len(memory_table) == len(MEMORY_SIZES) and all(len(line) == 8 for _, line in memory_table), "the memory table is incomplete"
shutil.rmtree(work, ignore_errors=True)
