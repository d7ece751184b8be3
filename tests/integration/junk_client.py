"""junk_client.py - attack a running encore job's listening sockets.

Usage: junk_client.py DIR [CLOSE_TIMEOUT_S]
DIR is junk_target's directory (tracker address in DIR/tracker, rank pids in
DIR/pid.*).  The targets are the tracker and every TCP port the rank
processes listen on (from `ss -ltnpH`) that greets with an encore CHALLENGE.  Against each target, one connection
per attack:
  junk       random bytes
  magic      a well-formed 32-byte header with a bad magic
  truncated  the first 13 bytes of a header, then close
  huge       an AUTH header announcing a 4 GiB payload
  badsecret  a complete handshake, MAC made with a random key
  silent     connect and send nothing
Each attack passes when the peer closes the connection (EOF or reset) within
CLOSE_TIMEOUT_S (default 20) without ever sending AUTH_OK.  Frame layout: see
shim/proto/frame.h and shim/proto/auth.h.  Prints one line per attack, exits
1 if any failed.  Standard library only.
"""
import glob
import hashlib
import hmac
import os
import re
import socket
import struct
import subprocess
import sys
import time

MAGIC = 0x454E4352
HDR = struct.Struct(">IBBHIIQQ")  # magic version type src epoch check seq len
CHALLENGE, AUTH, AUTH_OK = 1, 2, 3
ROLE_DATA = 2


def header(mtype, length, magic=MAGIC, version=1):
    return HDR.pack(magic, version, mtype, 0, 0, 0, 0, length)


def listening_ports(pids):
    out = subprocess.run(["ss", "-ltnpH"], check=True, capture_output=True, text=True).stdout
    ports = set()
    for line in out.splitlines():
        found = {int(p) for p in re.findall(r"pid=(\d+)", line)}
        if found & pids:
            local = line.split()[3]
            host, port = local.rsplit(":", 1)
            host = host.strip("[]")
            if host in ("*", "0.0.0.0", "::"):
                host = "127.0.0.1"
            ports.add((host, int(port)))
    return sorted(t for t in ports if speaks_encore(t))


def speaks_encore(target):
    """The rank processes also hold Open MPI's own listeners: keep the ports
    that greet with an encore CHALLENGE frame."""
    try:
        with socket.create_connection(target, timeout=3) as sock:
            hdr = read_exact(sock, HDR.size, 3)
    except (OSError, ConnectionError):
        return False
    magic, _, mtype = HDR.unpack(hdr)[:3]
    return magic == MAGIC and mtype == CHALLENGE


def recv_until_closed(sock, timeout):
    """Reads until EOF; returns (closed, got_auth_ok)."""
    sock.settimeout(0.5)
    end = time.monotonic() + timeout
    data = b""
    while time.monotonic() < end:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            continue
        except (ConnectionResetError, BrokenPipeError):
            return True, auth_ok_in(data)
        if not chunk:
            return True, auth_ok_in(data)
        data += chunk
    return False, auth_ok_in(data)


def auth_ok_in(data):
    off = 0
    while off + HDR.size <= len(data):
        magic, _, mtype, _, _, _, _, length = HDR.unpack_from(data, off)
        if magic != MAGIC:
            return False
        if mtype == AUTH_OK:
            return True
        off += HDR.size + length
    return False


def read_exact(sock, n, timeout):
    sock.settimeout(timeout)
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("closed after %d of %d bytes" % (len(data), n))
        data += chunk
    return data


def send(sock, data):
    try:
        sock.sendall(data)
    except (ConnectionResetError, BrokenPipeError):
        pass


def attack_badsecret(sock, timeout):
    hdr = read_exact(sock, HDR.size, timeout)
    magic, version, mtype, _, _, _, _, length = HDR.unpack(hdr)
    if magic != MAGIC or mtype != CHALLENGE or length != 32:
        raise ValueError("unexpected first frame type %d len %d" % (mtype, length))
    nonce_s = read_exact(sock, 32, timeout)
    nonce_c = os.urandom(32)
    ident = struct.pack(">BIII", ROLE_DATA, 1, 0, 0)
    mac = hmac.new(os.urandom(32), b"encore-c" + nonce_s + nonce_c + ident,
                   hashlib.sha256).digest()
    payload = ident + nonce_c + mac
    send(sock, header(AUTH, len(payload)) + payload)


ATTACKS = {
    "junk": lambda s, t: send(s, os.urandom(512)),
    "magic": lambda s, t: send(s, header(AUTH, 77, magic=0xDEADBEEF) + b"\0" * 77),
    "truncated": lambda s, t: (send(s, header(AUTH, 77)[:13]), s.shutdown(socket.SHUT_WR)),
    "huge": lambda s, t: send(s, header(AUTH, 4 << 30)),
    "badsecret": attack_badsecret,
    "silent": lambda s, t: None,
}


def run_attack(name, target, timeout):
    try:
        sock = socket.create_connection(target, timeout=5)
    except OSError as e:
        return "FAIL %s %s:%d cannot connect: %s" % (name, target[0], target[1], e)
    try:
        ATTACKS[name](sock, timeout)
        closed, ok = recv_until_closed(sock, timeout)
    except (OSError, ValueError, ConnectionError) as e:
        closed, ok = isinstance(e, ConnectionError), False
        if not closed:
            return "FAIL %s %s:%d %s" % (name, target[0], target[1], e)
    finally:
        sock.close()
    if ok:
        return "FAIL %s %s:%d peer sent AUTH_OK" % (name, target[0], target[1])
    if not closed:
        return "FAIL %s %s:%d still open after %gs" % (name, target[0], target[1], timeout)
    return "ok   %s %s:%d closed" % (name, target[0], target[1])


def main():
    d = sys.argv[1]
    timeout = float(sys.argv[2]) if len(sys.argv) > 2 else 20.0
    with open(os.path.join(d, "tracker")) as f:
        host, port = f.read().strip().rsplit(":", 1)
    pids = set()
    for p in glob.glob(os.path.join(d, "pid.*")):
        with open(p) as f:
            pids.add(int(f.read()))
    targets = [(host.strip("[]"), int(port))] + listening_ports(pids)
    if len(targets) < 2:
        print("FAIL no rank listening port found for pids %s" % sorted(pids))
        return 1
    results = []
    for target in targets:
        for name in ATTACKS:
            results.append(run_attack(name, target, timeout))
    print("\n".join(results))
    print("targets %d attacks %d failed %d" % (len(targets), len(results),
                                               sum(r.startswith("FAIL") for r in results)))
    return 1 if any(r.startswith("FAIL") for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
