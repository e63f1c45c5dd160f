#!/usr/bin/env python3
"""fixture_server.py — a local HTTP server for hetplan's price tests.

    python3 tests/fixture_server.py PORT_FILE MODE_FILE LOG_FILE

Listens on 127.0.0.1 on a free port (written to PORT_FILE once listening)
and never touches the network beyond that socket. Every request reads
MODE_FILE (one word; "ok" when missing) to decide how to misbehave, so a
test can switch faults without restarting. Each request is appended to
LOG_FILE as "METHOD PATH if-none-match=..." for checks on conditional GET.

Routes in mode ok:
  /v8/CLOUD/vms.csv       tests/data/fixtures/skypilot-v8-CLOUD-vms.*.csv
  /prices.json            tests/data/prices/feed.json   (hetplan feed)
  /x1000.json             tests/data/prices/feed_x1000.json (a feed that
                          declares a new GPU, X1000)
  /gpus.json              tests/data/prices/gpus.json   (a GPU catalog file)
  /utf8-long.json         tests/data/prices/feed_utf8_long.json (a region
                          of 33 bytes, "eu-" + ten U+20AC: refused)
  /azure/prices           Azure Retail Prices pages built from the
                          documented schema, 3 items a page, $skip paging
Modes: 404 500 429:N 429once:N trickle big bigstream truncated badcsv
badjson wrongheader loop azure-emptylink azure-emptylink-fail, and for GPU
catalogs: wrongschema (gpus is an object), schema2 (an unknown schema
number), hostile (a GPU name carrying a terminal escape sequence).
Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later.
"""
import glob
import hashlib
import json
import os
import sys
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.dirname(os.path.abspath(__file__))
PORT_FILE, MODE_FILE, LOG_FILE = sys.argv[1:4]
state = {"mode_seen": None, "once_done": False}


def azure_item(sku, skuname, price, region="eastus", kind="Consumption",
               product=None, term=None, unit="1 Hour"):
    """One item with every field of the documented Retail Prices schema."""
    series = skuname.split(" ")[0]
    item = {
        "currencyCode": "USD", "tierMinimumUnits": 0.0,
        "retailPrice": price, "unitPrice": price,
        "armRegionName": region, "location": region,
        "effectiveStartDate": "2024-01-01T00:00:00Z",
        "meterId": hashlib.md5((sku + skuname + kind).encode()).hexdigest(),
        "meterName": skuname, "productId": "DZH318Z0TEST",
        "skuId": "DZH318Z0TEST/0001", "availabilityId": None,
        "productName": product or ("Virtual Machines %s Series" % series),
        "skuName": skuname, "serviceName": "Virtual Machines",
        "serviceId": "DZH313Z7MMC8", "serviceFamily": "Compute",
        "unitOfMeasure": unit, "type": kind, "isPrimaryMeterRegion": True,
        "armSkuName": sku,
    }
    if term:
        item["reservationTerm"] = term
    return item


# Eleven items, four pages of three. Comments give what hetplan must make
# of each (checked in tests/test_prices.sh).
AZURE_ITEMS = [
    # kept: 8 x H100 on-demand, 98.32 / 8 = 12.29 per GPU-hour
    azure_item("Standard_ND96isr_H100_v5", "ND96isr H100 v5", 98.32),
    # kept: spot, 24.58 / 8 = 3.0725
    azure_item("Standard_ND96isr_H100_v5", "ND96isr H100 v5 Spot", 24.58),
    # dropped: Windows licence included
    azure_item("Standard_ND96isr_H100_v5", "ND96isr H100 v5", 104.9,
               product="Virtual Machines NDsrH100v5 Series Windows"),
    # dropped: a reservation is the whole year's price
    azure_item("Standard_ND96isr_H100_v5", "ND96isr H100 v5", 540000.0,
               kind="Reservation", term="1 Year"),
    # kept: 1 x A100 80GB PCIe, 3.673
    azure_item("Standard_NC24ads_A100_v4", "NC24ads A100 v4", 3.673),
    # dropped: low priority is not spot
    azure_item("Standard_NC24ads_A100_v4", "NC24ads A100 v4 Low Priority", 0.9),
    # ignored: no GPU
    azure_item("Standard_D2s_v3", "D2s v3", 0.096),
    # kept: a sixth of an A10, 0.454 x 6 = 2.724 per GPU-hour
    azure_item("Standard_NV6ads_A10_v5", "NV6ads A10 v5", 0.454, region="westus"),
    # dropped: dev/test pricing
    azure_item("Standard_NC40ads_H100_v5", "NC40ads H100 v5", 5.0,
               kind="DevTestConsumption"),
    # kept: 127.816 / 8 = 15.977
    azure_item("Standard_ND96isr_H100_v5", "ND96isr H100 v5", 127.816,
               region="westus"),
    # dropped: zero price
    azure_item("Standard_NC4as_T4_v3", "NC4as T4 v3", 0.0),
]
PAGE = 3


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, fmt, *args):
        pass

    def mode(self):
        try:
            with open(MODE_FILE) as f:
                m = f.read().strip() or "ok"
        except OSError:
            m = "ok"
        if m != state["mode_seen"]:
            state["mode_seen"] = m
            state["once_done"] = False
        return m

    def send(self, status, body, ctype="text/plain", headers=None, length=True):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        if length:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:
            pass

    def serve_file(self, path, ctype):
        with open(path, "rb") as f:
            body = f.read()
        etag = '"%s"' % hashlib.sha1(body).hexdigest()[:16]
        if self.headers.get("If-None-Match") == etag:
            self.send_response(304)
            self.send_header("ETag", etag)
            self.end_headers()
            return
        self.send(200, body, ctype, {"ETag": etag,
                                     "Last-Modified": "Sun, 29 Nov 2026 06:00:00 GMT"})

    def azure(self, query, mode):
        q = urllib.parse.parse_qs(query)
        skip = int(q.get("$skip", ["0"])[0])
        if mode == "azure-emptylink-fail" and skip == 2 * PAGE:
            self.send(500, b"server error on the continued page\n")
            return
        items = AZURE_ITEMS[skip:skip + PAGE]
        base = "http://127.0.0.1:%d/azure/prices" % self.server.server_port
        nxt = None
        if skip + PAGE < len(AZURE_ITEMS):
            nxt = base + "?$filter=serviceName%20eq%20%27Virtual%20Machines%27&$skip=" + str(skip + PAGE)
        if mode.startswith("azure-emptylink") and skip == PAGE:
            nxt = ""      # a full page that forgot its link
        page = {"BillingCurrency": "USD", "CustomerEntityId": "Default",
                "CustomerEntityType": "Retail", "Items": items,
                "NextPageLink": nxt, "Count": len(items)}
        self.send(200, json.dumps(page).encode(), "application/json")

    def do_GET(self):
        mode = self.mode()
        url = urllib.parse.urlsplit(self.path)
        with open(LOG_FILE, "a") as f:
            f.write("GET %s if-none-match=%s\n" % (self.path, self.headers.get("If-None-Match", "")))
        kind, _, arg = mode.partition(":")
        if kind == "404":
            return self.send(404, b"not here\n")
        if kind == "500":
            return self.send(500, b"broken\n")
        if kind == "429" or (kind == "429once" and not state["once_done"]):
            state["once_done"] = True
            return self.send(429, b"slow down\n", headers={"Retry-After": arg or "1"})
        if kind == "loop":
            return self.send(302, b"", headers={"Location": self.path})
        if kind == "trickle":
            self.send_response(200)
            self.send_header("Content-Length", "100000")
            self.end_headers()
            for _ in range(60):
                try:
                    self.wfile.write(b"a")
                    self.wfile.flush()
                except OSError:
                    return
                time.sleep(0.5)
            return
        if kind in ("big", "bigstream"):
            row = b"p5.48xlarge,H100,8.0,192.0,2048.0,,55.04,19.2531,us-east-1,use1-az2,x86_64\n"
            body = b"InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone,Arch\n" + row * 4000
            return self.send(200, body, "text/csv", length=(kind == "big"))
        if kind == "truncated":
            self.send_response(200)
            self.send_header("Content-Length", "5000")
            self.end_headers()
            self.wfile.write(b"InstanceType,AcceleratorName,AcceleratorCount,Price,SpotPrice,Region\n")
            self.wfile.flush()
            return
        if kind == "badcsv":
            body = (b"InstanceType,AcceleratorName,AcceleratorCount,Price,SpotPrice,Region\n"
                    b"p5.48xlarge,H100,8.0,55.04,19.25,us-east-1\n"
                    b"p5.4xlarge,H100,\"1.0,6.88,,us-east-1\n")
            return self.send(200, body, "text/csv")
        if kind == "badjson":
            return self.send(200, b'{"schema": "hetplan-prices/1", "offers": [{"provider": "lab",',
                             "application/json")
        if kind == "wrongheader":
            return self.send(200, b"name,gpu,count,usd,region\np5.48xlarge,H100,8,55.04,us-east-1\n",
                             "text/csv")
        if kind == "wrongschema":
            return self.send(200, b'{"schema": 1, "gpus": {"name": "X3000", "memory_gb": 10}}',
                             "application/json")
        if kind == "schema2":
            return self.send(200, b'{"schema": 2, "gpus": []}', "application/json")
        if kind == "hostile":
            body = json.dumps({"schema": 1, "gpus": [
                {"name": "X\u001b]0;owned\u0007", "memory_gb": 10}]})
            return self.send(200, body.encode(), "application/json")
        p = url.path
        if p.startswith("/v8/") and p.endswith("/vms.csv"):
            cloud = p[4:-8]
            files = sorted(glob.glob(os.path.join(ROOT, "data", "fixtures",
                                                  "skypilot-v8-%s-vms.*.csv" % cloud)))
            if not files or "/" in cloud:
                return self.send(404, b"no such cloud\n")
            return self.serve_file(files[0], "text/csv")
        if p == "/prices.json":
            return self.serve_file(os.path.join(ROOT, "data", "prices", "feed.json"),
                                   "application/json")
        files = {"/x1000.json": "feed_x1000.json", "/gpus.json": "gpus.json",
                 "/utf8-long.json": "feed_utf8_long.json"}
        if p in files:
            name = files[p]
            return self.serve_file(os.path.join(ROOT, "data", "prices", name),
                                   "application/json")
        if p == "/azure/prices":
            return self.azure(url.query, mode)
        return self.send(404, b"unknown path\n")


def main():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    tmp = PORT_FILE + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(srv.server_port))
    os.rename(tmp, PORT_FILE)
    srv.serve_forever()


if __name__ == "__main__":
    main()
