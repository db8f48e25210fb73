package local

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// brokerDefaults are settings for a small, fast-failing test cluster: short
// session and lag timeouts so faults show within seconds, few internal
// partitions so two cores start three brokers quickly. Spec.BrokerConfigs
// override any of them.
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

// serverProperties renders node n's server.properties. Listener addresses
// and identity are fixed here and cannot be overridden: they are what the
// provider's faults and readiness depend on.
func serverProperties(n *node, all []*node, dataDir string, overrides map[string]string) string {
	voters := make([]string, len(all))
	for i, o := range all {
		voters[i] = fmt.Sprintf("%d@%s:%d", o.id, o.ip, o.ctrlPort)
	}
	props := brokerDefaults(len(all))
	maps.Copy(props, overrides)
	maps.Copy(props, map[string]string{
		"process.roles":                  "broker,controller",
		"node.id":                        strconv.Itoa(int(n.id)),
		"controller.quorum.voters":       strings.Join(voters, ","),
		"listeners":                      fmt.Sprintf("PLAINTEXT://%s:%d,CONTROLLER://%s:%d", n.ip, n.port, n.ip, n.ctrlPort),
		"advertised.listeners":           fmt.Sprintf("PLAINTEXT://%s:%d", n.ip, n.port),
		"controller.listener.names":      "CONTROLLER",
		"inter.broker.listener.name":     "PLAINTEXT",
		"listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
		"log.dirs":                       dataDir,
	})
	var b strings.Builder
	b.WriteString("# written by kafkachaos cluster/local\n")
	for _, k := range slices.Sorted(maps.Keys(props)) {
		fmt.Fprintf(&b, "%s=%s\n", k, props[k])
	}
	return b.String()
}

// log4jConfig sends broker logs to stdout, which the provider writes to the
// node's broker.log; Kafka's own config would need YAML support and files.
const log4jConfig = `status = warn
appender.out.type = Console
appender.out.name = OUT
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.out.ref = OUT
logger.kafka.name = kafka
logger.kafka.level = INFO
logger.state.name = state.change.logger
logger.state.level = INFO
logger.clients.name = org.apache.kafka.clients
logger.clients.level = WARN
`
