#!/usr/bin/env python3
"""HTTPS stand-ins for registration-service and auth-service in E2eChecksLiveTest's failover case, sharing one
device table (STATE/devices.json). While STATE/outage exists every call is refused as the services refuse it when the
database is gone (503, reason backend_unavailable); STATE/lose makes the first refused call drop the newest
registration. Standard library only."""
import json, os, ssl, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT, STATE = int(sys.argv[1]), sys.argv[2]
TABLE = os.path.join(STATE, "devices.json")
LOCK = threading.Lock()


def load():
    return json.load(open(TABLE)) if os.path.exists(TABLE) else {}


def save(devices):
    with open(TABLE + ".tmp", "w") as out:
        json.dump(devices, out)
    os.replace(TABLE + ".tmp", TABLE)


def down():
    if not os.path.exists(os.path.join(STATE, "outage")):
        return False
    lose = os.path.join(STATE, "lose")
    if os.path.exists(lose):
        os.remove(lose)
        devices = load()
        newest = [c for c in devices if c.startswith("e2e-failover-") and c.count("-") == 3]
        if newest:
            devices.pop(newest[-1])
            save(devices)
    return True


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body=None):
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        return json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")

    def handle_call(self, method):
        client_id = self.path.rsplit("/", 1)[-1]
        body = self.body() if method in ("PUT", "POST") else None
        with LOCK:
            if down() and method != "GET":
                return self.answer(503, {"reason": "backend_unavailable", "message": "SQLSTATE 08006"})
            devices = load()
            if method == "PUT":
                new = client_id not in devices
                devices[client_id] = {"status": "active", "password": body["password"]}
                save(devices)
                return self.answer(201 if new else 200, {"clientid": client_id})
            if method == "DELETE":
                devices[client_id]["status"] = "revoked"
                save(devices)
                return self.answer(204)
            if method == "GET":
                if client_id not in devices:
                    return self.answer(404, {"reason": "not_found"})
                return self.answer(200, {"clientid": client_id, "status": devices[client_id]["status"]})
            device = devices.get(body["clientid"])
            allowed = device and device["status"] == "active" and device["password"] == body["password"]
            return self.answer(200, {"result": "allow" if allowed else "deny"})

    def do_PUT(self):
        self.handle_call("PUT")

    def do_DELETE(self):
        self.handle_call("DELETE")

    def do_GET(self):
        self.handle_call("GET")

    def do_POST(self):
        self.handle_call("POST")


context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(os.path.join(STATE, "server.crt"), os.path.join(STATE, "server.key"))
server = ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
server.socket = context.wrap_socket(server.socket, server_side=True)
server.serve_forever()
