"""Stand-ins for registration-service and EMQX's REST API in E2eChecksLiveTest, sharing state through files.

registration: PUT/DELETE /v1/devices/<id>, bearer token checked against FAKE_TOKEN; a DELETE or a second PUT of a
device whose MQTT session runs kicks it (EMQX drops the client KICK_DELAY seconds later).
emqx-api: GET /api/v5/clients/<id>, basic auth checked; 200 {"connected": true} while the session Job runs and no
kick has landed, 404 CLIENTID_NOT_FOUND after.
"""
import base64
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

KIND, PORT, STATE = sys.argv[1], int(sys.argv[2]), sys.argv[3]
KICK_DELAY = 1.0


def path(name):
    return os.path.join(STATE, name)


def log(line):
    with open(path("requests"), "a") as f:
        f.write(line + "\n")


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body=None):
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def registration(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        log(f"{KIND} {self.command} {self.path} auth={self.headers.get('Authorization')}")
        if self.headers.get("Authorization") != "Bearer " + os.environ["FAKE_TOKEN"]:
            return self.answer(401, {"reason": "unauthorized"})
        device = self.path.rsplit("/", 1)[-1]
        known = os.path.exists(path("device-" + device))
        if self.command == "PUT":
            password = json.loads(body)["password"]
            if len(password) < 22:
                return self.answer(400, {"reason": "invalid_request"})
            if known:
                open(path("kicked"), "w").write(str(time.time()))
            open(path("device-" + device), "w").write(password)
            return self.answer(200 if known else 201, {"clientid": device})
        if self.command == "DELETE":
            open(path("kicked"), "w").write(str(time.time()))
            return self.answer(204)
        return self.answer(405)

    def emqx_api(self):
        log(f"{KIND} {self.command} {self.path} auth={self.headers.get('Authorization')}")
        expected = "Basic " + base64.b64encode(
            ("registration-service:" + os.environ["FAKE_API_SECRET"]).encode()).decode()
        if self.headers.get("Authorization") != expected:
            return self.answer(401, {"code": "BAD_API_KEY_OR_SECRET"})
        kicked = os.path.exists(path("kicked")) and time.time() - float(open(path("kicked")).read()) >= KICK_DELAY
        if os.path.exists(path("session")) and not kicked:
            return self.answer(200, {"clientid": self.path.rsplit("/", 1)[-1], "connected": True})
        return self.answer(404, {"code": "CLIENTID_NOT_FOUND", "message": "Client ID not found"})

    def do_GET(self):
        self.emqx_api() if KIND == "emqx-api" else self.answer(405)

    def do_PUT(self):
        self.registration() if KIND == "registration" else self.answer(405)

    def do_DELETE(self):
        self.registration() if KIND == "registration" else self.answer(405)


HTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
