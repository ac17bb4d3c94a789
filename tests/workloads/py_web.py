# A Python web server with known request handlers (tests/integration/test_python.sh):
#   GET /cpu    ...;Handler.do_GET;render_page;checksum        burns CPU in pure Python
#   GET /wait   ...;Handler.do_GET;wait_for_turn;Condition.wait  waits 50 ms on a Condition
#   GET /stats  "CHECKSUM_CPU PROCESS_CPU": the CPU seconds spent in checksum so far
#               (each thread's own clock) and the whole process's, as the process counts them
# http.server's ThreadingHTTPServer on 127.0.0.1: a thread per connection (per
# request, unless the client keeps its connection alive). Prints "ready PORT"
# once it listens; serves until killed.
import http.server
import threading
import time

PAGE = bytes(range(256)) * 64
spent = 0.0
spent_lock = threading.Lock()
turn = threading.Condition()


def checksum(data):
    global spent
    start = time.thread_time()
    total = 0
    for _ in range(4):
        for b in data:
            total = (total * 31 + b) & 0xFFFFFFFF
    with spent_lock:
        spent += time.thread_time() - start
    return total


def render_page():
    return b"%08x\n" % checksum(PAGE)


def wait_for_turn():
    # nobody notifies: each request waits out its timeout, as for a busy resource
    with turn:
        turn.wait(0.05)
    return b"waited\n"


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # the headers and the body are two writes: without this the body waits out the client's delayed ACK
    disable_nagle_algorithm = True

    def do_GET(self):
        if self.path == "/cpu":
            body = render_page()
        elif self.path == "/wait":
            body = wait_for_turn()
        elif self.path == "/stats":
            with spent_lock:
                body = b"%.6f %.6f\n" % (spent, time.process_time())
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        if not self.close_connection:
            # an HTTP/1.0 client asking to keep its connection (ab -k) waits for this, or for the close
            self.send_header("Connection", "keep-alive")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print("ready", server.server_address[1], flush=True)
server.serve_forever()
