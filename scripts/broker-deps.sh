#!/usr/bin/env bash
# Installs the message brokers the real-broker tests start (system/brokers/), where they are
# missing, when this machine allows it, as scripts/system-deps.sh does for the other tests:
#   rabbitmq-server  RabbitMQ from Debian's packages (AMQP 0-9-1; brings Erlang and its epmd)
#   mosquitto        Eclipse Mosquitto from Debian's packages (with mosquitto_passwd)
#   kafka            Apache Kafka's broker from Maven Central (org.apache.kafka:kafka_2.13 and its
#                    runtime dependencies) copied into .tools/kafka/libs once per version, run with
#                    the machine's Java; Java 17+ and Maven come from Debian's packages where missing
# Nothing is installed or fetched when everything is there. Debian's packages need root and
# apt-get; where the machine does not allow an install, it says what is missing and stops (exit 2):
# a test that needs one of them cannot pass without it. Prints nothing on stdout.
#   bash scripts/broker-deps.sh                     all three
#   bash scripts/broker-deps.sh kafka mosquitto     only those named
#   KAFKA_VERSION=4.x.y bash scripts/broker-deps.sh kafka
#                                                   another Kafka (the default is the tested one)
# Installing rabbitmq-server or mosquitto also enables their system services, which start where
# the machine runs an init system; the project never uses them (it starts its own, on other ports).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KAFKA_VERSION="${KAFKA_VERSION:-4.1.2}"      # inside @platformatic/kafka's supported range (3.5 to 4.2)
LOG4J_VERSION="${LOG4J_VERSION:-2.25.3}"     # log4j-core's version in that Kafka's dependencies: the SLF4J binding must match it
DEPENDENCY_PLUGIN=3.8.1                       # maven-dependency-plugin, pinned (Maven 3.8's default is 2.8)
KAFKA_DIR="$ROOT/.tools/kafka"

if [ $# -gt 0 ]; then wanted=("$@"); else wanted=(rabbitmq-server mosquitto kafka); fi

has() { command -v "$1" >/dev/null 2>&1; }
java_major() { java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1; }
kafka_stamp() { echo "kafka_2.13-$KAFKA_VERSION log4j-slf4j-impl-$LOG4J_VERSION"; }
kafka_ready() { [ -f "$KAFKA_DIR/libs/kafka_2.13-$KAFKA_VERSION.jar" ] && [ "$(cat "$KAFKA_DIR/.stamp" 2>/dev/null)" = "$(kafka_stamp)" ]; }

# Debian packages missing for what was asked.
debs=()
for w in "${wanted[@]}"; do
  case "$w" in
    rabbitmq-server) [ -x /usr/lib/rabbitmq/bin/rabbitmq-server ] && has epmd || debs+=(rabbitmq-server) ;;
    mosquitto) { [ -x /usr/sbin/mosquitto ] || has mosquitto; } && has mosquitto_passwd || debs+=(mosquitto) ;;
    kafka)
      if ! kafka_ready; then
        # Debian 12's default Java is 17; later releases' defaults are newer, which Kafka also takes.
        { has java && [ "$(java_major)" -ge 17 ]; } || debs+=(default-jre-headless)
        has mvn || debs+=(maven)
      fi ;;
    *) echo "broker-deps: unknown broker $w (rabbitmq-server mosquitto kafka)" >&2; exit 2 ;;
  esac
done
# Installed (or reported missing) the one way every Debian package of the project is.
if [ ${#debs[@]} -gt 0 ]; then bash "$ROOT/scripts/system-deps.sh" "${debs[@]}"; fi

for w in "${wanted[@]}"; do
  [ "$w" = kafka ] || continue
  kafka_ready && continue
  echo "broker-deps: copying Apache Kafka $KAFKA_VERSION's jars from Maven Central into .tools/kafka (about 45 MB)" >&2
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  cat > "$work/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.s7twin</groupId>
  <artifactId>kafka-broker</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$KAFKA_VERSION</version></dependency>
    <!-- Kafka logs through SLF4J; its distribution ships this binding to log4j, the Maven artifact does not. -->
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j-impl</artifactId><version>$LOG4J_VERSION</version></dependency>
  </dependencies>
</project>
EOF
  mvn -q -B -Dstyle.color=never -f "$work/pom.xml" "org.apache.maven.plugins:maven-dependency-plugin:$DEPENDENCY_PLUGIN:copy-dependencies" \
    -DincludeScope=runtime -DoutputDirectory="$work/libs" >&2
  # Swap the folder whole, so a broken download never leaves a half-filled libs/ that looks ready.
  mkdir -p "$KAFKA_DIR"
  rm -rf "$KAFKA_DIR/libs.old"
  if [ -d "$KAFKA_DIR/libs" ]; then mv "$KAFKA_DIR/libs" "$KAFKA_DIR/libs.old"; fi
  mv "$work/libs" "$KAFKA_DIR/libs"
  rm -rf "$KAFKA_DIR/libs.old"
  kafka_stamp > "$KAFKA_DIR/.stamp"
done
