"""Load on a running suite-server, over loopback, as issue "A sync server you can put on the
internet" §3 asks: DEVICES devices connected to the event stream, PUSHERS of them pushing
RATE pushes a second in all for SECONDS s, while new devices bootstrap (pull a big log from the
start) every few seconds. Then every acknowledged operation is read back.

    python3 Benchmarks/server_load.py URL SERVER_PID [--devices N] [--pushers N] [--rate R]
                                      [--seconds S] [--big N] [--label TEXT]

Connections come from 127.0.0.2 … 127.0.0.51 (the server caps connections per address), accounts
are signed up from as many addresses (sign-up is limited per address). The event streams and the
bootstrapping devices run in processes of their own, so that reading thousands of events and
parsing 4 MB pages never holds up the loop that times the pushes. Prints one markdown table
row per figure and exits 1 when an acknowledged operation is missing or a request failed.
"""

import argparse
import asyncio
import base64
import json
import multiprocessing
import os
import random
import statistics
import sys
import time
import urllib.parse

ADDRESSES = [f"127.0.0.{n}" for n in range(2, 52)]


def b64(n):
    return base64.b64encode(os.urandom(n)).decode()


class Connection:
    """One keep-alive HTTP/1.1 connection from a given source address."""

    def __init__(self, host, port, source):
        self.host, self.port, self.source = host, port, source
        self.reader = self.writer = None

    async def open(self):
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port, local_addr=(self.source, 0))

    async def request(self, method, path, body=None, token=None):
        if self.writer is None:
            await self.open()
        data = b"" if body is None else json.dumps(body).encode()
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Length: {len(data)}\r\nContent-Type: application/json\r\n"
        if token:
            head += f"Authorization: Bearer {token}\r\n"
        self.writer.write(head.encode() + b"\r\n" + data)
        await self.writer.drain()
        status_line = await self.reader.readline()
        if not status_line:
            self.writer = None
            raise ConnectionError("closed")
        status = int(status_line.split()[1])
        length, chunked, close = 0, False, False
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode().partition(":")
            name, value = name.strip().lower(), value.strip()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding" and "chunked" in value:
                chunked = True
            elif name == "connection" and value.lower() == "close":
                close = True
        if chunked:
            payload = b""
            while True:
                size = int((await self.reader.readline()).strip(), 16)
                if size == 0:
                    await self.reader.readline()
                    break
                payload += await self.reader.readexactly(size)
                await self.reader.readline()
        else:
            payload = await self.reader.readexactly(length) if length else b""
        if close:
            self.writer.close()
            self.writer = None
        return status, payload


async def signup(host, port, name, source):
    connection = Connection(host, port, source)
    body = {"account": name, "authenticationSecret": b64(32), "salt": b64(16), "rounds": 600000,
            "wrappedKey": b64(48), "recoveryWrappedKey": b64(48), "device": "device-0"}
    status, reply = await connection.request("POST", "/v1/signup", body)
    assert status == 201, (status, reply)
    connection.writer.close()
    return body, json.loads(reply)["token"]


async def login(host, port, account, source, device):
    connection = Connection(host, port, source)
    status, reply = await connection.request("POST", "/v1/login", {"account": account["account"],
                                                                    "authenticationSecret": account["authenticationSecret"], "device": device})
    assert status == 200, (status, reply)
    connection.writer.close()
    return json.loads(reply)["token"]


async def stream(host, port, token, source, counters, ready):
    reader, writer = await asyncio.open_connection(host, port, local_addr=(source, 0))
    writer.write(f"GET /v1/events HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
    await writer.drain()
    connected = False
    try:
        while True:
            line = await reader.readline()
            if not line:
                counters["streams_closed"] += 1
                return
            if line.startswith(b": connected") and not connected:
                connected = True
                ready.release()
            elif line.startswith(b"data: "):
                counters["events"] += 1
    except asyncio.CancelledError:
        writer.close()
        raise


def forked():
    """In a child forked from inside the parent's event loop: forget that loop."""
    asyncio.events._set_running_loop(None)
    asyncio.set_event_loop(None)


def run_streams(host, port, tokens, ready, stop, results):
    """A child process: every device's event stream, until told to stop; then the counts."""
    forked()
    async def main():
        counters = {"events": 0, "streams_closed": 0}
        connected = asyncio.Semaphore(0)
        streams = [asyncio.create_task(stream(host, port, token, source, counters, connected)) for token, source in tokens]
        for _ in streams:
            await asyncio.wait_for(connected.acquire(), 120)
        ready.set()
        while not stop.is_set():
            await asyncio.sleep(0.1)
        for task in streams:
            task.cancel()
        await asyncio.gather(*streams, return_exceptions=True)
        results.put(counters)
    asyncio.run(main())


def run_bootstraps(host, port, big_body, big, seconds, results):
    """A child process: a new device signs in and pulls the big log from the start, every 5 s
    or as soon as the one before is done, for SECONDS; then their times and any errors."""
    forked()
    async def main():
        deadline = time.monotonic() + seconds
        bootstraps, errors = [], []
        device = 0
        while time.monotonic() < deadline - 1:
            device += 1
            begun = time.monotonic()
            token = await login(host, port, big_body, ADDRESSES[device % len(ADDRESSES)], f"new-{device}")
            connection = Connection(host, port, ADDRESSES[device % len(ADDRESSES)])
            after, count = 0, 0
            while True:
                status, reply = await connection.request("GET", f"/v1/logs/bundle?after={after}", token=token)
                if status != 200:
                    errors.append(f"bootstrap pull: {status}")
                    break
                page = json.loads(reply)
                count += len(page["operations"])
                after = page["next"]
                if after >= page["head"]:
                    break
            if count != big:
                errors.append(f"bootstrap received {count} of {big}")
            bootstraps.append(time.monotonic() - begun)
            await asyncio.sleep(max(0.0, 5 - (time.monotonic() - begun)))
        results.put((bootstraps, errors))
    asyncio.run(main())


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("pid", type=int)
    parser.add_argument("--devices", type=int, default=2000)
    parser.add_argument("--pushers", type=int, default=200)
    parser.add_argument("--rate", type=float, default=300)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--big", type=int, default=20000)
    parser.add_argument("--label", default="")
    args = parser.parse_args()
    parsed = urllib.parse.urlparse(args.url)
    host, port = parsed.hostname, parsed.port
    run = f"{random.randrange(1 << 30):x}"

    # Accounts (one per pusher) and their devices (devices / pushers each).
    started = time.monotonic()
    accounts = []
    for index in range(args.pushers):
        body, token = await signup(host, port, f"load-{run}-{index}", ADDRESSES[index % len(ADDRESSES)])
        accounts.append({"body": body, "tokens": [token]})
    per_account = max(1, args.devices // args.pushers)
    logins = []
    for index, account in enumerate(accounts):
        for device in range(1, per_account):
            logins.append((account, device, ADDRESSES[(index + device) % len(ADDRESSES)]))
    semaphore = asyncio.Semaphore(8)

    async def add_device(account, device, source):
        async with semaphore:
            account["tokens"].append(await login(host, port, account["body"], source, f"device-{device}"))
    await asyncio.gather(*(add_device(*item) for item in logins))
    # A big account for the devices that bootstrap during the load.
    big_body, big_token = await signup(host, port, f"load-{run}-big", ADDRESSES[-1])
    connection = Connection(host, port, ADDRESSES[-1])
    for start in range(0, args.big, 1000):
        operations = [{"id": f"big-{n}", "slot": f"s{n % 97}", "payload": b64(300)} for n in range(start, min(args.big, start + 1000))]
        status, _ = await connection.request("POST", "/v1/logs/bundle/push", {"operations": operations}, big_token)
        assert status == 200, status
    setup = time.monotonic() - started

    # Every device on the event stream, in a process of its own.
    tokens = []
    for index, account in enumerate(accounts):
        for device, token in enumerate(account["tokens"]):
            tokens.append((token, ADDRESSES[(index * per_account + device) % len(ADDRESSES)]))
    context = multiprocessing.get_context("fork")
    stream_ready, stream_stop, stream_results = context.Event(), context.Event(), context.Queue()
    streamer = context.Process(target=run_streams, args=(host, port, tokens, stream_ready, stream_stop, stream_results))
    streamer.start()
    if not await asyncio.get_running_loop().run_in_executor(None, stream_ready.wait, 120):
        sys.exit("server-load: the event streams did not all connect within 120 s")

    rss = {"max": 0}

    async def sample_rss():
        while True:
            with open(f"/proc/{args.pid}/status") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        rss["max"] = max(rss["max"], int(line.split()[1]))
            await asyncio.sleep(0.25)
    sampler = asyncio.create_task(sample_rss())

    latencies, errors, acknowledged = [], [], {}
    interval = args.pushers / args.rate  # each pusher's period
    deadline = time.monotonic() + args.seconds
    # New devices bootstrap the big log, in a process of their own.
    bootstrap_results = context.Queue()
    bootstrapper = context.Process(target=run_bootstraps, args=(host, port, big_body, args.big, args.seconds, bootstrap_results))
    bootstrapper.start()

    async def pusher(index, account):
        connection = Connection(host, port, ADDRESSES[index % len(ADDRESSES)])
        token = account["tokens"][0]
        n = 0
        next_at = time.monotonic() + interval * index / args.pushers
        while True:
            now = time.monotonic()
            if now >= deadline:
                return
            if next_at > now:
                await asyncio.sleep(next_at - now)
            next_at += interval
            op = {"id": f"op-{index}-{n}", "slot": f"s{n % 13}", "payload": b64(300)}
            n += 1
            sent = time.monotonic()
            try:
                status, reply = await connection.request("POST", "/v1/logs/notes/push", {"operations": [op]}, token)
            except Exception as error:  # noqa: BLE001 (any failure is counted)
                errors.append(f"push: {error!r}")
                connection = Connection(host, port, ADDRESSES[index % len(ADDRESSES)])
                continue
            latencies.append(time.monotonic() - sent)
            if status == 200:
                acknowledged.setdefault(index, []).append(op["id"])
            else:
                errors.append(f"push: {status} {reply[:100]!r}")

    load_started = time.monotonic()
    await asyncio.gather(*(pusher(i, a) for i, a in enumerate(accounts)))
    elapsed = time.monotonic() - load_started
    loop = asyncio.get_running_loop()
    bootstraps, bootstrap_errors = await loop.run_in_executor(None, bootstrap_results.get)
    errors += bootstrap_errors
    bootstrapper.join()
    sampler.cancel()
    await asyncio.sleep(1)  # the last events
    stream_stop.set()
    counters = await loop.run_in_executor(None, stream_results.get)
    streamer.join()

    # Every acknowledged operation is there.
    missing = 0
    for index, account in enumerate(accounts):
        connection = Connection(host, port, ADDRESSES[index % len(ADDRESSES)])
        after, ids = 0, set()
        while True:
            status, reply = await connection.request("GET", f"/v1/logs/notes?after={after}", token=account["tokens"][0])
            assert status == 200, status
            page = json.loads(reply)
            ids.update(op["id"] for op in page["operations"])
            after = page["next"]
            if after >= page["head"]:
                break
        missing += sum(1 for op in acknowledged.get(index, []) if op not in ids)

    pushes = len(latencies)
    ordered = sorted(latencies)
    p = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else float("nan")
    label = f" ({args.label})" if args.label else ""
    print(f"| devices on the event stream{label} | {len(tokens)} ({counters['streams_closed']} closed during the run) |")
    print(f"| pushes{label} | {pushes} in {elapsed:.1f} s ({pushes / elapsed:.0f}/s) from {args.pushers} devices; {sum(len(v) for v in acknowledged.values())} acknowledged |")
    print(f"| push latency{label} | p50 {p(0.5):.1f} ms, p99 {p(0.99):.1f} ms, max {p(1.0):.1f} ms |")
    print(f"| events delivered{label} | {counters['events']} |")
    print(f"| new devices bootstrapping {args.big:,} operations during the load{label} | {len(bootstraps)}, median {statistics.median(bootstraps) if bootstraps else float('nan'):.2f} s |")
    print(f"| server RSS, peak during the load{label} | {rss['max'] / 1024:.0f} MB |")
    print(f"| errors{label} | {len(errors)}{': ' + '; '.join(sorted(set(errors))[:5]) if errors else ''} |")
    print(f"| acknowledged operations missing afterwards{label} | {missing} |")
    print(f"| set-up (sign-ups, {len(logins)} sign-ins, the big log){label} | {setup:.1f} s |")
    sys.exit(1 if missing or errors else 0)


asyncio.run(main())
