"""What every Python companion of the protocol study shares: the command line, the lines it
writes for the bench, and the timing loops that do not depend on the protocol.

A companion speaks one real protocol stack on the wire (ROS 1 through rospy, DDS through Cyclone
DDS) and talks to the bench (bench/study/) over stdin/stdout only: it writes one JSON object a
line on stdout and ends when its stdin closes (or on SIGTERM), so the bench that started it never
leaves it behind. The roles:

  echo     answer every request on the request topic with the same bytes (mode echo) or with one
           byte (mode ack) on the response topic
  ping     wait until the echo answers, `prewarm` round trips untimed, then time `count` round
           trips per payload size (each after `warmup` untimed); write
           {"size":S,"rtt_us":[...]} per size and {"event":"done"}
  forward  subscribe to one topic and publish every message unchanged on another (a node of the
           many-nodes chain)
  chain    send one message down each of `streams` chains of forwarders at once and time until all
           come back, `rounds` times

Round trips are timed in the companion (time.perf_counter_ns), as the study's clients timed theirs,
so the pipe to the bench is never inside a sample.
"""
import argparse
import json
import os
import queue
import signal
import sys
import threading
import time

REPLY_TIMEOUT_S = 1.0  # a round trip longer than this is counted as lost, not waited for (a datagram
# dropped by a full queue never comes back, and the next one must not wait long for it)
MATCH_TIMEOUT_S = 60.0  # discovery on a loaded 2-core machine can take seconds


def emit(obj):
    """Write one JSON line for the bench (flushed: the bench reads as we go)."""
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def parse_args(argv=None):
    """The command line every companion shares."""
    p = argparse.ArgumentParser()
    p.add_argument("role", choices=["echo", "ping", "forward", "chain"])
    p.add_argument("--sizes", default="2")
    p.add_argument("--count", type=int, default=100)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--prewarm", type=int, default=0)
    p.add_argument("--mode", choices=["echo", "ack"], default="echo")
    p.add_argument("--name", default="")
    p.add_argument("--in-topic", dest="in_topic", default="")
    p.add_argument("--out-topic", dest="out_topic", default="")
    p.add_argument("--streams", type=int, default=1)
    p.add_argument("--hops", type=int, default=1)
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--size", type=int, default=10240)
    return p.parse_args(argv)


def sizes_of(text):
    """'2,4,8' -> [2, 4, 8]"""
    return [int(s) for s in text.split(",") if s.strip() != ""]


def payload(size, seq):
    """`size` ASCII bytes that differ from one message to the next (they start with the sequence
    number's last digits), so an answer to an earlier request is never taken for the current one.
    ASCII so that a stack carrying text (ROS's std_msgs/String, an IDL string) sends exactly
    `size` bytes of it."""
    if size <= 0:
        return b""
    head = b"%08d" % (seq % 10 ** 8)
    return (head + b"x" * max(0, size - 8))[:size] if size >= 8 else head[-size:]


def exit_with_stdin(on_exit):
    """End the process when the bench closes our stdin or sends SIGTERM/SIGINT."""
    def watch():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        except Exception:  # noqa: BLE001 -- a closed pipe ends us the same way
            pass
        on_exit()
    threading.Thread(target=watch, daemon=True).start()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: on_exit())


class Replies:
    """The answers a subscriber callback hands to the timing loop."""

    def __init__(self):
        self.q = queue.Queue()

    def put(self, data):
        self.q.put((time.perf_counter_ns(), data))

    def get(self, timeout):
        try:
            return self.q.get(timeout=timeout)
        except queue.Empty:
            return None

    def drain(self):
        while not self.q.empty():
            self.q.get_nowait()


def wait_echo(send, replies, timeout_s=MATCH_TIMEOUT_S):
    """Send a small request every 100 ms until one comes back: discovery and connection set-up
    are over when the echo answers. Returns the seconds it took."""
    t0 = time.monotonic()
    seq = 10 ** 7
    while time.monotonic() - t0 < timeout_s:
        send(payload(8, seq))
        got = replies.get(0.1)
        if got is not None:
            time.sleep(0.05)
            replies.drain()
            return time.monotonic() - t0
        seq += 1
    raise TimeoutError("no answer from the echo within %.0f s" % timeout_s)


def ping_loop(args, send, replies):
    """The study's echo/ACK test: for each size, `warmup` untimed then `count` timed round trips,
    back to back (the study sent its requests "continuously without waiting in between")."""
    matched_s = wait_echo(send, replies)
    emit({"event": "matched", "s": round(matched_s, 3)})
    seq = 0
    # Round trips before any size is timed, so that the first sizes do not carry the stacks'
    # start (caches, a JIT compiler) that the later ones no longer pay.
    for _ in range(args.prewarm):
        seq += 1
        send(payload(64, seq))
        replies.get(REPLY_TIMEOUT_S)
    replies.drain()
    for size in sizes_of(args.sizes):
        rtts, lost = [], 0
        t_start = time.time()
        for i in range(args.warmup + args.count):
            seq += 1
            msg = payload(size, seq)
            t0 = time.perf_counter_ns()
            send(msg)
            while True:
                got = replies.get(REPLY_TIMEOUT_S)
                if got is None:
                    lost += 1
                    break
                t1, data = got
                ok = (data == msg) if args.mode == "echo" else (len(data) == 1)
                if ok:
                    if i >= args.warmup:
                        rtts.append((t1 - t0) // 1000)
                    break
        emit({"size": size, "rtt_us": rtts, "lost": lost, "t0": t_start, "t1": time.time(),
              "messages": args.warmup + args.count})
    emit({"event": "done"})


def chain_loop(args, send_to, replies_of):
    """The many-nodes test: one message of `size` bytes down each stream at once; a round is over
    when every stream's message is back. `send_to(stream, data)`, `replies_of(stream)`."""
    def all_back(round_no, timeout_s):
        deadline = time.monotonic() + timeout_s
        msgs = [payload(args.size, round_no * 1000 + s) for s in range(args.streams)]
        t0 = time.perf_counter_ns()
        for s in range(args.streams):
            send_to(s, msgs[s])
        last = t0
        for s in range(args.streams):
            while True:
                left = deadline - time.monotonic()
                got = replies_of(s).get(max(0.001, left)) if left > 0 else None
                if got is None:
                    return None
                if got[1] == msgs[s]:
                    last = max(last, got[0])
                    break
        return (last - t0) // 1000

    t0 = time.monotonic()
    ready = None
    while time.monotonic() - t0 < MATCH_TIMEOUT_S * 5:  # every hop must discover its neighbours
        if all_back(0, 2.0) is not None:
            ready = time.monotonic() - t0
            break
    if ready is None:
        emit({"event": "error", "code": "E_CHAIN_NOT_READY", "message": "no message came through every chain"})
        return
    emit({"event": "matched", "s": round(ready, 3)})
    for s in range(args.streams):
        replies_of(s).drain()
    rtts, lost = [], 0
    for r in range(1, args.rounds + 1):
        rtt = all_back(r, 30.0)
        if rtt is None:
            lost += 1
            for s in range(args.streams):
                replies_of(s).drain()
        else:
            rtts.append(rtt)
    emit({"size": args.size, "streams": args.streams, "hops": args.hops, "rtt_us": rtts, "lost": lost})
    emit({"event": "done"})


def chain_topic(stream, hop):
    """The topic between hop-1 and hop of one stream of the many-nodes chain."""
    return "chain_%d_%d" % (stream, hop)


def block_until(stopped):
    """Sleep the main thread until `stopped` is set (signals still arrive)."""
    while not stopped.wait(0.5):
        pass


def pid():
    return os.getpid()
