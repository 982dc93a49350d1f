// The Fast DDS companion: eProsima Fast DDS (Debian's libfastrtps, the stack the study measured
// as Fast RTPS 1.6), RTPS over UDPv4 on the wire. Built by bench/study/build-fastdds.sh with the
// machine's g++ against Debian's headers; speaks to the bench like the Python companions
// (common.py): one JSON object a line on stdout, ends when stdin closes.
//
//   fastdds echo|ping|forward [--sizes 2,4] [--count N] [--warmup N] [--prewarm N] [--mode echo|ack]
//                             [--in-topic T] [--out-topic T] [--peers N]
//
// The type is one string (4 bytes of length, the text, a NUL), as the other companions carry, with
// its type support written by hand: Debian's fastddsgen would generate the same from an IDL file
// but needs a Java build step for one member. Shared memory is off and UDPv4 bound to 127.0.0.1,
// with 127.0.0.1 as the initial peer and no multicast, so every byte crosses loopback where a
// capture sees it, and discovery works where a sandbox has no multicast.
#include <fastcdr/Cdr.h>
#include <fastcdr/FastBuffer.h>
#include <fastdds/dds/domain/DomainParticipant.hpp>
#include <fastdds/dds/domain/DomainParticipantFactory.hpp>
#include <fastdds/dds/publisher/DataWriter.hpp>
#include <fastdds/dds/publisher/Publisher.hpp>
#include <fastdds/dds/subscriber/DataReader.hpp>
#include <fastdds/dds/subscriber/DataReaderListener.hpp>
#include <fastdds/dds/subscriber/SampleInfo.hpp>
#include <fastdds/dds/subscriber/Subscriber.hpp>
#include <fastdds/dds/topic/Topic.hpp>
#include <fastdds/dds/topic/TopicDataType.hpp>
#include <fastdds/dds/topic/TypeSupport.hpp>
#include <fastdds/rtps/transport/UDPv4TransportDescriptor.h>
#include <fastrtps/utils/IPLocator.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace eprosima::fastdds::dds;
using eprosima::fastcdr::Cdr;
using eprosima::fastcdr::FastBuffer;
using eprosima::fastrtps::rtps::InstanceHandle_t;
using eprosima::fastrtps::rtps::SerializedPayload_t;

namespace {

constexpr uint32_t kMaxBytes = 70000;  // the largest sample: 32 KiB payloads with room to spare

class BlobType : public TopicDataType {
 public:
  BlobType() {
    setName("s7twin_study::Blob");
    m_typeSize = kMaxBytes + 4 + 4 + 1;
    m_isGetKeyDefined = false;
  }
  bool serialize(void* data, SerializedPayload_t* payload) override {
    FastBuffer fb(reinterpret_cast<char*>(payload->data), payload->max_size);
    Cdr ser(fb, Cdr::DEFAULT_ENDIAN, Cdr::DDS_CDR);
    payload->encapsulation = ser.endianness() == Cdr::BIG_ENDIANNESS ? CDR_BE : CDR_LE;
    ser.serialize_encapsulation();
    ser << *static_cast<std::string*>(data);
    payload->length = static_cast<uint32_t>(ser.getSerializedDataLength());
    return true;
  }
  bool deserialize(SerializedPayload_t* payload, void* data) override {
    FastBuffer fb(reinterpret_cast<char*>(payload->data), payload->length);
    Cdr deser(fb, Cdr::DEFAULT_ENDIAN, Cdr::DDS_CDR);
    deser.read_encapsulation();
    payload->encapsulation = deser.endianness() == Cdr::BIG_ENDIANNESS ? CDR_BE : CDR_LE;
    deser >> *static_cast<std::string*>(data);
    return true;
  }
  std::function<uint32_t()> getSerializedSizeProvider(void* data) override {
    return [data]() { return static_cast<uint32_t>(4 + 4 + static_cast<std::string*>(data)->size() + 1); };
  }
  void* createData() override { return new std::string(); }
  void deleteData(void* data) override { delete static_cast<std::string*>(data); }
  bool getKey(void*, InstanceHandle_t*, bool) override { return false; }
};

struct Args {
  std::string role;
  std::vector<int> sizes{2};
  int count = 100, warmup = 10, peers = 4, prewarm = 0;
  std::string mode = "echo", in_topic, out_topic;
};

Args parse(int argc, char** argv) {
  Args a;
  if (argc > 1) a.role = argv[1];
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--sizes") {
      a.sizes.clear();
      std::stringstream ss(v);
      std::string item;
      while (std::getline(ss, item, ',')) if (!item.empty()) a.sizes.push_back(std::stoi(item));
    } else if (k == "--count") a.count = std::stoi(v);
    else if (k == "--warmup") a.warmup = std::stoi(v);
    else if (k == "--prewarm") a.prewarm = std::stoi(v);
    else if (k == "--peers") a.peers = std::stoi(v);
    else if (k == "--mode") a.mode = v;
    else if (k == "--in-topic") a.in_topic = v;
    else if (k == "--out-topic") a.out_topic = v;
  }
  return a;
}

void emit(const std::string& json) {
  std::cout << json << "\n";
  std::cout.flush();
}

// Samples a reader hands to whoever waits, with the time each arrived.
struct Inbox : public DataReaderListener {
  std::mutex m;
  std::condition_variable cv;
  std::deque<std::pair<std::chrono::steady_clock::time_point, std::string>> q;
  std::function<void(const std::string&)> on_data;  // set: forward at once instead of queueing
  void on_data_available(DataReader* reader) override {
    std::string s;
    SampleInfo info;
    while (reader->take_next_sample(&s, &info) == ReturnCode_t::RETCODE_OK) {
      if (!info.valid_data) continue;
      if (on_data) { on_data(s); continue; }
      auto t = std::chrono::steady_clock::now();
      std::lock_guard<std::mutex> lk(m);
      q.emplace_back(t, s);
      cv.notify_one();
    }
  }
  bool get(std::chrono::milliseconds timeout, std::pair<std::chrono::steady_clock::time_point, std::string>* out) {
    std::unique_lock<std::mutex> lk(m);
    if (!cv.wait_for(lk, timeout, [&] { return !q.empty(); })) return false;
    *out = q.front();
    q.pop_front();
    return true;
  }
  void drain() { std::lock_guard<std::mutex> lk(m); q.clear(); }
};

struct Node {
  DomainParticipant* dp = nullptr;
  Publisher* pub = nullptr;
  Subscriber* sub = nullptr;
  TypeSupport type{new BlobType()};
  std::map<std::string, Topic*> topics;
  std::vector<Inbox*> inboxes;

  explicit Node(int peers) {
    DomainParticipantQos pq;
    pq.transport().use_builtin_transports = false;  // no shared memory: every byte on loopback
    auto udp = std::make_shared<eprosima::fastdds::rtps::UDPv4TransportDescriptor>();
    udp->interfaceWhiteList.push_back("127.0.0.1");
    udp->maxInitialPeersRange = peers;  // participants per host the initial peer reaches
    pq.transport().user_transports.push_back(udp);
    eprosima::fastrtps::rtps::Locator_t peer;
    eprosima::fastrtps::rtps::IPLocator::setIPv4(peer, "127.0.0.1");
    pq.wire_protocol().builtin.initialPeersList.push_back(peer);
    pq.wire_protocol().builtin.avoid_builtin_multicast = true;
    dp = DomainParticipantFactory::get_instance()->create_participant(0, pq);
    if (!dp) throw std::runtime_error("create_participant failed");
    type.register_type(dp);
    pub = dp->create_publisher(PUBLISHER_QOS_DEFAULT);
    sub = dp->create_subscriber(SUBSCRIBER_QOS_DEFAULT);
  }
  Topic* topic(const std::string& name) {
    if (!topics.count(name)) topics[name] = dp->create_topic(name, type.get_type_name(), TOPIC_QOS_DEFAULT);
    return topics[name];
  }
  DataWriterQos wqos() {
    DataWriterQos q = DATAWRITER_QOS_DEFAULT;
    q.reliability().kind = RELIABLE_RELIABILITY_QOS;
    q.history().kind = KEEP_LAST_HISTORY_QOS;
    q.history().depth = 16;
    return q;
  }
  DataReaderQos rqos() {
    DataReaderQos q = DATAREADER_QOS_DEFAULT;
    q.reliability().kind = RELIABLE_RELIABILITY_QOS;
    q.history().kind = KEEP_LAST_HISTORY_QOS;
    q.history().depth = 16;
    return q;
  }
  std::function<void(const std::string&)> writer(const std::string& name) {
    DataWriter* w = pub->create_datawriter(topic(name), wqos());
    return [w](const std::string& s) { std::string copy = s; w->write(&copy); };
  }
  Inbox* reader(const std::string& name) {
    auto* in = new Inbox();
    inboxes.push_back(in);
    sub->create_datareader(topic(name), rqos(), in);
    return in;
  }
  ~Node() {
    dp->delete_contained_entities();
    DomainParticipantFactory::get_instance()->delete_participant(dp);
    for (auto* in : inboxes) delete in;
  }
};

// Wall-clock seconds, the clock a capture stamps packets with.
double epoch_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string payload(int size, long seq) {
  if (size <= 0) return "";
  char head[16];
  std::snprintf(head, sizeof head, "%08ld", seq % 100000000L);
  std::string h(head);
  if (size < 8) return h.substr(8 - size);
  return (h + std::string(size - 8, 'x'));
}

void ping(Node& node, const Args& a) {
  auto send = node.writer("req");
  Inbox* in = node.reader("res");
  std::pair<std::chrono::steady_clock::time_point, std::string> got;
  auto t0 = std::chrono::steady_clock::now();
  long seq = 10000000;
  bool matched = false;
  while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60)) {
    send(payload(8, seq++));
    if (in->get(std::chrono::milliseconds(100), &got)) { matched = true; break; }
  }
  if (!matched) { emit("{\"event\":\"error\",\"code\":\"E_COMPANION_TIMEOUT\",\"message\":\"no answer from the echo within 60 s\"}"); return; }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  in->drain();
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  emit("{\"event\":\"matched\",\"s\":" + std::to_string(s) + "}");
  seq = 0;
  // Round trips before any size is timed, as the other companions do.
  for (int i = 0; i < a.prewarm; i++) {
    send(payload(64, ++seq));
    in->get(std::chrono::milliseconds(1000), &got);
  }
  in->drain();
  for (int size : a.sizes) {
    std::string rtts;
    int lost = 0;
    double t_start = epoch_s();
    for (int i = 0; i < a.warmup + a.count; i++) {
      std::string msg = payload(size, ++seq);
      auto start = std::chrono::steady_clock::now();
      send(msg);
      while (true) {
        if (!in->get(std::chrono::milliseconds(1000), &got)) { lost++; break; }  // lost: a longer wait only delays the next
        bool ok = a.mode == "echo" ? got.second == msg : got.second.size() == 1;
        if (!ok) continue;
        if (i >= a.warmup) {
          long us = std::chrono::duration_cast<std::chrono::microseconds>(got.first - start).count();
          rtts += (rtts.empty() ? "" : ",") + std::to_string(us);
        }
        break;
      }
    }
    char win[128];
    std::snprintf(win, sizeof win, ",\"t0\":%.6f,\"t1\":%.6f,\"messages\":%d", t_start, epoch_s(), a.warmup + a.count);
    emit("{\"size\":" + std::to_string(size) + ",\"rtt_us\":[" + rtts + "],\"lost\":" + std::to_string(lost) + win + "}");
  }
  emit("{\"event\":\"done\"}");
}

void serve(Node& node, const std::string& in_topic, const std::string& out_topic, bool ack) {
  auto send = node.writer(out_topic);
  Inbox* in = new Inbox();
  in->on_data = [send, ack](const std::string& s) { send(ack ? std::string("\x01", 1) : s); };
  node.inboxes.push_back(in);
  node.sub->create_datareader(node.topic(in_topic), node.rqos(), in);
  emit("{\"event\":\"ready\",\"pid\":" + std::to_string(::getpid()) + "}");
  std::string line;
  while (std::getline(std::cin, line)) {}  // until the bench closes our stdin
}

}  // namespace

int main(int argc, char** argv) {
  Args a = parse(argc, argv);
  if (a.role != "echo" && a.role != "ping" && a.role != "forward") {
    std::cerr << "usage: fastdds echo|ping|forward [options]\n";
    return 2;
  }
  if (a.role == "ping") {
    // The bench closing our stdin ends a ping too, wherever it is (echo and forward read stdin).
    std::thread([] { std::string line; while (std::getline(std::cin, line)) {} std::_Exit(0); }).detach();
  }
  {
    Node node(a.peers);
    if (a.role == "ping") ping(node, a);
    else if (a.role == "echo") serve(node, "req", "res", a.mode == "ack");
    else serve(node, a.in_topic, a.out_topic, false);
  }  // the participant is deleted here: the others see it leave, as when an application closes
  return 0;
}
