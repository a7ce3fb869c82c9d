#!/usr/bin/env bash
# Starts or stops the nginx the end-to-end benchmarks talk to: 127.0.0.1, a free port, keep-alive,
# one worker, no logs, no caching headers, fixture files generated into a state folder.
#
#   ./nginx.sh start STATE_DIR   # prints the base URL (http://127.0.0.1:PORT); STATE_DIR/base-url too
#                                # and, for issue 41, two TLS listeners on the same files:
#                                # STATE_DIR/tls-url (HTTP/1.1 only), STATE_DIR/h2-url (ALPN h2),
#                                # trusted through STATE_DIR/tls/ca.pem, a CA this script makes
#   ./nginx.sh stop STATE_DIR    # stops it (a no-op when it is not running)
#
# Fixtures (STATE_DIR/www): small.json (one todo, ~200 B), list100.json (100 todos, ~10 KB),
# list5000.json (5,000 todos, ~500 KB), big.bin (100 MB), events.sse (100,000 Server-Sent Events,
# ~14 MB, served as text/event-stream); POST /todos reads the body and answers 201 with a todo. nginx comes from Debian's packages: apt-get install -y nginx.
set -euo pipefail

command=${1:-}
state=${2:-}
[[ -n "$command" && -n "$state" ]] || { echo "usage: $0 start|stop STATE_DIR" >&2; exit 2; }

stop() {
    local pid_file="$state/nginx.pid"
    [[ -f "$pid_file" ]] || return 0
    local pid
    pid=$(cat "$pid_file")
    if kill -0 "$pid" 2>/dev/null; then
        kill -QUIT "$pid" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$pid_file"
}

fixtures() {
    local www=$1
    mkdir -p "$www"
    python3 - "$www" <<'PY'
import json, sys, os
www = sys.argv[1]
def todo(i, title="quis ut nam facilis et officia qui"):
    return {"userId": 1 + (i - 1) // 20, "id": i, "title": title, "completed": i % 3 == 0}
with open(os.path.join(www, "small.json"), "w") as f:  # ~200 B
    json.dump(todo(1, "delectus aut autem illo expedita consequatur quia in tempore odit fugiat, quis ut nam facilis et officia qui"), f, indent=4)
for n in (100, 5000):  # ~100 B a todo
    with open(os.path.join(www, f"list{n}.json"), "w") as f:
        json.dump([todo(i) for i in range(1, n + 1)], f)
# Issue 14: typical SSE text, as a chat-completion stream sends it: an id, an event type and one
# JSON data line of 60-100 bytes of token text per event. The lengths vary so that events do not
# line up with the transports' pieces the same way every time. Deterministic: the streaming
# benchmarks check the event count, and the parser benchmark downloads this same file.
words = ("the model streams each token as it is produced so that a reader sees the answer grow word "
         "by word while the rest of it is still being computed on the server").split()
with open(os.path.join(www, "events.sse"), "w", newline="") as f:
    for i in range(1, 100_001):
        size = 60 + (i * 37) % 41
        text, w = "", i
        while len(text) < size:
            text += words[w % len(words)] + " "
            w += 7
        f.write(f'id: {i}\nevent: message\ndata: {{"id":{i},"text":"{text[:size]}"}}\n\n')
PY
    [[ -f "$www/big.bin" && $(stat -c %s "$www/big.bin") -eq 104857600 ]] ||
        head -c 104857600 /dev/urandom >"$www/big.bin"
    chmod -R a+rX "$www"
}

# A private CA and a certificate for 127.0.0.1 signed by it, made once per state folder: clients
# trust the CA file (CurlTransport's certificateAuthorityFile, CURLOPT_CAINFO, NIOSSL's trustRoots),
# never "insecure" switches, so that the TLS benchmarks do the verification production does.
certificates() {
    local dir=$1
    [[ -f "$dir/ca.pem" && -f "$dir/server.pem" && -f "$dir/server.key" ]] && return 0
    mkdir -p "$dir"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
        -subj "/CN=EndpointRouter benchmark CA" -keyout "$dir/ca.key" -out "$dir/ca.pem" 2>/dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=127.0.0.1" \
        -keyout "$dir/server.key" -out "$dir/server.csr" 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >"$dir/ext.cnf"
    openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -days 30 \
        -extfile "$dir/ext.cnf" -out "$dir/server.pem" 2>/dev/null
}

free_port() {
    python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()'
}

start() {
    command -v nginx >/dev/null || { echo "nginx is not installed: apt-get install -y nginx" >&2; exit 1; }
    mkdir -p "$state/tmp"
    state=$(cd "$state" && pwd)
    chmod a+rx "$state"
    stop
    fixtures "$state/www"
    certificates "$state/tls"
    local port tls_port h2_port
    # What the three listeners share, written once and included by each server block: the files
    # and POST /todos (every listener), the certificate and TLS settings (the two TLS listeners).
    cat >"$state/locations.conf" <<CONF
root $state/www;
location = /todos {
    default_type application/json;
    if (\$request_method != POST) { return 405; }
    return 201 '{"userId":1,"id":201,"title":"quis ut nam facilis","completed":false}';
}
location / { }
CONF
    cat >"$state/tls.conf" <<CONF
ssl_certificate $state/tls/server.pem;
ssl_certificate_key $state/tls/server.key;
ssl_protocols TLSv1.2 TLSv1.3;
ssl_session_cache shared:bench:10m;
CONF
    for attempt in 1 2 3; do
        port=$(free_port)
        tls_port=$(free_port)
        h2_port=$(free_port)
        cat >"$state/nginx.conf" <<CONF
worker_processes 1;
pid $state/nginx.pid;
error_log $state/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    sendfile on;
    tcp_nodelay on;
    keepalive_timeout 120s;
    keepalive_requests 10000000;
    etag off;
    if_modified_since off;
    add_header Cache-Control no-store;
    types { application/json json; application/octet-stream bin; text/event-stream sse; }
    default_type application/octet-stream;
    client_body_temp_path $state/tmp/body;
    proxy_temp_path $state/tmp/proxy;
    fastcgi_temp_path $state/tmp/fastcgi;
    uwsgi_temp_path $state/tmp/uwsgi;
    scgi_temp_path $state/tmp/scgi;
    server {
        listen 127.0.0.1:$port;
        include $state/locations.conf;
    }
    server {
        listen 127.0.0.1:$tls_port ssl;
        include $state/tls.conf;
        include $state/locations.conf;
    }
    server {
        listen 127.0.0.1:$h2_port ssl http2;
        http2_max_concurrent_streams 256;
        include $state/tls.conf;
        include $state/locations.conf;
    }
}
CONF
        if nginx -p "$state" -c "$state/nginx.conf" -e "$state/error.log" 2>>"$state/error.log"; then
            for _ in $(seq 1 50); do
                if python3 -c "import urllib.request, sys; urllib.request.urlopen('http://127.0.0.1:$port/small.json', timeout=1)" 2>/dev/null; then
                    echo "https://127.0.0.1:$tls_port" >"$state/tls-url"
                    echo "https://127.0.0.1:$h2_port" >"$state/h2-url"
                    echo "http://127.0.0.1:$port" | tee "$state/base-url"
                    return 0
                fi
                sleep 0.1
            done
        fi
        echo "nginx did not start on port $port (attempt $attempt):" >&2
        tail -n 5 "$state/error.log" >&2 || true
        stop
    done
    exit 1
}

case "$command" in
    start) start ;;
    stop) stop ;;
    *) echo "usage: $0 start|stop STATE_DIR" >&2; exit 2 ;;
esac
