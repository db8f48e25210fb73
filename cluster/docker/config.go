package docker

import (
	"fmt"
	"maps"
	"strconv"
	"strings"
)

// Ports inside every container: one listener for clients and brokers, one
// for the KRaft quorum.
const (
	clientPort     = 9092
	controllerPort = 9093
)

// dataDir is where brokers keep their logs; apache/kafka's default, so it is
// writable in both images. It survives kill and restart (the container's
// own filesystem), not Stop.
const dataDir = "/tmp/kraft-combined-logs"

// brokerDefaults are settings for a small, fast-failing test cluster (the
// values cluster/local uses, so both providers show faults on the same
// time scale). Spec.BrokerConfigs override any of them.
func brokerDefaults(brokers int) map[string]string {
	rf := strconv.Itoa(min(3, brokers))
	isr := strconv.Itoa(min(2, brokers))
	return map[string]string{
		"num.partitions":                           "1",
		"default.replication.factor":               rf,
		"offsets.topic.replication.factor":         rf,
		"offsets.topic.num.partitions":             "5",
		"transaction.state.log.replication.factor": rf,
		"transaction.state.log.min.isr":            isr,
		"transaction.state.log.num.partitions":     "5",
		"group.initial.rebalance.delay.ms":         "0",
		"group.min.session.timeout.ms":             "1000",
		"auto.create.topics.enable":                "false",
		"unclean.leader.election.enable":           "false",
		"replica.lag.time.max.ms":                  "10000",
		"broker.session.timeout.ms":                "6000",
		"broker.heartbeat.interval.ms":             "1000",
		"num.network.threads":                      "2",
		"num.io.threads":                           "4",
		"log.segment.bytes":                        strconv.Itoa(16 << 20),
	}
}

// nodeEnv is node id's container environment. Identity and listeners come
// last and cannot be overridden: faults and readiness depend on them.
func nodeEnv(id int32, ips map[int32]string, clusterID, heap string, overrides map[string]string) map[string]string {
	voters := make([]string, 0, len(ips))
	for n := int32(1); int(n) <= len(ips); n++ {
		voters = append(voters, fmt.Sprintf("%d@%s:%d", n, ips[n], controllerPort))
	}
	props := brokerDefaults(len(ips))
	maps.Copy(props, overrides)
	ip := ips[id]
	maps.Copy(props, map[string]string{
		"process.roles":                  "broker,controller",
		"node.id":                        strconv.Itoa(int(id)),
		"controller.quorum.voters":       strings.Join(voters, ","),
		"listeners":                      fmt.Sprintf("PLAINTEXT://%s:%d,CONTROLLER://%s:%d", ip, clientPort, ip, controllerPort),
		"advertised.listeners":           fmt.Sprintf("PLAINTEXT://%s:%d", ip, clientPort),
		"controller.listener.names":      "CONTROLLER",
		"inter.broker.listener.name":     "PLAINTEXT",
		"listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
		"log.dirs":                       dataDir,
	})
	env := map[string]string{
		"CLUSTER_ID":      clusterID,
		"KAFKA_HEAP_OPTS": "-Xms" + heap + " -Xmx" + heap,
	}
	for k, v := range props {
		env[envName(k)] = v
	}
	return env
}

// envName is the apache/kafka image's variable for property key, the
// inverse of its mapping: "_" -> "__", "-" -> "___", "." -> "_", upper
// case, KAFKA_ prefix.
func envName(key string) string {
	k := strings.ReplaceAll(key, "_", "__")
	k = strings.ReplaceAll(k, "-", "___")
	k = strings.ReplaceAll(k, ".", "_")
	return "KAFKA_" + strings.ToUpper(k)
}
