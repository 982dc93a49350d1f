"""The ROS companion: ROS 1 (Debian's python3-rospy, ROS Noetic's client library), XML-RPC to the
master and TCPROS between the nodes on the wire. ROS 2 is in none of the registries this project
may use, so this is ROS 1, the ROS the study measured (Kinetic, through roscpp); its DDS row is
beside it (dds_cyclone.py).

The bench starts the master (`rosmaster --core`) on a loopback port and gives every node
ROS_MASTER_URI and ROS_HOSTNAME=127.0.0.1. Topics `/req` and `/res` (or `--in-topic`/`--out-topic`)
carry std_msgs/String, as the study's ROS test did (4 bytes of length before the text); every
subscriber asks for TCP_NODELAY, as a latency-minded ROS user would.

  /usr/bin/python3 ros1.py echo|ping|forward|chain [options of common.py]
"""
import os
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

import rospy  # noqa: E402
from std_msgs.msg import String  # noqa: E402

QUEUE = 16  # messages a publisher holds for a slow subscriber


def publisher(topic):
    pub = rospy.Publisher(topic, String, queue_size=QUEUE, tcp_nodelay=True)
    return lambda data: pub.publish(String(data=data.decode("ascii")))


def subscribe(topic, on_data):
    return rospy.Subscriber(topic, String, lambda m: on_data(m.data.encode("ascii")), tcp_nodelay=True, queue_size=QUEUE)


def main():
    args = common.parse_args(rospy.myargv(argv=sys.argv)[1:])
    stopped = threading.Event()
    common.exit_with_stdin(stopped.set)
    rospy.init_node(args.name or ("study_" + args.role), anonymous=True, disable_signals=True)
    if args.role == "echo":
        send = publisher("/res")
        subscribe("/req", lambda d: send(d if args.mode == "echo" else b"\x01"))
        common.emit({"event": "ready", "pid": common.pid()})
        common.block_until(stopped)
    elif args.role == "forward":
        send = publisher("/" + args.out_topic)
        subscribe("/" + args.in_topic, send)
        common.emit({"event": "ready", "pid": common.pid()})
        common.block_until(stopped)
    elif args.role == "ping":
        replies = common.Replies()
        send = publisher("/req")
        subscribe("/res", replies.put)
        common.ping_loop(args, send, replies)
    else:
        senders = [publisher("/" + common.chain_topic(s, 0)) for s in range(args.streams)]
        replies = [common.Replies() for _ in range(args.streams)]
        for s in range(args.streams):
            subscribe("/" + common.chain_topic(s, args.hops), replies[s].put)
        common.chain_loop(args, lambda s, d: senders[s](d), lambda s: replies[s])
    # Unregister from the master as a node closing down does (part of the study's set-up bytes).
    rospy.signal_shutdown("done")
    os._exit(0)


if __name__ == "__main__":
    main()
