# Two receivers for the alert and report walk-throughs (docs/alerts.md,
# docs/exports-and-reports.md): an HTTP server for alert webhooks and an
# SMTP sink for e-mail, each on a free loopback port. Both print what they
# get to standard output; the ports are written to the file named by the
# first argument as HOOK_PORT= and SMTP_PORT= lines. Standard library only.
import http.server, socketserver, sys, threading
printing = threading.Lock()
def emit(*parts):
    # One write under a lock: the two servers' lines never interleave.
    with printing:
        sys.stdout.write(" ".join(parts) + "\n")
        sys.stdout.flush()
class Webhook(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        emit("webhook", self.headers["X-Vigil-Signature"], body.decode())
        self.send_response(204); self.end_headers()
    def log_message(self, *args): pass
class Mail(socketserver.StreamRequestHandler):
    def say(self, line): self.wfile.write(line.encode() + b"\r\n")
    def handle(self):
        self.say("220 sink")
        for line in self.rfile:
            verb = line[:4].upper()
            if verb == b"DATA":
                self.say("354 end with a dot")
                message = b""
                for line in self.rfile:
                    if line == b".\r\n": break
                    message += line
                emit("email", message.decode())
            self.say("221 bye" if verb == b"QUIT" else "250 ok")
            if verb == b"QUIT": return
hook = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Webhook)
mail = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Mail)
threading.Thread(target=mail.serve_forever, daemon=True).start()
with open(sys.argv[1], "w") as f:
    f.write(f"HOOK_PORT={hook.server_port}\nSMTP_PORT={mail.server_address[1]}\n")
hook.serve_forever()
