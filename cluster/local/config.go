package local

import (
	"slices"

	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

// serverProperties renders node n's server.properties: the configuration
// cluster/docker passes to its containers as environment; a node with a
// directory id is in a dynamic quorum (quorum.go).
func serverProperties(n *node, all []*node, dataDir string, overrides map[string]string) string {
	nodes := make([]realbroker.Node, len(all))
	for i, o := range all {
		nodes[i] = realbroker.Node{ID: o.id, Host: o.ip, Port: o.port, ControllerPort: o.ctrlPort,
			ProxyPort: o.proxyPort, ProxyAddr: o.proxyAddr, ReplicationPort: o.replPort, ReplicationAddr: o.replAddr}
	}
	props := realbroker.Properties(nodes[slices.Index(all, n)], nodes, dataDir, overrides)
	if n.dirID != "" {
		realbroker.DynamicQuorum(props, nodes)
	}
	return realbroker.RenderProperties("written by kafkachaos cluster/local", props)
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

// log4j1Config is log4jConfig for Kafka 3.x, which logs through log4j 1
// (reload4j).
const log4j1Config = `log4j.rootLogger=INFO, out
log4j.appender.out=org.apache.log4j.ConsoleAppender
log4j.appender.out.layout=org.apache.log4j.PatternLayout
log4j.appender.out.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka=INFO
log4j.logger.state.change.logger=INFO
log4j.logger.org.apache.kafka.clients=WARN
`
