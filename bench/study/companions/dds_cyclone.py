"""The DDS companion: Eclipse Cyclone DDS through its Python binding (PyPI `cyclonedds`, whose
wheel bundles the C library), RTPS over UDP on the wire.

Discovery: the bench points CYCLONEDDS_URI at a configuration with multicast off and the peer
127.0.0.1 (bench/study/dds-config.js), so participants find each other by unicast on loopback,
where a sandbox may have no multicast at all. Topics: `req` and `res` (or `--in-topic`/`--out-topic`
for a forwarder); samples are one string (ASCII payload), reliable, keep last 16.

  python dds_cyclone.py echo|ping|forward|chain [options of common.py]
"""
import os
import sys
import threading
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

from cyclonedds.core import Listener, Policy, Qos  # noqa: E402
from cyclonedds.domain import DomainParticipant  # noqa: E402
from cyclonedds.idl import IdlStruct  # noqa: E402
from cyclonedds.pub import DataWriter  # noqa: E402
from cyclonedds.sub import DataReader  # noqa: E402
from cyclonedds.topic import Topic  # noqa: E402


@dataclass
class Blob(IdlStruct, typename="s7twin_study::Blob"):
    # An IDL string, as ROS's std_msgs/String: the binding copies a str in one piece, where a
    # sequence<octet> goes element by element (1 ms for 32 KiB, more than the round trip itself).
    data: str


QOS = Qos(Policy.Reliability.Reliable(max_blocking_time=1_000_000_000), Policy.History.KeepLast(16))


class Node:
    """One participant with writers and readers made on demand."""

    def __init__(self):
        self.dp = DomainParticipant(0)
        self.topics = {}

    def topic(self, name):
        if name not in self.topics:
            self.topics[name] = Topic(self.dp, name, Blob, qos=QOS)
        return self.topics[name]

    def writer(self, name):
        w = DataWriter(self.dp, self.topic(name), qos=QOS)
        return lambda data: w.write(Blob(data=data.decode("ascii")))

    def reader(self, name, on_data):
        def on_available(reader):
            for s in reader.take(N=64):
                on_data(s.data.encode("ascii"))
        self._keep = getattr(self, "_keep", [])
        r = DataReader(self.dp, self.topic(name), qos=QOS, listener=Listener(on_data_available=on_available))
        self._keep.append(r)
        return r


def main():
    args = common.parse_args()
    stopped = threading.Event()
    common.exit_with_stdin(stopped.set)
    node = Node()
    if args.role == "echo":
        send = node.writer("res")
        node.reader("req", lambda d: send(d if args.mode == "echo" else b"\x01"))
        common.emit({"event": "ready", "pid": common.pid()})
        common.block_until(stopped)
    elif args.role == "forward":
        send = node.writer(args.out_topic)
        node.reader(args.in_topic, send)
        common.emit({"event": "ready", "pid": common.pid()})
        common.block_until(stopped)
    elif args.role == "ping":
        replies = common.Replies()
        send = node.writer("req")
        node.reader("res", replies.put)
        common.ping_loop(args, send, replies)
    else:
        senders = [node.writer(common.chain_topic(s, 0)) for s in range(args.streams)]
        replies = [common.Replies() for _ in range(args.streams)]
        for s in range(args.streams):
            node.reader(common.chain_topic(s, args.hops), replies[s].put)
        common.chain_loop(args, lambda s, d: senders[s](d), lambda s: replies[s])
    # Deleting the participant ends its discovery data cleanly (the others see it leave), as an
    # application closing down would.
    del node
    os._exit(0)


if __name__ == "__main__":
    main()
